//! The site's own sitemaps, for comparison with the crawl, found by the rule the crawl's
//! seeding follows too ([`site_sitemaps`]): those the user names (`--sitemap`), else those
//! robots.txt names, else those at the usual paths of the site (`/sitemap.xml`,
//! `/sitemap_index.xml`, `/sitemap.xml.gz`). Indexes are followed into their children, gzip
//! included. The walk is the one `validate` uses: each sitemap is fetched once however often
//! it is listed, cycles are reported, and nesting and the number of sitemaps followed are
//! bounded.

use std::collections::BTreeSet;
use std::sync::Arc;

use sitemapper_audit::FoundBy;
use sitemapper_sitemap::{
    IndexWalk, MAX_BYTES_PER_FILE, ReadError, Severity, SitemapDocument, SitemapKey, Visit,
    read_sitemap,
};

use sitemapper_crawl::{
    CrawlConfig, CrawlSummary, FetchError, Fetcher, HostMap, NotRead, SiteSitemap, SitemapFoundBy,
    site_sitemaps,
};
use url::Url;

use crate::sitemap_seeds::ReadSitemaps;
use crate::sitemap_source::{gunzip_if_gzip, listed_sitemaps};
use crate::sitemap_story::SitemapStory;

/// What was found.
#[derive(Debug, Default)]
pub struct SitemapsFound {
    /// The sitemap files read.
    pub files: Vec<Url>,
    /// Every `<loc>` of every urlset.
    pub urls: BTreeSet<String>,
    /// The sitemaps looked for and not read, with why: skipped (another site's, disallowed)
    /// or unreadable (no answer, an error status, not a sitemap).
    pub not_read: Vec<(Url, NotRead)>,
    /// The files read that no index listed, and how each was found.
    pub found_by: Vec<(Url, FoundBy)>,
    /// How the sitemaps started from were found (`None`: there were none to look for).
    pub looked: Option<SitemapFoundBy>,
}

impl SitemapsFound {
    /// The story of the site's sitemaps as the audit read them, told alike by its summary
    /// and its report.
    pub fn story(&self) -> SitemapStory<'_> {
        let (skipped, unreadable) = SitemapStory::counts(&self.not_read);
        SitemapStory {
            looked: self.looked,
            read: self.files.len() as u64,
            skipped,
            unreadable,
            not_read: &self.not_read,
            added: None,
        }
    }

    /// Notes `url` as not read, for `why`.
    fn note(&mut self, url: &Url, why: NotRead) {
        self.not_read.push((url.clone(), why));
    }
}

/// Reads the sitemaps `given` by the user; or, when none is, those `declared` in robots.txt
/// (its `Sitemap:` lines); or, when robots.txt names none, those at the usual paths of the
/// crawl's scope's origin, where a 404 or 410, or a page that is not a sitemap at all (a
/// site that answers every path with its HTML), is simply "not there", not a problem.
/// The crawl's rules hold (docs/design.md, robots.txt): a sitemap on another site is not
/// read, and a sitemap the crawl found it could not read (`crawl.sitemap_seeding`) is not
/// requested again, so that the crawl, the audit and the report tell one story.
/// Requests go as the crawl's did: its fetcher's settings, address policy, proxy and
/// certificates, and its session for the site's own origins. With `--map-host`, sitemaps on
/// the production host are read from the staging copy, as the crawl read its pages. A
/// sitemap the crawl read as a seed (`read_as_seeds`) is not fetched again.
pub async fn read_site_sitemaps(
    given: &[Url],
    declared: &[String],
    crawl: &CrawlSummary,
    config: &CrawlConfig,
    read_as_seeds: &ReadSitemaps,
) -> SitemapsFound {
    let mut found = SitemapsFound::default();
    let root = &crawl.scope.root;
    let fetcher = match Fetcher::new(
        &config.fetch_settings(),
        crawl.addresses.clone(),
        &config.network,
        Some(Arc::clone(&crawl.session)),
    ) {
        Ok(fetcher) => fetcher,
        Err(error) => {
            found.note(root, NotRead::NotFetched(error.to_string()));
            return found;
        }
    };
    let sitemaps = site_sitemaps(given, declared, root);
    found.looked = sitemaps.first().map(|sitemap| sitemap.found_by);
    let roots = roots(sitemaps, &config.host_map);
    let crawl_noted: Vec<&(Url, NotRead)> = crawl
        .sitemap_seeding
        .iter()
        .flat_map(|seeding| &seeding.not_read)
        .collect();
    let mut walk = IndexWalk::new(
        roots
            .iter()
            .map(|(url, _)| (SitemapKey::url(url), url.clone())),
    );
    while let Some(visit) = walk.next_to_read() {
        let found_by = roots
            .iter()
            .filter(|_| visit.depth == 0)
            .find(|(url, _)| *url == visit.source)
            .map(|(_, found_by)| *found_by);
        let guessed = found_by == Some(FoundBy::UsualPath);
        // A sitemap the crawl did not seed from because sitemapper wrote it is still the
        // site's, whoever wrote it: the audit reads it (the crawl kept it).
        if let Some((_, why)) = crawl_noted
            .iter()
            .find(|(url, why)| *url == visit.source && !matches!(why, NotRead::OwnOutput))
        {
            found.note(&visit.source, why.clone());
            continue;
        }
        if !crawl.scope.is_same_site(&visit.source) {
            let origin = visit.source.origin().ascii_serialization();
            found.note(&visit.source, NotRead::OtherSite(origin));
            continue;
        }
        let document = match read_as_seeds.take(&visit.source) {
            Some(document) => Ok(document),
            None => {
                let Some(body) = fetch_noted(&fetcher, &visit.source, guessed, &mut found).await
                else {
                    continue;
                };
                read_sitemap(&body)
            }
        };
        if guessed && matches!(document, Err(ReadError::UnknownRoot(_) | ReadError::Empty)) {
            tracing::debug!(url = %visit.source, "not a sitemap: taken as none there");
            continue;
        }
        if let Some(found_by) = found_by {
            found.found_by.push((visit.source.clone(), found_by));
        }
        found.take_in(&mut walk, visit, document, &config.host_map);
    }
    found.files.sort();
    found
}

