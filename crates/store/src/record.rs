//! The rows of pages as the store hands them out and takes them in: [`PageRecord`], everything
//! recorded about one URL, and the views of it that queries return. It names only the crate's
//! verdicts and link records.

use jiff::Timestamp;

use crate::link_record::LinkRecord;
use crate::verdict::{FailureKind, IgnoredHint, Reason, Rendering, ServedDifference, Verdict};

/// Everything recorded about one URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageRecord {
    /// The normalized URL: the key.
    pub url: String,
    /// Clicks from the seed (the seed is 0).
    pub depth: u32,
    /// The first page that linked to it (None for the seed).
    pub referrer: Option<String>,
    /// Final HTTP status; None when never fetched.
    pub status: Option<u16>,
    /// The final response's `Content-Type`, as sent.
    pub content_type: Option<String>,
    /// The final response was 200 with an HTML content type, reached within scope.
    pub html_ok: bool,
    /// Whether the URL is listed, and if not, in which way.
    pub verdict: Verdict,
    /// Why the verdict is what it is, when the verdict alone does not say.
    pub reason: Option<Reason>,
    /// Free text that goes with the reason: an error message, a session parameter.
    pub detail: Option<String>,
    /// With the reason [`Reason::FetchError`], what kind of failure it was.
    pub failure: Option<FailureKind>,
    /// The canonical hints the page gave that were ignored.
    pub ignored_hints: Vec<IgnoredHint>,
    /// Redirect or canonical target.
    pub target: Option<String>,
    /// The page's own canonical hint, normalized.
    pub canonical: Option<String>,
    /// Where the canonical was found (a revalidated page keeps what was recorded).
    pub canonical_from: HintPlaces,
    /// Where a noindex was found (a revalidated page keeps what was recorded).
    pub noindex_from: HintPlaces,
    /// The final response's valid `Last-Modified`.
    pub last_modified: Option<Timestamp>,
    /// The final response's `ETag`, for a conditional request next time.
    pub etag: Option<String>,
    /// When the final response arrived.
    pub fetched_at: Option<Timestamp>,
    /// The fingerprint of the page's visible text and links: as computed this time, or as
    /// recorded.
    pub fingerprint: Option<Fingerprint>,
    /// The fingerprint by the function of an earlier version, when the one recorded for the
    /// page is of that version: what the content is compared with this once. Never stored.
    pub legacy_fingerprint: Option<Fingerprint>,
    /// The page's `<title>`.
    pub title: Option<String>,
    /// The page's meta description.
    pub description: Option<String>,
    /// How long the final response took, body included.
    pub elapsed_ms: Option<u64>,
    /// Body bytes read (after decompression, up to the cap).
    pub body_bytes: Option<u64>,
    /// The body was cut at the cap.
    pub truncated: bool,
    /// The page answered 304 Not Modified to a conditional request: its facts are the
    /// previous run's, and its lastmod stays.
    pub revalidated: bool,
    /// The page's links, normalized, typed: those it was followed through, its canonical when
    /// it names another URL, a redirect's target, and for an audit its images. `None` leaves
    /// the recorded links as they are (and reading a page does not load them).
    pub links: Option<Vec<LinkRecord>>,
    /// The images the page shows; `None` leaves the recorded ones.
    pub images: Option<Vec<String>>,
    /// `(hreflang, href)` alternates the page declares; `None` leaves the recorded ones.
    pub alternates: Option<Vec<(String, String)>>,
    /// The page's structured data as JSON (`Some("")` when it declares none, which forgets
    /// what was recorded); `None` leaves the recorded data.
    pub structured: Option<String>,
    /// Whether the page was rendered in a browser, and how that went (a revalidated page
    /// keeps what its last rendering found).
    pub rendering: Option<Rendering>,
    /// What the HTML as served said otherwise than the rendered DOM.
    pub served_differences: Vec<ServedDifference>,
    /// What the page says on itself that an audit reads (a revalidated page keeps what was
    /// recorded); `None` when it was not read.
    pub details: Option<PageDetails>,
    /// It failed in a way that may pass (5xx, 429, a timeout, a connection): where the store
    /// keeps failed pages ([`Store::keep_failed_pages`](crate::Store::keep_failed_pages)) and
    /// the last complete run listed it, its row stands as it was, listed (`kept.rs`).
    pub failed_transiently: bool,
    /// The page's template, as the crawl numbers it (the same in every crawl), when its
    /// links are given and rendering may learn the links its scripts draw
    /// ([`Store::record_script_links`](crate::Store::record_script_links)); kept with its links.
    pub template: Option<u64>,
}

