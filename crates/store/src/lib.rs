//! The crawl database (SQLite, embedded): every URL a crawl saw, with its verdict and reason,
//! and the runs that saw them. The binary records crawl events here and writes the sitemap from
//! it; the store itself knows nothing of HTTP, crawling or sitemaps.

mod audits;
mod error;
mod extracted;
mod graph;
mod kept;
mod link_record;
mod links;
mod outbound;
mod page_rows;
mod pages;
mod record;
mod resume;
mod runs;
mod schema;
mod site;
mod sitemap_files;
mod structured;
mod urls;
mod verdict;

use std::path::{Path, PathBuf};

use rusqlite::Connection;

pub use audits::{AUDITS_KEPT, AuditRecord, RecordedFinding};
pub use error::StoreError;
pub(crate) use error::sql_error;
pub use extracted::{ExtractedByPage, PageExtraction};
pub use graph::DeclaredAlternate;
pub use kept::{KeepFailed, KeptPages, TransientCause, TransientFailures};
pub use link_record::{LinkKind, LinkRecord};
pub use links::GraphLink;
pub use outbound::{OutboundCheck, OutboundLink, OutboundOutcome};
pub use record::{Fingerprint, ListedPage, NotListedPage, PageDetails, PageRecord, ReasonCount};
pub use resume::{PendingLink, ResumeCursor};
pub use runs::{ChangeCounts, ChangeReport, RunId, RunStatus, RunSummary};
pub use site::QueuedRow;
pub use sitemap_files::SitemapFileRecord;
pub use verdict::{FailureKind, IgnoredHint, Reason, Rendering, ServedDifference, Verdict};

/// An open crawl database.
#[derive(Debug)]
pub struct Store {
    connection: Connection,
    path: PathBuf,
    /// The ids of the URLs this connection wrote links to.
    url_ids: urls::UrlIds,
    /// The index of links by target is known to be there (see `Store::index_links`).
    links_indexed: std::cell::Cell<bool>,
    /// Whether pages that fail in a way that may pass keep what an earlier run listed.
    keep: Option<KeepFailed>,
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
            url_ids: urls::UrlIds::default(),
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

    fn sql_error(&self, source: rusqlite::Error) -> StoreError {
        sql_error(&self.path, source)
    }

    /// The file this store lives in.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

#[cfg(test)]
mod audit_tests;
#[cfg(test)]
mod schema_tests;
#[cfg(test)]
mod tests;
