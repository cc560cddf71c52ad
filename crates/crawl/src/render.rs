//! Pages built by JavaScript: what the crawl asks of a browser, and when (DESIGN.md, Behaviour
//! rules, `--render`).
//!
//! The crawl defines the [`Renderer`] it needs and never depends on a browser: the binary hands
//! it one (`crates/render` drives Chromium). Every request the browser wants to make is put to
//! the crawl's [`RequestGate`] first, so robots.txt and the address policy hold for the browser
//! as for the crawler.
//!
//! With [`RenderMode::Auto`], a page is rendered only when its HTML looks like an application
//! shell (see [`ShellReason`]), and the crawl learns per site: when a rendered page gains links
//! or directives its HTML lacked, every HTML page of the site is rendered from then on; when
//! [`PROBES`] rendered pages gained nothing, rendering stops for the site.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};

use url::Url;

/// A boxed future, as the object-safe traits of this module return them.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Shell pages rendered without a gain before the crawl stops rendering a site.
pub const PROBES: u32 = 3;

/// Hash routes kept for the summary.
const MAX_HASH_ROUTES: usize = 1000;

/// When pages are rendered in a browser.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RenderMode {
    /// Never: the HTML as served is all the crawl reads.
    Never,
    /// Where the HTML alone hides the page, learned per site (see the module's documentation).
    #[default]
    Auto,
    /// Every HTML page that answers 200.
    Always,
}

/// How the crawl's rules stand on one request the browser wants to make.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Admission {
    /// A request to the site, which robots.txt allows.
    Site,
    /// A request to another host (a CDN, an API): allowed, and counted.
    OtherHost,
    /// Not sent, for this reason.
    Refused(Refusal),
}

/// Why a request of the browser is not sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// robots.txt disallows it.
    RobotsDisallowed,
    /// Its host is on a private network the crawl may not reach.
    PrivateAddress,
    /// Not an http(s) URL the crawl could make.
    NotHttp,
}

/// The crawl's rules, as the browser must obey them.
pub trait RequestGate: Send + Sync {
    /// Whether `url` may be requested, and as what.
    fn admit<'a>(&'a self, url: &'a Url) -> BoxFuture<'a, Admission>;

    /// The headers a request to `url` that [`Self::admit`] admitted as [`Admission::Site`]
    /// carries besides the browser's own: the site's headers, basic authentication and
    /// cookies, as the crawl's requests carry them. Secrets: for that request only, never
    /// logged, never added to a request to another host. None by default.
    fn site_headers(&self, _url: &Url) -> Vec<(String, String)> {
        Vec::new()
    }
}

/// One page to render: the response the crawl already has stands for the document, so the
/// server sees one request for it, and its status and headers are those of that response.
pub struct RenderRequest<'a> {
    /// The page's URL.
    pub url: &'a Url,
    /// Its body as received (decompressed).
    pub body: &'a [u8],
    /// Its `Content-Type`.
    pub content_type: Option<&'a str>,
    /// The rendered document is cut at this many bytes.
    pub max_html_bytes: usize,
    /// The rules every further request must pass.
    pub gate: &'a dyn RequestGate,
}

impl fmt::Debug for RenderRequest<'_> {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter
            .debug_struct("RenderRequest")
            .field("url", &self.url.as_str())
            .field("body_bytes", &self.body.len())
            .finish_non_exhaustive()
    }
}

/// What the browser did for one page besides building its DOM.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RequestLog {
    /// Requests sent to other hosts, by host.
    pub other_hosts: BTreeMap<String, u64>,
    /// Requests to the site that robots.txt disallows: never sent.
    pub disallowed: Vec<Url>,
    /// Requests refused because their host is on a private network.
    pub private: u64,
    /// Images, media and fonts not loaded (links do not need them).
    pub skipped_resources: u64,
    /// Places scripts tried to take the tab to (`location = ...`, `window.open`): refused,
    /// and followed as links.
    pub navigations: Vec<Url>,
}

impl RequestLog {
    fn absorb(&mut self, other: RequestLog) {
        for (host, count) in other.other_hosts {
            *self.other_hosts.entry(host).or_default() += count;
        }
        self.disallowed.extend(other.disallowed);
        self.private += other.private;
        self.skipped_resources += other.skipped_resources;
    }
}

/// A page the browser rendered.
#[derive(Debug, Clone)]
pub struct RenderedPage {
    /// The DOM once the page settled, serialized as HTML.
    pub html: String,
    /// What the browser requested, and refused, meanwhile.
    pub requests: RequestLog,
}

/// Why a page has no rendered DOM.
#[derive(Debug, Clone)]
pub enum RenderFailure {
    /// The page did not settle within the render timeout; its tab was closed.
    TimedOut(RequestLog),
    /// This page failed (its tab crashed, the browser restarted): the next page may render.
    Failed(String),
    /// The browser cannot render any more pages in this run, for this reason.
    Unavailable(String),
}

