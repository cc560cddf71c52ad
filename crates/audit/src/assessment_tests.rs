//! Priorities, the health score and the comparison with the previous audit.

use std::collections::BTreeSet;

use sitemapper_store::RecordedFinding;

use crate::assessment::{
    Change, Priority, audited_urls, compare, exact_score, health_score, priority, standalone_gains,
    top_actions,
};
use crate::finding::Finding;
use crate::kind::FindingKind;

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
    // on another: (1 + 0.25) of 10.
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
        87
    );
    // A notice on every URL takes nothing.
    let notices: Vec<Finding> = crawled
        .iter()
        .map(|url| finding(FindingKind::MissingDescription, url))
        .collect();
    assert_eq!(health_score(&notices, &crawled), 100);
    // A finding about a URL the crawl did not record counts that URL too: a quarter of 11.
    assert_eq!(
        health_score(
            &[finding(FindingKind::SitemapOrphan, "https://e.com/orphan")],
            &crawled
        ),
        97
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

#[test]
fn a_site_with_notices_and_a_few_warnings_scores_80_or_more() {
    // A documentation site of 100 pages: every page has notices (no description, a long
    // title), and a third show images without alt text, once per page however many images.
    let crawled = urls(100);
    let mut findings: Vec<Finding> = Vec::new();
    for (index, url) in crawled.iter().enumerate() {
        findings.push(finding(FindingKind::MissingDescription, url));
        findings.push(finding(FindingKind::TitleTooLong, url));
        if index % 3 == 0 {
            findings.push(finding(FindingKind::ImagesWithoutAlt, url));
        }
    }
    let score = health_score(&findings, &crawled);
    assert_eq!(score, 91, "34 warnings of a quarter each among 100 URLs");
    // The most warnings can take is a quarter: a warning on every URL still scores 75, so
    // "a few" (up to 80% of the URLs) keep 80.
    let everywhere: Vec<Finding> = crawled
        .iter()
        .map(|url| finding(FindingKind::ImagesWithoutAlt, url))
        .collect();
    assert_eq!(health_score(&everywhere, &crawled), 75);
    let most: Vec<Finding> = everywhere.iter().take(80).cloned().collect();
    assert_eq!(health_score(&most, &crawled), 80);
}

#[test]
fn the_top_actions_are_the_kinds_whose_fixing_raises_the_score_most() {
    let crawled = urls(20);
    let all: Vec<&String> = crawled.iter().collect();
    let mut findings = vec![
        // One broken link target, on a URL that is also slow and has no <h1>: fixing it
        // leaves a warning there (0.75 of a URL: 3.75 points of 20 URLs).
        finding(FindingKind::BrokenLink, all[0]),
        // Slow pages on six URLs, one of them also the broken one: five URLs move from a
        // quarter to nothing (6.25 points), the broken one stays an error.
        finding(FindingKind::Slow, all[0]),
    ];
    for url in &all[1..6] {
        findings.push(finding(FindingKind::Slow, url));
    }
    // Notices everywhere raise nothing when fixed.
    for url in &all {
        findings.push(finding(FindingKind::MissingDescription, url));
    }
    // A warning on a URL that also has an error raises nothing either.
    findings.push(finding(FindingKind::MissingH1, all[0]));
    let actions = sitemapper_audit_top_actions(&findings, &crawled);
    assert_eq!(
        actions,
        [
            (FindingKind::Slow, 6, 625),
            (FindingKind::BrokenLink, 1, 375),
        ]
    );
    assert!(top_actions(&[], &crawled).is_empty());
    // At most five, largest gain first.
    let many: Vec<Finding> = [
        FindingKind::BrokenLink,
        FindingKind::RedirectLoop,
        FindingKind::CanonicalLoop,
        FindingKind::SoftNotFound,
        FindingKind::CanonicalToBroken,
        FindingKind::Slow,
    ]
    .iter()
    .zip(&all)
    .map(|(kind, url)| finding(*kind, url))
    .collect();
    let actions = sitemapper_audit_top_actions(&many, &crawled);
    assert_eq!(actions.len(), 5);
    assert!(
        actions
            .iter()
            .all(|(kind, _, _)| *kind != FindingKind::Slow)
    );
}

/// [`top_actions`] as (kind, findings, gain in hundredths of a point).
fn sitemapper_audit_top_actions(
    findings: &[Finding],
    crawled: &BTreeSet<String>,
) -> Vec<(FindingKind, usize, i64)> {
    top_actions(findings, crawled)
        .into_iter()
        .map(|action| {
            (
                action.kind,
                action.findings,
                (action.gain * 100.0).round() as i64,
            )
        })
        .collect()
}

#[test]
fn checking_links_to_other_sites_can_lower_the_score_and_never_raise_it() {
    // Half the site's pages have an error: 50.
    let crawled = urls(10);
    let mut findings: Vec<Finding> = (0..5)
        .map(|index| finding(FindingKind::BrokenLink, &format!("https://e.com/{index}")))
        .collect();
    let unchecked = health_score(&findings, &crawled);
    assert_eq!(unchecked, 50);
    // A thousand broken links to other sites, from pages with an error already: the same
    // score, not one raised by a thousand URLs that are not the site's.
    let outbound = |index: usize, referrers: &[&str]| Finding {
        referrers: referrers
            .iter()
            .map(|path| format!("https://e.com/{path}"))
            .collect(),
        ..finding(
            FindingKind::OutboundBroken,
            &format!("https://other.example/{index}"),
        )
    };
    findings.extend((0..1000).map(|index| outbound(index, &["0", "1"])));
    assert_eq!(health_score(&findings, &crawled), unchecked);
    // From a clean page, one counts against it, as a warning: (5 + 0.25) of 10.
    findings.push(outbound(1000, &["9"]));
    assert_eq!(health_score(&findings, &crawled), 47);
    // Redirects and blocked checks are notices: nothing.
    findings.push(Finding {
        referrers: vec!["https://e.com/8".to_string()],
        ..finding(
            FindingKind::OutboundRedirected,
            "https://other.example/moved",
        )
    });
    assert_eq!(health_score(&findings, &crawled), 47);
    for count in [0, 1, 10, 1000] {
        let checked: Vec<Finding> = (0..count).map(|index| outbound(index, &["5"])).collect();
        let score = health_score(&[&findings[..5], &checked].concat(), &crawled);
        assert!(score <= unchecked, "{count} broken outbound links: {score}");
    }
}

#[test]
fn when_no_kind_raises_the_score_alone_the_kinds_that_do_together_come_first() {
    // Every page has two warnings of different kinds: fixing one kind alone raises nothing.
    let crawled = urls(4);
    let mut findings = Vec::new();
    for (index, url) in crawled.iter().enumerate() {
        findings.push(finding(FindingKind::NoViewport, url));
        let other = if index < 3 {
            FindingKind::MissingH1
        } else {
            FindingKind::Slow
        };
        findings.push(finding(other, url));
    }
    assert_eq!(health_score(&findings, &crawled), 75);
    let actions = top_actions(&findings, &crawled);
    let chosen: Vec<(FindingKind, usize, i64, bool)> = actions
        .iter()
        .map(|action| {
            (
                action.kind,
                action.findings,
                (action.gain * 100.0).round() as i64,
                action.with_those_before,
            )
        })
        .collect();
    // The viewport's four first (nothing alone), then the headings' three: 3 pages of 4 clean,
    // then the slow page: all clean.
    assert_eq!(
        chosen,
        [
            (FindingKind::NoViewport, 4, 0, true),
            (FindingKind::MissingH1, 3, 1875, true),
            (FindingKind::Slow, 1, 2500, true),
        ]
    );
    // Notices alone lower nothing: nothing to fix first.
    let notices = vec![finding(FindingKind::ThinPage, "https://e.com/0")];
    assert!(top_actions(&notices, &crawled).is_empty());
}

#[test]
fn the_gain_of_each_kind_in_one_pass_is_the_score_without_it() {
    let kinds = [
        FindingKind::BrokenLink,
        FindingKind::NoViewport,
        FindingKind::MissingH1,
        FindingKind::ThinPage,
        FindingKind::OutboundBroken,
        FindingKind::AiCrawlers,
    ];
    let crawled = urls(12);
    let all: Vec<&String> = crawled.iter().collect();
    let mut findings = Vec::new();
    for step in 0..40_usize {
        let kind = kinds[step * 7 % kinds.len()];
        let url = all[step * 5 % all.len()];
        let mut made = finding(kind, url);
        if kind == FindingKind::OutboundBroken {
            made.url = format!("https://other.example/{step}");
            made.referrers = vec![
                all[step % all.len()].clone(),
                all[(step + 3) % all.len()].clone(),
            ];
        }
        findings.push(made);
    }
    let audited = audited_urls(&findings, &crawled);
    let now = exact_score(&findings, audited);
    let gains = standalone_gains(&findings, audited);
    for kind in kinds {
        let without = exact_score(
            findings.iter().filter(|finding| finding.kind != kind),
            audited,
        );
        let gain = gains.get(&kind).copied().unwrap_or(0.0);
        assert!(
            (without - now - gain).abs() < 1e-9,
            "{kind:?}: {} against {gain}",
            without - now
        );
    }
}

#[test]
fn together_the_kind_at_the_worst_of_more_urls_comes_first() {
    // Three pages, two warnings each: one broken image on every page, missing viewports on
    // two and a missing heading on the third. No kind raises the score alone; the image is
    // at the worst of three pages, though it is one finding against the viewports' two.
    let crawled = urls(3);
    let pages: Vec<&String> = crawled.iter().collect();
    let image = Finding {
        referrers: pages.iter().map(|page| page.to_string()).collect(),
        ..finding(FindingKind::BrokenImage, "https://e.com/logo.png")
    };
    let findings = vec![
        image,
        finding(FindingKind::NoViewport, pages[0]),
        finding(FindingKind::NoViewport, pages[1]),
        finding(FindingKind::MissingH1, pages[2]),
    ];
    let chosen: Vec<(FindingKind, i64)> = top_actions(&findings, &crawled)
        .iter()
        .map(|action| (action.kind, (action.gain * 100.0).round() as i64))
        .collect();
    assert_eq!(
        chosen,
        [
            (FindingKind::BrokenImage, 0),
            (FindingKind::NoViewport, 1667),
            (FindingKind::MissingH1, 2500),
        ]
    );
}
