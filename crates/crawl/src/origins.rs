//! Per-origin state: the robots.txt policy, read once, and the pace of requests.

use std::sync::{Arc, RwLock};
use std::time::Duration;

use dashmap::DashMap;
use tokio::sync::{Mutex, mpsc};
use tokio::time::Instant;
use url::Url;

use crate::fetch::{BodyWanted, Broken, FetchFailure, FetchedResponse, Fetcher, HopRequest, Hops};
use crate::pace::PaceBoard;
use crate::robots::{MAX_ROBOTS_BYTES, RobotsFile, RobotsPolicy, RobotsRules, RobotsUnavailable};

/// RFC 9309 section 2.3.1.2: follow at least five consecutive redirects for robots.txt.
const MAX_ROBOTS_REDIRECTS: usize = 5;

/// How long a robots.txt stays valid: a long crawl reads it again after a day (RFC 9309
/// section 2.4 asks crawlers not to use a cached copy for more than 24 hours).
const ROBOTS_MAX_AGE: Duration = Duration::from_secs(24 * 60 * 60);

/// One read of an origin's robots.txt, as told to whoever listens (a crawl's events).
#[derive(Debug, Clone)]
pub(crate) struct RobotsRead {
    /// The origin, as `scheme://host[:port]`.
    pub origin: String,
    /// What the crawl makes of the file, in words.
    pub policy: String,
    /// The `Sitemap:` lines of robots.txt.
    pub sitemaps: Vec<String>,
    /// The `Crawl-delay` that applies to the crawler, as the file gives it.
    pub crawl_delay: Option<Duration>,
    /// What `/robots.txt` answered.
    pub file: RobotsFile,
}

/// The state of every origin met. Each read of robots.txt is told on the channel of `Event`s
/// given, as the event the listener makes of a [`RobotsRead`].
#[derive(Debug)]
pub(crate) struct Origins<Event = RobotsRead> {
    entries: DashMap<String, Arc<OriginState>>,
    respect_robots: bool,
    product_token: String,
    delay: Option<Duration>,
    max_crawl_delay: Duration,
    /// When the next request to each server may start.
    pace: Arc<PaceBoard>,
    /// Where each robots.txt read is told; none outside a crawl (a link's check).
    events: Option<mpsc::Sender<Event>>,
}

#[derive(Debug, Default)]
struct OriginState {
    /// The policy in force and when it was read.
    robots: RwLock<Option<(Instant, Arc<RobotsPolicy>)>>,
    /// Held while robots.txt is being fetched, so that it is fetched once, before anything else.
    fetching_robots: Mutex<()>,
    /// Until when the origin asked, with `Retry-After`, to be left alone: no request starts
    /// before then, whatever the delay.
    held_until: std::sync::Mutex<Option<Instant>>,
}

impl OriginState {
    fn current_robots(&self) -> Option<Arc<RobotsPolicy>> {
        let robots = self.robots.read().ok()?;
        robots.as_ref().map(|(_, policy)| Arc::clone(policy))
    }

    fn fresh_robots(&self) -> Option<Arc<RobotsPolicy>> {
        let robots = self.robots.read().ok()?;
        let (read_at, policy) = robots.as_ref()?;
        (read_at.elapsed() < ROBOTS_MAX_AGE).then(|| Arc::clone(policy))
    }
}

impl<Event: From<RobotsRead> + Send> Origins<Event> {
    pub(crate) fn new(
        respect_robots: bool,
        product_token: String,
        delay: Option<Duration>,
        max_crawl_delay: Duration,
        pace: Arc<PaceBoard>,
        events: Option<mpsc::Sender<Event>>,
    ) -> Origins<Event> {
        Origins {
            entries: DashMap::new(),
            respect_robots,
            product_token,
            delay,
            max_crawl_delay,
            pace,
            events,
        }
    }

    fn state(&self, url: &Url) -> Arc<OriginState> {
        let key = url.origin().ascii_serialization();
        if let Some(state) = self.entries.get(&key) {
            return Arc::clone(&state);
        }
        Arc::clone(&self.entries.entry(key).or_default())
    }

