//! The on-page checks, each on a page that has the problem and one that has not; links that
//! are not navigation; hreflang alternates that are not indexable.

use sitemapper_store::{LinkKind, LinkRecord, PageDetails, PageRecord, Reason, Verdict};

use crate::tests::{audit, page};

/// A listed page with a good title, description and heading, and `details` changed by
/// `change`.
fn clean(url: &str, change: impl FnOnce(&mut PageRecord)) -> PageRecord {
    let mut page = PageRecord {
        title: Some(format!("A title of a good length for {url}")),
        details: Some(PageDetails {
            h1_count: 1,
            h1: Some("Welcome".to_string()),
            ..PageDetails::default()
        }),
        ..page(url, Verdict::Indexable)
    };
    change(&mut page);
    page
}

fn details(page: &mut PageRecord) -> &mut PageDetails {
    page.details.as_mut().unwrap()
}

/// The findings about `pages` themselves, as `(code, url, detail)`: not those that compare
/// pages (duplicates), nor those about the site (its sitemap).
fn on_page(pages: Vec<PageRecord>) -> Vec<(&'static str, String, String)> {
    audit(pages, &[])
        .into_iter()
        .filter(|(code, _, _)| !code.starts_with("duplicate-") && *code != "no-sitemap")
        .collect()
}

#[test]
fn a_clean_page_has_no_on_page_finding() {
    assert_eq!(on_page(vec![clean("https://e.com/", |_| {})]), []);
}

#[test]
fn titles_too_long_too_short_or_missing() {
    let long = "word ".repeat(13);
    let findings = on_page(vec![
        clean("https://e.com/long", |page| page.title = Some(long.clone())),
        clean("https://e.com/short", |page| {
            page.title = Some("Home".to_string())
        }),
        clean("https://e.com/none", |page| page.title = None),
        clean("https://e.com/sixty", |page| {
            page.title = Some("x".repeat(60))
        }),
        clean("https://e.com/thirty", |page| {
            page.title = Some("x".repeat(30))
        }),
    ]);
    assert_eq!(
        findings,
        [
            (
                "missing-title",
                "https://e.com/none".to_string(),
                String::new()
            ),
            (
                "title-too-long",
                "https://e.com/long".to_string(),
                format!("64 characters: {:?}", long.trim())
            ),
            (
                "title-too-short",
                "https://e.com/short".to_string(),
                "4 characters: \"Home\"".to_string()
            ),
        ]
    );
}

#[test]
fn descriptions_too_long_or_missing() {
    let findings = on_page(vec![
        clean("https://e.com/long", |page| {
            page.description = Some("é".repeat(156));
        }),
        clean("https://e.com/fits", |page| {
            page.description = Some("é".repeat(155));
        }),
        clean("https://e.com/none", |page| page.description = None),
        clean("https://e.com/blank", |page| {
            page.description = Some("   ".to_string());
        }),
    ]);
    let codes: Vec<(&str, &str)> = findings
        .iter()
        .map(|(code, url, _)| (*code, url.as_str()))
        .collect();
    assert_eq!(
        codes,
        [
            ("missing-description", "https://e.com/blank"),
            ("missing-description", "https://e.com/none"),
            ("description-too-long", "https://e.com/long"),
        ]
    );
}

#[test]
fn headings_missing_or_several() {
    let findings = on_page(vec![
        clean("https://e.com/none", |page| details(page).h1_count = 0),
        clean("https://e.com/three", |page| details(page).h1_count = 3),
        clean("https://e.com/unread", |page| page.details = None),
    ]);
    assert_eq!(
        findings,
        [
            (
                "missing-h1",
                "https://e.com/none".to_string(),
                String::new()
            ),
            (
                "multiple-h1",
                "https://e.com/three".to_string(),
                "3 <h1> elements".to_string()
            ),
        ]
    );
}

#[test]
fn images_without_alt_text_are_counted_with_examples() {
    let findings = on_page(vec![
        clean("https://e.com/gallery", |page| {
            let details = details(page);
            details.images_without_alt = 25;
            details.images_without_alt_examples =
                vec!["https://e.com/a.png".to_string(), String::new()];
        }),
        clean("https://e.com/one", |page| {
            let details = details(page);
            details.images_without_alt = 1;
            details.images_without_alt_examples = vec!["https://e.com/b.png".to_string()];
        }),
    ]);
    assert_eq!(
        findings,
        [
            (
                "images-without-alt",
                "https://e.com/gallery".to_string(),
                "25 images: https://e.com/a.png (no src) and 23 more".to_string()
            ),
            (
                "images-without-alt",
                "https://e.com/one".to_string(),
                "1 image: https://e.com/b.png".to_string()
            ),
        ]
    );
}

