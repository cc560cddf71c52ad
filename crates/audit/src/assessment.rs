//! How much the findings weigh together: each kind's priority, the site health score, and
//! what changed since the previous audit. docs/audit.md states the formulas.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use sitemapper_store::{AuditRecord, RecordedFinding, RunId, Store, StoreError};

use crate::{Finding, FindingKind, Severity};

/// What to fix first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Priority {
    /// Fix first.
    High,
    /// Fix next.
    Medium,
    /// When there is time.
    Low,
}

impl Priority {
    /// The word reports use for it.
    pub fn as_str(self) -> &'static str {
        match self {
            Priority::High => "high",
            Priority::Medium => "medium",
            Priority::Low => "low",
        }
    }
}

/// A warning that touches at least this share of the audited URLs is high priority.
pub const HIGH_WARNING_SHARE: f64 = 0.10;
/// A notice that touches at least this share of the audited URLs is medium priority.
pub const MEDIUM_NOTICE_SHARE: f64 = 0.25;

/// The priority of a kind that touches `touched` of the `audited` URLs: errors are high;
/// warnings high when they touch [`HIGH_WARNING_SHARE`] of the URLs or more, medium
/// otherwise; notices medium from [`MEDIUM_NOTICE_SHARE`], low otherwise.
pub fn priority(kind: FindingKind, touched: usize, audited: usize) -> Priority {
    let share = touched as f64 / audited.max(1) as f64;
    match kind.severity() {
        Severity::Error => Priority::High,
        Severity::Warning if share >= HIGH_WARNING_SHARE => Priority::High,
        Severity::Warning => Priority::Medium,
        Severity::Notice if share >= MEDIUM_NOTICE_SHARE => Priority::Medium,
        Severity::Notice => Priority::Low,
    }
}

/// How much a URL's worst finding takes from the score.
fn weight(severity: Severity) -> f64 {
    match severity {
        Severity::Error => 1.0,
        Severity::Warning => 0.5,
        Severity::Notice => 0.1,
    }
}

/// Each URL findings name, with its worst finding.
fn worst_findings(findings: &[Finding]) -> HashMap<&str, Severity> {
    let mut worst: HashMap<&str, Severity> = HashMap::new();
    for finding in findings {
        let severity = finding.kind.severity();
        worst
            .entry(finding.url.as_str())
            .and_modify(|known| *known = (*known).min(severity))
            .or_insert(severity);
    }
    worst
}

/// How many URLs an audit covers: those the crawl recorded, and those findings name that the
/// crawl did not (a URL only the site's sitemap lists, a sitemap file, robots.txt).
pub fn audited_urls(findings: &[Finding], crawled: &BTreeSet<String>) -> usize {
    let worst = worst_findings(findings);
    crawled.len() + worst.keys().filter(|url| !crawled.contains(**url)).count()
}

/// The site health score, 0 to 100: each of the [`audited_urls`] weighs by its worst finding
/// (an error 1, a warning 0.5, a notice 0.1, none 0), and the score is 100 times one minus
/// the mean weight, rounded down. A site where every URL is clean scores 100; one where
/// every URL has an error scores 0.
pub fn health_score(findings: &[Finding], crawled: &BTreeSet<String>) -> u32 {
    let audited = audited_urls(findings, crawled);
    if audited == 0 {
        return 100;
    }
    let lost: f64 = worst_findings(findings).values().copied().map(weight).sum();
    let score = 100.0 * (1.0 - lost / audited as f64);
    // Rounded down, so that one error among many URLs still shows as less than 100.
    (score.floor().clamp(0.0, 100.0)) as u32
}

/// Whether a finding is new since the previous audit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Change {
    /// The previous audit did not have it.
    New,
    /// The previous audit had it too.
    Persisting,
    /// The previous audit had it and this one has not.
    Fixed,
}

impl Change {
    /// The word reports use for it.
    pub fn as_str(self) -> &'static str {
        match self {
            Change::New => "new",
            Change::Persisting => "persisting",
            Change::Fixed => "fixed",
        }
    }
}

/// This audit against the previous one: a finding is the same when its kind and URL are
/// (its particulars, a response time or a list of pages, may move).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Comparison {
    /// For each finding of this audit, in its order: new or persisting.
    pub changes: Vec<Change>,
    /// The previous audit's findings this one has not, one per kind and URL, by code and URL.
    pub fixed: Vec<RecordedFinding>,
}

/// Marks `findings` against `previous`, the findings of the previous audit.
pub fn compare(findings: &[Finding], previous: &[RecordedFinding]) -> Comparison {
    let before: BTreeSet<(&str, &str)> = previous
        .iter()
        .map(|finding| (finding.code.as_str(), finding.url.as_str()))
        .collect();
    let now: BTreeSet<(&str, &str)> = findings
        .iter()
        .map(|finding| (finding.kind.code(), finding.url.as_str()))
        .collect();
    let changes = findings
        .iter()
        .map(|finding| {
            if before.contains(&(finding.kind.code(), finding.url.as_str())) {
                Change::Persisting
            } else {
                Change::New
            }
        })
        .collect();
    let mut fixed: BTreeMap<(&str, &str), &RecordedFinding> = BTreeMap::new();
    for finding in previous {
        let key = (finding.code.as_str(), finding.url.as_str());
        if !now.contains(&key) {
            fixed.entry(key).or_insert(finding);
        }
    }
    Comparison {
        changes,
        fixed: fixed.into_values().cloned().collect(),
    }
}

/// The findings as the crawl database keeps them for the next audit.
pub fn recorded(findings: &[Finding]) -> Vec<RecordedFinding> {
    findings
        .iter()
        .map(|finding| RecordedFinding {
            code: finding.kind.code().to_string(),
            url: finding.url.clone(),
            detail: finding.detail.clone(),
        })
        .collect()
}

/// What this audit is compared with: the previous audit and its findings.
#[derive(Debug, Default)]
pub struct Assessment {
    /// The health score of this audit.
    pub score: u32,
    /// The URLs it covers (see [`audited_urls`]).
    pub audited: usize,
    /// The previous audit of the site, if any.
    pub previous: Option<AuditRecord>,
    /// This audit's findings against the previous one's (empty marks without one).
    pub comparison: Comparison,
    /// Every audit the database keeps, this one included, oldest first.
    pub trend: Vec<AuditRecord>,
}

impl Assessment {
    /// Scores `findings`, compares them with the previous audit of the site, and records
    /// this audit for the next one.
    pub fn record(
        store: &mut Store,
        run: RunId,
        findings: &[Finding],
        crawled: &BTreeSet<String>,
    ) -> Result<Assessment, StoreError> {
        let score = health_score(findings, crawled);
        let audited = audited_urls(findings, crawled);
        let previous = store.previous_audit(run)?;
        let comparison = match &previous {
            Some(previous) => compare(findings, &store.audit_findings(previous.run)?),
            None => Comparison::default(),
        };
        store.record_audit(run, score, &recorded(findings))?;
        Ok(Assessment {
            score,
            audited,
            previous,
            comparison,
            trend: store.audits()?,
        })
    }

    /// The mark of the finding at `index`, when there is a previous audit.
    pub fn change(&self, index: usize) -> Option<Change> {
        self.comparison.changes.get(index).copied()
    }

    /// The previous audit's findings fixed since, with their kind (codes this build no longer
    /// knows are left out).
    pub fn fixed(&self) -> impl Iterator<Item = (FindingKind, &RecordedFinding)> {
        self.comparison
            .fixed
            .iter()
            .filter_map(|finding| Some((FindingKind::from_code(&finding.code)?, finding)))
    }
}
