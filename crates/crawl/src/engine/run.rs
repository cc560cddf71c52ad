//! A crawler's run: the seed visited alone first (`seed`), because its redirects may move the
//! scope and its failure ends the crawl; then the frontier's owner (`owner`) runs fetch jobs
//! until nothing is left.

use std::sync::{Arc, PoisonError};
use std::time::Instant;

use tokio::sync::mpsc;
use url::Url;

use super::context::JobContext;
use super::crawler::Crawler;
use super::owner::FrontierOwner;
use super::seed;
use super::summary::CrawlSummary;
use crate::access::SiteSession;
use crate::error::CrawlError;
use crate::event::CrawlEvent;

impl Crawler {
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
