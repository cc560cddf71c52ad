//! `sitemapper fleet run` and `fleet status` on one machine: the sites that are due, run a
//! few at a time in this process (at most `--per-server` of one server at once, sharing each
//! server's pace), recorded in the state directory.

use std::sync::Arc;

use anyhow::Context;

use jiff::Timestamp;
use sitemapper_crawl::PaceBoard;
use sitemapper_fleet::{
    FleetMetrics, FleetReport, LocalRegistry, LocalRun, LocalSite, RunRecord, SiteSpec,
};

use super::output::{json_output, stopping_line};
use super::report;
use super::requests;
use super::site_job::{self, SiteJob};
use crate::commands::Output;
use crate::commands::crawl::Embedding;
use crate::exit::{ExitStatus, Failure};
use crate::settings::{FleetRunSettings, OutputTarget};
use crate::signals::{StopSignal, spawn_signal_thread};
use sitemapper_site::{RunLock, count};

pub(crate) fn run(settings: FleetRunSettings, output: Output) -> Result<(), Failure> {
    sitemapper_site::private_directory("--state-dir", &settings.state_dir)
        .map_err(Failure::usage)?;
    let registry = LocalRegistry::open(&settings.state_dir).map_err(Failure::fatal)?;
    // One `fleet run` at a time on a state directory: cron may start the next before the last ends.
    let _lock = RunLock::acquire(&[settings.state_dir.as_path()])?;
    let started = Timestamp::now();
    let (stop_sender, stop) = tokio::sync::watch::channel(false);
    let signal = Arc::new(std::sync::OnceLock::new());
    spawn_signal_thread(stop_sender, Arc::clone(&signal), stopping_line);
    let metrics = match &settings.metrics_file {
        Some(_) => Some(FleetMetrics::new().map_err(Failure::fatal)?),
        None => None,
    };
    let embedding = Embedding {
        pace: Arc::new(PaceBoard::new(settings.servers.servers_by)),
        stop: stop.clone(),
        requests: metrics.as_ref().map(requests::counted_into),
    };
    let resolver = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")
        .map_err(Failure::fatal)?;
    // A site's server: the address its host resolves to, found (and kept) by the run's pace
    // board.
    let servers = Arc::clone(&embedding.pace);
    let server_of = move |site: &SiteSpec| resolver.block_on(servers.server_of_seed(&site.url));
    let fleet_run = LocalRun {
        fleet: &settings.fleet,
        choice: &settings.choice,
        sites_at_once: settings.sites_at_once,
        per_server: settings.servers.per_server,
        server_of: Box::new(server_of),
        stop,
        metrics: metrics.as_ref(),
    };
    let run_site = |local: LocalSite<'_>| {
        site_job::run(SiteJob {
            fleet_file: &settings.fleet.path,
            site: local.site,
            state: local.database,
            resume: local.resume,
            embedding: &embedding,
            worker: None,
        })
    };
    let ended = |site: &SiteSpec, run: &RunRecord| {
        if report::says_site_line(output.quiet, run) {
            crate::progress::print_line(&report::site_line(&site.name, run));
        }
    };
    let report = fleet_run
        .run(registry, run_site, ended)
        .map_err(Failure::fatal)?;
    let ended = finish(
        &report,
        settings.report.as_ref(),
        output,
        signal.get().copied(),
    );
    // Written however the run ended: a failed run is what an alert is for.
    if let (Some(metrics), Some(path)) = (&metrics, &settings.metrics_file)
        && let Err(error) = metrics
            .fleet_run_ended(started)
            .and_then(|()| metrics.write_file(path))
    {
        let error = Failure::fatal(error);
        return match ended {
            Ok(()) => Err(error),
            Err(ended) => {
                tracing::error!("{:#}", error.error);
                Err(ended)
            }
        };
    }
    ended
}

/// Prints the table, writes the report, and gives the exit status: interrupted by a signal,
/// some sites failed, or success.
pub(super) fn finish(
    report: &FleetReport,
    target: Option<&OutputTarget>,
    output: Output,
    signal: Option<StopSignal>,
) -> Result<(), Failure> {
    if !output.quiet {
        crate::progress::print_line(report::run_table(report).trim_end());
    }
    if let Some(target) = target {
        json_output(target, report)?;
    }
    if let Some(signal) = signal {
        return Err(Failure {
            status: signal.exit_status(),
            error: anyhow::anyhow!(
                "{}: {} interrupted, to be continued by the next run",
                signal.describe(),
                count(report.interrupted, "site")
            ),
        });
    }
    if report.failed > 0 {
        return Err(Failure {
            status: ExitStatus::SitesFailed,
            error: anyhow::anyhow!(report::failed_sites(report)),
        });
    }
    Ok(())
}
