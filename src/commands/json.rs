//! `--summary json`: a command's summary as one JSON object on stdout, in the envelope every
//! command shares (docs/summary-json.md): the shape's version, the command, whether it
//! succeeded, its exit code and error line, then the command's own fields.

use std::io::Write;

use anyhow::Context;
use serde::Serialize;

use sitemapper_crawl::NotRead;
use url::Url;

use crate::cli::SummaryFormat;
use crate::exit::{ExitStatus, Failure};

/// The version of the JSON shape. It changes when a field is removed or changes meaning;
/// new fields may appear within one version.
pub(crate) const SUMMARY_VERSION: u32 = 1;

/// The fields every summary object starts with.
#[derive(Debug, Serialize)]
struct Envelope<'a, T: Serialize> {
    version: u32,
    command: &'static str,
    /// Whether the command did what was asked: the exit code is 0.
    ok: bool,
    exit_code: u8,
    /// The error line also printed on stderr; `null` when `ok`.
    error: Option<String>,
    #[serde(flatten)]
    body: Option<&'a T>,
}

/// Prints `body` in the envelope of a command that ended with `status`, and `error` when it
/// failed, as one line on stdout.
pub(crate) fn print<T: Serialize>(
    command: &'static str,
    status: ExitStatus,
    error: Option<String>,
    body: &T,
) -> anyhow::Result<()> {
    write_line(&Envelope {
        version: SUMMARY_VERSION,
        command,
        ok: status == ExitStatus::Success,
        exit_code: status as u8,
        error,
        body: Some(body),
    })
}

/// With `--summary json`, prints the object of a command that failed before it had a summary
/// (`ok: false`, the exit code and the error line, nothing else); hands the failure on, for
/// its line on stderr and its exit code. A failure that is stdout's reader gone is not
/// written there again, nor is the write that finds it gone logged (see `crate::stdout`).
pub(crate) fn failed(command: &'static str, format: SummaryFormat, failure: Failure) -> Failure {
    if format == SummaryFormat::Json && !crate::stdout::closed() {
        // The failure is the command's own: a reader gone meanwhile does not make it a success.
        crate::stdout::note_failure();
        let envelope: Envelope<'_, ()> = Envelope {
            version: SUMMARY_VERSION,
            command,
            ok: false,
            exit_code: failure.status as u8,
            error: Some(failure.line()),
            body: None,
        };
        if let Err(error) = write_line(&envelope)
            && !crate::stdout::closed()
        {
            tracing::error!("{error:#}");
        }
    }
    failure
}

fn write_line<T: Serialize>(value: &T) -> anyhow::Result<()> {
    let mut out = crate::stdout::lock();
    serde_json::to_writer(&mut out, value).context("cannot write the summary to stdout")?;
    writeln!(out).context("cannot write the summary to stdout")?;
    out.flush().context("cannot write the summary to stdout")
}

/// A path as JSON carries it: as text, with any bytes that are not UTF-8 replaced.
pub(crate) fn path_text(path: &std::path::Path) -> String {
    path.to_string_lossy().into_owned()
}

/// A sitemap of the site not read, with why: in the crawl's summary and the audit's.
#[derive(Debug, Serialize)]
pub(crate) struct NotReadJson {
    url: String,
    /// `skipped` (not requested) or `unreadable` (requested, and no sitemap came back).
    verdict: &'static str,
    why: String,
}

impl NotReadJson {
    /// Each of `not_read`.
    pub(crate) fn list(not_read: &[(Url, NotRead)]) -> Vec<NotReadJson> {
        not_read
            .iter()
            .map(|(url, why)| NotReadJson {
                url: url.to_string(),
                verdict: if why.is_skipped() {
                    "skipped"
                } else {
                    "unreadable"
                },
                why: why.to_string(),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests;
