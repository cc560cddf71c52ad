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

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    fn open(path: &Path) -> Store {
        Store::open(path).unwrap_or_else(|error| panic!("{error}"))
    }

    fn spilled(url: &str, depth: u32, chain: u32) -> SpilledUrl {
        SpilledUrl {
            url: url.to_string(),
            depth,
            chain,
        }
    }

    fn push(spill: &StoreSpill, urls: &[SpilledUrl]) {
        spill.push(urls).unwrap_or_else(|error| panic!("{error}"));
    }

    fn pop(spill: &StoreSpill, max: usize) -> Vec<SpilledUrl> {
        spill.pop(max).unwrap_or_else(|error| panic!("{error}"))
    }

    #[test]
    fn urls_come_back_first_in_first_out_across_pushes_and_pops_with_what_they_carry() {
        let directory = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
        let spill = StoreSpill::new(open(&directory.path().join("crawl.db")))
            .unwrap_or_else(|error| panic!("{error}"));
        let seed = spilled("https://e.com/", 0, 0);
        let first = spilled("https://e.com/a", 1, 0);
        let second = spilled("https://e.com/b/2", 3, 2);
        let third = spilled("https://e.com/c", 2, 1);
        push(&spill, &[seed.clone(), first.clone()]);
        push(&spill, std::slice::from_ref(&second));
        assert_eq!(pop(&spill, 1), [seed]);
        push(&spill, std::slice::from_ref(&third));
        assert_eq!(
            pop(&spill, 2),
            [first, second],
            "what was pushed first comes first, whatever was pushed since"
        );
        assert_eq!(pop(&spill, 10), [third]);
        assert_eq!(pop(&spill, 10), []);
    }

    #[test]
    fn a_new_spill_empties_what_an_earlier_run_left_queued() {
        let directory = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
        let database = directory.path().join("crawl.db");
        {
            let killed = StoreSpill::new(open(&database)).unwrap_or_else(|error| panic!("{error}"));
            push(
                &killed,
                &[
                    spilled("https://e.com/left", 1, 0),
                    spilled("https://e.com/behind", 1, 0),
                ],
            );
        }
        let spill = StoreSpill::new(open(&database)).unwrap_or_else(|error| panic!("{error}"));
        assert_eq!(pop(&spill, 10), []);
        let next = spilled("https://e.com/next", 1, 0);
        push(&spill, std::slice::from_ref(&next));
        assert_eq!(pop(&spill, 10), [next]);
    }
}
