//! The inclusion rules (docs/design.md, Inclusion): from a response and its page facts to a verdict.

use sitemapper_extract::PageFacts;
use url::Url;

use crate::event::{Exclusion, HintOrigins, IgnoredHint, ResponseFacts, Verdict};
use crate::normalize::UrlNormalizer;
use crate::scope::Scope;

/// A verdict and what goes with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Classification {
    pub verdict: Verdict,
    /// The page's one distinct canonical hint, normalized (recorded whether honoured or not).
    pub canonical: Option<Url>,
    /// Whether the page's links are followed (not for nofollow pages, nor error pages).
    pub follow_links: bool,
    /// Canonical hints that were ignored, and why: not http(s) URLs, or conflicting targets.
    pub ignored_hints: Vec<IgnoredHint>,
}

/// Classifies the final (non-redirect) response for `page_url`, already normalized.
pub(crate) fn classify(
    page_url: &Url,
    response: &ResponseFacts,
    facts: Option<&PageFacts>,
    scope: &Scope,
    normalizer: &UrlNormalizer,
) -> Classification {
    let excluded = |exclusion| Classification {
        verdict: Verdict::Excluded(exclusion),
        canonical: None,
        follow_links: false,
        ignored_hints: Vec::new(),
    };
    if response.status != 200 {
        return excluded(Exclusion::HttpStatus(response.status));
    }
    let Some(facts) = facts.filter(|_| response.is_html_ok()) else {
        return excluded(Exclusion::NotHtml);
    };
    let follow_links = !facts.robots.nofollow;
    let (canonical, ignored_hints) = distinct_canonical(facts, normalizer);
    let verdict = if let Some(target) = instant_refresh_target(page_url, facts, normalizer) {
        Verdict::Redirect { to: target }
    } else if facts.robots.noindex {
        Verdict::Excluded(Exclusion::NoIndex)
    } else {
        canonical_verdict(page_url, canonical.as_ref(), scope)
    };
    Classification {
        verdict,
        canonical,
        follow_links,
        ignored_hints,
    }
}

/// The verdict on a page that may be listed, from its distinct canonical hint: listed as
/// itself without one (or with one naming it), else canonicalised to an in-scope target.
pub(crate) fn canonical_verdict(page_url: &Url, canonical: Option<&Url>, scope: &Scope) -> Verdict {
    match canonical {
        None => Verdict::Indexable,
        Some(target) if target == page_url => Verdict::Indexable,
        Some(target) if scope.contains(target) => Verdict::Canonicalised { to: target.clone() },
        Some(target) => Verdict::Excluded(Exclusion::CanonicalOutOfScope(target.clone())),
    }
}

/// The canonical target when the page names exactly one after normalization; conflicting
/// hints are ignored, and the page is its own canonical. Also says which hints were ignored.
pub(crate) fn distinct_canonical(
    facts: &PageFacts,
    normalizer: &UrlNormalizer,
) -> (Option<Url>, Vec<IgnoredHint>) {
    let mut targets: Vec<Url> = facts
        .canonicals
        .iter()
        .filter_map(|candidate| normalizer.normalize(candidate))
        .collect();
    targets.sort();
    targets.dedup();
    let mut ignored = Vec::new();
    if !facts.invalid_canonicals.is_empty() {
        ignored.push(IgnoredHint::InvalidCanonical(
            facts.invalid_canonicals.clone(),
        ));
    }
    let canonical = if targets.len() > 1 {
        ignored.push(IgnoredHint::ConflictingCanonicals(targets));
        None
    } else {
        targets.pop()
    };
    (canonical, ignored)
}

/// Where the page's `canonical` (as the classification chose it) and its noindex were found.
pub(crate) fn hint_origins(
    facts: &PageFacts,
    canonical: Option<&Url>,
    normalizer: &UrlNormalizer,
) -> HintOrigins {
    let sources = facts.hint_sources;
    let names = |candidates: &[Url]| {
        canonical.is_some_and(|canonical| {
            candidates
                .iter()
                .any(|candidate| normalizer.normalize(candidate).as_ref() == Some(canonical))
        })
    };
    let (in_header, in_html) = facts
        .canonicals
        .split_at(sources.header_canonicals.min(facts.canonicals.len()));
    HintOrigins {
        canonical_in_header: names(in_header),
        canonical_in_html: names(in_html),
        noindex_in_header: sources.noindex_in_header,
        noindex_in_meta: sources.noindex_in_meta,
    }
}

