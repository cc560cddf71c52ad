//! A finished audit, as the audit's summaries (text and JSON) and the report read it: the
//! crawl, its findings, the site's own sitemaps, the comparison with the previous audit, and
//! the counts said of them.

use std::collections::BTreeMap;
use std::path::PathBuf;

use sitemapper_audit::{Assessment, Finding, FindingKind, Severity};
use sitemapper_report::{OutboundRow, ReportError};
use sitemapper_site::{OutboundChecked, SiteRun, SitemapsFound};

/// A finished audit: the crawl, its findings, the site's own sitemaps, and how the findings
/// compare with the previous audit.
#[derive(Debug)]
pub(super) struct Audited {
    pub(super) crawled: SiteRun,
    pub(super) findings: Vec<Finding>,
    pub(super) sitemaps: SitemapsFound,
    pub(super) assessment: Assessment,
    /// What the check of the links to other sites did; `None` with `--check-external=false`.
    pub(super) outbound: Option<OutboundChecked>,
    /// The links to other sites and their results, as the report has them.
    pub(super) outbound_rows: Vec<OutboundRow>,
    /// With `--pdf`: report.pdf, or why it was not written.
    pub(super) pdf: Option<Result<PathBuf, ReportError>>,
}

/// Findings at `level` or worse.
pub(super) fn failing(findings: &[Finding], level: Severity) -> usize {
    findings
        .iter()
        .filter(|finding| finding.kind.severity() <= level)
        .count()
}

/// Findings counted by severity and kind, most severe first.
pub(super) fn kind_counts(findings: &[Finding]) -> BTreeMap<(Severity, FindingKind), usize> {
    let mut by_kind = BTreeMap::new();
    for finding in findings {
        *by_kind
            .entry((finding.kind.severity(), finding.kind))
            .or_default() += 1;
    }
    by_kind
}