    /// The robots.txt policy of `url`'s origin, fetched on first use and again when it is a
    /// day old. Concurrent callers for one origin wait for the same fetch, so robots.txt is
    /// requested before anything else.
    pub(crate) async fn robots(&self, url: &Url, fetcher: &Fetcher) -> Arc<RobotsPolicy> {
        let state = self.state(url);
        if let Some(policy) = state.fresh_robots() {
            return policy;
        }
        let _fetching = state.fetching_robots.lock().await;
        if let Some(policy) = state.fresh_robots() {
            return policy;
        }
        let (policy, file) = if self.respect_robots {
            self.fetch_robots(url, fetcher).await
        } else {
            let policy = RobotsPolicy::AllowAll {
                reason: "robots.txt ignored by request".to_string(),
            };
            (policy, RobotsFile::Ignored)
        };
        // The event is logged by whoever records it, in the order of the crawl's events.
        if let Some(events) = &self.events {
            let origin = url.origin().ascii_serialization();
            let _ = events
                .send(Event::from(RobotsRead {
                    origin,
                    policy: policy.describe(),
                    sitemaps: policy.sitemaps().to_vec(),
                    crawl_delay: policy.crawl_delay(),
                    file,
                }))
                .await;
        } else {
            tracing::debug!(%url, policy = policy.describe(), "robots.txt read");
        }
        let policy = Arc::new(policy);
        if let Ok(mut robots) = state.robots.write() {
            *robots = Some((Instant::now(), Arc::clone(&policy)));
        }
        policy
    }

    /// The policy of `url`'s origin, and what its robots.txt answered.
    async fn fetch_robots(&self, url: &Url, fetcher: &Fetcher) -> (RobotsPolicy, RobotsFile) {
        let Ok(location) = url.join("/robots.txt") else {
            let policy = RobotsPolicy::AllowAll {
                reason: "no robots.txt URL".to_string(),
            };
            return (policy, RobotsFile::Unreachable);
        };
        fetcher.follow(location, RobotsHops { origins: self }).await
    }

    /// The delay between two requests to `url`'s origin: the user's choice, else robots.txt
    /// `Crawl-delay` (capped), else none.
    fn delay_for(&self, state: &OriginState) -> Duration {
        if let Some(delay) = self.delay {
            return delay;
        }
        state
            .current_robots()
            .and_then(|policy| policy.crawl_delay())
            .map_or(Duration::ZERO, |delay| delay.min(self.max_crawl_delay))
    }

    /// Holds requests to `url`'s origin for `wait` from now: its server answered 429 or 503
    /// with `Retry-After` (docs/design.md, Fetching and politeness: it slows that host). A
    /// later hold that ends sooner shortens nothing.
    pub(crate) fn hold(&self, url: &Url, wait: Duration) {
        let state = self.state(url);
        let until = Instant::now() + wait;
        let mut held_until = state
            .held_until
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        *held_until = Some(held_until.map_or(until, |held| held.max(until)));
    }

    /// Waits until a request to `url`'s server may start, and books the next slot.
    pub(crate) async fn pace(&self, url: &Url) {
        let state = self.state(url);
        let held_until = *state
            .held_until
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(until) = held_until.filter(|until| *until > Instant::now()) {
            tracing::debug!(%url, "waiting for the time the server asked for (Retry-After)");
            tokio::time::sleep_until(until).await;
        }
        let delay = self.delay_for(&state);
        if delay.is_zero() {
            return;
        }
        let start = {
            let slot = self.pace.slot(url).await;
            let mut next_request = slot.lock().await;
            let now = Instant::now();
            let start = next_request.map_or(now, |next| next.max(now));
            *next_request = Some(start + delay);
            start
        };
        tokio::time::sleep_until(start).await;
    }
}

/// The rules of robots.txt's redirect chain (RFC 9309 section 2.3.1.2): paced like any
/// request to its origin, not counted among the page requests, nor told to the concurrency
/// limit (one request per origin, answered apart from the pages).
#[derive(Debug)]
struct RobotsHops<'a, Event> {
    origins: &'a Origins<Event>,
}

