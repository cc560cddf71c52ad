//! The audit of sitemapper: what a crawl says is wrong with a site, as findings an agency can
//! hand to its client. This crate owns the rules: the kinds of finding, how much each hurts,
//! their texts and the thresholds. It reads the crawl database through the store's typed
//! queries and knows nothing of HTTP; the binary reads the site's own sitemaps and writes the
//! report files.

mod advice;
mod assessment;
mod catalogue;
mod database;
mod finding;
mod kind;
mod on_page;
mod outbound;
mod page_checks;
mod resources;
pub mod rich_results;
mod site_probe;
mod sitemaps;
mod structured_data;
mod videos;

pub use assessment::{
    Action, Assessment, Change, Comparison, HIGH_WARNING_SHARE, MEDIUM_NOTICE_SHARE, Priority,
    SCORE_RULE, TOP_ACTIONS, audited_urls, compare, health_score, priority, recorded, top_actions,
};
pub use catalogue::{
    CATALOGUE_END, CATALOGUE_START, THRESHOLDS_END, THRESHOLDS_START, catalogue, thresholds_table,
};
pub use database::thousands;
pub use finding::{Finding, THRESHOLD_OPTIONS, ThresholdOption, Thresholds};
pub use kind::{Category, FindingKind, Severity};
pub use outbound::{OUTBOUND_LINK_KINDS, OutboundResult};
pub use site_probe::{AI_CRAWLERS, AiCrawler, SiteProbe};
pub use sitemaps::{FoundBy, RobotsTxt, SiteSitemaps};
pub use videos::describe_incomplete_video;

use sitemapper_store::{RunId, Store, StoreError};

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
    let mut findings = database::site_findings(store, run, thresholds, sitemaps.site)?;
    findings.extend(sitemaps::discovery_findings(sitemaps));
    findings.extend(sitemaps::sitemap_findings(store, run, sitemaps, normalize)?);
    findings.extend(outbound::outbound_findings(store, run)?);
    findings.extend(resources::resource_findings(store, run, thresholds)?);
    findings.extend(site_probe::probe_findings(sitemaps.probe, sitemaps.site));
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
