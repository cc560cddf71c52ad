use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use tokio::sync::watch;

use super::*;
use crate::schedule::Schedule;

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

/// A stop that never comes, and the sender that keeps it open.
fn no_stop() -> (watch::Sender<bool>, watch::Receiver<bool>) {
    watch::channel(false)
}

fn run(command: &str, timeout: Duration) -> Result<(), PublishError> {
    let (_sender, stop) = no_stop();
    run_within(command, &site(), &stop, timeout)
}

/// The process id a command wrote into `file`.
fn written_pid(file: &Path) -> Pid {
    let text = std::fs::read_to_string(file).unwrap_or_else(|error| panic!("{error}"));
    Pid::from_raw(
        text.trim()
            .parse()
            .unwrap_or_else(|error| panic!("{text:?}: {error}")),
    )
}

/// Whether the process has ended: no such process, or a zombie (its parent gone too, and the
/// process that inherits orphans not reaping them).
fn ended(pid: Pid) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit_once(") ")
            .is_some_and(|(_, rest)| rest.starts_with('Z')),
    }
}

fn temporary_directory() -> tempfile::TempDir {
    tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"))
}

#[test]
fn the_command_finds_the_site_in_its_variables() {
    let command = r#"test "$SITEMAPPER_FLEET_SITE $SITEMAPPER_FLEET_URL $SITEMAPPER_FLEET_OUT" = "docs https://docs.example/ /srv/docs""#;
    assert!(run(command, PUBLISH_TIMEOUT).is_ok());
}

#[test]
fn a_failing_command_fails_with_the_last_line_it_wrote() {
    let error = run(
        "echo first >&2; echo 'no space left' >&2; exit 3",
        PUBLISH_TIMEOUT,
    )
    .err()
    .unwrap_or_else(|| panic!("a failing command succeeded"));
    assert!(!error.stopped());
    let text = error.to_string();
    assert!(text.starts_with("the publish command failed ("), "{text}");
    assert!(text.ends_with(": no space left"), "{text}");
}

#[test]
fn the_last_line_is_kept_after_any_amount_of_output() {
    // 1 MiB on each stream before the line: what is kept is the streams' tails.
    let command = "head -c 1048576 /dev/zero | tr '\\0' x; head -c 1048576 /dev/zero | tr '\\0' x >&2; \
                   echo >&2; echo 'the last line' >&2; exit 1";
    let text = run(command, PUBLISH_TIMEOUT)
        .err()
        .unwrap_or_else(|| panic!("a failing command succeeded"))
        .to_string();
    assert!(text.ends_with("(exit status: 1): the last line"), "{text}");
}

#[test]
fn a_command_past_its_time_is_ended_with_the_processes_it_started() {
    let directory = temporary_directory();
    let pid_file = directory.path().join("pid");
    let command = format!(
        "echo working >&2; sleep 60 & echo $! > '{}'; wait",
        pid_file.display()
    );
    let error = run(&command, Duration::from_secs(1))
        .err()
        .unwrap_or_else(|| panic!("a command past its time succeeded"));
    assert!(
        matches!(error, PublishError::TimedOut { after, .. } if after == Duration::from_secs(1)),
        "{error:?}"
    );
    assert!(!error.stopped());
    let text = error.to_string();
    assert!(
        text.starts_with(
            "the publish command did not finish in 1 s: its processes were ended with SIGTERM"
        ),
        "{text}"
    );
    assert!(text.ends_with(": working"), "{text}");
    // The background process was in the command's group, and was ended with it.
    assert!(ended(written_pid(&pid_file)));
}

#[test]
fn a_command_that_ignores_sigterm_is_killed_after_the_grace() {
    let directory = temporary_directory();
    let pid_file = directory.path().join("pid");
    // The shell and the sleep it starts both ignore SIGTERM (an ignored signal is inherited).
    let command = format!(
        "trap '' TERM; sleep 60 & echo $! > '{}'; wait",
        pid_file.display()
    );
    let error = run(&command, Duration::from_secs(1))
        .err()
        .unwrap_or_else(|| panic!("a command past its time succeeded"));
    assert!(
        matches!(
            error,
            PublishError::TimedOut {
                ending: Ending::Killed,
                ..
            }
        ),
        "{error:?}"
    );
    assert_eq!(
        error.to_string(),
        "the publish command did not finish in 1 s: its processes were ended with SIGTERM, \
         then SIGKILL after 5 s"
    );
    assert!(ended(written_pid(&pid_file)));
}

#[test]
fn a_process_left_behind_holding_the_output_does_not_hold_the_run() {
    let directory = temporary_directory();
    let pid_file = directory.path().join("pid");
    let command = format!("sleep 60 >&2 & echo $! > '{}'", pid_file.display());
    let started = Instant::now();
    let published = run(&command, PUBLISH_TIMEOUT);
    // Bounded by the command, which returns at once, not by the 60 s of what it left behind.
    let took = started.elapsed();
    let left_behind = written_pid(&pid_file);
    // A process started in the background is left alone after a successful command.
    let still_running = !ended(left_behind);
    let _ = kill(left_behind, Signal::SIGKILL);
    assert!(published.is_ok(), "{published:?}");
    assert!(took < Duration::from_secs(15), "{took:?}");
    assert!(still_running);
}

#[test]
fn a_stop_before_the_command_runs_it_not() {
    let directory = temporary_directory();
    let ran = directory.path().join("ran");
    let (sender, stop) = watch::channel(false);
    sender.send_replace(true);
    let command = format!("touch '{}'", ran.display());
    let error = run_within(&command, &site(), &stop, PUBLISH_TIMEOUT)
        .err()
        .unwrap_or_else(|| panic!("a stopped command succeeded"));
    assert!(error.stopped());
    assert_eq!(error.to_string(), "stopped before the publish command ran");
    assert!(!ran.exists());
}

#[test]
fn a_stop_during_the_command_ends_its_group() {
    let directory = temporary_directory();
    let fifo = directory.path().join("started");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap_or_else(|error| panic!("{error}"));
    assert!(made.success());
    let (sender, stop) = watch::channel(false);
    // The stop is sent once the command says it started (it blocks on the FIFO till then).
    let stopper = std::thread::spawn({
        let fifo = fifo.clone();
        move || {
            let said = std::fs::read_to_string(&fifo).unwrap_or_else(|error| panic!("{error}"));
            sender.send_replace(true);
            said
        }
    });
    let command = format!(
        "echo 'uploading' >&2; sleep 60 & echo $! > '{}'; wait",
        fifo.display()
    );
    let error = run_within(&command, &site(), &stop, PUBLISH_TIMEOUT)
        .err()
        .unwrap_or_else(|| panic!("a stopped command succeeded"));
    let said = stopper
        .join()
        .unwrap_or_else(|_| panic!("the stopper failed"));
    assert!(error.stopped(), "{error:?}");
    let text = error.to_string();
    assert!(
        text.starts_with(
            "stopped during the publish command: its processes were ended with SIGTERM"
        ),
        "{text}"
    );
    assert!(text.ends_with(": uploading"), "{text}");
    let sleep = Pid::from_raw(
        said.trim()
            .parse()
            .unwrap_or_else(|error| panic!("{said:?}: {error}")),
    );
    assert!(ended(sleep));
}

#[test]
fn durations_read_in_words() {
    for (seconds, words) in [
        (1, "1 s"),
        (90, "90 s"),
        (60, "1 minute"),
        (30 * 60, "30 minutes"),
    ] {
        assert_eq!(in_words(Duration::from_secs(seconds)), words);
    }
}
