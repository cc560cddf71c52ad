//! A site's crawl database as it travels between machines through the queue: a consistent
//! snapshot of the SQLite file, taken while the crawl writes to it, gzip-compressed; and
//! back into a file, beside which a worker notes which generation of the queue's copy it is.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use flate2::Compression;
use flate2::read::GzDecoder;
use flate2::write::GzEncoder;
use rusqlite::{Connection, OpenFlags};

/// The largest crawl database restored: a gzip bomb in the registry must not fill the disk.
const MAX_DATABASE_BYTES: u64 = 16 * 1024 * 1024 * 1024;

/// Why a crawl database could not be saved or restored.
#[derive(Debug, thiserror::Error)]
pub enum StateError {
    /// The copy could not be made.
    #[error("cannot snapshot the crawl database {path}: {message}")]
    Snapshot {
        /// The database.
        path: String,
        /// What went wrong.
        message: String,
    },
    /// The file could not be written.
    #[error("cannot restore the crawl database {path}: {message}")]
    Restore {
        /// The database.
        path: String,
        /// What went wrong.
        message: String,
    },
}

/// A consistent copy of the SQLite database at `database` (SQLite's `VACUUM INTO`, which
/// reads one snapshot while the crawl goes on writing), gzip-compressed.
pub fn snapshot(database: &Path) -> Result<Vec<u8>, StateError> {
    let failed = |message: String| StateError::Snapshot {
        path: database.display().to_string(),
        message,
    };
    // The copy holds what a protected site showed: private, as the state directory is.
    let directory = tempfile::Builder::new()
        .prefix(".sitemapper-snapshot-")
        .permissions(std::os::unix::fs::PermissionsExt::from_mode(0o700))
        .tempdir_in(database.parent().unwrap_or(Path::new(".")))
        .map_err(|error| failed(error.to_string()))?;
    let copy = directory.path().join("crawl.db");
    let connection = Connection::open_with_flags(database, OpenFlags::SQLITE_OPEN_READ_ONLY)
        .map_err(|error| failed(error.to_string()))?;
    connection
        .busy_timeout(std::time::Duration::from_secs(30))
        .map_err(|error| failed(error.to_string()))?;
    connection
        .execute("VACUUM INTO ?1", [copy.to_string_lossy()])
        .map_err(|error| failed(error.to_string()))?;
    drop(connection);
    let mut file = std::fs::File::open(&copy).map_err(|error| failed(error.to_string()))?;
    let mut encoder = GzEncoder::new(Vec::new(), Compression::fast());
    std::io::copy(&mut file, &mut encoder).map_err(|error| failed(error.to_string()))?;
    encoder.finish().map_err(|error| failed(error.to_string()))
}

/// Writes the database `gzip` holds to `database`, replacing what was there (with the
/// write-ahead log and shared memory files of the old one, which would otherwise be
/// replayed over the new file).
pub fn restore(gzip: &[u8], database: &Path) -> Result<(), StateError> {
    let failed = |message: String| StateError::Restore {
        path: database.display().to_string(),
        message,
    };
    let directory = database.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(directory).map_err(|error| failed(error.to_string()))?;
    let mut staged =
        tempfile::NamedTempFile::new_in(directory).map_err(|error| failed(error.to_string()))?;
    let mut decoder = GzDecoder::new(gzip).take(MAX_DATABASE_BYTES + 1);
    let written =
        std::io::copy(&mut decoder, &mut staged).map_err(|error| failed(error.to_string()))?;
    if written > MAX_DATABASE_BYTES {
        return Err(failed(format!("larger than {MAX_DATABASE_BYTES} bytes")));
    }
    staged.flush().map_err(|error| failed(error.to_string()))?;
    remove(database)?;
    staged
        .persist(database)
        .map_err(|error| failed(error.to_string()))?;
    Ok(())
}

/// Removes the database at `database` with its write-ahead log and shared memory files.
pub fn remove(database: &Path) -> Result<(), StateError> {
    for suffix in ["", "-wal", "-shm"] {
        let mut path = database.as_os_str().to_owned();
        path.push(suffix);
        match std::fs::remove_file(&path) {
            Ok(()) => {}
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
            Err(error) => {
                return Err(StateError::Restore {
                    path: database.display().to_string(),
                    message: error.to_string(),
                });
            }
        }
    }
    Ok(())
}

/// A site's crawl database on a worker, with the file beside it that says which generation
/// of the queue's copy it is (or is newer than): the worker that ran a site last need not
/// fetch the site's database again.
#[derive(Debug, Clone)]
pub(crate) struct SiteDatabase {
    path: PathBuf,
}

impl SiteDatabase {
    /// The crawl database at `path` (its generation file is beside it).
    pub(crate) fn new(path: PathBuf) -> SiteDatabase {
        SiteDatabase { path }
    }

    /// The crawl database.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// The generation of the queue's copy this database is, when the database is there and
    /// its generation file says.
    pub(crate) fn generation(&self) -> Option<i64> {
        if !self.path.is_file() {
            return None;
        }
        std::fs::read_to_string(self.generation_file())
            .ok()?
            .trim()
            .parse()
            .ok()
    }

    /// Notes that this database is of `generation`. A file that cannot be written is only
    /// logged: the next claim of the site fetches the queue's copy again.
    pub(crate) fn remember(&self, generation: i64) {
        let file = self.generation_file();
        if let Err(error) = std::fs::write(&file, generation.to_string()) {
            tracing::warn!("cannot write {}: {error}", file.display());
        }
    }

    fn generation_file(&self) -> PathBuf {
        self.path.with_extension("generation")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_database_written_to_travels_whole() {
        let directory = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
        let original = directory.path().join("a.db");
        let writer = Connection::open(&original).unwrap_or_else(|error| panic!("{error}"));
        writer
            .execute_batch(
                "PRAGMA journal_mode = WAL; CREATE TABLE t (n INTEGER);
                 INSERT INTO t VALUES (1), (2), (3);",
            )
            .unwrap_or_else(|error| panic!("{error}"));
        // The writer keeps it open, with its log not yet checkpointed.
        let saved = snapshot(&original).unwrap_or_else(|error| panic!("{error}"));
        let restored = directory.path().join("b").join("a.db");
        std::fs::create_dir_all(directory.path().join("b"))
            .unwrap_or_else(|error| panic!("{error}"));
        std::fs::write(format!("{}-wal", restored.display()), b"stale")
            .unwrap_or_else(|error| panic!("{error}"));
        restore(&saved, &restored).unwrap_or_else(|error| panic!("{error}"));
        assert!(!directory.path().join("b/a.db-wal").exists());
        let reader = Connection::open(&restored).unwrap_or_else(|error| panic!("{error}"));
        let sum: i64 = reader
            .query_row("SELECT sum(n) FROM t", [], |row| row.get(0))
            .unwrap_or_else(|error| panic!("{error}"));
        assert_eq!(sum, 6);
        assert!(restore(b"not gzip", &restored).is_err());
    }
}
