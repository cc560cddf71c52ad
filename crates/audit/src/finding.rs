//! A finding and the thresholds that flag a page: the vocabulary every check speaks, with
//! nothing of the checks themselves.

use crate::kind::FindingKind;

/// One problem, where it is, and who links there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// What is wrong.
    pub kind: FindingKind,
    /// The URL it is wrong with.
    pub url: String,
    /// The particulars, for a reader: a status, a chain of redirects, the other pages.
    pub detail: String,
    /// Pages of the run that link to `url`, sorted (for findings about link targets).
    pub referrers: Vec<String>,
}

/// The limits beyond which a page is flagged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Thresholds {
    /// Clicks from the start page.
    pub max_depth: u32,
    /// Response time, body included, in milliseconds.
    pub slow_ms: u64,
    /// Body size after decompression, in bytes.
    pub large_bytes: u64,
    /// Titles longer than this many characters are cut off in search results.
    pub title_max_chars: usize,
    /// Titles shorter than this many characters say too little.
    pub title_min_chars: usize,
    /// Meta descriptions longer than this many characters are cut off in search results.
    pub description_max_chars: usize,
}

impl Default for Thresholds {
    fn default() -> Self {
        Thresholds {
            max_depth: 4,
            slow_ms: 1_500,
            large_bytes: 1024 * 1024,
            title_max_chars: 60,
            title_min_chars: 30,
            description_max_chars: 155,
        }
    }
}

/// A finding of `kind` about `url`, with no referrers yet.
pub(crate) fn finding(kind: FindingKind, url: &str, detail: String) -> Finding {
    Finding {
        kind,
        url: url.to_string(),
        detail,
        referrers: Vec::new(),
    }
}
