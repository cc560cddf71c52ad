//! The summaries in words, as the command line prints them on stderr: the crawl's (`report.rs`,
//! which an audit's summary begins with), what rendering in the browser did (`rendering.rs`),
//! how the crawl reached a staging or protected site (`access.rs`). The same runs as data are
//! `summary_json/`.

mod access;
mod rendering;
mod report;

pub use rendering::write_rendering;
pub use report::{CrawlReport, documents_line, write_resources};
