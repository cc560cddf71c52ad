//! The audit's findings of one finished run: the crawl database's, and those of the site's own
//! sitemaps as the audit read them, sorted the way the findings need them (not a sitemap, not
//! fetched, on another site; sitemapper's own output is no finding), with robots.txt as the
//! crawl found it and every URL compared as the crawl knows it (`--map-host`).

use sitemapper_audit::{Finding, FoundBy, RobotsTxt, SiteProbe, SiteSitemaps, Thresholds};
use sitemapper_crawl::{CrawlConfig, NotRead, RobotsFile, UrlNormalizer};
use sitemapper_store::StoreError;
use url::Url;

use crate::run::SiteRun;
use crate::site_sitemaps::SitemapsFound;

/// The findings of the run `crawled`, crawled as `crawl` says, whose site's sitemaps are
/// `sitemaps` and which answered the audit's `probe`, judged by `thresholds`.
pub fn audit_findings(
    crawled: &SiteRun,
    crawl: &CrawlConfig,
    sitemaps: &SitemapsFound,
    probe: &SiteProbe,
    thresholds: &Thresholds,
) -> Result<Vec<Finding>, StoreError> {
    // The site's sitemaps name the production host of a staging copy: compared as the crawl
    // knows them (`--map-host`).
    let normalizer =
        UrlNormalizer::new(&crawl.strip_parameters).with_host_map(crawl.host_map.clone());
    let normalize = |loc: &str| {
        Url::parse(loc)
            .ok()
            .and_then(|url| normalizer.normalize(&url))
            .map(String::from)
    };
    let site = crawled.summary.scope.root.to_string();
    let (robots_url, robots_txt) = robots_txt(crawled);
    let found: Vec<(String, FoundBy)> = sitemaps
        .found_by
        .iter()
        .map(|(url, found_by)| (url.to_string(), *found_by))
        .collect();
    let not_read = NotReadSitemaps::of(sitemaps);
    let site_sitemaps = SiteSitemaps {
        files_read: sitemaps.files.len(),
        urls: &sitemaps.urls,
        unreadable: &not_read.unreadable,
        not_fetched: &not_read.not_fetched,
        other_sites: &not_read.other_sites,
        site: &site,
        robots_txt: (&robots_url, robots_txt),
        found: &found,
        probe,
    };
    sitemapper_audit::findings(
        &crawled.store,
        crawled.run,
        thresholds,
        &site_sitemaps,
        &normalize,
    )
}

/// The site's sitemaps not read, sorted for the findings: answered and not a sitemap, not
/// fetched (or disallowed), on another site. Sitemapper's own output is no finding.
#[derive(Debug, Default)]
struct NotReadSitemaps {
    unreadable: Vec<(String, String)>,
    not_fetched: Vec<(String, String)>,
    other_sites: Vec<String>,
}

impl NotReadSitemaps {
    fn of(sitemaps: &SitemapsFound) -> NotReadSitemaps {
        let mut sorted = NotReadSitemaps::default();
        for (url, why) in &sitemaps.not_read {
            let url = url.to_string();
            match why {
                NotRead::NotASitemap(problem) => sorted.unreadable.push((url, problem.clone())),
                NotRead::NotFetched(_) | NotRead::Disallowed | NotRead::NotRequestable => {
                    sorted.not_fetched.push((url, why.to_string()));
                }
                NotRead::OtherSite(_) => sorted.other_sites.push(url),
                NotRead::OwnOutput => {}
            }
        }
        sorted
    }
}

/// The URL of the robots.txt of the scope's origin, and what it answered in the crawl.
fn robots_txt(crawled: &SiteRun) -> (String, RobotsTxt) {
    let root = &crawled.summary.scope.root;
    let url = root
        .join("/robots.txt")
        .map_or_else(|_| root.to_string(), String::from);
    let origin = root.origin().ascii_serialization();
    let answered = match crawled.notes.robots_files.get(&origin) {
        Some(RobotsFile::Found) => RobotsTxt::Found,
        Some(RobotsFile::Missing) => RobotsTxt::Missing,
        Some(RobotsFile::ClientError(_) | RobotsFile::Unreachable | RobotsFile::Ignored) | None => {
            RobotsTxt::Unknown
        }
    };
    (url, answered)
}
