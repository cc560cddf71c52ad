//! The check of a link that leaves the crawl's site (an audit's outbound links, docs/design.md,
//! Outbound links): does it still lead to a page? One URL is checked through its redirects,
//! each hop by the fetcher's one loop (`fetch/chain.rs`) with the fetcher's checks (address
//! policy, no secrets of the site, no body read), and by rules of its own:
//!
//! - robots.txt of each host is read once and obeyed for our product token (RFC 9309): a URL
//!   it disallows is not requested. When robots.txt itself got no answer (the host does not
//!   resolve, refuses connections, times out), the link is taken to have failed the same way,
//!   without another request; when it answered a server error, the whole host is disallowed
//!   (RFC 9309 section 2.3.1.4).
//! - One request at a time per host, each starting at least the delay after the previous one
//!   started (or robots.txt's `Crawl-delay`, when longer, capped as the crawl caps it).
//! - HEAD first (RFC 9110 section 9.3.2: the same answer as a GET, without its body); when
//!   the answer says HEAD is refused rather than the page gone ([`refuses_head`]), the same
//!   URL is asked again with a GET, whose body is not read either.
//! - No retries: a check is one look, and a 429 is an answer (the host blocks checkers).

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::OwnedMutexGuard;
use tokio::time::Instant;
use url::Url;

use crate::address::AddressPolicy;
use crate::error::CrawlError;
use crate::fetch::{
    BodyWanted, Broken, FetchFailure, FetchSettings, FetchedResponse, Fetcher, HopRequest, Hops,
    Method,
};
use crate::network::NetworkOptions;
use crate::origins::Origins;
use crate::pace::{PaceBoard, ServersBy};
use crate::robots::{RobotsPolicy, RobotsUnavailable};

/// How links are checked: every field resolved.
#[derive(Debug, Clone)]
pub struct LinkCheckSettings {
    /// The fetcher's settings: the user agent, the deadlines (`request_timeout` is the
    /// deadline of one check's request), the redirects followed. Retries are never made.
    pub fetch: FetchSettings,
    /// The product token robots.txt groups are matched against.
    pub robots_token: String,
    /// The least time between the starts of two requests to one host.
    pub delay: Duration,
    /// The longest robots.txt `Crawl-delay` honoured.
    pub max_crawl_delay: Duration,
}

/// How one link's check ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LinkCheck {
    /// The chain ended on a response that is not a redirect.
    Answered {
        /// Its status.
        status: u16,
        /// The URL that answered: the link's own, or where its redirects led.
        final_url: Url,
        /// Redirects followed to get there.
        redirects: usize,
    },
    /// A request of the chain got no response (or robots.txt of its host got none).
    Failed {
        /// The URL that was being requested.
        final_url: Url,
        /// Why.
        failure: FetchFailure,
    },
    /// robots.txt disallows the URL (the link's own, or a hop of its redirects): not
    /// requested.
    Disallowed {
        /// The URL robots.txt disallows.
        url: Url,
    },
    /// A redirect whose `Location` leads nowhere.
    UnusableRedirect {
        /// The URL that answered it.
        final_url: Url,
        /// Its status.
        status: u16,
    },
    /// More redirects in a row than are followed.
    TooManyRedirects {
        /// The last URL requested.
        final_url: Url,
    },
}

/// Whether a HEAD answered `status` because HEAD is refused, not because the page is gone:
/// 405 Method Not Allowed and 501 Not Implemented say so (RFC 9110 sections 15.5.6 and
/// 15.6.2); 400 and 403 are what some servers and firewalls answer to any HEAD. Each is
/// asked again with a GET. A 404 is taken at its word: asking every broken link twice would
/// double the requests to the hosts that have most of them.
pub fn refuses_head(status: u16) -> bool {
    matches!(status, 400 | 403 | 405 | 501)
}

/// Checks links through one [`Fetcher`], with robots.txt read once per origin and the pace of
/// every host kept across the checks. Cheap to share behind an `Arc`; checks may run at once
/// (requests to one host still go one at a time).
#[derive(Debug)]
pub struct LinkChecker {
    fetcher: Fetcher,
    origins: Origins,
    pace: Arc<PaceBoard>,
    delay: Duration,
    max_crawl_delay: Duration,
    max_redirects: usize,
}

