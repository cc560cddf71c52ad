//! The vocabulary of extraction: a document as fetched and the options it is read with, in;
//! the facts read from it, out. Types only: the reading is elsewhere.

use std::collections::HashMap;

use url::Url;

use crate::custom::{CustomExtraction, ExtractedValues};
use crate::directives::RobotsDirectives;
use crate::signals::{PageSignals, SecurityHeaders};
use crate::structured::StructuredData;

/// The response headers extraction reads.
#[derive(Debug, Clone, Default)]
pub struct ResponseHeaders {
    /// The `Content-Type` value, e.g. `text/html; charset=Shift_JIS`.
    pub content_type: Option<String>,
    /// Every `Link` header value as received (each may hold a comma-separated list).
    pub link: Vec<String>,
    /// Every `X-Robots-Tag` header value.
    pub x_robots_tag: Vec<String>,
    /// The security headers (an audit's checks read them).
    pub security: SecurityHeaders,
}

/// One fetched document.
#[derive(Debug, Clone, Copy)]
pub struct Document<'a> {
    /// The URL it was fetched from: relative links resolve against it (or its `<base>`).
    pub url: &'a Url,
    /// The body as received (decompressed), in whatever encoding it declares.
    pub body: &'a [u8],
    /// The response headers extraction reads.
    pub headers: &'a ResponseHeaders,
}

/// How extraction reads a document: whose robots directives apply, and whether to fingerprint.
#[derive(Debug, Clone)]
pub struct ExtractOptions {
    /// Our product token: `<meta name="TOKEN">` and `X-Robots-Tag: TOKEN: ...` address us.
    pub robots_token: String,
    /// Compute [`PageFacts::fingerprint`] (only worth its cost when history is kept).
    pub fingerprint: bool,
    /// Compute [`PageFacts::legacy_fingerprint`], to compare with a fingerprint an earlier
    /// release stored. The page is then read by html5ever's tokenizer, which costs about 1.7
    /// times the instructions of html5gum's reading, the one of every other page.
    pub legacy_fingerprint: bool,
    /// Read [`PageFacts::details`]: what only an audit needs.
    pub details: bool,
    /// The user's custom extractions, in the order given (see [`PageFacts::extracted`]).
    pub custom: Vec<CustomExtraction>,
    /// Read [`PageFacts::structured`]: for an audit, and for video and news entries.
    pub structured: bool,
}

impl Default for ExtractOptions {
    fn default() -> Self {
        ExtractOptions {
            robots_token: "sitemapper".to_string(),
            fingerprint: true,
            legacy_fingerprint: false,
            details: false,
            custom: Vec::new(),
            structured: false,
        }
    }
}

/// What a document says about itself and where it links.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PageFacts {
    /// Absolute http(s) links without fragment, in document order, exact duplicates removed.
    pub links: Vec<Link>,
    /// Canonical candidates, resolved, without fragment: `Link` headers first, then
    /// `<link rel=canonical>` in the head. Duplicates removed; the crawler normalizes them and
    /// decides between one distinct target and conflicting ones.
    pub canonicals: Vec<Url>,
    /// Canonical hints that are not http(s) URLs, as written.
    pub invalid_canonicals: Vec<String>,
    /// The robots directives that apply to us, from `<meta>` and `X-Robots-Tag` together.
    pub robots: RobotsDirectives,
    /// The effective `<base href>`, resolved against the document URL.
    pub base: Option<Url>,
    /// The target of an instant (delay 0) meta refresh.
    pub refresh: Option<Url>,
    /// The first `<title>`'s text, whitespace collapsed; `None` when absent or empty.
    pub title: Option<String>,
    /// The `<meta name="description">` content, whitespace collapsed.
    pub description: Option<String>,
    /// The images the page shows in its body, absolute, deduplicated, at most
    /// [`MAX_IMAGES_PER_PAGE`]: `<img src>` (or its lazy `data-src`), the largest `srcset`
    /// candidate, `<picture><source srcset>`. data: URIs and declared 1x1 pixels are skipped.
    pub images: Vec<Url>,
    /// `(hreflang, URL)` alternates from `<link rel=alternate hreflang>` and `Link` headers.
    pub alternates: Vec<(String, Url)>,
    /// The encoding the document was decoded with.
    pub encoding: &'static str,
    /// A stable fingerprint of the visible text and links (16 hex digits), of version
    /// [`FINGERPRINT_VERSION`](crate::FINGERPRINT_VERSION): it changes when a reader would see a change, not when
    /// scripts, tokens or whitespace do.
    pub fingerprint: Option<String>,
    /// The same page's fingerprint as releases before [`FINGERPRINT_VERSION`](crate::FINGERPRINT_VERSION) computed it
    /// (version [`LEGACY_FINGERPRINT_VERSION`](crate::LEGACY_FINGERPRINT_VERSION)), when [`ExtractOptions::legacy_fingerprint`]:
    /// what a fingerprint they stored is compared with.
    pub legacy_fingerprint: Option<String>,
    /// What says the document is an application shell that scripts fill in.
    pub shell: ShellSignals,
    /// Routes of a client-side hash router linked to (`#/about`, `#!/about`), as written,
    /// deduplicated, at most [`MAX_HASH_ROUTES`]: what follows `#` never reaches a server,
    /// so they are not URLs a sitemap can list.
    pub hash_routes: Vec<String>,
    /// What only an audit reads, when [`ExtractOptions::details`].
    pub details: Option<PageDetails>,
    /// The values of [`ExtractOptions::custom`], one entry per extraction in its order; empty
    /// when none is asked for (the document is then not parsed into a tree).
    pub extracted: Vec<ExtractedValues>,
    /// The page's structured data, when [`ExtractOptions::structured`].
    pub structured: Option<StructuredData>,
    /// Where the canonical and robots hints were found: what `explain` tells of a page.
    pub hint_sources: HintSources,
}

