//! The keeper against a queue in memory, on tokio's paused clock: heartbeats that renew the
//! lease, a lease lost by expiry or refused, checkpoints, and the release.

use std::path::Path;
use std::sync::{Mutex, MutexGuard, PoisonError};

use rusqlite::Connection;

use super::*;
use crate::file::Fleet;

/// Heartbeats every 10 s.
const LEASE: Duration = Duration::from_secs(30);

/// Longer than any crawl of these tests: no checkpoint.
const NO_CHECKPOINT: Duration = Duration::from_secs(1000);

fn seconds(seconds: u64) -> Duration {
    Duration::from_secs(seconds)
}

/// A statement the queue could not run (not a refusal).
#[derive(Debug, thiserror::Error)]
#[error("the statement failed")]
struct Failed;

/// What the queue in memory is made to do, in seconds from the claim.
#[derive(Debug, Default)]
struct Script {
    /// PostgreSQL out of reach from, until: a call made meanwhile waits until it is back, as
    /// the real queue's calls connect again until they can.
    outage: Option<(u64, u64)>,
    /// How many renewals fail first (a statement error, answered at once).
    failing_renewals: usize,
    /// When another worker claims the site: the queue refuses this claim from then on.
    taken_at: Option<u64>,
    /// The queue's copy of the crawl database cannot be read.
    unreadable_state: bool,
}

/// What the queue in memory was asked, and holds.
#[derive(Debug, Default)]
struct Memory {
    renewals: usize,
    state_reads: usize,
    generation: i64,
    database: Option<Vec<u8>>,
    /// Each checkpoint saved: what the local database's generation file said when it was
    /// asked, and the generation saved.
    checkpoints: Vec<(Option<i64>, i64)>,
    /// Each release: the run's result code (or "handed back"), and the generation it left.
    releases: Vec<(String, i64)>,
}

#[derive(Debug)]
struct MemoryQueue {
    claimed: Instant,
    script: Script,
    /// The worker's crawl database, whose generation file a checkpoint notes.
    local: SiteDatabase,
    memory: Mutex<Memory>,
}

impl MemoryQueue {
    fn memory(&self) -> MutexGuard<'_, Memory> {
        self.memory.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Waits out an outage; then whether the claim still holds.
    async fn reach(&self) -> bool {
        if let Some((from, until)) = self.script.outage {
            let now = Instant::now();
            if now >= self.claimed + seconds(from) && now < self.claimed + seconds(until) {
                tokio::time::sleep_until(self.claimed + seconds(until)).await;
            }
        }
        self.script
            .taken_at
            .is_none_or(|taken| Instant::now() < self.claimed + seconds(taken))
    }

    fn save(memory: &mut Memory, database: &[u8]) -> i64 {
        memory.generation += 1;
        memory.database = Some(database.to_vec());
        memory.generation
    }
}

impl LeaseQueue for MemoryQueue {
    type Error = Failed;

    async fn renew(&self, _claim: &Claim, _lease: Duration) -> Result<bool, Failed> {
        let held = self.reach().await;
        let mut memory = self.memory();
        memory.renewals += 1;
        if memory.renewals <= self.script.failing_renewals {
            return Err(Failed);
        }
        Ok(held)
    }

    async fn state(&self, _site_id: i64) -> Result<Option<(i64, Vec<u8>)>, Failed> {
        self.reach().await;
        let mut memory = self.memory();
        memory.state_reads += 1;
        if self.script.unreadable_state {
            return Err(Failed);
        }
        Ok(memory
            .database
            .clone()
            .map(|database| (memory.generation, database)))
    }

    async fn checkpoint(&self, _claim: &Claim, database: &[u8]) -> Result<Option<i64>, Failed> {
        if !self.reach().await {
            return Ok(None);
        }
        let mut memory = self.memory();
        let generation = MemoryQueue::save(&mut memory, database);
        memory
            .checkpoints
            .push((self.local.generation(), generation));
        Ok(Some(generation))
    }

    async fn release(
        &self,
        _claim: &Claim,
        release: &Release,
        database: Option<&[u8]>,
    ) -> Result<Option<i64>, Failed> {
        if !self.reach().await {
            return Ok(None);
        }
        let mut memory = self.memory();
        if let Some(database) = database {
            MemoryQueue::save(&mut memory, database);
        }
        let how = match release {
            Release::Finished(record) => record.result.code().to_string(),
            Release::HandedBack => "handed back".to_string(),
        };
        let generation = memory.generation;
        memory.releases.push((how, generation));
        Ok(Some(generation))
    }
}

