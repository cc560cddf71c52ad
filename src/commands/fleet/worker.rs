//! `sitemapper worker --queue URL`: claims due sites from the queue, runs them a few at a
//! time, keeps each claim alive with heartbeats and saves each site's crawl database into the
//! queue as it goes, so that another worker can continue a site this one cannot finish.
//!
//! A worker that cannot renew a lease for a whole lease (PostgreSQL unreachable) stops that
//! site's crawl and records nothing: by then another worker may hold it, and two workers never
//! crawl one site at once. SIGTERM stops the sites running and hands them back.

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use sitemapper_crawl::PaceBoard;
use sitemapper_fleet::{Claim, Queue, Release, RunRecord, RunResult, state};
use tokio::sync::watch;
use tokio::task::JoinSet;

use super::report::{self, FleetReport, SiteRunReport};
use super::site_job::{self, SiteJob};
use super::{StopSignal, runtime, stop_on_signals};
use crate::cli::WorkerArgs;
use crate::commands::Output;
use crate::commands::crawl::Embedding;
use crate::exit::Failure;
use crate::settings::{ConfigFile, WorkerSettings};

/// The longest an idle worker sleeps without asking the queue (in case a notification was
/// lost, or the clocks disagree).
const MAX_IDLE: Duration = Duration::from_secs(60);

/// What stands for the fleet file in the messages about a site's settings.
const QUEUE_SOURCE: &str = "queue";

pub(crate) fn run(args: WorkerArgs, file: ConfigFile, output: Output) -> Result<(), Failure> {
    let settings = WorkerSettings::resolve(args, file).map_err(Failure::usage)?;
    std::fs::create_dir_all(settings.state_dir.join("sites")).map_err(|error| {
        Failure::fatal(anyhow::anyhow!(
            "cannot create the state directory {}: {error}",
            settings.state_dir.display()
        ))
    })?;
    let runtime = runtime()?;
    let queue = Arc::new(
        runtime
            .block_on(Queue::connect(&settings.queue))
            .map_err(Failure::fatal)?,
    );
    let (stop_sender, stop) = watch::channel(false);
    let signal = Arc::new(OnceLock::new());
    runtime.spawn(stop_on_signals(stop_sender, Arc::clone(&signal)));
    tracing::info!(worker = %settings.name, queue = %queue.at(), "worker started");
    let worker = Worker {
        settings: Arc::new(settings),
        queue,
        pace: Arc::new(PaceBoard::default()),
        stop,
    };
    let sites = runtime.block_on(worker.serve(output));
    let report = FleetReport::new(worker.queue.at().to_string(), 0, sites);
    // A batch (--once, --max-sites) reports its sites and fails if one did; a worker that
    // serves until stopped has recorded each run in the queue, where `fleet status` shows it.
    // Stopped by SIGTERM, it did what it was asked: it handed its sites back.
    let stopped = signal.get().copied();
    let ended = if worker.settings.batch() {
        super::local::finish(&report, None, output, None)
    } else {
        Ok(())
    };
    match stopped {
        Some(StopSignal::Terminate) | None => ended,
        Some(interrupt) => Err(Failure {
            status: interrupt.exit_status(),
            error: anyhow::anyhow!(
                "{}: the sites running were handed back",
                interrupt.describe()
            ),
        }),
    }
}

/// One worker process.
struct Worker {
    settings: Arc<WorkerSettings>,
    queue: Arc<Queue>,
    pace: Arc<PaceBoard>,
    stop: watch::Receiver<bool>,
}

impl Worker {
    /// Claims and runs sites until stopped, `--max-sites` is reached, or (with `--once`)
    /// nothing is due; returns the runs it recorded.
    async fn serve(&self, output: Output) -> Vec<SiteRunReport> {
        let wakeups = self.queue.listen();
        let mut running: JoinSet<Option<SiteRunReport>> = JoinSet::new();
        let mut claimed = 0_u64;
        let mut recorded = Vec::new();
        let mut stop = self.stop.clone();
        let limit_reached =
            |claimed: u64| self.settings.max_sites.is_some_and(|max| claimed >= max);
        loop {
            let stopping = *stop.borrow();
            let mut idle = false;
            while !stopping
                && !limit_reached(claimed)
                && running.len() < self.settings.sites_at_once
            {
                match self
                    .queue
                    .claim(&self.settings.name, self.settings.lease)
                    .await
                {
                    Ok(Some(claim)) => {
                        claimed += 1;
                        running.spawn(self.site(claim));
                        if limit_reached(claimed) {
                            break;
                        }
                    }
                    Ok(None) => {
                        idle = true;
                        break;
                    }
                    Err(error) => {
                        tracing::error!(worker = %self.settings.name, "{error}");
                        idle = true;
                        break;
                    }
                }
            }
            let done_claiming = stopping || limit_reached(claimed) || (self.settings.once && idle);
            if done_claiming && running.is_empty() {
                break;
            }
            let wait = if done_claiming || !idle {
                MAX_IDLE
            } else {
                match self.queue.next_wake().await {
                    Ok(Some(wait)) => wait.min(MAX_IDLE),
                    _ => MAX_IDLE,
                }
            };
            tokio::select! {
                Some(finished) = running.join_next() => {
                    if let Ok(Some(site)) = finished {
                        if !output.quiet {
                            crate::progress::print_line(&format!(
                                "{}: {}",
                                self.settings.name,
                                report::site_line(&site.name, &site.run)
                            ));
                        }
                        if self.settings.batch() {
                            recorded.push(site);
                        }
                    }
                }
                () = wakeups.changed(), if !done_claiming => {}
                () = tokio::time::sleep(wait), if !done_claiming || running.is_empty() => {}
                _ = stop.changed(), if !stopping => {}
            }
        }
        recorded.sort_by(|a, b| a.name.cmp(&b.name));
        recorded
    }

