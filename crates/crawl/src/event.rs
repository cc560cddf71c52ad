//! What the engine reports: one [`CrawlEvent`] per decision, with the [`Verdict`] and its reason.

use std::fmt;
use std::time::Duration;

use jiff::Timestamp;
use sitemapper_extract::{ExtractedValues, StructuredData};
use url::Url;

use crate::fetch::{FetchFailure, is_html_content_type};
use crate::origins::RobotsRead;
use crate::robots::RobotsFile;
use crate::traps::TrapKind;
pub use sitemapper_extract::PageDetails;

/// One thing the engine learned. Every URL it decided about is reported exactly once.
#[derive(Debug, Clone)]
pub enum CrawlEvent {
    /// The seed's visit settled the crawl's scope. Sent once, after the events of the seed's
    /// own redirect chain and before any other page's.
    Scope(SettledScope),
    /// robots.txt of an origin was read (or could not be).
    Robots {
        /// The origin, as `scheme://host[:port]`.
        origin: String,
        /// What the crawl makes of the file, in words (`3 rules for "sitemapper"`).
        policy: String,
        /// The `Sitemap:` lines of robots.txt.
        sitemaps: Vec<String>,
        /// The `Crawl-delay` that applies to the crawler, as the file gives it.
        crawl_delay: Option<Duration>,
        /// What `/robots.txt` answered.
        file: RobotsFile,
    },
    /// A URL was decided: fetched, or skipped before any request (robots, URL length).
    Page(Box<PageOutcome>),
    /// A sitemap of the site was read as a seed ([`crate::CrawlConfig::seed_sitemaps`]).
    SitemapListed {
        /// The sitemap, as requested.
        sitemap: Url,
        /// The URLs it lists that are in scope, normalized, whether or not a link had led
        /// the crawl to them already.
        urls: Vec<Url>,
    },
    /// The links scripts draw on every page of a template, learned from its renders
    /// (`render`): links of each page of that template ([`PageOutcome::template`]), read as
    /// served or not. Sent once, after every page's event, when links are recorded and
    /// rendering learned any.
    ScriptLinks(Vec<ScriptLinks>),
}

/// The links a template's scripts draw on each of its pages: those every render of it showed,
/// and a script added to the page's HTML on one or more of them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScriptLinks {
    /// The template, as [`PageOutcome::template`] names it.
    pub template: u64,
    /// The pages of the site they lead to, normalized, in URL order.
    pub links: Vec<Url>,
}

impl From<RobotsRead> for CrawlEvent {
    fn from(read: RobotsRead) -> CrawlEvent {
        let RobotsRead {
            origin,
            policy,
            sitemaps,
            crawl_delay,
            file,
        } = read;
        CrawlEvent::Robots {
            origin,
            policy,
            sitemaps,
            crawl_delay,
            file,
        }
    }
}

/// The crawl's scope as the seed's visit settled it (docs/design.md, Scope): nothing outside it is
/// requested.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SettledScope {
    /// The seed, normalized.
    pub seed: Url,
    /// The scope's directory (`https://example.com/book/`): in scope are the URLs under it,
    /// and its sitemaps are published there.
    pub root: Url,
    /// With subdomains allowed, the site whose subdomains are in scope too, under the same
    /// path (`example.com` for `www.example.com`).
    pub subdomains_of: Option<String>,
    /// The scope root before the seed's redirects moved it (to another origin, or into the
    /// directory a seed typed without its trailing slash redirected to), when they did.
    pub moved_from: Option<Url>,
    /// Include patterns narrow the scope to the URLs they match.
    pub narrowed_by_include: bool,
    /// Exclude patterns take the URLs they match out of the scope.
    pub narrowed_by_exclude: bool,
    /// The seed's path names a directory without its trailing slash (`/book`) and was
    /// answered there, so the scope is the directory above it, wider than the path typed,
    /// and no include pattern narrows it.
    pub wider_than_seed: bool,
    /// The seed is on a private network, so private addresses are allowed for the crawl.
    pub private_network: bool,
}

impl SettledScope {
    /// Whether `url` is on the site crawled: the scope root's origin, or, with subdomains
    /// allowed, its site. A sitemap elsewhere is not read as the site's.
    pub fn is_same_site(&self, url: &Url) -> bool {
        crate::scope::same_site(&self.root, self.subdomains_of.is_some(), url)
    }
}

/// A fingerprint of a page's content (see `sitemapper_extract`), and the version of the
/// function that computed it: fingerprints compare only with fingerprints of their version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fingerprint {
    /// The version of the function.
    pub version: u32,
    /// The value, in hex.
    pub hex: String,
}

