//! How the browser is run: [`ChromiumOptions`] and the defaults and limits of a run (how long
//! a page must stay quiet, how many tabs, how long a page may take, how many restarts). A
//! leaf: it names nothing else of the crate.

use std::path::PathBuf;
use std::time::Duration;

/// How long a page must stay quiet (no request started or answered, none of its work pending,
/// no element added) and then be idle to be done (see `settle`).
pub const SETTLE: Duration = Duration::from_millis(50);

/// How long a page's network must first be quiet for the requests started since to stop being
/// its first requests, which are waited for however long they take; and how long a page read
/// at the render timeout must have added no element and started no request.
pub const QUIET: Duration = Duration::from_millis(500);

/// The longest delay of a timer a page waits for (a shorter one is the page's work in
/// progress), and the longest period of an interval that makes a page wait longer than it.
pub(crate) const SHORT_TIMER: Duration = Duration::from_millis(500);

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