impl PageRecord {
    /// A page of `verdict` that answered 200 with HTML at depth 0, and nothing else known:
    /// what a caller builds on with `..PageRecord::new(url, verdict)`.
    pub fn new(url: &str, verdict: Verdict) -> PageRecord {
        PageRecord {
            url: url.to_string(),
            depth: 0,
            referrer: None,
            status: Some(200),
            content_type: Some("text/html".to_string()),
            html_ok: true,
            verdict,
            reason: None,
            detail: None,
            failure: None,
            ignored_hints: Vec::new(),
            target: None,
            canonical: None,
            canonical_from: HintPlaces::default(),
            noindex_from: HintPlaces::default(),
            last_modified: None,
            etag: None,
            fetched_at: None,
            fingerprint: None,
            legacy_fingerprint: None,
            title: None,
            revalidated: false,
            description: None,
            elapsed_ms: None,
            body_bytes: None,
            truncated: false,
            links: None,
            images: None,
            alternates: None,
            structured: None,
            rendering: None,
            served_differences: Vec::new(),
            details: None,
            failed_transiently: false,
            template: None,
        }
    }
}

/// Where a hint of a page was found: a response header (`Link`, `X-Robots-Tag`), the HTML
/// (`<link rel=canonical>`, a robots `<meta>`; the rendered DOM's for a rendered page), or
/// both.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct HintPlaces {
    /// In a response header.
    pub header: bool,
    /// In the HTML.
    pub html: bool,
}

impl HintPlaces {
    /// As stored: 1 for a header, 2 for the HTML, 3 for both; `None` for neither.
    pub(crate) fn bits(self) -> Option<i64> {
        let bits = i64::from(self.header) | (i64::from(self.html) << 1);
        (bits != 0).then_some(bits)
    }

    /// What [`HintPlaces::bits`] stored.
    pub(crate) fn from_bits(bits: Option<i64>) -> HintPlaces {
        let bits = bits.unwrap_or(0);
        HintPlaces {
            header: bits & 1 != 0,
            html: bits & 2 != 0,
        }
    }

    /// Found nowhere.
    pub fn is_none(self) -> bool {
        !self.header && !self.html
    }
}

/// A fingerprint of a page's content, and the version of the function that computed it:
/// fingerprints compare only with fingerprints of their version.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Fingerprint {
    /// The version of the function.
    pub version: u32,
    /// The value, in hex.
    pub hex: String,
}

/// What a page says on itself that an audit reads.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PageDetails {
    /// `<h1>` elements.
    pub h1_count: u32,
    /// The first `<h1>`'s text.
    pub h1: Option<String>,
    /// `<html lang>`.
    pub lang: Option<String>,
    /// `<img>` elements without an `alt` attribute.
    pub images_without_alt: u32,
    /// The first of them.
    pub images_without_alt_examples: Vec<String>,
    /// On an https page, what it loads over plain http.
    pub insecure_resources: Vec<String>,
    /// Words of the visible text; `None` in rows of releases that did not count them.
    pub word_count: Option<u32>,
    /// What the audit's checks of accessibility, phones, sharing, security and weight read,
    /// as the JSON of the extractor's `PageSignals`; `None` in rows of releases that did not
    /// read it.
    pub signals: Option<String>,
}

/// One entry for the sitemap writer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ListedPage<'a> {
    /// The URL, as written in `<loc>`.
    pub url: &'a str,
    /// The `<lastmod>` the crawl database holds for it, if any.
    pub lastmod: Option<Timestamp>,
    /// Clicks from the seed.
    pub depth: u32,
    /// `<html lang>`, when the crawl read it ([`PageDetails`]).
    pub lang: Option<&'a str>,
}

/// How many pages of a run got one verdict for one reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReasonCount {
    /// The verdict.
    pub verdict: Verdict,
    /// The reason, when the verdict has one.
    pub reason: Option<Reason>,
    /// Pages.
    pub count: u64,
}

/// A URL a run does not list: why, its final status, and how the crawl came to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NotListedPage<'a> {
    /// The normalized URL.
    pub url: &'a str,
    /// In which way it is not listed.
    pub verdict: Verdict,
    /// Why, when the verdict alone does not say.
    pub reason: Option<Reason>,
    /// Final HTTP status; None when never fetched.
    pub status: Option<u16>,
    /// The first page that linked to it, or the URL that redirected to it; None for the seed.
    pub referrer: Option<&'a str>,
}
