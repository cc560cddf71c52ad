//! Two runs must never overlap on the same output directory or crawl database (cron jobs
//! that run long, or a manual run during the nightly one). Each run holds an exclusive
//! advisory lock (flock) on the output directory and on the database file for its whole
//! life. The kernel drops the locks when the process ends, however it ends, so a crash or a
//! SIGKILL never leaves a stale lock behind. SQLite's own locks are POSIX record locks,
//! which do not interact with flock.
//!
//! So that a run refused can say which run it waits for, the holder writes who it is (its
//! PID, when it took the lock) into a record beside each lock: `.sitemapper-lock` inside a
//! directory, `FILE.sitemapper-lock` beside a file. The record is only words for that
//! message: the flock alone decides. The holder keeps a flock on the record too, and a
//! record no run holds (one a killed run left, or whatever a run of an older release, which
//! writes none, finds there) is never shown. The holder removes it when it lets go.

use std::fs::{File, TryLockError};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use jiff::Timestamp;

/// The record's name inside a locked directory, and its suffix beside a locked file.
const RECORD_NAME: &str = ".sitemapper-lock";

/// More than a record ever holds: a record is read through this cap.
const MAX_RECORD_BYTES: u64 = 256;

/// Held locks; released when dropped (or when the process ends).
#[derive(Debug)]
pub struct RunLock {
    _held: Vec<File>,
    /// The records this run wrote, each with its flock held.
    records: Vec<(PathBuf, File)>,
}

/// Why a run could not lock what it needs.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    /// Another run holds the path.
    #[error("another sitemapper run is using {0}; this one stops without touching it")]
    Busy(BusyPath),
    /// The path cannot be opened or locked.
    #[error("cannot lock {path}")]
    Io {
        /// The path.
        path: String,
        /// What the system said.
        source: std::io::Error,
    },
}

/// A path another run holds, and that run, when its record says.
#[derive(Debug)]
pub struct BusyPath {
    /// The path.
    pub path: String,
    /// The run holding it; `None` when it left no record (a release before records, or
    /// a run that has just taken the lock).
    pub holder: Option<LockHolder>,
}

impl std::fmt::Display for BusyPath {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(formatter, "{}", self.path)?;
        if let Some(holder) = &self.holder {
            write!(
                formatter,
                " (PID {}, started {})",
                holder.pid,
                holder.started.strftime("%Y-%m-%d %H:%M:%S UTC")
            )?;
        }
        Ok(())
    }
}

/// The run holding a lock, as its record says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LockHolder {
    /// Its process.
    pub pid: u32,
    /// When it took the lock.
    pub started: Timestamp,
}

impl LockHolder {
    /// This process, now.
    fn this_run() -> LockHolder {
        LockHolder {
            pid: std::process::id(),
            started: Timestamp::now(),
        }
    }

    fn to_record(self) -> String {
        format!("pid {}\nstarted {}\n", self.pid, self.started)
    }

    /// A record as [`LockHolder::to_record`] writes it; anything else is no holder.
    fn from_record(text: &str) -> Option<LockHolder> {
        let value = |name: &str| {
            text.lines()
                .find_map(|line| line.strip_prefix(name)?.strip_prefix(' '))
        };
        Some(LockHolder {
            pid: value("pid")?.parse().ok()?,
            started: value("started")?.parse().ok()?,
        })
    }
}

impl RunLock {
    /// Locks each path: directories as they are, files created first when they do not exist
    /// yet. Creating and locking the crawl database before anything opens it means two runs
    /// started together on a new `--state` file cannot both get in: they open the same file,
    /// and only one gets its lock.
    pub fn acquire(paths: &[&Path]) -> Result<RunLock, LockError> {
        let mut lock = RunLock {
            _held: Vec::new(),
            records: Vec::new(),
        };
        let holder = LockHolder::this_run();
        for path in paths {
            let file = open_for_lock(path).map_err(|source| LockError::Io {
                path: path.display().to_string(),
                source,
            })?;
            match file.try_lock() {
                Ok(()) => lock._held.push(file),
                Err(TryLockError::WouldBlock) => {
                    return Err(LockError::Busy(BusyPath {
                        path: path.display().to_string(),
                        holder: read_record(&record_path(path)),
                    }));
                }
                Err(TryLockError::Error(source)) => {
                    return Err(LockError::Io {
                        path: path.display().to_string(),
                        source,
                    });
                }
            }
            let record = record_path(path);
            match write_record(&record, holder) {
                Ok(file) => lock.records.push((record, file)),
                Err(error) => {
                    tracing::debug!(path = %record.display(), %error, "no lock record written");
                }
            }
        }
        Ok(lock)
    }
}

