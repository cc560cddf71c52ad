//! The report of a fleet's run (`fleet run --report`, a worker's batch): each site's run, and
//! the sites counted by how their runs ended (docs/summary-json.md).

use serde::Serialize;

use crate::record::{RunRecord, RunResult, shown_url};

/// The version of the report's shape. Like the JSON summaries', it changes when a field is
/// removed or changes meaning; new fields may appear within one version.
pub const REPORT_VERSION: u32 = 1;

/// A site's run, as the report lists it.
#[derive(Debug, Serialize)]
pub struct SiteRunReport {
    /// The site's name.
    pub name: String,
    /// Its seed URL, with any password masked.
    pub url: String,
    /// How its run went.
    #[serde(flatten)]
    pub run: RunRecord,
    /// How long the run took.
    pub duration_seconds: f64,
}

impl SiteRunReport {
    /// The run of the site `name` at `url`.
    pub fn new(name: &str, url: &str, run: RunRecord) -> SiteRunReport {
        SiteRunReport {
            name: name.to_string(),
            // The report is a file others may read: no password in it.
            url: shown_url(url),
            duration_seconds: run.duration().as_secs_f64(),
            run,
        }
    }
}

/// The report of a fleet's run.
#[derive(Debug, Serialize)]
pub struct FleetReport {
    /// The version of the report's shape: [`REPORT_VERSION`].
    pub version: u32,
    /// The fleet file (`fleet run`), or the queue (`worker`).
    pub fleet: String,
    /// Sites whose run succeeded.
    pub succeeded: usize,
    /// Sites whose run failed.
    pub failed: usize,
    /// Sites whose run was stopped, to be continued by the next.
    pub interrupted: usize,
    /// Sites not run because they were not due (or not chosen).
    pub not_due: usize,
    /// Each site run, by name.
    pub sites: Vec<SiteRunReport>,
}

impl FleetReport {
    /// The report of `sites` run from `fleet` (a fleet file, or a queue), `not_due` left.
    pub fn new(fleet: String, not_due: usize, mut sites: Vec<SiteRunReport>) -> FleetReport {
        sites.sort_by(|a, b| a.name.cmp(&b.name));
        let count = |result: RunResult| {
            sites
                .iter()
                .filter(|site| site.run.result == result)
                .count()
        };
        FleetReport {
            version: REPORT_VERSION,
            fleet,
            succeeded: count(RunResult::Succeeded),
            failed: count(RunResult::Failed),
            interrupted: count(RunResult::Interrupted),
            not_due,
            sites,
        }
    }
}
