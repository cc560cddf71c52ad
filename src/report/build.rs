//! The report's data: the findings summed up by kind with their priority and advice, marked
//! against the previous audit of the site, the score and its trend, and the pages with their
//! links for the drill-down.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use sitemapper_audit::{Assessment, Change, Finding, FindingKind, Priority, Severity};
use sitemapper_store::{RunId, Store, StoreError};

use super::model::{
    ActionRow, FindingRow, KindSummary, LINKS_PER_PAGE, LinkRow, Logo, PageCounts, PageRow,
    PreviousAudit, Score, TrendPoint,
};

/// The agency's branding of the report.
#[derive(Debug, Default)]
pub(crate) struct Branding {
    /// `--title`; `None`: "Site audit: SITE".
    pub(crate) title: Option<String>,
    pub(crate) logo: Option<Logo>,
}

/// One kind's findings: how many, how many URLs, new and fixed.
#[derive(Debug, Default)]
struct KindTally {
    count: u64,
    urls: BTreeSet<String>,
    new: u64,
    fixed: u64,
}

/// The kinds with findings now or fixed since, each with its priority, in report order:
/// priority, then severity, then the most findings first, then code.
pub(crate) fn kind_summaries(findings: &[Finding], assessment: &Assessment) -> Vec<KindSummary> {
    let mut tallies: BTreeMap<FindingKind, KindTally> = BTreeMap::new();
    for (index, finding) in findings.iter().enumerate() {
        let tally = tallies.entry(finding.kind).or_default();
        tally.count += 1;
        tally.urls.insert(finding.url.clone());
        if assessment.change(index) == Some(Change::New) {
            tally.new += 1;
        }
    }
    for (kind, _) in assessment.fixed() {
        tallies.entry(kind).or_default().fixed += 1;
    }
    let mut kinds: Vec<(Priority, Severity, KindSummary)> = tallies
        .into_iter()
        .map(|(kind, tally)| {
            let priority = sitemapper_audit::priority(kind, tally.urls.len(), assessment.audited);
            let summary = KindSummary {
                code: kind.code(),
                title: kind.title(),
                severity: kind.severity().as_str(),
                priority: priority.as_str(),
                why: kind.why(),
                fix: kind.fix(),
                count: tally.count,
                new: tally.new,
                fixed: tally.fixed,
            };
            (priority, kind.severity(), summary)
        })
        .collect();
    kinds.sort_by(|first, second| {
        (
            first.0,
            first.1,
            std::cmp::Reverse(first.2.count),
            first.2.code,
        )
            .cmp(&(
                second.0,
                second.1,
                std::cmp::Reverse(second.2.count),
                second.2.code,
            ))
    });
    kinds.into_iter().map(|(_, _, summary)| summary).collect()
}

/// The findings in the order of `kinds`, then by URL, with their marks; and the fixed ones.
pub(crate) fn finding_rows(
    findings: &[Finding],
    assessment: &Assessment,
    kinds: &[KindSummary],
) -> (Vec<FindingRow>, Vec<FindingRow>) {
    let order: HashMap<&str, usize> = kinds
        .iter()
        .enumerate()
        .map(|(position, kind)| (kind.code, position))
        .collect();
    let mut rows: Vec<(usize, FindingRow)> = findings
        .iter()
        .enumerate()
        .map(|(index, finding)| {
            let row = FindingRow {
                code: finding.kind.code(),
                url: finding.url.clone(),
                detail: finding.detail.clone(),
                referrers: finding.referrers.clone(),
                change: assessment.change(index).map(Change::as_str),
            };
            (order.get(row.code).copied().unwrap_or(usize::MAX), row)
        })
        .collect();
    rows.sort_by(|first, second| (first.0, &first.1.url).cmp(&(second.0, &second.1.url)));
    let fixed = assessment
        .fixed()
        .map(|(kind, finding)| FindingRow {
            code: kind.code(),
            url: finding.url.clone(),
            detail: finding.detail.clone(),
            referrers: Vec::new(),
            change: Some(Change::Fixed.as_str()),
        })
        .collect();
    (rows.into_iter().map(|(_, row)| row).collect(), fixed)
}

/// The score, its trend, and what this audit is compared with.
pub(crate) fn score_parts(
    assessment: &Assessment,
) -> (Score, Vec<TrendPoint>, Option<PreviousAudit>) {
    let score = Score {
        value: assessment.score,
        previous: assessment.previous.map(|previous| previous.score),
        rule: sitemapper_audit::SCORE_RULE,
    };
    let trend = assessment
        .trend
        .iter()
        .map(|audit| TrendPoint {
            run: audit.run.0,
            date: audit.finished_at.strftime("%Y-%m-%d").to_string(),
            score: audit.score,
        })
        .collect();
    let compared_with = assessment.previous.map(|previous| PreviousAudit {
        run: previous.run.0,
        generated_at: previous
            .finished_at
            .strftime("%Y-%m-%d %H:%M UTC")
            .to_string(),
    });
    (score, trend, compared_with)
}