/// The sitemaps to start from (those [`site_sitemaps`] found), and how each was found. Those
/// on a production host (`--map-host`) are read on its staging copy.
fn roots(sitemaps: Vec<SiteSitemap>, host_map: &HostMap) -> Vec<(Url, FoundBy)> {
    sitemaps
        .into_iter()
        .map(|sitemap| {
            let url = host_map.to_crawled(&sitemap.url).unwrap_or(sitemap.url);
            let found_by = match sitemap.found_by {
                SitemapFoundBy::Given => FoundBy::Given,
                SitemapFoundBy::RobotsTxt => FoundBy::RobotsTxt,
                SitemapFoundBy::UsualPath => FoundBy::UsualPath,
            };
            (url, found_by)
        })
        .collect()
}

/// The sitemap's body, gunzipped when it is gzip, or `None` with the reason noted (unless it
/// is an `optional` one that is not there).
async fn fetch_noted(
    fetcher: &Fetcher,
    url: &Url,
    optional: bool,
    found: &mut SitemapsFound,
) -> Option<Vec<u8>> {
    let why = match fetcher.get(url, MAX_BYTES_PER_FILE).await {
        Ok(fetched) => match gunzip_if_gzip(fetched.body) {
            Ok(body) => return Some(body),
            Err(problem) => NotRead::NotASitemap(problem.to_string()),
        },
        Err(FetchError::Status(status)) if matches!(status.as_u16(), 404 | 410) => {
            if optional {
                return None;
            }
            NotRead::NotFetched(format!("it answers {}", status.as_u16()))
        }
        Err(error) => NotRead::NotFetched(error.to_string()),
    };
    found.note(url, why);
    None
}

impl SitemapsFound {
    /// One fetched sitemap, as read: its URLs, or, for an index, the sitemaps it lists
    /// handed to `walk`.
    fn take_in(
        &mut self,
        walk: &mut IndexWalk<Url>,
        visit: Visit<Url>,
        document: Result<SitemapDocument, ReadError>,
        host_map: &HostMap,
    ) {
        match document {
            Ok(SitemapDocument::UrlSet(entries)) => {
                self.urls.extend(entries.into_iter().map(|entry| entry.loc));
            }
            Ok(SitemapDocument::Index(entries)) => {
                let listed = listed_sitemaps(&visit.source, entries, host_map);
                for problem in walk.follow(visit.id, listed) {
                    // A sitemap listed twice is allowed (sitemaps.org does not forbid it) and
                    // was fetched once; the findings about the site's sitemaps are errors,
                    // too strong for it.
                    if problem.kind.severity() == Severity::Error {
                        let detail = format!("line {}: {}", problem.line, problem.kind);
                        self.note(&problem.index, NotRead::NotASitemap(detail));
                    }
                }
            }
            Err(error) => self.note(&visit.source, NotRead::NotASitemap(error.to_string())),
        }
        self.files.push(visit.source);
    }
}
