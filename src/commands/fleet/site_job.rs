//! One run of one site of a fleet: its settings, the crawl and publish, the site's publish
//! command, and the record of the run. `fleet run` and `worker` both run sites through here.

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use jiff::Timestamp;
use sitemapper_fleet::{RunRecord, RunResult, SiteSpec};

use crate::commands::Output;
use crate::commands::crawl::{Embedding, crawl_and_publish};
use crate::exit::{ExitStatus, Failure};
use crate::settings::{CrawlSettings, SiteRun};

/// The longest a publish command may take before it is killed and the run failed.
const PUBLISH_TIMEOUT: Duration = Duration::from_secs(30 * 60);

/// The variables a publish command finds the site in (its values are the operator's own,
/// from the fleet file, but are still passed as variables, never spliced into the command).
const SITE_VARIABLE: &str = "SITEMAPPER_FLEET_SITE";
const OUT_VARIABLE: &str = "SITEMAPPER_FLEET_OUT";
const URL_VARIABLE: &str = "SITEMAPPER_FLEET_URL";

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
            record.error = Some(one_line(&format!("{:#}", failure.error)));
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
    let crawled = crawl_and_publish(&settings, output, None, Some(job.embedding))?;
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
        publish(command, job.site).map_err(Failure::fatal)?;
    }
    Ok(counts)
}

/// Runs the site's publish command (`sh -c`), which finds the site in the variables
/// [`SITE_VARIABLE`], [`OUT_VARIABLE`] and [`URL_VARIABLE`]. A non-zero exit or a timeout
/// fails the run, with the last line the command wrote on stderr.
fn publish(command: &str, site: &SiteSpec) -> anyhow::Result<()> {
    let mut child = Command::new("sh")
        .args(["-c", command])
        .env(SITE_VARIABLE, &site.name)
        .env(OUT_VARIABLE, &site.out)
        .env(URL_VARIABLE, &site.url)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|error| anyhow::anyhow!("cannot start the publish command: {error}"))?;
    // Read stderr on a thread of its own, so that a chatty command never blocks on a full pipe.
    let stderr = child.stderr.take();
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        if let Some(mut stderr) = stderr {
            let _ = stderr.by_ref().take(64 * 1024).read_to_string(&mut text);
            let _ = std::io::copy(&mut stderr, &mut std::io::sink());
        }
        text
    });
    let deadline = Instant::now() + PUBLISH_TIMEOUT;
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break Some(status);
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let stderr = reader.join().unwrap_or_default();
    let said = stderr
        .lines()
        .rev()
        .find(|line| !line.trim().is_empty())
        .map_or(String::new(), |line| format!(": {}", line.trim()));
    match status {
        Some(status) if status.success() => Ok(()),
        Some(status) => Err(anyhow::anyhow!(
            "the publish command failed ({status}){said}"
        )),
        None => Err(anyhow::anyhow!(
            "the publish command did not finish in {} minutes and was killed{said}",
            PUBLISH_TIMEOUT.as_secs() / 60
        )),
    }
}

/// An error on one line, for a table cell and a log line.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}
