//! The audit's summary as data (`--summary json`): the crawl's, then the findings counted by
//! severity and kind, and the report's files (docs/summary-json.md).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Serialize;
use sitemapper_audit::{Change, Severity};
use sitemapper_site::{CrawlJson, NotReadJson, SiteSettings, SitemapStory, path_text};
use sitemapper_store::StoreError;

use crate::audited::{Audited, failing, kind_counts};

/// The fields of `sitemapper audit --summary json` after the envelope.
#[derive(Debug, Serialize)]
pub struct AuditJson {
    /// The crawl's summary, as `sitemapper crawl --summary json` gives it.
    crawl: CrawlJson,
    site_sitemaps: SiteSitemapsJson,
    findings: FindingsJson,
    health: HealthJson,
    /// The links to other sites; null with `--check-external=false`.
    outbound: Option<OutboundJson>,
    report: ReportFilesJson,
    fail_on: Option<FailOnJson>,
}

/// The links to other sites, counted by what their checks found.
#[derive(Debug, Serialize)]
struct OutboundJson {
    urls: usize,
    checked: usize,
    from_cache: usize,
    broken: usize,
    blocked: usize,
    redirected: usize,
    not_checked: usize,
    /// Of `not_checked`, left by the checks' budget (`--external-max-links`,
    /// `--external-max-time`).
    not_checked_over_budget: usize,
    /// The network looked unavailable: the links were not checked.
    network_unavailable: bool,
}

#[derive(Debug, Serialize)]
struct SiteSitemapsJson {
    files: Vec<String>,
    urls: usize,
    /// Sitemaps requested that gave no sitemap (no answer, an error status, not a sitemap).
    problems: u64,
    /// Sitemaps not requested (another site's, disallowed by robots.txt).
    skipped: u64,
    /// Every sitemap not read, with why.
    not_read: Vec<NotReadJson>,
}

#[derive(Debug, Serialize)]
struct FindingsJson {
    total: usize,
    /// Every severity, with 0 where there are none.
    by_severity: BTreeMap<&'static str, usize>,
    /// The kinds found, most severe first.
    by_kind: Vec<KindCountJson>,
}

#[derive(Debug, Serialize)]
struct KindCountJson {
    kind: &'static str,
    severity: &'static str,
    title: &'static str,
    count: usize,
}

/// The health score, and what changed since the previous audit of the site.
#[derive(Debug, Serialize)]
struct HealthJson {
    score: u32,
    /// The previous audit's run and score; null for a site's first audit.
    previous: Option<PreviousJson>,
    /// Findings the previous audit did not have (0 for a first audit).
    new: usize,
    /// Findings of the previous audit this one has not.
    fixed: usize,
}

#[derive(Debug, Serialize)]
struct PreviousJson {
    run: i64,
    score: u32,
}

#[derive(Debug, Serialize)]
struct ReportFilesJson {
    directory: String,
    files: Vec<String>,
}

#[derive(Debug, Serialize)]
struct FailOnJson {
    severity: &'static str,
    /// Findings at that severity or worse.
    findings: usize,
}

impl AuditJson {
    /// The summary of `audited`, crawled with `settings`, whose report is `report_files` in
    /// `report`; `fail_on` is the level at which findings fail the audit, if any.
    pub fn new(
        audited: &Audited,
        settings: &SiteSettings,
        report: &Path,
        report_files: &[PathBuf],
        fail_on: Option<Severity>,
    ) -> Result<AuditJson, StoreError> {
        let findings = &audited.findings;
        let mut by_severity = BTreeMap::new();
        for severity in Severity::ALL {
            let count = findings
                .iter()
                .filter(|finding| finding.kind.severity() == severity)
                .count();
            by_severity.insert(severity.as_str(), count);
        }
        let by_kind = kind_counts(findings)
            .into_iter()
            .map(|((severity, kind), count)| KindCountJson {
                kind: kind.code(),
                severity: severity.as_str(),
                title: kind.title(),
                count,
            })
            .collect();
        let (skipped, unreadable) = SitemapStory::counts(&audited.sitemaps.not_read);
        Ok(AuditJson {
            crawl: CrawlJson::new(&audited.crawled, settings)?,
            site_sitemaps: SiteSitemapsJson {
                files: audited
                    .sitemaps
                    .files
                    .iter()
                    .map(ToString::to_string)
                    .collect(),
                urls: audited.sitemaps.urls.len(),
                problems: unreadable,
                skipped,
                not_read: NotReadJson::list(&audited.sitemaps.not_read),
            },
            findings: FindingsJson {
                total: findings.len(),
                by_severity,
                by_kind,
            },
            health: HealthJson {
                score: audited.assessment.score,
                previous: audited.assessment.previous.map(|previous| PreviousJson {
                    run: previous.run.0,
                    score: previous.score,
                }),
                new: audited
                    .assessment
                    .comparison
                    .changes
                    .iter()
                    .filter(|change| **change == Change::New)
                    .count(),
                fixed: audited.assessment.comparison.fixed.len(),
            },
            outbound: audited.outbound_tally().map(|tally| OutboundJson {
                urls: tally.urls,
                checked: tally.checked,
                from_cache: tally.from_cache,
                broken: tally.broken,
                blocked: tally.blocked,
                redirected: tally.redirected,
                not_checked: tally.unchecked,
                not_checked_over_budget: tally.over_budget,
                network_unavailable: tally.network_unavailable,
            }),
            report: ReportFilesJson {
                directory: path_text(report),
                files: report_files.iter().map(|path| path_text(path)).collect(),
            },
            fail_on: fail_on.map(|level| FailOnJson {
                severity: level.as_str(),
                findings: failing(findings, level),
            }),
        })
    }
}
