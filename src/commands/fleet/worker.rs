//! `sitemapper worker --queue URL`: claims due sites from the queue, runs them a few at a
//! time, keeps each claim alive with heartbeats and saves each site's crawl database into the
//! queue as it goes, so that another worker can continue a site this one cannot finish.
//!
//! A worker that cannot renew a lease for a whole lease (PostgreSQL unreachable) stops that
//! site's crawl and records nothing: by then another worker may hold it, and two workers never
//! crawl one site at once. SIGTERM stops the sites running and hands them back.

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use sitemapper_crawl::PaceBoard;
use sitemapper_fleet::{
    Claim, Claimed, FleetMetrics, LeaseEnd, LeaseKeeper, LeaseTiming, Queue, RunRecord, RunResult,
};
use tokio::sync::watch;
use tokio::task::JoinSet;

use super::output::stopping_line;
use super::report::{self, FleetReport, SiteRunReport};
use super::requests;
use super::runtime::runtime;
use super::site_job::{self, SiteJob};
use crate::cli::WorkerArgs;
use crate::commands::Output;
use crate::commands::crawl::Embedding;
use crate::exit::Failure;
use crate::settings::{ConfigFile, WorkerSettings};
use crate::signals::{StopSignal, stop_on_signals};

/// The longest an idle worker sleeps without asking the queue (in case a notification was
/// lost, or the clocks disagree).
const MAX_IDLE: Duration = Duration::from_secs(60);

/// The longest a worker waits for a place on a busy server without asking the queue again: a
/// crawl there may end by its lease running out, which nothing announces.
const BUSY_WAIT: Duration = Duration::from_secs(5);

/// What stands for the fleet file in the messages about a site's settings.
const QUEUE_SOURCE: &str = "queue";

