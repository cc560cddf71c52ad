//! Runs: one row per crawl, with its seed, times, outcome and counts.

use jiff::Timestamp;
use rusqlite::{OptionalExtension, params};

use crate::{Store, StoreError};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RunId(pub i64);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunStatus {
    Running,
    Complete,
    Failed,
    /// Stopped by the user (Ctrl-C) before it finished.
    Interrupted,
}

impl RunStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            RunStatus::Running => "running",
            RunStatus::Complete => "complete",
            RunStatus::Failed => "failed",
            RunStatus::Interrupted => "interrupted",
        }
    }

    pub fn parse(text: &str) -> Option<RunStatus> {
        match text {
            "running" => Some(RunStatus::Running),
            "complete" => Some(RunStatus::Complete),
            "failed" => Some(RunStatus::Failed),
            "interrupted" => Some(RunStatus::Interrupted),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunSummary {
    pub id: RunId,
    pub seed: String,
    pub started_at: Timestamp,
    pub finished_at: Option<Timestamp>,
    pub status: RunStatus,
    pub pages_seen: u64,
    pub pages_listed: u64,
}

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
                    pages_listed = (SELECT count(*) FROM pages WHERE last_seen_run = ?1 AND verdict = 'indexable')
                 WHERE id = ?1",
                params![run.0, Timestamp::now().as_second(), status.as_str()],
            )
            .map_err(|source| self.sql_error(source))?;
        Ok(())
    }

    /// Every run, newest first.
    pub fn runs(&self) -> Result<Vec<RunSummary>, StoreError> {
        let mut statement = self
            .connection
            .prepare_cached(
                "SELECT id, seed, started_at, finished_at, status, pages_seen, pages_listed FROM runs ORDER BY id DESC",
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
                ))
            })
            .map_err(|source| self.sql_error(source))?;
        let mut runs = Vec::new();
        for row in rows {
            let (id, seed, started_at, finished_at, status, seen, listed) =
                row.map_err(|source| self.sql_error(source))?;
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
                pages_seen: seen.map_or(0, |count| count.max(0) as u64),
                pages_listed: listed.map_or(0, |count| count.max(0) as u64),
            });
        }
        Ok(runs)
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
