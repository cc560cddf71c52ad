//! Notifying IndexNow of the URLs a run added, changed and removed (`--indexnow-key`):
//! [`IndexNow`], where and how, and its submissions in batches. A leaf: it names nothing else
//! of the crate.

use std::time::Duration;

use serde::Serialize;
use sitemapper_crawl::{
    AddressPolicy, CrawlError, FetchError, FetchSettings, Fetcher, HostMap, NetworkOptions,
};
use sitemapper_store::ChangeReport;
use url::Url;

/// The IndexNow protocol's limit of URLs per request.
const INDEXNOW_BATCH: usize = 10_000;

/// The shared endpoint: every participating search engine receives what it is sent.
pub const DEFAULT_INDEXNOW_ENDPOINT: &str = "https://api.indexnow.org/indexnow";

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
