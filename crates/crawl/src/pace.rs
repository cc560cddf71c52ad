//! When the next request to a host may start: one slot a host, shared by every crawl that
//! holds the same board, so that the sites of a fleet that share a host (and port) share its
//! pace too (`--delay`, or robots.txt `Crawl-delay`).

use std::sync::Arc;

use dashmap::DashMap;
use tokio::sync::Mutex;
use tokio::time::Instant;
use url::Url;

/// The next free slot of each host. A crawl has a board of its own unless it is given one
/// ([`crate::Crawler::with_pace_board`]).
#[derive(Debug, Default)]
pub struct PaceBoard {
    slots: DashMap<String, Arc<Mutex<Option<Instant>>>>,
}

impl PaceBoard {
    /// The slot of `url`'s host and port.
    pub(crate) fn slot(&self, url: &Url) -> Arc<Mutex<Option<Instant>>> {
        let key = pace_key(url);
        if let Some(slot) = self.slots.get(&key) {
            return Arc::clone(&slot);
        }
        Arc::clone(&self.slots.entry(key).or_default())
    }
}

/// What one host's pace is kept by: its host and port (`example.com:443`).
pub fn pace_key(url: &Url) -> String {
    format!(
        "{}:{}",
        url.host_str().unwrap_or_default(),
        url.port_or_known_default().unwrap_or_default()
    )
}
