//! The report's data: the findings summed up by kind with their priority and advice, marked
//! against the previous audit of the site, the score and its trend, and the pages with their
//! links for the drill-down.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use sitemapper_audit::{Assessment, Change, Finding, FindingKind, Priority, Severity};
use sitemapper_store::{RunId, Store, StoreError};

use crate::error::ReportError;
use crate::methodology::Methodology;
use crate::model::{
    ActionRow, FindingRow, KindSummary, LINKS_PER_PAGE, LinkRow, Logo, OutboundRow, PageCounts,
    PageRow, PreviousAudit, Report, Score, TrendPoint, title_length,
};
use crate::outbound::outbound_rows;

/// The agency's branding of the report.
#[derive(Debug, Clone, Default)]
pub struct Branding {
    /// The report's heading; `None`: "Site audit: SITE".
    pub title: Option<String>,
    /// The agency's logo, embedded in the heading (see [`read_logo`](crate::read_logo)).
    pub logo: Option<Logo>,
}

/// What a report is made of: the run of the crawl database the audit read, its findings and
/// their assessment, and the words around them.
#[derive(Debug)]
pub struct ReportInput<'a> {
    /// The crawl database.
    pub store: &'a Store,
    /// The run audited.
    pub run: RunId,
    /// The site audited: the crawl's scope root.
    pub site: String,
    /// The report's title and logo.
    pub branding: &'a Branding,
    /// When the audit ran, `YYYY-MM-DD HH:MM UTC`.
    pub generated_at: String,
    /// Host mappings of a staging copy (`staging -> production`), as stated in the heading.
    pub host_map: Vec<String>,
    /// How the audit was made.
    pub methodology: Methodology,
    /// The audit's findings.
    pub findings: &'a [Finding],
    /// The findings scored and compared with the previous audit.
    pub assessment: &'a Assessment,
    /// The site's own sitemap files read.
    pub site_sitemaps: Vec<String>,
    /// URLs those sitemaps list.
    pub site_sitemap_urls: usize,
    /// The run's pages and links, as [`Pages::read`] read them.
    pub pages: Pages,
}

/// Every URL of a run with its link counts, and the links between them for the drill-down:
/// what the audit's assessment is computed over, and what the report's pages show.
#[derive(Debug, Clone, Default)]
pub struct Pages {
    pages: Vec<PageRow>,
    links: Vec<LinkRow>,
    counts: PageCounts,
    extract_names: Vec<String>,
}

impl Pages {
    /// The pages of `run`, each with the values of the custom extractions `extract_names`
    /// (the columns pages.csv adds, in that order).
    pub fn read(
        store: &Store,
        run: RunId,
        extract_names: Vec<String>,
    ) -> Result<Pages, ReportError> {
        let extracted = if extract_names.is_empty() {
            HashMap::new()
        } else {
            store.extracted_values(run)?
        };
        let (pages, links, counts) = pages_and_links(store, run, &extracted, &extract_names)?;
        Ok(Pages {
            pages,
            links,
            counts,
            extract_names,
        })
    }

    /// The URLs of the pages.
    pub fn urls(&self) -> BTreeSet<String> {
        self.pages.iter().map(|page| page.url.clone()).collect()
    }
}

impl Report {
    /// The report of an audit: its findings summed up by kind and marked against the previous
    /// audit, its score and trend, its pages, and the links to other sites read from the
    /// crawl database.
    pub fn build(input: ReportInput<'_>) -> Result<Report, ReportError> {
        let ReportInput {
            store,
            run,
            site,
            branding,
            generated_at,
            host_map,
            methodology,
            findings,
            assessment,
            site_sitemaps,
            site_sitemap_urls,
            pages,
        } = input;
        let kinds = kind_summaries(findings, assessment);
        let (finding_rows, fixed) = finding_rows(findings, assessment, &kinds);
        let (score, trend, compared_with) = score_parts(assessment);
        Ok(Report {
            title: title(branding.title.as_deref(), &site),
            site,
            logo: branding.logo.clone(),
            generated_at,
            run: run.0,
            host_map,
            score,
            actions: actions(assessment),
            methodology,
            trend,
            compared_with,
            counts: pages.counts,
            severities: severities(findings),
            site_sitemaps,
            site_sitemap_urls,
            kinds,
            findings: finding_rows,
            fixed,
            extract_names: pages.extract_names,
            pages: pages.pages,
            links: pages.links,
            outbound: outbound_rows(store, run)?,
        })
    }

    /// The site audited.
    pub fn site(&self) -> &str {
        &self.site
    }

    /// The links to other sites and what their check found, by URL.
    pub fn outbound(&self) -> &[OutboundRow] {
        &self.outbound
    }

    /// The links to other sites, the report given up.
    pub fn into_outbound(self) -> Vec<OutboundRow> {
        self.outbound
    }
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
fn kind_summaries(findings: &[Finding], assessment: &Assessment) -> Vec<KindSummary> {
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
fn finding_rows(
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
fn score_parts(assessment: &Assessment) -> (Score, Vec<TrendPoint>, Option<PreviousAudit>) {
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
fn actions(assessment: &Assessment) -> Vec<ActionRow> {
    assessment
        .actions
        .iter()
        .map(|action| ActionRow {
            code: action.kind.code(),
            title: action.kind.title(),
            severity: action.kind.severity().as_str(),
            count: action.findings as u64,
            gain: (action.gain * 10.0).round() / 10.0,
            with_those_before: action.with_those_before,
            fix: action.kind.fix(),
        })
        .collect()
}

/// Every URL of the run with its link counts, and the links between them for the
/// drill-down (at most [`LINKS_PER_PAGE`] out of and into each page).
fn pages_and_links(
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
fn severities(findings: &[Finding]) -> BTreeMap<&'static str, u64> {
    let mut severities: BTreeMap<&'static str, u64> = Severity::ALL
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

/// The report's title: the one given, or "Site audit: SITE".
fn title(given: Option<&str>, site: &str) -> String {
    match given.map(str::trim).filter(|title| !title.is_empty()) {
        Some(title) => title.to_string(),
        None => format!("Site audit: {site}"),
    }
}
