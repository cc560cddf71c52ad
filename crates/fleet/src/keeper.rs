//! Keeping a claimed site: its lease renewed with heartbeats while the site's crawl database
//! is brought up to date and the crawl runs, the database saved into the queue at every
//! checkpoint, and the site let go at the end with the run's record and a last save.
//!
//! A lease is a fencing token. The keeper counts a lease from the moment it asked for the
//! renewal the queue last answered, not from the answer, since the queue may have started the
//! lease as soon as it was asked. When no renewal is answered for a whole lease, or the queue
//! refuses one (another worker claimed the site, or it was removed), the lease is lost: the
//! crawl is told to stop, nothing more is saved, and the run is not recorded. By then another
//! worker may hold the site, and two workers never crawl one site at once.

use std::fmt;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::watch;
use tokio::task::{JoinError, JoinHandle};
use tokio::time::{Instant, Interval};

use crate::queue::{Claim, Queue, QueueError, Release};
use crate::record::{RunRecord, RunResult};
use crate::state::{self, SiteDatabase, StateError};

/// Heartbeats in a lease: a renewal can go unanswered twice before the lease is at risk.
const RENEWALS_PER_LEASE: u32 = 3;

/// The shortest period of a heartbeat or a checkpoint (a timer of no period never waits).
const SHORTEST_PERIOD: Duration = Duration::from_millis(1);

/// What the keeper needs of the queue that handed out the claim. [`Queue`] is the real one;
/// each call names the claim's lease, and the queue refuses it once the claim is not the
/// site's current one.
pub trait LeaseQueue: Send + Sync + 'static {
    /// Why a call failed (not a refusal: the queue could not say).
    type Error: std::error::Error + Send + Sync + 'static;

    /// Extends the lease by `lease` from now. `false`: the claim is lost.
    fn renew(
        &self,
        claim: &Claim,
        lease: Duration,
    ) -> impl Future<Output = Result<bool, Self::Error>> + Send;

    /// The site's crawl database as the queue holds it: its generation and gzip bytes.
    fn state(
        &self,
        site_id: i64,
    ) -> impl Future<Output = Result<Option<(i64, Vec<u8>)>, Self::Error>> + Send;

    /// Saves the site's crawl database (gzip bytes): its new generation, or `None` when the
    /// claim is lost.
    fn checkpoint(
        &self,
        claim: &Claim,
        database: &[u8],
    ) -> impl Future<Output = Result<Option<i64>, Self::Error>> + Send;

    /// Lets go of the site, saving its crawl database if given: the generation the queue
    /// then holds, or `None` when the claim is lost and nothing was written.
    fn release(
        &self,
        claim: &Claim,
        release: &Release,
        database: Option<&[u8]>,
    ) -> impl Future<Output = Result<Option<i64>, Self::Error>> + Send;
}

impl LeaseQueue for Queue {
    type Error = QueueError;

    async fn renew(&self, claim: &Claim, lease: Duration) -> Result<bool, QueueError> {
        Queue::renew(self, claim, lease).await
    }

    async fn state(&self, site_id: i64) -> Result<Option<(i64, Vec<u8>)>, QueueError> {
        Queue::state(self, site_id).await
    }

    async fn checkpoint(&self, claim: &Claim, database: &[u8]) -> Result<Option<i64>, QueueError> {
        Queue::checkpoint(self, claim, database).await
    }

    async fn release(
        &self,
        claim: &Claim,
        release: &Release,
        database: Option<&[u8]>,
    ) -> Result<Option<i64>, QueueError> {
        Queue::release(self, claim, release, database).await
    }
}

/// How long a lease lasts and how often the crawl database is saved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LeaseTiming {
    /// How long a claim holds without a renewal answered.
    pub lease: Duration,
    /// The time between two saves of the crawl database into the queue.
    pub checkpoint: Duration,
}

/// How a claim ended.
#[derive(Debug)]
pub enum LeaseEnd<E> {
    /// The run is recorded in the queue and the site scheduled by it.
    Recorded(RunRecord),
    /// Told to hand the site back, the keeper stopped the crawl: the site is due again at
    /// once, and its next run continues this one.
    HandedBack,
    /// The lease was lost: the crawl was stopped and nothing recorded.
    Lost(LeaseLost),
    /// The queue could not record the run.
    Unrecorded(E),
}

