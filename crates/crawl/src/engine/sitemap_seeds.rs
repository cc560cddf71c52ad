//! Seeding from the site's own sitemaps, once links lead nowhere new: the sitemaps
//! [`site_sitemaps`] finds (the user's, else those robots.txt of the scope's origin names,
//! else those at the usual paths) are fetched like any request of the crawl (its fetcher,
//! pace, robots.txt and address policy; redirects hop by hop), read by the [`SitemapReader`],
//! and what they list is queued as links of the sitemap. Seeding last keeps every page's
//! depth its distance in clicks: the sitemaps only add what links do not reach. A sitemap
//! that cannot be read is a warning; the crawl goes on without it.

use std::future::Future;
use std::sync::Arc;

use tokio::sync::watch;
use url::Url;

use super::context::JobContext;
use crate::fetch::{BodyWanted, Broken, FetchFailure, FetchedResponse, HopRequest, Hops};
use crate::scope::Scope;
use crate::sitemaps::{
    NoSeeds, NotRead, OwnSitemaps, SitemapFoundBy, SitemapReader, SitemapSeeding, SitemapWalk,
    site_sitemaps,
};

/// Where the site's sitemaps are, and which of them are this crawl's own.
#[derive(Debug)]
struct SiteSitemaps {
    context: Arc<JobContext>,
    scope: Arc<Scope>,
    own: OwnSitemaps,
    /// The roots looked for at a usual path because robots.txt names none: not being there
    /// is no problem.
    guessed: Vec<Url>,
}

/// What fetching one sitemap gave.
#[derive(Debug)]
enum Fetched {
    Body(Vec<u8>),
    /// Not requested: why (also logged).
    Skipped(NotRead),
    /// The guessed `/sitemap.xml` is not there.
    Missing,
    /// Requested, and no sitemap came back: why (also logged).
    Unreadable(NotRead),
}

/// Where the URLs a sitemap of the site lists are queued: the frontier's owner.
pub(super) trait ListedUrls {
    /// Queues the URLs `sitemap` lists, as links of the sitemap one click from the seed,
    /// under the same rules as a page's links; reports the ones in scope and returns how many
    /// were new.
    fn enqueue_listed(
        &mut self,
        sitemap: &Url,
        listed: Vec<String>,
    ) -> impl Future<Output = u64> + Send;
}

/// Reads the site's sitemaps through `reader`, with the crawl's `context` in its `scope`, and
/// queues what they list in `owner`. Stops between two sitemaps when `stopped` says so.
pub(super) async fn seed(
    owner: &mut impl ListedUrls,
    context: Arc<JobContext>,
    scope: Arc<Scope>,
    reader: &dyn SitemapReader,
    stopped: &watch::Receiver<bool>,
) -> SitemapSeeding {
    let mut sitemaps = SiteSitemaps::new(context, scope);
    let (roots, looked) = sitemaps.roots().await;
    let mut seeding = SitemapSeeding {
        looked,
        ..SitemapSeeding::default()
    };
    let cap = reader.max_bytes();
    let mut walk = reader.walk(roots);
    while let Some(sitemap) = walk.next_to_read() {
        if *stopped.borrow() {
            seeding.not_reached = true;
            break;
        }
        let body = match sitemaps.fetch(&sitemap, cap).await {
            Fetched::Body(body) => body,
            Fetched::Skipped(why) => {
                seeding.skipped += 1;
                seeding.note(&sitemap, why);
                continue;
            }
            Fetched::Missing => continue,
            Fetched::Unreadable(why) => {
                seeding.unreadable += 1;
                seeding.note(&sitemap, why);
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
                seeding.note(&sitemap, NotRead::OwnOutput);
            }
            Err(NoSeeds::Unreadable(problem)) if sitemaps.guessed.contains(&sitemap) => {
                tracing::info!(%sitemap, %problem, "no sitemap there");
            }
            Err(NoSeeds::Unreadable(problem)) => {
                tracing::warn!(%sitemap, "the site's sitemap cannot be read: {problem}");
                seeding.unreadable += 1;
                seeding.note(&sitemap, NotRead::NotASitemap(problem));
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
            guessed: Vec::new(),
        }
    }

    /// The sitemaps to start from ([`site_sitemaps`]), and how they were found: robots.txt
    /// of the scope's origin is read for them unless the user named some.
    async fn roots(&mut self) -> (Vec<Url>, Option<SitemapFoundBy>) {
        let given = &self.context.config.sitemap_roots;
        let root = self.scope.root();
        let policy = if given.is_empty() {
            Some(
                self.context
                    .origins
                    .robots(root, &self.context.fetcher)
                    .await,
            )
        } else {
            None
        };
        let declared = policy.as_ref().map_or(&[][..], |policy| policy.sitemaps());
        let roots = site_sitemaps(given, declared, root);
        self.guessed = roots
            .iter()
            .filter(|sitemap| sitemap.found_by == SitemapFoundBy::UsualPath)
            .map(|sitemap| sitemap.url.clone())
            .collect();
        let looked = roots.first().map(|sitemap| sitemap.found_by);
        (
            roots.into_iter().map(|sitemap| sitemap.url).collect(),
            looked,
        )
    }

    /// Fetches `sitemap`, following its redirects hop by hop, each hop checked first.
    async fn fetch(&self, sitemap: &Url, cap: usize) -> Fetched {
        let Some(url) = self.context.normalizer.normalize(sitemap) else {
            tracing::info!(%sitemap, "not a sitemap URL the crawl can request: not read");
            return Fetched::Skipped(NotRead::NotRequestable);
        };
        let hops = SeedHops {
            sitemaps: self,
            sitemap,
            guessed: self.guessed.contains(sitemap),
            cap,
        };
        self.context.fetcher.follow(url, hops).await
    }

    /// Whether `url` (normalized) may be requested as a sitemap of the site: not one this
    /// crawl publishes, on the site, and allowed by robots.txt of its origin; or why not.
    async fn may_request(&self, url: &Url) -> Result<(), NotRead> {
        let config = &self.context.config;
        let published = config.host_map.to_published(url);
        if self.own.contains(&published) {
            tracing::info!(
                sitemap = %published,
                "this crawl's own earlier output: not read as a seed, so that no earlier output keeps a page alive"
            );
            return Err(NotRead::OwnOutput);
        }
        if !self.scope.is_same_site(url) {
            tracing::info!(sitemap = %url, "a sitemap on another site: not read");
            return Err(NotRead::OtherSite(url.origin().ascii_serialization()));
        }
        let policy = self
            .context
            .origins
            .robots(url, &self.context.fetcher)
            .await;
        if !policy.is_allowed(url) {
            tracing::warn!(sitemap = %url, "the site's sitemap is disallowed by robots.txt: not read");
            return Err(NotRead::Disallowed);
        }
        Ok(())
    }
}

/// The crawl's rules of a sitemap's redirect chain: each hop one the crawl may read as a
/// sitemap of the site ([`SiteSitemaps::may_request`]), paced, and, like robots.txt, not
/// counted among the page requests.
#[derive(Debug)]
struct SeedHops<'a> {
    sitemaps: &'a SiteSitemaps,
    /// The sitemap as the walk handed it out.
    sitemap: &'a Url,
    /// Looked for at a usual path: a 404 or 410 there is no problem.
    guessed: bool,
    /// The most bytes read ([`SitemapReader::max_bytes`]).
    cap: usize,
}