/// The browser's state at the end of a run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BrowserReport {
    /// Whether a browser was started at all.
    pub started: bool,
    /// Times the browser was started again after a crash.
    pub restarts: u32,
    /// The peak resident memory of the browser's processes together, in bytes, where known.
    pub peak_memory: Option<u64>,
}

/// A browser the crawl can render pages in.
pub trait Renderer: Send + Sync + fmt::Debug {
    /// Loads `request`'s page from its response, lets its scripts run until it settles, and
    /// returns the DOM.
    fn render<'a>(
        &'a self,
        request: RenderRequest<'a>,
    ) -> BoxFuture<'a, Result<RenderedPage, RenderFailure>>;

    /// The browser's state so far.
    fn report(&self) -> BrowserReport;
}

/// Why the crawl takes a page for an application shell that only its scripts fill in. Every
/// reason requires a script that runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ShellReason {
    /// An empty mount element, as written (`<div id="root">`).
    EmptyMount(String),
    /// A `<noscript>` asking for JavaScript.
    NoscriptAsksForJavascript,
    /// No link to a page of the site at all.
    NoLinks,
}

impl fmt::Display for ShellReason {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ShellReason::EmptyMount(element) => {
                write!(formatter, "scripts and an empty {element}")
            }
            ShellReason::NoscriptAsksForJavascript => {
                formatter.write_str("scripts and a <noscript> asking for JavaScript")
            }
            ShellReason::NoLinks => formatter.write_str("scripts and no link to the site"),
        }
    }
}

/// What the crawl learned about the site, in [`RenderMode::Auto`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SiteDecision {
    /// No page looked like an application shell, or too few were rendered to decide.
    #[default]
    Undecided,
    /// Rendered pages gained links or directives their HTML lacked: every page is rendered.
    RenderAll,
    /// [`PROBES`] rendered pages gained nothing: rendering stopped.
    Stopped,
}

/// What rendering did in a crawl, for its summary.
#[derive(Debug, Clone, Default)]
pub struct RenderReport {
    /// The mode the crawl ran in.
    pub mode: RenderMode,
    /// What [`RenderMode::Auto`] decided for the site.
    pub decision: SiteDecision,
    /// HTML pages that answered 200 (those that could be rendered).
    pub html_pages: u64,
    /// Pages rendered.
    pub rendered: u64,
    /// Pages whose rendering timed out (their HTML as served was used).
    pub timed_out: u64,
    /// Pages whose rendering failed otherwise (their HTML as served was used).
    pub failed: u64,
    /// The first page that looked like an application shell, and why.
    pub first_shell: Option<(Url, ShellReason)>,
    /// Pages that needed rendering and were not rendered: no browser, or it gave up.
    pub not_rendered: u64,
    /// Why the browser could not render, when it could not.
    pub unavailable: Option<String>,
    /// What the browser requested and refused, over all pages.
    pub requests: RequestLog,
    /// Hash routes linked to (`#/about`): not URLs a sitemap can list.
    pub hash_routes: BTreeSet<String>,
    /// The browser's state, when there is one.
    pub browser: Option<BrowserReport>,
}

/// Whether a page's HTML looks like an application shell: a script runs, and the page is
/// empty without it (an empty mount element, a `<noscript>` asking for JavaScript, or no link
/// to the site; `has_site_links` says whether it links to a page of the site).
pub(crate) fn shell_reason(
    shell: &sitemapper_extract::ShellSignals,
    has_site_links: bool,
) -> Option<ShellReason> {
    if shell.scripts == 0 {
        return None;
    }
    if let Some(element) = &shell.empty_mount {
        Some(ShellReason::EmptyMount(element.clone()))
    } else if shell.noscript_asks_for_javascript {
        Some(ShellReason::NoscriptAsksForJavascript)
    } else if !has_site_links {
        Some(ShellReason::NoLinks)
    } else {
        None
    }
}

/// Why one page is rendered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum RenderCall {
    /// Its HTML looks like a shell; the render teaches the crawl about the site.
    Probe,
    /// The mode or the site's decision renders every page.
    Every,
}

/// The rendering state of one crawl, shared by its jobs.
#[derive(Debug)]
pub(crate) struct RenderState {
    mode: RenderMode,
    renderer: Option<Arc<dyn Renderer>>,
    learned: Mutex<Learning>,
    report: Mutex<RenderReport>,
}

#[derive(Debug, Clone, Copy)]
struct Learning {
    decision: SiteDecision,
    probes: u32,
    /// The browser cannot render any more.
    unavailable: bool,
}

