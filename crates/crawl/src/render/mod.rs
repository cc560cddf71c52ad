//! Pages built by JavaScript: what the crawl asks of a browser, and when (docs/design.md,
//! Behaviour rules, `--render`).
//!
//! The crawl defines the [`Renderer`] it needs and never depends on a browser: the binary hands
//! it one (`crates/render` drives Chromium). Every request the browser makes, of any kind, is
//! handed to the crawl's [`RequestGate`], which makes it with the crawl's fetcher when the
//! crawl's rules allow: robots.txt, the address policy, pace and the request budget hold for
//! the browser as for the crawler.
//!
//! With [`RenderMode::Auto`], rendering is worth its cost only where it finds URLs that the
//! crawl as served would never reach, judged against everything the crawl knows, not against
//! one page's own links (a generated site draws its menu with a script, yet its pages link to
//! each other):
//! 1. The site is crawled as served. Pages that run scripts are grouped by [`Template`]: the
//!    file names of the scripts they load.
//! 2. Once no link leads anywhere new (the site's own sitemaps read too, when they are), one
//!    page of each template that has pages looking like an application shell (see
//!    [`ShellReason`]) is rendered: its first such page in URL order.
//! 3. A template whose page links, once rendered, to URLs the crawl has not met at all, or
//!    whose canonical or noindex differ from its HTML's, renders: its pages read so far are
//!    rendered again, and those found later are rendered as they come. Any other template is
//!    read as served.
//! 4. The URLs rendering found are crawled the same way, and templates first seen among them
//!    are judged when links run out again. Templates whose pages are empty without their
//!    scripts (a framework's mount element, a `<noscript>` asking for JavaScript, no link at
//!    all) are judged first, then the largest; after [`MAX_FRUITLESS_PROBES`] templates that
//!    found nothing, the rest are read as served.

mod state;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use url::Url;

use crate::fetch::{BrowserRequest, BrowserResponse, FetchFailure};

pub use state::MAX_FRUITLESS_PROBES;
pub(crate) use state::{
    Candidate, KeptPage, RenderCall, RenderState, ServedPage, Template, is_empty_without_scripts,
};

/// A boxed future, as the object-safe traits of this module return them.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

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

/// Why a request of the browser is not sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Refusal {
    /// robots.txt disallows it.
    RobotsDisallowed,
    /// Its host is on a private network the crawl may not reach.
    PrivateAddress,
    /// Not an http(s) URL the crawl could make.
    NotHttp,
    /// A request to the site past `--max-requests`.
    RequestBudget,
    /// A request to another host past the page's budget for other hosts.
    OtherHostBudget,
    /// A method that may change something on the server (PUT, DELETE, ...): a crawler reads.
    Method,
    /// A WebSocket: it carries messages, not pages, and would keep a connection open past the
    /// page.
    WebSocket,
}

impl Refusal {
    /// A stable name of the refusal, for logs and the JSON summary.
    pub fn code(self) -> &'static str {
        match self {
            Refusal::RobotsDisallowed => "robots_txt",
            Refusal::PrivateAddress => "private_network",
            Refusal::NotHttp => "not_http",
            Refusal::RequestBudget => "max_requests",
            Refusal::OtherHostBudget => "other_host_budget",
            Refusal::Method => "method",
            Refusal::WebSocket => "websocket",
        }
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(match self {
            Refusal::RobotsDisallowed => "robots.txt disallows it",
            Refusal::PrivateAddress => "its host is on a private network",
            Refusal::NotHttp => "not an http(s) URL",
            Refusal::RequestBudget => "--max-requests is spent",
            Refusal::OtherHostBudget => "the page's budget for other hosts is spent",
            Refusal::Method => "a method that may change the server",
            Refusal::WebSocket => "a WebSocket",
        })
    }
}

/// Why a request of the browser got no response.
#[derive(Debug, Clone)]
pub enum GateError {
    /// The crawl's rules refuse it: it was never sent.
    Refused(Refusal),
    /// It was sent and failed (no connection, a timeout).
    Failed(FetchFailure),
}

/// The one way out of the browser (docs/design.md, `crates/render`): every request it makes,
/// of any kind, is handed to the gate, which applies the crawl's rules (scope, robots.txt,
/// the address policy, pace, the request budget, the site's secrets to the site only) and
/// makes it with the crawl's fetcher.
pub trait RequestGate: Send + Sync {
    /// Makes `request` when the crawl's rules allow it.
    fn send(&self, request: BrowserRequest) -> BoxFuture<'_, Result<BrowserResponse, GateError>>;
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
    /// The gate every further request of the page goes through, for as long as the page is
    /// rendered.
    pub gate: Arc<dyn RequestGate>,
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
    /// Requests the gate refused, by why: never sent.
    pub refused: BTreeMap<Refusal, u64>,
    /// Images, media and fonts not loaded (links do not need them).
    pub skipped_resources: u64,
    /// Places scripts tried to take the tab to (`location = ...`, `window.open`): refused,
    /// and followed as links.
    pub navigations: Vec<Url>,
}

impl RequestLog {
    /// Adds `other`'s counts to these (not its navigations: they are the page's links).
    pub fn absorb(&mut self, other: RequestLog) {
        for (host, count) in other.other_hosts {
            *self.other_hosts.entry(host).or_default() += count;
        }
        self.disallowed.extend(other.disallowed);
        for (refusal, count) in other.refused {
            *self.refused.entry(refusal).or_default() += count;
        }
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
    /// Requests no rendered page made (the browser's own, or a page's after it was read):
    /// refused.
    pub not_from_a_page: u64,
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

/// What rendering decided for the site as a whole, in [`RenderMode::Auto`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SiteDecision {
    /// No page was rendered to decide: none ran scripts, or the crawl stopped first.
    #[default]
    Undecided,
    /// The pages of at least one template build, in JavaScript, links to URLs the crawl
    /// would not have found or directives their HTML lacks: those pages are rendered.
    Renders,
    /// Every template rendered found nothing the crawl did not know: pages read as served.
    ReadAsServed,
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
    /// Templates (pages that load the same scripts) one page of which was rendered to learn
    /// whether they need rendering.
    pub templates_probed: u64,
    /// Of those, the templates whose pages build links or directives in JavaScript: all
    /// their pages are rendered.
    pub templates_rendered: u64,
    /// URLs that rendered pages linked to and the crawl had not met otherwise: what
    /// rendering found.
    pub found_urls: u64,
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

#[cfg(test)]
mod tests {
    use super::*;
    use sitemapper_extract::ShellSignals;

    #[test]
    fn a_shell_needs_a_script_and_an_empty_page() {
        let mut shell = ShellSignals {
            scripts: 0,
            empty_mount: Some("<div id=\"root\">".to_string()),
            noscript_asks_for_javascript: true,
            ..ShellSignals::default()
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
}
