//! Waiting for a child process of the benchmark with a time limit, and stopping one as a user
//! or a service manager would: SIGTERM, on which sitemapper closes its browser and nginx's
//! master process stops its workers, then SIGKILL if it has not ended within a grace period.
//! SIGKILL alone would leave their own children running, orphaned.

use std::io;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// How often a child is checked for its exit.
const POLL: Duration = Duration::from_millis(20);

/// Waits for `child` to exit for at most `limit`: its status, or `None` if it still runs.
pub(crate) fn wait_within(child: &mut Child, limit: Duration) -> io::Result<Option<ExitStatus>> {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok(Some(status));
        }
        if Instant::now() >= deadline {
            return Ok(None);
        }
        std::thread::sleep(POLL);
    }
}

/// Sends SIGTERM to `child` (by its pid, with `kill`), waits up to `grace` for it to exit,
/// then kills it; it is reaped either way.
pub(crate) fn terminate(child: &mut Child, grace: Duration) -> io::Result<()> {
    if child.try_wait()?.is_some() {
        return Ok(());
    }
    let signalled = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|status| status.success());
    if signalled && wait_within(child, grace)?.is_some() {
        return Ok(());
    }
    child.kill()?;
    child.wait()?;
    Ok(())
}
