//! Runs: one row per crawl, with its seed, times, outcome and counts.

use jiff::Timestamp;
use rusqlite::{OptionalExtension, params};

use crate::error::{StoreError, sql_error};
use crate::run_id::RunId;
use crate::store::Store;
use crate::verdict::Verdict;

/// How a run ended, or that it has not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunStatus {
    /// Started and not finished: still running, or killed.
    Running,
    /// Finished and published its sitemap: the baseline of the next change report.
    Complete,
    /// Ended by an error; nothing was published.
    Failed,
    /// Stopped by the user (Ctrl-C) before it finished.
    Interrupted,
}

impl RunStatus {
    /// The word the database keeps and `runs` shows.
    pub fn as_str(self) -> &'static str {
        match self {
            RunStatus::Running => "running",
            RunStatus::Complete => "complete",
            RunStatus::Failed => "failed",
            RunStatus::Interrupted => "interrupted",
        }
    }

    pub(crate) fn parse(text: &str) -> Option<RunStatus> {
        match text {
            "running" => Some(RunStatus::Running),
            "complete" => Some(RunStatus::Complete),
            "failed" => Some(RunStatus::Failed),
            "interrupted" => Some(RunStatus::Interrupted),
            _ => None,
        }
    }
}

/// One run, as `sitemapper runs` lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunSummary {
    /// The run's number.
    pub id: RunId,
    /// The seed URL it was started with.
    pub seed: String,
    /// When it started.
    pub started_at: Timestamp,
    /// When it ended (None while running, or when it was killed).
    pub finished_at: Option<Timestamp>,
    /// How it ended.
    pub status: RunStatus,
    /// URLs it recorded.
    pub pages_seen: u64,
    /// URLs it listed.
    pub pages_listed: u64,
    /// Page requests sent (None for runs recorded before it was kept).
    pub requests: Option<u64>,
    /// Pages that answered 304 Not Modified.
    pub revalidated: Option<u64>,
    /// The change report's counts, against the previous complete run.
    pub changes: Option<ChangeCounts>,
}

/// How many URLs a run added to, removed from, or changed in the sitemap.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ChangeCounts {
    /// Listed now, not before.
    pub added: u64,
    /// Listed before, not now.
    pub removed: u64,
    /// Listed in both, with another lastmod.
    pub changed: u64,
}

/// What changed in the sitemap between two runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChangeReport {
    /// The run reported on.
    pub run: RunId,
    /// The previous complete run; `None` on the first one, when everything is added.
    pub previous: Option<RunId>,
    /// Listed now, not before.
    pub added: Vec<String>,
    /// Listed before, not now.
    pub removed: Vec<String>,
    /// Listed in both, with another lastmod.
    pub changed: Vec<String>,
}

impl ChangeReport {
    /// The report's sizes.
    pub fn counts(&self) -> ChangeCounts {
        ChangeCounts {
            added: self.added.len() as u64,
            removed: self.removed.len() as u64,
            changed: self.changed.len() as u64,
        }
    }
}

/// Listings kept per database: enough history for the change reports and the observed
/// change intervals, bounded so that a nightly cron job does not grow the file forever.
pub const LISTINGS_KEPT: i64 = 30;

pub(crate) fn timestamp(seconds: i64) -> Option<Timestamp> {
    Timestamp::from_second(seconds).ok()
}

impl Store {
    /// Starts a run now.
    pub fn begin_run(&mut self, seed: &str) -> Result<RunId, StoreError> {
        self.connection
            .execute(
                "INSERT INTO runs (seed, started_at, status) VALUES (?1, ?2, ?3)",
                params![
                    seed,
                    Timestamp::now().as_second(),
                    RunStatus::Running.as_str()
                ],
            )
            .map_err(|source| self.sql_error(source))?;
        Ok(RunId(self.connection.last_insert_rowid()))
    }

    /// Ends a run now, storing how many pages it saw and listed.
    pub fn finish_run(&mut self, run: RunId, status: RunStatus) -> Result<(), StoreError> {
        self.connection
            .execute(
                "UPDATE runs SET finished_at = ?2, status = ?3,
                    pages_seen = (SELECT count(*) FROM pages WHERE last_seen_run = ?1),
                    pages_listed = (SELECT count(*) FROM pages WHERE last_seen_run = ?1 AND verdict = ?4)
                 WHERE id = ?1",
                params![
                    run.0,
                    Timestamp::now().as_second(),
                    status.as_str(),
                    Verdict::Indexable
                ],
            )
            .map_err(|source| self.sql_error(source))?;
        Ok(())
    }