impl Fingerprint {
    /// `hex`, as the current function computes it.
    pub(crate) fn current(hex: String) -> Fingerprint {
        Fingerprint {
            version: sitemapper_extract::FINGERPRINT_VERSION,
            hex,
        }
    }

    /// `hex`, as the function of releases before fingerprints had a version computed it.
    pub(crate) fn legacy(hex: String) -> Fingerprint {
        Fingerprint {
            version: sitemapper_extract::LEGACY_FINGERPRINT_VERSION,
            hex,
        }
    }
}

/// The facts about one URL and the verdict on it.
#[derive(Debug, Clone)]
pub struct PageOutcome {
    /// The normalized URL requested.
    pub url: Url,
    /// Clicks from the seed (the seed is 0).
    pub depth: u32,
    /// The first page that linked to it, or the URL that redirected to it.
    pub referrer: Option<Url>,
    /// The response, when one was received.
    pub response: Option<ResponseFacts>,
    /// The page's canonical hint, normalized, as found (whether or not it was honoured).
    pub canonical: Option<Url>,
    /// Where its canonical and its noindex were found (a page that answered 304 Not
    /// Modified: nothing, the ones recorded stand).
    pub hints: HintOrigins,
    /// The page's `<title>`.
    pub title: Option<String>,
    /// The page's meta description.
    pub description: Option<String>,
    /// Whether it is listed, and if not, why.
    pub verdict: Verdict,
    /// Canonical hints the page gave that were ignored, and why (for the audit).
    pub ignored_hints: Vec<IgnoredHint>,
    /// The fingerprint of the page's visible text and links (a page that answered 304 Not
    /// Modified: the one recorded).
    pub fingerprint: Option<Fingerprint>,
    /// The fingerprint by the function of an earlier version, when the one recorded for the
    /// page is of that version: what the crawl database compares its content with this once.
    pub legacy_fingerprint: Option<Fingerprint>,
    /// The page's links, normalized and typed, when [`crate::CrawlConfig::record_links`]:
    /// those it was followed through, its canonical when it names another URL, and with
    /// [`crate::CrawlConfig::page_details`] its images. `None` for a page that answered 304
    /// Not Modified: the links recorded for it stand.
    pub links: Option<Vec<PageLink>>,
    /// The images the page shows, when [`crate::CrawlConfig::collect_images`].
    pub images: Option<Vec<Url>>,
    /// `(hreflang, normalized URL)`, when [`crate::CrawlConfig::collect_alternates`].
    pub alternates: Option<Vec<(String, Url)>>,
    /// Whether the page was rendered in a browser, and how that went.
    pub rendering: Option<Rendering>,
    /// The values of [`crate::CrawlConfig::extractions`] on this page, one entry per
    /// extraction (none for a URL that is not an HTML page answering 200); `None` when the
    /// page was not read this time (a 304: the values recorded before stand).
    pub extracted: Option<Vec<ExtractedValues>>,
    /// What the page says on itself that an audit reads, when
    /// [`crate::CrawlConfig::page_details`] (link texts are in [`PageOutcome::links`]).
    pub details: Option<PageDetails>,
    /// The page's structured data, when [`crate::CrawlConfig::structured_data`]: the rendered
    /// DOM's when the page was rendered; empty for a response that is no page (a redirect,
    /// a file). `None` when not asked for, or when the page was not read this time (a 304:
    /// the data recorded before stands).
    pub structured: Option<StructuredData>,
    /// The URL was reported earlier in this crawl, read as served, and was visited again to
    /// be rendered: this outcome replaces that one (it is not another URL to count).
    pub replaces_earlier: bool,
    /// It failed in a way that may pass (429, 5xx, a timeout, a connection refused or reset,
    /// the name not resolving, after the retries): what an earlier run listed for it may
    /// stand (docs/design.md, Fetching and politeness).
    pub failed_transiently: bool,
    /// The template of an HTML page read with [`crate::RenderMode::Auto`] whose links are
    /// recorded and followed: the file names of the scripts it runs, as a number that is the
    /// same in every crawl. [`CrawlEvent::ScriptLinks`] gives the links its scripts draw.
    pub template: Option<u64>,
}

/// A link of a page, as the crawl database keeps it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageLink {
    /// Where it leads, normalized.
    pub url: Url,
    /// What it is.
    pub kind: PageLinkKind,
    /// Its text: an `<a>`'s content, or the `alt` of an image in it (with
    /// [`crate::CrawlConfig::page_details`]).
    pub anchor: Option<String>,
    /// Its `rel` holds `nofollow`.
    pub nofollow: bool,
}

