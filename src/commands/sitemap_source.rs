//! Where a sitemap comes from: a URL (fetched with a size cap) or a file, gzip or not.

use std::io::Read;
use std::time::Duration;

use sitemapper_crawl::AddressPolicy;
use sitemapper_sitemap::MAX_BYTES_PER_FILE;
use url::Url;

/// An HTTP client for sitemaps that obeys an address policy: names are checked when they
/// resolve, address literals before each request.
#[derive(Debug)]
pub(crate) struct SitemapClient {
    client: reqwest::Client,
    addresses: AddressPolicy,
}

impl SitemapClient {
    pub(crate) fn new(
        user_agent: &str,
        timeout: Duration,
        addresses: AddressPolicy,
    ) -> anyhow::Result<SitemapClient> {
        let client = sitemapper_crawl::client_builder(&addresses)?
            .user_agent(user_agent.to_string())
            .timeout(timeout)
            .build()?;
        Ok(SitemapClient { client, addresses })
    }

    /// The body, gunzipped when it is gzip; `None` for a 404 or 410.
    pub(crate) async fn fetch(&self, url: &Url) -> Result<Option<Vec<u8>>, String> {
        self.addresses
            .check_url(url)
            .map_err(|refused| refused.to_string())?;
        fetch(&self.client, url).await
    }
}

async fn fetch(client: &reqwest::Client, url: &Url) -> Result<Option<Vec<u8>>, String> {
    let mut response = client
        .get(url.clone())
        .send()
        .await
        .map_err(|error| format!("request failed: {error}"))?;
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
pub(crate) fn gunzip_if_gzip(bytes: Vec<u8>) -> Result<Vec<u8>, String> {
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
