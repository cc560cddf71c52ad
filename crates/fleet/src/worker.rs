//! A worker of a queue: claims due sites, runs them a few at a time, keeps each claim alive
//! with a [`LeaseKeeper`] (heartbeats, the site's crawl database saved into the queue at each
//! checkpoint) so that another worker can continue a site this one cannot finish.
//!
//! A worker that cannot renew a lease for a whole lease (PostgreSQL unreachable) stops that
//! site's crawl and records nothing: by then another worker may hold it, and two workers never
//! crawl one site at once. A stop hands the sites running back.
//!
//! The crawl itself is the caller's ([`SiteCrawler`]): this crate knows nothing of crawling.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::watch;
use tokio::task::JoinSet;

use crate::file::check_name;
use crate::keeper::{LeaseEnd, LeaseKeeper, LeaseTiming};
use crate::metrics::FleetMetrics;
use crate::queue::{Claim, Claimed, Queue};
use crate::record::RunRecord;

/// The longest an idle worker sleeps without asking the queue (in case a notification was
/// lost, or the clocks disagree).
const MAX_IDLE: Duration = Duration::from_secs(60);

/// The longest a worker waits for a place on a busy server without asking the queue again: a
/// crawl there may end by its lease running out, which nothing announces.
const BUSY_WAIT: Duration = Duration::from_secs(5);

/// How many sites run at once when not set.
pub const DEFAULT_SITES_AT_ONCE: usize = 4;

/// How many sites of one server run at once when not set: one, so that the sites of a shared
/// host are crawled one after another.
pub const DEFAULT_PER_SERVER: u32 = 1;

/// The lease of a claim when not set: long enough for heartbeats through a slow minute,
/// short enough that a dead worker's site waits a minute.
pub const DEFAULT_LEASE: Duration = Duration::from_secs(60);

/// The time between two saves of a running site's crawl database, when not set.
pub const DEFAULT_CHECKPOINT: Duration = Duration::from_secs(60);

/// How a worker works.
#[derive(Debug, Clone)]
pub struct WorkerPlan {
    /// The worker's name, in the queue's leases and records.
    pub name: String,
    /// Where each site's crawl database is kept while the site runs here (`sites/NAME.db`).
    pub state_dir: PathBuf,
    /// Sites run at once.
    pub sites_at_once: usize,
    /// Sites of one server crawled at once, by all the workers of the queue.
    pub per_server: u32,
    /// How long a claim lasts without a heartbeat.
    pub lease: Duration,
    /// The time between two saves of a running site's crawl database.
    pub checkpoint: Duration,
    /// Sites to run before ending, if any bound.
    pub max_sites: Option<u64>,
    /// End once nothing is due (`--once`).
    pub once: bool,
}

impl WorkerPlan {
    /// Whether the worker runs a batch of sites and ends (`--once`, `--max-sites`) rather
    /// than serving until it is stopped.
    pub fn batch(&self) -> bool {
        self.once || self.max_sites.is_some()
    }

    /// `HOST-PID`: unique among the workers of a fleet, and says where to look.
    pub fn default_name() -> String {
        let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
            .or_else(|_| std::fs::read_to_string("/etc/hostname"))
            .map(|name| name.trim().to_string())
            .ok()
            .filter(|name| check_name(name).is_ok())
            .unwrap_or_else(|| "worker".to_string());
        format!("{host}-{}", std::process::id())
    }

    /// Where the worker `name` caches its sites' databases when not told:
    /// `sitemapper-worker-NAME` in the temporary directory.
    pub fn default_state_dir(name: &str) -> PathBuf {
        std::env::temp_dir().join(format!("sitemapper-worker-{name}"))
    }
}

/// What runs a claimed site: the caller's crawl.
pub trait SiteCrawler: Send + Sync + 'static {
    /// The server a site's URL is on (the address its host resolves to), or any name that
    /// tells servers apart.
    fn server_of(&self, url: String) -> impl Future<Output = String> + Send;

    /// Runs the claimed site with its crawl database at `database`, stopping when `stop`
    /// becomes `true`; the run's record when it ends.
    fn crawl(
        &self,
        claim: Claim,
        database: PathBuf,
        stop: watch::Receiver<bool>,
    ) -> impl Future<Output = RunRecord> + Send + 'static;
}