/// An instant meta refresh to another URL acts as a redirect.
fn instant_refresh_target(
    page_url: &Url,
    facts: &PageFacts,
    normalizer: &UrlNormalizer,
) -> Option<Url> {
    let target = normalizer.normalize(facts.refresh.as_ref()?)?;
    (target != *page_url).then_some(target)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::normalize::DEFAULT_STRIP_PARAMETERS;
    use crate::scope::ScopeOptions;
    use jiff::Timestamp;
    use sitemapper_extract::RobotsDirectives;
    use std::time::Duration;

    pub(crate) fn url(text: &str) -> Url {
        Url::parse(text).unwrap_or_else(|error| panic!("{text}: {error}"))
    }

    pub(crate) fn response(status: u16, content_type: &str) -> ResponseFacts {
        ResponseFacts {
            status,
            content_type: Some(content_type.to_string()),
            last_modified: None,
            etag: None,
            fetched_at: Timestamp::UNIX_EPOCH,
            elapsed: Duration::ZERO,
            body_bytes: 0,
            truncated: false,
            revalidated: false,
        }
    }

    fn verdict(status: u16, content_type: &str, facts: &PageFacts) -> Verdict {
        let scope = Scope::from_seed(&url("https://e.com/"), &ScopeOptions::default());
        let normalizer = UrlNormalizer::new(DEFAULT_STRIP_PARAMETERS);
        classify(
            &url("https://e.com/page"),
            &response(status, content_type),
            Some(facts),
            &scope,
            &normalizer,
        )
        .verdict
    }

    fn with_canonicals(targets: &[&str]) -> PageFacts {
        PageFacts {
            canonicals: targets.iter().map(|target| url(target)).collect(),
            ..PageFacts::default()
        }
    }

    #[test]
    fn only_200_html_can_be_listed() {
        let facts = PageFacts::default();
        assert_eq!(verdict(200, "text/html", &facts), Verdict::Indexable);
        assert_eq!(
            verdict(200, "Application/XHTML+XML; charset=utf-8", &facts),
            Verdict::Indexable
        );
        assert_eq!(
            verdict(200, "application/pdf", &facts),
            Verdict::Excluded(Exclusion::NotHtml)
        );
        for status in [204, 404, 410, 500] {
            assert_eq!(
                verdict(status, "text/html", &facts),
                Verdict::Excluded(Exclusion::HttpStatus(status))
            );
        }
    }

    #[test]
    fn noindex_excludes() {
        let facts = PageFacts {
            robots: RobotsDirectives {
                noindex: true,
                nofollow: false,
            },
            ..PageFacts::default()
        };
        assert_eq!(
            verdict(200, "text/html", &facts),
            Verdict::Excluded(Exclusion::NoIndex)
        );
    }

    #[test]
    fn the_canonical_is_said_to_come_from_where_it_was_written() {
        let normalizer = UrlNormalizer::new(DEFAULT_STRIP_PARAMETERS);
        let facts = PageFacts {
            canonicals: vec![url("https://E.com/a"), url("https://e.com/a?utm_source=x")],
            hint_sources: sitemapper_extract::HintSources {
                header_canonicals: 1,
                noindex_in_header: true,
                noindex_in_meta: false,
            },
            ..PageFacts::default()
        };
        let origins = hint_origins(&facts, Some(&url("https://e.com/a")), &normalizer);
        assert_eq!(
            origins,
            HintOrigins {
                canonical_in_header: true,
                canonical_in_html: true,
                noindex_in_header: true,
                noindex_in_meta: false,
            }
        );
        let none = hint_origins(&facts, None, &normalizer);
        assert!(!none.canonical_in_header && !none.canonical_in_html);
    }

    #[test]
    fn canonicals() {
        assert_eq!(
            verdict(200, "text/html", &with_canonicals(&["https://e.com/page"])),
            Verdict::Indexable
        );
        assert_eq!(
            verdict(
                200,
                "text/html",
                &with_canonicals(&["https://E.com/page#x"])
            ),
            Verdict::Indexable
        );
        assert_eq!(
            verdict(200, "text/html", &with_canonicals(&["https://e.com/other"])),
            Verdict::Canonicalised {
                to: url("https://e.com/other")
            }
        );
        assert_eq!(
            verdict(
                200,
                "text/html",
                &with_canonicals(&["https://other.com/page"])
            ),
            Verdict::Excluded(Exclusion::CanonicalOutOfScope(url(
                "https://other.com/page"
            )))
        );
        assert_eq!(
            verdict(
                200,
                "text/html",
                &with_canonicals(&["https://e.com/a", "https://e.com/b"])
            ),
            Verdict::Indexable,
            "conflicting canonicals are ignored"
        );
        assert_eq!(
            verdict(
                200,
                "text/html",
                &with_canonicals(&["https://e.com/a", "https://e.com/a?utm_source=x"])
            ),
            Verdict::Canonicalised {
                to: url("https://e.com/a")
            },
            "one distinct target after normalization"
        );
    }

    #[test]
    fn ignored_hints_invalid_first_then_conflicting_targets_sorted() {
        let facts = PageFacts {
            canonicals: vec![url("https://e.com/b"), url("https://e.com/a")],
            invalid_canonicals: vec!["ftp://e.com/x".to_string(), "mailto:y".to_string()],
            ..PageFacts::default()
        };
        let scope = Scope::from_seed(&url("https://e.com/"), &ScopeOptions::default());
        let normalizer = UrlNormalizer::new(DEFAULT_STRIP_PARAMETERS);
        let classification = classify(
            &url("https://e.com/page"),
            &response(200, "text/html"),
            Some(&facts),
            &scope,
            &normalizer,
        );
        assert_eq!(
            classification.ignored_hints,
            vec![
                IgnoredHint::InvalidCanonical(vec![
                    "ftp://e.com/x".to_string(),
                    "mailto:y".to_string()
                ]),
                IgnoredHint::ConflictingCanonicals(vec![
                    url("https://e.com/a"),
                    url("https://e.com/b")
                ]),
            ]
        );
        assert_eq!(classification.canonical, None);
    }

    #[test]
    fn instant_refresh_is_a_redirect() {
        let facts = PageFacts {
            refresh: Some(url("https://e.com/next")),
            ..PageFacts::default()
        };
        assert_eq!(
            verdict(200, "text/html", &facts),
            Verdict::Redirect {
                to: url("https://e.com/next")
            }
        );
    }
}
