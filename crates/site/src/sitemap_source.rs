//! Where a sitemap comes from: a URL (fetched with a size cap) or a file, gzip or not.

use std::io::Read;
use std::sync::Arc;
use std::time::Duration;

use sitemapper_crawl::{AddressPolicy, CrawlError, HostMap, NetworkOptions, SiteSession};
use sitemapper_sitemap::{Listed, MAX_BYTES_PER_FILE, SitemapEntry, SitemapKey};
use url::Url;

/// Redirects followed to a sitemap.
const MAX_REDIRECTS: usize = 10;

/// An HTTP client for sitemaps that obeys an address policy: names are checked when they
/// resolve, address literals before each request (redirects included). With a crawl's
/// session, requests to the site carry its headers, credentials and cookies; requests to any
/// other host, a redirect's included, carry none of them.
#[derive(Debug)]
pub struct SitemapClient {
    client: reqwest::Client,
    addresses: AddressPolicy,
    session: Option<Arc<SiteSession>>,
}

impl SitemapClient {
    /// A client for the sitemaps of the site a crawl reached: its network settings, and its
    /// session for the site's own origins.
    pub fn for_site(
        user_agent: &str,
        timeout: Duration,
        addresses: AddressPolicy,
        network: &NetworkOptions,
        session: Arc<SiteSession>,
    ) -> Result<SitemapClient, CrawlError> {
        SitemapClient::build(user_agent, timeout, addresses, network, Some(session))
    }

    fn build(
        user_agent: &str,
        timeout: Duration,
        addresses: AddressPolicy,
        network: &NetworkOptions,
        session: Option<Arc<SiteSession>>,
    ) -> Result<SitemapClient, CrawlError> {
        let mut builder = sitemapper_crawl::client_builder(&addresses, network)?
            .user_agent(user_agent.to_string())
            .timeout(timeout)
            // Followed here, hop by hop, so that each hop gets the site's headers or none.
            .redirect(reqwest::redirect::Policy::none());
        if let Some(session) = &session {
            builder = builder.cookie_provider(Arc::clone(session));
        }
        Ok(SitemapClient {
            client: builder
                .build()
                .map_err(|error| CrawlError::Client(error.to_string()))?,
            addresses,
            session,
        })
    }

    /// The body, gunzipped when it is gzip; `None` for a 404 or 410.
    pub async fn fetch(&self, url: &Url) -> Result<Option<Vec<u8>>, String> {
        let mut url = url.clone();
        for _ in 0..=MAX_REDIRECTS {
            self.addresses
                .check_url(&url)
                .map_err(|refused| refused.to_string())?;
            let mut request = self.client.get(url.clone());
            if let Some(session) = &self.session {
                for (name, value) in session.headers_for(&url) {
                    request = request.header(name, value);
                }
            }
            let response = request
                .send()
                .await
                .map_err(|error| format!("request failed: {error}"))?;
            if !matches!(response.status().as_u16(), 301 | 302 | 303 | 307 | 308) {
                return read(response).await;
            }
            let location = response
                .headers()
                .get(reqwest::header::LOCATION)
                .and_then(|value| value.to_str().ok())
                .and_then(|location| url.join(location.trim()).ok())
                .filter(|target| matches!(target.scheme(), "http" | "https"));
            url = location.ok_or_else(|| {
                format!("answered {} without a usable Location", response.status())
            })?;
        }
        Err("too many redirects".to_string())
    }
}

async fn read(mut response: reqwest::Response) -> Result<Option<Vec<u8>>, String> {
    let status = response.status();
    if matches!(status.as_u16(), 404 | 410) {
        return Ok(None);
    }
    if !status.is_success() {
        return Err(format!("answered {status}"));
    }
    let limit = usize::try_from(MAX_BYTES_PER_FILE).unwrap_or(usize::MAX);
    let mut bytes = Vec::new();
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|error| format!("reading failed: {error}"))?
    {
        bytes.extend_from_slice(&chunk);
        if bytes.len() > limit {
            return Err(format!("larger than {limit} bytes"));
        }
    }
    gunzip_if_gzip(bytes).map(Some)
}

/// `bytes` decompressed when they are gzip (by their magic number, whatever the name says),
/// up to the protocol's 50 MiB.
pub fn gunzip_if_gzip(bytes: Vec<u8>) -> Result<Vec<u8>, String> {
    if !bytes.starts_with(&[0x1f, 0x8b]) {
        return Ok(bytes);
    }
    let limit = usize::try_from(MAX_BYTES_PER_FILE).unwrap_or(usize::MAX);
    let mut expanded = Vec::new();
    flate2::read::GzDecoder::new(bytes.as_slice())
        .take(MAX_BYTES_PER_FILE + 1)
        .read_to_end(&mut expanded)
        .map_err(|error| format!("bad gzip: {error}"))?;
    if expanded.len() > limit {
        return Err(format!("larger than {limit} bytes uncompressed"));
    }
    Ok(expanded)
}

/// The sitemaps an `index` lists, for its walk: each `<loc>` resolved against the index's
/// URL, and, when it names a production host (`--map-host`), read on its staging copy.
pub fn listed_sitemaps(
    index: &Url,
    entries: Vec<SitemapEntry>,
    host_map: &HostMap,
) -> impl Iterator<Item = Listed<Url>> {
    entries.into_iter().filter_map(move |entry| {
        let child = index.join(&entry.loc).ok()?;
        let child = host_map.to_crawled(&child).unwrap_or(child);
        Some(Listed {
            key: SitemapKey::url(&child),
            source: child,
            line: entry.line,
        })
    })
}
