//! A site's `publish` command, run after each successful run of the site: with `sh -c`, the
//! site in variables (never spliced into the command), bounded in time, and failing the run
//! with the last line it wrote on stderr.

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::SiteSpec;

/// The longest a publish command may take before it is killed and the run failed.
pub const PUBLISH_TIMEOUT: Duration = Duration::from_secs(30 * 60);

// The variables a publish command finds the site in: its values are the operator's own,
// from the fleet file, but are still passed as variables, never spliced into the command.

/// The variable that holds the site's name.
pub const SITE_VARIABLE: &str = "SITEMAPPER_FLEET_SITE";
/// The variable that holds the site's output directory.
pub const OUT_VARIABLE: &str = "SITEMAPPER_FLEET_OUT";
/// The variable that holds the site's URL.
pub const URL_VARIABLE: &str = "SITEMAPPER_FLEET_URL";

/// Why a publish command failed the run.
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
    /// It ran past [`PUBLISH_TIMEOUT`] and was killed.
    #[error(
        "the publish command did not finish in {} minutes and was killed{said}",
        PUBLISH_TIMEOUT.as_secs() / 60
    )]
    TimedOut {
        /// `: LINE`, the last line of its stderr, or nothing.
        said: String,
    },
}

/// Runs the site's publish command (`sh -c`), which finds the site in the variables
/// [`SITE_VARIABLE`], [`OUT_VARIABLE`] and [`URL_VARIABLE`]. A non-zero exit or a timeout
/// fails the run, with the last line the command wrote on stderr.
pub fn run_publish_command(command: &str, site: &SiteSpec) -> Result<(), PublishError> {
    let mut child = Command::new("sh")
        .args(["-c", command])
        .env(SITE_VARIABLE, &site.name)
        .env(OUT_VARIABLE, &site.out)
        .env(URL_VARIABLE, &site.url)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(PublishError::Start)?;
    // Read stderr on a thread of its own, so that a chatty command never blocks on a full pipe.
    let stderr = child.stderr.take();
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        if let Some(mut stderr) = stderr {
            let _ = stderr.by_ref().take(64 * 1024).read_to_string(&mut text);
            let _ = std::io::copy(&mut stderr, &mut std::io::sink());
        }
        text
    });
    let deadline = Instant::now() + PUBLISH_TIMEOUT;
    let status = loop {
        if let Some(status) = child.try_wait().map_err(PublishError::Wait)? {
            break Some(status);
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let stderr = reader.join().unwrap_or_default();
    let said = stderr
        .lines()
        .rev()
        .find(|line| !line.trim().is_empty())
        .map_or(String::new(), |line| format!(": {}", line.trim()));
    match status {
        Some(status) if status.success() => Ok(()),
        Some(status) => Err(PublishError::Failed { status, said }),
        None => Err(PublishError::TimedOut { said }),
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::Schedule;

    fn site() -> SiteSpec {
        SiteSpec {
            name: "docs".to_string(),
            url: "https://docs.example/".to_string(),
            out: PathBuf::from("/srv/docs"),
            schedule: Schedule::every("24h").unwrap_or_else(|error| panic!("{error}")),
            retry: Duration::from_secs(60),
            publish: None,
            options: Default::default(),
            line: 1,
        }
    }

    #[test]
    fn the_command_finds_the_site_in_its_variables() {
        let command = r#"test "$SITEMAPPER_FLEET_SITE $SITEMAPPER_FLEET_URL $SITEMAPPER_FLEET_OUT" = "docs https://docs.example/ /srv/docs""#;
        assert!(run_publish_command(command, &site()).is_ok());
    }

    #[test]
    fn a_failing_command_fails_with_the_last_line_it_wrote() {
        let error =
            run_publish_command("echo first >&2; echo 'no space left' >&2; exit 3", &site())
                .err()
                .unwrap_or_else(|| panic!("a failing command succeeded"));
        let text = error.to_string();
        assert!(text.starts_with("the publish command failed ("), "{text}");
        assert!(text.ends_with(": no space left"), "{text}");
    }
}