/// What a link of a page is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PageLinkKind {
    /// `<a href>` or `<area href>`.
    Anchor,
    /// The page's canonical, naming another URL.
    Canonical,
    /// `<link rel=alternate hreflang>`, or its `Link` header.
    Hreflang,
    /// An image the page shows.
    Image,
    /// `<iframe src>` or `<frame src>`.
    Frame,
    /// An instant `<meta http-equiv=refresh>`.
    Refresh,
    /// A script file the page loads (`<script src>`).
    ScriptFile,
    /// A style sheet the page loads (`<link rel=stylesheet>`).
    Stylesheet,
}

impl PageOutcome {
    /// A URL decided before any request: robots.txt, the request budget, its length, a trap.
    pub fn skipped(
        url: Url,
        depth: u32,
        referrer: Option<Url>,
        exclusion: Exclusion,
    ) -> PageOutcome {
        PageOutcome::new(url, depth, referrer, None, Verdict::Excluded(exclusion))
    }

    /// A URL that got `response` and the verdict on it; what the page says is added by the
    /// caller when there is a page.
    pub fn fetched(
        url: Url,
        depth: u32,
        referrer: Option<Url>,
        response: ResponseFacts,
        verdict: Verdict,
    ) -> PageOutcome {
        PageOutcome::new(url, depth, referrer, Some(response), verdict)
    }

    fn new(
        url: Url,
        depth: u32,
        referrer: Option<Url>,
        response: Option<ResponseFacts>,
        verdict: Verdict,
    ) -> PageOutcome {
        PageOutcome {
            url,
            depth,
            referrer,
            response,
            canonical: None,
            hints: HintOrigins::default(),
            title: None,
            description: None,
            verdict,
            ignored_hints: Vec::new(),
            fingerprint: None,
            legacy_fingerprint: None,
            links: None,
            failed_transiently: false,
            images: None,
            alternates: None,
            replaces_earlier: false,
            rendering: None,
            extracted: Some(Vec::new()),
            details: None,
            structured: None,
            template: None,
        }
    }
}

/// Where a page's canonical and noindex were found: `explain` tells a user which to change.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct HintOrigins {
    /// A `Link` header named the canonical the page is recorded with.
    pub canonical_in_header: bool,
    /// A `<link rel=canonical>` of the HTML named it (of the rendered DOM, when the page was
    /// rendered).
    pub canonical_in_html: bool,
    /// An `X-Robots-Tag` header said `noindex`.
    pub noindex_in_header: bool,
    /// A robots `<meta>` said `noindex`.
    pub noindex_in_meta: bool,
}

/// A canonical hint the page gave that was not followed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IgnoredHint {
    /// `<link rel=canonical>` values that are not http(s) URLs, as written.
    InvalidCanonical(Vec<String>),
    /// Two or more distinct canonical targets after normalization (the page is its own canonical).
    ConflictingCanonicals(Vec<Url>),
}

impl fmt::Display for IgnoredHint {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IgnoredHint::InvalidCanonical(values) => {
                write!(formatter, "invalid canonical: {}", values.join(" "))
            }
            IgnoredHint::ConflictingCanonicals(targets) => {
                let targets: Vec<&str> = targets.iter().map(Url::as_str).collect();
                write!(formatter, "conflicting canonicals: {}", targets.join(" "))
            }
        }
    }
}

/// A page's rendering in a browser.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Rendering {
    /// Rendered: the facts are the rendered DOM's. Where the HTML as served said otherwise
    /// about the page's canonical or indexing, both are kept.
    Rendered(Vec<RenderDifference>),
    /// The page did not settle within the render timeout: the HTML as served was used.
    TimedOut,
    /// Rendering failed (a crashed tab or browser): the HTML as served was used.
    Failed(String),
}

/// Where the HTML as served and the rendered DOM disagree on what search engines act on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RenderDifference {
    /// The two name different canonicals (or one names none).
    Canonical {
        /// The served HTML's, normalized.
        served: Option<Url>,
        /// The rendered DOM's, normalized.
        rendered: Option<Url>,
    },
    /// One says noindex and the other does not.
    Noindex {
        /// Whether the served HTML says noindex (the rendered DOM says the opposite).
        served: bool,
    },
}

impl fmt::Display for RenderDifference {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        let shown = |url: &Option<Url>| url.as_ref().map_or("none".to_string(), Url::to_string);
        match self {
            RenderDifference::Canonical { served, rendered } => write!(
                formatter,
                "canonical {} as served, {} once rendered",
                shown(served),
                shown(rendered)
            ),
            RenderDifference::Noindex { served: true } => {
                formatter.write_str("noindex as served, indexable once rendered")
            }
            RenderDifference::Noindex { served: false } => {
                formatter.write_str("indexable as served, noindex once rendered")
            }
        }
    }
}