    /// Runs one claimed site to its end: its crawl database brought up to date, the crawl on
    /// a thread of its own, heartbeats and saves meanwhile, then the release. `None` when the
    /// claim was lost (nothing recorded).
    fn site(&self, claim: Claim) -> impl Future<Output = Option<SiteRunReport>> + Send + 'static {
        let settings = Arc::clone(&self.settings);
        let queue = Arc::clone(&self.queue);
        let pace = Arc::clone(&self.pace);
        let mut worker_stop = self.stop.clone();
        async move {
            let name = claim.site.name.clone();
            match &claim.taken_over_from {
                Some(previous) => tracing::warn!(
                    worker = %settings.name, site = %name, lease = claim.lease,
                    "took the site over from {previous}, whose lease expired; continuing its run"
                ),
                None => tracing::info!(
                    worker = %settings.name, site = %name, lease = claim.lease, resume = claim.resume,
                    "claimed the site"
                ),
            }
            let database = settings.state_dir.join("sites").join(format!("{name}.db"));
            if let Err(error) = bring_up_to_date(&queue, &claim, &database).await {
                tracing::error!(worker = %settings.name, site = %name, "{error:#}");
                let record = failed_record(&settings.name, &format!("{error:#}"));
                let _ = queue
                    .release(&claim, &Release::Finished(record.clone()), None)
                    .await;
                return Some(SiteRunReport::new(&name, &claim.site.url, record));
            }
            let (site_stop, stop) = watch::channel(false);
            let embedding = Embedding { pace, stop };
            let (done_sender, mut done) = tokio::sync::oneshot::channel();
            {
                let claim = claim.clone();
                let database = database.clone();
                let worker = settings.name.clone();
                std::thread::spawn(move || {
                    let job = SiteJob {
                        fleet_file: Path::new(QUEUE_SOURCE),
                        site: &claim.site,
                        state: &database,
                        resume: claim.resume,
                        embedding: &embedding,
                        worker: Some(&worker),
                    };
                    let _ = done_sender.send(site_job::run(job));
                });
            }
            let lease = settings.lease;
            let mut renewed_at = Instant::now();
            let mut heartbeat = tokio::time::interval(lease / 3);
            heartbeat.tick().await;
            let mut checkpoint = tokio::time::interval(settings.checkpoint);
            checkpoint.tick().await;
            let mut lost = false;
            let mut handing_back = false;
            // A save runs beside the heartbeats (a large database takes a while), one at a time.
            let mut saving: Option<tokio::task::JoinHandle<anyhow::Result<bool>>> = None;
            let record = loop {
                tokio::select! {
                    finished = &mut done => match finished {
                        Ok(record) => break record,
                        Err(_) => break failed_record(&settings.name, "the site's run ended without a result"),
                    },
                    _ = heartbeat.tick() => {
                        let left = lease.saturating_sub(renewed_at.elapsed());
                        let asked = Instant::now();
                        match tokio::time::timeout(left, queue.renew(&claim, lease)).await {
                            Ok(Ok(true)) => renewed_at = asked,
                            Ok(Ok(false)) => lost = true,
                            Ok(Err(error)) => tracing::warn!(worker = %settings.name, site = %name, "{error}"),
                            Err(_) => {}
                        }
                        // The lease counts from the last renewal the queue answered.
                        if lost || renewed_at.elapsed() >= lease {
                            lost = true;
                            site_stop.send_replace(true);
                        }
                    }
                    _ = checkpoint.tick(), if !lost && saving.is_none() => {
                        let (queue, claim, database) = (Arc::clone(&queue), claim.clone(), database.clone());
                        saving = Some(tokio::spawn(async move { save(&queue, &claim, &database).await }));
                    }
                    Some(saved) = async { match saving.as_mut() { Some(handle) => Some(handle.await), None => None } }, if saving.is_some() => {
                        saving = None;
                        match saved {
                            Ok(Ok(true)) => {}
                            Ok(Ok(false)) => { lost = true; site_stop.send_replace(true); }
                            Ok(Err(error)) => tracing::warn!(worker = %settings.name, site = %name, "{error:#}"),
                            Err(error) => tracing::warn!(worker = %settings.name, site = %name, "saving the crawl database: {error}"),
                        }
                    }
                    _ = worker_stop.changed(), if !handing_back => {
                        if *worker_stop.borrow() {
                            handing_back = true;
                            site_stop.send_replace(true);
                        }
                    }
                }
            };
            // A save still under way would race the release's own.
            if let Some(handle) = saving.take() {
                let _ = handle.await;
            }
            if lost {
                tracing::warn!(
                    worker = %settings.name, site = %name,
                    "lost the site's lease (the queue was out of reach, or another worker has it): its run is not recorded here"
                );
                return None;
            }
            let release = if handing_back && record.result == RunResult::Interrupted {
                Release::HandedBack
            } else {
                Release::Finished(record.clone())
            };
            let snapshot = snapshot(&database).await;
            if let Err(error) = &snapshot {
                tracing::warn!(worker = %settings.name, site = %name, "{error:#}");
            }
            match queue
                .release(&claim, &release, snapshot.as_deref().ok())
                .await
            {
                Ok(Some(generation)) => {
                    remember_generation(&database, generation);
                    if matches!(release, Release::HandedBack) {
                        tracing::info!(worker = %settings.name, site = %name, "handed the site back");
                        return None;
                    }
                    tracing::info!(
                        worker = %settings.name, site = %name, result = %record.result,
                        "recorded the site's run"
                    );
                    Some(SiteRunReport::new(&name, &claim.site.url, record))
                }
                Ok(None) => {
                    tracing::warn!(worker = %settings.name, site = %name, "lost the site's lease before its run was recorded");
                    None
                }
                Err(error) => {
                    tracing::error!(worker = %settings.name, site = %name, "{error}");
                    None
                }
            }
        }
    }
}

