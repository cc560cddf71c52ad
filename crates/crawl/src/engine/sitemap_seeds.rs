//! Seeding from the site's own sitemaps, once links lead nowhere new: the sitemaps that
//! robots.txt of the scope's origin names (else `/sitemap.xml`; or those the user names)
//! are fetched like any request
//! of the crawl (its client, pace, robots.txt and address policy; redirects hop by hop), read
//! by the [`SitemapReader`], and what they list is queued as links of the sitemap. Seeding
//! last keeps every page's depth its distance in clicks: the sitemaps only add what links do
//! not reach. A sitemap that cannot be read is a warning; the crawl goes on without it.

use std::sync::Arc;

use reqwest::header;
use tokio::sync::watch;
use url::Url;

use super::context::JobContext;
use super::owner::FrontierOwner;
use crate::fetch::BodyWanted;
use crate::scope::Scope;
use crate::sitemaps::{
    MAX_SITEMAP_BYTES, NoSeeds, OwnSitemaps, SitemapReader, SitemapSeeding, SitemapWalk,
};

/// Where the site's sitemaps are, and which of them are this crawl's own.
#[derive(Debug)]
struct SiteSitemaps {
    context: Arc<JobContext>,
    scope: Arc<Scope>,
    own: OwnSitemaps,
    /// Whether the root is `/sitemap.xml`, guessed because robots.txt names none: not being
    /// there is no problem then.
    guessed: Option<Url>,
}

/// What fetching one sitemap gave.
#[derive(Debug)]
enum Fetched {
    Body(Vec<u8>),
    /// Not requested (the reason is logged).
    Skipped,
    /// The guessed `/sitemap.xml` is not there.
    Missing,
    /// Requested, and no sitemap came back (the reason is logged).
    Unreadable,
}

/// Reads the site's sitemaps through `reader` and queues what they list in `owner`'s
/// frontier. Stops between two sitemaps when `stopped` says so.
pub(super) async fn seed(
    owner: &mut FrontierOwner,
    reader: &dyn SitemapReader,
    stopped: &watch::Receiver<bool>,
) -> SitemapSeeding {
    let mut sitemaps = SiteSitemaps::new(owner.context(), owner.scope());
    let roots = sitemaps.roots().await;
    let mut seeding = SitemapSeeding::default();
    let mut walk = reader.walk(roots);
    while let Some(sitemap) = walk.next_to_read() {
        if *stopped.borrow() {
            seeding.not_reached = true;
            break;
        }
        let body = match sitemaps.fetch(&sitemap).await {
            Fetched::Body(body) => body,
            Fetched::Skipped => {
                seeding.skipped += 1;
                continue;
            }
            Fetched::Missing => continue,
            Fetched::Unreadable => {
                seeding.unreadable += 1;
                continue;
            }
        };
        let (returned, read) = take_in(walk, sitemap.clone(), body).await;
        let Some(returned) = returned else {
            break;
        };
        walk = returned;
        match read {
            Ok(listed) => {
                seeding.read += 1;
                seeding.urls_queued += owner.enqueue_listed(&sitemap, listed).await;
            }
            Err(NoSeeds::WrittenBySitemapper) => {
                tracing::info!(
                    %sitemap,
                    "written by sitemapper: not read as a seed, so that no earlier output keeps a page alive"
                );
                seeding.skipped += 1;
            }
            Err(NoSeeds::Unreadable(problem)) if sitemaps.guessed.as_ref() == Some(&sitemap) => {
                tracing::info!(%sitemap, %problem, "no sitemap there");
            }
            Err(NoSeeds::Unreadable(problem)) => {
                tracing::warn!(%sitemap, "the site's sitemap cannot be read: {problem}");
                seeding.unreadable += 1;
            }
        }
    }
    if seeding.read + seeding.skipped + seeding.unreadable > 0 {
        tracing::info!(
            read = seeding.read,
            skipped = seeding.skipped,
            unreadable = seeding.unreadable,
            queued = seeding.urls_queued,
            "the site's sitemaps"
        );
    }
    seeding
}

/// The sitemap read off the runtime's threads (a sitemap is up to 50 MiB of XML); the walk
/// comes back with what it found, or not at all when the reader panicked.
async fn take_in(
    mut walk: Box<dyn SitemapWalk>,
    sitemap: Url,
    body: Vec<u8>,
) -> (Option<Box<dyn SitemapWalk>>, Result<Vec<String>, NoSeeds>) {
    let joined = tokio::task::spawn_blocking(move || {
        let read = walk.take_in(&sitemap, body);
        (walk, read)
    })
    .await;
    match joined {
        Ok((walk, read)) => (Some(walk), read),
        Err(error) => {
            tracing::error!(%error, "reading a sitemap failed");
            (None, Err(NoSeeds::Unreadable(error.to_string())))
        }
    }
}