/// The records go before their locks are released: a record is never removed from under
/// the next holder.
impl Drop for RunLock {
    fn drop(&mut self) {
        for (path, _) in &self.records {
            let _ = std::fs::remove_file(path);
        }
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

/// Where the run holding `path` says who it is.
fn record_path(path: &Path) -> PathBuf {
    if path.is_dir() {
        return path.join(RECORD_NAME);
    }
    let mut name = path.as_os_str().to_owned();
    name.push(RECORD_NAME);
    PathBuf::from(name)
}

/// Takes the record's flock, then writes `holder` into it. The flock is taken before the
/// record is emptied: a run refused a moment ago may still be reading the old one.
fn write_record(path: &Path, holder: LockHolder) -> std::io::Result<File> {
    let mut file = File::options()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)?;
    file.try_lock().map_err(std::io::Error::from)?;
    file.set_len(0)?;
    file.write_all(holder.to_record().as_bytes())?;
    Ok(file)
}

/// The holder a record names, if a live run holds that record.
fn read_record(path: &Path) -> Option<LockHolder> {
    let file = File::open(path).ok()?;
    match file.try_lock_shared() {
        // No run holds it: left by a run that has ended.
        Ok(()) => return None,
        Err(TryLockError::WouldBlock) => {}
        Err(TryLockError::Error(_)) => return None,
    }
    let mut text = String::new();
    file.take(MAX_RECORD_BYTES).read_to_string(&mut text).ok()?;
    LockHolder::from_record(&text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn busy(paths: &[&Path]) -> BusyPath {
        match RunLock::acquire(paths) {
            Err(LockError::Busy(busy)) => busy,
            other => panic!("not refused as busy: {other:?}"),
        }
    }

    #[test]
    fn a_second_lock_on_the_same_directory_is_refused_until_the_first_is_dropped() {
        let directory = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
        let first = RunLock::acquire(&[directory.path()]).unwrap_or_else(|error| panic!("{error}"));
        busy(&[directory.path()]);
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
        busy(&[&database]);
        drop(first);
        assert!(RunLock::acquire(&[&database]).is_ok());
    }

    #[test]
    fn a_refused_run_names_the_holder_until_it_lets_go() {
        let directory = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
        let database = directory.path().join("crawl.db");
        let before = Timestamp::now();
        let first = RunLock::acquire(&[directory.path(), &database])
            .unwrap_or_else(|error| panic!("{error}"));
        for path in [directory.path(), &database] {
            let holder = busy(&[path]).holder;
            assert_eq!(holder.map(|holder| holder.pid), Some(std::process::id()));
            assert!(holder.is_some_and(|holder| holder.started >= before));
        }
        let shown = busy(&[&database]).to_string();
        assert!(
            shown.starts_with(&format!(
                "{} (PID {}, started 2",
                database.display(),
                std::process::id()
            )) && shown.ends_with(" UTC)"),
            "{shown}"
        );
        drop(first);
        assert!(!directory.path().join(RECORD_NAME).exists());
        assert!(!directory.path().join("crawl.db.sitemapper-lock").exists());
    }

    #[test]
    fn a_record_no_run_holds_is_not_shown() {
        let directory = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
        // A killed run's record, and a run that writes none (an older release) holding the
        // directory.
        let record = LockHolder {
            pid: 4_000_000,
            started: Timestamp::UNIX_EPOCH,
        }
        .to_record();
        std::fs::write(directory.path().join(RECORD_NAME), record)
            .unwrap_or_else(|error| panic!("{error}"));
        let older = File::open(directory.path()).unwrap_or_else(|error| panic!("{error}"));
        older.try_lock().unwrap_or_else(|error| panic!("{error}"));
        let refused = busy(&[directory.path()]);
        assert_eq!(refused.holder, None);
        assert_eq!(refused.to_string(), directory.path().display().to_string());
    }

    #[test]
    fn a_record_reads_back_and_anything_else_is_no_holder() {
        let holder = LockHolder {
            pid: 4242,
            started: Timestamp::from_second(1_700_000_000)
                .unwrap_or_else(|error| panic!("{error}")),
        };
        assert_eq!(LockHolder::from_record(&holder.to_record()), Some(holder));
        for text in [
            "",
            "pid 12\n",
            "pid x\nstarted 2024-01-01T00:00:00Z\n",
            "garbage",
        ] {
            assert_eq!(LockHolder::from_record(text), None, "{text:?}");
        }
    }
}