/// How a lease was lost.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LeaseLost {
    /// No renewal was answered for a whole lease (the queue out of reach).
    Expired,
    /// The queue refused the claim: another worker has the site, or it was removed.
    Refused,
}

impl fmt::Display for LeaseLost {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(match self {
            LeaseLost::Expired => "no renewal was answered for a whole lease",
            LeaseLost::Refused => {
                "the queue refused the claim (another worker has the site, or it was removed)"
            }
        })
    }
}

/// Why the crawl database could not be moved between this machine and the queue.
#[derive(Debug, thiserror::Error)]
enum TransferError<E> {
    /// The queue's call failed.
    #[error("{0}")]
    Queue(E),
    /// The file could not be read or written.
    #[error("{0}")]
    State(StateError),
    /// The thread copying the file panicked.
    #[error("copying the crawl database stopped: {0}")]
    Copy(JoinError),
}

/// How bringing the local crawl database up to date ended.
enum BroughtUp<E> {
    /// The database is of this generation of the queue's copy (0: none, a first run).
    Ready(i64),
    /// It could not be: the run fails before its crawl.
    Failed(TransferError<E>),
    /// The lease was lost meanwhile.
    Lost(LeaseLost),
}

/// Keeps one claimed site from its claim to its release. Made as soon as the claim is
/// answered: the lease counts from then.
pub struct LeaseKeeper<Q: LeaseQueue> {
    queue: Arc<Q>,
    claim: Claim,
    database: SiteDatabase,
    timing: LeaseTiming,
    /// When the lease started, as far as the keeper knows.
    claimed: Instant,
    /// Tells the crawl to stop.
    stop: watch::Sender<bool>,
}

impl<Q: LeaseQueue> fmt::Debug for LeaseKeeper<Q> {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter
            .debug_struct("LeaseKeeper")
            .field("site", &self.claim.site.name)
            .field("lease", &self.claim.lease)
            .field("timing", &self.timing)
            .finish_non_exhaustive()
    }
}

impl<Q: LeaseQueue> LeaseKeeper<Q> {
    /// A keeper of `claim`, whose crawl database is at `database` on this machine.
    pub fn new(
        queue: Arc<Q>,
        claim: Claim,
        database: PathBuf,
        timing: LeaseTiming,
    ) -> LeaseKeeper<Q> {
        LeaseKeeper {
            queue,
            claim,
            database: SiteDatabase::new(database),
            timing,
            claimed: Instant::now(),
            stop: watch::channel(false).0,
        }
    }

    /// Keeps the claim to its end: brings the crawl database up to date with the queue's
    /// copy, starts the crawl with `crawl` (given what becomes `true` when it must stop),
    /// saves the database at every checkpoint while it runs, and releases the site with the
    /// run's record. `hand_back` becoming `true` stops the crawl, and an interrupted run is
    /// handed back rather than recorded. The lease is renewed throughout.
    pub async fn keep<Crawl, Running>(
        self,
        crawl: Crawl,
        mut hand_back: watch::Receiver<bool>,
    ) -> LeaseEnd<Q::Error>
    where
        Crawl: FnOnce(watch::Receiver<bool>) -> Running,
        Running: Future<Output = RunRecord>,
    {
        let mut renewal = Renewal::new(&*self.queue, &self.claim, self.timing, self.claimed);
        let generation = match self.bring_up_to_date(&mut renewal).await {
            BroughtUp::Ready(generation) => generation,
            BroughtUp::Failed(error) => return self.fail_before_crawl(&error.to_string()).await,
            BroughtUp::Lost(lost) => return LeaseEnd::Lost(lost),
        };
        // Subscribed before a stop is sent, so that the crawl sees it change.
        let stop = self.stop.subscribe();
        let handing_back = *hand_back.borrow_and_update();
        if handing_back {
            self.stop.send_replace(true);
        }
        let crawling = Crawling {
            renewal,
            generation,
            handing_back,
            lost: None,
        };
        crawling.run(&self, crawl(stop), hand_back).await
    }

