//! Two runs must never overlap on the same output directory or crawl database (cron jobs
//! that run long, or a manual run during the nightly one). Each run holds an exclusive
//! advisory lock (flock) for its whole life on the output directory's own descriptor (the
//! directory opened as one, never a file in it) and on the database file. The kernel drops
//! the locks when the process ends, however it ends, so a crash or a SIGKILL never leaves a
//! stale lock behind. SQLite's own locks are POSIX record locks, which do not interact with
//! flock.
//!
//! So that a run refused can say which run it waits for, the holder writes who it is (its
//! PID, when it took the lock) into a record. The record is only words for that message:
//! the flock alone decides. Records are kept out of the output directory, which the web
//! server serves and others may write (a record there would be published, and a link
//! planted at its name written through by a run as root), and away from the database: in a
//! directory private to the user, as a careful daemon keeps its runtime files:
//! `$XDG_RUNTIME_DIR/sitemapper` when the session has one, else `sitemapper-UID` in the
//! temporary directory; a directory that is a link, another user's, or open to others is
//! not used. A record is named after the device and inode of what is locked
//! (`lock-DEV-INODE`), which both runs learn from the file they open, whatever path named
//! it. It is written under a new name and renamed into place, and read only when it is a
//! regular file. A refused run looks in both places, so that a run from cron (no runtime
//! directory) and one from a login session find each other's; a run of another user cannot
//! read the holder's records, and names no holder.
//!
//! The holder keeps a flock on its record, and a record no run holds (one a killed run
//! left) is never shown, and is removed by the next run that writes one. The holder removes
//! its record when it lets go. Records that earlier versions wrote beside the lock
//! (`.sitemapper-lock` in the directory, `FILE.sitemapper-lock` beside the file) are removed
//! once the lock is held, links included (never what they point to).

use std::fs::{File, TryLockError};
use std::io::{Read, Write};
use std::os::fd::OwnedFd;
use std::os::unix::fs::{DirBuilderExt, MetadataExt};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use jiff::Timestamp;
use rustix::fs::{AtFlags, CWD, Dir, FileType, Mode, OFlags};

/// The start of a record's name in a record directory.
const RECORD_PREFIX: &str = "lock-";

/// The record's name inside a locked directory, and its suffix beside a locked file, as
/// earlier versions wrote it.
const EARLIER_RECORD_NAME: &str = ".sitemapper-lock";

/// More than a record ever holds: a record is read through this cap.
const MAX_RECORD_BYTES: u64 = 256;

/// Held locks; released when dropped (or when the process ends).
#[derive(Debug)]
pub struct RunLock {
    _held: Vec<File>,
    /// The records this run wrote, each with its flock held.
    records: Vec<Record>,
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
    /// The run holding it; `None` when no record of it can be read (a run of another user,
    /// an earlier version, or a run that has just taken the lock).
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
        RunLock::acquire_recorded_in(paths, &RecordDirectory::places())
    }

    /// [`RunLock::acquire`], the records kept in the first of `places` that can be used, and
    /// looked for in each.
    fn acquire_recorded_in(paths: &[&Path], places: &[PathBuf]) -> Result<RunLock, LockError> {
        let mut lock = RunLock {
            _held: Vec::new(),
            records: Vec::new(),
        };
        let holder = LockHolder::this_run();
        // Found (or made) once, when the first lock is taken.
        let directory = std::cell::LazyCell::new(|| RecordDirectory::usable(places));
        for path in paths {
            let io_error = |source| LockError::Io {
                path: path.display().to_string(),
                source,
            };
            let file = open_for_lock(path).map_err(io_error)?;
            let key = record_key(&file).map_err(io_error)?;
            match file.try_lock() {
                Ok(()) => {}
                Err(TryLockError::WouldBlock) => {
                    return Err(LockError::Busy(BusyPath {
                        path: path.display().to_string(),
                        holder: read_record(places, &key),
                    }));
                }
                Err(TryLockError::Error(source)) => return Err(io_error(source)),
            }
            remove_earlier_record(path, &file);
            match directory
                .as_ref()
                .map(|directory| RecordDirectory::write(directory, &key, holder))
            {
                Some(Ok(record)) => lock.records.push(record),
                Some(Err(error)) => {
                    tracing::debug!(path = %path.display(), %error, "no lock record written");
                }
                None => tracing::debug!("no private directory for lock records"),
            }
            lock._held.push(file);
        }
        Ok(lock)
    }
}

/// The records go before their locks are released: a record is never removed from under
/// the next holder.
impl Drop for RunLock {
    fn drop(&mut self) {
        for record in &self.records {
            record.remove();
        }
    }
}

