//! The crawl database as the frontier's spill: queued URLs beyond the crawl's memory budget
//! wait in its `frontier` table, on the disk the user chose for the database.

use std::sync::Mutex;

use sitemapper_crawl::{FrontierSpill, SpillError, SpilledUrl};
use sitemapper_store::{QueuedRow, Store, StoreError};

/// A connection of its own to the crawl database (WAL lets it write beside the recorder).
#[derive(Debug)]
pub(crate) struct StoreSpill {
    store: Mutex<Store>,
}

impl StoreSpill {
    /// Takes `store` for the spill, emptied of what an earlier run left queued.
    pub(crate) fn new(mut store: Store) -> Result<StoreSpill, StoreError> {
        store.queue_clear()?;
        Ok(StoreSpill {
            store: Mutex::new(store),
        })
    }
}

impl FrontierSpill for StoreSpill {
    fn push(&self, urls: &[SpilledUrl]) -> Result<(), SpillError> {
        let rows: Vec<QueuedRow> = urls
            .iter()
            .map(|spilled| QueuedRow {
                url: spilled.url.clone(),
                depth: spilled.depth,
                referrer: spilled.referrer.clone(),
                chain: spilled.chain,
            })
            .collect();
        let mut store = self.store.lock().map_err(|_| poisoned())?;
        store.queue_push(&rows).map_err(SpillError::new)
    }

    fn pop(&self, max: usize) -> Result<Vec<SpilledUrl>, SpillError> {
        let mut store = self.store.lock().map_err(|_| poisoned())?;
        let rows = store.queue_pop(max).map_err(SpillError::new)?;
        Ok(rows
            .into_iter()
            .map(|row| SpilledUrl {
                url: row.url,
                depth: row.depth,
                referrer: row.referrer,
                chain: row.chain,
            })
            .collect())
    }
}

/// The connection's lock was poisoned: a thread panicked while it held it.
fn poisoned() -> SpillError {
    SpillError::new(std::io::Error::other(
        "the crawl database connection of the spill was poisoned",
    ))
}
