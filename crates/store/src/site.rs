//! What belongs to the database as a whole: the scope it was made for, where its sitemaps
//! were published, and the queue of URLs a crawl keeps on disk (its frontier beyond the
//! memory budget).

use rusqlite::{OptionalExtension, TransactionBehavior, params};

use crate::error::{StoreError, sql_error};
use crate::store::Store;

/// A URL waiting in the on-disk queue. (The table's `referrer` column is no longer written:
/// the crawl keeps every queued URL's referrer in memory, where a nearer one can replace it.)
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueuedRow {
    /// The normalized URL.
    pub url: String,
    /// Clicks from the seed.
    pub depth: u32,
    /// The length of the chain of same-shaped URLs it ends (the trap guard's count).
    pub chain: u32,
}

impl Store {
    /// The scope this database belongs to: as bound by [`Store::bind_scope`], or for a database
    /// from before scopes were recorded, `None` (the caller derives it from [`Store::latest_seed`]).
    pub fn scope(&self) -> Result<Option<String>, StoreError> {
        self.meta("scope")
    }

    /// Records the scope this database belongs to.
    pub fn bind_scope(&mut self, scope: &str) -> Result<(), StoreError> {
        self.set_meta("scope", scope)
    }

    /// Records the directory the sitemaps were last published to (where `explain` reads the
    /// file that lists a URL).
    pub fn record_published_to(&mut self, directory: &str) -> Result<(), StoreError> {
        self.set_meta("published_to", directory)
    }

    /// The directory the sitemaps were last published to, if any run published files.
    pub fn published_to(&self) -> Result<Option<String>, StoreError> {
        self.meta("published_to")
    }

    /// The value of `key` in the database's own table, if it was set.
    fn meta(&self, key: &str) -> Result<Option<String>, StoreError> {
        self.connection
            .query_row(
                "SELECT value FROM meta WHERE key = ?1",
                params![key],
                |row| row.get(0),
            )
            .optional()
            .map_err(|source| self.sql_error(source))
    }

    /// Sets `key` to `value` in the database's own table.
    fn set_meta(&mut self, key: &str, value: &str) -> Result<(), StoreError> {
        self.connection
            .execute(
                "INSERT INTO meta (key, value) VALUES (?1, ?2)
                 ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                params![key, value],
            )
            .map(|_| ())
            .map_err(|source| self.sql_error(source))
    }

    /// The seed of the newest run, if any run was recorded.
    pub fn latest_seed(&self) -> Result<Option<String>, StoreError> {
        self.connection
            .query_row(
                "SELECT seed FROM runs ORDER BY id DESC LIMIT 1",
                [],
                |row| row.get(0),
            )
            .optional()
            .map_err(|source| self.sql_error(source))
    }

    /// Appends `rows` to the on-disk queue, in order, in one transaction.
    pub fn queue_push(&mut self, rows: &[QueuedRow]) -> Result<(), StoreError> {
        let transaction = self
            .connection
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|source| sql_error(&self.path, source))?;
        {
            let mut insert = transaction
                .prepare_cached("INSERT INTO frontier (url, depth, chain) VALUES (?1, ?2, ?3)")
                .map_err(|source| sql_error(&self.path, source))?;
            for row in rows {
                insert
                    .execute(params![row.url, row.depth, row.chain])
                    .map_err(|source| sql_error(&self.path, source))?;
            }
        }
        transaction
            .commit()
            .map_err(|source| sql_error(&self.path, source))
    }

    /// Removes and returns up to `max` of the oldest rows of the on-disk queue. The
    /// transaction takes the write lock before it reads: a read that had to become a write
    /// after another connection (the recorder) committed would fail at once, busy timeout or
    /// not (SQLite's WAL snapshot rule).
    pub fn queue_pop(&mut self, max: usize) -> Result<Vec<QueuedRow>, StoreError> {
        let limit = i64::try_from(max).unwrap_or(i64::MAX);
        let transaction = self
            .connection
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|source| sql_error(&self.path, source))?;
        let (rows, last) = {
            let mut select = transaction
                .prepare_cached(
                    "SELECT position, url, depth, chain FROM frontier
                     ORDER BY position LIMIT ?1",
                )
                .map_err(|source| sql_error(&self.path, source))?;
            let mut rows = Vec::new();
            let mut last = None;
            let mut cursor = select
                .query(params![limit])
                .map_err(|source| sql_error(&self.path, source))?;
            while let Some(row) = cursor
                .next()
                .map_err(|source| sql_error(&self.path, source))?
            {
                last = Some(
                    row.get::<_, i64>(0)
                        .map_err(|source| sql_error(&self.path, source))?,
                );
                rows.push(queued_row(row).map_err(|source| sql_error(&self.path, source))?);
            }
            (rows, last)
        };
        if let Some(last) = last {
            transaction
                .execute("DELETE FROM frontier WHERE position <= ?1", params![last])
                .map_err(|source| sql_error(&self.path, source))?;
        }
        transaction
            .commit()
            .map_err(|source| sql_error(&self.path, source))?;
        Ok(rows)
    }

    /// Empties the on-disk queue (what a killed run left there is found again on resume
    /// from the links it recorded).
    pub fn queue_clear(&mut self) -> Result<(), StoreError> {
        self.connection
            .execute("DELETE FROM frontier", [])
            .map(|_| ())
            .map_err(|source| self.sql_error(source))
    }
}

fn queued_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<QueuedRow> {
    Ok(QueuedRow {
        url: row.get(1)?,
        depth: row.get(2)?,
        chain: row.get(3)?,
    })
}
