//! The audit's data files: findings.csv, pages.csv, links.csv and report.json.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::Context;
use serde::Serialize;
use sitemapper_audit::Finding;
use sitemapper_store::{RunId, Store, Verdict};

use crate::commands::spreadsheet::SpreadsheetCsv;

/// Counts for the summary and the charts, gathered while pages.csv is written.
#[derive(Debug, Default, Serialize)]
pub(super) struct PageCounts {
    pub pages: u64,
    pub listed: u64,
    /// HTTP status (or "none" for URLs never fetched) -> pages.
    pub status_codes: BTreeMap<String, u64>,
    /// Clicks from the start page -> listed pages.
    pub depths: BTreeMap<u32, u64>,
}

/// The fixed columns of pages.csv; the custom extractions' follow, one per name.
pub(crate) const PAGE_COLUMNS: [&str; 14] = [
    "url",
    "status",
    "verdict",
    "reason",
    "depth",
    "referrer",
    "title",
    "description",
    "canonical",
    "target",
    "lastmod",
    "elapsed_ms",
    "bytes",
    "rendering",
];

/// Between the values of one extraction in a pages.csv cell.
const VALUE_SEPARATOR: &str = " | ";

/// Writes pages.csv, one row per URL of the run, and counts them. The fixed columns come
/// first, then one per custom extraction in `extract_names`, its values joined by " | ".
pub(super) fn write_pages(
    store: &Store,
    run: RunId,
    extract_names: &[String],
    path: &Path,
) -> anyhow::Result<PageCounts> {
    let mut csv = SpreadsheetCsv::create(path)?;
    csv.write_row(
        PAGE_COLUMNS
            .iter()
            .copied()
            .chain(extract_names.iter().map(String::as_str)),
    )?;
    let mut counts = PageCounts::default();
    store.for_each_page(run, |page, lastmod| -> anyhow::Result<()> {
        counts.pages += 1;
        let status = page
            .status
            .map_or_else(|| "none".to_string(), |status| status.to_string());
        *counts.status_codes.entry(status.clone()).or_default() += 1;
        if page.verdict == Verdict::Indexable {
            counts.listed += 1;
            *counts.depths.entry(page.depth).or_default() += 1;
        }
        let optional = |value: Option<String>| value.unwrap_or_default();
        // Read page by page: a site's values can be far larger than its URLs.
        let mut values = if extract_names.is_empty() {
            BTreeMap::new()
        } else {
            store.extracted_of(&page.url)?
        };
        let extracted_cells: Vec<String> = extract_names
            .iter()
            .map(|name| {
                values
                    .remove(name)
                    .unwrap_or_default()
                    .join(VALUE_SEPARATOR)
            })
            .collect();
        let fixed = [
            page.url,
            status,
            page.verdict.to_string(),
            optional(page.reason.map(|reason| reason.to_string())),
            page.depth.to_string(),
            optional(page.referrer),
            optional(page.title),
            optional(page.description),
            optional(page.canonical),
            optional(page.target),
            optional(lastmod.map(sitemapper_sitemap::format_lastmod)),
            optional(page.elapsed_ms.map(|elapsed| elapsed.to_string())),
            optional(page.body_bytes.map(|bytes| bytes.to_string())),
            optional(page.rendering.map(|rendering| rendering.to_string())),
        ];
        csv.write_row(fixed.into_iter().chain(extracted_cells))?;
        Ok(())
    })?;
    csv.finish()?;
    Ok(counts)
}

/// Writes links.csv: every link of every page of the run.
pub(super) fn write_links(store: &Store, run: RunId, path: &Path) -> anyhow::Result<()> {
    let mut csv = SpreadsheetCsv::create(path)?;
    csv.write_row(["source", "target"])?;
    store.for_each_link(run, |source, target| csv.write_row([source, target]))?;
    csv.finish()
}

/// Writes findings.csv: one row per finding, its referrers space-separated.
pub(super) fn write_findings(findings: &[Finding], path: &Path) -> anyhow::Result<()> {
    let mut csv = SpreadsheetCsv::create(path)?;
    csv.write_row(["severity", "kind", "title", "url", "detail", "referrers"])?;
    for finding in findings {
        csv.write_row([
            finding.kind.severity().as_str(),
            finding.kind.code(),
            finding.kind.title(),
            &finding.url,
            &finding.detail,
            &finding.referrers.join(" "),
        ])?;
    }
    csv.finish()
}

/// One finding as report.json and the HTML report carry it.
#[derive(Debug, Serialize)]
pub(super) struct FindingJson<'a> {
    pub severity: &'static str,
    pub kind: &'static str,
    pub title: &'static str,
    pub url: &'a str,
    pub detail: &'a str,
    pub referrers: &'a [String],
}

impl<'a> FindingJson<'a> {
    pub(super) fn of(finding: &'a Finding) -> FindingJson<'a> {
        FindingJson {
            severity: finding.kind.severity().as_str(),
            kind: finding.kind.code(),
            title: finding.kind.title(),
            url: &finding.url,
            detail: &finding.detail,
            referrers: &finding.referrers,
        }
    }
}

/// The whole report as data.
#[derive(Debug, Serialize)]
pub(super) struct ReportJson<'a> {
    pub site: &'a str,
    pub run: i64,
    pub generated_at: String,
    pub counts: &'a PageCounts,
    pub severities: BTreeMap<&'static str, u64>,
    pub site_sitemaps: Vec<String>,
    pub site_sitemap_urls: usize,
    /// The names of the custom extractions (`--extract`), in the order of pages.csv's
    /// columns.
    pub extract: &'a [String],
    /// `--map-host` mappings (`staging -> production`): the findings name the URLs crawled,
    /// the sitemap the production ones.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub host_map: Vec<String>,
    pub findings: Vec<FindingJson<'a>>,
}

pub(super) fn write_json(report: &ReportJson<'_>, path: &Path) -> anyhow::Result<()> {
    let file =
        std::fs::File::create(path).with_context(|| format!("cannot write {}", path.display()))?;
    serde_json::to_writer_pretty(std::io::BufWriter::new(file), report)
        .with_context(|| format!("cannot write {}", path.display()))
}