/// Opens `path` to lock it: a directory as itself (following the path the user gave, links
/// included), a file created when missing.
fn open_for_lock(path: &Path) -> std::io::Result<File> {
    if path.is_dir() {
        let handle = rustix::fs::openat(
            CWD,
            path,
            OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Mode::empty(),
        )?;
        return Ok(File::from(handle));
    }
    // Not `create_new`: an existing database is locked as it is, never truncated.
    File::options()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
}

/// The name of the record of what `file` is open on: its device and inode.
fn record_key(file: &File) -> std::io::Result<String> {
    let metadata = file.metadata()?;
    Ok(format!(
        "{RECORD_PREFIX}{}-{}",
        metadata.dev(),
        metadata.ino()
    ))
}

/// Removes the record an earlier version wrote beside the lock on `path`, which it holds
/// now: whatever stands at its name but a directory, a link itself and never what it points
/// to.
fn remove_earlier_record(path: &Path, locked: &File) {
    let removed = if path.is_dir() {
        // Relative to the directory locked, which may be a link the user chose.
        match rustix::fs::statat(locked, EARLIER_RECORD_NAME, AtFlags::SYMLINK_NOFOLLOW) {
            Ok(stat) if FileType::from_raw_mode(stat.st_mode) != FileType::Directory => {
                rustix::fs::unlinkat(locked, EARLIER_RECORD_NAME, AtFlags::empty())
                    .map_err(std::io::Error::from)
            }
            Ok(_) | Err(_) => return,
        }
    } else {
        let mut name = path.as_os_str().to_owned();
        name.push(EARLIER_RECORD_NAME);
        let beside = PathBuf::from(name);
        match std::fs::symlink_metadata(&beside) {
            Ok(metadata) if !metadata.is_dir() => std::fs::remove_file(&beside),
            Ok(_) | Err(_) => return,
        }
    };
    if let Err(error) = removed {
        tracing::debug!(path = %path.display(), %error, "an earlier version's lock record stays");
    }
}

/// The holder a record names, if a live run holds that record, in whichever of `places`
/// it is.
fn read_record(places: &[PathBuf], key: &str) -> Option<LockHolder> {
    places
        .iter()
        .filter_map(|place| RecordDirectory::open(place, false).ok())
        .find_map(|directory| directory.read(key))
}

/// A directory of this user's alone, held open, where records are kept.
#[derive(Debug)]
struct RecordDirectory {
    path: PathBuf,
    handle: OwnedFd,
}

/// A record written, with its flock held until it is removed.
#[derive(Debug)]
struct Record {
    directory: Arc<RecordDirectory>,
    name: String,
    file: File,
}

impl RecordDirectory {
    /// Where records may be kept, best first: the session's runtime directory (a tmpfs of
    /// the user's, emptied when the session ends), then the temporary directory.
    fn places() -> Vec<PathBuf> {
        let user = rustix::process::geteuid().as_raw();
        let runtime = std::env::var_os("XDG_RUNTIME_DIR")
            .map(PathBuf::from)
            .filter(|path| path.is_absolute())
            .map(|path| path.join("sitemapper"));
        runtime
            .into_iter()
            .chain([std::env::temp_dir().join(format!("sitemapper-{user}"))])
            .collect()
    }

    /// The first of `places` that can be used, made when missing.
    fn usable(places: &[PathBuf]) -> Option<Arc<RecordDirectory>> {
        places.iter().find_map(|place| {
            RecordDirectory::open(place, true)
                .inspect_err(|error| {
                    tracing::debug!(path = %place.display(), %error, "not used for lock records");
                })
                .ok()
                .map(Arc::new)
        })
    }

    /// Opens `path`, made first (0700) when `create` and it is missing. Refused unless it
    /// is a directory itself (not a link), this user's, and closed to everyone else.
    fn open(path: &Path, create: bool) -> std::io::Result<RecordDirectory> {
        if create {
            match std::fs::DirBuilder::new().mode(0o700).create(path) {
                Err(error) if error.kind() != std::io::ErrorKind::AlreadyExists => {
                    return Err(error);
                }
                Ok(()) | Err(_) => {}
            }
        }
        let handle = rustix::fs::openat(
            CWD,
            path,
            OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::empty(),
        )?;
        let stat = rustix::fs::fstat(&handle)?;
        let private = stat.st_uid == rustix::process::geteuid().as_raw()
            && !Mode::from_raw_mode(stat.st_mode).intersects(Mode::RWXG | Mode::RWXO);
        if !private {
            return Err(std::io::Error::new(
                std::io::ErrorKind::PermissionDenied,
                "not a directory of this user's alone",
            ));
        }
        Ok(RecordDirectory {
            path: path.to_path_buf(),
            handle,
        })
    }

