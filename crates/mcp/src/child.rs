//! A crawl, an audit or a validation run as a child process of this very binary, with
//! `--summary json`: its summary is the tool's answer, its `-v` lines on stderr count its
//! requests for the progress notifications, and a cancelled tool stops it with SIGTERM, as
//! Ctrl-C does (nothing published, the previous sitemap kept).

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, BufReader};
use tokio_util::sync::CancellationToken;

/// How long a child stopped with SIGTERM has to end before it is killed.
const GRACE: Duration = Duration::from_secs(10);

/// At most one progress notification per this interval.
const PROGRESS_EVERY: Duration = Duration::from_millis(250);

/// How a child ended.
#[derive(Debug)]
pub(crate) enum Ended {
    /// It exited by itself, with this code and its summary.
    Exited {
        /// Its exit code.
        code: i32,
        /// The JSON summary it printed (stdout).
        summary: String,
        /// Its last lines on stderr that are not request logs: warnings and the error.
        warnings: Vec<String>,
    },
    /// It was stopped: the tool was cancelled, or the server is stopping.
    Cancelled,
    /// It ran out of the server's time and was stopped.
    TimedOut,
}

/// What a running child has done so far.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Progress {
    /// Requests it logged.
    pub requests: u64,
    /// Time since it started.
    pub elapsed: Duration,
}

/// Runs `program` with `args` (`-v` and `--summary json` are added), calling `progress` as
/// it goes, until it exits, `stop` fires, or `limit` passes.
pub(crate) async fn run(
    program: &Path,
    config: Option<&Path>,
    args: &[String],
    stop: &CancellationToken,
    limit: Duration,
    mut progress: impl FnMut(Progress),
) -> std::io::Result<Ended> {
    let started = Instant::now();
    let mut command = tokio::process::Command::new(program);
    if let Some(config) = config {
        command.env("SITEMAPPER_CONFIG", config);
    }
    let mut child = command
        .args(args)
        .args(["--summary", "json", "-v"])
        .env("SITEMAPPER_COLOR", "never")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()?;
    let mut stdout = child
        .stdout
        .take()
        .ok_or_else(|| std::io::Error::other("no stdout"))?;
    let stderr = child
        .stderr
        .take()
        .ok_or_else(|| std::io::Error::other("no stderr"))?;
    let summary = tokio::spawn(async move {
        let mut text = String::new();
        let _ = stdout.read_to_string(&mut text).await;
        text
    });
    let mut lines = BufReader::new(stderr).lines();
    let mut requests = 0;
    let mut warnings: Vec<String> = Vec::new();
    let mut told = Instant::now() - PROGRESS_EVERY;
    let deadline = tokio::time::sleep(limit);
    tokio::pin!(deadline);
    let mut stderr_open = true;
    let stopped = loop {
        tokio::select! {
            () = stop.cancelled() => break Some(Ended::Cancelled),
            () = &mut deadline => break Some(Ended::TimedOut),
            line = lines.next_line(), if stderr_open => match line {
                Ok(Some(line)) => {
                    if is_request_line(&line) {
                        requests += 1;
                        if told.elapsed() >= PROGRESS_EVERY {
                            told = Instant::now();
                            progress(Progress { requests, elapsed: started.elapsed() });
                        }
                    } else if !line.trim().is_empty() && !is_info_line(&line) {
                        warnings.push(line);
                        let excess = warnings.len().saturating_sub(20);
                        warnings.drain(..excess);
                    }
                }
                _ => stderr_open = false,
            },
            status = child.wait(), if !stderr_open => {
                let code = status?.code().unwrap_or(-1);
                let summary = summary.await.unwrap_or_default();
                return Ok(Ended::Exited { code, summary, warnings });
            }
        }
    };
    // SIGTERM first: the child stops as after Ctrl-C, publishing nothing.
    if let Some(pid) = child.id().and_then(|id| i32::try_from(id).ok()) {
        let _ = kill(Pid::from_raw(pid), Signal::SIGTERM);
    }
    if tokio::time::timeout(GRACE, child.wait()).await.is_err() {
        let _ = child.kill().await;
    }
    Ok(stopped.unwrap_or(Ended::Cancelled))
}

/// Whether a line of `-v` is one request's (`GET https://e.com/ 200 12 ms listed`).
fn is_request_line(line: &str) -> bool {
    let line = line.trim_start();
    ["GET ", "HEAD ", "POST "]
        .iter()
        .any(|method| line.contains(method) && line.contains("://"))
}

/// Whether a line of `-v` is the log of what the run does, not a warning or the error.
fn is_info_line(line: &str) -> bool {
    line.contains(" INFO ") || line.contains(" DEBUG ") || line.contains(" TRACE ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_lines_are_told_from_warnings() {
        assert!(is_request_line("GET https://e.com/ 200 12 ms listed"));
        assert!(is_request_line(
            "  INFO GET http://127.0.0.1:80/a 404 1 ms http-404"
        ));
        assert!(!is_request_line(
            "Warning: the sitemap lists URLs of http://127.0.0.1"
        ));
        assert!(is_info_line(
            "2026-11-29T15:42:30.215225Z  INFO Scope: http://e.com/"
        ));
        assert!(!is_info_line(
            "Warning: robots.txt of http://e.com could not be read"
        ));
    }
}