/// What the response said, trimmed to what the crawl database keeps.
#[derive(Debug, Clone)]
pub struct ResponseFacts {
    /// The HTTP status code.
    pub status: u16,
    /// The `Content-Type` header.
    pub content_type: Option<String>,
    /// The `Last-Modified` header, when it is a valid date not in the future.
    pub last_modified: Option<Timestamp>,
    /// The `ETag` header.
    pub etag: Option<String>,
    /// When the request was sent.
    pub fetched_at: Timestamp,
    /// How long the request took, body included.
    pub elapsed: Duration,
    /// Body bytes read (after decompression), up to the cap.
    pub body_bytes: usize,
    /// The body was longer than the cap and was cut.
    pub truncated: bool,
    /// The server answered 304 Not Modified to a conditional request: the other facts are
    /// the previous run's.
    pub revalidated: bool,
}

impl ResponseFacts {
    /// A 200 with an HTML content type: the only kind of response that can be listed.
    pub fn is_html_ok(&self) -> bool {
        self.status == 200
            && self
                .content_type
                .as_deref()
                .is_some_and(is_html_content_type)
    }

    /// A status that says the server cannot answer now, not that the page is gone: 429 Too
    /// Many Requests and every 5xx (docs/design.md, Fetching and politeness).
    pub fn failed_transiently(&self) -> bool {
        self.status == 429 || (500..600).contains(&self.status)
    }
}

/// Whether a URL goes in the sitemap, and if not, why (docs/design.md, Inclusion).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Listed.
    Indexable,
    /// Declares another in-scope URL as its canonical; that one is listed instead if it is
    /// itself indexable.
    Canonicalised {
        /// The canonical URL, normalized.
        to: Url,
    },
    /// Answered with a redirect (or an instant meta refresh) to `to`.
    Redirect {
        /// The redirect's target, normalized.
        to: Url,
    },
    /// Not listed, for this reason.
    Excluded(Exclusion),
}

impl Verdict {
    /// The URL this verdict points at, if any.
    pub fn target(&self) -> Option<&Url> {
        match self {
            Verdict::Canonicalised { to } | Verdict::Redirect { to } => Some(to),
            Verdict::Excluded(exclusion) => exclusion.target(),
            Verdict::Indexable => None,
        }
    }
}

/// Why a URL is not listed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Exclusion {
    /// robots.txt disallows it; it was not requested. The words name the rule and its line
    /// (`line 4: Disallow: /private/, in the group for "*"`), or why robots.txt disallows all.
    RobotsDisallowed(String),
    /// A `noindex` robots meta tag or `X-Robots-Tag` header.
    NoIndex,
    /// A 200 response that is not HTML.
    NotHtml,
    /// A status other than 200 (and not a redirect).
    HttpStatus(u16),
    /// No response: the request failed, for this reason.
    FetchFailed(FetchFailure),
    /// More redirects in a row than `max_redirects`.
    TooManyRedirects,
    /// A redirect to this URL, outside the scope.
    RedirectOutOfScope(Url),
    /// A redirect without a usable `Location`: the status and the header, in words.
    InvalidRedirect(String),
    /// A canonical hint to this URL, outside the scope.
    CanonicalOutOfScope(Url),
    /// Longer than `max_url_length`; never requested.
    UrlTooLong,
    /// Cut as part of a crawler trap; never requested.
    Trap(TrapKind),
    /// The crawl's request budget (`max_requests`) ran out before this URL was fetched.
    RequestBudget,
}

impl Exclusion {
    /// The out-of-scope URL this exclusion points at, if any.
    pub fn target(&self) -> Option<&Url> {
        match self {
            Exclusion::RedirectOutOfScope(to) | Exclusion::CanonicalOutOfScope(to) => Some(to),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ignored_hints_read_as_before() {
        let url = |text: &str| Url::parse(text).unwrap_or_else(|error| panic!("{text}: {error}"));
        assert_eq!(
            IgnoredHint::InvalidCanonical(vec!["ftp://e.com/x".to_string(), "y".to_string()])
                .to_string(),
            "invalid canonical: ftp://e.com/x y"
        );
        assert_eq!(
            IgnoredHint::ConflictingCanonicals(vec![
                url("https://e.com/a"),
                url("https://e.com/b")
            ])
            .to_string(),
            "conflicting canonicals: https://e.com/a https://e.com/b"
        );
    }
}
