//! The crawl engine of sitemapper: scope, URL normalization, robots.txt, fetching, classification.
//!
//! The engine takes a seed URL and a [`CrawlConfig`] and produces a stream of [`CrawlEvent`]s, one
//! per URL it decided something about. It never writes sitemaps or databases: the binary consumes
//! the events. A failure on one URL is an event with a reason; [`CrawlError`] is for the fatal
//! conditions that end a run (a seed that cannot be reached, an HTTP client that cannot be built).

mod access;
mod address;
mod classify;
mod concurrency;
mod config;
mod documents;
mod engine;
mod event;
mod fetch;
mod frontier;
mod history;
mod host_map;
mod lastmod;
mod link_check;
mod network;
mod normalize;
mod origins;
mod pace;
mod render;
mod resume;
mod robots;
mod scope;
mod sitemaps;
mod traps;

pub use access::{BasicAuth, SiteAccess, SiteCookie, SiteHeader, SiteSession};
pub use address::{AddressPolicy, PrivateAddress};
pub use concurrency::{AUTO_CEILING, AUTO_START, Concurrency, ConcurrencyReport};
pub use config::{CrawlConfig, DEFAULT_OTHER_HOST_REQUESTS, ScopeOptions, default_user_agent};
pub use documents::{DocumentKind, DocumentMiss, DocumentReport, Documents};
pub use engine::{CrawlProgress, CrawlStopper, CrawlSummary, Crawler};
pub use event::{
    CrawlEvent, Exclusion, Fingerprint, IgnoredHint, PageDetails, PageLink, PageLinkKind,
    PageOutcome, RenderDifference, Rendering, ResponseFacts, RobotsFile, SettledScope, Verdict,
};
pub use fetch::{
    CertificateProblem, Deadline, FailureCause, FetchError, FetchFailure, FetchFailureKind,
    FetchSettings, Fetched, Fetcher, RequestObserver, client_builder, error_chain,
};
pub use frontier::{FrontierSpill, SpillError, SpilledUrl};
pub use history::{History, PreviousPage};
pub use host_map::{HostMap, suggested_mapping};
pub use link_check::{LinkCheck, LinkCheckSettings, LinkChecker, refuses_head};
pub use network::{NetworkOptions, TrustedCertificates, parse_proxy, shown_proxy};
pub use normalize::UrlNormalizer;
pub use pace::{PaceBoard, ServerKey, ServersBy, host_key};
pub use render::{
    BodyStream, BoxFuture, BrowserReport, BrowserRequest, BrowserResponse, GateError,
    MAX_FRUITLESS_PROBES, Refusal, RenderFailure, RenderMode, RenderReport, RenderRequest,
    RenderedPage, Renderer, RequestGate, RequestLog, ShellReason, SiteDecision,
};
pub use resume::{ResumeError, ResumeSource};
pub use sitemaps::{
    NOT_READ_KEPT, NoSeeds, NotRead, SiteSitemap, SitemapFoundBy, SitemapReader, SitemapSeeding,
    SitemapWalk, USUAL_SITEMAP_PATHS, site_sitemaps,
};
pub use traps::{TrapKind, TrapReport};

/// The conditions that stop a crawl. Anything that goes wrong with one URL is an event instead.
#[derive(Debug, thiserror::Error)]
pub enum CrawlError {
    /// The seed does not parse as an http(s) URL.
    #[error("the seed {} is not an http or https URL", shortened(url))]
    InvalidSeed {
        /// The seed as given.
        url: String,
    },
    /// The seed names port 0, on which no server listens (it asks the system for any port).
    #[error("the seed {} names port 0, on which no server listens", shortened(url))]
    SeedPortZero {
        /// The seed as given.
        url: String,
    },
    /// The seed is longer than `max_url_length`.
    #[error("the seed is {length} characters long; URLs longer than {max} are never crawled")]
    SeedTooLong {
        /// The seed's length in bytes.
        length: usize,
        /// The configured `max_url_length`.
        max: usize,
    },
    /// The seed's redirect chain ended without a successful response.
    #[error("cannot reach {url}: {reason}")]
    SeedUnreachable {
        /// The seed, normalized.
        url: String,
        /// Why, in words.
        reason: String,
    },
    /// robots.txt refuses the seed, or a URL it redirects to.
    #[error("the seed {url} is disallowed: {robots}")]
    SeedDisallowed {
        /// The seed, normalized.
        url: String,
        /// Which robots.txt rules, in words.
        robots: String,
    },
    /// robots.txt answered a server error, which forbids crawling until it answers (RFC 9309
    /// section 2.3.1.4).
    #[error(
        "robots.txt answered {status} for {url}, which forbids crawling until it answers; try again later"
    )]
    RobotsUnavailable {
        /// The seed, normalized.
        url: String,
        /// The status robots.txt answered.
        status: u16,
    },
    /// The HTTP client cannot be built (for one, when the system's root certificates cannot be
    /// loaded).
    #[error("cannot build the HTTP client: {0}")]
    Client(String),
    /// Where the interrupted crawl stood cannot be read back.
    #[error("cannot read where the interrupted crawl stood: {0}")]
    Resume(#[source] ResumeError),
}

/// A setting the user gave that cannot be used (a header, a cookie, credentials, a proxy, a
/// certificate file, a host mapping), and why. The message never repeats a secret: it names
/// a header or a cookie, never its value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct InvalidSetting(String);

impl InvalidSetting {
    pub(crate) fn new(message: impl Into<String>) -> InvalidSetting {
        InvalidSetting(message.into())
    }
}

/// A URL given by the user, cut for an error line that must stay one readable line.
fn shortened(text: &str) -> String {
    const SHOWN: usize = 200;
    match text.char_indices().nth(SHOWN) {
        Some((cut, _)) => format!("{}... ({} characters)", &text[..cut], text.chars().count()),
        None => text.to_string(),
    }
}
