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
mod error;
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
pub use config::{CrawlConfig, DEFAULT_OTHER_HOST_REQUESTS};
pub use documents::{DocumentKind, DocumentMiss, DocumentReport, Documents};
pub use engine::{CrawlProgress, CrawlStopper, CrawlSummary, Crawler};
pub use error::{CrawlError, InvalidSetting};
pub use event::{
    CrawlEvent, Exclusion, Fingerprint, HintOrigins, IgnoredHint, PageDetails, PageLink,
    PageLinkKind, PageOutcome, RenderDifference, Rendering, ResponseFacts, ScriptLinks,
    SettledScope, Verdict,
};
pub use fetch::{
    BodyStream, BrowserRequest, BrowserResponse, CertificateProblem, Deadline, FailureCause,
    FetchError, FetchFailure, FetchFailureKind, FetchSettings, Fetched, Fetcher, RequestObserver,
    client_builder, default_user_agent, error_chain,
};
pub use frontier::{FrontierSpill, SpillError, SpilledUrl};
pub use history::{History, PreviousPage};
pub use host_map::{HostMap, suggested_mapping};
pub use link_check::{LinkCheck, LinkCheckSettings, LinkChecker, Sample, refuses_head};
pub use network::{
    NetworkOptions, TrustedCertificates, environment_proxies, parse_proxy, shown_proxy,
};
pub use normalize::{DEFAULT_STRIP_PARAMETERS, UrlNormalizer};
pub use pace::{PaceBoard, ServerKey, ServersBy, host_key};
pub use render::{
    BoxFuture, BrowserReport, GateError, MAX_FRUITLESS_PROBES, MAX_FRUITLESS_UNFINISHED,
    RENDERS_TO_LEARN, Refusal, RenderFailure, RenderMode, RenderReport, RenderRequest,
    RenderedPage, Renderer, RequestGate, RequestLog, ShellReason, SiteDecision,
};
pub use resume::{ResumeError, ResumeSource};
pub use robots::RobotsFile;
pub use scope::ScopeOptions;
pub use sitemaps::{
    NOT_READ_KEPT, NoSeeds, NotRead, SiteSitemap, SitemapFoundBy, SitemapReader, SitemapSeeding,
    SitemapWalk, USUAL_SITEMAP_PATHS, site_sitemaps,
};
pub use traps::{TrapKind, TrapReport};
