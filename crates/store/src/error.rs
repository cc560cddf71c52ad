//! [`StoreError`], what can go wrong with a crawl database, and how a failed statement becomes
//! one. It names only the crate's verdict codes.

use std::path::{Path, PathBuf};

use crate::verdict;

/// What can go wrong with a crawl database; every variant names the file.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The file cannot be opened or created.
    #[error("cannot open crawl database {path}: {source}")]
    Open {
        /// The database file.
        path: PathBuf,
        /// What SQLite said.
        source: rusqlite::Error,
    },
    /// The file is something else than an SQLite database.
    #[error("{path} is not a sitemapper crawl database: {source}")]
    NotADatabase {
        /// The database file.
        path: PathBuf,
        /// What SQLite said.
        source: rusqlite::Error,
    },
    /// The path is a symbolic link: a crawl database is opened as the file itself, so that
    /// nothing is written through a link someone else planted.
    #[error(
        "crawl database {path} is a symbolic link, which is never written through: give the file itself"
    )]
    Link {
        /// The path given.
        path: PathBuf,
    },
    /// The file is an SQLite database another program made: its tables are not sitemapper's.
    /// It is left as it was (docs/design.md, Safety).
    #[error(
        "{path} is another program's database (it holds tables sitemapper did not create: {tables}); it is left as it was: give a file of sitemapper's own"
    )]
    Foreign {
        /// The database file.
        path: PathBuf,
        /// Some of the tables that are not sitemapper's, comma-separated.
        tables: String,
    },
    /// The file was written by a newer build, with a schema this one does not know.
    #[error(
        "crawl database {path} was written by a newer sitemapper (schema version {found}, this one knows up to {known})"
    )]
    TooNew {
        /// The database file.
        path: PathBuf,
        /// The schema version the file has.
        found: i64,
        /// The newest schema version this build knows.
        known: i64,
    },
    /// A statement failed (disk full, I/O error, a lock held too long).
    #[error("crawl database {path}: {source}")]
    Sql {
        /// The database file.
        path: PathBuf,
        /// What SQLite said.
        source: rusqlite::Error,
    },
    /// A value this build cannot read back, such as a verdict or reason code it does not know.
    #[error("crawl database {path} holds an unexpected value: {detail}")]
    Corrupt {
        /// The database file.
        path: PathBuf,
        /// Which value, and what it was.
        detail: String,
    },
}

/// A failed statement; a code this build does not know is a corrupt database.
pub(crate) fn sql_error(path: &Path, source: rusqlite::Error) -> StoreError {
    if let rusqlite::Error::FromSqlConversionFailure(_, _, cause) = &source
        && let Some(unknown) = cause.downcast_ref::<verdict::UnknownCode>()
    {
        return StoreError::Corrupt {
            path: path.to_path_buf(),
            detail: unknown.to_string(),
        };
    }
    StoreError::Sql {
        path: path.to_path_buf(),
        source,
    }
}
