//! The registry of `fleet run` on one machine: the runs of each site, in an SQLite file in
//! the state directory, beside each site's crawl database.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use jiff::Timestamp;
use rusqlite::{Connection, OptionalExtension, params};

use crate::record::{RunRecord, RunResult};

/// The registry's file in the state directory.
const REGISTRY_FILE: &str = "fleet.db";

/// The directory of the sites' crawl databases in the state directory.
const SITES_DIRECTORY: &str = "sites";

/// The crawl database `fleet run` keeps for the site named `name` in the state directory
/// `directory` ([`crate::Fleet::state_dir`]).
pub fn site_database_in(directory: &Path, name: &str) -> PathBuf {
    directory.join(SITES_DIRECTORY).join(format!("{name}.db"))
}

/// Runs kept per site: enough to see a pattern of failures, bounded for fleets of thousands.
const RUNS_KEPT: i64 = 50;

/// What can go wrong with the local registry.
#[derive(Debug, thiserror::Error)]
pub enum LocalError {
    /// The state directory cannot be made.
    #[error("cannot create the fleet's state directory {path}: {source}")]
    Directory {
        /// The file or directory.
        path: PathBuf,
        /// What went wrong.
        source: std::io::Error,
    },
    /// SQLite failed.
    #[error("fleet registry {path}: {source}")]
    Database {
        /// The file or directory.
        path: PathBuf,
        /// What went wrong.
        source: rusqlite::Error,
    },
}

/// The runs of a fleet's sites on this machine.
#[derive(Debug)]
pub struct LocalRegistry {
    directory: PathBuf,
    path: PathBuf,
    connection: Connection,
}

impl LocalRegistry {
    /// Opens (creating it) the registry in `directory`.
    pub fn open(directory: &Path) -> Result<LocalRegistry, LocalError> {
        let sites = directory.join(SITES_DIRECTORY);
        std::fs::create_dir_all(&sites).map_err(|source| LocalError::Directory {
            path: sites,
            source,
        })?;
        let path = directory.join(REGISTRY_FILE);
        let database = |source| LocalError::Database {
            path: path.clone(),
            source,
        };
        let connection = Connection::open(&path).map_err(database)?;
        connection
            .busy_timeout(std::time::Duration::from_secs(10))
            .map_err(database)?;
        connection
            .execute_batch(
                "CREATE TABLE IF NOT EXISTS runs (
                    id INTEGER PRIMARY KEY,
                    site TEXT NOT NULL,
                    started INTEGER NOT NULL,
                    finished INTEGER NOT NULL,
                    result TEXT NOT NULL,
                    listed INTEGER NOT NULL,
                    added INTEGER NOT NULL,
                    removed INTEGER NOT NULL,
                    changed INTEGER NOT NULL,
                    requests INTEGER NOT NULL,
                    error TEXT
                );
                CREATE INDEX IF NOT EXISTS runs_by_site ON runs (site, id);",
            )
            .map_err(database)?;
        Ok(LocalRegistry {
            directory: directory.to_path_buf(),
            path,
            connection,
        })
    }

    fn failed(&self, source: rusqlite::Error) -> LocalError {
        LocalError::Database {
            path: self.path.clone(),
            source,
        }
    }

    /// The crawl database of the site named `name` (a name [`crate::check_name`] allows).
    pub fn site_database(&self, name: &str) -> PathBuf {
        site_database_in(&self.directory, name)
    }

    /// Records a run of `site`, keeping its last 50.
    pub fn record(&mut self, site: &str, run: &RunRecord) -> Result<(), LocalError> {
        let transaction = self
            .connection
            .transaction()
            .map_err(|error| LocalError::Database {
                path: self.path.clone(),
                source: error,
            })?;
        let recorded = (|| {
            transaction.execute(
                "INSERT INTO runs (site, started, finished, result, listed, added, removed, changed, requests, error)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
                params![
                    site,
                    run.started.as_microsecond(),
                    run.finished.as_microsecond(),
                    run.result.code(),
                    count(run.listed),
                    count(run.added),
                    count(run.removed),
                    count(run.changed),
                    count(run.requests),
                    run.error,
                ],
            )?;
            transaction.execute(
                "DELETE FROM runs WHERE site = ?1 AND id <= (
                     SELECT id FROM runs WHERE site = ?1 ORDER BY id DESC LIMIT 1 OFFSET ?2)",
                params![site, RUNS_KEPT],
            )?;
            transaction.commit()
        })();
        recorded.map_err(|error| self.failed(error))
    }

    /// The last run of every site that has one, and how many runs each has kept.
    pub fn last_runs(&self) -> Result<HashMap<String, (RunRecord, u64)>, LocalError> {
        let mut statement = self
            .connection
            .prepare(
                "SELECT site, started, finished, result, listed, added, removed, changed, requests, error,
                        (SELECT count(*) FROM runs AS kept WHERE kept.site = runs.site)
                 FROM runs WHERE id IN (SELECT max(id) FROM runs GROUP BY site)",
            )
            .map_err(|error| self.failed(error))?;
        let rows = statement
            .query_map([], |row| {
                let result: String = row.get(3)?;
                let record = RunRecord {
                    started: timestamp(row.get(1)?),
                    finished: timestamp(row.get(2)?),
                    result: result.parse().unwrap_or(RunResult::Failed),
                    listed: row.get::<_, i64>(4)?.unsigned_abs(),
                    added: row.get::<_, i64>(5)?.unsigned_abs(),
                    removed: row.get::<_, i64>(6)?.unsigned_abs(),
                    changed: row.get::<_, i64>(7)?.unsigned_abs(),
                    requests: row.get::<_, i64>(8)?.unsigned_abs(),
                    error: row.get(9)?,
                    worker: None,
                };
                Ok((
                    row.get::<_, String>(0)?,
                    (record, row.get::<_, i64>(10)?.unsigned_abs()),
                ))
            })
            .map_err(|error| self.failed(error))?;
        rows.collect::<Result<_, _>>()
            .map_err(|error| self.failed(error))
    }

    /// The last run of the site named `name`.
    pub fn last_run(&self, name: &str) -> Result<Option<RunRecord>, LocalError> {
        Ok(self.last_runs()?.remove(name).map(|(run, _)| run))
    }

    /// Whether any run was recorded at all (a new state directory has none).
    pub fn is_empty(&self) -> Result<bool, LocalError> {
        self.connection
            .query_row("SELECT id FROM runs LIMIT 1", [], |row| {
                row.get::<_, i64>(0)
            })
            .optional()
            .map(|first| first.is_none())
            .map_err(|error| self.failed(error))
    }
}

