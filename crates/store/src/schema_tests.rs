//! Tests of the database file itself: its schema version, what newer or foreign files do, and
//! the rows older releases wrote, read back after the migrations.

use crate::tests::{at, fetched, lastmod, open, page};
use crate::*;

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
fn a_database_of_the_first_schema_opens_and_keeps_its_pages() {
    let directory = tempfile::tempdir().unwrap();
    let path = directory.path().join("old.db");
    {
        let connection = rusqlite::Connection::open(&path).unwrap();
        connection
            .execute_batch(crate::schema::MIGRATIONS[0])
            .unwrap();
        connection
            .execute_batch(
                "PRAGMA user_version = 1;
                 INSERT INTO runs (id, seed, started_at, status) VALUES (1, 'https://e.com/', 0, 'complete');
                 INSERT INTO pages (url, depth, html_ok, verdict, lastmod, fingerprint, first_seen_run, last_seen_run)
                    VALUES ('https://e.com/', 0, 1, 'indexable', 1000, 'f', 1, 1);",
            )
            .unwrap();
    }
    let mut store = Store::open(&path).unwrap();
    let page = store.page("https://e.com/").unwrap().unwrap();
    assert_eq!(
        (page.verdict, page.revalidated),
        (Verdict::Indexable, false)
    );
    let run = store.begin_run("https://e.com/").unwrap();
    store
        .record_pages(run, &[fetched("https://e.com/", "f", None, 2_000)])
        .unwrap();
    assert_eq!(
        lastmod(&store, run, "https://e.com/"),
        Some(at(1_000)),
        "history carried over"
    );
}

#[test]
fn a_row_an_older_release_wrote_without_a_fingerprint_takes_the_header_once() {
    let directory = tempfile::tempdir().unwrap();
    let path = directory.path().join("old.db");
    {
        let connection = rusqlite::Connection::open(&path).unwrap();
        for migration in &crate::schema::MIGRATIONS[..10] {
            connection.execute_batch(migration).unwrap();
        }
        connection
            .execute_batch(
                "PRAGMA user_version = 10;
                 INSERT INTO runs (id, seed, started_at, status) VALUES (1, 'https://e.com/', 0, 'complete');
                 INSERT INTO pages (url, depth, html_ok, verdict, last_modified, lastmod, first_seen_run, last_seen_run)
                    VALUES ('https://e.com/', 0, 1, 'indexable', 1000, 1000, 1, 1);",
            )
            .unwrap();
    }
    let mut store = Store::open(&path).unwrap();
    let run = store.begin_run("https://e.com/").unwrap();
    store
        .record_pages(run, &[fetched("https://e.com/", "f", Some(5_000), 9_000)])
        .unwrap();
    assert_eq!(
        lastmod(&store, run, "https://e.com/"),
        Some(at(5_000)),
        "nothing to compare: the header stands"
    );
    assert_eq!(store.kept_lastmod_count(run).unwrap(), 0);
    let run = store.begin_run("https://e.com/").unwrap();
    store
        .record_pages(run, &[fetched("https://e.com/", "f", Some(7_000), 10_000)])
        .unwrap();
    assert_eq!(
        lastmod(&store, run, "https://e.com/"),
        Some(at(5_000)),
        "the fingerprint recorded then decides"
    );
    assert_eq!(store.kept_lastmod_count(run).unwrap(), 1);
}

#[test]
fn hints_written_into_the_detail_by_older_releases_get_their_own_columns() {
    let directory = tempfile::tempdir().unwrap();
    let path = directory.path().join("old.db");
    {
        let connection = rusqlite::Connection::open(&path).unwrap();
        for migration in &crate::schema::MIGRATIONS[..5] {
            connection.execute_batch(migration).unwrap();
        }
        connection
            .execute_batch(
                "PRAGMA user_version = 5;
                 INSERT INTO runs (id, seed, started_at, status) VALUES (1, 'https://e.com/', 0, 'complete');
                 INSERT INTO pages (url, depth, html_ok, verdict, reason, detail, first_seen_run, last_seen_run) VALUES
                    ('https://e.com/both', 0, 1, 'indexable', NULL,
                     'invalid canonical: mailto:x javascript:y; conflicting canonicals: https://e.com/a https://e.com/b', 1, 1),
                    ('https://e.com/invalid', 0, 1, 'excluded', 'noindex', 'invalid canonical: ftp://x', 1, 1),
                    ('https://e.com/conflicting', 0, 1, 'indexable', NULL,
                     'conflicting canonicals: https://e.com/c https://e.com/d', 1, 1),
                    ('https://e.com/error', 0, 0, 'excluded', 'fetch-error',
                     'conflicting canonicals: a timeout, really', 1, 1);",
            )
            .unwrap();
    }
    let store = Store::open(&path).unwrap();
    let facts = |url: &str| {
        let page = store.page(url).unwrap().unwrap();
        (
            page.ignored_hints
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>(),
            page.detail,
        )
    };
    assert_eq!(
        facts("https://e.com/both"),
        (
            vec![
                "invalid canonical: mailto:x javascript:y".to_string(),
                "conflicting canonicals: https://e.com/a https://e.com/b".to_string()
            ],
            None
        )
    );
    assert_eq!(
        facts("https://e.com/invalid"),
        (vec!["invalid canonical: ftp://x".to_string()], None)
    );
    assert_eq!(
        store
            .page("https://e.com/conflicting")
            .unwrap()
            .unwrap()
            .ignored_hints,
        [IgnoredHint::ConflictingCanonicals(vec![
            "https://e.com/c".to_string(),
            "https://e.com/d".to_string()
        ])]
    );
    assert_eq!(
        facts("https://e.com/error"),
        (
            Vec::new(),
            Some("conflicting canonicals: a timeout, really".to_string())
        ),
        "an error message is not a hint, whatever it says"
    );
}

#[test]
fn an_unknown_reason_code_is_a_corrupt_database() {
    let (_directory, mut store) = open();
    let run = store.begin_run("https://e.com/").unwrap();
    store
        .record_pages(run, &[page("https://e.com/", Verdict::Indexable)])
        .unwrap();
    store
        .connection
        .execute("UPDATE pages SET reason = 'disallowed: by robots'", [])
        .unwrap();
    let error = store.page("https://e.com/").unwrap_err();
    assert!(
        matches!(&error, StoreError::Corrupt { detail, .. } if detail == "reason \"disallowed: by robots\""),
        "{error}"
    );
}
