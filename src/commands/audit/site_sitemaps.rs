//! The site's own sitemaps, for comparison with the crawl: those robots.txt names (or else
//! `/sitemap.xml`), indexes followed into their children, gzip included. The walk is the one
//! `validate` uses: each sitemap is fetched once however often it is listed, cycles are
//! reported, and nesting and the number of sitemaps followed are bounded.

use std::collections::BTreeSet;
use std::sync::Arc;

use sitemapper_sitemap::{
    IndexWalk, Listed, Severity, SitemapDocument, SitemapKey, Visit, read_sitemap,
};

use crate::commands::sitemap_source::SitemapClient;
use sitemapper_crawl::{CrawlConfig, CrawlSummary, HostMap};
use url::Url;

/// What was found.
#[derive(Debug, Default)]
pub(super) struct SiteSitemaps {
    /// The sitemap files read.
    pub files: Vec<Url>,
    /// Every `<loc>` of every urlset.
    pub urls: BTreeSet<String>,
    /// `(sitemap URL, why it could not be read)`.
    pub problems: Vec<(String, String)>,
}

/// Reads the sitemaps at `declared` (robots.txt `Sitemap:` lines), or `/sitemap.xml` of the
/// crawl's scope when robots.txt names none (then a 404 is simply "no sitemap", not a
/// problem). Requests go as the crawl's did: its address policy, proxy and certificates, and
/// its session for the site's own origins. With `--map-host`, sitemaps on the production host
/// are read from the staging copy, as the crawl read its pages.
pub(super) async fn read(
    declared: &[String],
    crawl: &CrawlSummary,
    config: &CrawlConfig,
) -> SiteSitemaps {
    let mut found = SiteSitemaps::default();
    let root = &crawl.scope_root;
    let client = match SitemapClient::for_site(
        &config.user_agent,
        config.request_timeout,
        crawl.addresses.clone(),
        &config.network,
        Arc::clone(&crawl.session),
    ) {
        Ok(client) => client,
        Err(error) => {
            found.problems.push((root.to_string(), error.to_string()));
            return found;
        }
    };
    let crawled = |url: Url| config.host_map.to_crawled(&url).unwrap_or(url);
    let mut roots: Vec<Url> = declared
        .iter()
        .filter_map(|text| Url::parse(text).ok())
        .map(crawled)
        .collect();
    let guessed = roots.is_empty();
    if guessed && let Ok(fallback) = root.join("/sitemap.xml") {
        roots.push(fallback);
    }
    let mut walk = IndexWalk::new(roots.into_iter().map(|url| (SitemapKey::url(&url), url)));
    while let Some(visit) = walk.next_to_read() {
        let optional = guessed && visit.depth == 0;
        if let Some(body) = fetch_noted(&client, &visit.source, optional, &mut found).await {
            found.take_in(&mut walk, visit, &body, &config.host_map);
        }
    }
    found.files.sort();
    found
}

/// The sitemap's body, or `None` with the reason noted (unless it is an `optional` one that
/// is not there).
async fn fetch_noted(
    client: &SitemapClient,
    url: &Url,
    optional: bool,
    found: &mut SiteSitemaps,
) -> Option<Vec<u8>> {
    let problem = match client.fetch(url).await {
        Ok(Some(body)) => return Some(body),
        Ok(None) if optional => return None,
        Ok(None) => "not found (404)".to_string(),
        Err(problem) => problem,
    };
    found.problems.push((url.to_string(), problem));
    None
}

impl SiteSitemaps {
    /// One fetched sitemap: its URLs, or, for an index, the sitemaps it lists handed to
    /// `walk`.
    fn take_in(
        &mut self,
        walk: &mut IndexWalk<Url>,
        visit: Visit<Url>,
        body: &[u8],
        host_map: &HostMap,
    ) {
        match read_sitemap(body) {
            Ok(SitemapDocument::UrlSet(entries)) => {
                self.urls.extend(entries.into_iter().map(|entry| entry.loc));
            }
            Ok(SitemapDocument::Index(entries)) => {
                let listed = entries.into_iter().filter_map(|entry| {
                    let child = visit.source.join(&entry.loc).ok()?;
                    let child = host_map.to_crawled(&child).unwrap_or(child);
                    Some(Listed {
                        key: SitemapKey::url(&child),
                        source: child,
                        line: entry.line,
                    })
                });
                for problem in walk.follow(visit.id, listed) {
                    // A sitemap listed twice is allowed (sitemaps.org does not forbid it) and
                    // was fetched once; the findings about the site's sitemaps are errors,
                    // too strong for it.
                    if problem.kind.severity() == Severity::Error {
                        let detail = format!("line {}: {}", problem.line, problem.kind);
                        self.problems.push((problem.index.to_string(), detail));
                    }
                }
            }
            Err(error) => self
                .problems
                .push((visit.source.to_string(), error.to_string())),
        }
        self.files.push(visit.source);
    }
}
