//! The crawl loop: one task owns the frontier, fetch jobs run in a bounded set, and the crawl
//! ends when both are empty (docs/design.md, Data flow).
//!
//! [`Crawler::run`] visits the seed alone first (`seed`), because its redirects may move the
//! scope and its failure ends the crawl; then the frontier's owner (`owner`) runs fetch jobs
//! (`visit`, which follows redirects, and `page`, which turns the response a chain ends on into
//! an outcome) until nothing is left. What the jobs share is in `context`.

mod context;
mod owner;
mod page;
mod rendering;
mod seed;
mod sitemap_seeds;
mod visit;

use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use tokio::sync::{mpsc, watch};
use url::Url;

use crate::access::SiteSession;
use crate::address::AddressPolicy;
use crate::concurrency::ConcurrencyReport;
use crate::config::CrawlConfig;
use crate::documents::DocumentReport;
use crate::error::CrawlError;
use crate::event::{CrawlEvent, SettledScope};
use crate::fetch::RequestObserver;
use crate::frontier::FrontierSpill;
use crate::history::History;
use crate::normalize::UrlNormalizer;
use crate::pace::PaceBoard;
use crate::render::{RenderReport, Renderer};
use crate::resume::ResumeSource;
use crate::scope::{Scope, ScopeOptions};
use crate::sitemaps::{SitemapReader, SitemapSeeding};
use crate::traps::TrapReport;

use context::JobContext;
use owner::FrontierOwner;

/// Counters the caller may read while the crawl runs (for a progress bar).
#[derive(Debug, Default)]
pub struct CrawlProgress {
    /// HTTP requests for pages sent so far (redirect hops included, robots.txt not).
    pub requests: AtomicU64,
    /// URLs waiting in the frontier.
    pub queued: AtomicU64,
    /// Pages that answered 304 Not Modified to a conditional request.
    pub revalidated: AtomicU64,
    /// Pages in the browser now, being rendered: where a crawl that renders spends its time.
    pub rendering: AtomicU64,
}

/// What a finished crawl reports besides its events.
#[derive(Debug, Clone)]
pub struct CrawlSummary {
    /// The crawl's scope, as the seed's visit settled it; its root is the sitemaps'
    /// directory.
    pub scope: SettledScope,
    /// URLs taken from the frontier and visited.
    pub pages_visited: u64,
    /// HTTP requests for pages sent (redirect hops and retries included, robots.txt not).
    pub requests: u64,
    /// Pages that answered 304 Not Modified: no body downloaded, nothing parsed.
    pub revalidated: u64,
    /// Distinct in-scope URLs discovered.
    pub urls_discovered: u64,
    /// Links to new URLs not followed because `max_urls` were discovered already.
    pub beyond_max_urls: u64,
    /// Queued URLs the frontier's spill could not give back (a broken disk): the crawl is
    /// incomplete.
    pub urls_lost: u64,
    /// The address policy the crawl applied (private addresses allowed when the seed is on
    /// a private network): other requests made for this site should apply it too.
    pub addresses: AddressPolicy,
    /// What requests to the site carried (the user's headers, credentials and cookies, and
    /// the cookies the site set): other requests made to the site (its own sitemaps) carry
    /// it too, and requests to other hosts never do.
    pub session: Arc<SiteSession>,
    /// Links not followed because they were deeper than `max_depth`.
    pub beyond_max_depth: u64,
    /// URLs still queued when `max_pages` stopped the crawl.
    pub left_by_max_pages: u64,
    /// Whether `max_requests` ran out.
    pub request_budget_exhausted: bool,
    /// Crawler traps found and cut short.
    pub traps: Vec<TrapReport>,
    /// Query parameters found to be session identifiers, stripped from every URL.
    pub session_parameters: Vec<String>,
    /// What rendering in a browser did.
    pub render: RenderReport,
    /// What the concurrency limit did: how far it rose and how often it was cut, when it
    /// adapts.
    pub concurrency: ConcurrencyReport,
    /// Whether [`CrawlStopper::stop`] ended the crawl early.
    pub interrupted: bool,
    /// What seeding from the site's own sitemaps did, when
    /// [`CrawlConfig::seed_sitemaps`] asked for it.
    pub sitemap_seeding: Option<SitemapSeeding>,
    /// What became of the linked documents, when [`CrawlConfig::documents`] selects any.
    pub documents: Option<DocumentReport>,
    /// How long the crawl took.
    pub elapsed: Duration,
}

/// A configured crawler. [`Crawler::run`] crawls one site.
#[derive(Debug)]
pub struct Crawler {
    config: Arc<CrawlConfig>,
    normalizer: Arc<UrlNormalizer>,
    progress: Arc<CrawlProgress>,
    stop: watch::Sender<bool>,
    history: Option<Arc<dyn History>>,
    spill: Option<Arc<dyn FrontierSpill>>,
    /// Where an interrupted crawl stood, taken by the run that continues it.
    resume: Mutex<Option<Box<dyn ResumeSource>>>,
    renderer: Option<Arc<dyn Renderer>>,
    sitemap_reader: Option<Arc<dyn SitemapReader>>,
    pace: Arc<PaceBoard>,
    /// Told of every request of the crawl.
    observer: Option<Arc<dyn RequestObserver>>,
}

/// Stops a running crawl (on Ctrl-C): no new request starts, requests in flight are dropped,
/// and [`Crawler::run`] returns what it has, marked interrupted.
#[derive(Debug, Clone)]
pub struct CrawlStopper(watch::Sender<bool>);

impl CrawlStopper {
    /// Stops the crawl; calling it again does nothing more.
    pub fn stop(&self) {
        self.0.send_replace(true);
    }
}

