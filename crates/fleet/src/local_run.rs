//! `fleet run` on one machine: the sites chosen (those due, all, or those named), run a few
//! at a time on threads of this process, at most `per_server` of one server at once, each run
//! recorded in the local registry as it ends.
//!
//! The crawl itself is the caller's, as it is for a queue's worker: this crate knows nothing
//! of crawling.

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::Mutex;

use jiff::Timestamp;
use tokio::sync::watch;

use crate::file::{Fleet, SiteSpec};
use crate::local::{LocalError, LocalRegistry};
use crate::metrics::FleetMetrics;
use crate::per_server::{ServerOf, SitePicker};
use crate::record::{RunRecord, RunResult, SiteStatus, next_due};
use crate::report::{FleetReport, SiteRunReport};

/// The sites a run runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SiteChoice {
    /// Those due.
    Due,
    /// Every site, due or not (`--all`).
    All,
    /// These, due or not (`--site`).
    Named(Vec<String>),
}

/// A site handed to the caller to run.
#[derive(Debug, Clone, Copy)]
pub struct LocalSite<'a> {
    /// The site.
    pub site: &'a SiteSpec,
    /// Its crawl database in the state directory.
    pub database: &'a std::path::Path,
    /// Whether its last run was interrupted: this one continues it.
    pub resume: bool,
}

/// A run of a fleet's sites on this machine.
pub struct LocalRun<'a> {
    /// The fleet.
    pub fleet: &'a Fleet,
    /// Which of its sites run.
    pub choice: &'a SiteChoice,
    /// Sites run at once.
    pub sites_at_once: usize,
    /// Sites of one server run at once.
    pub per_server: u32,
    /// A site's server.
    pub server_of: ServerOf<'a>,
    /// Becomes `true` when the run must stop: no site is started after it.
    pub stop: watch::Receiver<bool>,
    /// The fleet's metrics, counted into when given.
    pub metrics: Option<&'a FleetMetrics>,
}

impl std::fmt::Debug for LocalRun<'_> {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("LocalRun")
            .field("fleet", &self.fleet.path)
            .field("choice", &self.choice)
            .field("sites_at_once", &self.sites_at_once)
            .field("per_server", &self.per_server)
            .finish_non_exhaustive()
    }
}

impl LocalRun<'_> {
    /// Runs the chosen sites with `run_site`, recording each run in `registry` and telling
    /// `ended` of it as it ends; the report of the sites run.
    pub fn run(
        self,
        registry: LocalRegistry,
        run_site: impl Fn(LocalSite<'_>) -> RunRecord + Sync,
        ended: impl Fn(&SiteSpec, &RunRecord) + Sync,
    ) -> Result<FleetReport, LocalError> {
        let last_runs = registry.last_runs()?;
        let now = Timestamp::now();
        let chosen: VecDeque<&SiteSpec> = self
            .fleet
            .sites
            .iter()
            .filter(|site| match self.choice {
                SiteChoice::Due => {
                    next_due(site, last_runs.get(&site.name).map(|(run, _)| run)) <= now
                }
                SiteChoice::All => true,
                SiteChoice::Named(names) => names.contains(&site.name),
            })
            .collect();
        let not_due = self.fleet.sites.len() - chosen.len();
        let interrupted = |name: &str| {
            last_runs
                .get(name)
                .is_some_and(|(run, _)| run.result == RunResult::Interrupted)
        };
        if let Some(metrics) = self.metrics {
            metrics
                .sites_due
                .set(i64::try_from(chosen.len()).unwrap_or(i64::MAX));
        }
        let picker = SitePicker::new(chosen, self.per_server, self.server_of);
        let registry = Mutex::new(registry);
        let results = Mutex::new(Vec::new());
        let threads = self.sites_at_once.min(picker.len().max(1));
        std::thread::scope(|scope| {
            for _ in 0..threads {
                scope.spawn(|| {
                    while let Some(started) = picker.next(&self.stop) {
                        let site = started.site;
                        let database: PathBuf = registry
                            .lock()
                            .map(|registry| registry.site_database(&site.name))
                            .unwrap_or_default();
                        if let Some(metrics) = self.metrics {
                            metrics.sites_running.inc();
                        }
                        let run = run_site(LocalSite {
                            site,
                            database: &database,
                            resume: interrupted(&site.name),
                        });
                        // The server's place is free before the run is recorded.
                        drop(started);
                        if let Some(metrics) = self.metrics {
                            metrics.sites_running.dec();
                            metrics.site_ended(&site.name, &run);
                        }
                        ended(site, &run);
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
        Ok(FleetReport::new(
            self.fleet.path.display().to_string(),
            not_due,
            results.into_inner().unwrap_or_default(),
        ))
    }
}

impl LocalRegistry {
    /// The standing of each site of `fleet`: its last run, how many it had, when it is due.
    pub fn status(&self, fleet: &Fleet) -> Result<Vec<SiteStatus>, LocalError> {
        let last_runs = self.last_runs()?;
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
}
