//! How much the findings weigh together: each kind's priority, the site health score, and
//! what changed since the previous audit. docs/audit.md states the formulas.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use sitemapper_store::{AuditRecord, RecordedFinding, RunId, Store, StoreError};

use crate::finding::Finding;
use crate::kind::{FindingKind, Severity};

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
        Severity::Notice | Severity::Info => Priority::Low,
    }
}

/// How much a URL's worst finding takes from the score: an error all of it, a warning a
/// quarter, a notice nothing (notices are worth a look, not a fault: a site whose only
/// findings are notices and a few warnings scores 80 or more).
fn weight(severity: Severity) -> f64 {
    match severity {
        Severity::Error => 1.0,
        Severity::Warning => 0.25,
        Severity::Notice | Severity::Info => 0.0,
    }
}

/// The score's rule in one sentence, for the report (docs/audit.md, "Health score", says more).
pub const SCORE_RULE: &str = "Each audited URL of the site counts 1 when it has no error or warning, 0.75 when its worst finding is a warning and 0 when it has an error; a link to another site that fails counts against the pages that link it. The score is their average times 100, rounded down. Notices do not lower it.";

/// Each URL of the site findings name, with its worst finding. A finding about a URL of
/// another site (a broken outbound link) is its linking pages': the score measures the
/// site's own URLs, so that checking more links can lower it and never raise it.
fn worst_findings<'a>(
    findings: impl IntoIterator<Item = &'a Finding>,
) -> HashMap<&'a str, Severity> {
    let mut worst: HashMap<&str, Severity> = HashMap::new();
    let mut note = |url: &'a str, severity: Severity| {
        worst
            .entry(url)
            .and_modify(|known| *known = (*known).min(severity))
            .or_insert(severity);
    };
    for finding in findings {
        let severity = finding.kind.severity();
        if severity == Severity::Info {
            // What the site says, not a fault: nothing to weigh, and no URL to count.
            continue;
        }
        if finding.kind.weighs_on_referrers() {
            for referrer in &finding.referrers {
                note(referrer.as_str(), severity);
            }
        } else {
            note(finding.url.as_str(), severity);
        }
    }
    worst
}

/// How many URLs an audit covers: those the crawl recorded, and those of the site findings
/// name that the crawl did not (a URL only the site's sitemap lists, a sitemap file,
/// robots.txt). A URL of another site is none of them.
pub fn audited_urls(findings: &[Finding], crawled: &BTreeSet<String>) -> usize {
    let worst = worst_findings(findings);
    crawled.len() + worst.keys().filter(|url| !crawled.contains(**url)).count()
}

/// The score before it is rounded: 100 times one minus the mean weight of `audited` URLs.
pub(crate) fn exact_score<'a>(
    findings: impl IntoIterator<Item = &'a Finding>,
    audited: usize,
) -> f64 {
    if audited == 0 {
        return 100.0;
    }
    let lost: f64 = worst_findings(findings).values().copied().map(weight).sum();
    100.0 * (1.0 - lost / audited as f64)
}

/// The site health score, 0 to 100: each of the [`audited_urls`] weighs by its worst finding
/// (an error 1, a warning 0.25, a notice or none 0), and the score is 100 times one minus
/// the mean weight, rounded down ([`SCORE_RULE`]). A site where every URL is clean scores
/// 100; one where every URL has an error scores 0.
pub fn health_score(findings: &[Finding], crawled: &BTreeSet<String>) -> u32 {
    let score = exact_score(findings, audited_urls(findings, crawled));
    // Rounded down, so that one error among many URLs still shows as less than 100.
    (score.floor().clamp(0.0, 100.0)) as u32
}

/// Fixing every finding of one kind, and what it would do to the score.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Action {
    /// The kind to fix.
    pub kind: FindingKind,
    /// Its findings.
    pub findings: usize,
    /// Points the score would gain (before rounding) with the other findings as they are,
    /// or with the kinds before it fixed too when [`Action::with_those_before`].
    pub gain: f64,
    /// No kind raises the score on its own (the URLs with findings have several kinds): this
    /// one is fixed together with the actions before it, and `gain` is what they give
    /// together.
    pub with_those_before: bool,
}

/// The most actions the report puts first.
pub const TOP_ACTIONS: usize = 5;

/// What would raise the score most: for each kind of finding, the score with its findings
/// fixed and every other finding as it is, against the score now (the audited URLs stay
/// the same). At most [`TOP_ACTIONS`] kinds whose fixing raises the score, largest gain
/// first (then the more severe, then the more findings). Fixing a kind raises nothing where
/// its URLs have a finding as bad of another kind: when that is so of every kind, and
/// findings still lower the score, the kinds that raise it together (docs/audit.md, "What to fix first").
pub fn top_actions(findings: &[Finding], crawled: &BTreeSet<String>) -> Vec<Action> {
    let audited = audited_urls(findings, crawled);
    let now = exact_score(findings, audited);
    let counts = counts_of(findings);
    let gains = standalone_gains(findings, audited);
    let mut actions: Vec<Action> = counts
        .iter()
        .map(|(&kind, &count)| Action {
            kind,
            findings: count,
            gain: gains.get(&kind).copied().unwrap_or(0.0),
            with_those_before: false,
        })
        // Below a hundredth of a point, the gain is rounding noise.
        .filter(|action| action.gain >= 0.01)
        .collect();
    actions.sort_by(|first, second| {
        second
            .gain
            .total_cmp(&first.gain)
            .then(first.kind.severity().cmp(&second.kind.severity()))
            .then(second.findings.cmp(&first.findings))
            .then(first.kind.cmp(&second.kind))
    });
    actions.truncate(TOP_ACTIONS);
    if actions.is_empty() {
        return together(findings, audited, now, &counts);
    }
    actions
}

