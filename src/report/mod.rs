//! The audit's report, as the client receives it: its data (`model.rs`, filled by
//! `build.rs` from the findings and the crawl database), report.html (`html.rs`, its style,
//! script and charts in `html/`), the CSV files and report.json (`files.rs`), report.pdf
//! printed by Chromium (`pdf.rs`), the logo of its heading (`logo.rs`), and the links to other
//! sites with their checks (`outbound.rs`: outbound.csv).

pub(crate) mod build;
pub(crate) mod files;
pub(crate) mod html;
pub(crate) mod logo;
pub(crate) mod model;
pub(crate) mod outbound;
pub(crate) mod pdf;