    /// Writes `holder` as the record `name`: new, under a name of this process's, flocked,
    /// then renamed over whatever stands at `name`. Records no run holds go first.
    fn write(
        directory: &Arc<RecordDirectory>,
        name: &str,
        holder: LockHolder,
    ) -> std::io::Result<Record> {
        directory.remove_unheld();
        let temporary = format!(".{name}.{}", std::process::id());
        // A temporary a killed run of the same PID left went with the records no run holds.
        let mut file = File::from(rustix::fs::openat(
            &directory.handle,
            temporary.as_str(),
            OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::RUSR | Mode::WUSR,
        )?);
        let written = file
            .try_lock()
            .map_err(std::io::Error::from)
            .and_then(|()| file.write_all(holder.to_record().as_bytes()))
            .and_then(|()| {
                rustix::fs::renameat(
                    &directory.handle,
                    temporary.as_str(),
                    &directory.handle,
                    name,
                )
                .map_err(std::io::Error::from)
            });
        if let Err(error) = written {
            let _ = rustix::fs::unlinkat(&directory.handle, temporary.as_str(), AtFlags::empty());
            return Err(error);
        }
        Ok(Record {
            directory: Arc::clone(directory),
            name: name.to_string(),
            file,
        })
    }

    /// The holder the record `name` names, when a live run holds it.
    fn read(&self, name: &str) -> Option<LockHolder> {
        let file = self.open_record(name)?;
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

    /// The record `name` open for reading, when it is a regular file.
    fn open_record(&self, name: &str) -> Option<File> {
        let handle = rustix::fs::openat(
            &self.handle,
            name,
            OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC,
            Mode::empty(),
        )
        .ok()?;
        let stat = rustix::fs::fstat(&handle).ok()?;
        (FileType::from_raw_mode(stat.st_mode) == FileType::RegularFile).then(|| File::from(handle))
    }

    /// Removes the records no run holds: those killed runs left. A record is taken (its
    /// flock) before it is removed, and removed only while its name is still that file.
    fn remove_unheld(&self) {
        let Ok(entries) = Dir::read_from(&self.handle) else {
            return;
        };
        for entry in entries.flatten() {
            let Ok(name) = entry.file_name().to_str() else {
                continue;
            };
            if !name.starts_with(RECORD_PREFIX) && !name.starts_with(&format!(".{RECORD_PREFIX}")) {
                continue;
            }
            let Some(file) = self.open_record(name) else {
                continue;
            };
            if file.try_lock().is_ok() && self.still_names(name, &file) {
                let _ = rustix::fs::unlinkat(&self.handle, name, AtFlags::empty());
            }
        }
    }

    /// Whether `name` in this directory is `file` (not replaced since it was opened).
    fn still_names(&self, name: &str, file: &File) -> bool {
        let (Ok(standing), Ok(open)) = (
            rustix::fs::statat(&self.handle, name, AtFlags::SYMLINK_NOFOLLOW),
            rustix::fs::fstat(file),
        ) else {
            return false;
        };
        (standing.st_dev, standing.st_ino) == (open.st_dev, open.st_ino)
    }
}

impl Record {
    /// Removes the record, unless its name is another file's by now.
    fn remove(&self) {
        if self.directory.still_names(&self.name, &self.file) {
            let _ =
                rustix::fs::unlinkat(&self.directory.handle, self.name.as_str(), AtFlags::empty());
        } else {
            tracing::debug!(path = %self.directory.path.join(&self.name).display(), "lock record replaced");
        }
    }
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::{PermissionsExt, symlink};

    use super::*;
    use crate::fixture::names_in;

    /// A private place for the records of a test, and its path.
    fn records() -> (tempfile::TempDir, Vec<PathBuf>) {
        let directory = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
        let place = directory.path().join("records");
        (directory, vec![place])
    }

    fn acquire(paths: &[&Path], places: &[PathBuf]) -> RunLock {
        RunLock::acquire_recorded_in(paths, places).unwrap_or_else(|error| panic!("{error}"))
    }

    fn busy(paths: &[&Path], places: &[PathBuf]) -> BusyPath {
        match RunLock::acquire_recorded_in(paths, places) {
            Err(LockError::Busy(busy)) => busy,
            other => panic!("not refused as busy: {other:?}"),
        }
    }

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
        let (_records, places) = records();
        let directory = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
        let database = directory.path().join("new.db");
        let first = acquire(&[&database], &places);
        assert!(database.is_file());
        busy(&[&database], &places);
        drop(first);
        assert!(RunLock::acquire_recorded_in(&[&database], &places).is_ok());
    }

