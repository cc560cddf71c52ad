//! Versioned schema migrations: `PRAGMA user_version` holds how many have been applied, so an
//! old database opens with a newer sitemapper. New releases append to `MIGRATIONS`, never edit.

use std::path::Path;

use rusqlite::Connection;

use crate::StoreError;

const MIGRATIONS: &[&str] = &[
    // 1: runs and pages.
    "CREATE TABLE runs (
        id INTEGER PRIMARY KEY,
        seed TEXT NOT NULL,
        started_at INTEGER NOT NULL,
        finished_at INTEGER,
        status TEXT NOT NULL,
        pages_seen INTEGER,
        pages_listed INTEGER
    );
    CREATE TABLE pages (
        url TEXT PRIMARY KEY,
        depth INTEGER NOT NULL,
        referrer TEXT,
        status INTEGER,
        final_url TEXT,
        content_type TEXT,
        html_ok INTEGER NOT NULL,
        verdict TEXT NOT NULL,
        reason TEXT,
        detail TEXT,
        target TEXT,
        canonical TEXT,
        last_modified INTEGER,
        lastmod INTEGER,
        etag TEXT,
        fingerprint TEXT,
        fetched_at INTEGER,
        first_seen_run INTEGER NOT NULL REFERENCES runs(id),
        last_seen_run INTEGER NOT NULL REFERENCES runs(id)
    );
    CREATE INDEX pages_by_run ON pages (last_seen_run, verdict);",
];

/// The schema version this build writes.
pub(crate) const LATEST_VERSION: i64 = MIGRATIONS.len() as i64;

pub(crate) fn migrate(connection: &mut Connection, path: &Path) -> Result<(), StoreError> {
    let sql_error = |source| StoreError::Sql {
        path: path.to_path_buf(),
        source,
    };
    let version: i64 = connection
        .query_row("PRAGMA user_version", [], |row| row.get(0))
        .map_err(sql_error)?;
    if version > LATEST_VERSION {
        return Err(StoreError::TooNew {
            path: path.to_path_buf(),
            found: version,
            known: LATEST_VERSION,
        });
    }
    for (index, migration) in MIGRATIONS
        .iter()
        .enumerate()
        .skip(usize::try_from(version).unwrap_or(0))
    {
        let transaction = connection.transaction().map_err(sql_error)?;
        transaction.execute_batch(migration).map_err(sql_error)?;
        // user_version does not take a bound parameter; the value is our own integer.
        transaction
            .execute_batch(&format!("PRAGMA user_version = {}", index + 1))
            .map_err(sql_error)?;
        transaction.commit().map_err(sql_error)?;
    }
    Ok(())
}