    /// Stores which URLs `run` lists (with their lastmod), for later change reports, and
    /// forgets the listings of runs older than the last 30 (`LISTINGS_KEPT`).
    pub fn record_listing(&mut self, run: RunId) -> Result<(), StoreError> {
        let transaction = self
            .connection
            .transaction()
            .map_err(|source| sql_error(&self.path, source))?;
        transaction
            .execute("DELETE FROM listed WHERE run = ?1", params![run.0])
            .and_then(|_| {
                transaction.execute(
                    "INSERT INTO listed (run, url, lastmod)
                        SELECT ?1, url, lastmod FROM pages WHERE last_seen_run = ?1 AND verdict = ?2",
                    params![run.0, Verdict::Indexable],
                )
            })
            .and_then(|_| {
                transaction.execute(
                    "DELETE FROM listed WHERE run <= (SELECT max(id) FROM runs) - ?1",
                    params![LISTINGS_KEPT],
                )
            })
            .and_then(|_| transaction.commit())
            .map_err(|source| sql_error(&self.path, source))
    }

    /// The newest complete run before `run`.
    pub fn previous_complete_run(&self, run: RunId) -> Result<Option<RunId>, StoreError> {
        self.connection
            .query_row(
                "SELECT max(id) FROM runs WHERE id < ?1 AND status = 'complete'",
                params![run.0],
                |row| row.get::<_, Option<i64>>(0),
            )
            .map(|id| id.map(RunId))
            .map_err(|source| self.sql_error(source))
    }

    /// What `run` lists that the previous complete run did not, and the other way round, and
    /// which URLs both list with another lastmod. Call after [`Store::record_listing`].
    pub fn change_report(&self, run: RunId) -> Result<ChangeReport, StoreError> {
        let previous = self.previous_complete_run(run)?;
        let previous_id = previous.map_or(-1, |previous| previous.0);
        let urls = |sql: &str| -> Result<Vec<String>, StoreError> {
            let mut statement = self
                .connection
                .prepare(sql)
                .map_err(|source| self.sql_error(source))?;
            statement
                .query_map(params![run.0, previous_id], |row| row.get(0))
                .and_then(Iterator::collect)
                .map_err(|source| self.sql_error(source))
        };
        Ok(ChangeReport {
            run,
            previous,
            added: urls(
                "SELECT url FROM listed WHERE run = ?1
                 EXCEPT SELECT url FROM listed WHERE run = ?2 ORDER BY url",
            )?,
            removed: urls(
                "SELECT url FROM listed WHERE run = ?2
                 EXCEPT SELECT url FROM listed WHERE run = ?1 ORDER BY url",
            )?,
            changed: urls(
                "SELECT now.url FROM listed AS now JOIN listed AS before
                    ON before.url = now.url AND before.run = ?2
                 WHERE now.run = ?1 AND now.lastmod IS NOT before.lastmod ORDER BY now.url",
            )?,
        })
    }

    /// Stores a run's request counts and change counts, for `sitemapper runs`.
    pub fn record_run_counts(
        &mut self,
        run: RunId,
        requests: u64,
        revalidated: u64,
        changes: Option<ChangeCounts>,
    ) -> Result<(), StoreError> {
        let count = |value: u64| i64::try_from(value).unwrap_or(i64::MAX);
        self.connection
            .execute(
                "UPDATE runs SET requests = ?2, revalidated = ?3, added = ?4, removed = ?5, changed = ?6
                 WHERE id = ?1",
                params![
                    run.0,
                    count(requests),
                    count(revalidated),
                    changes.map(|changes| count(changes.added)),
                    changes.map(|changes| count(changes.removed)),
                    changes.map(|changes| count(changes.changed)),
                ],
            )
            .map_err(|source| self.sql_error(source))?;
        Ok(())
    }

