//! `sitemapper worker --queue URL`: the fleet crate's [`QueueWorker`] over the queue, each
//! claimed site run as a site job on a thread of its own. SIGTERM stops the sites running and
//! hands them back; the sites a batch ran are reported as `fleet run` reports its own.

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use sitemapper_crawl::{PaceBoard, RequestObserver};
use sitemapper_fleet::{
    Claim, FleetMetrics, FleetReport, Queue, QueueWorker, RunRecord, RunResult, SiteCrawler,
    SiteRunReport, WorkerPlan,
};
use tokio::sync::watch;

use super::output::stopping_line;
use super::report;
use super::requests;
use super::runtime::runtime;
use super::site_job::{self, SiteJob};
use crate::cli::WorkerArgs;
use crate::commands::Output;
use crate::commands::crawl::Embedding;
use crate::exit::Failure;
use crate::settings::{ConfigFile, WorkerSettings};
use crate::signals::{StopSignal, stop_on_signals};

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
    let plan = WorkerPlan {
        name: settings.name.clone(),
        state_dir: settings.state_dir.clone(),
        sites_at_once: settings.sites_at_once,
        per_server: settings.servers.per_server,
        lease: settings.lease,
        checkpoint: settings.checkpoint,
        max_sites: settings.max_sites,
        once: settings.once,
    };
    let crawler = JobCrawler {
        pace: Arc::new(PaceBoard::new(settings.servers.servers_by)),
        requests: metrics.as_ref().map(requests::counted_into),
        worker: settings.name.clone(),
    };
    let at = queue.at().to_string();
    let worker = QueueWorker::new(plan, queue, crawler, stop, metrics);
    let name = &settings.name;
    let sites = runtime.block_on(worker.serve(|site| {
        if report::says_site_line(output.quiet, &site.record) {
            crate::progress::print_line(&format!(
                "{name}: {}",
                report::site_line(&site.name, &site.record)
            ));
        }
    }));
    let sites = sites
        .into_iter()
        .map(|site| SiteRunReport::new(&site.name, &site.url, site.record))
        .collect();
    let report = FleetReport::new(at, 0, sites);
    // A batch (--once, --max-sites) reports its sites and fails if one did; a worker that
    // serves until stopped has recorded each run in the queue, where `fleet status` shows it.
    // Stopped by SIGTERM, it did what it was asked: it handed its sites back.
    let stopped = signal.get().copied();
    let ended = if settings.batch() {
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

/// Runs the sites a worker claims as site jobs, at the pace of the servers they share.
struct JobCrawler {
    pace: Arc<PaceBoard>,
    requests: Option<Arc<dyn RequestObserver>>,
    worker: String,
}

impl SiteCrawler for JobCrawler {
    fn server_of(&self, url: String) -> impl Future<Output = String> + Send {
        let servers = Arc::clone(&self.pace);
        async move { servers.server_of_seed(&url).await }
    }

    fn crawl(
        &self,
        claim: Claim,
        database: PathBuf,
        stop: watch::Receiver<bool>,
    ) -> impl Future<Output = RunRecord> + Send + 'static {
        let embedding = Embedding {
            pace: Arc::clone(&self.pace),
            stop,
            requests: self.requests.clone(),
        };
        start_crawl(claim, database, self.worker.clone(), embedding)
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
