//! The audit's data files: findings.csv, pages.csv, links.csv and report.json.

use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::io::Write;
use std::path::Path;

use serde::Serialize;
use sitemapper_store::{GraphLink, RunId, Store};

use super::model::{
    ActionRow, FindingRow, KindSummary, OutboundRow, PageCounts, PageRow, PreviousAudit, Report,
    Score, TrendPoint, title_length,
};
use super::new_file::write_new;
use crate::error::{ReportError, WriteCause};
use crate::methodology::Methodology;

use sitemapper_site::SpreadsheetCsv;

/// The UTF-8 byte order mark. Excel opens a CSV file in the system's legacy code page unless
/// the file starts with it, and shows every accented or non-Latin character garbled; other
/// spreadsheets and CSV readers skip it (RFC 3629, section 6).
const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

/// A CSV file of the report into `file`, a new one (`super::new_file`): with `bom`
/// (`--csv-bom`, on by default) it starts with the UTF-8 byte order mark. Every CSV file of
/// the report is begun here.
pub(crate) fn start_csv(
    file: &mut File,
    bom: bool,
) -> Result<SpreadsheetCsv<&mut File>, WriteCause> {
    if bom {
        file.write_all(UTF8_BOM)?;
    }
    Ok(SpreadsheetCsv::new(file))
}

/// The fixed columns of pages.csv; the custom extractions' follow, one per name.
pub const PAGE_COLUMNS: [&str; 22] = [
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
    "h1_count",
    "h1",
    "lang",
    "images_without_alt",
    "inlinks",
    "outlinks",
    "title_length",
    "word_count",
];

/// Between the values of one extraction in a pages.csv cell.
pub(crate) const VALUE_SEPARATOR: &str = " | ";

/// Writes pages.csv, one row per URL of the run. The fixed columns come first, then one per
/// custom extraction of the report, its values joined by " | ". The link counts are the
/// report's (`report.pages`).
pub(crate) fn write_pages(
    store: &Store,
    run: RunId,
    report: &Report,
    path: &Path,
    bom: bool,
) -> Result<(), ReportError> {
    let extract_names = &report.extract_names;
    let page_rows: HashMap<&str, &PageRow> = report
        .pages
        .iter()
        .map(|row| (row.url.as_str(), row))
        .collect();
    write_new(path, |file| {
        let mut csv = start_csv(file, bom)?;
        csv.write_row(
            PAGE_COLUMNS
                .iter()
                .copied()
                .chain(extract_names.iter().map(String::as_str)),
        )?;
        store.for_each_page(run, |page, lastmod| -> Result<(), WriteCause> {
            let status = page
                .status
                .map_or_else(|| "none".to_string(), |status| status.to_string());
            let details = page.details.as_ref();
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
            let row = page_rows.get(page.url.as_str()).copied();
            let link_count = |count: fn(&PageRow) -> u64| {
                row.map_or_else(String::new, |row| count(row).to_string())
            };
            let counts = [
                link_count(|row| row.inlinks),
                link_count(|row| row.outlinks),
                optional(title_length(page.title.as_deref()).map(|length| length.to_string())),
                optional(
                    details
                        .and_then(|details| details.word_count)
                        .map(|words| words.to_string()),
                ),
            ];
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
                optional(details.map(|details| details.h1_count.to_string())),
                optional(details.and_then(|details| details.h1.clone())),
                optional(details.and_then(|details| details.lang.clone())),
                optional(details.map(|details| details.images_without_alt.to_string())),
            ]
            .into_iter()
            .chain(counts);
            csv.write_row(fixed.chain(extracted_cells))?;
            Ok(())
        })?;
        csv.finish()?;
        Ok(())
    })
}

/// The header of links.csv, every link of every page of the run: written in the pass over
/// the links that also fills report.xlsx's Links sheet ([`crate::deliverables`]).
pub(crate) const LINK_COLUMNS: [&str; 5] = ["source", "target", "kind", "anchor", "nofollow"];

/// One row of links.csv.
pub(crate) fn write_link(
    csv: &mut SpreadsheetCsv<&mut File>,
    link: &GraphLink<'_>,
) -> Result<(), WriteCause> {
    csv.write_row([
        link.source,
        link.target,
        link.kind.code(),
        link.anchor.unwrap_or_default(),
        if link.nofollow { "true" } else { "false" },
    ])?;
    Ok(())
}

