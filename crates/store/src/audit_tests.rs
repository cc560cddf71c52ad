//! Tests of what the audit keeps: typed links, page details, audits and their findings.

use crate::tests::{open, page};
use crate::*;

fn link(target: &str, kind: LinkKind, anchor: Option<&str>) -> LinkRecord {
    LinkRecord {
        target: target.to_string(),
        kind,
        anchor: anchor.map(String::from),
        nofollow: false,
    }
}

#[test]
fn a_sitemap_s_entries_are_replaced_per_sitemap_and_lead_no_referrer() {
    let (_directory, mut store) = open();
    let run = store.begin_run("https://e.com/").unwrap();
    let sitemap = "https://e.com/sitemap.xml";
    let targets = |urls: &[&str]| -> Vec<String> { urls.iter().map(ToString::to_string).collect() };
    store
        .record_sitemap_links(sitemap, &targets(&["https://e.com/old", "https://e.com/a"]))
        .unwrap();
    store
        .record_sitemap_links(sitemap, &targets(&["https://e.com/a"]))
        .unwrap();
    // The sitemap is also linked as a page (not HTML, so with no links of its own).
    let as_a_page = PageRecord {
        links: Some(Vec::new()),
        ..page(sitemap, Verdict::Excluded)
    };
    let linked = PageRecord {
        depth: 2,
        ..page("https://e.com/a", Verdict::Indexable)
    };
    store.record_pages(run, &[as_a_page, linked]).unwrap();
    assert_eq!(
        store.links_of(sitemap).unwrap(),
        [link("https://e.com/a", LinkKind::Sitemap, None)]
    );
    assert!(store.referrers(run, "https://e.com/a").unwrap().is_empty());
    assert!(!store.is_reached_by_links(run, "https://e.com/a").unwrap());
    assert_eq!(store.listed_only_from_sitemaps(run).unwrap(), 1);

    let home = PageRecord {
        depth: 0,
        links: Some(vec![link("https://e.com/a", LinkKind::Anchor, None)]),
        ..page("https://e.com/", Verdict::Indexable)
    };
    store.record_pages(run, &[home]).unwrap();
    assert!(store.is_reached_by_links(run, "https://e.com/a").unwrap());
    assert!(
        store.is_reached_by_links(run, "https://e.com/").unwrap(),
        "the seed"
    );
    assert_eq!(store.listed_only_from_sitemaps(run).unwrap(), 0);
}

#[test]
fn typed_links_are_replaced_per_page_kept_when_not_given_and_filtered_for_referrers() {
    let (_directory, mut store) = open();
    let run = store.begin_run("https://e.com/").unwrap();
    let with_links = |links: Option<Vec<LinkRecord>>| PageRecord {
        links,
        ..page("https://e.com/", Verdict::Indexable)
    };
    store
        .record_pages(
            run,
            &[with_links(Some(vec![
                link("https://e.com/a", LinkKind::Anchor, Some("A")),
                link("https://e.com/b", LinkKind::Anchor, None),
            ]))],
        )
        .unwrap();
    store
        .record_pages(
            run,
            &[with_links(Some(vec![
                link("https://e.com/c", LinkKind::Anchor, Some("first text")),
                link("https://e.com/c", LinkKind::Anchor, Some("second text")),
                link("https://e.com/c", LinkKind::Canonical, None),
                link("https://e.com/logo.png", LinkKind::Image, None),
            ]))],
        )
        .unwrap();
    assert_eq!(
        store.links_of("https://e.com/").unwrap(),
        [
            link("https://e.com/c", LinkKind::Anchor, Some("first text")),
            link("https://e.com/c", LinkKind::Canonical, None),
            link("https://e.com/logo.png", LinkKind::Image, None),
        ]
    );
    store.record_pages(run, &[with_links(None)]).unwrap();
    assert_eq!(store.links_of("https://e.com/").unwrap().len(), 3);

    // Only links a visitor follows make a page a referrer.
    let canonical_only = PageRecord {
        links: Some(vec![link(
            "https://e.com/target",
            LinkKind::Canonical,
            None,
        )]),
        ..page("https://e.com/copy", Verdict::Canonicalised)
    };
    let redirect = PageRecord {
        links: Some(vec![link("https://e.com/target", LinkKind::Redirect, None)]),
        ..page("https://e.com/old", Verdict::Redirect)
    };
    let anchor = PageRecord {
        links: Some(vec![link("https://e.com/target", LinkKind::Anchor, None)]),
        ..page("https://e.com/menu", Verdict::Indexable)
    };
    store
        .record_pages(run, &[canonical_only, redirect, anchor])
        .unwrap();
    assert_eq!(
        store.referrers(run, "https://e.com/target").unwrap(),
        ["https://e.com/menu"]
    );
    assert!(
        store
            .is_redirect_target(run, "https://e.com/target")
            .unwrap()
    );
    assert!(!store.is_redirect_target(run, "https://e.com/c").unwrap());
    let mut graph = Vec::new();
    store
        .for_each_link(run, |link| -> Result<(), StoreError> {
            graph.push((
                link.source.to_string(),
                link.target.to_string(),
                link.kind.code(),
                link.anchor.map(String::from),
            ));
            Ok(())
        })
        .unwrap();
    assert_eq!(graph.len(), 6, "{graph:?}");
    assert_eq!(
        graph[0],
        (
            "https://e.com/".to_string(),
            "https://e.com/c".to_string(),
            "a",
            Some("first text".to_string())
        )
    );
}

