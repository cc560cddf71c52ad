//! The browser's processes and profile directory, bound to sitemapper's life however it ends.
//!
//! A process killed outright (SIGKILL, the OOM killer, `timeout -s KILL`) cleans nothing up,
//! and a browser outlives its parent: its renderers go on running a page's scripts, its
//! profile stays in the temp directory. Safe Rust cannot ask the kernel to signal a child when
//! its parent dies (`prctl` needs `unsafe`), so two things bound the browser instead:
//!
//! - Chromium runs in a process group of its own, which its zygotes, renderers, utility and
//!   GPU processes stay in (its crash handlers, `chrome_crashpad_handler`, detach from it but
//!   end as soon as the browser process does). Being out of sitemapper's group, it is also
//!   spared the terminal's Ctrl-C: sitemapper stops it gracefully.
//! - A guard (a few lines of `sh`, in a group of its own too) is started before it and reads
//!   a pipe only sitemapper can write to. The kernel closes that pipe when sitemapper ends,
//!   however it ends, and sitemapper closes it when it lets go of the browser: the guard then
//!   kills whatever is left of the browser's group and removes the profile.
//!
//! A profile left anyway (the guard killed too, as a whole cgroup is) is removed by a later
//! browser start: each live profile holds a lock ([`OWNER_LOCK`]) that ends with its owner.

use std::io;
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use tokio::io::AsyncWriteExt;
use tokio::process::{Child, ChildStderr, ChildStdin, Command};

use crate::owned::{OwnedDirectory, Removal, remove_abandoned};

/// How the names of sitemapper's profile directories start, in the temp directory.
pub(crate) const PROFILE_PREFIX: &str = "sitemapper-chromium-";

/// The guard. `$1` is the profile directory; the first line on stdin is the browser's process
/// group. The guard then reads until the end of the pipe, kills whatever is left of the group
/// and removes the profile (once more a second later, should a process that was still dying
/// have written in it). The group is a number other than 0 and 1, which `kill` would take for
/// the guard's own group and for every process.
const GUARD_SCRIPT: &str = r#"IFS= read -r group
while IFS= read -r _; do :; done
case $group in
  '' | *[!0-9]* | 0 | 1) ;;
  *) kill -s KILL -- "-$group" 2>/dev/null ;;
esac
rm -rf -- "$1" 2>/dev/null || { sleep 1; rm -rf -- "$1" 2>/dev/null; }
"#;

/// How long shutting down waits for the guard to have removed the profile.
const GUARD_EXIT: Duration = Duration::from_secs(5);

/// A browser's profile directory, locked as its owner's while this value lives
/// (`owned.rs`). It is not removed when this value is dropped: the guard removes it once the
/// browser is gone.
#[derive(Debug)]
pub(crate) struct Profile(OwnedDirectory);

impl Profile {
    /// A new profile directory in `temp_dir`, private and locked.
    pub(crate) fn create(temp_dir: &Path) -> io::Result<Profile> {
        OwnedDirectory::create(temp_dir, PROFILE_PREFIX, Removal::ByOther).map(Profile)
    }

    pub(crate) fn path(&self) -> &Path {
        self.0.path()
    }
}

/// Removes the profile directories in `temp_dir` that runs now gone left behind
/// ([`remove_abandoned`]). Returns how many were removed.
pub(crate) fn remove_stale_profiles(temp_dir: &Path, ours: &Profile) -> usize {
    remove_abandoned(temp_dir, PROFILE_PREFIX, ours.path())
}

/// Why the browser's processes could not be started.
#[derive(Debug, thiserror::Error)]
pub(crate) enum StartError {
    /// `/bin/sh`, which guards the browser, did not start.
    #[error("cannot start the shell that guards it (/bin/sh): {0}")]
    Guard(io::Error),
    /// The browser's executable did not start.
    #[error("{0}")]
    Browser(io::Error),
    /// The guard did not take the browser's process group.
    #[error("cannot hand it to its guard: {0}")]
    Watch(io::Error),
}

/// A running browser process in its own process group, with its guard and its profile.
#[derive(Debug)]
pub(crate) struct BrowserProcess {
    process: Child,
    guard: Child,
    /// The guard's end of the pipe: closed, the guard ends the browser's group.
    guard_pipe: Option<ChildStdin>,
    _profile: Profile,
}