impl RenderState {
    pub(crate) fn new(mode: RenderMode, renderer: Option<Arc<dyn Renderer>>) -> RenderState {
        RenderState {
            mode,
            learned: Mutex::new(Learning {
                decision: SiteDecision::Undecided,
                probes: 0,
                unavailable: false,
            }),
            report: Mutex::new(RenderReport {
                mode,
                ..RenderReport::default()
            }),
            renderer,
        }
    }

    /// Whether rendering is off altogether.
    pub(crate) fn is_off(&self) -> bool {
        self.mode == RenderMode::Never
    }

    /// Decides whether the page at `url`, an HTML page that answered 200, is rendered; `shell`
    /// is why its HTML looks like a shell, if it does. Counts the page.
    pub(crate) fn decide(&self, url: &Url, shell: Option<ShellReason>) -> Option<RenderCall> {
        let learning = *self
            .learned
            .lock()
            .unwrap_or_else(|poison| poison.into_inner());
        let mut report = self.report();
        report.html_pages += 1;
        if let Some(reason) = &shell
            && report.first_shell.is_none()
        {
            report.first_shell = Some((url.clone(), reason.clone()));
        }
        let call = match (self.mode, learning.decision) {
            (RenderMode::Never, _) => None,
            (RenderMode::Always, _) | (RenderMode::Auto, SiteDecision::RenderAll) => {
                Some(RenderCall::Every)
            }
            (RenderMode::Auto, SiteDecision::Stopped) => None,
            (RenderMode::Auto, SiteDecision::Undecided) => {
                shell.as_ref().map(|_| RenderCall::Probe)
            }
        };
        if call.is_some() && (self.renderer.is_none() || learning.unavailable) {
            // Once: when the browser became unavailable, that was said already.
            if report.not_rendered == 0 && report.unavailable.is_none() {
                self.warn_not_rendered(url, shell.as_ref());
            }
            report.not_rendered += 1;
            return None;
        }
        call
    }

    fn warn_not_rendered(&self, url: &Url, shell: Option<&ShellReason>) {
        let why = "no browser is installed (install chromium, or pass --chrome PATH)";
        match shell {
            Some(reason) => tracing::warn!(
                "{url} looks built by JavaScript ({reason}) but {why}: the sitemap may be incomplete"
            ),
            None => tracing::warn!("pages are not rendered: {why}: the sitemap may be incomplete"),
        }
    }

    /// The renderer, when pages can be rendered.
    pub(crate) fn renderer(&self) -> Option<&Arc<dyn Renderer>> {
        self.renderer.as_ref()
    }

    /// Records a rendered page; a probe teaches whether the site needs rendering: `gained`
    /// says whether its rendered DOM had links or directives the HTML lacked.
    pub(crate) fn rendered(&self, call: &RenderCall, gained: bool, requests: RequestLog) {
        let mut report = self.report();
        report.rendered += 1;
        report.requests.absorb(requests);
        drop(report);
        if *call == RenderCall::Probe {
            self.learn(gained);
        }
    }

    /// Records a page whose rendering failed; `Unavailable` stops rendering for the run.
    pub(crate) fn failed(&self, call: &RenderCall, failure: &RenderFailure) {
        let mut report = self.report();
        match failure {
            RenderFailure::TimedOut(requests) => {
                report.timed_out += 1;
                report.requests.absorb(requests.clone());
            }
            RenderFailure::Failed(_) => report.failed += 1,
            RenderFailure::Unavailable(reason) => {
                report.failed += 1;
                if report.unavailable.is_none() {
                    tracing::warn!(
                        "the browser cannot render ({reason}): the rest of the site is read as served"
                    );
                    report.unavailable = Some(reason.clone());
                }
                drop(report);
                let mut learned = self
                    .learned
                    .lock()
                    .unwrap_or_else(|poison| poison.into_inner());
                learned.unavailable = true;
                return;
            }
        }
        drop(report);
        if *call == RenderCall::Probe {
            self.learn(false);
        }
    }

    fn learn(&self, gained: bool) {
        let mut learned = self
            .learned
            .lock()
            .unwrap_or_else(|poison| poison.into_inner());
        if learned.decision != SiteDecision::Undecided {
            return;
        }
        if gained {
            learned.decision = SiteDecision::RenderAll;
            tracing::info!(
                "rendering added links: the site builds its pages in JavaScript, every page is rendered"
            );
        } else {
            learned.probes += 1;
            if learned.probes >= PROBES {
                learned.decision = SiteDecision::Stopped;
                tracing::info!("rendering added nothing to {PROBES} pages: rendering stops");
            }
        }
    }

