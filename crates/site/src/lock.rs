//! Two runs must never overlap on the same output directory or crawl database (cron jobs
//! that run long, or a manual run during the nightly one). Each run holds an exclusive
//! advisory lock (flock) on the output directory and on the database file for its whole
//! life. The kernel drops the locks when the process ends, however it ends, so a crash or a
//! SIGKILL never leaves a stale lock behind, and no lock file is ever written. SQLite's own
//! locks are POSIX record locks, which do not interact with flock.

use std::fs::{File, TryLockError};
use std::path::Path;

/// Held locks; released when dropped (or when the process ends).
#[derive(Debug)]
pub struct RunLock {
    _held: Vec<File>,
}

/// Why a run could not lock what it needs.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    /// Another run holds the path.
    #[error("another sitemapper run is using {0}; this one stops without touching it")]
    Busy(String),
    /// The path cannot be opened or locked.
    #[error("cannot lock {path}")]
    Io {
        /// The path.
        path: String,
        /// What the system said.
        source: std::io::Error,
    },
}

impl RunLock {
    /// Locks each path: directories as they are, files created first when they do not exist
    /// yet. Creating and locking the crawl database before anything opens it means two runs
    /// started together on a new `--state` file cannot both get in: they open the same file,
    /// and only one gets its lock.
    pub fn acquire(paths: &[&Path]) -> Result<RunLock, LockError> {
        let mut held = Vec::new();
        for path in paths {
            let file = open_for_lock(path).map_err(|source| LockError::Io {
                path: path.display().to_string(),
                source,
            })?;
            match file.try_lock() {
                Ok(()) => held.push(file),
                Err(TryLockError::WouldBlock) => {
                    return Err(LockError::Busy(path.display().to_string()));
                }
                Err(TryLockError::Error(source)) => {
                    return Err(LockError::Io {
                        path: path.display().to_string(),
                        source,
                    });
                }
            }
        }
        Ok(RunLock { _held: held })
    }
}

fn open_for_lock(path: &Path) -> std::io::Result<File> {
    if path.is_dir() {
        return File::open(path);
    }
    // Not `create_new`: an existing database is locked as it is, never truncated.
    File::options()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_lock_on_the_same_directory_is_refused_until_the_first_is_dropped() {
        let directory = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
        let first = RunLock::acquire(&[directory.path()]).unwrap_or_else(|error| panic!("{error}"));
        assert!(matches!(
            RunLock::acquire(&[directory.path()]),
            Err(LockError::Busy(_))
        ));
        drop(first);
        assert!(
            RunLock::acquire(&[directory.path(), &directory.path().join("missing.db")]).is_ok()
        );
    }

    #[test]
    fn a_new_database_file_is_created_and_locked_before_first_use() {
        let directory = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
        let database = directory.path().join("new.db");
        let first = RunLock::acquire(&[&database]).unwrap_or_else(|error| panic!("{error}"));
        assert!(database.is_file());
        assert!(matches!(
            RunLock::acquire(&[&database]),
            Err(LockError::Busy(_))
        ));
        drop(first);
        assert!(RunLock::acquire(&[&database]).is_ok());
    }
}
