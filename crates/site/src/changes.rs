//! What a run changed: the JSON change report (`--report-changes`) and the IndexNow
//! notification of added, changed and removed URLs (`--indexnow-key`).

use std::io::Write;
use std::path::Path;

use serde::Serialize;
use sitemapper_crawl::{CrawlSummary, HostMap, error_chain};
use sitemapper_store::{ChangeReport, RunId, Store};

use crate::counted::count;
use crate::error::SiteError;
use crate::indexnow::IndexNow;
use crate::output_target::OutputTarget;
use crate::stdout::Stdout;

#[derive(Debug, Serialize)]
struct ChangeReportJson<'a> {
    run: i64,
    previous_run: Option<i64>,
    added: &'a [String],
    removed: &'a [String],
    changed: &'a [String],
}

/// Writes the report as JSON: into a file atomically (a temporary file renamed into place),
/// or on stdout.
pub(crate) fn write_report(
    report: &ChangeReport,
    target: &OutputTarget,
    stdout: &dyn Stdout,
) -> Result<(), SiteError> {
    let json = ChangeReportJson {
        run: report.run.0,
        previous_run: report.previous.map(|previous| previous.0),
        added: &report.added,
        removed: &report.removed,
        changed: &report.changed,
    };
    let path = match target {
        OutputTarget::Path(path) => path,
        OutputTarget::Stdout => {
            let mut out = stdout.beside();
            let cannot = "cannot write the change report to stdout";
            serde_json::to_writer_pretty(&mut out, &json).map_err(|source| SiteError::Json {
                doing: cannot.to_string(),
                source,
            })?;
            writeln!(out).map_err(SiteError::io(cannot))?;
            return Ok(());
        }
    };
    let directory = path
        .parent()
        .filter(|parent| !parent.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let cannot = || format!("cannot write the change report {}", path.display());
    let mut file = tempfile::NamedTempFile::new_in(directory).map_err(SiteError::io(cannot()))?;
    serde_json::to_writer_pretty(&mut file, &json).map_err(|source| SiteError::Json {
        doing: cannot(),
        source,
    })?;
    file.persist(path)
        .map_err(|error| SiteError::io(cannot())(error.error))?;
    Ok(())
}

/// Stores what this run lists and compares it with the previous complete run.
pub(crate) fn record_changes(
    store: &mut Store,
    run: RunId,
    summary: &CrawlSummary,
) -> Result<ChangeReport, SiteError> {
    store.record_listing(run)?;
    let changes = store.change_report(run)?;
    let counts = changes.previous.map(|_| changes.counts());
    store.record_run_counts(run, summary.requests, summary.revalidated, counts)?;
    Ok(changes)
}

/// The change report in the URLs the sitemaps publish (`--map-host`): it is read with them,
/// and IndexNow is told of them.
pub(crate) fn published_changes(mut changes: ChangeReport, host_map: &HostMap) -> ChangeReport {
    if host_map.is_empty() {
        return changes;
    }
    for urls in [
        &mut changes.added,
        &mut changes.removed,
        &mut changes.changed,
    ] {
        for url in urls.iter_mut() {
            *url = host_map.publish_text(url).into_owned();
        }
    }
    changes
}

/// Notifies IndexNow of what changed since the previous run. A failure is reported but does
/// not fail the run: the sitemap is published already. Returns what to say in the summary.
pub(crate) fn notify_indexnow(
    runtime: &tokio::runtime::Runtime,
    indexnow: &IndexNow,
    summary: &CrawlSummary,
    changes: &ChangeReport,
) -> Option<String> {
    if changes.previous.is_none() {
        return Some("IndexNow: first run, nothing to compare with: not notified.".to_string());
    }
    let counts = changes.counts();
    if counts.added + counts.removed + counts.changed == 0 {
        return Some("IndexNow: nothing changed: not notified.".to_string());
    }
    let published_root = indexnow.host_map.to_published(&summary.scope.root);
    let host = published_root.host_str().unwrap_or_default();
    match runtime.block_on(indexnow.notify(host, changes, &summary.addresses)) {
        Ok(notified) => Some(format!(
            "IndexNow: notified {} of {} in {}.",
            indexnow.endpoint,
            count(notified.urls, "URL"),
            count(notified.batches, "request")
        )),
        Err(error) => {
            tracing::error!("{}", error_chain(&error));
            None
        }
    }
}
