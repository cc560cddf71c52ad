//! How a [`Fetcher`](crate::Fetcher) requests: [`FetchSettings`], the fetcher's own settings
//! type, with the defaults a crawl starts from too, and the User-Agent sent when none is
//! configured.

use std::time::Duration;

/// The User-Agent header sent when none is configured: `sitemapper/<version> (+<project url>)`.
pub fn default_user_agent() -> String {
    format!(
        "sitemapper/{} (+{})",
        env!("CARGO_PKG_VERSION"),
        env!("CARGO_PKG_REPOSITORY")
    )
}

/// How a [`Fetcher`](crate::Fetcher) requests: every field resolved, every default in
/// `Default` (the crawl's defaults too; a crawl's configuration gives its own).
#[derive(Debug, Clone)]
pub struct FetchSettings {
    /// The User-Agent header of every request.
    pub user_agent: String,
    /// Deadline for a connection to be established.
    pub connect_timeout: Duration,
    /// Deadline for one whole request, body included: a body that trickles forever ends here.
    pub request_timeout: Duration,
    /// Redirect hops followed from one requested URL by [`Fetcher::get`](crate::Fetcher::get)
    /// and [`Fetcher::post`](crate::Fetcher::post).
    pub max_redirects: usize,
    /// Extra attempts of a GET after a timeout, a connection error, 429, 502, 503 or 504.
    pub retries: u32,
    /// First backoff before a retry; doubled for each further attempt, with jitter.
    pub retry_base_delay: Duration,
    /// The longest `Retry-After` honoured; longer values are cut to this.
    pub max_retry_after: Duration,
    /// Idle connections kept open to one host: about as many as requests run at once.
    pub idle_connections_per_host: usize,
    /// Whether the deadlines, and the certificates of the fetcher's network, are the
    /// crawl's options (`--connect-timeout`, `--timeout`, `--cacert`, `--insecure`): the
    /// words of a failure then name the option to change.
    pub crawl_options: bool,
}

impl Default for FetchSettings {
    fn default() -> Self {
        FetchSettings {
            user_agent: default_user_agent(),
            connect_timeout: Duration::from_secs(10),
            request_timeout: Duration::from_secs(30),
            max_redirects: 10,
            retries: 2,
            retry_base_delay: Duration::from_millis(500),
            max_retry_after: Duration::from_secs(60),
            // reqwest's own default: a client of no crawl does not know how many requests run.
            idle_connections_per_host: usize::MAX,
            crawl_options: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_user_agent_names_version_and_project() {
        let agent = default_user_agent();
        assert!(agent.starts_with(&format!("sitemapper/{} (+http", env!("CARGO_PKG_VERSION"))));
        assert!(agent.ends_with(')'));
    }
}
