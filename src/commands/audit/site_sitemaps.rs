//! The site's own sitemaps, for comparison with the crawl: those robots.txt names (or else
//! `/sitemap.xml`), indexes followed into their children, gzip included.

use std::collections::BTreeSet;
use std::time::Duration;

use sitemapper_crawl::AddressPolicy;
use sitemapper_sitemap::{SitemapDocument, read_sitemap};

use crate::commands::sitemap_source::fetch;
use url::Url;

/// Index nesting followed at most (an index of indexes is already outside the protocol).
const MAX_INDEX_DEPTH: usize = 2;
/// Sitemap files read at most: the protocol's 50,000 children of one index, and a margin.
const MAX_FILES: usize = 50_001;

/// What was found.
#[derive(Debug, Default)]
pub struct SiteSitemaps {
    /// The sitemap files read.
    pub files: Vec<Url>,
    /// Every `<loc>` of every urlset.
    pub urls: BTreeSet<String>,
    /// `(sitemap URL, why it could not be read)`.
    pub problems: Vec<(String, String)>,
}

/// Reads the sitemaps at `declared` (robots.txt `Sitemap:` lines), or `/sitemap.xml` of `root`
/// when robots.txt names none (then a 404 is simply "no sitemap", not a problem).
pub async fn read(
    declared: &[String],
    root: &Url,
    user_agent: &str,
    timeout: Duration,
    addresses: &AddressPolicy,
) -> SiteSitemaps {
    let mut found = SiteSitemaps::default();
    let client = match sitemapper_crawl::client_builder(addresses)
        .user_agent(user_agent.to_string())
        .timeout(timeout)
        .build()
    {
        Ok(client) => client,
        Err(error) => {
            found.problems.push((root.to_string(), error.to_string()));
            return found;
        }
    };
    let mut queue: Vec<(Url, usize, bool)> = declared
        .iter()
        .filter_map(|text| Url::parse(text).ok())
        .map(|url| (url, 0, true))
        .collect();
    if queue.is_empty()
        && let Ok(fallback) = root.join("/sitemap.xml")
    {
        queue.push((fallback, 0, false));
    }
    let mut seen = BTreeSet::new();
    while let Some((url, depth, must_exist)) = queue.pop() {
        if !seen.insert(url.to_string()) || found.files.len() >= MAX_FILES {
            continue;
        }
        let body = match fetch(&client, addresses, &url).await {
            Ok(Some(body)) => body,
            Ok(None) if !must_exist => continue,
            Ok(None) => {
                found
                    .problems
                    .push((url.to_string(), "not found (404)".to_string()));
                continue;
            }
            Err(problem) => {
                found.problems.push((url.to_string(), problem));
                continue;
            }
        };
        match read_sitemap(&body) {
            Ok(SitemapDocument::UrlSet(entries)) => {
                found
                    .urls
                    .extend(entries.into_iter().map(|entry| entry.loc));
            }
            Ok(SitemapDocument::Index(entries)) if depth < MAX_INDEX_DEPTH => {
                for entry in entries {
                    if let Ok(child) = url.join(&entry.loc) {
                        queue.push((child, depth + 1, true));
                    }
                }
            }
            Ok(SitemapDocument::Index(_)) => {
                found
                    .problems
                    .push((url.to_string(), "index nested too deep".to_string()));
            }
            Err(error) => found.problems.push((url.to_string(), error.to_string())),
        }
        found.files.push(url);
    }
    found.files.sort();
    found
}
