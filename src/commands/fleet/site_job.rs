//! One run of one site of a fleet: its settings, the crawl and publish, the site's publish
//! command, and the record of the run. `fleet run` and `worker` both run sites through here.

use std::path::Path;

use jiff::Timestamp;
use sitemapper_fleet::{
    PublishError, RunRecord, RunResult, SiteSpec, one_line, run_publish_command,
};

use crate::commands::Output;
use crate::commands::crawl::{Embedding, Stopper, crawl_and_publish};
use crate::exit::{ExitStatus, Failure};
use crate::settings::{CrawlSettings, SiteRun};

/// A site to run, and where.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SiteJob<'a> {
    /// The fleet file, or what stands for it in messages (the queue).
    pub fleet_file: &'a Path,
    pub site: &'a SiteSpec,
    /// The site's crawl database.
    pub state: &'a Path,
    /// Continue the site's interrupted run.
    pub resume: bool,
    pub embedding: &'a Embedding,
    /// The worker running it, for the record; none on one machine.
    pub worker: Option<&'a str>,
}

/// What a run of a site came to.
pub(crate) fn run(job: SiteJob<'_>) -> RunRecord {
    // Every line the site's crawl logs names the site (and the worker).
    let span = match job.worker {
        Some(worker) => tracing::warn_span!("site", name = %job.site.name, %worker),
        None => tracing::warn_span!("site", name = %job.site.name),
    };
    let _entered = span.enter();
    let started = Timestamp::now();
    let outcome = crawl(&job);
    let finished = Timestamp::now();
    let mut record = RunRecord {
        finished,
        ..RunRecord::new(started, job.worker.map(str::to_string))
    };
    match outcome {
        Ok(counts) => {
            record.listed = counts.listed;
            record.added = counts.added;
            record.removed = counts.removed;
            record.changed = counts.changed;
            record.requests = counts.requests;
        }
        Err(failure) => {
            record.result = match failure.status {
                ExitStatus::Interrupted | ExitStatus::Terminated => RunResult::Interrupted,
                _ => RunResult::Failed,
            };
            record.error = Some(one_line(&failure.line()));
        }
    }
    record
}

/// The counts of a successful run.
struct Counts {
    listed: u64,
    added: u64,
    removed: u64,
    changed: u64,
    requests: u64,
}

fn crawl(job: &SiteJob<'_>) -> Result<Counts, Failure> {
    let run = SiteRun {
        state: job.state,
        resume: job.resume,
    };
    let settings =
        CrawlSettings::for_fleet_site(job.fleet_file, job.site, run).map_err(Failure::usage)?;
    let output = Output { quiet: true };
    let crawled = crawl_and_publish(&settings, output, None, Stopper::Embedded(job.embedding))?;
    let changes = crawled.changes.counts();
    let counts = Counts {
        listed: crawled
            .published
            .0
            .first()
            .map_or(0, |written| written.urls),
        added: changes.added,
        removed: changes.removed,
        changed: changes.changed,
        requests: crawled.summary.requests,
    };
    // The run's lock on the output directory is let go before the publish command reads it.
    drop(crawled);
    if let Some(command) = &job.site.publish {
        run_publish_command(command, job.site, &job.embedding.stop).map_err(publish_failure)?;
    }
    Ok(counts)
}

/// A publish command that failed fails the run; one the fleet's stop ended leaves it
/// interrupted, to be run again.
fn publish_failure(error: PublishError) -> Failure {
    let status = if error.stopped() {
        ExitStatus::Interrupted
    } else {
        ExitStatus::Fatal
    };
    Failure {
        status,
        error: error.into(),
    }
}
