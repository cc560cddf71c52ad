//! What the fleet's commands say: the line a signal prints, a report as JSON to a file or
//! stdout, and stdout itself.

use std::io::Write;

use anyhow::Context;
use serde::Serialize;

use crate::exit::Failure;
use crate::settings::OutputTarget;
use crate::signals::StopSignal;

/// What a fleet says when a signal stops it.
pub(super) fn stopping_line(_signal: StopSignal) -> &'static str {
    "Stopping: no new site; the sites running stop and are continued by the next run."
}

/// Writes `value` as JSON to a file or stdout.
pub(super) fn json_output<T: Serialize>(target: &OutputTarget, value: &T) -> Result<(), Failure> {
    let mut text = serde_json::to_vec_pretty(value).context("cannot write the report")?;
    text.push(b'\n');
    match target {
        OutputTarget::Stdout => write_stdout(&text),
        OutputTarget::Path(path) => std::fs::write(path, text)
            .with_context(|| format!("cannot write the report {}", path.display()))
            .map_err(Failure::fatal),
    }
}

pub(super) fn write_stdout(bytes: &[u8]) -> Result<(), Failure> {
    let mut stdout = crate::stdout::lock();
    stdout
        .write_all(bytes)
        .and_then(|()| stdout.flush())
        .context("cannot write to stdout")
        .map_err(Failure::fatal)
}