/// A run that failed before its crawl began.
fn failed_record(worker: &str, error: &str) -> RunRecord {
    RunRecord {
        result: RunResult::Failed,
        error: Some(error.to_string()),
        ..RunRecord::new(jiff::Timestamp::now(), Some(worker.to_string()))
    }
}

/// Makes the local crawl database of the claimed site the one the queue holds, unless the
/// local copy is of that generation already (this worker ran the site last).
async fn bring_up_to_date(queue: &Queue, claim: &Claim, database: &Path) -> anyhow::Result<()> {
    if claim.state_generation == 0 {
        state::remove(database)?;
        return Ok(());
    }
    if local_generation(database) == Some(claim.state_generation) {
        return Ok(());
    }
    let Some((generation, bytes)) = queue.state(claim.site_id).await? else {
        state::remove(database)?;
        return Ok(());
    };
    let target = database.to_path_buf();
    tokio::task::spawn_blocking(move || state::restore(&bytes, &target)).await??;
    remember_generation(database, generation);
    Ok(())
}

/// Saves the running site's crawl database into the queue. `false`: the claim is lost.
async fn save(queue: &Queue, claim: &Claim, database: &Path) -> anyhow::Result<bool> {
    let bytes = snapshot(database).await?;
    match queue.checkpoint(claim, &bytes).await? {
        Some(generation) => {
            remember_generation(database, generation);
            Ok(true)
        }
        None => Ok(false),
    }
}

async fn snapshot(database: &Path) -> anyhow::Result<Vec<u8>> {
    let path = database.to_path_buf();
    Ok(tokio::task::spawn_blocking(move || state::snapshot(&path)).await??)
}

/// The file beside a site's crawl database that says which generation of the queue's copy
/// it is (or is newer than).
fn generation_file(database: &Path) -> PathBuf {
    database.with_extension("generation")
}

fn local_generation(database: &Path) -> Option<i64> {
    if !database.is_file() {
        return None;
    }
    std::fs::read_to_string(generation_file(database))
        .ok()?
        .trim()
        .parse()
        .ok()
}

fn remember_generation(database: &Path, generation: i64) {
    if let Err(error) = std::fs::write(generation_file(database), generation.to_string()) {
        tracing::warn!(
            "cannot write {}: {error}",
            generation_file(database).display()
        );
    }
}
