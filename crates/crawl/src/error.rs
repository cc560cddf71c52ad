//! The crate's errors: [`CrawlError`], the conditions that end a run, and [`InvalidSetting`], a
//! setting the user gave that cannot be used. Anything that goes wrong with one URL is an
//! event instead.

use crate::resume::ResumeError;

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
