//! An open crawl database: the connection, checked to be sitemapper's and brought up to date
//! when opened, and what the store keeps while it records a run. The queries are `impl Store`
//! blocks of the modules that own their tables.

use std::path::{Path, PathBuf};

use rusqlite::Connection;

use crate::error::{StoreError, sql_error};
use crate::run_id::RunId;
use crate::schema;
use crate::urls::UrlIds;

/// Which failed pages a store keeps while it records a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeepFailed {
    /// The run whose listing is kept: the last complete one.
    pub from: RunId,
    /// The runs in a row a listed URL may fail and stay listed; the next one drops it.
    pub runs: u32,
}

/// An open crawl database.
#[derive(Debug)]
pub struct Store {
    pub(crate) connection: Connection,
    pub(crate) path: PathBuf,
    /// The ids of the URLs this connection wrote links to.
    pub(crate) url_ids: UrlIds,
    /// The index of links by target is known to be there (see `Store::index_links`).
    pub(crate) links_indexed: std::cell::Cell<bool>,
    /// Whether pages that fail in a way that may pass keep what an earlier run listed.
    pub(crate) keep: Option<KeepFailed>,
}

impl Store {
    /// Opens (or creates) the database at `path` and brings its schema up to date.
    /// A symbolic link at `path` is refused, never written through (docs/design.md, Safety).
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        if std::fs::symlink_metadata(path).is_ok_and(|metadata| metadata.file_type().is_symlink()) {
            return Err(StoreError::Link {
                path: path.to_path_buf(),
            });
        }
        // NOFOLLOW closes the race with a link planted after the check.
        let flags = rusqlite::OpenFlags::default() | rusqlite::OpenFlags::SQLITE_OPEN_NOFOLLOW;
        let connection =
            Connection::open_with_flags(path, flags).map_err(|source| StoreError::Open {
                path: path.to_path_buf(),
                source,
            })?;
        let mut store = Store {
            connection,
            path: path.to_path_buf(),
            url_ids: UrlIds::default(),
            links_indexed: std::cell::Cell::new(false),
            keep: None,
        };
        // Before anything writes: even the journal mode is written into the file.
        store.check_ours()?;
        store.configure()?;
        schema::migrate(&mut store.connection, path)?;
        Ok(store)
    }

    /// Refuses a database whose tables sitemapper did not create (docs/design.md, Safety): a
    /// `--state` that names another program's SQLite file would otherwise get 18 tables added
    /// to it. An empty file, or one with sitemapper's tables only, is sitemapper's. Reads only.
    fn check_ours(&self) -> Result<(), StoreError> {
        let not_a_database = |source| StoreError::NotADatabase {
            path: self.path.clone(),
            source,
        };
        let tables: Vec<String> = self
            .connection
            .prepare(
                "SELECT name FROM sqlite_master
                 WHERE type IN ('table', 'view') AND substr(name, 1, 7) != 'sqlite_'
                 ORDER BY name",
            )
            .and_then(|mut statement| {
                statement
                    .query_map([], |row| row.get(0))?
                    .collect::<rusqlite::Result<_>>()
            })
            .map_err(not_a_database)?;
        let foreign: Vec<&str> = tables
            .iter()
            .map(String::as_str)
            .filter(|table| !schema::TABLES.contains(table))
            .collect();
        // sitemapper's tables come with a schema version: tables without one are another's,
        // whatever their names.
        let version: i64 = self
            .connection
            .query_row("PRAGMA user_version", [], |row| row.get(0))
            .map_err(not_a_database)?;
        let foreign: Vec<&str> = if version == 0 {
            tables.iter().map(String::as_str).collect()
        } else {
            foreign
        };
        if foreign.is_empty() {
            return Ok(());
        }
        let mut named = foreign
            .iter()
            .take(3)
            .copied()
            .collect::<Vec<_>>()
            .join(", ");
        if foreign.len() > 3 {
            named.push_str(", ...");
        }
        Err(StoreError::Foreign {
            path: self.path.clone(),
            tables: named,
        })
    }

    fn configure(&self) -> Result<(), StoreError> {
        // The first statement that reads the file tells a database from anything else.
        self.connection
            .query_row("PRAGMA journal_mode = WAL", [], |_| Ok(()))
            .map_err(|source| StoreError::NotADatabase {
                path: self.path.clone(),
                source,
            })?;
        self.connection
            .execute_batch("PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON; PRAGMA busy_timeout = 5000;")
            .map_err(|source| self.sql_error(source))
    }

    pub(crate) fn sql_error(&self, source: rusqlite::Error) -> StoreError {
        sql_error(&self.path, source)
    }

    /// The file this store lives in.
    pub fn path(&self) -> &Path {
        &self.path
    }
}