/// A claim of the site `a.example`, whose crawl database the queue holds at `generation`.
fn claim(state_generation: i64) -> Claim {
    let text = "[[site]]\nurl = \"https://a.example/\"\nout = \"/o\"\n";
    let fleet = Fleet::parse(Path::new("f.toml"), text).unwrap_or_else(|error| panic!("{error}"));
    Claim {
        site_id: 1,
        lease: 1,
        worker: "w1".to_string(),
        site: fleet.sites[0].clone(),
        resume: false,
        state_generation,
        taken_over_from: None,
    }
}

/// A worker's state directory, the queue in memory, and a keeper of a claim of generation
/// `state_generation`.
fn keeper(
    script: Script,
    checkpoint: Duration,
    state_generation: i64,
) -> (
    tempfile::TempDir,
    Arc<MemoryQueue>,
    LeaseKeeper<MemoryQueue>,
) {
    let directory = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
    let database = directory.path().join("a.example.db");
    let queue = Arc::new(MemoryQueue {
        claimed: Instant::now(),
        script,
        local: SiteDatabase::new(database.clone()),
        memory: Mutex::new(Memory::default()),
    });
    let timing = LeaseTiming {
        lease: LEASE,
        checkpoint,
    };
    let keeper = LeaseKeeper::new(
        Arc::clone(&queue),
        claim(state_generation),
        database,
        timing,
    );
    (directory, queue, keeper)
}

/// How a crawl ended: when, from the claim, and with what result.
type CrawlEnd = Arc<Mutex<Option<(Duration, RunResult)>>>;

/// A crawl that takes `length` unless told to stop: it adds a page to the crawl database,
/// and its record lists the pages the database holds then.
fn crawl(
    database: &Path,
    length: Duration,
    end: &CrawlEnd,
) -> impl FnOnce(watch::Receiver<bool>) -> Pin<Box<dyn Future<Output = RunRecord> + Send>> + use<> {
    let (database, end) = (database.to_path_buf(), Arc::clone(end));
    move |mut stop| {
        Box::pin(async move {
            let started = Instant::now();
            let connection = Connection::open(&database).unwrap_or_else(|error| panic!("{error}"));
            connection
                .execute_batch(
                    "CREATE TABLE IF NOT EXISTS pages (url TEXT);
                     INSERT INTO pages VALUES ('https://a.example/');",
                )
                .unwrap_or_else(|error| panic!("{error}"));
            let result = tokio::select! {
                () = tokio::time::sleep(length) => RunResult::Succeeded,
                _ = stop.wait_for(|stop| *stop) => RunResult::Interrupted,
            };
            let listed: u64 = connection
                .query_row("SELECT count(*) FROM pages", [], |row| row.get(0))
                .unwrap_or_else(|error| panic!("{error}"));
            *end.lock().unwrap_or_else(PoisonError::into_inner) = Some((started.elapsed(), result));
            RunRecord {
                result,
                listed,
                ..RunRecord::new(jiff::Timestamp::now(), Some("w1".to_string()))
            }
        })
    }
}

/// When the crawl ended (in whole seconds after it started) and how.
fn crawl_end(end: &CrawlEnd) -> Option<(u64, RunResult)> {
    end.lock()
        .unwrap_or_else(PoisonError::into_inner)
        .map(|(after, result)| (after.as_secs(), result))
}

fn never_handed_back() -> watch::Receiver<bool> {
    watch::channel(false).1
}

fn database_of(directory: &tempfile::TempDir) -> std::path::PathBuf {
    directory.path().join("a.example.db")
}

#[tokio::test(start_paused = true)]
async fn a_renewal_held_up_but_answered_within_the_lease_keeps_the_crawl_going() {
    // PostgreSQL is away from 5 s to 25 s: the renewal asked at 10 s waits, then fails; the
    // one asked at once after it is answered at 25 s, before the lease would end at 30 s.
    let script = Script {
        outage: Some((5, 25)),
        failing_renewals: 1,
        ..Script::default()
    };
    let (directory, queue, keeper) = keeper(script, NO_CHECKPOINT, 0);
    let end = CrawlEnd::default();
    let kept = keeper
        .keep(
            crawl(&database_of(&directory), seconds(60), &end),
            never_handed_back(),
        )
        .await;
    assert!(
        matches!(&kept, LeaseEnd::Recorded(record) if record.result == RunResult::Succeeded),
        "{kept:?}"
    );
    assert_eq!(crawl_end(&end), Some((60, RunResult::Succeeded)));
    let memory = queue.memory();
    assert!(memory.renewals >= 5, "renewed all along: {memory:?}");
    assert_eq!(memory.releases, [("ok".to_string(), 1)]);
}