impl LinkChecker {
    /// A checker that connects where `addresses` allows (the crawl's policy: a public site's
    /// links cannot lead it into a private network), through `network`'s proxy and
    /// certificates, carrying none of the site's secrets.
    pub fn new(
        settings: &LinkCheckSettings,
        addresses: AddressPolicy,
        network: &NetworkOptions,
    ) -> Result<LinkChecker, CrawlError> {
        let fetch = FetchSettings {
            retries: 0,
            ..settings.fetch.clone()
        };
        let fetcher = Fetcher::new(&fetch, addresses, network, None)?;
        // Each host of the links at its own pace, as the audit says: the links of an audit go
        // to many unrelated sites, and those behind one CDN share its addresses.
        let pace = Arc::new(PaceBoard::new(ServersBy::Host));
        let origins = Origins::new(
            true,
            settings.robots_token.clone(),
            Some(settings.delay),
            settings.max_crawl_delay,
            Arc::clone(&pace),
            None,
        );
        Ok(LinkChecker {
            fetcher,
            origins,
            pace,
            delay: settings.delay,
            max_crawl_delay: settings.max_crawl_delay,
            max_redirects: fetch.max_redirects,
        })
    }

    /// Checks `url`: HEAD through its redirects, and a GET from the hop that refused HEAD.
    pub async fn check(&self, url: &Url) -> LinkCheck {
        let head = CheckHops::new(self, Method::Head, 0);
        match self.fetcher.follow(url.clone(), head).await {
            Ended::Checked(check) | Ended::Sampled(Sample { check, .. }) => check,
            Ended::HeadRefused { url, redirects, .. } => {
                tracing::debug!(%url, "HEAD refused: asking with GET");
                let get = CheckHops::new(self, Method::Get, redirects);
                match self.fetcher.follow(url, get).await {
                    Ended::Checked(check) | Ended::Sampled(Sample { check, .. }) => check,
                    // A GET is never asked again: what it answered is the answer.
                    Ended::HeadRefused {
                        url,
                        status,
                        redirects,
                    } => LinkCheck::Answered {
                        status,
                        final_url: url,
                        redirects,
                    },
                }
            }
        }
    }

    /// Fetches the start of `url` with a GET through its redirects, reading at most `cap`
    /// bytes of a successful answer's body: a check of a resource of the site (an image, a
    /// script, a style sheet), its size and its first bytes (an image's dimensions).
    pub async fn sample(&self, url: &Url, cap: usize) -> Sample {
        let get = CheckHops {
            wanted: BodyWanted::AnySuccess { cap },
            ..CheckHops::new(self, Method::Get, 0)
        };
        match self.fetcher.follow(url.clone(), get).await {
            Ended::Sampled(sample) => sample,
            Ended::Checked(check) => Sample {
                check,
                bytes: None,
                start: Vec::new(),
            },
            Ended::HeadRefused {
                url,
                status,
                redirects,
            } => Sample {
                check: LinkCheck::Answered {
                    status,
                    final_url: url,
                    redirects,
                },
                bytes: None,
                start: Vec::new(),
            },
        }
    }

    /// The least time between two requests to the host of a URL whose robots.txt is
    /// `policy`.
    fn delay_for(&self, policy: &RobotsPolicy) -> Duration {
        policy.crawl_delay().map_or(self.delay, |delay| {
            delay.min(self.max_crawl_delay).max(self.delay)
        })
    }
}

/// What [`LinkChecker::sample`] found: the check, and of a successful answer its size and
/// the start of its body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sample {
    /// How the check ended.
    pub check: LinkCheck,
    /// The body's size: its `Content-Length`, or the bytes read when they were all read
    /// (decompressed, when the server compressed it); `None` when not known.
    pub bytes: Option<u64>,
    /// The first bytes of the body, up to the cap.
    pub start: Vec<u8>,
}

/// How one chain of a check ended.
#[derive(Debug)]
enum Ended {
    Checked(LinkCheck),
    /// A sample's answer, with its body.
    Sampled(Sample),
    /// `url` answered a HEAD with a status that refuses HEAD ([`refuses_head`]).
    HeadRefused {
        url: Url,
        status: u16,
        redirects: usize,
    },
}

