//! Priorities, the health score and the comparison with the previous audit.

use std::collections::BTreeSet;

use sitemapper_store::RecordedFinding;

use crate::{Change, Finding, FindingKind, Priority, compare, health_score, priority};

fn finding(kind: FindingKind, url: &str) -> Finding {
    Finding {
        kind,
        url: url.to_string(),
        detail: String::new(),
        referrers: Vec::new(),
    }
}

fn urls(count: usize) -> BTreeSet<String> {
    (0..count)
        .map(|index| format!("https://e.com/{index}"))
        .collect()
}

#[test]
fn priority_comes_from_severity_and_the_share_of_urls_touched() {
    assert_eq!(priority(FindingKind::BrokenLink, 1, 1000), Priority::High);
    assert_eq!(priority(FindingKind::Slow, 99, 1000), Priority::Medium);
    assert_eq!(priority(FindingKind::Slow, 100, 1000), Priority::High);
    assert_eq!(
        priority(FindingKind::MissingDescription, 249, 1000),
        Priority::Low
    );
    assert_eq!(
        priority(FindingKind::MissingDescription, 692, 771),
        Priority::Medium
    );
    assert_eq!(priority(FindingKind::NotInSitemap, 1, 0), Priority::Medium);
}

#[test]
fn the_score_weighs_each_url_by_its_worst_finding() {
    let crawled = urls(10);
    assert_eq!(health_score(&[], &crawled), 100);
    assert_eq!(health_score(&[], &BTreeSet::new()), 100);
    // One error: 1 of 10 lost.
    assert_eq!(
        health_score(
            &[finding(FindingKind::BrokenLink, "https://e.com/0")],
            &crawled
        ),
        90
    );
    // The worst finding of a URL counts, once: an error and a notice on one URL, a warning
    // on another: (1 + 0.5) of 10.
    assert_eq!(
        health_score(
            &[
                finding(FindingKind::BrokenLink, "https://e.com/0"),
                finding(FindingKind::MissingDescription, "https://e.com/0"),
                finding(FindingKind::Slow, "https://e.com/1"),
                finding(FindingKind::Slow, "https://e.com/1"),
            ],
            &crawled
        ),
        85
    );
    // A notice on every URL: 100 - 10.
    let notices: Vec<Finding> = crawled
        .iter()
        .map(|url| finding(FindingKind::MissingDescription, url))
        .collect();
    assert_eq!(health_score(&notices, &crawled), 90);
    // A finding about a URL the crawl did not record counts that URL too: 1 of 11.
    assert_eq!(
        health_score(
            &[finding(FindingKind::SitemapOrphan, "https://e.com/orphan")],
            &crawled
        ),
        95
    );
    // One error among many URLs still shows.
    assert_eq!(
        health_score(
            &[finding(FindingKind::BrokenLink, "https://e.com/0")],
            &urls(1000)
        ),
        99
    );
    let errors: Vec<Finding> = crawled
        .iter()
        .map(|url| finding(FindingKind::BrokenLink, url))
        .collect();
    assert_eq!(health_score(&errors, &crawled), 0);
}

#[test]
fn findings_are_new_persisting_or_fixed_by_kind_and_url() {
    let recorded = |code: &str, url: &str, detail: &str| RecordedFinding {
        code: code.to_string(),
        url: url.to_string(),
        detail: detail.to_string(),
    };
    let previous = [
        recorded("slow", "https://e.com/a", "answered in 2000 ms"),
        recorded("broken-link", "https://e.com/gone", "http-404"),
        recorded("hreflang-no-return", "https://e.com/en", "de"),
        recorded("hreflang-no-return", "https://e.com/en", "fr"),
    ];
    let now = [
        Finding {
            detail: "answered in 1800 ms".to_string(),
            ..finding(FindingKind::Slow, "https://e.com/a")
        },
        finding(FindingKind::BrokenLink, "https://e.com/new"),
    ];
    let comparison = compare(&now, &previous);
    assert_eq!(comparison.changes, [Change::Persisting, Change::New]);
    assert_eq!(
        comparison.fixed,
        [
            recorded("broken-link", "https://e.com/gone", "http-404"),
            recorded("hreflang-no-return", "https://e.com/en", "de"),
        ],
        "one per kind and URL"
    );
    let first = compare(&now, &[]);
    assert_eq!(first.changes, [Change::New, Change::New]);
    assert!(first.fixed.is_empty());
}

#[test]
fn every_kind_has_a_distinct_code_and_advice() {
    let codes: BTreeSet<&str> = FindingKind::ALL.iter().map(|kind| kind.code()).collect();
    assert_eq!(codes.len(), FindingKind::ALL.len());
    for kind in FindingKind::ALL {
        assert_eq!(FindingKind::from_code(kind.code()), Some(kind));
        assert!(
            kind.why().ends_with('.') && kind.why().len() > 40,
            "{kind:?}"
        );
        assert!(
            kind.fix().ends_with('.') && kind.fix().len() > 20,
            "{kind:?}"
        );
    }
    assert_eq!(FindingKind::from_code("no-such-kind"), None);
}

#[test]
fn docs_audit_md_lists_every_kind_with_its_severity() {
    let docs = include_str!("../../../docs/audit.md");
    for kind in FindingKind::ALL {
        let row = format!("| `{}` | {} |", kind.code(), kind.severity().as_str());
        assert!(docs.contains(&row), "docs/audit.md has no row {row}");
    }
}
