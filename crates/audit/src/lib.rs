//! The audit of sitemapper: what a crawl says is wrong with a site, as findings an agency can
//! hand to its client. This crate owns the rules: the kinds of finding, how much each hurts,
//! their texts and the thresholds. It reads the crawl database through the store's typed
//! queries and knows nothing of HTTP; the binary reads the site's own sitemaps and writes the
//! report files.

mod advice;
mod assessment;
mod database;
mod kind;
mod on_page;
mod outbound;
pub mod rich_results;
mod sitemaps;
mod structured_data;
mod videos;

pub use assessment::{
    Action, Assessment, Change, Comparison, HIGH_WARNING_SHARE, MEDIUM_NOTICE_SHARE, Priority,
    SCORE_RULE, TOP_ACTIONS, audited_urls, compare, health_score, priority, recorded, top_actions,
};
pub use database::thousands;
pub use kind::{FindingKind, Severity};
pub use outbound::{OUTBOUND_LINK_KINDS, OutboundResult};
pub use sitemaps::{FoundBy, RobotsTxt, SiteSitemaps};
pub use videos::describe_incomplete_video;

use sitemapper_store::{RunId, Store, StoreError};

/// One problem, where it is, and who links there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// What is wrong.
    pub kind: FindingKind,
    /// The URL it is wrong with.
    pub url: String,
    /// The particulars, for a reader: a status, a chain of redirects, the other pages.
    pub detail: String,
    /// Pages of the run that link to `url`, sorted (for findings about link targets).
    pub referrers: Vec<String>,
}

/// The limits beyond which a page is flagged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Thresholds {
    /// Clicks from the start page.
    pub max_depth: u32,
    /// Response time, body included, in milliseconds.
    pub slow_ms: u64,
    /// Body size after decompression, in bytes.
    pub large_bytes: u64,
    /// Titles longer than this many characters are cut off in search results.
    pub title_max_chars: usize,
    /// Titles shorter than this many characters say too little.
    pub title_min_chars: usize,
    /// Meta descriptions longer than this many characters are cut off in search results.
    pub description_max_chars: usize,
}

impl Default for Thresholds {
    fn default() -> Self {
        Thresholds {
            max_depth: 4,
            slow_ms: 1_500,
            large_bytes: 1024 * 1024,
            title_max_chars: 60,
            title_min_chars: 30,
            description_max_chars: 155,
        }
    }
}

/// Every finding for `run`, in report order: what the crawl database supports (the checks of
/// the links to other sites among it, and of the listed pages' structured data), and how the site's own sitemaps compare with the crawl (`normalize` turns a `<loc>` into the crawl's
/// form of the URL, or says it is not an absolute http(s) URL).
pub fn findings(
    store: &Store,
    run: RunId,
    thresholds: &Thresholds,
    sitemaps: &SiteSitemaps<'_>,
    normalize: &dyn Fn(&str) -> Option<String>,
) -> Result<Vec<Finding>, StoreError> {
    let mut findings = database::site_findings(store, run, thresholds)?;
    findings.extend(sitemaps::discovery_findings(sitemaps));
    findings.extend(sitemaps::sitemap_findings(store, run, sitemaps, normalize)?);
    findings.extend(outbound::outbound_findings(store, run)?);
    findings.extend(structured_data::structured_findings(store, run)?);
    findings.extend(videos::video_findings(store, run)?);
    sort(&mut findings);
    Ok(findings)
}

/// Puts findings in report order: the most severe first, then by kind and URL.
fn sort(findings: &mut [Finding]) {
    findings.sort_by(|first, second| {
        (first.kind.severity(), first.kind, &first.url).cmp(&(
            second.kind.severity(),
            second.kind,
            &second.url,
        ))
    });
}

#[cfg(test)]
mod assessment_tests;
#[cfg(test)]
mod on_page_tests;
#[cfg(test)]
mod structured_data_tests;
#[cfg(test)]
mod tests;