#[test]
fn page_details_are_kept_across_a_revalidation_and_read_back() {
    let (_directory, mut store) = open();
    let run = store.begin_run("https://e.com/").unwrap();
    let details = PageDetails {
        h1_count: 2,
        h1: Some("Welcome".to_string()),
        lang: Some("en".to_string()),
        images_without_alt: 3,
        images_without_alt_examples: vec!["https://e.com/a.png".to_string(), String::new()],
        insecure_resources: vec!["http://e.com/s.js".to_string()],
        word_count: Some(412),
        signals: Some("{\"doctype\":true}".to_string()),
    };
    store
        .record_pages(
            run,
            &[PageRecord {
                details: Some(details.clone()),
                ..page("https://e.com/", Verdict::Indexable)
            }],
        )
        .unwrap();
    assert_eq!(
        store.page("https://e.com/").unwrap().unwrap().details,
        Some(details.clone())
    );
    let second = store.begin_run("https://e.com/").unwrap();
    store
        .record_pages(
            second,
            &[PageRecord {
                revalidated: true,
                ..page("https://e.com/", Verdict::Indexable)
            }],
        )
        .unwrap();
    assert_eq!(
        store.page("https://e.com/").unwrap().unwrap().details,
        Some(details),
        "a 304 keeps what the page said"
    );
    store
        .record_pages(second, &[page("https://e.com/", Verdict::Indexable)])
        .unwrap();
    assert_eq!(store.page("https://e.com/").unwrap().unwrap().details, None);
}

#[test]
fn audits_keep_their_score_and_the_findings_of_the_last_ones() {
    let (_directory, mut store) = open();
    let finding = |code: &str, url: &str| RecordedFinding {
        code: code.to_string(),
        url: url.to_string(),
        detail: String::new(),
    };
    let mut runs = Vec::new();
    for score in 0..12 {
        let run = store.begin_run("https://e.com/").unwrap();
        assert_eq!(
            store.previous_audit(run).unwrap().map(|audit| audit.run),
            runs.last().copied()
        );
        store
            .record_audit(run, score, &[finding("broken-link", "https://e.com/x")])
            .unwrap();
        runs.push(run);
    }
    // Recording the same run again replaces it.
    let last = *runs.last().unwrap();
    store
        .record_audit(last, 99, &[finding("slow", "https://e.com/y")])
        .unwrap();
    let audits = store.audits().unwrap();
    assert_eq!(audits.len(), 12);
    assert_eq!(
        audits.iter().map(|audit| audit.score).collect::<Vec<_>>(),
        [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 99]
    );
    assert_eq!(
        store.audit_findings(last).unwrap(),
        [finding("slow", "https://e.com/y")]
    );
    // Twelve audits, the findings of the last ten kept.
    assert_eq!(store.audit_findings(runs[1]).unwrap(), [], "forgotten");
    assert_eq!(store.audit_findings(runs[2]).unwrap().len(), 1);
    assert_eq!(store.previous_audit(last).unwrap().unwrap().run, runs[10]);
}

