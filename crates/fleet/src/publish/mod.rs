//! A site's `publish` command, run after each successful run of the site: with `sh -c`, the
//! site in variables (never spliced into the command), bounded in time, and failing the run
//! with the last line it wrote on stderr. It runs in a process group of its own
//! ([`group`]): the run ends when the command itself exits, whatever it left running, and a
//! timeout or the fleet's stop ends the whole group.

mod group;

use std::process::Command;
use std::time::{Duration, Instant};

use tokio::sync::watch;

use crate::file::SiteSpec;
pub use group::Ending;
use group::{End, ProcessGroup};

/// The longest a publish command may take before it is ended and the run failed.
pub const PUBLISH_TIMEOUT: Duration = Duration::from_secs(30 * 60);

// The variables a publish command finds the site in: its values are the operator's own,
// from the fleet file, but are still passed as variables, never spliced into the command.

/// The variable that holds the site's name.
pub const SITE_VARIABLE: &str = "SITEMAPPER_FLEET_SITE";
/// The variable that holds the site's output directory.
pub const OUT_VARIABLE: &str = "SITEMAPPER_FLEET_OUT";
/// The variable that holds the site's URL.
pub const URL_VARIABLE: &str = "SITEMAPPER_FLEET_URL";

/// Why a publish command failed the run, or did not finish it.
#[derive(Debug, thiserror::Error)]
pub enum PublishError {
    /// It could not be started.
    #[error("cannot start the publish command: {0}")]
    Start(std::io::Error),
    /// Its end could not be waited for.
    #[error("cannot wait for the publish command: {0}")]
    Wait(std::io::Error),
    /// It exited with an error: its status, and `: ` with the last line it wrote on stderr.
    #[error("the publish command failed ({status}){said}")]
    Failed {
        /// How it exited.
        status: std::process::ExitStatus,
        /// `: LINE`, the last line of its stderr, or nothing.
        said: String,
    },
    /// It ran past its time ([`PUBLISH_TIMEOUT`]) and its processes were ended.
    #[error("the publish command did not finish in {}: {ending}{said}", in_words(*after))]
    TimedOut {
        /// The time it had.
        after: Duration,
        /// How its processes were ended.
        ending: Ending,
        /// `: LINE`, the last line of its stderr, or nothing.
        said: String,
    },
    /// The fleet stopped (a signal, a lost lease) while it ran, and its processes were ended.
    #[error("stopped during the publish command: {ending}{said}")]
    Stopped {
        /// How its processes were ended.
        ending: Ending,
        /// `: LINE`, the last line of its stderr, or nothing.
        said: String,
    },
    /// The fleet stopped before it was started.
    #[error("stopped before the publish command ran")]
    StoppedBefore,
}

impl PublishError {
    /// Whether the run was stopped from outside rather than failed by the command: such a run
    /// is interrupted, to be run again.
    pub fn stopped(&self) -> bool {
        match self {
            PublishError::Stopped { .. } | PublishError::StoppedBefore => true,
            PublishError::Start(_)
            | PublishError::Wait(_)
            | PublishError::Failed { .. }
            | PublishError::TimedOut { .. } => false,
        }
    }
}

/// Runs the site's publish command (`sh -c`), which finds the site in the variables
/// [`SITE_VARIABLE`], [`OUT_VARIABLE`] and [`URL_VARIABLE`]. A non-zero exit or a timeout
/// fails the run, with the last line the command wrote on stderr; `stop` becoming `true`
/// ends it ([`PublishError::Stopped`]).
///
/// The run ends when the command itself exits. A process it started in the background is
/// left running after a successful exit (a deploy meant to go on), but its stdout and stderr
/// are closed then: one meant to outlive the command redirects them
/// (`nohup cmd >/dev/null 2>&1 &`). At a timeout or a stop the whole process group gets
/// SIGTERM, and what is left of it SIGKILL 5 seconds later.
pub fn run_publish_command(
    command: &str,
    site: &SiteSpec,
    stop: &watch::Receiver<bool>,
) -> Result<(), PublishError> {
    run_within(command, site, stop, PUBLISH_TIMEOUT)
}

/// [`run_publish_command`] with `timeout` for its time.
fn run_within(
    command: &str,
    site: &SiteSpec,
    stop: &watch::Receiver<bool>,
    timeout: Duration,
) -> Result<(), PublishError> {
    if *stop.borrow() {
        return Err(PublishError::StoppedBefore);
    }
    let mut shell = Command::new("sh");
    shell
        .args(["-c", command])
        .env(SITE_VARIABLE, &site.name)
        .env(OUT_VARIABLE, &site.out)
        .env(URL_VARIABLE, &site.url);
    let mut group = ProcessGroup::spawn(shell).map_err(PublishError::Start)?;
    let deadline = Instant::now() + timeout;
    let end = group.wait(deadline, || *stop.borrow());
    let said = last_line(&group.stderr()).map_or(String::new(), |line| format!(": {line}"));
    if let Some(line) = last_line(&group.stdout()) {
        tracing::debug!(site = %site.name, "the publish command's last line on stdout: {line}");
    }
    match end.map_err(PublishError::Wait)? {
        End::Exited(status) if status.success() => Ok(()),
        End::Exited(status) => Err(PublishError::Failed { status, said }),
        End::TimedOut(ending) => Err(PublishError::TimedOut {
            after: timeout,
            ending,
            said,
        }),
        End::Stopped(ending) => Err(PublishError::Stopped { ending, said }),
    }
}

/// The last line of `text` that is not blank, trimmed.
fn last_line(text: &str) -> Option<&str> {
    text.lines()
        .rev()
        .map(str::trim)
        .find(|line| !line.is_empty())
}

/// `30 minutes`, `1 minute`, `90 s`.
fn in_words(duration: Duration) -> String {
    let seconds = duration.as_secs();
    match (seconds / 60, seconds % 60) {
        (1, 0) => "1 minute".to_string(),
        (minutes, 0) if minutes > 0 => format!("{minutes} minutes"),
        _ => format!("{seconds} s"),
    }
}

#[cfg(test)]
mod tests;
