//! The fleet file at hosting scale (`--fleet-scale 1000,10000,100000`): a generated fleet file
//! of each size read by the fleet crate's parser in this process, then `sitemapper fleet
//! status` on one machine (the file read and every site's options checked, an empty state
//! directory), and, with `--queue`, `sitemapper fleet sync` into an emptied PostgreSQL queue
//! (every site added), the same sync again (nothing changed), and `fleet status --queue`.
//! Nothing is crawled: this measures what grows with the number of sites, not with pages.

use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

use anyhow::{Context, bail};
use sitemapper_fleet::Fleet;

use crate::binary::say;
use crate::fleet::DROP_TABLES;
use crate::psql::psql;
use crate::report::spread;

/// How the scale benchmark runs.
#[derive(Debug, Clone)]
pub(crate) struct ScaleSettings {
    /// The fleet sizes, in sites.
    pub sizes: Vec<usize>,
    /// Runs of each measure.
    pub runs: usize,
    /// The PostgreSQL URL of the queue, for sync and the queue's status.
    pub queue: Option<String>,
}

/// The measures of one fleet size, each over the runs (seconds).
#[derive(Debug, Clone, Default)]
pub(crate) struct ScaleResult {
    pub sites: usize,
    pub bytes: usize,
    pub parse: Vec<f64>,
    pub status_local: Vec<f64>,
    pub sync_new: Vec<f64>,
    pub sync_unchanged: Vec<f64>,
    pub status_queue: Vec<f64>,
}

/// A fleet file of `sites` sites: defaults, then a name, a URL and a crawl option each.
pub(crate) fn fleet_text(sites: usize) -> String {
    let mut text = String::from("[defaults]\nout = \"out/{name}\"\nevery = \"24h\"\n");
    for site in 0..sites {
        let _ = write!(
            text,
            "\n[[site]]\nname = \"site-{site}\"\nurl = \"https://site-{site}.example/\"\nmax-pages = {}\n",
            site % 1000 + 1
        );
    }
    text
}

pub(crate) fn run(binary: &Path, settings: &ScaleSettings) -> anyhow::Result<Vec<ScaleResult>> {
    let mut results = Vec::new();
    for &sites in &settings.sizes {
        let directory = tempfile::tempdir().context("create a temporary directory")?;
        let fleet = directory.path().join("fleet.toml");
        let text = fleet_text(sites);
        std::fs::write(&fleet, &text).context("write the fleet file")?;
        let mut result = ScaleResult {
            sites,
            bytes: text.len(),
            ..ScaleResult::default()
        };
        for run in 1..=settings.runs {
            let started = Instant::now();
            let parsed = Fleet::parse(&fleet, &text)?;
            result.parse.push(started.elapsed().as_secs_f64());
            anyhow::ensure!(
                parsed.sites.len() == sites,
                "parsed {} sites",
                parsed.sites.len()
            );
            let state = directory.path().join(format!("state-{run}"));
            let state = state.to_str().context("a UTF-8 path")?;
            let fleet = fleet.to_str().context("a UTF-8 path")?;
            let status = ["fleet", "status", fleet, "--state-dir", state];
            result.status_local.push(timed(binary, &status, sites)?);
            if let Some(queue) = &settings.queue {
                psql(queue, DROP_TABLES)?;
                let sync = ["fleet", "sync", fleet, "--queue", queue.as_str()];
                result.sync_new.push(timed(binary, &sync, 0)?);
                result.sync_unchanged.push(timed(binary, &sync, 0)?);
                let status = ["fleet", "status", "--queue", queue.as_str()];
                result.status_queue.push(timed(binary, &status, sites)?);
                let count = psql(queue, "SELECT count(*) FROM fleet_sites")?;
                anyhow::ensure!(count.trim() == sites.to_string(), "{count} sites synced");
            }
            say(&format!(
                "{sites} sites, run {run}: parse {:.3} s, status {:.3} s{}",
                result.parse.last().copied().unwrap_or_default(),
                result.status_local.last().copied().unwrap_or_default(),
                match (result.sync_new.last(), result.status_queue.last()) {
                    (Some(sync), Some(status)) =>
                        format!(", sync {sync:.3} s, queue status {status:.3} s"),
                    _ => String::new(),
                }
            ));
        }
        results.push(result);
    }
    Ok(results)
}

/// The wall time of `sitemapper ARGS`, which must succeed; a status must list `lines` sites
/// (and a header), any other command leaves `lines` 0.
fn timed(binary: &Path, args: &[&str], lines: usize) -> anyhow::Result<f64> {
    let mut command = Command::new(binary);
    command.args(args);
    let started = Instant::now();
    let output = command
        .env("NO_COLOR", "1")
        .output()
        .with_context(|| format!("run sitemapper {}", args.join(" ")))?;
    let wall = started.elapsed();
    if !output.status.success() {
        bail!(
            "sitemapper {} exited with {}: {}",
            args.join(" "),
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        );
    }
    let listed = output.stdout.iter().filter(|byte| **byte == b'\n').count();
    if lines > 0 && listed != lines + 1 {
        bail!(
            "sitemapper {} listed {listed} lines, not {}",
            args.join(" "),
            lines + 1
        );
    }
    Ok(wall.as_secs_f64())
}

/// The section of BENCHMARKS.md.
pub(crate) fn markdown(
    results: &[ScaleResult],
    settings: &ScaleSettings,
    machine: &str,
    date: &str,
    command: &str,
) -> String {
    let mut text = String::from("## Fleet files at hosting scale\n\n");
    let postgres = if settings.queue.is_some() {
        " and PostgreSQL (the queue)"
    } else {
        ""
    };
    let _ = writeln!(
        text,
        "Measured {date} on: {machine}. sitemapper{postgres} share the machine. Medians of {} runs, \
         with the range in brackets; release build.\n",
        settings.runs
    );
    text.push_str(
        "The fleet file: `[defaults]` with `out` and `every`, then one `[[site]]` a site with \
         its `name`, `url` and `max-pages` (five lines a site). \"parse\" is the fleet crate's \
         `Fleet::parse` of the text in the benchmark's process. \"status, local\" is `sitemapper \
         fleet status FLEET --state-dir NEW`: the file read, every site's options checked as \
         `fleet run` checks them, the table of every site printed. \"sync, new\" is `sitemapper \
         fleet sync FLEET --queue URL` into a queue emptied of sitemapper's tables (every site \
         added), \"sync, unchanged\" the same again, and \"status, queue\" `sitemapper fleet \
         status --queue URL`; each command's wall time includes starting the process and \
         reading the file.\n\n",
    );
    text.push_str(
        "| sites | file (MB) | parse (s) | status, local (s) | sync, new (s) | sync, unchanged (s) | status, queue (s) |\n\
         | --- | --- | --- | --- | --- | --- | --- |\n",
    );
    let cell = |values: &[f64]| {
        if values.is_empty() {
            "-".to_string()
        } else {
            spread(values, 3)
        }
    };
    for result in results {
        let _ = writeln!(
            text,
            "| {} | {:.1} | {} | {} | {} | {} | {} |",
            result.sites,
            result.bytes as f64 / 1e6,
            cell(&result.parse),
            cell(&result.status_local),
            cell(&result.sync_new),
            cell(&result.sync_unchanged),
            cell(&result.status_queue)
        );
    }
    let _ = writeln!(
        text,
        "\nTo measure again: `cargo build --release --workspace && target/release/{command}`."
    );
    text
}
