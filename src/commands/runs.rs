//! `sitemapper runs --state FILE`: the runs a crawl database remembers, newest first, as a
//! table or as JSON.

use std::io::Write;
use std::path::Path;

use anyhow::Context;
use sitemapper_store::{RunSummary, Store};

use super::json;
use crate::cli::{RunsArgs, SummaryFormat};
use crate::exit::{ExitStatus, Failure};
use crate::settings::{ConfigFile, RunsSettings};
use sitemapper_site::RunsJson;

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
            let summary = RunsJson::new(&state, &runs);
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
