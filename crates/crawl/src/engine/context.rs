//! What every fetch job of one crawl shares: the configuration, the HTTP client, the origins'
//! robots.txt and pacing, the seen-set, the request budget and the event channel.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use dashmap::DashMap;
use sitemapper_extract::ExtractOptions;
use tokio::sync::{Semaphore, mpsc};
use url::Url;

use super::crawler::Crawler;
use super::progress::CrawlProgress;
use crate::access::SiteSession;
use crate::address::AddressPolicy;
use crate::concurrency::ConcurrencyLimit;
use crate::config::CrawlConfig;
use crate::documents::DocumentTally;
use crate::error::CrawlError;
use crate::event::{CrawlEvent, PageOutcome};
use crate::fetch::Fetcher;
use crate::frontier::SeenSet;
use crate::history::History;
use crate::normalize::UrlNormalizer;
use crate::origins::Origins;
use crate::render::RenderState;

/// Everything a fetch job shares with the others.
#[derive(Debug)]
pub(super) struct JobContext {
    pub config: Arc<CrawlConfig>,
    pub fetcher: Arc<Fetcher>,
    pub normalizer: Arc<UrlNormalizer>,
    pub origins: Origins<CrawlEvent>,
    pub seen: SeenSet,
    /// How many jobs may run at once; the fetcher tells it how the site answers.
    pub concurrency: ConcurrencyLimit,
    pub extract_options: Arc<ExtractOptions>,
    /// The same, with the legacy fingerprint too: for the pages whose recorded fingerprint
    /// is of that function.
    pub legacy_extract_options: Arc<ExtractOptions>,
    /// One HTML parse per core at a time: parsing is CPU work, and a page's DOM costs many
    /// times its size, so this also bounds the memory that parsing can take.
    pub parse_slots: Arc<Semaphore>,
    pub history: Option<Arc<dyn History>>,
    pub events: mpsc::Sender<CrawlEvent>,
    pub progress: Arc<CrawlProgress>,
    /// Rendering in a browser: the mode, the browser, what the crawl learned of the site.
    pub render: RenderState,
    /// The connections the crawl may make.
    pub addresses: AddressPolicy,
    /// Hosts of requests the browser made, and whether the address policy allows them.
    pub browser_hosts: DashMap<String, bool>,
    /// What requests to the site carry (the fetcher's, and the browser's).
    pub session: Arc<SiteSession>,
    /// The documents met, counted as their outcomes are reported.
    pub documents: DocumentTally,
}

impl JobContext {
    /// The context of one run of `crawler`, whose connections obey `addresses` and whose
    /// requests to the site carry `session`.
    pub(super) fn new(
        crawler: &Crawler,
        addresses: AddressPolicy,
        session: Arc<SiteSession>,
        events: mpsc::Sender<CrawlEvent>,
    ) -> Result<JobContext, CrawlError> {
        let config = &crawler.config;
        let extract_options = ExtractOptions {
            robots_token: config.robots_token(),
            // Fingerprints tell changed pages from unchanged ones across runs and find
            // duplicates: only worth computing when history is kept.
            fingerprint: config.record_links,
            legacy_fingerprint: false,
            details: config.page_details,
            custom: config.extractions.clone(),
            structured: config.structured_data,
        };
        Ok(JobContext {
            origins: Origins::new(
                config.respect_robots,
                config.robots_token(),
                config.delay,
                config.max_crawl_delay,
                Arc::clone(&crawler.pace),
                Some(events.clone()),
            ),
            fetcher: Arc::new(
                Fetcher::new(
                    &config.fetch_settings(),
                    addresses.clone(),
                    &config.network,
                    Some(Arc::clone(&session)),
                )?
                .observed_by(crawler.observer.clone()),
            ),
            config: Arc::clone(config),
            normalizer: Arc::clone(&crawler.normalizer),
            seen: SeenSet::default(),
            concurrency: ConcurrencyLimit::new(config.concurrency),
            history: crawler.history.clone(),
            parse_slots: Arc::new(Semaphore::new(
                std::thread::available_parallelism().map_or(2, std::num::NonZeroUsize::get),
            )),
            legacy_extract_options: Arc::new(ExtractOptions {
                legacy_fingerprint: true,
                ..extract_options.clone()
            }),
            extract_options: Arc::new(extract_options),
            events,
            progress: Arc::clone(&crawler.progress),
            render: RenderState::new(config.render, crawler.renderer.clone())
                .with_script_links(config.record_links),
            browser_hosts: DashMap::new(),
            addresses,
            session,
            documents: DocumentTally::default(),
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

    /// Whether the browser may connect to `url`'s host (another host than the site's): the
    /// address policy, checked once per host.
    pub(super) async fn may_connect_to(&self, url: &Url) -> bool {
        let host = url.host_str().unwrap_or_default().to_string();
        if let Some(allowed) = self.browser_hosts.get(&host) {
            return *allowed;
        }
        let allowed = self.addresses.allows_host(url).await;
        self.browser_hosts.insert(host, allowed);
        allowed
    }

    /// Reports the decision on one URL.
    pub(super) async fn emit(&self, outcome: PageOutcome) {
        if !self.config.documents.is_empty() {
            self.documents.count(&self.config.documents, &outcome);
        }
        self.emit_event(CrawlEvent::Page(Box::new(outcome))).await;
    }

    /// Reports `event`.
    pub(super) async fn emit_event(&self, event: CrawlEvent) {
        // A closed channel means the caller stopped listening; the crawl winds down by itself.
        let _ = self.events.send(event).await;
    }
}
