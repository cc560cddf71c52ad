//! Requests of the browser, made for it: one hop each (the browser follows redirects itself,
//! each one through the gate again), its own headers and cookies, the fetcher's checks
//! (address policy, the site's secrets for its origins only), the body streamed back.

use std::fmt;
use std::pin::Pin;

use bytes::Bytes;
use futures_util::{Stream, TryStreamExt};
use reqwest::header::{self, HeaderMap, HeaderName};
use reqwest::{Method, StatusCode};
use url::Url;

use super::cause::{FailureCause, Phase, error_chain};
use super::failure::{FetchFailure, FetchFailureKind};
use super::fetcher::{Fetcher, fetcher_client};
use crate::error::CrawlError;

/// A body streamed from the site to the browser.
pub type BodyStream = Pin<Box<dyn Stream<Item = Result<Bytes, std::io::Error>> + Send>>;

/// One request the browser wants to make, as it made it.
#[derive(Debug)]
pub struct BrowserRequest {
    /// Its method.
    pub method: Method,
    /// Its URL, absolute.
    pub url: Url,
    /// The browser's headers, hop-by-hop ones (`Connection`, `Proxy-*`, ...) left out.
    pub headers: HeaderMap,
    /// Its body (a POST's).
    pub body: Bytes,
}

/// The answer to a request of the browser: one response, redirects included (the browser
/// follows them itself, each hop through the gate again).
pub struct BrowserResponse {
    /// Its status.
    pub status: StatusCode,
    /// Its headers, hop-by-hop ones and content codings the fetcher undid left out.
    pub headers: HeaderMap,
    /// Its body, decompressed, as it arrives.
    pub body: BodyStream,
}

impl fmt::Debug for BrowserResponse {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter
            .debug_struct("BrowserResponse")
            .field("status", &self.status)
            .finish_non_exhaustive()
    }
}

/// The most bytes of one response relayed to the browser; the rest is cut (the browser sees
/// a body that ends early). Generous: a script bundle is large, and nothing is kept.
const MAX_RELAYED_BYTES: u64 = 64 * 1024 * 1024;

/// Headers of one connection, not of the request or response (RFC 9110 section 7.6.1), and
/// those the fetcher sets itself (`Host`, and `Accept-Encoding`, so that it can undo the
/// coding it asked for).
const NOT_RELAYED: &[HeaderName] = &[
    header::CONNECTION,
    header::HOST,
    header::PROXY_AUTHORIZATION,
    header::PROXY_AUTHENTICATE,
    header::TE,
    header::TRAILER,
    header::TRANSFER_ENCODING,
    header::UPGRADE,
    header::ACCEPT_ENCODING,
];

impl Fetcher {
    /// Makes `request` of the browser, once (a POST is not safe to repeat): the browser's
    /// headers, with the site's (user's headers, authentication, cookies) in place of the
    /// browser's of the same name when `request` goes to the site's origins. The browser's
    /// cookies are its own: the crawl's jar neither adds to them nor keeps what the site
    /// sets for the browser.
    pub(crate) async fn relay(
        &self,
        request: BrowserRequest,
    ) -> Result<BrowserResponse, FetchFailure> {
        let BrowserRequest {
            method,
            url,
            mut headers,
            body,
        } = request;
        self.addresses
            .check_url(&url)
            .map_err(|refused| FetchFailure::refused(&refused))?;
        strip(&mut headers);
        if let Some(session) = &self.session {
            for (name, value) in session.browser_headers(&url) {
                headers.insert(name, value);
            }
        }
        let client = self
            .browser_client
            .get_or_init(|| {
                fetcher_client(&self.settings, &self.addresses, &self.network)?
                    .build()
                    .map_err(|error| CrawlError::Client(error_chain(&error)))
            })
            .as_ref()
            .map_err(|error| {
                let detail = error.to_string();
                FetchFailure::new(FetchFailureKind::Other, FailureCause::Other { detail })
            })?;
        let response = client
            .request(method, url.clone())
            .headers(headers)
            .body(body)
            .send()
            .await
            .map_err(|error| self.failure(&error, &url, Phase::BeforeAnswer))?;
        let status = response.status();
        let mut headers = response.headers().clone();
        strip(&mut headers);
        // The body arrives decompressed: its coding and length are the server's, not this
        // body's.
        headers.remove(header::CONTENT_ENCODING);
        headers.remove(header::CONTENT_LENGTH);
        let mut left = MAX_RELAYED_BYTES;
        let body = response
            .bytes_stream()
            .map_err(|error| std::io::Error::other(error.to_string()))
            .try_take_while(move |chunk| {
                let fits = u64::try_from(chunk.len()).unwrap_or(u64::MAX) <= left;
                left = left.saturating_sub(u64::try_from(chunk.len()).unwrap_or(u64::MAX));
                std::future::ready(Ok(fits))
            });
        Ok(BrowserResponse {
            status,
            headers,
            body: Box::pin(body),
        })
    }
}

fn strip(headers: &mut HeaderMap) {
    for name in NOT_RELAYED {
        headers.remove(name);
    }
    // `Keep-Alive` and `Proxy-Connection` have no constant of their own.
    headers.remove("keep-alive");
    headers.remove("proxy-connection");
}