impl Crawler {
    /// A crawler with `config`, no history, no spill and nothing to resume.
    pub fn new(config: CrawlConfig) -> Crawler {
        Crawler {
            normalizer: Arc::new(
                UrlNormalizer::new(&config.strip_parameters).with_host_map(config.host_map.clone()),
            ),
            config: Arc::new(config),
            progress: Arc::default(),
            stop: watch::Sender::new(false),
            history: None,
            spill: None,
            resume: Mutex::new(None),
            renderer: None,
            sitemap_reader: None,
            pace: Arc::default(),
            observer: None,
        }
    }

    /// Reads the site's own sitemaps with `reader` when [`CrawlConfig::seed_sitemaps`] asks
    /// for it.
    pub fn with_sitemap_reader(mut self, reader: Arc<dyn SitemapReader>) -> Crawler {
        self.sitemap_reader = Some(reader);
        self
    }

    /// Renders pages in `renderer` as [`CrawlConfig::render`] decides.
    pub fn with_renderer(mut self, renderer: Arc<dyn Renderer>) -> Crawler {
        self.renderer = Some(renderer);
        self
    }

    /// Keeps queued URLs beyond the frontier's memory budget in `spill` instead of memory.
    pub fn with_spill(mut self, spill: Arc<dyn FrontierSpill>) -> Crawler {
        self.spill = Some(spill);
        self
    }

    /// Continues an interrupted crawl from where `source` says it stood.
    pub fn with_resume(self, source: Box<dyn ResumeSource>) -> Crawler {
        *self.resume.lock().unwrap_or_else(PoisonError::into_inner) = Some(source);
        self
    }

    /// Makes the crawl incremental: URLs an earlier run fetched are revalidated with
    /// conditional requests, and a 304 reuses what that run found.
    pub fn with_history(mut self, history: Arc<dyn History>) -> Crawler {
        self.history = Some(history);
        self
    }

    /// Paces requests on `board`, shared with other crawls: requests to a host they share
    /// keep its pace together.
    pub fn with_pace_board(mut self, board: Arc<PaceBoard>) -> Crawler {
        self.pace = board;
        self
    }

    /// Tells `observer` of every request the crawl makes (robots.txt, pages, their retries).
    pub fn with_request_observer(mut self, observer: Arc<dyn RequestObserver>) -> Crawler {
        self.observer = Some(observer);
        self
    }

    /// A handle that stops the crawl from another task.
    pub fn stopper(&self) -> CrawlStopper {
        CrawlStopper(self.stop.clone())
    }

    /// The counters of the crawl, shared with it while it runs.
    pub fn progress(&self) -> Arc<CrawlProgress> {
        Arc::clone(&self.progress)
    }

    /// The directory a crawl from `seed` covers, before any redirect of the seed: what a
    /// crawl database belongs to.
    pub fn scope_root(seed: &Url) -> Url {
        Scope::from_seed(seed, &ScopeOptions::default())
            .root()
            .clone()
    }

    /// Parses and normalizes a seed URL given by the user.
    pub fn parse_seed(&self, seed: &str) -> Result<Url, CrawlError> {
        let max = self.config.max_url_length;
        if seed.len() > max {
            return Err(CrawlError::SeedTooLong {
                length: seed.len(),
                max,
            });
        }
        let url = self
            .normalizer
            .parse(seed)
            .ok_or_else(|| CrawlError::InvalidSeed {
                url: seed.to_string(),
            })?;
        if url.port() == Some(0) {
            return Err(CrawlError::SeedPortZero {
                url: seed.to_string(),
            });
        }
        Ok(url)
    }

    /// Crawls from `seed`, sending one event per decision to `events`. Returns when the
    /// frontier is empty and every job has finished, or when the seed cannot be crawled.
    pub async fn run(
        &self,
        seed: &Url,
        events: mpsc::Sender<CrawlEvent>,
    ) -> Result<CrawlSummary, CrawlError> {
        let started = Instant::now();
        let seed = self
            .normalizer
            .normalize(seed)
            .ok_or_else(|| CrawlError::InvalidSeed {
                url: seed.to_string(),
            })?;
        let addresses = self.config.addresses.clone().for_seed(&seed).await;
        let private_network = addresses.allow_private && !self.config.addresses.allow_private;
        let session = Arc::new(SiteSession::new(
            self.config.access.clone(),
            &seed,
            self.config.scope.allow_subdomains,
        ));
        let context = Arc::new(JobContext::new(
            self,
            addresses.clone(),
            Arc::clone(&session),
            events,
        )?);
        if !self.config.respect_robots {
            tracing::warn!("robots.txt is IGNORED for this crawl (--ignore-robots)");
        }
        if self.config.network.accept_invalid_certificates {
            tracing::warn!(
                "TLS certificates are NOT verified for this crawl (--insecure): anyone between here and the site can read and change what it answers"
            );
        }
        let seed_visit = seed::visit_seed(&context, &seed, private_network).await?;
        let settled = seed_visit.settled;
        let mut owner = FrontierOwner::new(context, seed_visit.scope, self.spill.clone());
        let resume = self
            .resume
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        owner
            .start(seed_visit.visit, resume)
            .await
            .map_err(CrawlError::Resume)?;
        let reader = self
            .sitemap_reader
            .as_deref()
            .filter(|_| self.config.seed_sitemaps);
        if self.config.seed_sitemaps && reader.is_none() {
            tracing::warn!("no sitemap reader: the site's sitemaps are not read");
        }
        owner.crawl(self.stop.subscribe(), reader).await;
        Ok(owner.summary(settled, addresses, session, started.elapsed()))
    }
}
