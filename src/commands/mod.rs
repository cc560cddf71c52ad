//! One module per subcommand, and what they share: the crawl database's helpers, the JSON
//! summary, CSV files for spreadsheets.

pub(crate) mod audit;
pub(crate) mod changes;
pub(crate) mod crawl;
pub(crate) mod fleet;
mod history;
pub(crate) mod json;
mod lock;
pub(crate) mod manual;
mod record;
pub(crate) mod runs;
mod sitemap_seeds;
pub(crate) mod sitemap_source;
mod spill;
pub(crate) mod spreadsheet;
pub(crate) mod validate;

/// How the user asked the binary to speak.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Output {
    pub quiet: bool,
}
