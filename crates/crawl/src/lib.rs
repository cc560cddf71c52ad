//! The crawl engine of sitemapper: scope, URL normalization, robots.txt, fetching, classification.
//!
//! The engine takes a seed URL and a [`CrawlConfig`] and produces a stream of [`CrawlEvent`]s, one
//! per URL it decided something about. It never writes sitemaps or databases: the binary consumes
//! the events. A failure on one URL is an event with a reason; [`CrawlError`] is for the fatal
//! conditions that end a run (a seed that cannot be reached, an HTTP client that cannot be built).

mod address;
mod classify;
mod config;
mod engine;
mod event;
mod fetch;
mod frontier;
mod history;
mod lastmod;
mod normalize;
mod origins;
mod robots;
mod scope;
mod traps;

pub use address::{AddressPolicy, PrivateAddress};
pub use config::{CrawlConfig, ScopeOptions, default_user_agent};
pub use engine::{CrawlProgress, CrawlStopper, CrawlSummary, Crawler, ResumePoint};
pub use event::{CrawlEvent, Exclusion, IgnoredHint, PageOutcome, ResponseFacts, Verdict};
pub use fetch::client_builder;
pub use frontier::{FrontierSpill, SpilledUrl};
pub use history::{History, PreviousPage};
pub use normalize::UrlNormalizer;
pub use traps::{TrapKind, TrapReport};

/// The conditions that stop a crawl. Anything that goes wrong with one URL is an event instead.
#[derive(Debug, thiserror::Error)]
pub enum CrawlError {
    #[error("the seed {} is not an http or https URL", shortened(url))]
    InvalidSeed { url: String },
    #[error("the seed is {length} characters long; URLs longer than {max} are never crawled")]
    SeedTooLong { length: usize, max: usize },
    #[error("cannot reach the seed {url}: {reason}")]
    SeedUnreachable { url: String, reason: String },
    #[error("the seed {url} is disallowed: {robots}")]
    SeedDisallowed { url: String, robots: String },
    #[error("cannot build the HTTP client: {0}")]
    Client(String),
}

/// A URL given by the user, cut for an error line that must stay one readable line.
fn shortened(text: &str) -> String {
    const SHOWN: usize = 200;
    match text.char_indices().nth(SHOWN) {
        Some((cut, _)) => format!("{}... ({} characters)", &text[..cut], text.chars().count()),
        None => text.to_string(),
    }
}
