//! The site's own sitemaps: whether the site offers them where search engines look, and the
//! gap between them and the crawl.

use std::collections::BTreeSet;

use sitemapper_store::{RunId, Store, StoreError, Verdict};

use crate::finding::{Finding, finding};
use crate::kind::FindingKind;

/// What the binary read of the site's own sitemaps.
#[derive(Debug, Clone, Copy)]
pub struct SiteSitemaps<'a> {
    /// How many sitemap files could be read.
    pub files_read: usize,
    /// Every distinct `<loc>` of those files, as written.
    pub urls: &'a BTreeSet<String>,
    /// `(sitemap URL, problem)` for each sitemap that answered and is not a valid sitemap.
    pub unreadable: &'a [(String, String)],
    /// `(sitemap URL, why)` for each sitemap that could not be fetched.
    pub not_fetched: &'a [(String, String)],
    /// The sitemaps on another site, not read.
    pub other_sites: &'a [String],
    /// The site's root (the crawl's scope): where a site without a sitemap is reported.
    pub site: &'a str,
    /// The URL of the site's robots.txt, and what it answered.
    pub robots_txt: (&'a str, RobotsTxt),
    /// The sitemap files read that no index listed, and how each was found.
    pub found: &'a [(String, FoundBy)],
    /// What the audit found asking the site beyond its pages.
    pub probe: &'a crate::site_probe::SiteProbe,
}

/// What the site's robots.txt answered, as far as the audit is concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RobotsTxt {
    /// It was read.
    Found,
    /// It answered 404 or 410: the site has none.
    Missing,
    /// Nothing is known: it was ignored by request, refused (401, 403) or unreachable.
    Unknown,
}

/// How a sitemap of the site was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FoundBy {
    /// A `Sitemap:` line of robots.txt names it.
    RobotsTxt,
    /// At a path where sites put sitemaps (`/sitemap.xml`...), robots.txt naming none.
    UsualPath,
    /// The user named it (`--sitemap`).
    Given,
}

/// Whether search engines can find the site's sitemaps: no robots.txt at all, no sitemap
/// anywhere, or a sitemap only at a usual path, which robots.txt does not name (search
/// engines other than those the site submits it to may then never read it). A sitemap that
/// is named but cannot be read or fetched, or is on another site, is a finding of its own,
/// not "no sitemap".
pub(crate) fn discovery_findings(sitemaps: &SiteSitemaps<'_>) -> Vec<Finding> {
    let mut findings = Vec::new();
    let (robots_url, robots_txt) = sitemaps.robots_txt;
    if robots_txt == RobotsTxt::Missing {
        findings.push(finding(
            FindingKind::NoRobotsTxt,
            robots_url,
            "robots.txt answers 404 or 410".to_string(),
        ));
    }
    if sitemaps.files_read == 0
        && sitemaps.unreadable.is_empty()
        && sitemaps.not_fetched.is_empty()
        && sitemaps.other_sites.is_empty()
    {
        findings.push(finding(
            FindingKind::NoSitemap,
            sitemaps.site,
            "no sitemap named in robots.txt, and none at the usual paths".to_string(),
        ));
    }
    if robots_txt != RobotsTxt::Unknown {
        for (url, found_by) in sitemaps.found {
            if *found_by == FoundBy::UsualPath {
                findings.push(finding(
                    FindingKind::SitemapNotInRobots,
                    url,
                    format!("no Sitemap: line of {robots_url} names it"),
                ));
            }
        }
    }
    findings
}

/// Sitemaps that cannot be read, sitemap URLs no link of the crawled pages leads to (whether
/// the crawl read them through the sitemaps or not at all), sitemap URLs found not
/// indexable, and indexable pages the sitemaps leave out. `normalize` turns a `<loc>` into the crawl's
/// form of the URL, or says it is not an absolute http(s) URL.
pub(crate) fn sitemap_findings(
    store: &Store,
    run: RunId,
    sitemaps: &SiteSitemaps<'_>,
    normalize: &dyn Fn(&str) -> Option<String>,
) -> Result<Vec<Finding>, StoreError> {
    let mut findings: Vec<Finding> = sitemaps
        .unreadable
        .iter()
        .map(|(url, problem)| finding(FindingKind::SitemapUnreadable, url, problem.clone()))
        .collect();
    findings.extend(
        sitemaps
            .not_fetched
            .iter()
            .map(|(url, why)| finding(FindingKind::SitemapNotFetched, url, why.clone())),
    );
    findings.extend(sitemaps.other_sites.iter().map(|url| {
        finding(
            FindingKind::SitemapOnOtherSite,
            url,
            "not read: on another host than the site's".to_string(),
        )
    }));
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
        // Not crawled at all, or crawled only because the sitemaps seeded the crawl: either
        // way no link leads here.
        let crawled = verdicts.get(&url);
        if crawled.is_none() || !store.is_reached_by_links(run, &url)? {
            findings.push(finding(
                FindingKind::SitemapOrphan,
                &url,
                "no link from the crawled pages leads here".to_string(),
            ));
        }
        match crawled {
            None => {}
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
