//! `--audit PAGES`: the audit of the site that looks like the web (gzip), by this build and
//! the build given with `--before`, in turn, `--runs` times each: the wall time, sitemapper's
//! CPU time and peak memory as its summary says them, and the findings of report.json. What
//! the audit's checks cost is the CPU time of this build against the other's, measured in the
//! same run.

use std::fmt::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};

use crate::binary::{Binary, say};
use crate::crawl_run::{Summary, parse_summary};
use crate::report::{median, spread};
use crate::server::Server;
use crate::web::WebSite;
use crate::web_served::{CompressedWebSite, Encodings};

/// One audit's measure.
#[derive(Debug, Clone)]
struct AuditMeasure {
    wall: Duration,
    summary: Summary,
    findings: usize,
    kinds: usize,
}

/// Audits the web-like site of `pages` pages with each of `binaries`, `runs` times in turn,
/// and returns the Markdown section.
pub(crate) fn run(
    binaries: &[Binary],
    pages: u64,
    runs: usize,
    concurrency: usize,
    machine: &str,
    date: &str,
) -> anyhow::Result<String> {
    say(&format!("audit: compressing {pages} pages"));
    let site = Server::start(
        CompressedWebSite::new(WebSite { pages }, Encodings::Gzip),
        2,
    )?;
    let seed = site.url("/");
    let mut measures: Vec<Vec<AuditMeasure>> = vec![Vec::new(); binaries.len()];
    for run in 0..runs {
        for (binary, measured) in binaries.iter().zip(&mut measures) {
            let measure = audit(&binary.path, &seed, concurrency)?;
            say(&format!(
                "audit {pages}: {} run {}: {:.2} s wall, {:.2} s CPU, {:.1} MiB, {} findings of {} kinds",
                binary.label,
                run + 1,
                measure.wall.as_secs_f64(),
                measure.summary.cpu_seconds,
                measure.summary.peak_rss_mib,
                measure.findings,
                measure.kinds
            ));
            measured.push(measure);
        }
    }
    let mut text = format!(
        "## The audit of {pages} pages\n\n`sitemapper-bench --audit {pages} --runs {runs}{}`, {date}, {machine}. `audit SEED --report DIR --check-external=false --render never --concurrency {concurrency}` of the site that looks like the web (gzip), each build in turn, {runs} runs each; medians, the spread in brackets.\n\n| build | wall (s) | CPU (s) | peak memory (MiB) | findings | kinds |\n| --- | --- | --- | --- | --- | --- |\n",
        if binaries.len() > 1 {
            " --before BEFORE"
        } else {
            ""
        }
    );
    let cpu_medians: Vec<f64> = measures
        .iter()
        .map(|measured| median(&cpu(measured)))
        .collect();
    for (binary, measured) in binaries.iter().zip(&measures) {
        let walls: Vec<f64> = measured
            .iter()
            .map(|measure| measure.wall.as_secs_f64())
            .collect();
        let peaks: Vec<f64> = measured
            .iter()
            .map(|measure| measure.summary.peak_rss_mib)
            .collect();
        let last = measured.last().context("no audit measured")?;
        writeln!(
            text,
            "| {} | {} | {} | {} | {} | {} |",
            binary.label,
            spread(&walls, 2),
            spread(&cpu(measured), 2),
            spread(&peaks, 1),
            last.findings,
            last.kinds
        )?;
    }
    if let [this, before] = cpu_medians[..] {
        writeln!(
            text,
            "\nCPU time of this build against the other: {:+.1}% (the bound: +15%).",
            (this / before - 1.0) * 100.0
        )?;
    }
    Ok(text)
}

fn cpu(measured: &[AuditMeasure]) -> Vec<f64> {
    measured
        .iter()
        .map(|measure| measure.summary.cpu_seconds)
        .collect()
}

/// One audit of `seed` by `binary`.
fn audit(binary: &Path, seed: &str, concurrency: usize) -> anyhow::Result<AuditMeasure> {
    let directory = tempfile::tempdir().context("report directory")?;
    let report = directory.path().join("report");
    let stderr_path = directory.path().join("stderr");
    let stderr_file = std::fs::File::create(&stderr_path).context("create the stderr file")?;
    let started = Instant::now();
    let status = Command::new(binary)
        .args(["audit", seed, "--report"])
        .arg(&report)
        .args([
            "--check-external=false",
            "--render",
            "never",
            "--concurrency",
        ])
        .arg(concurrency.to_string())
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(stderr_file)
        .status()
        .with_context(|| format!("run {}", binary.display()))?;
    let wall = started.elapsed();
    let stderr = std::fs::read_to_string(&stderr_path).context("read the audit's stderr")?;
    if !status.success() {
        bail!("the audit failed: {stderr}");
    }
    let json: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(report.join("report.json")).context("read report.json")?,
    )
    .context("parse report.json")?;
    let findings = json["findings"].as_array().map_or(0, Vec::len);
    let kinds: std::collections::BTreeSet<&str> = json["findings"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|finding| finding["kind"].as_str())
        .collect();
    Ok(AuditMeasure {
        wall,
        summary: parse_summary(&stderr)?,
        findings,
        kinds: kinds.len(),
    })
}