/// What fixing each kind alone gives the score, in one pass over the findings: a URL gains
/// when the kind is the only one at its worst severity there, from that severity's weight to
/// the weight of the next worst kind. The same as the score without the kind's findings less
/// the score now, without scoring once per kind.
pub(crate) fn standalone_gains(findings: &[Finding], audited: usize) -> HashMap<FindingKind, f64> {
    let mut by_url = kinds_by_url(findings);
    let mut gains: HashMap<FindingKind, f64> = HashMap::new();
    for kinds in by_url.values_mut() {
        kinds.sort_unstable();
        let (worst, kind) = kinds[0];
        let alone = kinds.get(1).is_none_or(|next| next.0 != worst);
        if alone {
            let next = kinds.get(1).map_or(0.0, |next| weight(next.0));
            *gains.entry(kind).or_default() += weight(worst) - next;
        }
    }
    let audited = audited.max(1) as f64;
    gains
        .into_iter()
        .map(|(kind, lost)| (kind, 100.0 * lost / audited))
        .collect()
}

/// The kinds of finding (not information) that weigh on each URL, with their severity.
fn kinds_by_url<'a>(
    findings: impl IntoIterator<Item = &'a Finding>,
) -> HashMap<&'a str, Vec<(Severity, FindingKind)>> {
    let mut by_url: HashMap<&'a str, Vec<(Severity, FindingKind)>> = HashMap::new();
    for finding in findings {
        let severity = finding.kind.severity();
        if severity == Severity::Info {
            continue;
        }
        let mut note = |url: &'a str| {
            let kinds = by_url.entry(url).or_default();
            if !kinds.contains(&(severity, finding.kind)) {
                kinds.push((severity, finding.kind));
            }
        };
        if finding.kind.weighs_on_referrers() {
            for referrer in &finding.referrers {
                note(referrer.as_str());
            }
        } else {
            note(finding.url.as_str());
        }
    }
    by_url
}

/// For each kind, the URLs where it is among the worst findings (errors before warnings):
/// those its fixing takes a step towards clean.
fn worst_urls_by_kind<'a>(
    findings: impl IntoIterator<Item = &'a Finding>,
) -> HashMap<FindingKind, usize> {
    let mut worst: HashMap<FindingKind, usize> = HashMap::new();
    for kinds in kinds_by_url(findings).into_values() {
        let Some(&(worst_severity, _)) = kinds.iter().min() else {
            continue;
        };
        for (severity, kind) in kinds {
            if severity == worst_severity {
                *worst.entry(kind).or_default() += 1;
            }
        }
    }
    worst
}

/// How many findings each kind has.
fn counts_of(findings: &[Finding]) -> BTreeMap<FindingKind, usize> {
    let mut counts: BTreeMap<FindingKind, usize> = BTreeMap::new();
    for finding in findings {
        *counts.entry(finding.kind).or_default() += 1;
    }
    counts
}

/// The kinds that raise the score fixed together, when none does alone: chosen one at a time,
/// each the kind that with those before it raises the score most (gains under a hundredth of
/// a point counting as none), then the one at the worst severity of more URLs, then the one
/// with more findings; at most [`TOP_ACTIONS`], ending with the last that raises it; each with
/// the gain of it and those before it fixed. Empty when fixing them all raises nothing.
fn together(
    findings: &[Finding],
    audited: usize,
    now: f64,
    counts: &BTreeMap<FindingKind, usize>,
) -> Vec<Action> {
    let mut fixed: BTreeSet<FindingKind> = BTreeSet::new();
    let mut chosen: Vec<Action> = Vec::new();
    for _ in 0..TOP_ACTIONS {
        let left = || {
            findings
                .iter()
                .filter(|finding| !fixed.contains(&finding.kind))
        };
        let worst_of = worst_urls_by_kind(left());
        let best = counts
            .iter()
            .filter(|(kind, _)| !fixed.contains(*kind) && weight(kind.severity()) > 0.0)
            .map(|(kind, count)| {
                let score = exact_score(left().filter(|finding| finding.kind != *kind), audited);
                let gain = score - now;
                let counted = if gain >= 0.01 { gain } else { 0.0 };
                let worst = worst_of.get(kind).copied().unwrap_or(0);
                (*kind, *count, gain, counted, worst)
            })
            .max_by(|first, second| {
                first
                    .3
                    .total_cmp(&second.3)
                    .then(first.4.cmp(&second.4))
                    .then(first.1.cmp(&second.1))
                    .then(second.0.cmp(&first.0))
            });
        let Some((kind, count, gain, _, _)) = best else {
            break;
        };
        fixed.insert(kind);
        chosen.push(Action {
            kind,
            findings: count,
            gain,
            with_those_before: true,
        });
    }
    // Below a hundredth of a point, the gain is rounding noise: the kinds after the last that
    // raises the score are left out.
    let raising = chosen
        .iter()
        .rposition(|action| action.gain >= 0.01)
        .map_or(0, |last| last + 1);
    chosen.truncate(raising);
    chosen
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
    /// What would raise the score most ([`top_actions`]).
    pub actions: Vec<Action>,
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
            actions: top_actions(findings, crawled),
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