impl SiteSitemaps {
    fn new(context: Arc<JobContext>, scope: Arc<Scope>) -> SiteSitemaps {
        let config = &context.config;
        let published = config
            .published_base
            .clone()
            .unwrap_or_else(|| config.host_map.to_published(scope.root()));
        SiteSitemaps {
            own: OwnSitemaps::under(&published, &config.own_sitemaps),
            context,
            scope,
            guessed: None,
        }
    }

    /// The sitemaps the user named; else the `Sitemap:` lines of robots.txt of the scope's
    /// origin; else `/sitemap.xml`.
    async fn roots(&mut self) -> Vec<Url> {
        if !self.context.config.sitemap_roots.is_empty() {
            return self.context.config.sitemap_roots.clone();
        }
        let root = self.scope.root();
        let policy = self
            .context
            .origins
            .robots(root, &self.context.fetcher)
            .await;
        let named: Vec<Url> = policy
            .sitemaps()
            .iter()
            .filter_map(|text| Url::parse(text.trim()).ok())
            .collect();
        if !named.is_empty() {
            return named;
        }
        self.guessed = root.join("/sitemap.xml").ok();
        self.guessed.iter().cloned().collect()
    }

    /// Fetches `sitemap`, following its redirects hop by hop, each hop checked first.
    async fn fetch(&self, sitemap: &Url) -> Fetched {
        let guessed = self.guessed.as_ref() == Some(sitemap);
        let Some(mut url) = self.context.normalizer.normalize(sitemap) else {
            tracing::info!(%sitemap, "not a sitemap URL the crawl can request: not read");
            return Fetched::Skipped;
        };
        for _ in 0..=self.context.config.max_redirects {
            if !self.may_request(&url).await {
                return Fetched::Skipped;
            }
            self.context.origins.pace(&url).await;
            let wanted = BodyWanted::AnySuccess {
                cap: MAX_SITEMAP_BYTES,
            };
            // Like robots.txt, a sitemap is not counted among the page requests.
            let response = match self
                .context
                .fetcher
                .fetch(&url, wanted, None, &|| true, None)
                .await
            {
                Ok(response) => response,
                Err(failure) => {
                    tracing::warn!(sitemap = %url, "the site's sitemap cannot be read: {failure}");
                    return Fetched::Unreadable;
                }
            };
            let status = response.status.as_u16();
            if matches!(status, 301 | 302 | 303 | 307 | 308) {
                let target = response
                    .header(header::LOCATION)
                    .and_then(|location| url.join(location.trim()).ok())
                    .and_then(|target| self.context.normalizer.normalize(&target));
                let Some(target) = target else {
                    tracing::warn!(sitemap = %url, status, "the site's sitemap redirects without a usable Location");
                    return Fetched::Unreadable;
                };
                url = target;
                continue;
            }
            if guessed && matches!(status, 404 | 410) {
                tracing::debug!(sitemap = %url, status, "no sitemap there");
                return Fetched::Missing;
            }
            if !response.status.is_success() {
                tracing::warn!(sitemap = %url, "the site's sitemap cannot be read: it answered {status}");
                return Fetched::Unreadable;
            }
            if response.truncated {
                tracing::warn!(sitemap = %url, "the site's sitemap cannot be read: larger than {MAX_SITEMAP_BYTES} bytes");
                return Fetched::Unreadable;
            }
            return Fetched::Body(response.body);
        }
        tracing::warn!(%sitemap, "the site's sitemap cannot be read: too many redirects");
        Fetched::Unreadable
    }

    /// Whether `url` (normalized) may be requested as a sitemap of the site: not one this
    /// crawl publishes, on the site, and allowed by robots.txt of its origin.
    async fn may_request(&self, url: &Url) -> bool {
        let config = &self.context.config;
        let published = config.host_map.to_published(url);
        if self.own.contains(&published) {
            tracing::info!(
                sitemap = %published,
                "this crawl's own earlier output: not read as a seed, so that no earlier output keeps a page alive"
            );
            return false;
        }
        if !self.scope.is_same_site(url) {
            tracing::info!(sitemap = %url, "a sitemap on another site: not read");
            return false;
        }
        let policy = self
            .context
            .origins
            .robots(url, &self.context.fetcher)
            .await;
        if !policy.is_allowed(url) {
            tracing::warn!(sitemap = %url, "the site's sitemap is disallowed by robots.txt: not read");
            return false;
        }
        true
    }
}
