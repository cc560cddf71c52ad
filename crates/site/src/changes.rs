//! What a run changed: the JSON change report (`--report-changes`) and the IndexNow
//! notification of added, changed and removed URLs (`--indexnow-key`).

use std::io::Write;
use std::path::Path;
use std::time::Duration;

use serde::Serialize;
use sitemapper_crawl::{
    AddressPolicy, CrawlError, CrawlSummary, FetchError, FetchSettings, Fetcher, HostMap,
    NetworkOptions, error_chain,
};
use sitemapper_store::{ChangeReport, RunId, Store};
use url::Url;

use crate::settings::OutputTarget;
use crate::stdout::Stdout;
use crate::{SiteError, count};

/// The IndexNow protocol's limit of URLs per request.
const INDEXNOW_BATCH: usize = 10_000;

/// The shared endpoint: every participating search engine receives what it is sent.
pub const DEFAULT_INDEXNOW_ENDPOINT: &str = "https://api.indexnow.org/indexnow";

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

/// Where and how to notify IndexNow.
#[derive(Debug, Clone)]
pub struct IndexNow {
    /// The site's key.
    pub key: String,
    /// Where the key file is, when not at the root of the host.
    pub key_location: Option<Url>,
    /// Where submissions go.
    pub endpoint: Url,
    /// The `User-Agent` of the requests.
    pub user_agent: String,
    /// The crawl's proxy and trusted certificates; certificates are always verified here,
    /// whatever `--insecure` says: the endpoint is not the site.
    pub network: NetworkOptions,
    /// The published host is the one notified (`--map-host`).
    pub host_map: HostMap,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Submission<'a> {
    host: &'a str,
    key: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    key_location: Option<&'a str>,
    url_list: &'a [&'a str],
}

/// Why IndexNow could not be notified.
#[derive(Debug, thiserror::Error)]
pub enum IndexNowError {
    /// No client could be built (certificates, proxy).
    #[error("cannot build the IndexNow client: {0}")]
    Setup(#[from] CrawlError),
    /// The request could not be encoded.
    #[error("cannot encode the IndexNow request")]
    Encode(#[source] serde_json::Error),
    /// The request got no answer, or its redirects led nowhere (the address policy refusing
    /// the endpoint included).
    #[error("IndexNow request to {endpoint} failed")]
    Request {
        /// The endpoint.
        endpoint: Url,
        /// Why.
        #[source]
        source: FetchError,
    },
    /// The endpoint answered with an error status.
    #[error("IndexNow at {endpoint} answered {status} after {batches} of {of} batches")]
    Refused {
        /// The endpoint.
        endpoint: Url,
        /// What it answered.
        status: reqwest::StatusCode,
        /// Batches accepted before.
        batches: usize,
        /// Batches in all.
        of: usize,
    },
}

/// What a notification did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notified {
    /// URLs submitted.
    pub urls: usize,
    /// Requests made.
    pub batches: usize,
}

impl IndexNow {
    /// Submits the added, changed and removed URLs of `host`, in batches of at most 10,000.
    /// Connections obey `addresses`, the crawl's own policy, on every hop.
    pub async fn notify(
        &self,
        host: &str,
        report: &ChangeReport,
        addresses: &AddressPolicy,
    ) -> Result<Notified, IndexNowError> {
        let urls: Vec<&str> = report
            .added
            .iter()
            .chain(&report.changed)
            .chain(&report.removed)
            .map(String::as_str)
            .collect();
        let settings = FetchSettings {
            user_agent: self.user_agent.clone(),
            request_timeout: Duration::from_secs(30),
            ..FetchSettings::default()
        };
        // No session: the site's headers, credentials and cookies never go to the endpoint.
        let fetcher = Fetcher::new(
            &settings,
            addresses.clone(),
            &self.network.verifying(),
            None,
        )?;
        let mut batches = 0;
        for batch in urls.chunks(INDEXNOW_BATCH) {
            let submission = Submission {
                host,
                key: &self.key,
                key_location: self.key_location.as_ref().map(Url::as_str),
                url_list: batch,
            };
            let body = serde_json::to_vec(&submission).map_err(IndexNowError::Encode)?;
            let posted = fetcher
                .post(&self.endpoint, "application/json; charset=utf-8", body)
                .await;
            match posted {
                Ok(_) => batches += 1,
                Err(FetchError::Status(status)) => {
                    return Err(IndexNowError::Refused {
                        endpoint: self.endpoint.clone(),
                        status,
                        batches,
                        of: urls.len().div_ceil(INDEXNOW_BATCH),
                    });
                }
                Err(source) => {
                    return Err(IndexNowError::Request {
                        endpoint: self.endpoint.clone(),
                        source,
                    });
                }
            }
        }
        Ok(Notified {
            urls: urls.len(),
            batches,
        })
    }
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
