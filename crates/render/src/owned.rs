//! Directories of sitemapper's own in the temp directory, private to their user (0700) and
//! owned by a live run: each holds a lock ([`OWNER_LOCK`]) that its run keeps while it lives.
//! A run killed outright (SIGKILL, the OOM killer, `timeout -s KILL`) cleans nothing up; the
//! next run finds the lock free and removes what it left (docs/design.md, Safety). The
//! browser's profiles are such directories, and so is a crawl's temporary database.

use std::fs::File;
use std::io;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// The file in an owned directory whose lock its owner holds while it lives: a directory
/// whose lock can be taken belongs to a run that is gone.
pub(crate) const OWNER_LOCK: &str = "sitemapper-owner.lock";

/// The owner's lock before it is locked: under this name until it is, so that no other run
/// ever finds the lock of a live run free.
pub(crate) const OWNER_LOCK_UNLOCKED: &str = "sitemapper-owner.lock.new";

/// Who removes an owned directory once its run is done with it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Removal {
    /// It is removed when the value is dropped.
    OnDrop,
    /// Something else removes it (the browser's guard, once the browser is gone).
    ByOther,
}

/// A directory in the temp directory, private to its user, locked as its owner's while this
/// value lives.
#[derive(Debug)]
pub struct OwnedDirectory {
    path: PathBuf,
    _owner: File,
    removal: Removal,
}

impl OwnedDirectory {
    /// A new directory in `temp_dir`, named `prefix` and a random part, readable by its user
    /// alone, and locked.
    pub fn create(temp_dir: &Path, prefix: &str, removal: Removal) -> io::Result<OwnedDirectory> {
        let directory = tempfile::Builder::new()
            .prefix(prefix)
            .permissions(std::fs::Permissions::from_mode(0o700))
            .tempdir_in(temp_dir)?;
        let unlocked = directory.path().join(OWNER_LOCK_UNLOCKED);
        let owner = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&unlocked)?;
        owner.try_lock()?;
        std::fs::rename(&unlocked, directory.path().join(OWNER_LOCK))?;
        Ok(OwnedDirectory {
            path: directory.keep(),
            _owner: owner,
            removal,
        })
    }

    /// Where it is.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for OwnedDirectory {
    fn drop(&mut self) {
        if self.removal == Removal::OnDrop
            && let Err(error) = std::fs::remove_dir_all(&self.path)
        {
            tracing::debug!(directory = %self.path.display(), %error, "cannot remove a temporary directory");
        }
    }
}

/// Removes the directories in `temp_dir` that runs now gone left behind: those named with
/// `prefix`, owned by the same user as `ours`, whose owner's lock is free. Anything else is
/// left alone: a symbolic link (never followed), a directory of another user or program, or
/// one without the lock (made by a version of sitemapper before the lock, whose owner cannot
/// be told alive or gone). Returns how many were removed.
pub fn remove_abandoned(temp_dir: &Path, prefix: &str, ours: &Path) -> usize {
    let Ok(owner) = std::fs::metadata(ours).map(|metadata| metadata.uid()) else {
        return 0;
    };
    let Ok(entries) = std::fs::read_dir(temp_dir) else {
        return 0;
    };
    let mut removed = 0;
    for entry in entries.flatten() {
        let named_ours = entry
            .file_name()
            .to_str()
            .is_some_and(|name| name.starts_with(prefix));
        let path = entry.path();
        if !named_ours || path == ours {
            continue;
        }
        let Ok(metadata) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        if !metadata.is_dir() || metadata.uid() != owner {
            continue;
        }
        // Held while the directory is removed: another run sweeping at the same time skips it.
        let Some(_lock) = free_owner_lock(&path) else {
            continue;
        };
        match std::fs::remove_dir_all(&path) {
            Ok(()) => {
                tracing::info!(directory = %path.display(), "removed a temporary directory of a run that is gone");
                removed += 1;
            }
            Err(error) => {
                tracing::debug!(directory = %path.display(), %error, "cannot remove a stale temporary directory");
            }
        }
    }
    removed
}

/// The owner's lock of `directory`, taken, when its owner is gone.
pub(crate) fn free_owner_lock(directory: &Path) -> Option<File> {
    let path = directory.join(OWNER_LOCK);
    if !std::fs::symlink_metadata(&path).ok()?.is_file() {
        return None;
    }
    let lock = File::open(&path).ok()?;
    lock.try_lock().ok()?;
    Some(lock)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_owned_directory_is_private_and_removed_when_dropped_if_asked() {
        let temp_dir = tempfile::tempdir().unwrap();
        let owned =
            OwnedDirectory::create(temp_dir.path(), "sitemapper-", Removal::OnDrop).unwrap();
        let mode = std::fs::metadata(owned.path())
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o700);
        let path = owned.path().to_path_buf();
        drop(owned);
        assert!(!path.exists());
        let kept =
            OwnedDirectory::create(temp_dir.path(), "sitemapper-", Removal::ByOther).unwrap();
        let path = kept.path().to_path_buf();
        drop(kept);
        assert!(path.is_dir());
    }
}