/// A site's run this worker recorded in the queue.
#[derive(Debug, Clone)]
pub struct SiteRecorded {
    /// The site's name.
    pub name: String,
    /// Its seed URL, as written.
    pub url: String,
    /// How its run ended.
    pub record: RunRecord,
}

/// One worker of a queue.
#[derive(Debug)]
pub struct QueueWorker<C> {
    plan: Arc<WorkerPlan>,
    queue: Arc<Queue>,
    crawler: Arc<C>,
    stop: watch::Receiver<bool>,
    metrics: Option<FleetMetrics>,
}

impl<C: SiteCrawler> QueueWorker<C> {
    /// A worker of `queue` that runs its sites with `crawler` until `stop` becomes `true`,
    /// counting into `metrics` when given.
    pub fn new(
        plan: WorkerPlan,
        queue: Arc<Queue>,
        crawler: C,
        stop: watch::Receiver<bool>,
        metrics: Option<FleetMetrics>,
    ) -> QueueWorker<C> {
        QueueWorker {
            plan: Arc::new(plan),
            queue,
            crawler: Arc::new(crawler),
            stop,
            metrics,
        }
    }

    /// Claims and runs sites until stopped, `max_sites` is reached, or (with `once`)
    /// nothing is due. Each run recorded is told to `recorded` as it ends; a batch returns
    /// them too, by site name.
    pub async fn serve(&self, mut recorded: impl FnMut(&SiteRecorded)) -> Vec<SiteRecorded> {
        let wakeups = self.queue.listen();
        let mut running: JoinSet<Option<SiteRecorded>> = JoinSet::new();
        let mut claimed = 0_u64;
        let mut batch = Vec::new();
        let mut stop = self.stop.clone();
        let limit_reached = |claimed: u64| self.plan.max_sites.is_some_and(|max| claimed >= max);
        loop {
            self.measure(running.len()).await;
            let stopping = *stop.borrow();
            let mut idle = false;
            // Sites are due, but on servers other crawls keep at their limit.
            let mut busy = false;
            while !stopping && !limit_reached(claimed) && running.len() < self.plan.sites_at_once {
                let crawler = Arc::clone(&self.crawler);
                let server_of = move |url: String| {
                    let crawler = Arc::clone(&crawler);
                    async move { crawler.server_of(url).await }
                };
                match self
                    .queue
                    .claim_per_server(
                        &self.plan.name,
                        self.plan.lease,
                        self.plan.per_server,
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
                        tracing::error!(worker = %self.plan.name, "{error}");
                        idle = true;
                        break;
                    }
                }
            }
            // With `once`, a site due on a busy server is waited for: it is due now.
            let done_claiming =
                stopping || limit_reached(claimed) || (self.plan.once && idle && !busy);
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
                        recorded(&site);
                        if self.plan.batch() {
                            batch.push(site);
                        }
                    }
                }
                () = wakeups.changed(), if !done_claiming => {}
                () = tokio::time::sleep(wait), if !done_claiming || running.is_empty() => {}
                _ = stop.changed(), if !stopping => {}
            }
        }
        batch.sort_by(|a, b| a.name.cmp(&b.name));
        batch
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
            Err(error) => tracing::warn!(worker = %self.plan.name, "{error}"),
        }
    }

    /// Runs one claimed site to its end, its lease kept by a [`LeaseKeeper`]. `None` when
    /// the claim was lost or handed back (nothing recorded here).
    fn site(&self, claim: Claim) -> impl Future<Output = Option<SiteRecorded>> + Send + 'static {
        let plan = Arc::clone(&self.plan);
        let queue = Arc::clone(&self.queue);
        let crawler = Arc::clone(&self.crawler);
        let hand_back = self.stop.clone();
        let metrics = self.metrics.clone();
        async move {
            let name = claim.site.name.clone();
            let worker = &plan.name;
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
            let database = plan.state_dir.join("sites").join(format!("{name}.db"));
            let timing = LeaseTiming {
                lease: plan.lease,
                checkpoint: plan.checkpoint,
            };
            let keeper = LeaseKeeper::new(queue, claim.clone(), database.clone(), timing);
            let crawl = |stop| crawler.crawl(claim.clone(), database, stop);
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
                    Some(SiteRecorded {
                        name,
                        url: claim.site.url.clone(),
                        record,
                    })
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