/// Where a page's hints were found, headers or HTML.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct HintSources {
    /// How many of the first [`PageFacts::canonicals`] came from `Link` headers (the rest
    /// from `<link rel=canonical>`).
    pub header_canonicals: usize,
    /// An `X-Robots-Tag` header addressed to us says `noindex`.
    pub noindex_in_header: bool,
    /// A robots `<meta>` addressed to us says `noindex`.
    pub noindex_in_meta: bool,
}

/// What a page says that only an audit reads: link texts, headings, language, images
/// without alt text, and what it loads over plain http.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PageDetails {
    /// The text of the first `<a>` (or the `alt` of an `<area>`) linking to each URL of
    /// [`PageFacts::links`] that has one, whitespace collapsed, at most 200 characters; an
    /// image's `alt` counts as text of the link around it.
    pub anchors: HashMap<Url, String>,
    /// `<h1>` elements.
    pub h1_count: u32,
    /// The first `<h1>`'s text, whitespace collapsed, at most 200 characters.
    pub h1: Option<String>,
    /// `<html lang>`, as written.
    pub lang: Option<String>,
    /// `<img>` elements of the body without an `alt` attribute (`alt=""` marks an image as
    /// decorative and is fine).
    pub images_without_alt: u32,
    /// The first [`MAX_DETAIL_EXAMPLES`] of them, resolved (as written when they do not
    /// resolve; "" for an image without `src`).
    pub images_without_alt_examples: Vec<String>,
    /// On an https page, what it loads over plain http (images, scripts, style sheets,
    /// frames, media): at most [`MAX_DETAIL_EXAMPLES`], deduplicated.
    pub insecure_resources: Vec<Url>,
    /// Words of the visible text: runs between whitespace that hold a letter or digit, each
    /// Chinese or Japanese character one word (the module `words` says why).
    pub word_count: u32,
    /// What the audit's checks of accessibility, phones, sharing, security and weight read.
    pub signals: PageSignals,
}

/// At most this many examples of images without alt text and insecure resources are kept.
pub const MAX_DETAIL_EXAMPLES: usize = 20;

/// The signs that a document is an application shell, which only shows the page once its
/// scripts have run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ShellSignals {
    /// Scripts that run (`<script>` without a type, a JavaScript type or `module`).
    pub scripts: u32,
    /// The file names of the scripts that run and are loaded from a file (the last segment
    /// of `src`, without query or fragment), in document order, at most
    /// [`MAX_SCRIPT_NAMES`]: pages made from one template load the same ones, wherever
    /// they stand in the site.
    pub script_names: Vec<String>,
    /// The first empty mount element of the body, as written: an element whose id is one
    /// frameworks mount into (`<div id="root">`, `<div id="app">`, `<div id="__next">`), an
    /// empty custom element (`<app-root>`), or an empty `<nav>` (a menu a script draws).
    pub empty_mount: Option<String>,
    /// A `<noscript>` whose text speaks of JavaScript ("You need to enable JavaScript").
    pub noscript_asks_for_javascript: bool,
    /// The first sign in the body that the page is not finished until a script has run.
    pub unfinished: Option<Unfinished>,
}

/// A sign in a page's HTML that a script still has to fill it: what the page shows before
/// its script has run (docs/rendering.md, "Pages that show they are unfinished").
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unfinished {
    /// A short text that says the page is loading: `Loading…`, `Loading tags...`.
    Loading(String),
    /// An element marked busy (`aria-busy="true"`), as written: `<section aria-busy="true">`.
    Busy(String),
    /// A list with no item at all, as written (`<ul id="tags">`): a script fills it. A list
    /// whose id or class names a search is left out: a query fills it, not the page loading.
    EmptyList(String),
}

impl std::fmt::Display for Unfinished {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unfinished::Loading(text) => write!(formatter, "the text {text:?}"),
            Unfinished::Busy(element) => write!(formatter, "a busy {element}"),
            Unfinished::EmptyList(element) => write!(formatter, "an empty {element}"),
        }
    }
}

/// At most this many script file names are kept per page.
pub const MAX_SCRIPT_NAMES: usize = 32;

/// At most this many hash routes are kept per page.
pub const MAX_HASH_ROUTES: usize = 100;

/// One link of a document, resolved.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Link {
    /// Where it leads: absolute http(s), without fragment.
    pub url: Url,
    /// The element it comes from.
    pub kind: LinkKind,
    /// The element's rel holds `nofollow` (informational: such links are still followed).
    pub nofollow: bool,
}

/// The element a link comes from.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum LinkKind {
    /// `<a href>`.
    Anchor,
    /// `<area href>` of an image map.
    Area,
    /// `<link rel=alternate hreflang>`: the page in another language.
    Alternate {
        /// The language (and region) of the alternate page, as written.
        hreflang: String,
    },
    /// `<iframe src>` or `<frame src>`.
    Frame,
    /// The target of an instant `<meta http-equiv=refresh>`.
    Refresh,
}

/// The image sitemap extension allows at most this many images per page.
pub const MAX_IMAGES_PER_PAGE: usize = 1000;
