//! The one HTTP client of sitemapper: every request to a site, or for it, goes through a
//! [`Fetcher`], bounded in time and memory, with retries for transient failures.
//!
//! A fetcher (`fetcher`, with its own `settings`) checks the address policy before every
//! request and on every connection (docs/design.md, Safety), sends the site's headers,
//! credentials and cookies to the site's origins only
//! ([`SiteSession::is_site`](crate::access::SiteSession::is_site)), caps every body on its
//! decompressed size, and retries timeouts, failed connections, 429, 502, 503 and 504 with
//! backoff. Redirects are not followed by the HTTP client: `chain` follows them hop by hop
//! (each hop's request and response in `hop`), so that every hop passes the same checks and
//! the caller's own (scope, robots.txt) before it is requested (docs/design.md, Fetching and
//! politeness). The crawl drives chains with its own rules; other callers (`validate`, the
//! audit's sitemaps, IndexNow) use [`Fetcher::get`] and [`Fetcher::post`] (`request`); the
//! browser's requests go through `relay`; the audit's check of a link that leaves the site
//! uses [`crate::LinkChecker`]. Why a request failed is in `cause` and `failure`.

mod cause;
mod chain;
mod failure;
mod fetcher;
mod hop;
mod observer;
mod relay;
mod request;
mod settings;

pub use cause::{CertificateProblem, Deadline, FailureCause, error_chain};
pub(crate) use chain::{Broken, Hops};
pub use failure::{FetchError, FetchFailure, FetchFailureKind};
pub use fetcher::{Fetcher, client_builder};
pub(crate) use hop::{
    BodyWanted, FetchedResponse, HopRequest, Method, Validators, is_html_content_type,
};
pub use observer::RequestObserver;
pub use relay::{BodyStream, BrowserRequest, BrowserResponse};
pub use request::Fetched;
pub use settings::{FetchSettings, default_user_agent};
