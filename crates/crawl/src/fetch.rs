//! One HTTP request at a time, bounded in time and memory, with retries for transient failures.
//!
//! Redirects are not followed here: the engine follows them itself so that every hop is checked
//! against scope and robots.txt before it is requested (docs/design.md, Fetching and politeness).

use std::sync::Arc;
use std::time::{Duration, Instant};

use jiff::Timestamp;
use reqwest::StatusCode;
use reqwest::header::{self, HeaderMap};
use url::Url;

use crate::CrawlError;
use crate::access::SiteSession;
use crate::address::{AddressPolicy, PrivateAddress};
use crate::concurrency::{ConcurrencyLimit, Signal};
use crate::config::CrawlConfig;
use crate::event::is_html_content_type;
use crate::network::{NetworkOptions, shown_proxy, tls_config};

/// Which bodies are worth reading. Others are not downloaded at all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BodyWanted {
    /// 200 responses with an HTML content type (pages).
    Html200,
    /// Any 2xx response, whatever its type (robots.txt), up to the given cap.
    AnySuccess { cap: usize },
}

/// The validators of a conditional request (RFC 9110 section 13).
#[derive(Debug, Clone, Default)]
pub(crate) struct Validators {
    pub etag: Option<String>,
    pub last_modified: Option<Timestamp>,
}

/// A response as far as the crawl cares.
#[derive(Debug)]
pub(crate) struct FetchedResponse {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: Vec<u8>,
    pub truncated: bool,
    pub fetched_at: Timestamp,
    /// From sending the request to the end of its body (or of its headers, when the body is
    /// not read).
    pub elapsed: Duration,
    /// From sending the request to its response headers: how long the server took.
    pub time_to_headers: Duration,
}

impl FetchedResponse {
    pub(crate) fn header(&self, name: header::HeaderName) -> Option<String> {
        self.headers
            .get(name)
            .and_then(|value| value.to_str().ok())
            .map(str::to_string)
    }

    pub(crate) fn header_values(&self, name: header::HeaderName) -> Vec<String> {
        self.headers
            .get_all(name)
            .iter()
            .filter_map(|value| value.to_str().ok())
            .map(str::to_string)
            .collect()
    }
}

/// Why no response could be had.
#[derive(Debug, Clone, thiserror::Error)]
pub(crate) enum FetchFailure {
    #[error("timed out")]
    Timeout,
    #[error("connection failed: {0}")]
    Connect(String),
    #[error("reading the body failed: {0}")]
    Body(String),
    #[error("request failed: {0}")]
    Other(String),
    #[error("{0}")]
    Refused(PrivateAddress),
}

impl FetchFailure {
    fn from_reqwest(error: &reqwest::Error) -> FetchFailure {
        let message = error_chain(error);
        if let Some(refused) = refusal_in(error) {
            FetchFailure::Refused(refused)
        } else if error.is_timeout() {
            FetchFailure::Timeout
        } else if error.is_connect() || error.is_request() {
            // A connection reset or closed before any response came (a kept-alive
            // connection the server dropped, a server that restarts) is as transient as a
            // failed connect, and a GET is safe to send again (RFC 9110 section 9.2.2).
            FetchFailure::Connect(message)
        } else if error.is_body() || error.is_decode() {
            FetchFailure::Body(message)
        } else {
            FetchFailure::Other(message)
        }
    }

    fn is_transient(&self) -> bool {
        matches!(self, FetchFailure::Timeout | FetchFailure::Connect(_))
    }
}