    /// Makes the local crawl database the queue's copy, unless it is of that generation
    /// already (this worker ran the site last).
    async fn bring_up_to_date(&self, renewal: &mut Renewal<'_, Q>) -> BroughtUp<Q::Error> {
        let wanted = self.claim.state_generation;
        if wanted == 0 {
            return self.start_afresh();
        }
        if self.database.generation() == Some(wanted) {
            return BroughtUp::Ready(wanted);
        }
        let (generation, bytes) = match renewal.during(self.queue.state(self.claim.site_id)).await {
            Ok(Ok(Some(copy))) => copy,
            Ok(Ok(None)) => return self.start_afresh(),
            Ok(Err(error)) => return BroughtUp::Failed(TransferError::Queue(error)),
            Err(lost) => return BroughtUp::Lost(lost),
        };
        let target = self.database.path().to_path_buf();
        let mut restoring = tokio::task::spawn_blocking(move || state::restore(&bytes, &target));
        match renewal.during(&mut restoring).await {
            Ok(Ok(Ok(()))) => {
                self.database.remember(generation);
                BroughtUp::Ready(generation)
            }
            Ok(Ok(Err(error))) => BroughtUp::Failed(TransferError::State(error)),
            Ok(Err(error)) => BroughtUp::Failed(TransferError::Copy(error)),
            Err(lost) => {
                // A restore left running could replace the database under the next claim
                // of the site.
                let _ = restoring.await;
                BroughtUp::Lost(lost)
            }
        }
    }

    /// Removes the local crawl database: the queue holds none for the site.
    fn start_afresh(&self) -> BroughtUp<Q::Error> {
        match state::remove(self.database.path()) {
            Ok(()) => BroughtUp::Ready(0),
            Err(error) => BroughtUp::Failed(TransferError::State(error)),
        }
    }

    /// Records a run that failed before its crawl began. The crawl database, not brought up
    /// to date, is not saved: it would replace the queue's newer copy.
    async fn fail_before_crawl(&self, error: &str) -> LeaseEnd<Q::Error> {
        tracing::error!(worker = %self.claim.worker, site = %self.claim.site.name, "{error}");
        let record = RunRecord {
            result: RunResult::Failed,
            error: Some(error.to_string()),
            ..RunRecord::new(jiff::Timestamp::now(), Some(self.claim.worker.clone()))
        };
        let release = Release::Finished(record.clone());
        match self.queue.release(&self.claim, &release, None).await {
            Ok(Some(_)) => LeaseEnd::Recorded(record),
            Ok(None) => LeaseEnd::Lost(LeaseLost::Refused),
            Err(error) => LeaseEnd::Unrecorded(error),
        }
    }

    /// Starts a save of the crawl database into the queue, beside the crawl (a large
    /// database takes a while): the generation saved, or `None` when the claim is lost.
    fn save(&self) -> JoinHandle<Result<Option<i64>, TransferError<Q::Error>>> {
        let queue = Arc::clone(&self.queue);
        let claim = self.claim.clone();
        let database = self.database.path().to_path_buf();
        tokio::spawn(async move {
            let bytes = snapshot(database).await?;
            queue
                .checkpoint(&claim, &bytes)
                .await
                .map_err(TransferError::Queue)
        })
    }

    /// Notes that the queue holds `answered` as the crawl database's latest generation. The
    /// generation file only moves forward: an answer older than one already noted is a
    /// stale one, and the local database is newer than it says.
    fn remember(&self, known: &mut i64, answered: i64) {
        if answered > *known {
            self.database.remember(answered);
            *known = answered;
        } else if answered < *known {
            tracing::warn!(
                worker = %self.claim.worker, site = %self.claim.site.name,
                "the queue answered generation {answered} of the crawl database after {known}: not noted"
            );
        }
    }

    fn warn(&self, message: &dyn fmt::Display) {
        tracing::warn!(worker = %self.claim.worker, site = %self.claim.site.name, "{message}");
    }
}

