//! What a site's run came to, as the registries keep it, and when the site is due next.

use std::fmt;
use std::str::FromStr;

use jiff::{SignedDuration, Timestamp};
use serde::Serialize;

use crate::file::SiteSpec;

/// How a site's run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum RunResult {
    /// Crawled and published (and the publish command, if any, succeeded).
    #[serde(rename = "ok")]
    Succeeded,
    /// The crawl, the publish or the publish command failed: nothing new published, or a
    /// publish command that did not finish the job.
    Failed,
    /// Stopped before the end (SIGTERM, a lease lost): continued by the site's next run.
    Interrupted,
}

impl RunResult {
    /// The stable code a registry stores.
    pub fn code(self) -> &'static str {
        match self {
            RunResult::Succeeded => "ok",
            RunResult::Failed => "failed",
            RunResult::Interrupted => "interrupted",
        }
    }
}

impl fmt::Display for RunResult {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(self.code())
    }
}

/// A code no [`RunResult`] stores.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown run result {code:?}")]
pub struct UnknownRunResult {
    /// The code read.
    pub code: String,
}

impl FromStr for RunResult {
    type Err = UnknownRunResult;

    fn from_str(code: &str) -> Result<RunResult, UnknownRunResult> {
        match code {
            "ok" => Ok(RunResult::Succeeded),
            "failed" => Ok(RunResult::Failed),
            "interrupted" => Ok(RunResult::Interrupted),
            other => Err(UnknownRunResult {
                code: other.to_string(),
            }),
        }
    }
}

/// One run of one site.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunRecord {
    /// When the run started.
    #[serde(serialize_with = "serialize_timestamp")]
    pub started: Timestamp,
    /// When it ended.
    #[serde(serialize_with = "serialize_timestamp")]
    pub finished: Timestamp,
    /// How it ended.
    pub result: RunResult,
    /// URLs in the published sitemaps.
    pub listed: u64,
    /// URLs listed now and not by the site's previous complete run.
    pub added: u64,
    /// URLs the previous complete run listed and this one does not.
    pub removed: u64,
    /// URLs listed by both whose `<lastmod>` moved.
    pub changed: u64,
    /// Requests sent, retries and redirect hops included.
    pub requests: u64,
    /// Why it failed, in one line.
    pub error: Option<String>,
    /// The worker that ran it (`fleet run` on one machine: none).
    pub worker: Option<String>,
}

impl RunRecord {
    /// A run that started at `started` on `worker` and has done nothing yet (no count, no
    /// error, and `Succeeded` until it is told otherwise).
    pub fn new(started: Timestamp, worker: Option<String>) -> RunRecord {
        RunRecord {
            started,
            finished: started,
            result: RunResult::Succeeded,
            listed: 0,
            added: 0,
            removed: 0,
            changed: 0,
            requests: 0,
            error: None,
            worker,
        }
    }

    /// How long the run took.
    pub fn duration(&self) -> SignedDuration {
        self.finished.duration_since(self.started)
    }
}

/// When `site` is due, given its last run: at once if it never ran or was interrupted (to
/// be continued); after a success, at its schedule's next time; after a failure, at that
/// time or after `retry`, whichever comes first.
pub fn next_due(site: &SiteSpec, last: Option<&RunRecord>) -> Timestamp {
    let Some(last) = last else {
        return Timestamp::UNIX_EPOCH;
    };
    let scheduled = site.schedule.next_after(last.started);
    match last.result {
        RunResult::Succeeded => scheduled,
        RunResult::Interrupted => Timestamp::UNIX_EPOCH,
        RunResult::Failed => {
            let retry = SignedDuration::try_from(site.retry).unwrap_or(SignedDuration::MAX);
            let retried = last
                .finished
                .saturating_add(retry)
                .unwrap_or(Timestamp::MAX);
            scheduled.min(retried)
        }
    }
}