impl BrowserProcess {
    /// Starts the guard of `profile`, then `executable` with `arguments` in a process group
    /// of its own, and hands that group to the guard.
    pub(crate) async fn start(
        executable: &Path,
        arguments: &[String],
        profile: Profile,
    ) -> Result<BrowserProcess, StartError> {
        let mut guard = match spawn_guard(profile.path()) {
            Ok(guard) => guard,
            Err(error) => {
                // No guard to remove it.
                let _ = std::fs::remove_dir_all(profile.path());
                return Err(StartError::Guard(error));
            }
        };
        let guard_pipe = guard.stdin.take();
        // From here, dropping what was started ends it: the guard's pipe closes.
        let mut started = BrowserProcess {
            process: Command::new(executable)
                .args(arguments)
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .process_group(0)
                .spawn()
                .map_err(StartError::Browser)?,
            guard,
            guard_pipe,
            _profile: profile,
        };
        let group = started.id().ok_or_else(|| {
            StartError::Browser(io::Error::other("the browser ended as it started"))
        })?;
        let pipe = started
            .guard_pipe
            .as_mut()
            .ok_or_else(|| StartError::Watch(io::Error::other("the guard has no pipe")))?;
        if let Err(error) = pipe.write_all(format!("{group}\n").as_bytes()).await {
            let _ = started.process.start_kill();
            return Err(StartError::Watch(error));
        }
        Ok(started)
    }

    /// The browser's process id, which is its process group's too, while it runs.
    pub(crate) fn id(&self) -> Option<u32> {
        self.process.id()
    }

    /// The browser's stderr, where it says its DevTools address.
    pub(crate) fn take_stderr(&mut self) -> Option<ChildStderr> {
        self.process.stderr.take()
    }

    /// Waits up to `grace` for the browser to end by itself (it was asked to close), then lets
    /// the guard kill what is left and remove the profile, and waits for that too.
    pub(crate) async fn end(&mut self, grace: Duration) {
        let _ = tokio::time::timeout(grace, self.process.wait()).await;
        self.guard_pipe = None;
        if tokio::time::timeout(GUARD_EXIT, self.guard.wait())
            .await
            .is_err()
        {
            tracing::debug!("the browser's guard did not end");
        }
        // Killed by the guard if it had not ended: collected now.
        let _ = tokio::time::timeout(GUARD_EXIT, self.process.wait()).await;
    }
}

/// The guard of `profile`, waiting for the browser's process group on its stdin.
fn spawn_guard(profile: &Path) -> io::Result<Child> {
    Command::new("/bin/sh")
        .arg("-c")
        .arg(GUARD_SCRIPT)
        .arg("sitemapper-browser-guard")
        .arg(profile)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        // Out of sitemapper's group: a signal to that group (Ctrl-C, `timeout`) spares it.
        .process_group(0)
        .spawn()
}

/// Whether this process runs as root, where Chromium's sandbox cannot start.
pub(crate) fn running_as_root() -> bool {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata("/proc/self").is_ok_and(|metadata| metadata.uid() == 0)
}

#[cfg(test)]
mod tests {
    use std::fs::File;
    use std::path::PathBuf;

    use super::*;
    use crate::owned::{OWNER_LOCK, OWNER_LOCK_UNLOCKED, free_owner_lock};

    /// A profile directory in `temp_dir` as a run that is gone left it: the lock free.
    fn left_profile(temp_dir: &Path, name: &str) -> PathBuf {
        let directory = temp_dir.join(name);
        std::fs::create_dir(&directory).unwrap();
        std::fs::write(directory.join(OWNER_LOCK), "").unwrap();
        std::fs::write(directory.join("Local State"), "{}").unwrap();
        directory
    }

    #[test]
    fn profiles_of_runs_that_are_gone_are_removed_and_no_other() {
        let temp_dir = tempfile::tempdir().unwrap();
        let ours = Profile::create(temp_dir.path()).unwrap();
        let stale = left_profile(temp_dir.path(), "sitemapper-chromium-stale");
        let held = left_profile(temp_dir.path(), "sitemapper-chromium-held");
        let holder = File::open(held.join(OWNER_LOCK)).unwrap();
        holder.try_lock().unwrap();
        let live = Profile::create(temp_dir.path()).unwrap();
        let unlocked = temp_dir.path().join("sitemapper-chromium-without-lock");
        std::fs::create_dir(&unlocked).unwrap();
        let other = left_profile(temp_dir.path(), "another-program-stale");
        // A link named as a profile, to a directory that looks stale: neither is touched.
        let outside = tempfile::tempdir().unwrap();
        let target = left_profile(outside.path(), "sitemapper-chromium-target");
        let link = temp_dir.path().join("sitemapper-chromium-link");
        std::os::unix::fs::symlink(&target, &link).unwrap();

        assert_eq!(remove_stale_profiles(temp_dir.path(), &ours), 1);
        assert!(!stale.exists());
        for kept in [ours.path(), &held, live.path(), &unlocked, &other, &target] {
            assert!(kept.is_dir(), "{kept:?}");
        }
        assert!(target.join("Local State").exists());
        assert!(std::fs::symlink_metadata(&link).unwrap().is_symlink());

        drop(holder);
        // A process another test starts shares the lock between its fork and its exec (the
        // descriptor closes on exec): the profile goes once that instant has passed.
        let removed = (0..100).find_map(|_| match remove_stale_profiles(temp_dir.path(), &ours) {
            0 => {
                std::thread::sleep(std::time::Duration::from_millis(20));
                None
            }
            removed => Some(removed),
        });
        assert_eq!(removed, Some(1));
        assert!(!held.exists());
        assert!(live.path().is_dir());
    }

