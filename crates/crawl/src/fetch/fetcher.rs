//! The guarded client itself: [`Fetcher`] requests one hop, checking the address policy first,
//! sending the site's secrets to the site's origins only, capping the body, and retrying what
//! may pass; [`client_builder`] builds the reqwest client every request of sitemapper goes
//! through.

use std::sync::Arc;
use std::time::{Duration, Instant};

use jiff::Timestamp;
use reqwest::StatusCode;
use reqwest::header::{self, HeaderMap};
use url::Url;

use super::cause::{Deadlines, Phase, error_chain};
use super::failure::FetchFailure;
use super::hop::{
    BodyWanted, FetchedResponse, HopRequest, Method, Validators, is_html_content_type,
};
use super::observer::RequestObserver;
use super::settings::FetchSettings;
use crate::access::SiteSession;
use crate::address::AddressPolicy;
use crate::concurrency::{ConcurrencyLimit, Signal};
use crate::error::CrawlError;
use crate::network::{NetworkOptions, shown_proxy, tls_config};

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

/// The client builder of a [`Fetcher`]: redirects not followed, its deadlines and pool.
pub(super) fn fetcher_client(
    settings: &FetchSettings,
    addresses: &AddressPolicy,
    network: &NetworkOptions,
) -> Result<reqwest::ClientBuilder, CrawlError> {
    Ok(client_builder(addresses, network)?
        .user_agent(settings.user_agent.clone())
        .redirect(reqwest::redirect::Policy::none())
        .connect_timeout(settings.connect_timeout)
        .timeout(settings.request_timeout)
        .pool_max_idle_per_host(settings.idle_connections_per_host)
        .referer(false))
}

/// Room made for a body whose length is not announced (a compressed one): most pages fit.
const INITIAL_BODY_BYTES: usize = 64 * 1024;

/// Redirects a client built by [`client_builder`] follows by itself (a [`Fetcher`] follows
/// its own, hop by hop).
const MAX_CLIENT_REDIRECTS: usize = 10;

/// The one guarded HTTP client (see the module's documentation). Cheap to share: clone the
/// `Arc` it is kept in, not the fetcher.
#[derive(Debug)]
pub struct Fetcher {
    client: reqwest::Client,
    /// The client of the browser's requests (`relay`): the same checks, and no cookie jar (the
    /// browser keeps its own). Built on the first: most fetchers never relay.
    pub(super) browser_client: std::sync::OnceLock<Result<reqwest::Client, CrawlError>>,
    /// What the browser's client is built from.
    pub(super) settings: FetchSettings,
    pub(super) network: NetworkOptions,
    pub(super) addresses: AddressPolicy,
    /// What requests to the site carry: the user's headers, credentials and cookies, and the
    /// cookies the site sets (the client's cookie store). Without one, requests carry none,
    /// and no cookie is kept.
    pub(super) session: Option<Arc<SiteSession>>,
    pub(super) max_redirects: usize,
    retries: u32,
    retry_base_delay: Duration,
    max_retry_after: Duration,
    /// Told of every request's answer or failure (a fleet's metrics).
    observer: Option<Arc<dyn RequestObserver>>,
}

impl Fetcher {
    /// A fetcher that connects where `addresses` allows, through `network`'s proxy and
    /// certificates, with `session`'s secrets for the site's origins (none without one).
    /// Fails when the system's root certificates cannot be loaded, or the proxy is not one
    /// reqwest can use.
    pub fn new(
        settings: &FetchSettings,
        addresses: AddressPolicy,
        network: &NetworkOptions,
        session: Option<Arc<SiteSession>>,
    ) -> Result<Fetcher, CrawlError> {
        let mut builder = fetcher_client(settings, &addresses, network)?;
        if let Some(session) = &session {
            builder = builder.cookie_provider(Arc::clone(session));
        }
        let client = builder
            .build()
            .map_err(|error| CrawlError::Client(error_chain(&error)))?;
        Ok(Fetcher {
            client,
            browser_client: std::sync::OnceLock::new(),
            settings: settings.clone(),
            network: network.clone(),
            addresses,
            session,
            max_redirects: settings.max_redirects,
            retries: settings.retries,
            retry_base_delay: settings.retry_base_delay,
            max_retry_after: settings.max_retry_after,
            observer: None,
        })
    }

    /// The fetcher, telling `observer` of every request it makes.
    pub fn observed_by(mut self, observer: Option<Arc<dyn RequestObserver>>) -> Fetcher {
        self.observer = observer;
        self
    }

    /// Requests `url` as `request` says, retrying timeouts, connection errors, 429, 502, 503
    /// and 504 with exponential backoff and jitter, honouring `Retry-After` up to a cap.
    /// After the last attempt the last response (or failure) is returned as it is. A retry is
    /// a request like any other: it happens only when `reserve_retry` grants it one (from the
    /// crawl's request budget). Every attempt tells `limit`, when there is one, how the site
    /// answered, and `held_off` how long the server asked to be left alone (`Retry-After` on
    /// 429 and 503, capped), so that the caller slows its pace to that host too. One hop: a
    /// redirect is returned as it is (see `chain`).
    pub(crate) async fn fetch(
        &self,
        url: &Url,
        request: &HopRequest,
        attempts: &dyn Attempts,
    ) -> Result<FetchedResponse, FetchFailure> {
        let limit = attempts.limit();
        let mut attempt = 0;
        loop {
            let ticket = limit.map(ConcurrencyLimit::ticket);
            let result = self.fetch_once(url, request).await;
            if let Some(observer) = &self.observer {
                match &result {
                    Ok(response) => observer.answered(response.status, response.body.len()),
                    Err(failure) => observer.failed(failure),
                }
            }
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
            let retry_after = retry_after.map(|requested| requested.min(self.max_retry_after));
            if let Some(wait) = retry_after {
                attempts.held_off(url, wait);
            }
            if attempt >= self.retries || !attempts.reserve_retry() {
                return result;
            }
            let backoff = self.backoff(attempt, url);
            let wait = retry_after.unwrap_or(backoff);
            tracing::debug!(%url, attempt, ?wait, "retrying");
            tokio::time::sleep(wait).await;
            attempt += 1;
        }
    }

