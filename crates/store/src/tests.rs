//! Tests of the crawl database against real SQLite files.

use super::*;
use jiff::Timestamp;

fn page(url: &str, verdict: Verdict) -> PageRecord {
    PageRecord {
        url: url.to_string(),
        depth: 1,
        referrer: Some("https://e.com/".to_string()),
        status: Some(200),
        final_url: None,
        content_type: Some("text/html".to_string()),
        html_ok: true,
        verdict,
        reason: None,
        detail: None,
        target: None,
        canonical: None,
        last_modified: None,
        etag: None,
        fetched_at: None,
    }
}

fn canonicalised(url: &str, target: &str) -> PageRecord {
    PageRecord {
        target: Some(target.to_string()),
        ..page(url, Verdict::Canonicalised)
    }
}

fn open() -> (tempfile::TempDir, Store) {
    let directory = tempfile::tempdir().unwrap();
    let store = Store::open(&directory.path().join("crawl.db")).unwrap();
    (directory, store)
}

fn listed(store: &Store, run: RunId) -> Vec<(String, Option<Timestamp>)> {
    let mut pages = Vec::new();
    store
        .for_each_listed(run, |page| -> Result<(), StoreError> {
            pages.push((page.url.to_string(), page.lastmod));
            Ok(())
        })
        .unwrap();
    pages
}

#[test]
fn a_new_database_gets_the_latest_schema_and_reopens() {
    let directory = tempfile::tempdir().unwrap();
    let path = directory.path().join("crawl.db");
    let mut store = Store::open(&path).unwrap();
    let run = store.begin_run("https://e.com/").unwrap();
    store
        .record_pages(run, &[page("https://e.com/", Verdict::Indexable)])
        .unwrap();
    drop(store);
    let store = Store::open(&path).unwrap();
    let version: i64 = store
        .connection
        .query_row("PRAGMA user_version", [], |row| row.get(0))
        .unwrap();
    assert_eq!(version, schema::LATEST_VERSION);
    assert!(store.page("https://e.com/").unwrap().is_some());
}

#[test]
fn a_database_from_a_newer_release_is_refused() {
    let directory = tempfile::tempdir().unwrap();
    let path = directory.path().join("crawl.db");
    drop(Store::open(&path).unwrap());
    let connection = rusqlite::Connection::open(&path).unwrap();
    connection
        .execute_batch("PRAGMA user_version = 999")
        .unwrap();
    drop(connection);
    let error = Store::open(&path).unwrap_err();
    assert!(
        matches!(error, StoreError::TooNew { found: 999, .. }),
        "{error}"
    );
    assert!(error.to_string().contains("newer sitemapper"), "{error}");
}

#[test]
fn a_file_that_is_not_a_database_is_refused() {
    let directory = tempfile::tempdir().unwrap();
    let path = directory.path().join("notes.txt");
    std::fs::write(
        &path,
        "these are not the pages you are looking for, not at all, no".repeat(40),
    )
    .unwrap();
    let error = Store::open(&path).unwrap_err();
    assert!(matches!(error, StoreError::NotADatabase { .. }), "{error}");
    assert!(error.to_string().contains("notes.txt"), "{error}");
}

#[test]
fn upserts_replace_facts_and_keep_the_first_run() {
    let (_directory, mut store) = open();
    let first = store.begin_run("https://e.com/").unwrap();
    store
        .record_pages(first, &[page("https://e.com/a", Verdict::Indexable)])
        .unwrap();
    let second = store.begin_run("https://e.com/").unwrap();
    let gone = PageRecord {
        status: Some(404),
        html_ok: false,
        reason: Some("http-404".to_string()),
        ..page("https://e.com/a", Verdict::Excluded)
    };
    store
        .record_pages(second, std::slice::from_ref(&gone))
        .unwrap();
    assert_eq!(store.page("https://e.com/a").unwrap(), Some(gone));
    let (first_seen, last_seen): (i64, i64) = store
        .connection
        .query_row(
            "SELECT first_seen_run, last_seen_run FROM pages WHERE url = 'https://e.com/a'",
            [],
            |row| Ok((row.get(0)?, row.get(1)?)),
        )
        .unwrap();
    assert_eq!((first_seen, last_seen), (first.0, second.0));
}

#[test]
fn listed_pages_are_this_runs_indexable_ones_in_bytewise_order() {
    let (_directory, mut store) = open();
    let old = store.begin_run("https://e.com/").unwrap();
    store
        .record_pages(old, &[page("https://e.com/old", Verdict::Indexable)])
        .unwrap();
    let run = store.begin_run("https://e.com/").unwrap();
    let modified: Timestamp = "2024-01-02T03:04:05Z".parse().unwrap();
    store
        .record_pages(
            run,
            &[
                page("https://e.com/a", Verdict::Indexable),
                PageRecord {
                    last_modified: Some(modified),
                    ..page("https://e.com/B", Verdict::Indexable)
                },
                page("https://e.com/redirect", Verdict::Redirect),
                page("https://e.com/excluded", Verdict::Excluded),
            ],
        )
        .unwrap();
    assert_eq!(
        listed(&store, run),
        [
            ("https://e.com/B".to_string(), Some(modified)),
            ("https://e.com/a".to_string(), None)
        ]
    );
    assert_eq!(store.listed_count(run).unwrap(), 2);
}