pub(crate) fn run(args: WorkerArgs, file: ConfigFile, output: Output) -> Result<(), Failure> {
    let settings = WorkerSettings::resolve(args, file).map_err(Failure::usage)?;
    sitemapper_site::private_directory("--state-dir", &settings.state_dir)
        .map_err(Failure::usage)?;
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
    runtime.spawn(stop_on_signals(
        stop_sender,
        Arc::clone(&signal),
        stopping_line,
    ));
    tracing::info!(worker = %settings.name, queue = %queue.at(), "worker started");
    let metrics = match settings.metrics {
        Some(address) => {
            let metrics = FleetMetrics::new()
                .and_then(FleetMetrics::with_queue)
                .map_err(Failure::fatal)?;
            let listener = runtime
                .block_on(tokio::net::TcpListener::bind(address))
                .map_err(|error| {
                    Failure::fatal(anyhow::anyhow!(
                        "--metrics {address}: cannot listen there: {error}"
                    ))
                })?;
            let shown = listener.local_addr().unwrap_or(address);
            if !output.quiet {
                crate::progress::print_line(&format!(
                    "{}: metrics at http://{shown}/metrics",
                    settings.name
                ));
            }
            runtime.spawn(sitemapper_fleet::serve_metrics(
                listener,
                metrics.clone(),
                Arc::clone(&queue),
            ));
            Some(metrics)
        }
        None => None,
    };
    let worker = Worker {
        pace: Arc::new(PaceBoard::new(settings.servers.servers_by)),
        settings: Arc::new(settings),
        queue,
        stop,
        metrics,
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
    metrics: Option<FleetMetrics>,
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
            self.measure(running.len()).await;
            let stopping = *stop.borrow();
            let mut idle = false;
            // Sites are due, but on servers other crawls keep at their limit.
            let mut busy = false;
            while !stopping
                && !limit_reached(claimed)
                && running.len() < self.settings.sites_at_once
            {
                let servers = Arc::clone(&self.pace);
                let server_of = move |url: String| {
                    let servers = Arc::clone(&servers);
                    async move {
                        match url::Url::parse(&url) {
                            Ok(url) => servers.server_of(&url).await.to_string(),
                            Err(_) => url,
                        }
                    }
                };
                match self
                    .queue
                    .claim_per_server(
                        &self.settings.name,
                        self.settings.lease,
                        self.settings.servers.per_server,
                        server_of,
                    )
                    .await
                {
                    Ok(Claimed::Site(claim)) => {
                        if let Some(queue) = self.metrics.as_ref().and_then(FleetMetrics::queue) {
                            queue.leases_held.inc();
                            if claim.taken_over_from.is_some() {
                                queue.leases_taken_over.inc();
                            }
                        }
                        claimed += 1;
                        running.spawn(self.site(*claim));
                        if limit_reached(claimed) {
                            break;
                        }
                    }
                    Ok(Claimed::NothingDue) => {
                        idle = true;
                        break;
                    }
                    Ok(Claimed::ServersBusy) => {
                        idle = true;
                        busy = true;
                        break;
                    }
                    Err(error) => {
                        tracing::error!(worker = %self.settings.name, "{error}");
                        idle = true;
                        break;
                    }
                }
            }
            // With --once, a site due on a busy server is waited for: it is due now.
            let done_claiming =
                stopping || limit_reached(claimed) || (self.settings.once && idle && !busy);
            if done_claiming && running.is_empty() {
                break;
            }
            let wait = if done_claiming || !idle {
                MAX_IDLE
            } else if busy {
                BUSY_WAIT
            } else {
                match self.queue.next_wake().await {
                    Ok(Some(wait)) => wait.min(MAX_IDLE),
                    _ => MAX_IDLE,
                }
            };
            tokio::select! {
                Some(finished) = running.join_next() => {
                    if let Ok(Some(site)) = finished {
                        if report::says_site_line(output.quiet, &site.run) {
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

    /// Brings the gauges up to date: the sites running here, the sites due in the queue, and
    /// the queue's reconnections.
    async fn measure(&self, running: usize) {
        let Some(metrics) = &self.metrics else {
            return;
        };
        metrics
            .sites_running
            .set(i64::try_from(running).unwrap_or(i64::MAX));
        metrics.set_reconnects(self.queue.reconnects());
        match self.queue.due().await {
            Ok(due) => metrics
                .sites_due
                .set(i64::try_from(due).unwrap_or(i64::MAX)),
            Err(error) => tracing::warn!(worker = %self.settings.name, "{error}"),
        }
    }

    /// Runs one claimed site to its end, its lease kept by a [`LeaseKeeper`] and its crawl on
    /// a thread of its own. `None` when the claim was lost or handed back (nothing recorded
    /// here).
    fn site(&self, claim: Claim) -> impl Future<Output = Option<SiteRunReport>> + Send + 'static {
        let settings = Arc::clone(&self.settings);
        let queue = Arc::clone(&self.queue);
        let pace = Arc::clone(&self.pace);
        let hand_back = self.stop.clone();
        let metrics = self.metrics.clone();
        async move {
            let name = claim.site.name.clone();
            let worker = &settings.name;
            match &claim.taken_over_from {
                Some(previous) => tracing::warn!(
                    worker = %worker, site = %name, lease = claim.lease,
                    "took the site over from {previous}, whose lease expired; continuing its run"
                ),
                None => tracing::info!(
                    worker = %worker, site = %name, lease = claim.lease, resume = claim.resume,
                    "claimed the site"
                ),
            }
            let database = settings.state_dir.join("sites").join(format!("{name}.db"));
            let timing = LeaseTiming {
                lease: settings.lease,
                checkpoint: settings.checkpoint,
            };
            let keeper = LeaseKeeper::new(queue, claim.clone(), database.clone(), timing);
            let requests = metrics.as_ref().map(requests::counted_into);
            let crawl = |stop| {
                let embedding = Embedding {
                    pace,
                    stop,
                    requests,
                };
                start_crawl(claim.clone(), database, worker.clone(), embedding)
            };
            let end = keeper.keep(crawl, hand_back).await;
            if let Some(metrics) = &metrics {
                if let LeaseEnd::Recorded(record) = &end {
                    metrics.site_ended(&name, record);
                }
                if let Some(queue) = metrics.queue() {
                    queue.leases_held.dec();
                    if matches!(end, LeaseEnd::Lost(_)) {
                        queue.leases_lost.inc();
                    }
                }
            }
            match end {
                LeaseEnd::Recorded(record) => {
                    tracing::info!(
                        worker = %worker, site = %name, result = %record.result,
                        "recorded the site's run"
                    );
                    Some(SiteRunReport::new(&name, &claim.site.url, record))
                }
                LeaseEnd::HandedBack => {
                    tracing::info!(worker = %worker, site = %name, "handed the site back");
                    None
                }
                LeaseEnd::Lost(lost) => {
                    tracing::warn!(
                        worker = %worker, site = %name,
                        "lost the site's lease ({lost}): its run is not recorded here"
                    );
                    None
                }
                LeaseEnd::Unrecorded(error) => {
                    tracing::error!(worker = %worker, site = %name, "{error}");
                    None
                }
            }
        }
    }
}

/// Starts the claimed site's crawl on a thread of its own (a site's job blocks until its run
/// ends), embedded as `embedding` says (to stop when its `stop` becomes `true`); its record
/// when it ends.
fn start_crawl(
    claim: Claim,
    database: PathBuf,
    worker: String,
    embedding: Embedding,
) -> impl Future<Output = RunRecord> + Send + 'static {
    let (done_sender, done) = tokio::sync::oneshot::channel();
    let worker_name = worker.clone();
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
    async move {
        done.await.unwrap_or_else(|_| RunRecord {
            result: RunResult::Failed,
            error: Some("the site's run ended without a result".to_string()),
            ..RunRecord::new(jiff::Timestamp::now(), Some(worker_name))
        })
    }
}
