//! `--summary json`: a command's summary as one JSON object on stdout, in the envelope every
//! command shares (docs/summary-json.md): the shape's version, the command, whether it
//! succeeded, its exit code and error line, then the command's own fields.

use std::io::Write;

use anyhow::Context;
use serde::Serialize;
use sitemapper_site::Envelope;

use crate::cli::SummaryFormat;
use crate::exit::{ExitStatus, Failure};

/// Prints `body` in the envelope of a command that ended with `status`, and `error` when it
/// failed, as one line on stdout.
pub(crate) fn print<T: Serialize>(
    command: &'static str,
    status: ExitStatus,
    error: Option<String>,
    body: &T,
) -> anyhow::Result<()> {
    write_line(&Envelope::new(command, status as u8, error, Some(body)))
}

/// With `--summary json`, prints the object of a command that failed before it had a summary
/// (`ok: false`, the exit code and the error line, nothing else); hands the failure on, for
/// its line on stderr and its exit code. A failure that is stdout's reader gone is not
/// written there again, nor is the write that finds it gone logged (see `crate::stdout`).
pub(crate) fn failed(command: &'static str, format: SummaryFormat, failure: Failure) -> Failure {
    if format == SummaryFormat::Json && !crate::stdout::closed() {
        // The failure is the command's own: a reader gone meanwhile does not make it a success.
        crate::stdout::note_failure();
        let envelope: Envelope<'_, ()> =
            Envelope::new(command, failure.status as u8, Some(failure.line()), None);
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

#[cfg(test)]
mod tests;
