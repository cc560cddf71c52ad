//! What the caller may read of a crawl while it runs: [`CrawlProgress`]'s counters.

use std::sync::atomic::AtomicU64;

/// Counters the caller may read while the crawl runs (for a progress bar).
#[derive(Debug, Default)]
pub struct CrawlProgress {
    /// HTTP requests for pages sent so far (redirect hops included, robots.txt not).
    pub requests: AtomicU64,
    /// URLs waiting in the frontier.
    pub queued: AtomicU64,
    /// Pages that answered 304 Not Modified to a conditional request.
    pub revalidated: AtomicU64,
    /// Pages in the browser now, being rendered: where a crawl that renders spends its time.
    pub rendering: AtomicU64,
}