impl<Event: From<RobotsRead> + Send> Hops for RobotsHops<'_, Event> {
    type End = (RobotsPolicy, RobotsFile);

    fn max_redirects(&self) -> usize {
        MAX_ROBOTS_REDIRECTS
    }

    async fn before(&mut self, url: &Url) -> Result<HopRequest, Self::End> {
        self.origins.pace(url).await;
        Ok(HopRequest::get(BodyWanted::AnySuccess {
            cap: MAX_ROBOTS_BYTES,
        }))
    }

    async fn redirected(
        &mut self,
        _url: &Url,
        _response: &FetchedResponse,
        _target: &Url,
    ) -> Result<(), Self::End> {
        Ok(())
    }

    async fn answered(self, _url: Url, response: FetchedResponse) -> Self::End {
        let status = response.status;
        if status.is_success() {
            let body = String::from_utf8_lossy(&response.body);
            let rules = RobotsRules::parse(&body, &self.origins.product_token);
            return (RobotsPolicy::Rules(rules), RobotsFile::Found);
        }
        let reason = format!("robots.txt answered {}", status.as_u16());
        match status.as_u16() {
            404 | 410 => (RobotsPolicy::AllowAll { reason }, RobotsFile::Missing),
            // A 3xx that is no redirect (300, 304) leads nowhere either: unavailable, as a
            // redirect chain that ends without robots.txt is (RFC 9309 section 2.3.1.2).
            _ if status.is_redirection() => {
                (RobotsPolicy::AllowAll { reason }, RobotsFile::Unreachable)
            }
            code if status.is_client_error() => (
                RobotsPolicy::AllowAll { reason },
                RobotsFile::ClientError(code),
            ),
            code => (
                RobotsPolicy::DisallowAll {
                    reason: RobotsUnavailable::ServerError(code),
                },
                RobotsFile::Unreachable,
            ),
        }
    }

    async fn failed(self, _url: Url, failure: FetchFailure) -> Self::End {
        let policy = RobotsPolicy::DisallowAll {
            reason: RobotsUnavailable::Unreachable(failure),
        };
        (policy, RobotsFile::Unreachable)
    }

    /// RFC 9309 section 2.3.1.2: past the redirect limit robots.txt counts as unavailable,
    /// and so does a redirect that leads nowhere.
    async fn broken(self, _url: Url, _response: FetchedResponse, broken: Broken) -> Self::End {
        let reason = match broken {
            Broken::TooManyRedirects => "robots.txt redirects too often",
            Broken::UnusableLocation(_) => "robots.txt redirects without a usable Location",
        };
        let policy = RobotsPolicy::AllowAll {
            reason: reason.to_string(),
        };
        (policy, RobotsFile::Unreachable)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn origins() -> Origins {
        Origins::new(
            false,
            "sitemapper".to_string(),
            None,
            Duration::from_secs(30),
            Arc::new(PaceBoard::default()),
            None,
        )
    }

    fn url(text: &str) -> Url {
        Url::parse(text).unwrap_or_else(|error| panic!("{text}: {error}"))
    }

    #[tokio::test(start_paused = true)]
    async fn a_retry_after_holds_every_request_to_its_origin_and_no_other() {
        let origins = origins();
        let held = url("http://127.0.0.1:8001/page");
        let started = Instant::now();
        origins.hold(&held, Duration::from_secs(5));
        // A shorter hold asked later shortens nothing.
        origins.hold(&url("http://127.0.0.1:8001/other"), Duration::from_secs(1));

        origins.pace(&url("http://127.0.0.1:8002/")).await;
        assert_eq!(
            started.elapsed(),
            Duration::ZERO,
            "another origin waits for nothing"
        );
        origins.pace(&held).await;
        assert!(started.elapsed() >= Duration::from_secs(5));
        let again = Instant::now();
        origins.pace(&held).await;
        assert_eq!(again.elapsed(), Duration::ZERO, "the hold is over");
    }
}
