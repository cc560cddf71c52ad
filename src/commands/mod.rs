//! One module per subcommand.

pub mod audit;
pub mod changes;
pub mod crawl;
mod history;
mod lock;
mod record;
pub mod runs;
pub mod sitemap_source;
mod spill;
pub mod validate;

/// How the user asked the binary to speak.
#[derive(Debug, Clone, Copy)]
pub struct Output {
    pub quiet: bool,
}
