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
fn another_programs_database_is_refused_and_left_as_it_was() {
    let directory = tempfile::tempdir().unwrap();
    let path = directory.path().join("accounts.db");
    {
        let connection = rusqlite::Connection::open(&path).unwrap();
        connection
            .execute_batch(
                "CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT);
                 INSERT INTO users (name) VALUES ('alice');",
            )
            .unwrap();
    }
    let before = std::fs::read(&path).unwrap();

    let error = Store::open(&path).unwrap_err();

    assert!(matches!(error, StoreError::Foreign { .. }), "{error}");
    assert!(error.to_string().contains("users"), "{error}");
    assert_eq!(
        std::fs::read(&path).unwrap(),
        before,
        "the file is unchanged"
    );
    let names: Vec<String> = std::fs::read_dir(directory.path())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["accounts.db"], "no journal left beside it");
    // Every table the migrations make is sitemapper's.
    let ours = directory.path().join("crawl.db");
    drop(Store::open(&ours).unwrap());
    drop(Store::open(&ours).unwrap());
}

#[test]
fn a_link_is_refused_and_nothing_is_written_through_it() {
    let directory = tempfile::tempdir().unwrap();
    let victim = directory.path().join("victim");
    std::fs::write(&victim, b"").unwrap();
    let link = directory.path().join("crawl.db");
    std::os::unix::fs::symlink(&victim, &link).unwrap();

    let error = Store::open(&link).unwrap_err();

    assert!(matches!(error, StoreError::Link { .. }), "{error}");
    assert_eq!(std::fs::read(&victim).unwrap(), b"");
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

/// A database of schema version 12 with `rows` in it (SQL run after the migrations).
fn database_of_version_12(path: &std::path::Path, rows: &str) {
    let connection = rusqlite::Connection::open(path).unwrap();
    for migration in &crate::schema::MIGRATIONS[..12] {
        connection.execute_batch(migration).unwrap();
    }
    connection
        .execute_batch(&format!("PRAGMA user_version = 12; {rows}"))
        .unwrap();
}

#[test]
fn links_of_text_become_rows_of_ids_with_their_text_aside() {
    let directory = tempfile::tempdir().unwrap();
    let path = directory.path().join("old.db");
    database_of_version_12(
        &path,
        "INSERT INTO runs (id, seed, started_at, status) VALUES (1, 'https://e.com/', 0, 'complete');
         INSERT INTO pages (url, depth, html_ok, verdict, first_seen_run, last_seen_run) VALUES
            ('https://e.com/', 0, 1, 'indexable', 1, 1),
            ('https://e.com/a', 1, 1, 'indexable', 1, 1);
         INSERT INTO links (source, target, kind, anchor, nofollow) VALUES
            ('https://e.com/', 'https://e.com/a', 'a', 'Café & more', 0),
            ('https://e.com/', 'https://e.com/a', 'canonical', NULL, 0),
            ('https://e.com/', 'https://e.com/private', 'a', NULL, 1),
            ('https://e.com/', 'https://e.com/logo.png', 'image', NULL, 0),
            ('https://e.com/a', 'https://e.com/', 'redirect', NULL, 0),
            ('https://e.com/sitemap.xml', 'https://e.com/a', 'sitemap', NULL, 0);",
    );
    let store = Store::open(&path).unwrap();
    let link = |target: &str, kind, anchor: Option<&str>, nofollow| LinkRecord {
        target: target.to_string(),
        kind,
        anchor: anchor.map(String::from),
        nofollow,
    };
    assert_eq!(
        store.links_of("https://e.com/").unwrap(),
        [
            link(
                "https://e.com/a",
                LinkKind::Anchor,
                Some("Café & more"),
                false
            ),
            link("https://e.com/private", LinkKind::Anchor, None, true),
            link("https://e.com/a", LinkKind::Canonical, None, false),
            link("https://e.com/logo.png", LinkKind::Image, None, false),
        ]
    );
    assert_eq!(
        store.links_of("https://e.com/sitemap.xml").unwrap(),
        [link("https://e.com/a", LinkKind::Sitemap, None, false)]
    );
    let count = |sql: &str| -> i64 {
        store
            .connection
            .query_row(sql, [], |row| row.get(0))
            .unwrap()
    };
    assert_eq!(count("SELECT count(*) FROM links"), 6);
    assert_eq!(
        count("SELECT count(*) FROM link_details"),
        2,
        "only links with text or nofollow"
    );
    assert_eq!(count("SELECT count(*) FROM urls"), 5, "each URL once");
    let run = RunId(1);
    assert!(store.is_redirect_target(run, "https://e.com/").unwrap());
    assert_eq!(
        store.referrers(run, "https://e.com/a").unwrap(),
        ["https://e.com/"]
    );
}

#[test]
fn a_fingerprint_of_the_first_version_is_compared_once_with_the_legacy_one_then_replaced() {
    use crate::tests::{CURRENT, print};
    let directory = tempfile::tempdir().unwrap();
    let path = directory.path().join("old.db");
    database_of_version_12(
        &path,
        "INSERT INTO runs (id, seed, started_at, status) VALUES (1, 'https://e.com/', 0, 'complete');
         INSERT INTO pages (url, depth, html_ok, verdict, last_modified, lastmod, fingerprint, first_seen_run, last_seen_run) VALUES
            ('https://e.com/same', 1, 1, 'indexable', 1000, 1000, 'old-same', 1, 1),
            ('https://e.com/edited', 1, 1, 'indexable', 1000, 1000, 'old-edited', 1, 1),
            ('https://e.com/unread', 1, 1, 'indexable', 1000, 1000, 'old-unread', 1, 1);",
    );
    let mut store = Store::open(&path).unwrap();
    let recorded = |store: &Store, url: &str| store.page(url).unwrap().unwrap().fingerprint;
    assert_eq!(recorded(&store, "https://e.com/same"), print(1, "old-same"));

    // A redeploy re-dates every file: the content is read with both functions.
    let run = store.begin_run("https://e.com/").unwrap();
    let upgraded = |url: &str, legacy: &str, current: &str| PageRecord {
        legacy_fingerprint: print(1, legacy),
        ..fetched(url, current, Some(5_000), 9_000)
    };
    store
        .record_pages(
            run,
            &[
                upgraded("https://e.com/same", "old-same", "new-same"),
                upgraded("https://e.com/edited", "old-edited-2", "new-edited"),
                // Without the legacy fingerprint there is nothing to compare: the header stands.
                fetched("https://e.com/unread", "new-unread", Some(5_000), 9_000),
            ],
        )
        .unwrap();
    assert_eq!(lastmod(&store, run, "https://e.com/same"), Some(at(1_000)));
    assert_eq!(
        lastmod(&store, run, "https://e.com/edited"),
        Some(at(5_000))
    );
    assert_eq!(
        lastmod(&store, run, "https://e.com/unread"),
        Some(at(5_000))
    );
    assert_eq!(store.kept_lastmod_count(run).unwrap(), 1);
    assert_eq!(
        recorded(&store, "https://e.com/same"),
        print(CURRENT, "new-same")
    );

    // From then on the current fingerprint decides, and a 304 keeps what is recorded.
    let run = store.begin_run("https://e.com/").unwrap();
    let revalidated = PageRecord {
        revalidated: true,
        ..fetched("https://e.com/edited", "stale", Some(5_000), 10_000)
    };
    store
        .record_pages(
            run,
            &[
                fetched("https://e.com/same", "new-same", Some(7_000), 10_000),
                revalidated,
            ],
        )
        .unwrap();
    assert_eq!(lastmod(&store, run, "https://e.com/same"), Some(at(1_000)));
    assert_eq!(
        recorded(&store, "https://e.com/edited"),
        print(CURRENT, "new-edited")
    );
}

#[test]
fn details_written_before_words_were_counted_are_read_without_a_count() {
    let directory = tempfile::tempdir().unwrap();
    let path = directory.path().join("old.db");
    let connection = rusqlite::Connection::open(&path).unwrap();
    for migration in &crate::schema::MIGRATIONS[..13] {
        connection.execute_batch(migration).unwrap();
    }
    connection
        .execute_batch(
            "PRAGMA user_version = 13;
             INSERT INTO runs (id, seed, started_at, status) VALUES (1, 'https://e.com/', 0, 'complete');
             INSERT INTO pages (url, depth, html_ok, verdict, first_seen_run, last_seen_run, h1_count, h1)
                VALUES ('https://e.com/', 0, 1, 'indexable', 1, 1, 1, 'Welcome');",
        )
        .unwrap();
    drop(connection);
    let store = Store::open(&path).unwrap();
    let details = store.page("https://e.com/").unwrap().unwrap().details;
    assert_eq!(
        details,
        Some(PageDetails {
            h1_count: 1,
            h1: Some("Welcome".to_string()),
            word_count: None,
            ..PageDetails::default()
        })
    );
}

#[test]
fn a_database_of_version_13_gains_the_word_counts_and_the_outbound_checks_and_keeps_its_links() {
    let directory = tempfile::tempdir().unwrap();
    let path = directory.path().join("crawl.db");
    {
        let connection = rusqlite::Connection::open(&path).unwrap();
        for migration in &crate::schema::MIGRATIONS[..13] {
            connection.execute_batch(migration).unwrap();
        }
        connection
            .execute_batch(
                "PRAGMA user_version = 13;
                 INSERT INTO runs (id, seed, started_at, status) VALUES (1, 'https://e.com/', 0, 'complete');
                 INSERT INTO urls (id, url) VALUES (1, 'https://e.com/'), (2, 'https://other.example/');
                 INSERT INTO links (source, target, kind) VALUES (1, 2, 1);",
            )
            .unwrap();
    }
    let mut store = Store::open(&path).unwrap();
    let version: i64 = store
        .connection
        .query_row("PRAGMA user_version", [], |row| row.get(0))
        .unwrap();
    assert_eq!(version, crate::schema::LATEST_VERSION);
    assert_eq!(store.links_of("https://e.com/").unwrap().len(), 1);
    let run = RunId(1);
    let outbound = ["https://other.example/".to_string()];
    store.record_outbound_links(run, &outbound).unwrap();
    let check = OutboundCheck {
        outcome: OutboundOutcome::Answered { status: 404 },
        final_url: None,
        checked_at: at(7),
    };
    store
        .record_outbound_check(run, &outbound[0], &check)
        .unwrap();
    assert_eq!(store.outbound_links(run).unwrap()[0].check, Some(check));
}