/// The address policy's refusal, when that is why the connection failed.
fn refusal_in(error: &(dyn std::error::Error + 'static)) -> Option<PrivateAddress> {
    let mut source = error.source();
    while let Some(cause) = source {
        if let Some(refused) = cause.downcast_ref::<PrivateAddress>() {
            return Some(refused.clone());
        }
        source = cause.source();
    }
    None
}

/// The error and its sources on one line: reqwest's own message alone rarely says why.
fn error_chain(error: &(dyn std::error::Error + 'static)) -> String {
    let mut message = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let text = cause.to_string();
        if !message.contains(&text) {
            message.push_str(": ");
            message.push_str(&text);
        }
        source = cause.source();
    }
    message
}

/// A reqwest client builder with TLS ready (the extra roots, or any certificate, as `network`
/// says), the proxy of `network`, and `addresses` enforced on every connection, redirects
/// included. Requests to URLs whose host is an address literal must still pass
/// [`AddressPolicy::check_url`] first: they are not resolved. Fails when the system's root
/// certificates cannot be loaded, or the proxy is not one reqwest can use.
pub fn client_builder(
    addresses: &AddressPolicy,
    network: &NetworkOptions,
) -> Result<reqwest::ClientBuilder, CrawlError> {
    let tls = tls_config(network).map_err(|error| CrawlError::Client(error.to_string()))?;
    let redirect_policy = addresses.clone();
    let mut builder = reqwest::Client::builder()
        .tls_backend_preconfigured(tls)
        .dns_resolver(addresses.resolver_trusting(&network.proxy_hosts))
        .redirect(reqwest::redirect::Policy::custom(move |attempt| {
            if attempt.previous().len() >= MAX_CLIENT_REDIRECTS {
                attempt.error("too many redirects")
            } else if let Err(refused) = redirect_policy.check_url(attempt.url()) {
                attempt.error(refused)
            } else {
                attempt.follow()
            }
        }));
    if let Some(proxy) = &network.proxy {
        // `--proxy` replaces the proxies of the environment; NO_PROXY still applies.
        let proxy = reqwest::Proxy::all(proxy.as_str())
            .map_err(|error| {
                CrawlError::Client(format!(
                    "cannot use the proxy {}: {}",
                    shown_proxy(proxy),
                    error_chain(&error)
                ))
            })?
            .no_proxy(reqwest::NoProxy::from_env());
        builder = builder.proxy(proxy);
    }
    Ok(builder)
}

/// Room made for a body whose length is not announced (a compressed one): most pages fit.
const INITIAL_BODY_BYTES: usize = 64 * 1024;

/// Redirects a client built by [`client_builder`] follows by itself (the crawl follows its
/// own, hop by hop).
const MAX_CLIENT_REDIRECTS: usize = 10;

#[derive(Debug)]
pub(crate) struct Fetcher {
    client: reqwest::Client,
    addresses: AddressPolicy,
    /// What requests to the site carry: the user's headers, credentials and cookies, and the
    /// cookies the site sets (the client's cookie store).
    session: Arc<SiteSession>,
    max_body_bytes: usize,
    retries: u32,
    retry_base_delay: Duration,
    max_retry_after: Duration,
}

impl Fetcher {
    pub(crate) fn new(
        config: &CrawlConfig,
        addresses: AddressPolicy,
        session: Arc<SiteSession>,
    ) -> Result<Fetcher, CrawlError> {
        let client = client_builder(&addresses, &config.network)?
            .cookie_provider(Arc::clone(&session))
            .user_agent(config.user_agent.clone())
            .redirect(reqwest::redirect::Policy::none())
            .connect_timeout(config.connect_timeout)
            .timeout(config.request_timeout)
            .pool_max_idle_per_host(config.concurrency.most())
            .referer(false)
            .build()
            .map_err(|error| CrawlError::Client(error_chain(&error)))?;
        Ok(Fetcher {
            client,
            addresses,
            session,
            max_body_bytes: config.max_body_bytes,
            retries: config.retries,
            retry_base_delay: config.retry_base_delay,
            max_retry_after: config.max_retry_after,
        })
    }

    /// GET `url`, retrying timeouts, connection errors, 429, 502, 503 and 504 with exponential
    /// backoff and jitter, honouring `Retry-After` up to a cap. After the last attempt the last
    /// response (or failure) is returned as it is. A retry is a request like any other: it
    /// happens only when `reserve_retry` grants it one from the crawl's request budget. Every
    /// attempt tells `limit`, when there is one, how the site answered.
    pub(crate) async fn fetch(
        &self,
        url: &Url,
        wanted: BodyWanted,
        validators: Option<&Validators>,
        reserve_retry: &(dyn Fn() -> bool + Send + Sync),
        limit: Option<&ConcurrencyLimit>,
    ) -> Result<FetchedResponse, FetchFailure> {
        let mut attempt = 0;
        loop {
            let ticket = limit.map(ConcurrencyLimit::ticket);
            let result = self.fetch_once(url, wanted, validators).await;
            if let (Some(limit), Some(ticket)) = (limit, ticket)
                && let Some(signal) = signal_of(&result)
            {
                limit.observe(ticket, signal);
            }
            let retry_after = match &result {
                Ok(response) if is_retryable_status(response.status) => {
                    Some(retry_after(&response.headers, response.fetched_at))
                }
                Err(failure) if failure.is_transient() => Some(None),
                _ => None,
            };
            let Some(retry_after) = retry_after else {
                return result;
            };
            if attempt >= self.retries || !reserve_retry() {
                return result;
            }
            let backoff = self.backoff(attempt, url);
            let wait = retry_after.map_or(backoff, |requested| requested.min(self.max_retry_after));
            tracing::debug!(%url, attempt, ?wait, "retrying");
            tokio::time::sleep(wait).await;
            attempt += 1;
        }
    }

    async fn fetch_once(
        &self,
        url: &Url,
        wanted: BodyWanted,
        validators: Option<&Validators>,
    ) -> Result<FetchedResponse, FetchFailure> {
        self.addresses
            .check_url(url)
            .map_err(FetchFailure::Refused)?;
        let started = Instant::now();
        let fetched_at = Timestamp::now();
        let mut request = self.client.get(url.clone());
        for (name, value) in self.session.headers_for(url) {
            request = request.header(name, value);
        }
        if let Some(validators) = validators {
            if let Some(etag) = &validators.etag {
                request = request.header(header::IF_NONE_MATCH, etag);
            }
            if let Some(time) = validators.last_modified
                && let Ok(seconds) = u64::try_from(time.as_second())
            {
                let time = std::time::UNIX_EPOCH + Duration::from_secs(seconds);
                request = request.header(header::IF_MODIFIED_SINCE, httpdate::fmt_http_date(time));
            }
        }
        let mut response = request
            .send()
            .await
            .map_err(|error| FetchFailure::from_reqwest(&error))?;
        let time_to_headers = started.elapsed();
        let status = response.status();
        let headers = response.headers().clone();
        let cap = match wanted {
            BodyWanted::Html200 => {
                let is_html = headers
                    .get(header::CONTENT_TYPE)
                    .and_then(|value| value.to_str().ok())
                    .is_some_and(is_html_content_type);
                (status == StatusCode::OK && is_html).then_some(self.max_body_bytes)
            }
            BodyWanted::AnySuccess { cap } => status.is_success().then_some(cap),
        };
        let mut body = Vec::new();
        let mut truncated = false;
        if let Some(cap) = cap {
            // Sized once for a usual page (or the length the server announced), instead of
            // doubling from a few bytes and copying the page on every step.
            let expected = response
                .content_length()
                .map_or(INITIAL_BODY_BYTES, |length| {
                    usize::try_from(length).unwrap_or(cap)
                });
            body.reserve_exact(expected.min(cap));
            // Chunks arrive decompressed, so the cap bounds the expanded size: a gzip bomb
            // costs at most `cap` bytes.
            while let Some(chunk) = response
                .chunk()
                .await
                .map_err(|error| FetchFailure::from_reqwest(&error))?
            {
                let room = cap - body.len();
                if chunk.len() > room {
                    body.extend_from_slice(&chunk[..room]);
                    truncated = true;
                    break;
                }
                body.extend_from_slice(&chunk);
            }
        }
        Ok(FetchedResponse {
            status,
            headers,
            body,
            truncated,
            fetched_at,
            elapsed: started.elapsed(),
            time_to_headers,
        })
    }

    /// `base * 2^attempt`, plus up to half of that again as jitter so that retries of many
    /// URLs do not arrive together.
    fn backoff(&self, attempt: u32, url: &Url) -> Duration {
        let base = self.retry_base_delay.saturating_mul(1 << attempt.min(10));
        let jitter_fraction = f64::from(jitter_seed(url) % 1000) / 2000.0;
        base + base.mul_f64(jitter_fraction)
    }
}

fn is_retryable_status(status: StatusCode) -> bool {
    matches!(status.as_u16(), 429 | 502 | 503 | 504)
}

/// What an attempt tells the concurrency limit: what is retried as transient is the site
/// overloaded; any other response, how long its headers took; any other failure (an
/// address refused, a broken body), nothing about the site's load.
fn signal_of(result: &Result<FetchedResponse, FetchFailure>) -> Option<Signal> {
    match result {
        Ok(response) if is_retryable_status(response.status) => Some(Signal::Overloaded),
        Ok(response) => Some(Signal::Answered(response.time_to_headers)),
        Err(failure) if failure.is_transient() => Some(Signal::Overloaded),
        Err(_) => None,
    }
}

/// `Retry-After` as delay-seconds or an HTTP-date (RFC 9110 section 10.2.3).
fn retry_after(headers: &HeaderMap, now: Timestamp) -> Option<Duration> {
    let value = headers.get(header::RETRY_AFTER)?.to_str().ok()?.trim();
    if let Ok(seconds) = value.parse::<u64>() {
        return Some(Duration::from_secs(seconds));
    }
    let date = Timestamp::try_from(httpdate::parse_http_date(value).ok()?).ok()?;
    let seconds = date.as_second().saturating_sub(now.as_second());
    Some(Duration::from_secs(u64::try_from(seconds).unwrap_or(0)))
}

/// Cheap per-request randomness for jitter, without a random number generator dependency.
fn jitter_seed(url: &Url) -> u32 {
    use std::hash::{BuildHasher, RandomState};
    let hash = RandomState::new().hash_one((url.as_str(), Instant::now()));
    (hash % u64::from(u32::MAX)) as u32
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderValue;

    #[test]
    fn retry_after_in_seconds_and_as_a_date() {
        let now: Timestamp = "2025-01-01T00:00:00Z"
            .parse()
            .unwrap_or_else(|error| panic!("{error}"));
        let mut headers = HeaderMap::new();
        headers.insert(header::RETRY_AFTER, HeaderValue::from_static("7"));
        assert_eq!(retry_after(&headers, now), Some(Duration::from_secs(7)));
        headers.insert(
            header::RETRY_AFTER,
            HeaderValue::from_static("Wed, 01 Jan 2025 00:00:30 GMT"),
        );
        assert_eq!(retry_after(&headers, now), Some(Duration::from_secs(30)));
        headers.insert(
            header::RETRY_AFTER,
            HeaderValue::from_static("Tue, 31 Dec 2024 00:00:30 GMT"),
        );
        assert_eq!(retry_after(&headers, now), Some(Duration::ZERO));
        headers.insert(header::RETRY_AFTER, HeaderValue::from_static("soon"));
        assert_eq!(retry_after(&headers, now), None);
    }

    #[test]
    fn clients_bring_their_own_crypto_provider() {
        client_builder(&AddressPolicy::default(), &NetworkOptions::default())
            .unwrap_or_else(|error| panic!("{error}"))
            .build()
            .unwrap_or_else(|error| panic!("{error}"));
        assert!(
            rustls::crypto::CryptoProvider::get_default().is_none(),
            "no process-wide crypto provider is installed"
        );
    }

    #[test]
    fn backoff_grows_and_stays_within_its_jitter() {
        let url = Url::parse("http://example.com/").unwrap_or_else(|error| panic!("{error}"));
        let session = Arc::new(SiteSession::none(&url));
        let fetcher = Fetcher::new(&CrawlConfig::default(), AddressPolicy::default(), session)
            .unwrap_or_else(|error| panic!("{error}"));
        for attempt in 0..4 {
            let base = Duration::from_millis(500) * (1 << attempt);
            let backoff = fetcher.backoff(attempt, &url);
            assert!(
                backoff >= base && backoff <= base + base / 2,
                "attempt {attempt}: {backoff:?}"
            );
        }
    }
}