#[test]
fn links_recorded_by_older_releases_become_typed() {
    let directory = tempfile::tempdir().unwrap();
    let path = directory.path().join("old.db");
    {
        let connection = rusqlite::Connection::open(&path).unwrap();
        for migration in &crate::schema::MIGRATIONS[..7] {
            connection.execute_batch(migration).unwrap();
        }
        connection
            .execute_batch(
                "PRAGMA user_version = 7;
                 INSERT INTO runs (id, seed, started_at, status) VALUES (1, 'https://e.com/', 0, 'complete');
                 INSERT INTO pages (url, depth, html_ok, verdict, target, first_seen_run, last_seen_run) VALUES
                    ('https://e.com/', 0, 1, 'indexable', NULL, 1, 1),
                    ('https://e.com/copy', 1, 1, 'canonicalised', 'https://e.com/', 1, 1);
                 INSERT INTO links (source, target) VALUES
                    ('https://e.com/', 'https://e.com/copy'),
                    ('https://e.com/copy', 'https://e.com/'),
                    ('https://e.com/copy', 'https://e.com/other');",
            )
            .unwrap();
    }
    let store = Store::open(&path).unwrap();
    assert_eq!(
        store.links_of("https://e.com/copy").unwrap(),
        [
            link("https://e.com/other", LinkKind::Anchor, None),
            link("https://e.com/", LinkKind::Canonical, None),
        ]
    );
    assert_eq!(
        store.links_of("https://e.com/").unwrap(),
        [link("https://e.com/copy", LinkKind::Anchor, None)]
    );
    assert_eq!(store.page("https://e.com/").unwrap().unwrap().details, None);
}

#[test]
fn pages_weigh_their_html_and_the_checked_resources_they_load() {
    let (_directory, mut store) = open();
    let run = store.begin_run("https://e.com/").unwrap();
    let html = |url: &str, bytes: u64, links: Vec<LinkRecord>| PageRecord {
        body_bytes: Some(bytes),
        links: Some(links),
        ..page(url, Verdict::Indexable)
    };
    let loads = vec![
        link("https://e.com/logo.png", LinkKind::Image, None),
        link("https://e.com/app.js", LinkKind::ScriptFile, None),
        link("https://e.com/plain", LinkKind::Anchor, Some("plain")),
    ];
    store
        .record_pages(
            run,
            &[
                html("https://e.com/", 1_000, loads),
                html("https://e.com/plain", 300, Vec::new()),
            ],
        )
        .unwrap();
    let check = |url: &str, kind, status, bytes| ResourceCheck {
        url: url.to_string(),
        kind,
        status: Some(status),
        failure: None,
        bytes,
        width: None,
    };
    store
        .record_resource_checks(
            run,
            &[
                check("https://e.com/app.js", LinkKind::ScriptFile, 404, Some(50)),
                check("https://e.com/logo.png", LinkKind::Image, 200, Some(20_000)),
            ],
        )
        .unwrap();
    let weight = |url: &str, html_bytes, resource_bytes, resources| PageWeight {
        url: url.to_string(),
        html_bytes,
        resource_bytes,
        resources,
    };
    assert_eq!(
        store.page_weights(run).unwrap(),
        [
            weight("https://e.com/", 1_000, 20_050, 2),
            weight("https://e.com/plain", 300, 0, 0)
        ]
    );
    let loaders = store.resource_loaders(run, 10_000).unwrap();
    let pages = |urls: &[&str]| urls.iter().map(ToString::to_string).collect::<Vec<_>>();
    assert_eq!(
        loaders.into_iter().collect::<Vec<_>>(),
        [
            (
                "https://e.com/app.js".to_string(),
                pages(&["https://e.com/"])
            ),
            (
                "https://e.com/logo.png".to_string(),
                pages(&["https://e.com/"])
            )
        ],
        "broken, or larger than 10,000 bytes"
    );
}
