//! What a bad night's guard is set by and what it counts: the defaults of `--keep-failed` and
//! `--max-shrink`, the fewest URLs lost that may stop publishing, and [`ShrinkCause`], why a
//! URL published now would go. A leaf: it names nothing else of the crate.

use sitemapper_store::{FailureKind, Reason};

/// `--keep-failed`'s default: a URL the last complete run listed stays listed through a
/// week of nightly runs that fail to reach it (a weekend-long outage does not empty a
/// sitemap); the eighth drops it.
pub const DEFAULT_KEEP_FAILED: u32 = 7;

/// `--max-shrink`'s default: a run that would lose more than a quarter of the published URLs
/// publishes nothing.
pub const DEFAULT_MAX_SHRINK: u8 = 25;

/// Losing fewer URLs than this never stops publishing: on a small site, a page or two
/// removed is an ordinary edit, not a bad night.
pub const MIN_SHRINK_URLS: u64 = 10;

/// Why a URL published now would go, as the error line counts them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ShrinkCause {
    /// It answered this status (a 5xx, a 404, a 410).
    Answered(u16),
    /// It gave no answer, in this way.
    Failed(FailureKind),
    /// It is no longer listable for this reason (noindex, robots.txt, ...).
    Excluded(Reason),
    /// It redirects now.
    Redirects,
    /// It names another page as its canonical now.
    Canonicalised,
    /// No link of this run led to it.
    NotFound,
}

impl std::fmt::Display for ShrinkCause {
    /// What follows the count: `398 answered 503`, `12 were not found this time`.
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ShrinkCause::Answered(status) => write!(formatter, "answered {status}"),
            ShrinkCause::Failed(FailureKind::Timeout) => formatter.write_str("timed out"),
            ShrinkCause::Failed(FailureKind::Connect) => {
                formatter.write_str("could not be connected to")
            }
            ShrinkCause::Failed(FailureKind::Body) => formatter.write_str("were cut short"),
            ShrinkCause::Failed(other) => write!(formatter, "failed ({})", other.code()),
            ShrinkCause::Excluded(reason) => write!(formatter, "are {reason} now"),
            ShrinkCause::Redirects => formatter.write_str("redirect now"),
            ShrinkCause::Canonicalised => formatter.write_str("name another canonical now"),
            ShrinkCause::NotFound => formatter.write_str("were not found this time"),
        }
    }
}