/// A site's standing in a registry, for `fleet status`.
#[derive(Debug, Clone, Serialize)]
pub struct SiteStatus {
    /// The site's name.
    pub name: String,
    /// Its seed URL (shown without the password it may hold: [`shown_url`]).
    #[serde(serialize_with = "serialize_shown_url")]
    pub url: String,
    /// As [`crate::Schedule`] writes it.
    pub schedule: String,
    /// The last run that ended.
    pub last: Option<RunRecord>,
    /// When it is due next; the epoch: now.
    #[serde(serialize_with = "serialize_timestamp")]
    pub next_due: Timestamp,
    /// The worker running it now, if any.
    pub running_on: Option<String>,
    /// Runs recorded.
    pub runs: u64,
    /// How long a failed site waits to be tried again: also the grace of a due site before
    /// `fleet status --check` calls it overdue ([`crate::Standing`]).
    #[serde(skip)]
    pub retry: std::time::Duration,
}

/// A run's error on one line, for a table cell, a monitor's line and a log: whatever a
/// crawled site made of it, a control character does not break the line, nor reach a terminal.
/// Control characters become spaces, and each run of spaces one.
pub fn one_line(text: &str) -> String {
    text.split(|character: char| character.is_whitespace() || character.is_control())
        .filter(|word| !word.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// `url` fit to be shown, in a report, a JSON summary or a log: whatever precedes an `@` in
/// its authority (`user:password`) replaced by `***` (docs/design.md, Safety: a password
/// reaches no output).
pub fn shown_url(url: &str) -> String {
    let start = url.find("://").map_or(0, |index| index + 3);
    let end = url[start..]
        .find(['/', '?', '#'])
        .map_or(url.len(), |index| start + index);
    match url[start..end].rfind('@') {
        Some(at) => format!("{}***{}", &url[..start], &url[start + at..]),
        None => url.to_string(),
    }
}

fn serialize_shown_url<S: serde::Serializer>(url: &str, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(&shown_url(url))
}

/// Timestamps in RFC 3339, UTC, whole seconds.
fn serialize_timestamp<S: serde::Serializer>(
    timestamp: &Timestamp,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.collect_str(&timestamp.round(jiff::Unit::Second).unwrap_or(*timestamp))
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    #[test]
    fn a_shown_url_holds_no_password() {
        assert_eq!(
            super::shown_url("https://user:secret@e.com/a@b"),
            "https://***@e.com/a@b"
        );
        assert_eq!(super::shown_url("user:secret@e.com"), "***@e.com");
        assert_eq!(super::shown_url("https://e.com/a@b"), "https://e.com/a@b");
    }

    #[test]
    fn an_error_is_one_line_with_no_control_character() {
        assert_eq!(
            super::one_line("cannot read\n  x.db:\t\x1b[31mred\x1b[0m\r\n"),
            "cannot read x.db: [31mred [0m"
        );
        assert_eq!(super::one_line("  plain  "), "plain");
    }

    use super::*;
    use crate::file::Fleet;

    fn site() -> SiteSpec {
        let text = "[[site]]\nurl = \"https://a.example/\"\nout = \"/o\"\nevery = \"24h\"\nretry = \"1h\"\n";
        let fleet =
            Fleet::parse(Path::new("f.toml"), text).unwrap_or_else(|error| panic!("{error}"));
        fleet.sites[0].clone()
    }

    fn run(result: RunResult) -> RunRecord {
        let started = "2026-01-01T00:00:00Z".parse().unwrap_or_else(|_| panic!());
        RunRecord {
            finished: "2026-01-01T00:10:00Z".parse().unwrap_or_else(|_| panic!()),
            result,
            ..RunRecord::new(started, None)
        }
    }

    #[test]
    fn a_site_is_due_by_its_last_run() {
        let site = site();
        assert_eq!(next_due(&site, None), Timestamp::UNIX_EPOCH);
        assert_eq!(
            next_due(&site, Some(&run(RunResult::Succeeded))).to_string(),
            "2026-01-02T00:00:00Z"
        );
        assert_eq!(
            next_due(&site, Some(&run(RunResult::Failed))).to_string(),
            "2026-01-01T01:10:00Z"
        );
        assert_eq!(
            next_due(&site, Some(&run(RunResult::Interrupted))),
            Timestamp::UNIX_EPOCH
        );
        for result in [
            RunResult::Succeeded,
            RunResult::Failed,
            RunResult::Interrupted,
        ] {
            assert_eq!(result.code().parse(), Ok(result));
        }
        assert_eq!(
            "done"
                .parse::<RunResult>()
                .map_err(|error| error.to_string()),
            Err("unknown run result \"done\"".to_string())
        );
    }
}
