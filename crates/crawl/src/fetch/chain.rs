//! Redirect chains, followed hop by hop by the crawler itself, never inside the HTTP client
//! (docs/design.md, Fetching and politeness): each hop is checked by the caller's rules before
//! it is requested, goes through [`Fetcher::fetch`] (address policy, the site's secrets for
//! the site's origins only, body cap, retries), and the redirect it answers is resolved and
//! counted here. The caller says what a hop may be ([`Hops::before`]), what a target is
//! ([`Hops::target`]), and what the chain's end means; this loop is the only one.

use std::future::Future;
use std::time::Duration;

use reqwest::header;
use url::Url;

use super::failure::FetchFailure;
use super::fetcher::{Attempts, Fetcher};
use super::hop::{FetchedResponse, HopRequest};
use crate::concurrency::ConcurrencyLimit;

/// Whether `status` sends the client on to its `Location`: 301, 302, 303, 307 and 308 (RFC
/// 9110 section 15.4). A 300 leaves the choice to the user, a 304 answers a conditional
/// request, 305 and 306 are no longer used: each is an answer, not a hop.
pub(crate) fn is_redirect(status: u16) -> bool {
    matches!(status, 301 | 302 | 303 | 307 | 308)
}

/// Why a chain of redirects stopped short of an answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Broken {
    /// A redirect whose `Location` is missing, not a URL, not http(s), or not one the caller
    /// can request; the header as sent, if there was one.
    UnusableLocation(Option<String>),
    /// One redirect more than [`Hops::max_redirects`].
    TooManyRedirects,
}

/// The caller's side of a redirect chain: its checks before each hop, and what each way
/// the chain can end means to it.
pub(crate) trait Hops: Send + Sync {
    /// What the chain gives its caller.
    type End: Send;

    /// Redirects followed before the chain is cut.
    fn max_redirects(&self) -> usize;

    /// Before `url` is requested: how, or the end of the chain (refused by robots.txt, out
    /// of budget). Pacing belongs here: it comes after every check.
    fn before(&mut self, url: &Url) -> impl Future<Output = Result<HopRequest, Self::End>> + Send;

    /// A redirect's target as the caller requests it (normalized), or `None` when it cannot
    /// be requested at all.
    fn target(&self, target: Url) -> Option<Url> {
        Some(target)
    }

    /// Whether a retry of a hop may be sent (a request budget).
    fn reserve_retry(&self) -> bool {
        true
    }

    /// The concurrency limit every attempt reports to, if any.
    fn limit(&self) -> Option<&ConcurrencyLimit> {
        None
    }

    /// `url`'s server asked, with `Retry-After`, to be left alone for `wait` (capped): the
    /// caller's pace to that host slows for it.
    fn held_off(&self, _url: &Url, _wait: Duration) {}

    /// `url` answered `response`, which is not a redirect: whether to ask `url` again, with
    /// the request [`Hops::before`] then gives (a HEAD refused, asked again with a GET). The
    /// caller makes sure it does not ask for ever.
    fn ask_again(&mut self, _url: &Url, _response: &FetchedResponse) -> bool {
        false
    }

    /// `url` redirected to `target` (resolved, counted within the limit): `Ok` follows it,
    /// an error ends the chain there (out of scope, seen before).
    fn redirected(
        &mut self,
        url: &Url,
        response: &FetchedResponse,
        target: &Url,
    ) -> impl Future<Output = Result<(), Self::End>> + Send;

    /// `url` got `response`, which is not a redirect: the chain ends on it.
    fn answered(
        self,
        url: Url,
        response: FetchedResponse,
    ) -> impl Future<Output = Self::End> + Send;

    /// `url` got no response.
    fn failed(self, url: Url, failure: FetchFailure) -> impl Future<Output = Self::End> + Send;

    /// `url` answered a redirect that cannot be followed.
    fn broken(
        self,
        url: Url,
        response: FetchedResponse,
        broken: Broken,
    ) -> impl Future<Output = Self::End> + Send;
}

impl Fetcher {
    /// Follows the chain from `first`, hop by hop, by `hops`' rules.
    pub(crate) async fn follow<H: Hops>(&self, first: Url, mut hops: H) -> H::End {
        let mut url = first;
        let mut followed = 0;
        loop {
            let request = match hops.before(&url).await {
                Ok(request) => request,
                Err(end) => return end,
            };
            let fetched = self.fetch(&url, &request, &HopAttempts(&hops)).await;
            let response = match fetched {
                Ok(response) => response,
                Err(failure) => return hops.failed(url, failure).await,
            };
            if !is_redirect(response.status.as_u16()) {
                if hops.ask_again(&url, &response) {
                    continue;
                }
                return hops.answered(url, response).await;
            }
            let location = response.header(header::LOCATION);
            let target = location
                .as_deref()
                .and_then(|location| resolve(&url, location))
                .and_then(|target| hops.target(target));
            let Some(target) = target else {
                let broken = Broken::UnusableLocation(location);
                return hops.broken(url, response, broken).await;
            };
            followed += 1;
            if followed > hops.max_redirects() {
                return hops.broken(url, response, Broken::TooManyRedirects).await;
            }
            if let Err(end) = hops.redirected(&url, &response, &target).await {
                return end;
            }
            url = target;
        }
    }
}

/// A chain's hops as the fetcher's attempts see them.
struct HopAttempts<'a, H>(&'a H);

impl<H: Hops> Attempts for HopAttempts<'_, H> {
    fn reserve_retry(&self) -> bool {
        self.0.reserve_retry()
    }

    fn limit(&self) -> Option<&ConcurrencyLimit> {
        self.0.limit()
    }

    fn held_off(&self, url: &Url, wait: Duration) {
        self.0.held_off(url, wait);
    }
}

/// A `Location` resolved against the URL that sent it (RFC 9110 section 10.2.2 allows a
/// relative reference), when it is an http(s) URL.
fn resolve(url: &Url, location: &str) -> Option<Url> {
    url.join(location.trim())
        .ok()
        .filter(|target| matches!(target.scheme(), "http" | "https"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_statuses_that_send_the_client_on_are_hops() {
        for status in [301, 302, 303, 307, 308] {
            assert!(is_redirect(status), "{status}");
        }
        for status in [200, 300, 304, 305, 306, 404] {
            assert!(!is_redirect(status), "{status}");
        }
    }

    #[test]
    fn locations_resolve_against_the_hop_and_stay_on_the_web() {
        let url = Url::parse("https://e.com/a/b").unwrap_or_else(|error| panic!("{error}"));
        for (location, expected) in [
            ("/c", Some("https://e.com/c")),
            (" c ", Some("https://e.com/a/c")),
            ("http://other.example/x", Some("http://other.example/x")),
            ("ftp://e.com/file", None),
            ("mailto:someone@e.com", None),
            ("http://[bad", None),
        ] {
            assert_eq!(
                resolve(&url, location).as_ref().map(Url::as_str),
                expected,
                "{location}"
            );
        }
    }
}
