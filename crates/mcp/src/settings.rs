//! What the server is allowed, as its command line gave it.

use std::path::PathBuf;
use std::time::Duration;

/// The server's own bounds: every tool is held to them, whatever an assistant asks.
#[derive(Debug, Clone)]
pub struct McpSettings {
    /// The sitemapper binary the crawls, audits and validations run as (this one).
    pub program: PathBuf,
    /// The config file the server was started with, which its crawls read too (else they
    /// find one as the server did: `SITEMAPPER_CONFIG`, `./sitemapper.toml`).
    pub config: Option<PathBuf>,
    /// The directories the tools may read and write; paths outside them are refused.
    pub allowed_dirs: Vec<PathBuf>,
    /// Sites on private networks and this machine may be crawled.
    pub allow_private: bool,
    /// The most pages one crawl or audit may fetch.
    pub max_pages: u64,
    /// The longest one crawl or audit may run; it is stopped then, publishing nothing.
    pub max_time: Duration,
}

/// The default of `--max-pages` for the tools.
pub const DEFAULT_MAX_PAGES: u64 = 10_000;

/// The default of `--max-time` for the tools.
pub const DEFAULT_MAX_TIME: Duration = Duration::from_secs(30 * 60);
