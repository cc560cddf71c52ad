//! The crawl database of one run: the user's `--state` file or a temporary one, claimed for
//! one scope, the run begun (or the interrupted one continued), and the guard that records how
//! the run ended whatever path it leaves by.

use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use sitemapper_crawl::Crawler;
use sitemapper_render::{OwnedDirectory, Removal, remove_abandoned};
use sitemapper_store::{ResumeCursor, RunId, RunStatus, Store};
use url::Url;

use crate::error::SiteError;
use crate::settings::SiteSettings;

/// How the names of temporary crawl databases' directories start, in the temp directory.
const TEMPORARY_PREFIX: &str = "sitemapper-crawl-";

/// The crawl database: the user's `--state` file, or a temporary one removed at the end.
#[derive(Debug)]
pub(crate) struct Database {
    pub(crate) path: PathBuf,
    _temporary: Option<OwnedDirectory>,
}

impl Database {
    pub(crate) fn open(state: Option<&Path>) -> Result<Database, SiteError> {
        match state {
            Some(path) => Ok(Database {
                path: path.to_path_buf(),
                _temporary: None,
            }),
            // A temporary database holds what a protected site showed: its directory is the
            // user's alone (0700), its files too (0600, which SQLite gives its journals), and
            // one that a killed run left is removed by the next (docs/design.md, Safety).
            None => {
                let cannot = SiteError::io("cannot create a temporary crawl database");
                let temp_dir = std::env::temp_dir();
                let directory =
                    OwnedDirectory::create(&temp_dir, TEMPORARY_PREFIX, Removal::OnDrop)
                        .map_err(cannot)?;
                remove_abandoned(&temp_dir, TEMPORARY_PREFIX, directory.path());
                let path = directory.path().join("crawl.db");
                std::fs::OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .mode(0o600)
                    .open(&path)
                    .map_err(SiteError::io("cannot create a temporary crawl database"))?;
                Ok(Database {
                    path,
                    _temporary: Some(directory),
                })
            }
        }
    }

    pub(crate) fn open_store(&self) -> Result<Store, SiteError> {
        Ok(Store::open(&self.path)?)
    }
}

/// A crawl database belongs to one scope (docs/design.md, Safety): a run of another site on it
/// would mix two sites' pages into one sitemap, report the first site's URLs as removed, and
/// send them to IndexNow. A new database is bound to this run's scope; a database from
/// before scopes were recorded is bound to the scope of its newest run's seed.
pub(crate) fn claim_scope(store: &mut Store, scope: &Url) -> Result<(), SiteError> {
    let bound = match store.scope()? {
        Some(bound) => Some(bound),
        None => store
            .latest_seed()?
            .and_then(|seed| Url::parse(&seed).ok())
            .map(|seed| Crawler::scope_root(&seed).to_string()),
    };
    if let Some(bound) = bound
        && bound != scope.as_str()
    {
        return Err(SiteError::OtherSite {
            database: store.path().to_path_buf(),
            bound,
            scope: scope.to_string(),
        });
    }
    store.bind_scope(scope.as_str())?;
    Ok(())
}

/// Begins this run: a new one, or with `--resume` the interrupted one, with where to read
/// where it stood. Runs a killed process left unfinished are marked failed.
pub(crate) fn start_run(
    store: &mut Store,
    settings: &SiteSettings,
    seed: &Url,
) -> Result<(RunId, Option<ResumeCursor>), SiteError> {
    if settings.resume
        && let Some((run, RunStatus::Running | RunStatus::Interrupted)) =
            store.latest_run_status()?
    {
        store.reopen_run(run)?;
        let finished = store.recorded_count(run)?;
        tracing::info!(run = run.0, finished, "resuming");
        return Ok((run, Some(ResumeCursor::new(run))));
    }
    if settings.resume {
        // The nightly line passes --resume every night: most nights have nothing to continue.
        tracing::info!("--resume: no interrupted run to continue; starting a new one");
    }
    let abandoned = store.abandon_unfinished_runs()?;
    if abandoned > 0 {
        tracing::info!(abandoned, "unfinished earlier runs marked failed");
    }
    Ok((store.begin_run(seed.as_str())?, None))
}

/// Marks its run failed in the crawl database when it is dropped before the run completed:
/// whatever phase returns early, the run is not left "running". A run that was stopped is
/// marked interrupted instead, to be continued.
#[derive(Debug)]
pub(crate) struct RunGuard {
    database: PathBuf,
    run: RunId,
    /// What the run ends as if the guard is dropped; `None` once it is recorded.
    ending: Option<RunStatus>,
}

impl RunGuard {
    pub(crate) fn new(database: &Path, run: RunId) -> RunGuard {
        RunGuard {
            database: database.to_path_buf(),
            run,
            ending: Some(RunStatus::Failed),
        }
    }