#[test]
fn mixed_content_is_what_an_https_page_loads_over_http_even_unlisted() {
    let findings = on_page(vec![
        clean("https://e.com/", |page| {
            details(page).insecure_resources = vec![
                "http://cdn.example.net/lib.js".to_string(),
                "http://e.com/i.png".to_string(),
            ];
        }),
        PageRecord {
            details: Some(PageDetails {
                insecure_resources: vec!["http://e.com/x.css".to_string()],
                ..PageDetails::default()
            }),
            reason: Some(Reason::NoIndex),
            ..page("https://e.com/hidden", Verdict::Excluded)
        },
    ]);
    assert_eq!(
        findings,
        [
            (
                "mixed-content",
                "https://e.com/".to_string(),
                "loads http://cdn.example.net/lib.js http://e.com/i.png".to_string()
            ),
            (
                "mixed-content",
                "https://e.com/hidden".to_string(),
                "loads http://e.com/x.css".to_string()
            ),
        ]
    );
}

#[test]
fn pages_that_say_not_found_but_answer_200_are_soft_404s() {
    let findings = on_page(vec![
        clean("https://e.com/title", |page| {
            page.title = Some("Page Not Found - Example shop".to_string());
        }),
        clean("https://e.com/heading", |page| {
            details(page).h1 = Some("Error 404".to_string());
        }),
        clean("https://e.com/gone", |page| {
            page.title = Some("Sorry, this page no longer exists today".to_string());
        }),
        clean("https://e.com/number", |page| {
            page.title = Some("Our 4040 product range and the 404s model".to_string());
        }),
    ]);
    let soft: Vec<(&str, &str)> = findings
        .iter()
        .filter(|(code, _, _)| *code == "soft-404")
        .map(|(_, url, detail)| (url.as_str(), detail.as_str()))
        .collect();
    assert_eq!(
        soft,
        [
            (
                "https://e.com/gone",
                "title \"Sorry, this page no longer exists today\""
            ),
            ("https://e.com/heading", "h1 \"Error 404\""),
            (
                "https://e.com/title",
                "title \"Page Not Found - Example shop\""
            ),
        ]
    );
}

#[test]
fn a_broken_canonical_target_is_not_also_a_broken_link_unless_a_link_leads_there() {
    let canonical = |target: &str| LinkRecord {
        target: target.to_string(),
        kind: LinkKind::Canonical,
        anchor: None,
        nofollow: false,
    };
    let anchor = |target: &str| LinkRecord {
        kind: LinkKind::Anchor,
        anchor: Some("read".to_string()),
        ..canonical(target)
    };
    let broken = |url: &str| PageRecord {
        status: Some(404),
        html_ok: false,
        reason: Some(Reason::HttpStatus(404)),
        ..page(url, Verdict::Excluded)
    };
    let findings = audit(
        vec![
            clean("https://e.com/", |page| {
                page.depth = 0;
                page.links = Some(vec![
                    anchor("https://e.com/a"),
                    anchor("https://e.com/linked"),
                ]);
            }),
            PageRecord {
                target: Some("https://e.com/gone".to_string()),
                reason: Some(Reason::BrokenCanonical),
                links: Some(vec![canonical("https://e.com/gone")]),
                ..clean("https://e.com/a", |_| {})
            },
            PageRecord {
                target: Some("https://e.com/linked".to_string()),
                reason: Some(Reason::BrokenCanonical),
                links: Some(vec![canonical("https://e.com/linked")]),
                ..clean("https://e.com/b", |_| {})
            },
            broken("https://e.com/gone"),
            broken("https://e.com/linked"),
        ],
        &[],
    );
    let codes: Vec<(&str, &str)> = findings
        .iter()
        .filter(|(code, _, _)| code.contains("broken"))
        .map(|(code, url, _)| (*code, url.as_str()))
        .collect();
    assert_eq!(
        codes,
        [
            ("broken-link", "https://e.com/linked"),
            ("canonical-to-broken", "https://e.com/a"),
            ("canonical-to-broken", "https://e.com/b"),
        ]
    );
}

#[test]
fn hreflang_alternates_that_are_not_indexable() {
    let alternates = |pairs: &[(&str, &str)]| {
        Some(
            pairs
                .iter()
                .map(|(hreflang, href)| (hreflang.to_string(), href.to_string()))
                .collect(),
        )
    };
    let findings = audit(
        vec![
            PageRecord {
                alternates: alternates(&[("de", "https://e.com/de/"), ("fr", "https://e.com/fr/")]),
                ..clean("https://e.com/en/", |_| {})
            },
            PageRecord {
                alternates: alternates(&[("en", "https://e.com/en/")]),
                reason: Some(Reason::NoIndex),
                ..page("https://e.com/de/", Verdict::Excluded)
            },
            PageRecord {
                alternates: alternates(&[("en", "https://e.com/en/")]),
                ..clean("https://e.com/fr/", |_| {})
            },
        ],
        &[],
    );
    let found: Vec<(&str, &str, &str)> = findings
        .iter()
        .filter(|(code, _, _)| *code == "hreflang-to-non-indexable")
        .map(|(code, url, detail)| (*code, url.as_str(), detail.as_str()))
        .collect();
    assert_eq!(
        found,
        [(
            "hreflang-to-non-indexable",
            "https://e.com/en/",
            "hreflang de points to https://e.com/de/ (excluded: noindex)"
        )]
    );
}