/// The crawl phase of a claim: what the keeper knows while the crawl runs.
struct Crawling<'keeper, Q: LeaseQueue> {
    renewal: Renewal<'keeper, Q>,
    /// The generation of the queue's copy the local crawl database is (or is newer than).
    generation: i64,
    /// Told to hand the site back.
    handing_back: bool,
    lost: Option<LeaseLost>,
}

impl<'keeper, Q: LeaseQueue> Crawling<'keeper, Q> {
    async fn run(
        mut self,
        keeper: &'keeper LeaseKeeper<Q>,
        crawl: impl Future<Output = RunRecord>,
        mut hand_back: watch::Receiver<bool>,
    ) -> LeaseEnd<Q::Error> {
        let mut crawl = std::pin::pin!(crawl);
        let mut checkpoint = every(keeper.timing.checkpoint, Instant::now());
        let mut saving: Option<JoinHandle<_>> = None;
        let mut finished = None;
        let mut hand_back_open = true;
        // The run ends when the crawl has ended and no save is under way: a save left
        // running would race the release's own.
        let record = loop {
            if saving.is_none()
                && let Some(record) = finished.take()
            {
                break record;
            }
            tokio::select! {
                biased;
                lost = self.renewal.lost(), if self.lost.is_none() => {
                    self.lose(keeper, lost);
                    if let Some(save) = &saving {
                        save.abort();
                    }
                }
                record = &mut crawl, if finished.is_none() => finished = Some(record),
                changed = hand_back.changed(), if hand_back_open && !self.handing_back => {
                    match changed {
                        Ok(()) if *hand_back.borrow_and_update() => {
                            self.handing_back = true;
                            keeper.stop.send_replace(true);
                        }
                        Ok(()) => {}
                        // No one can ask any more.
                        Err(_) => hand_back_open = false,
                    }
                }
                _ = checkpoint.tick(),
                    if self.lost.is_none() && finished.is_none() && saving.is_none() =>
                {
                    saving = Some(keeper.save());
                }
                saved = answer(&mut saving) => {
                    saving = None;
                    self.saved(keeper, saved);
                }
            }
        };
        if let Some(lost) = self.lost {
            return LeaseEnd::Lost(lost);
        }
        self.release(keeper, record).await
    }

    /// Takes in the end of a save.
    fn saved(
        &mut self,
        keeper: &LeaseKeeper<Q>,
        saved: Result<Result<Option<i64>, TransferError<Q::Error>>, JoinError>,
    ) {
        match saved {
            Ok(Ok(Some(generation))) => keeper.remember(&mut self.generation, generation),
            Ok(Ok(None)) => self.lose(keeper, LeaseLost::Refused),
            Ok(Err(error)) => keeper.warn(&error),
            // Aborted when the lease was lost.
            Err(error) if error.is_cancelled() => {}
            Err(error) => keeper.warn(&TransferError::<Q::Error>::Copy(error)),
        }
    }

    fn lose(&mut self, keeper: &LeaseKeeper<Q>, lost: LeaseLost) {
        self.lost = Some(lost);
        keeper.stop.send_replace(true);
    }

    /// Lets go of the site with a last save of its crawl database: hands it back if the run
    /// was interrupted for that, else records the run.
    async fn release(mut self, keeper: &LeaseKeeper<Q>, record: RunRecord) -> LeaseEnd<Q::Error> {
        let release = if self.handing_back && record.result == RunResult::Interrupted {
            Release::HandedBack
        } else {
            Release::Finished(record)
        };
        let path = keeper.database.path().to_path_buf();
        let database = match self.renewal.during(snapshot::<Q::Error>(path)).await {
            Ok(Ok(bytes)) => Some(bytes),
            Ok(Err(error)) => {
                keeper.warn(&error);
                None
            }
            Err(lost) => return LeaseEnd::Lost(lost),
        };
        match keeper
            .queue
            .release(&keeper.claim, &release, database.as_deref())
            .await
        {
            Ok(Some(generation)) => {
                keeper.remember(&mut self.generation, generation);
                match release {
                    Release::Finished(record) => LeaseEnd::Recorded(record),
                    Release::HandedBack => LeaseEnd::HandedBack,
                }
            }
            Ok(None) => LeaseEnd::Lost(LeaseLost::Refused),
            Err(error) => LeaseEnd::Unrecorded(error),
        }
    }
}

