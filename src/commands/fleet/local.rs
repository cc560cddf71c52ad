//! `sitemapper fleet run` and `fleet status` on one machine: the sites that are due, run a
//! few at a time in this process (at most `--per-server` of one server at once, sharing each
//! server's pace), recorded in the state directory.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use anyhow::Context;

use jiff::Timestamp;
use sitemapper_crawl::PaceBoard;
use sitemapper_fleet::{
    Fleet, FleetMetrics, LocalRegistry, RunResult, SitePicker, SiteSpec, SiteStatus, next_due,
};

use super::output::{json_output, stopping_line};
use super::report::{self, FleetReport, SiteRunReport};
use super::requests;
use super::site_job::{self, SiteJob};
use crate::commands::Output;
use crate::commands::crawl::Embedding;
use crate::exit::{ExitStatus, Failure};
use crate::settings::{FleetRunSettings, OutputTarget, SiteChoice};
use crate::signals::{StopSignal, spawn_signal_thread};
use sitemapper_site::{RunLock, count};

pub(crate) fn run(settings: FleetRunSettings, output: Output) -> Result<(), Failure> {
    sitemapper_site::private_directory("--state-dir", &settings.state_dir)
        .map_err(Failure::usage)?;
    let registry = LocalRegistry::open(&settings.state_dir).map_err(Failure::fatal)?;
    // One `fleet run` at a time on a state directory: cron may start the next before the last ends.
    let _lock = RunLock::acquire(&[settings.state_dir.as_path()])?;
    let last_runs = registry.last_runs().map_err(Failure::fatal)?;
    let now = Timestamp::now();
    let chosen: VecDeque<&SiteSpec> = settings
        .fleet
        .sites
        .iter()
        .filter(|site| match &settings.choice {
            SiteChoice::Due => next_due(site, last_runs.get(&site.name).map(|(run, _)| run)) <= now,
            SiteChoice::All => true,
            SiteChoice::Named(names) => names.contains(&site.name),
        })
        .collect();
    let not_due = settings.fleet.sites.len() - chosen.len();
    let resume: Vec<String> = last_runs
        .iter()
        .filter(|(_, (run, _))| run.result == RunResult::Interrupted)
        .map(|(name, _)| name.clone())
        .collect();

    let (stop_sender, stop) = tokio::sync::watch::channel(false);
    let signal = Arc::new(std::sync::OnceLock::new());
    spawn_signal_thread(stop_sender, Arc::clone(&signal), stopping_line);
    let metrics = match &settings.metrics_file {
        Some(_) => Some(FleetMetrics::new().map_err(Failure::fatal)?),
        None => None,
    };
    if let Some(metrics) = &metrics {
        metrics
            .sites_due
            .set(i64::try_from(chosen.len()).unwrap_or(i64::MAX));
    }
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
    let server_of = move |site: &SiteSpec| match url::Url::parse(&site.url) {
        Ok(url) => resolver.block_on(servers.server_of(&url)).to_string(),
        Err(_) => site.url.clone(),
    };
    let picker = SitePicker::new(chosen, settings.servers.per_server, Box::new(server_of));
    let registry = Mutex::new(registry);
    let results = Mutex::new(Vec::new());
    let workers = settings.sites_at_once.min(picker.len().max(1));
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                while let Some(started) = picker.next(&stop) {
                    let site = started.site;
                    let state = registry
                        .lock()
                        .map(|registry| registry.site_database(&site.name))
                        .unwrap_or_default();
                    let job = SiteJob {
                        fleet_file: &settings.fleet.path,
                        site,
                        state: &state,
                        resume: resume.contains(&site.name),
                        embedding: &embedding,
                        worker: None,
                    };
                    if let Some(metrics) = &metrics {
                        metrics.sites_running.inc();
                    }
                    let run = site_job::run(job);
                    // The server's place is free before the run is recorded.
                    drop(started);
                    if let Some(metrics) = &metrics {
                        metrics.sites_running.dec();
                        metrics.site_ended(&site.name, &run);
                    }
                    if report::says_site_line(output.quiet, &run) {
                        crate::progress::print_line(&report::site_line(&site.name, &run));
                    }
                    if let Ok(mut registry) = registry.lock()
                        && let Err(error) = registry.record(&site.name, &run)
                    {
                        tracing::error!("{error}");
                    }
                    if let Ok(mut results) = results.lock() {
                        results.push(SiteRunReport::new(&site.name, &site.url, run));
                    }
                }
            });
        }
    });
    let report = FleetReport::new(
        settings.fleet.path.display().to_string(),
        not_due,
        results.into_inner().unwrap_or_default(),
    );
    let ended = finish(
        &report,
        settings.report.as_ref(),
        output,
        signal.get().copied(),
    );
    // Written however the run ended: a failed run is what an alert is for.
    if let (Some(metrics), Some(path)) = (&metrics, &settings.metrics_file)
        && let Err(error) = metrics
            .fleet_run_ended(now)
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

/// The standing of each site of `fleet` in the state directory's registry.
pub(crate) fn status(fleet: &Fleet, registry: &LocalRegistry) -> Result<Vec<SiteStatus>, Failure> {
    let last_runs = registry.last_runs().map_err(Failure::fatal)?;
    Ok(fleet
        .sites
        .iter()
        .map(|site| {
            let last = last_runs.get(&site.name);
            SiteStatus {
                name: site.name.clone(),
                url: site.url.clone(),
                schedule: site.schedule.to_string(),
                next_due: next_due(site, last.map(|(run, _)| run)),
                last: last.map(|(run, _)| run.clone()),
                running_on: None,
                runs: last.map_or(0, |(_, runs)| *runs),
                retry: site.retry,
            }
        })
        .collect())
}