#[tokio::test(start_paused = true)]
async fn no_renewal_answered_for_a_whole_lease_stops_the_crawl_and_records_nothing() {
    // PostgreSQL is away from 5 s on, past the lease's end at 30 s; the save asked at 8 s
    // waits with it.
    let script = Script {
        outage: Some((5, 500)),
        ..Script::default()
    };
    let (directory, queue, keeper) = keeper(script, seconds(4), 0);
    let end = CrawlEnd::default();
    let kept = keeper
        .keep(
            crawl(&database_of(&directory), seconds(60), &end),
            never_handed_back(),
        )
        .await;
    assert!(
        matches!(kept, LeaseEnd::Lost(LeaseLost::Expired)),
        "{kept:?}"
    );
    assert_eq!(crawl_end(&end), Some((30, RunResult::Interrupted)));
    let memory = queue.memory();
    assert_eq!(memory.checkpoints, [(None, 1)], "nothing saved after 5 s");
    assert!(memory.releases.is_empty(), "{memory:?}");
    assert_eq!(queue.local.generation(), Some(1));
}

#[tokio::test(start_paused = true)]
async fn a_renewal_refused_stops_the_crawl_and_records_nothing() {
    // Another worker claims the site at 15 s; the renewal at 20 s is refused.
    let script = Script {
        taken_at: Some(15),
        ..Script::default()
    };
    let (directory, queue, keeper) = keeper(script, NO_CHECKPOINT, 0);
    let end = CrawlEnd::default();
    let kept = keeper
        .keep(
            crawl(&database_of(&directory), seconds(60), &end),
            never_handed_back(),
        )
        .await;
    assert!(
        matches!(kept, LeaseEnd::Lost(LeaseLost::Refused)),
        "{kept:?}"
    );
    assert_eq!(crawl_end(&end), Some((20, RunResult::Interrupted)));
    assert!(queue.memory().releases.is_empty());
}

#[tokio::test(start_paused = true)]
async fn checkpoints_save_the_database_in_order_and_the_release_saves_the_last() {
    let (directory, queue, keeper) = keeper(Script::default(), seconds(10), 0);
    let end = CrawlEnd::default();
    let kept = keeper
        .keep(
            crawl(&database_of(&directory), seconds(35), &end),
            never_handed_back(),
        )
        .await;
    assert!(
        matches!(&kept, LeaseEnd::Recorded(record) if record.listed == 1),
        "{kept:?}"
    );
    let memory = queue.memory();
    // Each save asked once the one before it was noted in the generation file.
    assert_eq!(memory.checkpoints, [(None, 1), (Some(1), 2), (Some(2), 3)]);
    assert_eq!(memory.releases, [("ok".to_string(), 4)]);
    assert_eq!(queue.local.generation(), Some(4));
    // The last save is the database as the crawl left it.
    let copy = directory.path().join("copy.db");
    let saved = memory.database.as_deref().unwrap_or_default();
    state::restore(saved, &copy).unwrap_or_else(|error| panic!("{error}"));
    let connection = Connection::open(&copy).unwrap_or_else(|error| panic!("{error}"));
    let pages: i64 = connection
        .query_row("SELECT count(*) FROM pages", [], |row| row.get(0))
        .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(pages, 1);
}

#[tokio::test(start_paused = true)]
async fn a_checkpoint_refused_stops_the_crawl_and_records_nothing() {
    // Saves every 4 s, heartbeats every 20 s: another worker claims the site at 15 s, and
    // the save at 16 s is the first call refused.
    let script = Script {
        taken_at: Some(15),
        ..Script::default()
    };
    let directory = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
    let database = database_of(&directory);
    let queue = Arc::new(MemoryQueue {
        claimed: Instant::now(),
        script,
        local: SiteDatabase::new(database.clone()),
        memory: Mutex::new(Memory::default()),
    });
    let timing = LeaseTiming {
        lease: seconds(60),
        checkpoint: seconds(4),
    };
    let keeper = LeaseKeeper::new(Arc::clone(&queue), claim(0), database.clone(), timing);
    let end = CrawlEnd::default();
    let kept = keeper
        .keep(crawl(&database, seconds(60), &end), never_handed_back())
        .await;
    assert!(
        matches!(kept, LeaseEnd::Lost(LeaseLost::Refused)),
        "{kept:?}"
    );
    assert_eq!(crawl_end(&end), Some((16, RunResult::Interrupted)));
    let memory = queue.memory();
    assert_eq!(memory.checkpoints, [(None, 1), (Some(1), 2), (Some(2), 3)]);
    assert!(memory.releases.is_empty(), "{memory:?}");
    assert_eq!(queue.local.generation(), Some(3));
}

