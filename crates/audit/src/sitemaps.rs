//! The gap between the site's own sitemaps and the crawl.

use std::collections::BTreeSet;

use sitemapper_store::{RunId, Store, StoreError, Verdict};

use crate::database::finding;
use crate::{Finding, FindingKind};

/// What the binary read of the site's own sitemaps.
#[derive(Debug, Clone, Copy)]
pub struct SiteSitemaps<'a> {
    /// How many sitemap files could be read.
    pub files_read: usize,
    /// Every distinct `<loc>` of those files, as written.
    pub urls: &'a BTreeSet<String>,
    /// `(sitemap URL, problem)` for each sitemap that could not be read.
    pub problems: &'a [(String, String)],
}

/// Sitemaps that cannot be read, sitemap URLs the crawl did not find or found not indexable,
/// and indexable pages the sitemaps leave out. `normalize` turns a `<loc>` into the crawl's
/// form of the URL, or says it is not an absolute http(s) URL.
pub(crate) fn sitemap_findings(
    store: &Store,
    run: RunId,
    sitemaps: &SiteSitemaps<'_>,
    normalize: &dyn Fn(&str) -> Option<String>,
) -> Result<Vec<Finding>, StoreError> {
    let mut findings: Vec<Finding> = sitemaps
        .problems
        .iter()
        .map(|(url, problem)| finding(FindingKind::SitemapUnreadable, url, problem.clone()))
        .collect();
    if sitemaps.files_read == 0 {
        return Ok(findings);
    }
    let verdicts = store.verdicts(run)?;
    let mut in_sitemaps = BTreeSet::new();
    for loc in sitemaps.urls {
        let Some(url) = normalize(loc) else {
            findings.push(finding(
                FindingKind::SitemapNotIndexable,
                loc,
                "not an absolute http(s) URL".to_string(),
            ));
            continue;
        };
        match verdicts.get(&url) {
            None => findings.push(finding(
                FindingKind::SitemapOrphan,
                &url,
                "no link from the crawled pages leads here".to_string(),
            )),
            Some((verdict, reason)) if *verdict != Verdict::Indexable => {
                let detail = match reason {
                    Some(reason) => format!("{verdict}: {reason}"),
                    None => verdict.to_string(),
                };
                findings.push(finding(FindingKind::SitemapNotIndexable, &url, detail));
            }
            Some(_) => {}
        }
        in_sitemaps.insert(url);
    }
    for (url, (verdict, _)) in &verdicts {
        if *verdict == Verdict::Indexable && !in_sitemaps.contains(url) {
            findings.push(finding(
                FindingKind::NotInSitemap,
                url,
                "indexable, but the site's sitemaps do not list it".to_string(),
            ));
        }
    }
    Ok(findings)
}
