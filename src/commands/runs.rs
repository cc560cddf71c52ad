//! `sitemapper runs --state FILE`: the runs a crawl database remembers, newest first.

use std::io::Write;

use anyhow::Context;
use sitemapper_store::{RunSummary, Store};

use crate::cli::RunsArgs;
use crate::exit::Failure;
use crate::settings::{ConfigFile, runs_state};

pub(crate) fn run(args: RunsArgs, file: ConfigFile) -> Result<(), Failure> {
    let state = runs_state(args, file).map_err(Failure::usage)?;
    if !state.exists() {
        return Err(Failure::usage(anyhow::anyhow!(
            "no crawl database at {}",
            state.display()
        )));
    }
    let store = Store::open(&state)?;
    let runs = store.runs()?;
    print(&runs).context("cannot write to stdout")?;
    Ok(())
}

fn print(runs: &[RunSummary]) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
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