    #[test]
    fn a_refused_run_names_the_holder_until_it_lets_go_and_nothing_is_written_beside_the_locks() {
        let (records, places) = records();
        let directory = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
        let database = directory.path().join("crawl.db");
        let before = Timestamp::now();
        let first = acquire(&[directory.path(), &database], &places);
        // The same directory by another path: the record is the directory's, not the path's.
        let link = records.path().join("link");
        symlink(directory.path(), &link).unwrap_or_else(|error| panic!("{error}"));
        for path in [directory.path(), &database, &link] {
            let holder = busy(&[path], &places).holder;
            assert_eq!(holder.map(|holder| holder.pid), Some(std::process::id()));
            assert!(holder.is_some_and(|holder| holder.started >= before));
        }
        let shown = busy(&[&database], &places).to_string();
        assert!(
            shown.starts_with(&format!(
                "{} (PID {}, started 2",
                database.display(),
                std::process::id()
            )) && shown.ends_with(" UTC)"),
            "{shown}"
        );
        assert_eq!(
            names_in(directory.path()),
            ["crawl.db"],
            "no record beside a lock"
        );
        assert_eq!(names_in(&places[0]).len(), 2, "a record of each lock");
        let mode = std::fs::metadata(&places[0])
            .unwrap_or_else(|error| panic!("{error}"))
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o700);
        drop(first);
        assert!(names_in(&places[0]).is_empty(), "records removed");
    }

    #[test]
    fn a_record_no_run_holds_is_not_shown_and_goes_when_a_run_writes_one() {
        let (_records, places) = records();
        let directory = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
        // A killed run's record of this directory, and a run that writes none (an earlier
        // version) holding it.
        std::fs::DirBuilder::new()
            .mode(0o700)
            .create(&places[0])
            .unwrap_or_else(|error| panic!("{error}"));
        let older = File::open(directory.path()).unwrap_or_else(|error| panic!("{error}"));
        let key = record_key(&older).unwrap_or_else(|error| panic!("{error}"));
        let killed = LockHolder {
            pid: 4_000_000,
            started: Timestamp::UNIX_EPOCH,
        };
        std::fs::write(places[0].join(&key), killed.to_record())
            .unwrap_or_else(|error| panic!("{error}"));
        std::fs::write(places[0].join("lock-1-2"), killed.to_record())
            .unwrap_or_else(|error| panic!("{error}"));
        older.try_lock().unwrap_or_else(|error| panic!("{error}"));
        let refused = busy(&[directory.path()], &places);
        assert_eq!(refused.holder, None);
        assert_eq!(refused.to_string(), directory.path().display().to_string());
        drop(older);

        let other = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
        let lock = acquire(&[other.path()], &places);
        assert_eq!(names_in(&places[0]).len(), 1, "only the live run's record");
        drop(lock);
    }

    #[test]
    fn links_at_the_names_earlier_versions_wrote_are_removed_and_not_followed() {
        let (_records, places) = records();
        let directory = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
        let elsewhere = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
        let victim = elsewhere.path().join("victim");
        std::fs::write(&victim, "the victim's").unwrap_or_else(|error| panic!("{error}"));
        let database = directory.path().join("crawl.db");
        for name in [".sitemapper-lock", "crawl.db.sitemapper-lock"] {
            symlink(&victim, directory.path().join(name)).unwrap_or_else(|error| panic!("{error}"));
        }
        let lock = acquire(&[directory.path(), &database], &places);
        assert_eq!(
            std::fs::read(&victim).unwrap_or_else(|error| panic!("{error}")),
            b"the victim's"
        );
        assert_eq!(names_in(directory.path()), ["crawl.db"]);
        drop(lock);
    }

    #[test]
    fn a_place_that_is_a_link_or_open_to_others_keeps_no_record() {
        let holder = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
        let real = holder.path().join("real");
        std::fs::DirBuilder::new()
            .mode(0o700)
            .create(&real)
            .unwrap_or_else(|error| panic!("{error}"));
        let link = holder.path().join("link");
        symlink(&real, &link).unwrap_or_else(|error| panic!("{error}"));
        let open = holder.path().join("open");
        std::fs::DirBuilder::new()
            .mode(0o755)
            .create(&open)
            .unwrap_or_else(|error| panic!("{error}"));
        std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o777))
            .unwrap_or_else(|error| panic!("{error}"));
        let directory = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
        let places = [link, open.clone()];
        let lock = acquire(&[directory.path()], &places);
        assert!(names_in(&real).is_empty());
        assert!(names_in(&open).is_empty());
        assert_eq!(
            busy(&[directory.path()], &places).holder,
            None,
            "locked all the same"
        );
        drop(lock);
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
