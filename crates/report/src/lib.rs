//! The audit's report, as the client receives it: its data (`model.rs`, filled by
//! `build.rs` from the findings, their assessment and the crawl database), report.html
//! (`html.rs`, its style, script and charts in `html/`), the CSV files and report.json
//! (`files.rs`), report.xlsx (`xlsx.rs`), report.pdf printed by Chromium (`pdf.rs`), the logo
//! of its heading (`logo.rs`), how the audit was made (`methodology.rs`), and the links to
//! other sites with their checks (`outbound.rs`: outbound.csv); for CI, the findings as SARIF
//! (`sarif.rs`) and JUnit XML (`junit.rs`). [`write_report`] writes them all
//! (`deliverables.rs`), each new and renamed into place (`new_file.rs`), never through a
//! link; why one could not be written is a [`ReportError`] (`error.rs`).
//!
//! A report is built in three steps: the run's [`Pages`] are read, on which the audit's
//! [`Assessment`](sitemapper_audit::Assessment) is recorded; [`Report::build`] puts the
//! findings, the assessment and the pages together; [`write_report`] writes the files.
//!
//! ```
//! use sitemapper_audit::{Assessment, RobotsTxt, SiteProbe, SiteSitemaps, Thresholds};
//! use sitemapper_report::{
//!     Branding, Methodology, Pages, Report, ReportInput, ReportOptions, write_report,
//! };
//! use sitemapper_store::{PageRecord, Store, Verdict};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let directory = tempfile::tempdir()?;
//! // A crawl of three URLs, one of them missing.
//! let mut store = Store::open(&directory.path().join("crawl.db"))?;
//! let run = store.begin_run("https://example.com/")?;
//! let page = |url: &str, status: u16, verdict: Verdict| PageRecord {
//!     status: Some(status),
//!     title: Some(format!("The page {url}")),
//!     ..PageRecord::new(url, verdict)
//! };
//! store.record_pages(
//!     run,
//!     &[
//!         page("https://example.com/", 200, Verdict::Indexable),
//!         page("https://example.com/about", 200, Verdict::Indexable),
//!         page("https://example.com/gone", 404, Verdict::Excluded),
//!     ],
//! )?;
//!
//! // The audit: its findings, and their assessment over the pages.
//! let sitemap_urls = Default::default();
//! let sitemaps = SiteSitemaps {
//!     files_read: 0,
//!     urls: &sitemap_urls,
//!     unreadable: &[],
//!     not_fetched: &[],
//!     other_sites: &[],
//!     site: "https://example.com/",
//!     robots_txt: ("https://example.com/robots.txt", RobotsTxt::Unknown),
//!     found: &[],
//!     probe: &SiteProbe::default(),
//! };
//! let normalize = |loc: &str| Some(loc.to_string());
//! let findings =
//!     sitemapper_audit::findings(&store, run, &Thresholds::default(), &sitemaps, &normalize)?;
//! let pages = Pages::read(&store, run, Vec::new())?;
//! let assessment = Assessment::record(&mut store, run, &findings, &pages.urls())?;
//!
//! // The report, written without its PDF.
//! let report = Report::build(ReportInput {
//!     store: &store,
//!     run,
//!     site: "https://example.com/".to_string(),
//!     branding: &Branding::default(),
//!     generated_at: "2026-01-01 00:00 UTC".to_string(),
//!     host_map: Vec::new(),
//!     methodology: Methodology::default(),
//!     findings: &findings,
//!     assessment: &assessment,
//!     site_sitemaps: Vec::new(),
//!     site_sitemap_urls: 0,
//!     pages,
//! })?;
//! let written = write_report(
//!     &report,
//!     &store,
//!     &findings,
//!     directory.path(),
//!     &ReportOptions::default(),
//! )?;
//! assert!(directory.path().join("report.html").is_file());
//! assert!(written.files.iter().all(|file| file.is_file()));
//! # Ok(())
//! # }
//! ```

mod audit_run;
mod audited;
mod build;
mod deliverables;
mod error;
mod files;
mod html;
mod junit;
mod logo;
mod methodology;
mod model;
mod new_file;
mod outbound;
mod pdf;
mod sarif;
mod summary_json;
mod targets;
mod xlsx;

pub use self::audit_run::{AuditError, AuditPlan, audit, crawl_for_audit};
pub use self::audited::{
    Audited, NOTE_KINDS_SHOWN, OutboundTally, SummaryKinds, failing, kind_counts, summary_kinds,
};
pub use self::build::{Branding, Pages, ReportInput};
pub use self::deliverables::{
    PdfOptions, REPORT_FILES, ReportOptions, Written, report_files, write_report,
};
pub use self::error::{PdfError, ReportError, WriteCause};
pub use self::files::PAGE_COLUMNS;
pub use self::logo::{LogoError, MAX_LOGO_BYTES, read_logo};
pub use self::methodology::{CrawlDescription, Methodology, external_checks, methodology};
pub use self::model::{Logo, OutboundRow, Report};
pub use self::pdf::Paper;
pub use self::summary_json::AuditJson;
pub use self::targets::{TargetError, database_not_through_link, writable_ci_file};
