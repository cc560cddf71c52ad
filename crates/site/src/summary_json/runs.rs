//! The runs a crawl database remembers, as data (`sitemapper runs --summary json`).

use std::path::Path;

use serde::Serialize;
use sitemapper_store::RunSummary;

use crate::summary_json::envelope::path_text;

/// The fields of `sitemapper runs --summary json` after the envelope.
#[derive(Debug, Serialize)]
pub struct RunsJson {
    /// The crawl database.
    state: String,
    /// Newest first.
    runs: Vec<RunJson>,
}

impl RunsJson {
    /// The `runs` of the crawl database at `state`.
    pub fn new(state: &Path, runs: &[RunSummary]) -> RunsJson {
        RunsJson {
            state: path_text(state),
            runs: runs.iter().map(RunJson::of).collect(),
        }
    }
}

/// One run as `runs --summary json` lists it; `null` for what the run did not record.
#[derive(Debug, Serialize)]
struct RunJson {
    run: i64,
    seed: String,
    /// RFC 3339, UTC.
    started_at: String,
    finished_at: Option<String>,
    status: &'static str,
    seconds: Option<i64>,
    pages_seen: u64,
    pages_listed: u64,
    requests: Option<u64>,
    revalidated: Option<u64>,
    added: Option<u64>,
    removed: Option<u64>,
    changed: Option<u64>,
}

impl RunJson {
    fn of(run: &RunSummary) -> RunJson {
        RunJson {
            run: run.id.0,
            seed: run.seed.clone(),
            started_at: run.started_at.to_string(),
            finished_at: run.finished_at.map(|finished| finished.to_string()),
            status: run.status.as_str(),
            seconds: run
                .finished_at
                .map(|finished| (finished - run.started_at).get_seconds()),
            pages_seen: run.pages_seen,
            pages_listed: run.pages_listed,
            requests: run.requests,
            revalidated: run.revalidated,
            added: run.changes.map(|changes| changes.added),
            removed: run.changes.map(|changes| changes.removed),
            changed: run.changes.map(|changes| changes.changed),
        }
    }
}
