//! What the crawl asks of a browser, and what the browser asks of the crawl: the [`Renderer`]
//! the binary hands the crawl, the page it is asked to render ([`RenderRequest`]) and what comes
//! back, and the [`RequestGate`] every request of the browser goes through.

use std::collections::BTreeMap;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use url::Url;

use crate::fetch::{BrowserRequest, BrowserResponse, FetchFailure};

/// A boxed future, as the object-safe traits of this module return them.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

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

    /// How many pages it renders at once: the crawl hands it no more pages to render again
    /// than it can take, so that what one render teaches holds back the next.
    fn tabs(&self) -> usize {
        1
    }
}