/// A renewal asked of the queue and not answered yet.
type Asking<'keeper, E> = Pin<Box<dyn Future<Output = Result<bool, E>> + Send + 'keeper>>;

/// The heartbeats of a lease: a renewal asked at each, and the lease's end moved by each
/// answer.
struct Renewal<'keeper, Q: LeaseQueue> {
    queue: &'keeper Q,
    claim: &'keeper Claim,
    lease: Duration,
    heartbeat: Interval,
    /// When the lease ends unless a renewal is answered.
    expires: Instant,
    asking: Option<Asking<'keeper, Q::Error>>,
    asked_at: Instant,
    /// A heartbeat came while a renewal was out: the next is asked as soon as it is answered,
    /// so that a renewal held up (PostgreSQL restarting) is followed by a fresh one.
    overdue: bool,
}

impl<'keeper, Q: LeaseQueue> Renewal<'keeper, Q> {
    fn new(
        queue: &'keeper Q,
        claim: &'keeper Claim,
        timing: LeaseTiming,
        claimed: Instant,
    ) -> Renewal<'keeper, Q> {
        Renewal {
            queue,
            claim,
            lease: timing.lease,
            heartbeat: every(timing.lease / RENEWALS_PER_LEASE, claimed),
            expires: claimed + timing.lease,
            asking: None,
            asked_at: claimed,
            overdue: false,
        }
    }

    /// Renews the lease at each heartbeat; returns only when the lease is lost. Cancelling
    /// it loses nothing: a renewal out stays out until the next call.
    async fn lost(&mut self) -> LeaseLost {
        loop {
            tokio::select! {
                // The end of the lease first: an answer that comes at the same time is late.
                biased;
                () = tokio::time::sleep_until(self.expires) => return LeaseLost::Expired,
                answered = answer(&mut self.asking) => {
                    self.asking = None;
                    match answered {
                        Ok(true) => self.expires = self.asked_at + self.lease,
                        Ok(false) => return LeaseLost::Refused,
                        Err(error) => tracing::warn!(
                            worker = %self.claim.worker, site = %self.claim.site.name,
                            "cannot renew the lease: {error}"
                        ),
                    }
                    if std::mem::take(&mut self.overdue) {
                        self.ask();
                    }
                }
                _ = self.heartbeat.tick() => {
                    if self.asking.is_some() {
                        self.overdue = true;
                    } else {
                        self.ask();
                    }
                }
            }
        }
    }

    fn ask(&mut self) {
        self.asked_at = Instant::now();
        self.asking = Some(Box::pin(self.queue.renew(self.claim, self.lease)));
    }

    /// Runs `work` while the lease is renewed: its output, or how the lease was lost (and
    /// `work` dropped).
    async fn during<T>(&mut self, work: impl Future<Output = T>) -> Result<T, LeaseLost> {
        tokio::select! {
            biased;
            lost = self.lost() => Err(lost),
            output = work => Ok(output),
        }
    }
}

/// A timer that ticks every `period` from `start` on, not at `start`.
fn every(period: Duration, start: Instant) -> Interval {
    let period = period.max(SHORTEST_PERIOD);
    tokio::time::interval_at(start + period, period)
}

/// The output of the future in `slot`; never, when there is none.
async fn answer<F: Future + Unpin>(slot: &mut Option<F>) -> F::Output {
    match slot.as_mut() {
        Some(future) => future.await,
        None => std::future::pending().await,
    }
}

/// A snapshot of the crawl database at `database`, taken on a thread of its own.
async fn snapshot<E>(database: PathBuf) -> Result<Vec<u8>, TransferError<E>> {
    tokio::task::spawn_blocking(move || state::snapshot(&database))
        .await
        .map_err(TransferError::Copy)?
        .map_err(TransferError::State)
}

#[cfg(test)]
mod tests;
