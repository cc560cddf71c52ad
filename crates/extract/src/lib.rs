//! Extraction: one fetched document and its headers in, the facts the crawler needs out
//! (links, canonical hints, robots directives, base, instant refresh, title, and the values
//! of the user's custom extractions). Pure and synchronous: no network, no async, no logging.
//!
//! # Example
//!
//! A page as fetched, with the URL it came from (relative links resolve against it) and the
//! headers extraction reads: the links come out absolute and without fragment, in document
//! order (a `mailto:` is no page to crawl), the canonical resolved, and the robots directives
//! of the page and its headers together.
//!
//! ```
//! use sitemapper_extract::{Document, ExtractOptions, ResponseHeaders, extract};
//! use url::Url;
//!
//! let url = Url::parse("https://example.com/blog/?utm_source=feed")?;
//! let body = br#"<html><head><link rel="canonical" href="/blog/"></head><body>
//!     <a href="first-post">First</a> <a href="/about#team">About</a>
//!     <a href="mailto:editor@example.com">Write to us</a></body></html>"#;
//! let headers = ResponseHeaders {
//!     content_type: Some("text/html; charset=utf-8".to_string()),
//!     x_robots_tag: vec!["nofollow".to_string()],
//!     ..ResponseHeaders::default()
//! };
//! let document = Document { url: &url, body, headers: &headers };
//! let facts = extract(&document, &ExtractOptions::default());
//!
//! let links: Vec<&str> = facts.links.iter().map(|link| link.url.as_str()).collect();
//! assert_eq!(links, ["https://example.com/blog/first-post", "https://example.com/about"]);
//! assert_eq!(facts.canonicals, [Url::parse("https://example.com/blog/")?]);
//! assert!(facts.robots.nofollow && !facts.robots.noindex);
//! # Ok::<(), url::ParseError>(())
//! ```

mod address;
mod canonical;
mod charset;
mod custom;
mod directives;
mod document;
mod facts;
mod fingerprint;
mod images;
mod media;
mod news;
mod refresh;
mod signals;
mod structured;
mod tokens;
mod tree;
mod words;

use url::Url;

pub use custom::{
    CustomExtraction, ExtractedValues, InvalidExtraction, MAX_VALUE_CHARS,
    MAX_VALUES_PER_EXTRACTION,
};
pub use directives::RobotsDirectives;
pub use facts::{
    Document, ExtractOptions, HintSources, Link, LinkKind, MAX_DETAIL_EXAMPLES, MAX_HASH_ROUTES,
    MAX_IMAGES_PER_PAGE, MAX_SCRIPT_NAMES, PageDetails, PageFacts, ResponseHeaders, ShellSignals,
    Unfinished,
};
pub use fingerprint::{FINGERPRINT_VERSION, LEGACY_FINGERPRINT_VERSION, looks_like_a_token};
pub use media::{
    IncompleteVideo, PageVideos, Video, VideoField, VideoOrigin, duration_seconds, page_videos,
    parse_time,
};
pub use news::{
    ARTICLE_TYPES, NEWS_CLOCK_TOLERANCE, NEWS_WINDOW, NewsArticle, NewsDecision, news_article,
    news_language,
};
pub use signals::{Examples, MAX_SIGNAL_EXAMPLES, PageSignals, SecurityHeaders};
pub use structured::{
    Item, JsonLdError, MAX_STRUCTURED_BYTES, Source, StructuredData, Value, VideoElement,
    absolute_http_url,
};
pub use tree::{CutReason, MAX_TREE_DEPTH, MAX_TREE_WORK, TreeCut};

/// Extracts the facts of an HTML document.
pub fn extract(document: &Document<'_>, options: &ExtractOptions) -> PageFacts {
    extract_by(document, options, tokens::read)
}

fn extract_by(
    document: &Document<'_>,
    options: &ExtractOptions,
    tokenize: document::Tokenize,
) -> PageFacts {
    let mut facts = extract_headers(document.url, document.headers, options);
    document::read_html(document, options, &mut facts, tokenize);
    if !options.custom.is_empty() {
        facts.extracted = custom::extract_values(
            document.body,
            document.headers.content_type.as_deref(),
            &options.custom,
        );
    }
    facts
}

/// Extracts what the headers alone say: for responses whose body is not parsed (a PDF, an
/// office file), canonical `Link` headers and `X-Robots-Tag` still count.
pub fn extract_headers(
    url: &Url,
    headers: &ResponseHeaders,
    options: &ExtractOptions,
) -> PageFacts {
    let mut facts = PageFacts {
        encoding: encoding_rs::UTF_8.name(),
        ..PageFacts::default()
    };
    for value in &headers.link {
        for target in canonical::canonical_targets_in_link_header(value) {
            canonical::add_candidate(&mut facts, url.join(&target).ok(), &target);
        }
    }
    for value in &headers.link {
        for (hreflang, target) in canonical::alternates_in_link_header(value) {
            if let Some(url) = address::resolve(url, &target, encoding_rs::UTF_8) {
                let alternate = (hreflang, url);
                if !facts.alternates.contains(&alternate) {
                    facts.alternates.push(alternate);
                }
            }
        }
    }
    facts.hint_sources.header_canonicals = facts.canonicals.len();
    for value in &headers.x_robots_tag {
        let directives = directives::parse_x_robots_tag(value, &options.robots_token);
        facts.hint_sources.noindex_in_header |= directives.noindex;
        facts.robots.merge(directives);
    }
    facts
}

#[cfg(test)]
mod differential;
#[cfg(test)]
mod tests;
