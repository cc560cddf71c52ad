//! What a run changed: the JSON change report (`--report-changes`) and the IndexNow
//! notification of added, changed and removed URLs (`--indexnow-key`).

use std::io::Write;
use std::path::Path;
use std::time::Duration;

use anyhow::Context;
use serde::Serialize;
use sitemapper_crawl::{AddressPolicy, HostMap, NetworkOptions};
use sitemapper_store::ChangeReport;
use url::Url;

use crate::settings::OutputTarget;

/// The IndexNow protocol's limit of URLs per request.
const INDEXNOW_BATCH: usize = 10_000;

/// The shared endpoint: every participating search engine receives what it is sent.
pub(crate) const DEFAULT_INDEXNOW_ENDPOINT: &str = "https://api.indexnow.org/indexnow";

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
pub(crate) fn write_report(report: &ChangeReport, target: &OutputTarget) -> anyhow::Result<()> {
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
            let mut out = crate::stdout::lock_optional();
            let cannot = "cannot write the change report to stdout";
            serde_json::to_writer_pretty(&mut out, &json).context(cannot)?;
            writeln!(out).context(cannot)?;
            return Ok(());
        }
    };
    let directory = path
        .parent()
        .filter(|parent| !parent.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let mut file = tempfile::NamedTempFile::new_in(directory)
        .with_context(|| format!("cannot write the change report {}", path.display()))?;
    serde_json::to_writer_pretty(&mut file, &json)
        .with_context(|| format!("cannot write the change report {}", path.display()))?;
    file.persist(path)
        .with_context(|| format!("cannot write the change report {}", path.display()))?;
    Ok(())
}

/// Where and how to notify IndexNow.
#[derive(Debug, Clone)]
pub(crate) struct IndexNow {
    pub key: String,
    pub key_location: Option<Url>,
    pub endpoint: Url,
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

/// What a notification did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Notified {
    pub urls: usize,
    pub batches: usize,
}

impl IndexNow {
    /// Submits the added, changed and removed URLs of `host`, in batches of at most 10,000.
    /// Connections obey `addresses`, the crawl's own policy.
    pub(crate) async fn notify(
        &self,
        host: &str,
        report: &ChangeReport,
        addresses: &AddressPolicy,
    ) -> anyhow::Result<Notified> {
        addresses.check_url(&self.endpoint)?;
        let urls: Vec<&str> = report
            .added
            .iter()
            .chain(&report.changed)
            .chain(&report.removed)
            .map(String::as_str)
            .collect();
        // The site's headers, credentials and cookies never go to the endpoint: this client
        // has none of them.
        let client = sitemapper_crawl::client_builder(addresses, &self.network.verifying())
            .context("cannot build the IndexNow client")?
            .user_agent(self.user_agent.clone())
            .timeout(Duration::from_secs(30))
            .build()
            .context("cannot build the IndexNow client")?;
        let mut batches = 0;
        for batch in urls.chunks(INDEXNOW_BATCH) {
            let submission = Submission {
                host,
                key: &self.key,
                key_location: self.key_location.as_ref().map(Url::as_str),
                url_list: batch,
            };
            let body =
                serde_json::to_vec(&submission).context("cannot encode the IndexNow request")?;
            let response = client
                .post(self.endpoint.clone())
                .header(
                    reqwest::header::CONTENT_TYPE,
                    "application/json; charset=utf-8",
                )
                .body(body)
                .send()
                .await
                .with_context(|| format!("IndexNow request to {} failed", self.endpoint))?;
            let status = response.status();
            if !status.is_success() {
                anyhow::bail!(
                    "IndexNow at {} answered {status} after {batches} of {} batches",
                    self.endpoint,
                    urls.len().div_ceil(INDEXNOW_BATCH)
                );
            }
            batches += 1;
        }
        Ok(Notified {
            urls: urls.len(),
            batches,
        })
    }
}
