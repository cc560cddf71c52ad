//! What the summaries tell of one finished run, gathered in one place: what the run reported,
//! and what its crawl database says of it, read once, so that a summary (the crawl's, the
//! audit's) is written from plain values, and a test can write one from values of its own.

use std::path::Path;
use std::time::Duration;

use sitemapper_crawl::CrawlSummary;
use sitemapper_sitemap::{Published, Written};
use sitemapper_store::{ChangeCounts, KeptPages, ReasonCount, RunId, StoreError};

use crate::elsewhere::{CanonicalsElsewhere, canonicals_elsewhere};
use crate::media::MediaReport;
use crate::not_listed::NotListed;
use crate::record::Notes;
use crate::run::SiteRun;

/// What a summary tells of one finished run: what the run reported, and what its crawl
/// database says of it.
#[derive(Debug)]
pub struct RunFacts<'a> {
    /// What the crawl reported.
    pub crawl: &'a CrawlSummary,
    /// What the recorder noted (robots.txt, crawl-delay, the scope).
    pub notes: &'a Notes,
    /// The run, when it continued an interrupted one.
    pub resumed: Option<RunId>,
    /// How long the run took, publishing included.
    pub elapsed: Duration,
    /// The run's pages, by verdict and reason.
    pub reason_counts: Vec<ReasonCount>,
    /// URLs listed that only the site's sitemaps led to, when they seeded the crawl.
    pub only_from_sitemaps: Option<u64>,
    /// The URLs not listed, by reason, with examples.
    pub not_listed: &'a NotListed,
    /// Pages whose canonical names another host, by host.
    pub canonicals_elsewhere: Vec<CanonicalsElsewhere>,
    /// The sitemap files written, by format.
    pub written: &'a [Written],
    /// What publishing did with them.
    pub published: &'a Published,
    /// The videos and news articles the sitemaps carry.
    pub media: &'a MediaReport,
    /// Pages that served a new `Last-Modified` over the same content.
    pub lastmod_kept: u64,
    /// URLs the last complete run listed that failed this time and stay listed, and those
    /// dropped after too many failures in a row.
    pub kept: &'a KeptPages,
    /// The previous complete run and what changed since, unless this is the first.
    pub since: Option<(RunId, ChangeCounts)>,
    /// The crawl database.
    pub database: &'a Path,
    /// What to say of IndexNow, when it was asked for.
    pub notified: Option<&'a str>,
}

impl<'a> RunFacts<'a> {
    /// The facts of `crawled`, with what its crawl database holds of it.
    pub fn of(crawled: &'a SiteRun) -> Result<RunFacts<'a>, StoreError> {
        let crawl = &crawled.summary;
        let seeded = crawl
            .sitemap_seeding
            .as_ref()
            .is_some_and(|seeding| !(seeding.not_reached && seeding.read == 0));
        let only_from_sitemaps = if seeded {
            Some(crawled.store.listed_only_from_sitemaps(crawled.run)?)
        } else {
            None
        };
        let (written, published) = &crawled.published;
        Ok(RunFacts {
            crawl,
            notes: &crawled.notes,
            resumed: crawled.resumed.then_some(crawled.run),
            elapsed: crawled.started.elapsed(),
            reason_counts: crawled.store.reason_counts(crawled.run)?,
            only_from_sitemaps,
            not_listed: &crawled.not_listed,
            canonicals_elsewhere: canonicals_elsewhere(
                &crawled.store,
                crawled.run,
                &crawl.scope.root,
            )?,
            written,
            published,
            media: &crawled.media,
            lastmod_kept: crawled.lastmod_kept,
            kept: &crawled.kept,
            since: crawled
                .changes
                .previous
                .map(|previous| (previous, crawled.changes.counts())),
            database: crawled.store.path(),
            notified: crawled.notified.as_deref(),
        })
    }
}
