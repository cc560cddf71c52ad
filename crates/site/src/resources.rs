//! The audit's look at what the crawl did not fetch as pages (docs/audit.md, "Resources" and
//! "Crawlers of AI assistants"), after the crawl and before the findings:
//!
//! - every resource of the site its pages load (images, scripts, style sheets), once: a GET
//!   whose body is read only so far as needed (an image's first 64 KiB, where its dimensions
//!   are; a script or style sheet whole up to 4 MiB, for its size), the results kept in the
//!   crawl database for the findings;
//! - the site's robots.txt, read for what it says to the crawlers of AI assistants;
//! - `/llms.txt`;
//! - on an https site whose start page is on the default port, the same address over http,
//!   which should redirect to https.
//!
//! Requests go as the crawl's did, through the crawl's [`LinkChecker`]: its user agent and
//! robots.txt token (robots.txt obeyed), its address policy, proxy and certificates, one
//! request at a time per host at the crawl's pace.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use robotstxt::DefaultMatcher;
use sitemapper_audit::{AI_CRAWLERS, AiCrawler, SiteProbe};
use sitemapper_crawl::{
    CrawlConfig, CrawlSummary, LinkCheck, LinkCheckSettings, LinkChecker, Sample, host_key,
};
use sitemapper_store::{LinkKind, ResourceCheck, RunId, Store, StoreError};
use tokio::sync::watch;
use url::Url;

use crate::counted::count;
use crate::outbound::each_host;
use crate::record::failure_kind;

/// At most this many resources are checked: a site's images, scripts and style sheets, well
/// beyond what most sites have.
pub const MAX_RESOURCES: usize = 20_000;

/// The longest the checks of resources may take in all: those not done by then are left not
/// checked (no finding either way).
pub const MAX_RESOURCE_TIME: Duration = Duration::from_secs(10 * 60);

/// Of an image, this many bytes are read: its dimensions are in its first bytes (a JPEG's
/// after its metadata, which seldom runs longer).
const IMAGE_BYTES_READ: usize = 64 * 1024;

/// Of a script or style sheet, at most this many bytes are read, for its size when the
/// server does not announce it.
const FILE_BYTES_READ: usize = 4 * 1024 * 1024;

/// Hosts whose resources are checked at once.
const HOSTS_AT_ONCE: usize = 4;

/// What the checks of a run's resources did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ResourcesChecked {
    /// Distinct resources of the site its pages load.
    pub resources: usize,
    /// Checked.
    pub checked: usize,
    /// Of them, broken (400 or more, or no answer).
    pub broken: usize,
    /// Left not checked: beyond [`MAX_RESOURCES`], or not reached within
    /// [`MAX_RESOURCE_TIME`], or stopped.
    pub not_checked: usize,
}