impl Hops for SeedHops<'_> {
    type End = Fetched;

    fn max_redirects(&self) -> usize {
        self.sitemaps.context.config.max_redirects
    }

    async fn before(&mut self, url: &Url) -> Result<HopRequest, Fetched> {
        self.sitemaps
            .may_request(url)
            .await
            .map_err(Fetched::Skipped)?;
        self.sitemaps.context.origins.pace(url).await;
        Ok(HopRequest::get(BodyWanted::AnySuccess { cap: self.cap }))
    }

    fn target(&self, target: Url) -> Option<Url> {
        self.sitemaps.context.normalizer.normalize(&target)
    }

    async fn redirected(
        &mut self,
        _url: &Url,
        _response: &FetchedResponse,
        _target: &Url,
    ) -> Result<(), Fetched> {
        Ok(())
    }

    async fn answered(self, url: Url, response: FetchedResponse) -> Fetched {
        let status = response.status.as_u16();
        if self.guessed && matches!(status, 404 | 410) {
            tracing::debug!(sitemap = %url, status, "no sitemap there");
            return Fetched::Missing;
        }
        if !response.status.is_success() {
            tracing::warn!(sitemap = %url, "the site's sitemap cannot be read: it answered {status}");
            return Fetched::Unreadable(NotRead::NotFetched(format!("it answers {status}")));
        }
        if response.truncated {
            let cap = self.cap;
            tracing::warn!(sitemap = %url, "the site's sitemap cannot be read: larger than {cap} bytes");
            return Fetched::Unreadable(NotRead::NotASitemap(format!("larger than {cap} bytes")));
        }
        Fetched::Body(response.body)
    }

    async fn failed(self, url: Url, failure: FetchFailure) -> Fetched {
        tracing::warn!(sitemap = %url, "the site's sitemap cannot be read: {failure}");
        Fetched::Unreadable(NotRead::NotFetched(failure.to_string()))
    }

    async fn broken(self, url: Url, response: FetchedResponse, broken: Broken) -> Fetched {
        let why = match broken {
            Broken::UnusableLocation(_) => {
                let status = response.status.as_u16();
                tracing::warn!(sitemap = %url, status, "the site's sitemap redirects without a usable Location");
                format!("it answers {status} without a usable Location")
            }
            Broken::TooManyRedirects => {
                let sitemap = self.sitemap;
                tracing::warn!(%sitemap, "the site's sitemap cannot be read: too many redirects");
                "too many redirects".to_string()
            }
        };
        Fetched::Unreadable(NotRead::NotFetched(why))
    }
}