    async fn fetch_once(
        &self,
        url: &Url,
        hop: &HopRequest,
    ) -> Result<FetchedResponse, FetchFailure> {
        // Address literals are not resolved, so the resolver cannot refuse them.
        self.addresses
            .check_url(url)
            .map_err(|refused| FetchFailure::refused(&refused))?;
        let started = Instant::now();
        let fetched_at = Timestamp::now();
        let mut request = match &hop.method {
            Method::Get => self.client.get(url.clone()),
            Method::Head => self.client.head(url.clone()),
            Method::Post { content_type, body } => self
                .client
                .post(url.clone())
                .header(header::CONTENT_TYPE, content_type)
                .body(body.clone()),
        };
        // Per hop: a redirect to another origin gets none of the site's secrets.
        if let Some(session) = &self.session {
            for (name, value) in session.headers_for(url) {
                request = request.header(name, value);
            }
        }
        if let Some(validators) = &hop.validators {
            request = conditional(request, validators);
        }
        let mut response = request
            .send()
            .await
            .map_err(|error| self.failure(&error, url, Phase::BeforeAnswer))?;
        let time_to_headers = started.elapsed();
        let status = response.status();
        let headers = response.headers().clone();
        let (body, truncated) = match body_cap(hop.wanted, status, &headers) {
            Some(cap) => read_body(&mut response, cap)
                .await
                .map_err(|error| self.failure(&error, url, Phase::Body))?,
            None => (Vec::new(), false),
        };
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

    /// The failure of a request to `url` that reqwest returned in `phase`.
    pub(super) fn failure(&self, error: &reqwest::Error, url: &Url, phase: Phase) -> FetchFailure {
        let deadlines = Deadlines {
            connect: self.settings.connect_timeout,
            request: self.settings.request_timeout,
            options: self.settings.crawl_options,
        };
        FetchFailure::from_reqwest(error, url, phase, &deadlines)
    }

    /// `base * 2^attempt`, plus up to half of that again as jitter so that retries of many
    /// URLs do not arrive together.
    fn backoff(&self, attempt: u32, url: &Url) -> Duration {
        let base = self.retry_base_delay.saturating_mul(1 << attempt.min(10));
        let jitter_fraction = f64::from(jitter_seed(url) % 1000) / 2000.0;
        base + base.mul_f64(jitter_fraction)
    }
}

/// `request` made conditional on `validators` (RFC 9110 section 13.1).
fn conditional(
    mut request: reqwest::RequestBuilder,
    validators: &Validators,
) -> reqwest::RequestBuilder {
    if let Some(etag) = &validators.etag {
        request = request.header(header::IF_NONE_MATCH, etag);
    }
    if let Some(time) = validators.last_modified
        && let Ok(seconds) = u64::try_from(time.as_second())
    {
        let time = std::time::UNIX_EPOCH + Duration::from_secs(seconds);
        request = request.header(header::IF_MODIFIED_SINCE, httpdate::fmt_http_date(time));
    }
    request
}

/// How much of the body to read, when it is `wanted` at all.
fn body_cap(wanted: BodyWanted, status: StatusCode, headers: &HeaderMap) -> Option<usize> {
    match wanted {
        BodyWanted::Html200 { cap } => {
            let is_html = headers
                .get(header::CONTENT_TYPE)
                .and_then(|value| value.to_str().ok())
                .is_some_and(is_html_content_type);
            (status == StatusCode::OK && is_html).then_some(cap)
        }
        BodyWanted::AnySuccess { cap } => status.is_success().then_some(cap),
        BodyWanted::Nothing => None,
    }
}

/// The body, up to `cap` bytes, and whether there was more.
async fn read_body(
    response: &mut reqwest::Response,
    cap: usize,
) -> Result<(Vec<u8>, bool), reqwest::Error> {
    // Sized once for a usual page (or the length the server announced), instead of doubling
    // from a few bytes and copying the page on every step.
    let expected = response
        .content_length()
        .map_or(INITIAL_BODY_BYTES, |length| {
            usize::try_from(length).unwrap_or(cap)
        });
    let mut body = Vec::with_capacity(expected.min(cap));
    // Chunks arrive decompressed, so the cap bounds the expanded size: a gzip bomb costs at
    // most `cap` bytes.
    while let Some(chunk) = response.chunk().await? {
        let room = cap - body.len();
        if chunk.len() > room {
            body.extend_from_slice(&chunk[..room]);
            return Ok((body, true));
        }
        body.extend_from_slice(&chunk);
    }
    Ok((body, false))
}

/// What the caller of [`Fetcher::fetch`] says of its attempts: whether a retry may be sent,
/// the concurrency limit each attempt reports to, and where a server's request to be left
/// alone goes.
pub(crate) trait Attempts: Send + Sync {
    /// Whether a retry may be sent (a request budget).
    fn reserve_retry(&self) -> bool;

    /// The concurrency limit every attempt reports to, if any.
    fn limit(&self) -> Option<&ConcurrencyLimit>;

    /// `url`'s server asked, with `Retry-After`, to be left alone for `wait` (capped).
    fn held_off(&self, url: &Url, wait: Duration);
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
        let fetcher = Fetcher::new(
            &FetchSettings::default(),
            AddressPolicy::default(),
            &NetworkOptions::default(),
            Some(session),
        )
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