    /// Keeps the hash routes a page links to.
    pub(crate) fn note_hash_routes(&self, routes: &[String]) {
        if routes.is_empty() {
            return;
        }
        let mut report = self.report();
        for route in routes {
            if report.hash_routes.len() >= MAX_HASH_ROUTES {
                break;
            }
            report.hash_routes.insert(route.clone());
        }
    }

    /// What rendering did in the crawl.
    pub(crate) fn finish(&self) -> RenderReport {
        let learned = *self
            .learned
            .lock()
            .unwrap_or_else(|poison| poison.into_inner());
        let mut report = self.report().clone();
        report.decision = learned.decision;
        report.browser = self.renderer.as_ref().map(|renderer| renderer.report());
        report
    }

    fn report(&self) -> std::sync::MutexGuard<'_, RenderReport> {
        self.report
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sitemapper_extract::ShellSignals;

    fn url(path: &str) -> Url {
        Url::parse(&format!("https://example.com{path}")).unwrap()
    }

    #[test]
    fn a_shell_needs_a_script_and_an_empty_page() {
        let mut shell = ShellSignals {
            scripts: 0,
            empty_mount: Some("<div id=\"root\">".to_string()),
            noscript_asks_for_javascript: true,
        };
        assert_eq!(shell_reason(&shell, false), None, "nothing would fill it");
        shell.scripts = 2;
        assert_eq!(
            shell_reason(&shell, true),
            Some(ShellReason::EmptyMount("<div id=\"root\">".to_string()))
        );
        shell.empty_mount = None;
        assert_eq!(
            shell_reason(&shell, true),
            Some(ShellReason::NoscriptAsksForJavascript)
        );
        shell.noscript_asks_for_javascript = false;
        assert_eq!(shell_reason(&shell, true), None);
        assert_eq!(shell_reason(&shell, false), Some(ShellReason::NoLinks));
    }

    #[derive(Debug)]
    struct NoBrowser;

    impl Renderer for NoBrowser {
        fn render<'a>(
            &'a self,
            _request: RenderRequest<'a>,
        ) -> BoxFuture<'a, Result<RenderedPage, RenderFailure>> {
            Box::pin(async { Err(RenderFailure::Failed("not a browser".to_string())) })
        }

        fn report(&self) -> BrowserReport {
            BrowserReport::default()
        }
    }

    #[test]
    fn auto_renders_every_page_once_a_probe_gains_links() {
        let state = RenderState::new(RenderMode::Auto, Some(Arc::new(NoBrowser)));
        assert_eq!(state.decide(&url("/plain"), None), None);
        let call = state.decide(&url("/"), Some(ShellReason::NoLinks));
        assert_eq!(call, Some(RenderCall::Probe));
        state.rendered(&RenderCall::Probe, true, RequestLog::default());
        assert_eq!(state.decide(&url("/plain"), None), Some(RenderCall::Every));
        let report = state.finish();
        assert_eq!(report.decision, SiteDecision::RenderAll);
        assert_eq!((report.html_pages, report.rendered), (3, 1));
    }

    #[test]
    fn auto_stops_after_probes_that_gain_nothing() {
        let state = RenderState::new(RenderMode::Auto, Some(Arc::new(NoBrowser)));
        for probe in 0..PROBES {
            let call = state.decide(&url(&format!("/{probe}")), Some(ShellReason::NoLinks));
            assert_eq!(call, Some(RenderCall::Probe));
            state.failed(
                &RenderCall::Probe,
                &RenderFailure::TimedOut(RequestLog::default()),
            );
        }
        assert_eq!(state.decide(&url("/x"), Some(ShellReason::NoLinks)), None);
        assert_eq!(state.finish().decision, SiteDecision::Stopped);
    }

    #[test]
    fn without_a_browser_shells_are_counted_not_rendered() {
        let state = RenderState::new(RenderMode::Auto, None);
        assert_eq!(state.decide(&url("/"), Some(ShellReason::NoLinks)), None);
        assert_eq!(state.decide(&url("/a"), Some(ShellReason::NoLinks)), None);
        assert_eq!(state.decide(&url("/b"), None), None);
        let report = state.finish();
        assert_eq!(report.not_rendered, 2);
        assert_eq!(
            report
                .first_shell
                .map(|(url, _)| url.path().to_string())
                .as_deref(),
            Some("/")
        );
    }

    #[test]
    fn an_unavailable_browser_stops_rendering() {
        let state = RenderState::new(RenderMode::Always, Some(Arc::new(NoBrowser)));
        let call = state.decide(&url("/"), None).unwrap();
        state.failed(
            &call,
            &RenderFailure::Unavailable("crashed 4 times".to_string()),
        );
        assert_eq!(state.decide(&url("/a"), None), None);
        let report = state.finish();
        assert_eq!(report.not_rendered, 1);
        assert_eq!(report.unavailable.as_deref(), Some("crashed 4 times"));
    }
}