/// Writes findings.csv: one row per finding of this audit, then one per finding of the
/// previous audit fixed since; referrers space-separated.
pub(crate) fn write_findings(report: &Report, path: &Path, bom: bool) -> Result<(), ReportError> {
    write_new(path, |file| {
        let mut csv = start_csv(file, bom)?;
        csv.write_row([
            "severity",
            "priority",
            "kind",
            "title",
            "change",
            "url",
            "detail",
            "referrers",
        ])?;
        for finding in FindingJson::all(report) {
            csv.write_row([
                finding.severity,
                finding.priority,
                finding.kind,
                finding.title,
                finding.change.unwrap_or_default(),
                finding.url,
                finding.detail,
                &finding.referrers.join(" "),
            ])?;
        }
        csv.finish()?;
        Ok(())
    })
}

/// One finding as report.json and findings.csv carry it.
#[derive(Debug, Serialize)]
pub(crate) struct FindingJson<'a> {
    pub severity: &'static str,
    pub priority: &'static str,
    pub kind: &'static str,
    pub title: &'static str,
    /// `new`, `persisting` or `fixed`; null for a site's first audit.
    pub change: Option<&'static str>,
    pub url: &'a str,
    pub detail: &'a str,
    pub referrers: &'a [String],
}

impl<'a> FindingJson<'a> {
    /// The findings of `report`, then the fixed ones, each with its kind's words.
    pub(crate) fn all(report: &'a Report) -> impl Iterator<Item = FindingJson<'a>> {
        report
            .findings
            .iter()
            .chain(&report.fixed)
            .filter_map(|row| FindingJson::of(report, row))
    }

    fn of(report: &'a Report, row: &'a FindingRow) -> Option<FindingJson<'a>> {
        let kind = report.kinds.iter().find(|kind| kind.code == row.code)?;
        Some(FindingJson {
            severity: kind.severity,
            priority: kind.priority,
            kind: kind.code,
            title: kind.title,
            change: row.change,
            url: &row.url,
            detail: &row.detail,
            referrers: &row.referrers,
        })
    }
}

/// The report as data: report.html's summary, kinds and findings (pages and links are in
/// their CSV files).
#[derive(Debug, Serialize)]
pub(crate) struct ReportJson<'a> {
    pub site: &'a str,
    pub title: &'a str,
    pub run: i64,
    pub generated_at: &'a str,
    pub score: &'a Score,
    /// The kinds whose fixing would raise the score most.
    pub actions: &'a [ActionRow],
    /// How the audit was made.
    pub methodology: &'a Methodology,
    pub trend: &'a [TrendPoint],
    pub compared_with: Option<&'a PreviousAudit>,
    pub counts: &'a PageCounts,
    pub severities: &'a BTreeMap<&'static str, u64>,
    pub site_sitemaps: &'a [String],
    pub site_sitemap_urls: usize,
    /// The names of the custom extractions (`--extract`), in the order of pages.csv's
    /// columns.
    pub extract: &'a [String],
    /// `--map-host` mappings (`staging -> production`): the findings name the URLs crawled,
    /// the sitemap the production ones.
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    pub host_map: &'a [String],
    pub kinds: &'a [KindSummary],
    pub findings: Vec<FindingJson<'a>>,
    /// The previous audit's findings this one no longer has.
    pub fixed: Vec<FindingJson<'a>>,
    /// The links to other sites and what their check found (outbound.csv).
    pub outbound: &'a [OutboundRow],
}

impl<'a> ReportJson<'a> {
    pub(crate) fn of(report: &'a Report) -> ReportJson<'a> {
        let rows = |rows: &'a [FindingRow]| -> Vec<FindingJson<'a>> {
            rows.iter()
                .filter_map(|row| FindingJson::of(report, row))
                .collect()
        };
        ReportJson {
            site: &report.site,
            title: &report.title,
            run: report.run,
            generated_at: &report.generated_at,
            score: &report.score,
            actions: &report.actions,
            methodology: &report.methodology,
            trend: &report.trend,
            compared_with: report.compared_with.as_ref(),
            counts: &report.counts,
            severities: &report.severities,
            site_sitemaps: &report.site_sitemaps,
            site_sitemap_urls: report.site_sitemap_urls,
            extract: &report.extract_names,
            host_map: &report.host_map,
            kinds: &report.kinds,
            findings: rows(&report.findings),
            fixed: rows(&report.fixed),
            outbound: &report.outbound,
        }
    }
}

pub(crate) fn write_json(report: &ReportJson<'_>, path: &Path) -> Result<(), ReportError> {
    write_new(path, |file| {
        let mut writer = std::io::BufWriter::new(file);
        serde_json::to_writer_pretty(&mut writer, report)?;
        Ok(writer.flush()?)
    })
}