    /// The run was stopped: it ends interrupted.
    pub(crate) fn stopped(&mut self) {
        self.ending = Some(RunStatus::Interrupted);
    }

    /// Records the run complete.
    pub(crate) fn complete(&mut self, store: &mut Store) -> Result<(), SiteError> {
        store.finish_run(self.run, RunStatus::Complete)?;
        self.ending = None;
        Ok(())
    }
}

impl Drop for RunGuard {
    fn drop(&mut self) {
        let Some(status) = self.ending else {
            return;
        };
        // A connection of its own: the run's may be with the recorder, or gone with its error.
        let recorded = Store::open(&self.database)
            .map_err(|error| error.to_string())
            .and_then(|mut store| {
                store
                    .finish_run(self.run, status)
                    .map_err(|error| error.to_string())
            });
        if let Err(error) = recorded {
            tracing::warn!(run = self.run.0, "cannot record how the run ended: {error}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(text: &str) -> Url {
        Url::parse(text).unwrap_or_else(|error| panic!("{text}: {error}"))
    }

    #[test]
    fn a_database_is_claimed_by_its_first_scope_and_refused_to_others() {
        let directory = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
        let mut store = Store::open(&directory.path().join("crawl.db"))
            .unwrap_or_else(|error| panic!("{error}"));
        assert!(claim_scope(&mut store, &url("https://e.com/blog/")).is_ok());
        assert!(claim_scope(&mut store, &url("https://e.com/blog/")).is_ok());
        let refused = claim_scope(&mut store, &url("https://e.com/"))
            .err()
            .unwrap_or_else(|| panic!("another scope was accepted"));
        assert_eq!(refused.kind(), crate::ErrorKind::Usage);
        assert!(
            refused
                .to_string()
                .contains("belongs to https://e.com/blog/")
        );
    }

    #[test]
    fn a_database_from_before_scopes_were_recorded_belongs_to_its_newest_seed() {
        let directory = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
        let mut store = Store::open(&directory.path().join("crawl.db"))
            .unwrap_or_else(|error| panic!("{error}"));
        store
            .begin_run("https://e.com/docs/index.html")
            .unwrap_or_else(|error| panic!("{error}"));
        assert!(claim_scope(&mut store, &url("https://other.example/")).is_err());
        assert!(claim_scope(&mut store, &url("https://e.com/docs/")).is_ok());
        assert_eq!(
            store
                .scope()
                .unwrap_or_else(|error| panic!("{error}"))
                .as_deref(),
            Some("https://e.com/docs/")
        );
    }

    fn begun(database: &Path) -> (Store, RunId) {
        let mut store = Store::open(database).unwrap_or_else(|error| panic!("{error}"));
        let run = store
            .begin_run("https://e.com/")
            .unwrap_or_else(|error| panic!("{error}"));
        (store, run)
    }

    /// `run` as the crawl database records it, read through a connection of its own.
    fn recorded(database: &Path, run: RunId) -> sitemapper_store::RunSummary {
        Store::open(database)
            .and_then(|store| store.runs())
            .unwrap_or_else(|error| panic!("{error}"))
            .into_iter()
            .find(|summary| summary.id == run)
            .unwrap_or_else(|| panic!("run {} is not recorded", run.0))
    }

    #[test]
    fn a_run_whose_guard_is_dropped_before_it_completes_is_recorded_failed() {
        let directory = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
        let database = directory.path().join("crawl.db");
        let (_store, run) = begun(&database);
        drop(RunGuard::new(&database, run));
        let summary = recorded(&database, run);
        assert_eq!(summary.status, RunStatus::Failed);
        assert!(summary.finished_at.is_some());
    }

    #[test]
    fn a_stopped_run_whose_guard_is_dropped_is_recorded_interrupted() {
        let directory = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
        let database = directory.path().join("crawl.db");
        let (_store, run) = begun(&database);
        let mut guard = RunGuard::new(&database, run);
        guard.stopped();
        drop(guard);
        assert_eq!(recorded(&database, run).status, RunStatus::Interrupted);
    }

    #[test]
    fn a_completed_run_stays_as_it_was_recorded_when_its_guard_is_dropped() {
        let directory = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
        let database = directory.path().join("crawl.db");
        let (mut store, run) = begun(&database);
        let mut guard = RunGuard::new(&database, run);
        guard
            .complete(&mut store)
            .unwrap_or_else(|error| panic!("{error}"));
        let completed = recorded(&database, run);
        assert_eq!(completed.status, RunStatus::Complete);
        drop(guard);
        assert_eq!(recorded(&database, run), completed);
    }

    #[test]
    fn a_guard_that_cannot_open_its_database_drops_without_panicking() {
        let directory = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
        let database = directory.path().join("missing").join("crawl.db");
        drop(RunGuard::new(&database, RunId(1)));
        assert!(!database.exists());
    }
}
