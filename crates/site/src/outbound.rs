//! The audit's check of the links that leave the site (docs/audit.md, Outbound links), after
//! the crawl and before the findings: every distinct outbound URL once, each host at its own
//! pace, a bounded number of hosts at once, and the results kept in the crawl database with
//! their time, so that a later audit within the maximum age asks nothing again.
//!
//! Outbound are the targets of the links a visitor follows or sees (the audit's
//! [`OUTBOUND_LINK_KINDS`]) that are http(s) URLs of another origin than the crawl's site
//! (its scheme, host and port; with subdomains allowed, its subdomains are the site too). A
//! URL of the site outside the crawl's directory is the site's own, never checked as another
//! site's. The request of each is the crawl's [`LinkChecker`]'s: robots.txt obeyed, the crawl's
//! address policy on every hop (a public site's link cannot lead into a private network).

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use jiff::{SignedDuration, Timestamp};
use sitemapper_audit::OUTBOUND_LINK_KINDS;
use sitemapper_crawl::{
    CrawlConfig, CrawlError, CrawlSummary, FetchSettings, LinkCheck, LinkCheckSettings,
    LinkChecker, SettledScope, host_key,
};
use sitemapper_store::{OutboundCheck, OutboundOutcome, RunId, Store, StoreError};
use tokio::sync::{Semaphore, mpsc};
use url::Url;

use crate::count;
use crate::record::failure_kind;

/// How outbound links are checked: every field resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutboundSettings {
    /// The deadline of one request.
    pub timeout: Duration,
    /// A check younger than this is reused instead of made again.
    pub max_age: Duration,
    /// The least time between the starts of two requests to one host.
    pub delay: Duration,
    /// Hosts checked at once (one request at a time each).
    pub hosts_at_once: usize,
}

impl Default for OutboundSettings {
    fn default() -> Self {
        OutboundSettings {
            timeout: Duration::from_secs(10),
            max_age: Duration::from_secs(7 * 24 * 60 * 60),
            delay: Duration::from_secs(1),
            hosts_at_once: 4,
        }
    }
}

/// What the check of a run's outbound links did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct OutboundChecked {
    /// Distinct outbound URLs.
    pub urls: usize,
    /// Checked now.
    pub checked: usize,
    /// Whose earlier check was reused.
    pub from_cache: usize,
    /// Hosts asked.
    pub hosts: usize,
}