/// The actions that would raise the score most, with their advice.
pub(crate) fn actions(assessment: &Assessment) -> Vec<ActionRow> {
    assessment
        .actions
        .iter()
        .map(|action| ActionRow {
            code: action.kind.code(),
            title: action.kind.title(),
            severity: action.kind.severity().as_str(),
            count: action.findings as u64,
            gain: (action.gain * 10.0).round() / 10.0,
            fix: action.kind.fix(),
        })
        .collect()
}

/// Every URL of the run with its link counts, and the links between them for the
/// drill-down (at most [`LINKS_PER_PAGE`] out of and into each page).
pub(crate) fn pages_and_links(
    store: &Store,
    run: RunId,
    extracted: &HashMap<String, BTreeMap<String, Vec<String>>>,
    extract_names: &[String],
) -> Result<(Vec<PageRow>, Vec<LinkRow>, PageCounts), StoreError> {
    let mut pages = Vec::new();
    let mut counts = PageCounts::default();
    store.for_each_page(run, |page, _| -> Result<(), StoreError> {
        counts.pages += 1;
        let status = page
            .status
            .map_or_else(|| "none".to_string(), |status| status.to_string());
        *counts.status_codes.entry(status).or_default() += 1;
        if page.verdict == sitemapper_store::Verdict::Indexable {
            counts.listed += 1;
            *counts.depths.entry(page.depth).or_default() += 1;
        }
        let values = extracted.get(&page.url);
        pages.push(PageRow {
            extracted: extract_names
                .iter()
                .map(|name| {
                    values
                        .and_then(|values| values.get(name))
                        .map(|values| values.join(" | "))
                        .unwrap_or_default()
                })
                .collect(),
            url: page.url,
            status: page.status,
            verdict: page.verdict.to_string(),
            reason: page.reason.map(|reason| reason.code().into_owned()),
            depth: page.depth,
            title_length: title_length(page.title.as_deref()),
            word_count: page.details.as_ref().and_then(|details| details.word_count),
            title: page.title,
            bytes: page.body_bytes,
            elapsed_ms: page.elapsed_ms,
            inlinks: 0,
            outlinks: 0,
        });
        Ok(())
    })?;
    let index: HashMap<String, usize> = pages
        .iter()
        .enumerate()
        .map(|(position, page)| (page.url.clone(), position))
        .collect();
    let mut links = Vec::new();
    let mut embedded_in = vec![0usize; pages.len()];
    let mut embedded_out = vec![0usize; pages.len()];
    store.for_each_link(run, |link| -> Result<(), StoreError> {
        let Some(&source) = index.get(link.source) else {
            return Ok(());
        };
        pages[source].outlinks += 1;
        let Some(&target) = index.get(link.target) else {
            return Ok(());
        };
        pages[target].inlinks += 1;
        if embedded_out[source] < LINKS_PER_PAGE && embedded_in[target] < LINKS_PER_PAGE {
            embedded_out[source] += 1;
            embedded_in[target] += 1;
            links.push(LinkRow {
                source,
                target,
                kind: link.kind.code(),
                anchor: link.anchor.unwrap_or_default().to_string(),
                nofollow: link.nofollow,
            });
        }
        Ok(())
    })?;
    Ok((pages, links, counts))
}

/// Findings per severity, every severity present.
pub(crate) fn severities(findings: &[Finding]) -> BTreeMap<&'static str, u64> {
    let mut severities: BTreeMap<&'static str, u64> =
        [Severity::Error, Severity::Warning, Severity::Notice]
            .into_iter()
            .map(|severity| (severity.as_str(), 0))
            .collect();
    for finding in findings {
        *severities
            .entry(finding.kind.severity().as_str())
            .or_default() += 1;
    }
    severities
}

/// A page title's length as search engines count it: in characters, not bytes.
pub(crate) fn title_length(title: Option<&str>) -> Option<u64> {
    title.map(|title| title.chars().count() as u64)
}

/// The report's title: the one given, or "Site audit: SITE".
pub(crate) fn title(given: Option<&str>, site: &str) -> String {
    match given.map(str::trim).filter(|title| !title.is_empty()) {
        Some(title) => title.to_string(),
        None => format!("Site audit: {site}"),
    }
}
