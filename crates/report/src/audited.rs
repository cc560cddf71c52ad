//! A finished audit, as its summaries (text and JSON) read it: the crawl, its findings, the
//! site's own sitemaps, the comparison with the previous audit, and the counts said of them.

use std::collections::BTreeMap;
use std::path::PathBuf;

use sitemapper_audit::{Assessment, Finding, FindingKind, OutboundResult, Severity};
use sitemapper_site::{OutboundChecked, ResourcesChecked, SiteRun, SitemapsFound};

use crate::error::ReportError;
use crate::model::OutboundRow;

/// A finished audit: the crawl, its findings, the site's own sitemaps, and how the findings
/// compare with the previous audit.
#[derive(Debug)]
pub struct Audited {
    /// The crawl, as the site crate ran it.
    pub crawled: SiteRun,
    /// What the audit found.
    pub findings: Vec<Finding>,
    /// The site's own sitemaps, read and compared with the crawl.
    pub sitemaps: SitemapsFound,
    /// The findings scored and compared with the previous audit.
    pub assessment: Assessment,
    /// What the check of the links to other sites did; `None` with `--check-external=false`.
    pub outbound: Option<OutboundChecked>,
    /// What the check of the site's resources (images, scripts, style sheets) did.
    pub resources: ResourcesChecked,
    /// The links to other sites and their results, as the report has them.
    pub outbound_rows: Vec<OutboundRow>,
    /// With `--pdf`: report.pdf, or why it was not written.
    pub pdf: Option<Result<PathBuf, ReportError>>,
}

/// Findings at `level` or worse.
pub fn failing(findings: &[Finding], level: Severity) -> usize {
    findings
        .iter()
        .filter(|finding| finding.kind.severity() <= level)
        .count()
}

/// Of the kinds of notice and information, a summary lists this many (the most numerous);
/// report.html lists them all.
pub const NOTE_KINDS_SHOWN: usize = 4;

/// The kinds a summary lists ([`summary_kinds`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SummaryKinds {
    /// Severity, kind and findings of each kind listed, in order.
    pub shown: Vec<(Severity, FindingKind, usize)>,
    /// The findings of the kinds left out.
    pub other_findings: usize,
    /// How many kinds are left out.
    pub other_kinds: usize,
}

impl SummaryKinds {
    /// The line that says what is left out, in the summary's columns, when anything is.
    pub fn more(&self) -> Option<String> {
        (self.other_kinds > 0).then(|| {
            format!(
                "  {:>7}  more     findings of {} other kinds, in the report",
                self.other_findings, self.other_kinds
            )
        })
    }
}

/// The kinds a summary lists, with their findings: every kind of error and warning, then the
/// [`NOTE_KINDS_SHOWN`] most numerous kinds of notice and information (all of them when
/// only one more would be left); and how much is left out.
pub fn summary_kinds(findings: &[Finding]) -> SummaryKinds {
    let (mut shown, mut notes): (Vec<_>, Vec<_>) = kind_counts(findings)
        .into_iter()
        .map(|((severity, kind), found)| (severity, kind, found))
        .partition(|(severity, _, _)| *severity <= Severity::Warning);
    notes.sort_by_key(|(severity, kind, found)| (*severity, std::cmp::Reverse(*found), *kind));
    let kept = if notes.len() > NOTE_KINDS_SHOWN + 1 {
        NOTE_KINDS_SHOWN
    } else {
        notes.len()
    };
    let rest = notes.split_off(kept);
    shown.extend(notes);
    SummaryKinds {
        shown,
        other_findings: rest.iter().map(|(_, _, found)| found).sum(),
        other_kinds: rest.len(),
    }
}

/// Findings counted by severity and kind, most severe first.
pub fn kind_counts(findings: &[Finding]) -> BTreeMap<(Severity, FindingKind), usize> {
    let mut by_kind = BTreeMap::new();
    for finding in findings {
        *by_kind
            .entry((finding.kind.severity(), finding.kind))
            .or_default() += 1;
    }
    by_kind
}

/// The links to other sites, counted by what their checks found.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct OutboundTally {
    /// Distinct URLs.
    pub urls: usize,
    /// Checked by this audit.
    pub checked: usize,
    /// Whose earlier check this audit reused.
    pub from_cache: usize,
    /// Answered with an error, or not at all.
    pub broken: usize,
    /// Refused the check (429, or 999 that some sites answer to anything not a browser).
    pub blocked: usize,
    /// Redirected elsewhere.
    pub redirected: usize,
    /// Disallowed by robots.txt, or not checked at all.
    pub unchecked: usize,
    /// Of those, left by the checks' budget (`--external-max-links`, `--external-max-time`).
    pub over_budget: usize,
    /// The network looked unavailable: those checked now were not recorded, and count as
    /// not checked.
    pub network_unavailable: bool,
}

impl OutboundTally {
    /// The tally of `rows`, `over_budget` of which the checks' budget left not checked.
    pub fn of(rows: &[OutboundRow], over_budget: usize) -> OutboundTally {
        let mut tally = OutboundTally {
            urls: rows.len(),
            over_budget,
            ..OutboundTally::default()
        };
        for row in rows {
            match row.outcome {
                OutboundResult::Broken => tally.broken += 1,
                OutboundResult::Blocked => tally.blocked += 1,
                OutboundResult::Redirected => tally.redirected += 1,
                OutboundResult::Disallowed | OutboundResult::NotChecked => {
                    tally.unchecked += 1;
                    continue;
                }
                OutboundResult::Working => {}
            }
            if row.cached {
                tally.from_cache += 1;
            } else {
                tally.checked += 1;
            }
        }
        tally
    }
}

impl Audited {
    /// The links to other sites counted; `None` when they were not checked.
    pub fn outbound_tally(&self) -> Option<OutboundTally> {
        self.outbound.map(|checked| OutboundTally {
            network_unavailable: checked.network_unavailable,
            ..OutboundTally::of(&self.outbound_rows, checked.not_checked)
        })
    }
}