    #[test]
    fn a_new_profile_is_locked_under_its_final_name() {
        let temp_dir = tempfile::tempdir().unwrap();
        let profile = Profile::create(temp_dir.path()).unwrap();
        let name = profile.path().file_name().unwrap().to_str().unwrap();
        assert!(name.starts_with(PROFILE_PREFIX), "{name}");
        assert!(!profile.path().join(OWNER_LOCK_UNLOCKED).exists());
        assert!(free_owner_lock(profile.path()).is_none());
        let path = profile.path().to_path_buf();
        drop(profile);
        assert!(path.is_dir(), "the guard removes it, not the drop");
        // A process another test starts shares the lock between its fork and its exec (the
        // descriptor closes on exec): the lock is free once that instant has passed.
        let freed = (0..100).any(|_| {
            free_owner_lock(&path).is_some() || {
                std::thread::sleep(std::time::Duration::from_millis(20));
                false
            }
        });
        assert!(
            freed,
            "the owner's lock is free once the profile is dropped"
        );
    }

    #[tokio::test]
    async fn letting_go_ends_the_browser_group_and_removes_the_profile() {
        let temp_dir = tempfile::tempdir().unwrap();
        let profile = Profile::create(temp_dir.path()).unwrap();
        let path = profile.path().to_path_buf();
        // A browser with a process of its own, which does not end with the browser.
        let arguments = ["-c".to_string(), "sleep 300 & wait".to_string()];
        let mut browser = BrowserProcess::start(Path::new("/bin/sh"), &arguments, profile)
            .await
            .unwrap();
        let group = browser.id().unwrap();
        browser.end(Duration::ZERO).await;
        assert!(!path.exists());
        assert_eq!(members_after_a_while(group), Vec::<u32>::new());
    }

    #[tokio::test]
    async fn a_browser_dropped_without_shutting_down_is_ended_by_its_guard() {
        let temp_dir = tempfile::tempdir().unwrap();
        let profile = Profile::create(temp_dir.path()).unwrap();
        let path = profile.path().to_path_buf();
        let arguments = ["300".to_string()];
        let browser = BrowserProcess::start(Path::new("sleep"), &arguments, profile)
            .await
            .unwrap();
        let group = browser.id().unwrap();
        // Dropped as the whole would be, but for the guard, which the test waits for.
        let BrowserProcess {
            process,
            mut guard,
            guard_pipe,
            _profile,
        } = browser;
        drop((process, guard_pipe, _profile));
        guard.wait().await.unwrap();
        assert!(!path.exists());
        assert_eq!(members_after_a_while(group), Vec::<u32>::new());
    }

    /// The processes of process group `group` still running 5 s from now, or none as soon as
    /// none is (a process killed takes a moment to end).
    fn members_after_a_while(group: u32) -> Vec<u32> {
        let deadline = std::time::Instant::now() + Duration::from_secs(5);
        loop {
            let members = group_members(group);
            if members.is_empty() || std::time::Instant::now() > deadline {
                return members;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The processes of process group `group` that still run (a zombie has ended).
    fn group_members(group: u32) -> Vec<u32> {
        let mut members = Vec::new();
        for entry in std::fs::read_dir("/proc").unwrap().flatten() {
            let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
                continue;
            };
            let Some((_, fields)) = stat.rsplit_once(')') else {
                continue;
            };
            let fields: Vec<&str> = fields.split_whitespace().collect();
            if fields[0] != "Z" && fields[2] == group.to_string() {
                members.push(entry.file_name().to_str().unwrap().parse().unwrap());
            }
        }
        members
    }
}