/// Why the outbound links could not be checked at all.
#[derive(Debug, thiserror::Error)]
pub enum OutboundError {
    /// The crawl database failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The HTTP client cannot be built.
    #[error(transparent)]
    Client(CrawlError),
    /// The async runtime could not start.
    #[error("cannot start the async runtime")]
    Runtime(#[source] std::io::Error),
}

/// Checks the outbound links of `run`, whose crawl `crawl` reports, and records each result
/// in `store` (or that the run reused a recent one). Requests go as the crawl's did: its user
/// agent and robots.txt token, its address policy, proxy and certificates; none of the site's
/// secrets.
pub fn check_outbound(
    store: &mut Store,
    run: RunId,
    crawl: &CrawlSummary,
    config: &CrawlConfig,
    settings: &OutboundSettings,
) -> Result<OutboundChecked, OutboundError> {
    let outbound: Vec<String> = store
        .link_targets(run, &OUTBOUND_LINK_KINDS)?
        .into_iter()
        .filter(|target| is_outbound(target, &crawl.scope))
        .collect();
    store.record_outbound_links(run, &outbound)?;
    let mut done = OutboundChecked {
        urls: outbound.len(),
        ..OutboundChecked::default()
    };
    let since = SignedDuration::try_from(settings.max_age)
        .ok()
        .and_then(|age| Timestamp::now().checked_sub(age).ok())
        .unwrap_or(Timestamp::MIN);
    let cached = if settings.max_age.is_zero() {
        Default::default()
    } else {
        store.outbound_checks_since(since)?
    };
    let mut by_host: BTreeMap<String, Vec<Url>> = BTreeMap::new();
    for target in &outbound {
        if cached.contains_key(target) {
            store.reuse_outbound_check(run, target)?;
            done.from_cache += 1;
        } else if let Ok(url) = Url::parse(target) {
            by_host.entry(host_key(&url)).or_default().push(url);
        }
    }
    done.hosts = by_host.len();
    if by_host.is_empty() {
        return Ok(done);
    }
    let to_check: usize = by_host.values().map(Vec::len).sum();
    tracing::info!(
        "checking {} on {} ({} checked recently)",
        count(to_check, "outbound link"),
        count(by_host.len(), "host"),
        done.from_cache
    );
    let checker = LinkChecker::new(
        &link_check_settings(config, settings),
        crawl.addresses.clone(),
        &config.network,
    )
    .map_err(OutboundError::Client)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(OutboundError::Runtime)?;
    done.checked = runtime.block_on(check_hosts(
        store,
        run,
        Arc::new(checker),
        by_host,
        settings.hosts_at_once,
    ))?;
    Ok(done)
}

/// The checker's settings: the crawl's user agent, connect deadline (within the check's) and
/// redirect limit, the check's own deadline and pace.
fn link_check_settings(config: &CrawlConfig, settings: &OutboundSettings) -> LinkCheckSettings {
    let crawl = config.fetch_settings();
    LinkCheckSettings {
        fetch: FetchSettings {
            connect_timeout: crawl.connect_timeout.min(settings.timeout),
            request_timeout: settings.timeout,
            crawl_options: false,
            ..crawl
        },
        robots_token: config.robots_token(),
        delay: settings.delay,
        max_crawl_delay: config.max_crawl_delay,
    }
}

/// Checks the URLs of each host in order, `hosts_at_once` hosts at a time, and records every
/// result as it comes. How many were checked.
async fn check_hosts(
    store: &mut Store,
    run: RunId,
    checker: Arc<LinkChecker>,
    by_host: BTreeMap<String, Vec<Url>>,
    hosts_at_once: usize,
) -> Result<usize, StoreError> {
    let permits = Arc::new(Semaphore::new(hosts_at_once.max(1)));
    let (results, mut received) = mpsc::unbounded_channel();
    for urls in by_host.into_values() {
        let checker = Arc::clone(&checker);
        let permits = Arc::clone(&permits);
        let results = results.clone();
        tokio::spawn(async move {
            let Ok(_permit) = permits.acquire_owned().await else {
                return;
            };
            for url in urls {
                let check = checker.check(&url).await;
                tracing::debug!(%url, ?check, "outbound link checked");
                if results.send((url, check, Timestamp::now())).is_err() {
                    return;
                }
            }
        });
    }
    drop(results);
    let mut checked = 0;
    while let Some((url, check, checked_at)) = received.recv().await {
        store.record_outbound_check(run, url.as_str(), &stored(&url, check, checked_at))?;
        checked += 1;
    }
    Ok(checked)
}

/// The store's form of the check of `url`.
fn stored(url: &Url, check: LinkCheck, checked_at: Timestamp) -> OutboundCheck {
    let (outcome, final_url) = match check {
        LinkCheck::Answered {
            status, final_url, ..
        } => (OutboundOutcome::Answered { status }, final_url),
        LinkCheck::Failed { final_url, failure } => (
            OutboundOutcome::Failed {
                failure: failure_kind(failure.kind()),
                detail: failure.message(),
            },
            final_url,
        ),
        LinkCheck::Disallowed { url } => (OutboundOutcome::Disallowed, url),
        LinkCheck::UnusableRedirect { final_url, status } => {
            (OutboundOutcome::UnusableRedirect { status }, final_url)
        }
        LinkCheck::TooManyRedirects { final_url } => (OutboundOutcome::TooManyRedirects, final_url),
    };
    OutboundCheck {
        outcome,
        final_url: (&final_url != url).then(|| final_url.to_string()),
        checked_at,
    }
}

/// Whether `target` is an http(s) URL of another site than the crawl's `scope`.
fn is_outbound(target: &str, scope: &SettledScope) -> bool {
    Url::parse(target)
        .is_ok_and(|url| matches!(url.scheme(), "http" | "https") && !scope.is_same_site(&url))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scope(root: &str, subdomains_of: Option<&str>) -> SettledScope {
        let root = Url::parse(root).unwrap_or_else(|error| panic!("{error}"));
        SettledScope {
            seed: root.clone(),
            root,
            subdomains_of: subdomains_of.map(str::to_string),
            moved_from: None,
            narrowed_by_include: false,
            narrowed_by_exclude: false,
            wider_than_seed: false,
            private_network: false,
        }
    }

    #[test]
    fn outbound_is_another_origin_than_the_site() {
        let book = scope("https://www.e.com/book/", None);
        for (target, expected) in [
            ("https://other.example/", true),
            ("http://www.e.com/book/", true),
            ("https://www.e.com:8443/", true),
            ("https://shop.e.com/", true),
            ("https://www.e.com/", false),
            ("https://www.e.com/elsewhere", false),
            ("mailto:someone@e.com", false),
            ("not a url", false),
        ] {
            assert_eq!(is_outbound(target, &book), expected, "{target}");
        }
        let with_subdomains = scope("https://www.e.com/", Some("e.com"));
        for (target, expected) in [
            ("https://shop.e.com/", false),
            ("https://e.com/", false),
            ("https://note.com/", true),
        ] {
            assert_eq!(is_outbound(target, &with_subdomains), expected, "{target}");
        }
    }
}