    /// Every run, newest first.
    pub fn runs(&self) -> Result<Vec<RunSummary>, StoreError> {
        let mut statement = self
            .connection
            .prepare_cached(
                "SELECT id, seed, started_at, finished_at, status, pages_seen, pages_listed, requests, revalidated,
                        added, removed, changed
                 FROM runs ORDER BY id DESC",
            )
            .map_err(|source| self.sql_error(source))?;
        let rows = statement
            .query_map([], |row| {
                Ok((
                    row.get::<_, i64>(0)?,
                    row.get::<_, String>(1)?,
                    row.get::<_, i64>(2)?,
                    row.get::<_, Option<i64>>(3)?,
                    row.get::<_, String>(4)?,
                    row.get::<_, Option<i64>>(5)?,
                    row.get::<_, Option<i64>>(6)?,
                    [row.get::<_, Option<i64>>(7)?, row.get::<_, Option<i64>>(8)?],
                    [
                        row.get::<_, Option<i64>>(9)?,
                        row.get::<_, Option<i64>>(10)?,
                        row.get::<_, Option<i64>>(11)?,
                    ],
                ))
            })
            .map_err(|source| self.sql_error(source))?;
        let mut runs = Vec::new();
        for row in rows {
            let (
                id,
                seed,
                started_at,
                finished_at,
                status,
                seen,
                listed,
                [requests, revalidated],
                changes,
            ) = row.map_err(|source| self.sql_error(source))?;
            let count = |value: i64| value.max(0) as u64;
            let corrupt = |detail: String| StoreError::Corrupt {
                path: self.path.clone(),
                detail,
            };
            runs.push(RunSummary {
                id: RunId(id),
                seed,
                started_at: timestamp(started_at)
                    .ok_or_else(|| corrupt(format!("run {id} start time {started_at}")))?,
                finished_at: finished_at.and_then(timestamp),
                status: RunStatus::parse(&status)
                    .ok_or_else(|| corrupt(format!("run {id} status {status:?}")))?,
                pages_seen: seen.map_or(0, count),
                pages_listed: listed.map_or(0, count),
                requests: requests.map(count),
                revalidated: revalidated.map(count),
                changes: match changes {
                    [Some(added), Some(removed), Some(changed)] => Some(ChangeCounts {
                        added: count(added),
                        removed: count(removed),
                        changed: count(changed),
                    }),
                    _ => None,
                },
            });
        }
        Ok(runs)
    }

    /// The newest run, with its status.
    pub fn latest_run_status(&self) -> Result<Option<(RunId, RunStatus)>, StoreError> {
        let row = self
            .connection
            .query_row(
                "SELECT id, status FROM runs ORDER BY id DESC LIMIT 1",
                [],
                |row| Ok((row.get::<_, i64>(0)?, row.get::<_, String>(1)?)),
            )
            .optional()
            .map_err(|source| self.sql_error(source))?;
        row.map(|(id, status)| {
            RunStatus::parse(&status)
                .map(|status| (RunId(id), status))
                .ok_or_else(|| StoreError::Corrupt {
                    path: self.path.clone(),
                    detail: format!("run {id} status {status:?}"),
                })
        })
        .transpose()
    }

    /// Marks runs left `running` by a process that died (the caller holds the run lock, so
    /// no other process is running them) as failed. Returns how many.
    pub fn abandon_unfinished_runs(&mut self) -> Result<u64, StoreError> {
        self.connection
            .execute(
                "UPDATE runs SET status = 'failed', finished_at = ?1 WHERE status IN ('running', 'interrupted')",
                params![Timestamp::now().as_second()],
            )
            .map(|count| count as u64)
            .map_err(|source| self.sql_error(source))
    }

    /// Takes up an unfinished run again.
    pub fn reopen_run(&mut self, run: RunId) -> Result<(), StoreError> {
        self.connection
            .execute(
                "UPDATE runs SET status = 'running', finished_at = NULL WHERE id = ?1",
                params![run.0],
            )
            .map_err(|source| self.sql_error(source))?;
        Ok(())
    }

    /// Whether no URL was ever recorded: a new database.
    pub fn has_no_pages(&self) -> Result<bool, StoreError> {
        self.connection
            .query_row("SELECT NOT EXISTS (SELECT 1 FROM pages)", [], |row| {
                row.get(0)
            })
            .map_err(|source| self.sql_error(source))
    }

    /// The newest run, if any.
    pub fn latest_run(&self) -> Result<Option<RunId>, StoreError> {
        self.connection
            .query_row("SELECT max(id) FROM runs", [], |row| {
                row.get::<_, Option<i64>>(0)
            })
            .optional()
            .map(|id| id.flatten().map(RunId))
            .map_err(|source| self.sql_error(source))
    }
}
