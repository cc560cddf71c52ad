//! A configured crawler: [`Crawler`], what it is given before it runs (configuration, history,
//! spill, renderer, sitemap reader, pace board, request observer), and [`CrawlStopper`], which
//! stops it. Its run is in `run`.

use std::sync::{Arc, Mutex, PoisonError};

use tokio::sync::watch;
use url::Url;

use super::progress::CrawlProgress;
use crate::config::CrawlConfig;
use crate::error::CrawlError;
use crate::fetch::RequestObserver;
use crate::frontier::FrontierSpill;
use crate::history::History;
use crate::normalize::UrlNormalizer;
use crate::pace::PaceBoard;
use crate::render::Renderer;
use crate::resume::ResumeSource;
use crate::scope::{Scope, ScopeOptions};
use crate::sitemaps::SitemapReader;

/// A configured crawler. [`Crawler::run`] crawls one site.
#[derive(Debug)]
pub struct Crawler {
    pub(super) config: Arc<CrawlConfig>,
    pub(super) normalizer: Arc<UrlNormalizer>,
    pub(super) progress: Arc<CrawlProgress>,
    pub(super) stop: watch::Sender<bool>,
    pub(super) history: Option<Arc<dyn History>>,
    pub(super) spill: Option<Arc<dyn FrontierSpill>>,
    /// Where an interrupted crawl stood, taken by the run that continues it.
    pub(super) resume: Mutex<Option<Box<dyn ResumeSource>>>,
    pub(super) renderer: Option<Arc<dyn Renderer>>,
    pub(super) sitemap_reader: Option<Arc<dyn SitemapReader>>,
    pub(super) pace: Arc<PaceBoard>,
    /// Told of every request of the crawl.
    pub(super) observer: Option<Arc<dyn RequestObserver>>,
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
}