/// Why the site could not be looked at.
#[derive(Debug, thiserror::Error)]
pub enum ResourcesError {
    /// The crawl database failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The HTTP client cannot be built.
    #[error(transparent)]
    Client(sitemapper_crawl::CrawlError),
    /// The async runtime could not start.
    #[error("cannot start the async runtime")]
    Runtime(#[source] std::io::Error),
}

/// Checks the resources of the site that the pages of `run` load, records what each check
/// found in `store`, and asks the site for robots.txt, `/llms.txt` and its start page over
/// http. Ends within moments of `stop` becoming `true`, with what was checked.
pub fn check_resources(
    store: &mut Store,
    run: RunId,
    crawl: &CrawlSummary,
    config: &CrawlConfig,
    stop: Option<watch::Receiver<bool>>,
) -> Result<(ResourcesChecked, SiteProbe), ResourcesError> {
    let resources: Vec<(Url, LinkKind)> = store
        .site_resources(run)?
        .into_iter()
        .filter_map(|(url, kind)| Some((Url::parse(&url).ok()?, kind)))
        .filter(|(url, _)| {
            matches!(url.scheme(), "http" | "https") && crawl.scope.is_same_site(url)
        })
        .collect();
    let mut done = ResourcesChecked {
        resources: resources.len(),
        ..ResourcesChecked::default()
    };
    let mut by_host: BTreeMap<String, Vec<(Url, LinkKind)>> = BTreeMap::new();
    for (url, kind) in resources.into_iter().take(MAX_RESOURCES) {
        by_host.entry(host_key(&url)).or_default().push((url, kind));
    }
    let to_check: usize = by_host.values().map(Vec::len).sum();
    if to_check > 0 {
        tracing::info!("checking {}", count(to_check, "resource"));
    }
    let checker = Arc::new(
        LinkChecker::new(
            &link_check_settings(config),
            crawl.addresses.clone(),
            &config.network,
        )
        .map_err(ResourcesError::Client)?,
    );
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(ResourcesError::Runtime)?;
    let (checks, probe) = runtime.block_on(async {
        let checks = check_hosts(Arc::clone(&checker), by_host, stop).await;
        let probe = probe_site(&checker, &crawl.scope.root).await;
        (checks, probe)
    });
    drop(runtime);
    done.checked = checks.len();
    done.not_checked = done.resources - done.checked;
    done.broken = checks.iter().filter(|check| check.is_broken()).count();
    store.record_resource_checks(run, &checks)?;
    Ok((done, probe))
}

/// The checker's settings: the crawl's, its pace included.
fn link_check_settings(config: &CrawlConfig) -> LinkCheckSettings {
    LinkCheckSettings {
        fetch: config.fetch_settings(),
        robots_token: config.robots_token(),
        delay: config.delay.unwrap_or_default(),
        max_crawl_delay: config.max_crawl_delay,
    }
}

/// Checks the resources of each host in order, [`HOSTS_AT_ONCE`] hosts at a time, until all
/// are checked, [`MAX_RESOURCE_TIME`] has passed or `stop` says so.
async fn check_hosts(
    checker: Arc<LinkChecker>,
    by_host: BTreeMap<String, Vec<(Url, LinkKind)>>,
    stop: Option<watch::Receiver<bool>>,
) -> Vec<ResourceCheck> {
    let check = move |(url, kind): (Url, LinkKind)| {
        let checker = Arc::clone(&checker);
        async move {
            let cap = match kind {
                LinkKind::Image => IMAGE_BYTES_READ,
                _ => FILE_BYTES_READ,
            };
            let sample = checker.sample(&url, cap).await;
            tracing::debug!(%url, check = ?sample.check, bytes = ?sample.bytes, "resource checked");
            resource_check(&url, kind, sample)
        }
    };
    each_host(by_host, HOSTS_AT_ONCE, MAX_RESOURCE_TIME, stop, check)
        .await
        .0
}

/// The store's form of what `sample` found of `url`, loaded as `kind`.
fn resource_check(url: &Url, kind: LinkKind, sample: Sample) -> ResourceCheck {
    let mut check = ResourceCheck {
        url: url.to_string(),
        kind,
        status: None,
        failure: None,
        bytes: None,
        width: None,
    };
    match sample.check {
        LinkCheck::Answered { status, .. } => {
            check.status = Some(status);
            check.bytes = sample.bytes;
            if kind == LinkKind::Image && (200..300).contains(&status) {
                check.width = imagesize::blob_size(&sample.start)
                    .ok()
                    .and_then(|size| u32::try_from(size.width).ok());
            }
        }
        LinkCheck::Failed { failure, .. } => {
            check.failure = Some((failure_kind(failure.kind()), failure.message()));
        }
        LinkCheck::UnusableRedirect { status, .. } => {
            check.status = Some(status);
        }
        LinkCheck::TooManyRedirects { .. } => {
            check.failure = Some((
                sitemapper_store::FailureKind::Other,
                "too many redirects".to_string(),
            ));
        }
        // robots.txt keeps the audit from it: not known, not broken.
        LinkCheck::Disallowed { .. } => {}
    }
    check
}

/// Asks the site for its robots.txt (what it says to the crawlers of AI assistants),
/// `/llms.txt`, and its start page over http.
async fn probe_site(checker: &LinkChecker, root: &Url) -> SiteProbe {
    let mut probe = SiteProbe::default();
    if let Ok(robots) = root.join("/robots.txt") {
        let sample = checker.sample(&robots, 512 * 1024).await;
        if matches!(sample.check, LinkCheck::Answered { status, .. } if (200..300).contains(&status))
        {
            let text = String::from_utf8_lossy(&sample.start);
            probe.ai_crawlers = Some((robots.to_string(), ai_crawlers(&text, root)));
        }
    }
    if let Ok(llms) = root.join("/llms.txt") {
        let sample = checker.sample(&llms, 4 * 1024).await;
        let present = matches!(sample.check, LinkCheck::Answered { status, .. } if (200..300).contains(&status))
            && !looks_like_html(&sample.start);
        probe.llms_txt = Some((llms.to_string(), present));
    }
    if let Some(http) = http_address(root) {
        probe.http_not_redirected = http_not_redirected(checker, &http).await;
    }
    probe
}

/// What robots.txt `text` says to each crawler of an AI assistant about `root`.
fn ai_crawlers(text: &str, root: &Url) -> Vec<AiCrawler> {
    let named: Vec<String> = text
        .lines()
        .filter_map(|line| {
            let line = line.split('#').next().unwrap_or_default();
            let (field, value) = line.split_once(':')?;
            field
                .trim()
                .eq_ignore_ascii_case("user-agent")
                .then(|| value.trim().to_ascii_lowercase())
        })
        .collect();
    AI_CRAWLERS
        .into_iter()
        .map(|name| AiCrawler {
            name,
            allowed: DefaultMatcher::default().one_agent_allowed_by_robots(
                text,
                name,
                root.as_str(),
            ),
            named: named
                .iter()
                .any(|agent| agent == &name.to_ascii_lowercase()),
        })
        .collect()
}

/// Whether a body is an HTML page (a site that answers every path with its home page).
fn looks_like_html(body: &[u8]) -> bool {
    let start = String::from_utf8_lossy(&body[..body.len().min(512)]).to_ascii_lowercase();
    let start = start.trim_start();
    start.starts_with("<!doctype html") || start.starts_with("<html") || start.starts_with("<head")
}

/// The http address of an https start page on the default port; `None` for an http site, or
/// one on another port (whose http address cannot be guessed).
fn http_address(root: &Url) -> Option<Url> {
    if root.scheme() != "https" || root.port().is_some() {
        return None;
    }
    let mut http = root.clone();
    http.set_scheme("http").ok()?;
    Some(http)
}

/// What `http` answered when it does not redirect to https; `None` when it redirects there,
/// or answers nothing at all (a site that does not serve http at all is fine).
async fn http_not_redirected(checker: &LinkChecker, http: &Url) -> Option<(String, String)> {
    let sample = checker.sample(http, 0).await;
    match sample.check {
        LinkCheck::Answered {
            status, final_url, ..
        } if final_url.scheme() != "https" => {
            let answered = if final_url == *http {
                format!("answers {status}")
            } else {
                format!("redirects to {final_url}, which answers {status}")
            };
            Some((http.to_string(), answered))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn robots_txt_says_what_each_ai_crawler_may_fetch_and_whether_it_is_named() {
        let root = Url::parse("https://e.com/").unwrap_or_else(|error| panic!("{error}"));
        let text = "User-agent: GPTBot\nDisallow: /\n\nUser-agent: CCBot # the common crawl\nDisallow: /private\n\nUser-agent: *\nAllow: /\n";
        let crawlers = ai_crawlers(text, &root);
        let said: Vec<(&str, bool, bool)> = crawlers
            .iter()
            .map(|crawler| (crawler.name, crawler.allowed, crawler.named))
            .collect();
        assert_eq!(
            said,
            [
                ("GPTBot", false, true),
                ("ClaudeBot", true, false),
                ("Google-Extended", true, false),
                ("CCBot", true, true),
                ("PerplexityBot", true, false),
            ]
        );
        let closed = ai_crawlers("User-agent: *\nDisallow: /\n", &root);
        assert!(
            closed
                .iter()
                .all(|crawler| !crawler.allowed && !crawler.named)
        );
    }

    #[test]
    fn the_http_address_is_guessed_only_on_the_default_port() {
        let url = |text: &str| Url::parse(text).unwrap_or_else(|error| panic!("{error}"));
        assert_eq!(
            http_address(&url("https://e.com/book/")).map(String::from),
            Some("http://e.com/book/".to_string())
        );
        assert_eq!(http_address(&url("https://e.com:8443/")), None);
        assert_eq!(http_address(&url("http://e.com/")), None);
    }

    #[test]
    fn http_that_answers_without_redirecting_to_https_is_told_apart() {
        use crate::fixture::{Answer, serve};
        use sitemapper_crawl::{AddressPolicy, FetchSettings};
        let root = serve(&[
            ("/plain", Answer::Html("<title>Served over http</title>")),
            ("/moved", Answer::Redirect("https://127.0.0.1:9/moved")),
            ("/elsewhere", Answer::Redirect("/plain")),
        ]);
        let url = |path: &str| {
            Url::parse(&root)
                .and_then(|root| root.join(path))
                .unwrap_or_else(|error| panic!("{error}"))
        };
        let settings = LinkCheckSettings {
            fetch: FetchSettings::default(),
            robots_token: "sitemapper".to_string(),
            delay: Duration::ZERO,
            max_crawl_delay: Duration::ZERO,
        };
        let addresses = AddressPolicy {
            allow_private: true,
            ..AddressPolicy::default()
        };
        let checker = LinkChecker::new(&settings, addresses, &Default::default())
            .unwrap_or_else(|error| panic!("{error}"));
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap_or_else(|error| panic!("{error}"));
        let plain = url("/plain");
        assert_eq!(
            runtime.block_on(http_not_redirected(&checker, &plain)),
            Some((plain.to_string(), "answers 200".to_string()))
        );
        assert_eq!(
            runtime.block_on(http_not_redirected(&checker, &url("/moved"))),
            None
        );
        let elsewhere = url("/elsewhere");
        assert_eq!(
            runtime.block_on(http_not_redirected(&checker, &elsewhere)),
            Some((
                elsewhere.to_string(),
                format!("redirects to {plain}, which answers 200")
            ))
        );
    }

    #[test]
    fn an_html_page_is_not_an_llms_txt() {
        assert!(looks_like_html(b"  <!DOCTYPE html><html>"));
        assert!(!looks_like_html(b"# Site\n\n> A summary\n"));
    }
}
