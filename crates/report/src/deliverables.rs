//! The report written: which files, in what order, each new and renamed into place; the
//! findings for CI; and report.pdf printed from a private copy of report.html.

use std::path::{Path, PathBuf};

use sitemapper_audit::{Finding, Severity};
use sitemapper_store::{RunId, Store};

use crate::error::ReportError;
use crate::error::WriteCause;
use crate::files::{
    LINK_COLUMNS, ReportJson, start_csv, write_findings, write_json, write_link, write_pages,
};
use crate::model::Report;
use crate::new_file::write_new_with;
use crate::outbound::write_outbound;
use crate::pdf::{Paper, write_pdf};

/// What to write besides the files every report has, and how.
#[derive(Debug, Clone)]
pub struct ReportOptions {
    /// Begin every CSV file with the UTF-8 byte order mark, which Excel needs to read it as
    /// UTF-8.
    pub csv_bom: bool,
    /// Where to write the findings as a SARIF 2.1.0 log, if anywhere.
    pub sarif: Option<PathBuf>,
    /// Where to write the findings as a JUnit XML report, if anywhere.
    pub junit: Option<PathBuf>,
    /// In the JUnit report, a kind with findings at this level or worse fails.
    pub failing: Severity,
    /// Print report.pdf, and how.
    pub pdf: Option<PdfOptions>,
}

impl Default for ReportOptions {
    /// CSV files with the byte order mark, no CI files, no PDF.
    fn default() -> ReportOptions {
        ReportOptions {
            csv_bom: true,
            sarif: None,
            junit: None,
            failing: Severity::Error,
            pdf: None,
        }
    }
}

/// How report.pdf is printed.
#[derive(Debug, Clone)]
pub struct PdfOptions {
    /// The browser to print with; `None`: the installed Chromium found.
    pub chrome: Option<PathBuf>,
    /// The sheet printed on.
    pub paper: Paper,
}

/// The files every report writes into its directory, the one to open first first.
pub const REPORT_FILES: [&str; 7] = [
    "report.html",
    "report.xlsx",
    "findings.csv",
    "pages.csv",
    "links.csv",
    "outbound.csv",
    "report.json",
];

/// The files of a report in `directory`: [`REPORT_FILES`], then the crawl database when it
/// is kept there (`crawl.db`) and report.pdf when one is printed.
pub fn report_files(directory: &Path, database: bool, pdf: bool) -> Vec<PathBuf> {
    let mut names = REPORT_FILES.to_vec();
    if database {
        names.push("crawl.db");
    }
    if pdf {
        names.push("report.pdf");
    }
    names.iter().map(|name| directory.join(name)).collect()
}

/// What [`write_report`] wrote.
#[derive(Debug)]
pub struct Written {
    /// The files of the report directory, as [`REPORT_FILES`] orders them.
    pub files: Vec<PathBuf>,
    /// With [`ReportOptions::pdf`]: report.pdf, or why it was not printed. The other files
    /// are written whether or not it is.
    pub pdf: Option<Result<PathBuf, ReportError>>,
}

/// Writes the report of `findings` (the run `report` was built from, in `store`) into
/// `directory`: the data (CSV and JSON), report.xlsx and report.html, then the findings for
/// CI ([`ReportOptions::sarif`], [`ReportOptions::junit`]), then report.pdf. Each file is
/// written new and renamed over its name, never through a link planted there.
pub fn write_report(
    report: &Report,
    store: &Store,
    findings: &[Finding],
    directory: &Path,
    options: &ReportOptions,
) -> Result<Written, ReportError> {
    let html = write_files(report, store, directory, options.csv_bom)?;
    write_ci_files(findings, &report.site, options)?;
    let pdf = options.pdf.as_ref().map(|pdf| {
        let path = directory.join("report.pdf");
        write_pdf(pdf.chrome.as_deref(), &html, &path, pdf.paper, &report.site).map(|()| path)
    });
    Ok(Written {
        files: REPORT_FILES
            .iter()
            .map(|name| directory.join(name))
            .collect(),
        pdf,
    })
}

/// Writes the report's files: the data (CSV and JSON), report.xlsx and report.html, whose
/// text it returns (for the PDF).
fn write_files(
    report: &Report,
    store: &Store,
    directory: &Path,
    bom: bool,
) -> Result<String, ReportError> {
    let run = RunId(report.run);
    write_pages(store, run, report, &directory.join("pages.csv"), bom)?;
    write_findings(report, &directory.join("findings.csv"), bom)?;
    write_outbound(&report.outbound, &directory.join("outbound.csv"), bom)?;
    write_json(&ReportJson::of(report), &directory.join("report.json"))?;
    // links.csv and the workbook's Links sheet in one pass: reading every link of the site
    // is the longest read of the crawl database.
    let links = directory.join("links.csv");
    write_new_with(&links, |file| {
        let cannot = |cause: WriteCause| ReportError::write(&links, cause);
        let mut csv = start_csv(file, bom).map_err(cannot)?;
        csv.write_row(LINK_COLUMNS)
            .map_err(|error| cannot(error.into()))?;
        crate::xlsx::write_workbook(store, run, report, &directory.join("report.xlsx"), |link| {
            write_link(&mut csv, link).map_err(cannot)
        })?;
        csv.finish().map_err(|error| cannot(error.into()))
    })?;
    let html = crate::html::render(report)?;
    crate::new_file::write_bytes(&directory.join("report.html"), html.as_bytes())?;
    Ok(html)
}

/// Writes the findings for CI before the caller decides the run: a failed run's findings are
/// the ones CI shows.
fn write_ci_files(
    findings: &[Finding],
    site: &str,
    options: &ReportOptions,
) -> Result<(), ReportError> {
    if let Some(path) = &options.sarif {
        crate::sarif::write_sarif(findings, path)?;
    }
    if let Some(path) = &options.junit {
        crate::junit::write_junit(findings, site, options.failing, path)?;
    }
    Ok(())
}
