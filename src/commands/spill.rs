//! The crawl database as the frontier's spill: queued URLs beyond the crawl's memory budget
//! wait in its `frontier` table, on the disk the user chose for the database.

use std::sync::Mutex;

use sitemapper_crawl::{FrontierSpill, SpilledUrl};
use sitemapper_store::{QueuedRow, Store};

/// A connection of its own to the crawl database (WAL lets it write beside the recorder).
#[derive(Debug)]
pub(super) struct StoreSpill {
    store: Mutex<Store>,
}

impl StoreSpill {
    /// Takes `store` for the spill, emptied of what an earlier run left queued.
    pub(super) fn new(mut store: Store) -> anyhow::Result<StoreSpill> {
        store.queue_clear()?;
        Ok(StoreSpill {
            store: Mutex::new(store),
        })
    }
}

impl FrontierSpill for StoreSpill {
    fn push(&self, urls: &[SpilledUrl]) -> Result<(), String> {
        let rows: Vec<QueuedRow> = urls
            .iter()
            .map(|spilled| QueuedRow {
                url: spilled.url.clone(),
                depth: spilled.depth,
                referrer: spilled.referrer.clone(),
                chain: spilled.chain,
            })
            .collect();
        let mut store = self.store.lock().map_err(|error| error.to_string())?;
        store.queue_push(&rows).map_err(|error| error.to_string())
    }

    fn pop(&self, max: usize) -> Result<Vec<SpilledUrl>, String> {
        let mut store = self.store.lock().map_err(|error| error.to_string())?;
        let rows = store.queue_pop(max).map_err(|error| error.to_string())?;
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
