//! `sitemapper runs --state FILE`: the runs a crawl database remembers, newest first, as a
//! table or as JSON.

use std::io::Write;
use std::path::Path;

use anyhow::Context;
use serde::Serialize;
use sitemapper_store::{RunSummary, Store};

use super::json::{self, path_text};
use crate::cli::{RunsArgs, SummaryFormat};
use crate::exit::{ExitStatus, Failure};
use crate::settings::{ConfigFile, RunsSettings};

pub(crate) fn run(args: RunsArgs, file: ConfigFile) -> Result<(), Failure> {
    let format = args.summary.unwrap_or_default();
    let RunsSettings {
        state,
        summary: format,
    } = RunsSettings::resolve(args, file)
        .map_err(|error| json::failed("runs", format, Failure::usage(error)))?;
    let runs = read(&state).map_err(|failure| json::failed("runs", format, failure))?;
    match format {
        SummaryFormat::Text => print(&runs).context("cannot write to stdout")?,
        SummaryFormat::Json => {
            let summary = RunsJson {
                state: path_text(&state),
                runs: runs.iter().map(RunJson::of).collect(),
            };
            json::print("runs", ExitStatus::Success, None, &summary)?;
        }
    }
    Ok(())
}

fn read(state: &Path) -> Result<Vec<RunSummary>, Failure> {
    if !state.exists() {
        return Err(Failure::usage(anyhow::anyhow!(
            "no crawl database at {}",
            state.display()
        )));
    }
    Ok(Store::open(state)?.runs()?)
}

/// The fields of `sitemapper runs --summary json` after the envelope.
#[derive(Debug, Serialize)]
struct RunsJson {
    /// The crawl database.
    state: String,
    /// Newest first.
    runs: Vec<RunJson>,
}

/// One run as `runs --summary json` lists it; `null` for what the run did not record.
#[derive(Debug, Serialize)]
struct RunJson {
    run: i64,
    seed: String,
    /// RFC 3339, UTC.
    started_at: String,
    finished_at: Option<String>,
    status: &'static str,
    seconds: Option<i64>,
    pages_seen: u64,
    pages_listed: u64,
    requests: Option<u64>,
    revalidated: Option<u64>,
    added: Option<u64>,
    removed: Option<u64>,
    changed: Option<u64>,
}

impl RunJson {
    fn of(run: &RunSummary) -> RunJson {
        RunJson {
            run: run.id.0,
            seed: run.seed.clone(),
            started_at: run.started_at.to_string(),
            finished_at: run.finished_at.map(|finished| finished.to_string()),
            status: run.status.as_str(),
            seconds: run
                .finished_at
                .map(|finished| (finished - run.started_at).get_seconds()),
            pages_seen: run.pages_seen,
            pages_listed: run.pages_listed,
            requests: run.requests,
            revalidated: run.revalidated,
            added: run.changes.map(|changes| changes.added),
            removed: run.changes.map(|changes| changes.removed),
            changed: run.changes.map(|changes| changes.changed),
        }
    }
}

fn print(runs: &[RunSummary]) -> std::io::Result<()> {
    let mut out = crate::stdout::lock();
    writeln!(
        out,
        "{:>4}  {:<20}  {:<11}  {:>8}  {:>8}  {:>6}  {:>7}  {:>6}  {:>7}  {:>7}  seed",
        "run",
        "started (UTC)",
        "status",
        "seconds",
        "requests",
        "304",
        "listed",
        "added",
        "removed",
        "changed"
    )?;
    for run in runs {
        let optional =
            |value: Option<u64>| value.map_or_else(|| "-".to_string(), |value| value.to_string());
        let seconds = run.finished_at.map_or_else(
            || "-".to_string(),
            |finished| format!("{:.1}", (finished - run.started_at).get_seconds() as f64),
        );
        let started = run.started_at.strftime("%Y-%m-%d %H:%M:%S").to_string();
        writeln!(
            out,
            "{:>4}  {:<20}  {:<11}  {:>8}  {:>8}  {:>6}  {:>7}  {:>6}  {:>7}  {:>7}  {}",
            run.id.0,
            started,
            run.status.as_str(),
            seconds,
            optional(run.requests),
            optional(run.revalidated),
            run.pages_listed,
            optional(run.changes.map(|changes| changes.added)),
            optional(run.changes.map(|changes| changes.removed)),
            optional(run.changes.map(|changes| changes.changed)),
            run.seed,
        )?;
    }
    Ok(())
}