#[tokio::test(start_paused = true)]
async fn a_stale_generation_is_not_noted() {
    let (_directory, queue, keeper) = keeper(Script::default(), NO_CHECKPOINT, 0);
    std::fs::write(queue.local.path(), b"").unwrap_or_else(|error| panic!("{error}"));
    let mut known = 0;
    keeper.remember(&mut known, 3);
    assert_eq!((known, queue.local.generation()), (3, Some(3)));
    keeper.remember(&mut known, 2);
    assert_eq!((known, queue.local.generation()), (3, Some(3)));
    keeper.remember(&mut known, 4);
    assert_eq!((known, queue.local.generation()), (4, Some(4)));
}

#[tokio::test(start_paused = true)]
async fn handed_back_the_crawl_stops_and_the_site_is_released_to_be_continued() {
    let (directory, queue, keeper) = keeper(Script::default(), NO_CHECKPOINT, 0);
    let (hand_back, handed_back) = watch::channel(false);
    let end = CrawlEnd::default();
    let keeping = tokio::spawn(keeper.keep(
        crawl(&database_of(&directory), seconds(60), &end),
        handed_back,
    ));
    tokio::time::sleep(seconds(12)).await;
    hand_back.send_replace(true);
    let kept = keeping.await.unwrap_or_else(|error| panic!("{error}"));
    assert!(matches!(kept, LeaseEnd::HandedBack), "{kept:?}");
    assert_eq!(crawl_end(&end), Some((12, RunResult::Interrupted)));
    assert_eq!(
        queue.memory().releases,
        [("handed back".to_string(), 1)],
        "with the database, for the next run to continue"
    );
}

#[tokio::test(start_paused = true)]
async fn the_queue_s_copy_is_fetched_unless_the_local_one_is_of_its_generation() {
    let (directory, queue, keeper) = keeper(Script::default(), NO_CHECKPOINT, 5);
    // The queue holds generation 5: a database of two pages, which another worker crawled.
    let elsewhere = directory.path().join("elsewhere.db");
    Connection::open(&elsewhere)
        .and_then(|connection| {
            connection.execute_batch(
                "CREATE TABLE pages (url TEXT); INSERT INTO pages VALUES ('1'), ('2');",
            )
        })
        .unwrap_or_else(|error| panic!("{error}"));
    {
        let mut memory = queue.memory();
        memory.generation = 5;
        memory.database =
            Some(state::snapshot(&elsewhere).unwrap_or_else(|error| panic!("{error}")));
    }
    let database = database_of(&directory);
    let end = CrawlEnd::default();
    let kept = keeper
        .keep(crawl(&database, seconds(1), &end), never_handed_back())
        .await;
    assert!(
        matches!(&kept, LeaseEnd::Recorded(record) if record.listed == 3),
        "the crawl continued the queue's copy: {kept:?}"
    );
    assert_eq!(queue.local.generation(), Some(6));

    // Claimed again by the worker that ran it last: nothing to fetch.
    let timing = LeaseTiming {
        lease: LEASE,
        checkpoint: NO_CHECKPOINT,
    };
    let again = LeaseKeeper::new(Arc::clone(&queue), claim(6), database.clone(), timing);
    let kept = again
        .keep(crawl(&database, seconds(1), &end), never_handed_back())
        .await;
    assert!(
        matches!(&kept, LeaseEnd::Recorded(record) if record.listed == 4),
        "{kept:?}"
    );
    assert_eq!(queue.memory().state_reads, 1);
}

#[tokio::test(start_paused = true)]
async fn a_queue_s_copy_that_cannot_be_fetched_fails_the_run_before_its_crawl() {
    let script = Script {
        unreadable_state: true,
        ..Script::default()
    };
    let (directory, queue, keeper) = keeper(script, NO_CHECKPOINT, 5);
    let end = CrawlEnd::default();
    let kept = keeper
        .keep(
            crawl(&database_of(&directory), seconds(1), &end),
            never_handed_back(),
        )
        .await;
    assert!(
        matches!(&kept, LeaseEnd::Recorded(record)
            if record.result == RunResult::Failed
                && record.error.as_deref() == Some("the statement failed")),
        "{kept:?}"
    );
    assert_eq!(crawl_end(&end), None, "no crawl");
    assert_eq!(
        queue.memory().releases,
        [("failed".to_string(), 0)],
        "recorded without the local database, older than the queue's"
    );
}
