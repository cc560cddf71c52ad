//! The audit's report, as the client receives it: its data (`model.rs`, filled by
//! `build.rs` from the findings and the crawl database), report.html (`html.rs`, its style,
//! script and charts in `html/`), the CSV files and report.json (`files.rs`), report.xlsx
//! (`xlsx.rs`), report.pdf printed by Chromium (`pdf.rs`), the logo of its heading
//! (`logo.rs`), how the audit was made (`methodology.rs`), and the links to other sites with
//! their checks (`outbound.rs`: outbound.csv); for CI, the findings as SARIF (`sarif.rs`) and
//! JUnit XML (`junit.rs`). Each is written new and renamed into place (`new_file.rs`), never
//! through a link.

pub(crate) mod build;
pub(crate) mod files;
pub(crate) mod html;
pub(crate) mod junit;
pub(crate) mod logo;
pub(crate) mod methodology;
pub(crate) mod model;
pub(crate) mod new_file;
pub(crate) mod outbound;
pub(crate) mod pdf;
pub(crate) mod sarif;
pub(crate) mod xlsx;