fn count(value: u64) -> i64 {
    i64::try_from(value).unwrap_or(i64::MAX)
}

fn timestamp(microseconds: i64) -> Timestamp {
    Timestamp::from_microsecond(microseconds).unwrap_or(Timestamp::UNIX_EPOCH)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(started: &str, result: RunResult) -> RunRecord {
        let started: Timestamp = started.parse().unwrap_or_else(|_| panic!("{started}"));
        RunRecord {
            started,
            finished: started,
            result,
            listed: 3,
            added: 1,
            removed: 0,
            changed: 2,
            requests: 9,
            error: (result == RunResult::Failed).then(|| "down".to_string()),
            worker: None,
        }
    }

    #[test]
    fn the_last_run_of_each_site_is_kept_with_a_bounded_history() {
        let directory = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
        let mut registry =
            LocalRegistry::open(directory.path()).unwrap_or_else(|error| panic!("{error}"));
        assert!(
            registry
                .is_empty()
                .unwrap_or_else(|error| panic!("{error}"))
        );
        for day in 1..=60 {
            let started = format!("2026-01-01T00:00:{:02}Z", day % 60);
            let result = if day == 60 {
                RunResult::Failed
            } else {
                RunResult::Succeeded
            };
            registry
                .record("a", &run(&started, result))
                .unwrap_or_else(|error| panic!("{error}"));
        }
        registry
            .record("b", &run("2026-01-02T00:00:00Z", RunResult::Succeeded))
            .unwrap_or_else(|error| panic!("{error}"));
        let runs = registry
            .last_runs()
            .unwrap_or_else(|error| panic!("{error}"));
        let (last, kept) = &runs["a"];
        assert_eq!(last.result, RunResult::Failed);
        assert_eq!(last.error.as_deref(), Some("down"));
        assert_eq!(*kept, RUNS_KEPT.unsigned_abs());
        assert_eq!(runs["b"].1, 1);
        assert_eq!(runs["b"].0.listed, 3);
        assert!(registry.site_database("a").ends_with("sites/a.db"));
    }
}
