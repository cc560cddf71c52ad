//! What every fetch job of one crawl shares: the configuration, the HTTP client, the origins'
//! robots.txt and pacing, the seen-set, the request budget and the event channel.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use sitemapper_extract::ExtractOptions;
use tokio::sync::{Semaphore, mpsc};

use super::{CrawlProgress, Crawler};
use crate::CrawlError;
use crate::address::AddressPolicy;
use crate::config::CrawlConfig;
use crate::event::{CrawlEvent, PageOutcome};
use crate::fetch::Fetcher;
use crate::frontier::SeenSet;
use crate::history::History;
use crate::normalize::UrlNormalizer;
use crate::origins::Origins;

/// Everything a fetch job shares with the others.
#[derive(Debug)]
pub(super) struct JobContext {
    pub config: Arc<CrawlConfig>,
    pub fetcher: Arc<Fetcher>,
    pub normalizer: Arc<UrlNormalizer>,
    pub origins: Origins,
    pub seen: SeenSet,
    pub extract_options: Arc<ExtractOptions>,
    /// One HTML parse per core at a time: parsing is CPU work, and a page's DOM costs many
    /// times its size, so this also bounds the memory that parsing can take.
    pub parse_slots: Arc<Semaphore>,
    pub history: Option<Arc<dyn History>>,
    pub events: mpsc::Sender<CrawlEvent>,
    pub progress: Arc<CrawlProgress>,
}

impl JobContext {
    /// The context of one run of `crawler`, whose connections obey `addresses`.
    pub(super) fn new(
        crawler: &Crawler,
        addresses: AddressPolicy,
        events: mpsc::Sender<CrawlEvent>,
    ) -> Result<JobContext, CrawlError> {
        let config = &crawler.config;
        Ok(JobContext {
            origins: Origins::new(
                config.respect_robots,
                config.robots_token(),
                config.delay,
                config.max_crawl_delay,
                events.clone(),
            ),
            fetcher: Arc::new(Fetcher::new(config, addresses)?),
            config: Arc::clone(config),
            normalizer: Arc::clone(&crawler.normalizer),
            seen: SeenSet::default(),
            history: crawler.history.clone(),
            parse_slots: Arc::new(Semaphore::new(
                std::thread::available_parallelism().map_or(2, std::num::NonZeroUsize::get),
            )),
            extract_options: Arc::new(ExtractOptions {
                robots_token: config.robots_token(),
                // Fingerprints tell changed pages from unchanged ones across runs and find
                // duplicates: only worth computing when history is kept.
                fingerprint: config.record_links,
            }),
            events,
            progress: Arc::clone(&crawler.progress),
        })
    }

    /// Whether `max_requests` requests have been sent.
    pub(super) fn budget_exhausted(&self) -> bool {
        self.config
            .max_requests
            .is_some_and(|max| self.progress.requests.load(Ordering::Relaxed) >= max)
    }

    /// Counts one more request, unless the budget is spent: checked and counted in one
    /// atomic step, so that concurrent jobs can never pass the budget together.
    pub(super) fn reserve_request(&self) -> bool {
        let max = self.config.max_requests.unwrap_or(u64::MAX);
        self.progress
            .requests
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |sent| {
                (sent < max).then_some(sent + 1)
            })
            .is_ok()
    }

    /// Reports the decision on one URL.
    pub(super) async fn emit(&self, outcome: PageOutcome) {
        // A closed channel means the caller stopped listening; the crawl winds down by itself.
        let _ = self.events.send(CrawlEvent::Page(Box::new(outcome))).await;
    }
}
