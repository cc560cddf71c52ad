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
    CrawlConfig, CrawlError, CrawlSummary, Deadline, FailureCause, FetchFailureKind, FetchSettings,
    LinkCheck, LinkCheckSettings, LinkChecker, SettledScope, host_key,
};
use sitemapper_store::{OutboundCheck, OutboundOutcome, RunId, Store, StoreError};
use tokio::sync::{Semaphore, mpsc, watch};
use url::Url;

use crate::counted::count;
use crate::record::failure_kind;

/// `--external-max-links`'s default: a site's links to others, well beyond what most sites
/// have; one page of 100,000 links to one host is not checked for a day at a host's pace.
pub const DEFAULT_MAX_LINKS: usize = 5_000;

/// `--external-max-time`'s default: ten minutes, after which an audit reports what it has.
pub const DEFAULT_MAX_TIME: Duration = Duration::from_secs(10 * 60);

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
    /// The most URLs checked now (those reused from an earlier check aside): the rest are
    /// left not checked, taken from every host in turn.
    pub max_links: usize,
    /// The longest the checks may take in all: those not done by then are left not checked.
    pub max_time: Duration,
}

impl Default for OutboundSettings {
    fn default() -> Self {
        OutboundSettings {
            timeout: Duration::from_secs(10),
            max_age: Duration::from_secs(7 * 24 * 60 * 60),
            delay: Duration::from_secs(1),
            hosts_at_once: 4,
            max_links: DEFAULT_MAX_LINKS,
            max_time: DEFAULT_MAX_TIME,
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
    /// Left not checked: beyond `max_links`, or not reached within `max_time`.
    pub not_checked: usize,
    /// The checks were stopped (a signal): what was checked is recorded, the rest is not.
    pub stopped: bool,
    /// Most hosts asked could not be reached at all (their names did not resolve, or nothing
    /// answered a connection): the machine's network looks unavailable, and nothing checked
    /// now was recorded: those links are not checked, and nothing is cached as broken
    /// (at least 3 hosts asked, more than half of them unreachable).
    pub network_unavailable: bool,
}

/// Hosts asked, at least, before unreachable hosts can say the network is unavailable: one
/// or two dead domains are broken links.
const HOSTS_TO_TELL_THE_NETWORK: usize = 3;

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
///
/// The checks keep within their budget (`max_links`, `max_time`: what is left is not checked,
/// never taken for fine or broken), and end within moments of `stop` becoming `true`.
pub fn check_outbound(
    store: &mut Store,
    run: RunId,
    crawl: &CrawlSummary,
    config: &CrawlConfig,
    settings: &OutboundSettings,
    stop: Option<watch::Receiver<bool>>,
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
    let found: usize = by_host.values().map(Vec::len).sum();
    let by_host = within(by_host, settings.max_links);
    done.hosts = by_host.len();
    let to_check: usize = by_host.values().map(Vec::len).sum();
    done.not_checked = found - to_check;
    if by_host.is_empty() {
        return Ok(done);
    }
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
    let ended = runtime.block_on(check_hosts(Arc::new(checker), by_host, settings, stop));
    // The checks still under way end with the runtime.
    drop(runtime);
    done.stopped = ended.stopped;
    if network_looks_unavailable(&ended.results) {
        tracing::warn!(
            "outbound links were not checked: the network looks unavailable (most of the {} hosts asked could not be reached)",
            done.hosts
        );
        done.network_unavailable = true;
        return Ok(done);
    }
    done.checked = ended.results.len();
    done.not_checked += to_check - done.checked;
    for (url, check, checked_at) in ended.results {
        store.record_outbound_check(run, url.as_str(), &stored(&url, check, checked_at))?;
    }
    if done.not_checked > 0 && !done.stopped {
        tracing::warn!(
            "{} not checked: the budget of the checks ran out (--external-max-links {}, --external-max-time {}s)",
            count(done.not_checked, "outbound link"),
            settings.max_links,
            settings.max_time.as_secs()
        );
    }
    Ok(done)
}

/// At most `budget` of the URLs, taken from every host in turn, so that one host with a
/// hundred thousand links leaves room for the others.
fn within(by_host: BTreeMap<String, Vec<Url>>, budget: usize) -> BTreeMap<String, Vec<Url>> {
    let mut hosts: Vec<(String, std::vec::IntoIter<Url>)> = by_host
        .into_iter()
        .map(|(host, urls)| (host, urls.into_iter()))
        .collect();
    let mut chosen: BTreeMap<String, Vec<Url>> = BTreeMap::new();
    let mut left = budget;
    while left > 0 {
        let mut took = false;
        for (host, urls) in &mut hosts {
            if left == 0 {
                break;
            }
            if let Some(url) = urls.next() {
                chosen.entry(host.clone()).or_default().push(url);
                left -= 1;
                took = true;
            }
        }
        if !took {
            break;
        }
    }
    chosen
}

/// How the checks ended.
#[derive(Debug, Default)]
struct Ended {
    /// Each URL checked, what its check found, and when.
    results: Vec<(Url, LinkCheck, Timestamp)>,
    /// Stopped by the caller.
    stopped: bool,
}

/// Whether the network looks unavailable: of the hosts asked (at least
/// [`HOSTS_TO_TELL_THE_NETWORK`]), more than half could not be reached at all, every check
/// of theirs failing before any connection (a name that does not resolve, a connection
/// refused or not made in time). A site's few dead links do not; a machine without a route
/// out makes every host look so, and its results would be cached as broken links.
fn network_looks_unavailable(results: &[(Url, LinkCheck, Timestamp)]) -> bool {
    let mut reached: BTreeMap<String, bool> = BTreeMap::new();
    for (url, check, _) in results {
        let unreachable = match check {
            LinkCheck::Failed { failure, .. } => match failure.cause() {
                FailureCause::UnknownHost { .. } | FailureCause::ConnectionRefused { .. } => true,
                FailureCause::TimedOut { deadline, .. } => {
                    matches!(deadline, Deadline::Connect(_))
                }
                FailureCause::Other { .. } => failure.kind() == FetchFailureKind::Connect,
                _ => false,
            },
            _ => false,
        };
        *reached.entry(host_key(url)).or_insert(false) |= !unreachable;
    }
    let unreachable = reached.values().filter(|reached| !**reached).count();
    reached.len() >= HOSTS_TO_TELL_THE_NETWORK && unreachable * 2 > reached.len()
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

/// Checks the URLs of each host in order, `hosts_at_once` hosts at a time, and keeps every
/// result as it comes, until all are checked, `max_time` has passed or `stop` says so.
async fn check_hosts(
    checker: Arc<LinkChecker>,
    by_host: BTreeMap<String, Vec<Url>>,
    settings: &OutboundSettings,
    stop: Option<watch::Receiver<bool>>,
) -> Ended {
    let (results, stopped) = each_host(
        by_host,
        settings.hosts_at_once,
        settings.max_time,
        stop,
        move |url: Url| {
            let checker = Arc::clone(&checker);
            async move {
                let check = checker.check(&url).await;
                tracing::debug!(%url, ?check, "outbound link checked");
                (url, check, Timestamp::now())
            }
        },
    )
    .await;
    Ended { results, stopped }
}

/// `check` of the items of each host in order, `hosts_at_once` hosts at a time: the results
/// as they come, until all are checked, `max_time` has passed or `stop` says so; and
/// whether it said so.
pub(crate) async fn each_host<Item, Checked, Check>(
    by_host: BTreeMap<String, Vec<Item>>,
    hosts_at_once: usize,
    max_time: Duration,
    stop: Option<watch::Receiver<bool>>,
    check: impl Fn(Item) -> Check + Clone + Send + 'static,
) -> (Vec<Checked>, bool)
where
    Item: Send + 'static,
    Checked: Send + 'static,
    Check: Future<Output = Checked> + Send,
{
    let permits = Arc::new(Semaphore::new(hosts_at_once.max(1)));
    let (results, mut received) = mpsc::unbounded_channel();
    for items in by_host.into_values() {
        let permits = Arc::clone(&permits);
        let results = results.clone();
        let check = check.clone();
        tokio::spawn(async move {
            let Ok(_permit) = permits.acquire_owned().await else {
                return;
            };
            for item in items {
                if results.send(check(item).await).is_err() {
                    return;
                }
            }
        });
    }
    drop(results);
    let deadline = tokio::time::Instant::now() + max_time;
    let stopped = async move {
        match stop {
            Some(mut stop) => {
                if stop.wait_for(|stop| *stop).await.is_err() {
                    std::future::pending::<()>().await;
                }
            }
            None => std::future::pending::<()>().await,
        }
    };
    tokio::pin!(stopped);
    let mut gathered = Vec::new();
    loop {
        tokio::select! {
            next = received.recv() => {
                let Some(next) = next else {
                    break;
                };
                gathered.push(next);
            }
            () = tokio::time::sleep_until(deadline) => break,
            () = &mut stopped => return (gathered, true),
        }
    }
    (gathered, false)
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
    fn the_budget_takes_from_every_host_in_turn() {
        let url = |text: &str| Url::parse(text).unwrap_or_else(|error| panic!("{error}"));
        let by_host = BTreeMap::from([
            (
                "big:443".to_string(),
                (0..100)
                    .map(|n| url(&format!("https://big.example/{n}")))
                    .collect(),
            ),
            ("small:443".to_string(), vec![url("https://small.example/")]),
        ]);
        let chosen = within(by_host.clone(), 5);
        assert_eq!(chosen["big:443"].len(), 4);
        assert_eq!(chosen["small:443"].len(), 1);
        assert_eq!(within(by_host.clone(), 0).len(), 0);
        assert_eq!(
            within(by_host, 1000).values().map(Vec::len).sum::<usize>(),
            101
        );
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
