//! The report's data model filled from what the audit knows today: the findings as found,
//! summed up per kind, the pages of the run and the links between them. No score, trend or
//! comparison with an earlier audit yet: the kinds' priorities follow their severity and
//! their texts are left empty.

use std::collections::{BTreeMap, HashMap};

use sitemapper_audit::{Finding, FindingKind, Severity};

use super::files::PageCounts;
use super::model::{self, FindingRow, KindSummary, LinkRow, Logo, PageRow, Report};
use super::site_sitemaps::SiteSitemaps;
use crate::commands::crawl::Crawled;
use crate::settings::CrawlSettings;

/// What the report is called and shows of its author.
#[derive(Debug, Clone, Default)]
pub(super) struct Branding {
    /// `--title`; `None`: "Site audit: SITE".
    pub(super) title: Option<String>,
    pub(super) logo: Option<Logo>,
}

pub(super) fn build_report(
    crawled: &Crawled,
    settings: &CrawlSettings,
    findings: &[Finding],
    sitemaps: &SiteSitemaps,
    counts: &PageCounts,
    branding: &Branding,
) -> anyhow::Result<Report> {
    let site = crawled.summary.scope_root.to_string();
    let mut severities: BTreeMap<&'static str, u64> =
        [Severity::Error, Severity::Warning, Severity::Notice]
            .iter()
            .map(|severity| (severity.as_str(), 0))
            .collect();
    for finding in findings {
        *severities
            .entry(finding.kind.severity().as_str())
            .or_default() += 1;
    }
    let (pages, links) = pages_and_links(crawled)?;
    Ok(Report {
        title: branding
            .title
            .clone()
            .unwrap_or_else(|| format!("Site audit: {site}")),
        site,
        logo: branding.logo.clone(),
        generated_at: jiff::Timestamp::now()
            .strftime("%Y-%m-%d %H:%M UTC")
            .to_string(),
        run: crawled.run.0,
        host_map: settings.crawl.host_map.describe(),
        score: model::Score::default(),
        trend: Vec::new(),
        compared_with: None,
        counts: model::PageCounts {
            pages: counts.pages,
            listed: counts.listed,
            status_codes: counts.status_codes.clone(),
            depths: counts.depths.clone(),
        },
        severities,
        site_sitemaps: sitemaps.files.iter().map(ToString::to_string).collect(),
        site_sitemap_urls: sitemaps.urls.len(),
        kinds: kinds(findings),
        findings: findings
            .iter()
            .map(|finding| FindingRow {
                code: finding.kind.code(),
                url: finding.url.clone(),
                detail: finding.detail.clone(),
                referrers: finding.referrers.clone(),
                change: None,
            })
            .collect(),
        fixed: Vec::new(),
        extract_names: Vec::new(),
        pages,
        links,
    })
}

/// One summary per kind found, most severe first, then the most findings.
fn kinds(findings: &[Finding]) -> Vec<KindSummary> {
    let mut counts: BTreeMap<FindingKind, u64> = BTreeMap::new();
    for finding in findings {
        *counts.entry(finding.kind).or_default() += 1;
    }
    let mut kinds: Vec<KindSummary> = counts
        .into_iter()
        .map(|(kind, count)| KindSummary {
            code: kind.code(),
            title: kind.title(),
            severity: kind.severity().as_str(),
            priority: match kind.severity() {
                Severity::Error => "high",
                Severity::Warning => "medium",
                Severity::Notice => "low",
            },
            why: "",
            fix: "",
            count,
            new: 0,
            fixed: 0,
        })
        .collect();
    let rank = |severity: &str| match severity {
        "error" => 0,
        "warning" => 1,
        _ => 2,
    };
    kinds.sort_by(|a, b| {
        rank(a.severity)
            .cmp(&rank(b.severity))
            .then(b.count.cmp(&a.count))
    });
    kinds
}

/// Every page of the run, and the links between them (at most
/// [`model::LINKS_PER_PAGE`] each way per page), as `<a>` links without anchor text.
fn pages_and_links(crawled: &Crawled) -> anyhow::Result<(Vec<PageRow>, Vec<LinkRow>)> {
    let mut pages = Vec::new();
    crawled
        .store
        .for_each_page(crawled.run, |page, _| -> anyhow::Result<()> {
            pages.push(PageRow {
                url: page.url,
                status: page.status,
                verdict: page.verdict.to_string(),
                reason: page.reason.map(|reason| reason.to_string()),
                depth: page.depth,
                title: page.title,
                bytes: page.body_bytes,
                elapsed_ms: page.elapsed_ms,
                inlinks: 0,
                outlinks: 0,
                extracted: Vec::new(),
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
    crawled
        .store
        .for_each_link(crawled.run, |source, target| -> anyhow::Result<()> {
            let (Some(&source), Some(&target)) = (index.get(source), index.get(target)) else {
                return Ok(());
            };
            pages[source].outlinks += 1;
            pages[target].inlinks += 1;
            if embedded_out[source] < model::LINKS_PER_PAGE
                && embedded_in[target] < model::LINKS_PER_PAGE
            {
                embedded_out[source] += 1;
                embedded_in[target] += 1;
                links.push(LinkRow {
                    source,
                    target,
                    kind: "a",
                    anchor: String::new(),
                    nofollow: false,
                });
            }
            Ok(())
        })?;
    Ok((pages, links))
}