#[test]
fn broken_canonicals_are_listed_as_themselves_and_chains_are_kept() {
    let (_directory, mut store) = open();
    let run = store.begin_run("https://e.com/").unwrap();
    let not_html = PageRecord {
        status: Some(404),
        html_ok: false,
        ..page("https://e.com/404", Verdict::Excluded)
    };
    store
        .record_pages(
            run,
            &[
                canonicalised("https://e.com/to-missing", "https://e.com/never-seen"),
                canonicalised("https://e.com/to-404", "https://e.com/404"),
                not_html,
                canonicalised("https://e.com/to-good", "https://e.com/good"),
                page("https://e.com/good", Verdict::Indexable),
                canonicalised("https://e.com/chain-a", "https://e.com/chain-b"),
                canonicalised("https://e.com/chain-b", "https://e.com/chain-c"),
                page("https://e.com/chain-c", Verdict::Indexable),
                canonicalised("https://e.com/loop-y", "https://e.com/loop-z"),
                canonicalised("https://e.com/loop-z", "https://e.com/loop-x"),
                canonicalised("https://e.com/loop-x", "https://e.com/loop-y"),
                canonicalised("https://e.com/into-loop", "https://e.com/loop-z"),
                canonicalised("https://e.com/self-loop", "https://e.com/self-loop"),
            ],
        )
        .unwrap();
    store.resolve_canonicals(run).unwrap();
    let verdict = |url: &str| {
        let page = store.page(url).unwrap().unwrap();
        (page.verdict, page.reason)
    };
    assert_eq!(
        verdict("https://e.com/to-missing"),
        (Verdict::Indexable, Some("broken-canonical".to_string()))
    );
    assert_eq!(
        verdict("https://e.com/to-404"),
        (Verdict::Indexable, Some("broken-canonical".to_string()))
    );
    assert_eq!(
        verdict("https://e.com/to-good"),
        (Verdict::Canonicalised, None)
    );
    assert_eq!(
        verdict("https://e.com/chain-a"),
        (Verdict::Canonicalised, None)
    );
    assert_eq!(
        verdict("https://e.com/chain-b"),
        (Verdict::Canonicalised, None)
    );
    let in_loop = (Verdict::Indexable, Some("canonical-loop".to_string()));
    assert_eq!(
        verdict("https://e.com/loop-x"),
        in_loop,
        "the smallest URL of the loop"
    );
    assert_eq!(verdict("https://e.com/self-loop"), in_loop);
    for url in [
        "https://e.com/loop-y",
        "https://e.com/loop-z",
        "https://e.com/into-loop",
    ] {
        assert_eq!(verdict(url), (Verdict::Canonicalised, None), "{url}");
    }
}

#[test]
fn reasons_are_counted_per_run() {
    let (_directory, mut store) = open();
    let run = store.begin_run("https://e.com/").unwrap();
    let excluded = |url: &str, reason: &str| PageRecord {
        reason: Some(reason.to_string()),
        ..page(url, Verdict::Excluded)
    };
    store
        .record_pages(
            run,
            &[
                page("https://e.com/", Verdict::Indexable),
                excluded("https://e.com/1", "http-404"),
                excluded("https://e.com/2", "http-404"),
                excluded("https://e.com/3", "noindex"),
            ],
        )
        .unwrap();
    let counts = store.reason_counts(run).unwrap();
    assert_eq!(
        counts,
        [
            ReasonCount {
                verdict: Verdict::Excluded,
                reason: Some("http-404".to_string()),
                count: 2
            },
            ReasonCount {
                verdict: Verdict::Excluded,
                reason: Some("noindex".to_string()),
                count: 1
            },
            ReasonCount {
                verdict: Verdict::Indexable,
                reason: None,
                count: 1
            },
        ]
    );
}

#[test]
fn runs_are_listed_newest_first_with_their_counts() {
    let (_directory, mut store) = open();
    let first = store.begin_run("https://e.com/").unwrap();
    store.finish_run(first, RunStatus::Failed).unwrap();
    let second = store.begin_run("https://e.com/").unwrap();
    store
        .record_pages(
            second,
            &[
                page("https://e.com/", Verdict::Indexable),
                page("https://e.com/x", Verdict::Redirect),
            ],
        )
        .unwrap();
    store.finish_run(second, RunStatus::Complete).unwrap();
    let runs = store.runs().unwrap();
    assert_eq!(runs.len(), 2);
    assert_eq!(
        (
            runs[0].id,
            runs[0].status,
            runs[0].pages_seen,
            runs[0].pages_listed
        ),
        (second, RunStatus::Complete, 2, 1)
    );
    assert_eq!((runs[1].id, runs[1].status), (first, RunStatus::Failed));
    assert!(runs[0].finished_at.is_some());
    assert_eq!(store.latest_run().unwrap(), Some(second));
}