/// The rules of a check's chain, hop by hop.
struct CheckHops<'a> {
    checker: &'a LinkChecker,
    method: Method,
    /// Redirects followed so far, by this chain and the one before it (a HEAD's).
    redirects: usize,
    /// The body read of the final answer: none for a check, the start for a sample.
    wanted: BodyWanted,
    /// The slot of the host being requested, held until its answer: one request at a time
    /// per host.
    held: Option<OwnedMutexGuard<Option<Instant>>>,
}

impl<'a> CheckHops<'a> {
    fn new(checker: &'a LinkChecker, method: Method, redirects: usize) -> CheckHops<'a> {
        CheckHops {
            checker,
            method,
            redirects,
            wanted: BodyWanted::Nothing,
            held: None,
        }
    }
}

impl Hops for CheckHops<'_> {
    type End = Ended;

    fn max_redirects(&self) -> usize {
        self.checker.max_redirects.saturating_sub(self.redirects)
    }

    async fn before(&mut self, url: &Url) -> Result<HopRequest, Ended> {
        let checker = self.checker;
        let policy = checker.origins.robots(url, &checker.fetcher).await;
        if let RobotsPolicy::DisallowAll {
            reason: RobotsUnavailable::Unreachable(failure),
        } = policy.as_ref()
        {
            return Err(Ended::Checked(LinkCheck::Failed {
                final_url: url.clone(),
                failure: failure.clone(),
            }));
        }
        if !policy.is_allowed(url) {
            return Err(Ended::Checked(LinkCheck::Disallowed { url: url.clone() }));
        }
        // Held from here to the answer: the next request to the host waits for both.
        let mut next_start = checker.pace.slot(url).await.lock_owned().await;
        let now = Instant::now();
        let start = next_start.map_or(now, |next| next.max(now));
        tokio::time::sleep_until(start).await;
        *next_start = Some(start + checker.delay_for(&policy));
        self.held = Some(next_start);
        Ok(HopRequest {
            method: self.method.clone(),
            wanted: self.wanted,
            validators: None,
        })
    }

    async fn redirected(
        &mut self,
        _url: &Url,
        _response: &FetchedResponse,
        _target: &Url,
    ) -> Result<(), Ended> {
        self.held = None;
        self.redirects += 1;
        Ok(())
    }

    async fn answered(self, url: Url, response: FetchedResponse) -> Ended {
        let status = response.status.as_u16();
        if matches!(self.method, Method::Head) && refuses_head(status) {
            return Ended::HeadRefused {
                url,
                status,
                redirects: self.redirects,
            };
        }
        let check = LinkCheck::Answered {
            status,
            final_url: url,
            redirects: self.redirects,
        };
        if matches!(self.wanted, BodyWanted::Nothing) {
            return Ended::Checked(check);
        }
        let announced = response
            .headers
            .get(reqwest::header::CONTENT_LENGTH)
            .and_then(|value| value.to_str().ok())
            .and_then(|value| value.trim().parse::<u64>().ok());
        let read = (!response.truncated && response.status.is_success())
            .then_some(response.body.len() as u64);
        Ended::Sampled(Sample {
            check,
            bytes: announced.or(read),
            start: response.body,
        })
    }

    async fn failed(self, url: Url, failure: FetchFailure) -> Ended {
        Ended::Checked(LinkCheck::Failed {
            final_url: url,
            failure,
        })
    }

    async fn broken(self, url: Url, response: FetchedResponse, broken: Broken) -> Ended {
        Ended::Checked(match broken {
            Broken::UnusableLocation(_) => LinkCheck::UnusableRedirect {
                final_url: url,
                status: response.status.as_u16(),
            },
            Broken::TooManyRedirects => LinkCheck::TooManyRedirects { final_url: url },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn head_is_asked_again_with_get_only_when_refused() {
        for status in [400, 403, 405, 501] {
            assert!(refuses_head(status), "{status}");
        }
        for status in [200, 301, 404, 410, 429, 500, 503, 999] {
            assert!(!refuses_head(status), "{status}");
        }
    }
}
