//! How the browser is run: [`ChromiumOptions`] and the defaults and limits of a run (how long
//! a page must stay quiet, how many tabs, how long a page may take, how many restarts). A
//! leaf: it names nothing else of the crate.

use std::path::PathBuf;
use std::time::Duration;

/// How long a page must stay quiet (no request in flight, no element added) to be done.
pub const QUIET: Duration = Duration::from_millis(500);

/// Browser restarts after crashes in one run before rendering stops.
pub const MAX_RESTARTS: u32 = 3;

/// The render timeout's default.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

/// The tabs' default: pages rendered at once.
pub const DEFAULT_TABS: usize = 2;

/// How the browser is run.
#[derive(Debug, Clone)]
pub struct ChromiumOptions {
    /// The browser's executable.
    pub executable: PathBuf,
    /// Pages rendered at once, each in its own tab.
    pub tabs: usize,
    /// How long a page may take to settle.
    pub timeout: Duration,
    /// The User-Agent of the browser's requests: the crawl's.
    pub user_agent: String,
}
