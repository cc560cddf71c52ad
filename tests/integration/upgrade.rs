//! A crawl database written by an earlier release (`tests/fixtures/upgrade/`, schema version
//! 12: links of URL strings, fingerprints without a version) read by this build: its links
//! come back the same, its fingerprints are compared with the function that wrote them, so
//! that no `<lastmod>` moves, and a database of a million links is converted in bounded memory.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use rusqlite::Connection;

use crate::fixture::{Route, Site};
use crate::harness::{crawl, lastmods, sitemapper, sitemapper_command};

/// Where the pages were served when the database was written; the test serves them again at
/// this origin, through a proxy that is the test's server, so that every URL is the same.
const ORIGIN: &str = "http://127.0.0.1:47561";

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/upgrade")
        .join(name)
}

/// A copy of the database the earlier release wrote, in `directory`.
fn old_database(directory: &Path) -> PathBuf {
    let path = directory.join("crawl.db");
    std::fs::copy(fixture("crawl-schema-12.db"), &path).unwrap();
    path
}

/// The pages of `site/`, deployed again on `date`: the same files, a new `Last-Modified`,
/// and no validators to answer a conditional request with (every page is read in full).
/// `edited` replaces the text of one file.
fn deployed(date: &str, edited: Option<(&str, &str)>) -> Site {
    let mut site = Site::new();
    for name in [
        "index.html",
        "menu.html",
        "notes.html",
        "split.html",
        "spaces.html",
    ] {
        let mut body = std::fs::read_to_string(fixture("site").join(name)).unwrap();
        if let Some((file, text)) = edited
            && file == name
        {
            body = body.replace("<body>", &format!("<body><p>{text}</p>"));
        }
        let route = Route::html(&body).header("Last-Modified", date);
        if name == "index.html" {
            site = site.route("/", route.clone());
        }
        site = site.route(&format!("/{name}"), route);
    }
    site
}

type LinkRow = (String, String, String, Option<String>, bool);

/// Every link of the earlier schema: `(source, target, kind, anchor, nofollow)`.
fn links_as_written(path: &Path) -> BTreeSet<LinkRow> {
    let connection = Connection::open(path).unwrap();
    let mut statement = connection
        .prepare("SELECT source, target, kind, anchor, nofollow FROM links")
        .unwrap();
    statement
        .query_map([], |row| {
            Ok((
                row.get(0)?,
                row.get(1)?,
                row.get(2)?,
                row.get(3)?,
                row.get(4)?,
            ))
        })
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

/// The same, read from this build's schema.
fn links_as_converted(path: &Path) -> BTreeSet<LinkRow> {
    let connection = Connection::open(path).unwrap();
    let kinds = [
        (1, "a"),
        (2, "canonical"),
        (3, "hreflang"),
        (4, "iframe"),
        (5, "image"),
        (6, "redirect"),
        (7, "refresh"),
        (8, "sitemap"),
    ];
    let mut statement = connection
        .prepare(
            "SELECT sources.url, targets.url, links.kind, details.anchor,
                    coalesce(details.nofollow, 0)
             FROM links JOIN urls AS sources ON sources.id = links.source
                 JOIN urls AS targets ON targets.id = links.target
                 LEFT JOIN link_details AS details ON details.source = links.source
                     AND details.target = links.target AND details.kind = links.kind",
        )
        .unwrap();
    statement
        .query_map([], |row| {
            let kind: i64 = row.get(2)?;
            let code = kinds
                .iter()
                .find(|(number, _)| *number == kind)
                .map(|(_, code)| code.to_string())
                .unwrap_or_else(|| format!("unknown {kind}"));
            Ok((row.get(0)?, row.get(1)?, code, row.get(3)?, row.get(4)?))
        })
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

fn schema_version(path: &Path) -> i64 {
    Connection::open(path)
        .unwrap()
        .query_row("PRAGMA user_version", [], |row| row.get(0))
        .unwrap()
}

#[test]
fn links_written_by_the_earlier_release_come_back_the_same() {
    let directory = tempfile::tempdir().unwrap();
    let database = old_database(directory.path());
    assert_eq!(schema_version(&database), 12);
    let written = links_as_written(&database);
    assert!(
        written
            .iter()
            .any(|(_, _, _, anchor, _)| anchor.as_deref() == Some("café & more")),
        "the fixture holds anchor texts: {written:?}"
    );
    assert!(written.iter().any(|link| link.4), "and a nofollow link");

    // Any command that opens the database converts it.
    sitemapper(&["runs", "--state", database.to_str().unwrap()]).assert_success();
    assert!(schema_version(&database) > 12);
    assert_eq!(links_as_converted(&database), written);
}

#[test]
fn the_first_crawl_after_the_upgrade_moves_no_lastmod_and_an_edit_moves_its_page() {
    let directory = tempfile::tempdir().unwrap();
    let database = old_database(directory.path());
    let out = directory.path().join("out");
    let state = ["--state", database.to_str().unwrap()];
    let server = deployed("Thu, 01 Jan 2026 00:00:00 GMT", None).serve();
    let proxy = server.url("");
    let through = |extra: &[&str]| {
        let mut flags = vec!["--proxy", proxy.as_str()];
        flags.extend_from_slice(&state);
        flags.extend_from_slice(extra);
        crawl(&format!("{ORIGIN}/"), &out, &flags)
    };

    // Every file re-dated, none changed: the fingerprints of the earlier release's function
    // match what it recorded, and every lastmod stays 2024-03-01.
    let run = through(&[]);
    run.assert_success();
    let first = lastmods(&out);
    assert_eq!(first.len(), 6, "{first:?}");
    for (url, lastmod) in &first {
        assert_eq!(
            lastmod.as_deref(),
            Some("2024-03-01T10:00:00+00:00"),
            "{url}: {}",
            run.stderr
        );
    }
    assert!(
        run.stderr
            .contains("6 pages served a new Last-Modified with the same content: lastmod kept."),
        "{}",
        run.stderr
    );
    let versions: Vec<Option<i64>> = {
        let connection = Connection::open(&database).unwrap();
        let mut statement = connection
            .prepare("SELECT fingerprint_version FROM pages ORDER BY url")
            .unwrap();
        statement
            .query_map([], |row| row.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap()
    };
    assert_eq!(versions, vec![Some(2); 6], "stored under the new function");

    // The next deploy edits one page: only its lastmod moves.
    server.change(deployed(
        "Fri, 02 Jan 2026 00:00:00 GMT",
        Some(("menu.html", "Today&nbsp;only")),
    ));
    through(&[]).assert_success();
    for (url, lastmod) in lastmods(&out) {
        let expected = if url.ends_with("/menu.html") {
            "2026-01-02T00:00:00+00:00"
        } else {
            "2024-03-01T10:00:00+00:00"
        };
        assert_eq!(lastmod.as_deref(), Some(expected), "{url}");
    }
}

/// Links added to the earlier release's database: `count` of them, between `count / 100`
/// pages and as many URLs.
fn add_links(database: &Path, count: u64) {
    let connection = Connection::open(database).unwrap();
    connection
        .execute_batch(&format!(
            "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < {count})
             INSERT INTO links (source, target, kind, anchor, nofollow)
             SELECT '{ORIGIN}/generated/page-' || (i / 100),
                    '{ORIGIN}/generated/target-' || ((i * 7919) % {count}),
                    'a', CASE WHEN i % 10 = 0 THEN 'text ' || i END, 0
             FROM n;"
        ))
        .unwrap();
}

/// `sitemapper runs --state DATABASE` with its address space limited to `limit_mib` MiB.
fn runs_within(database: &Path, directory: &Path, limit_mib: u64) -> std::process::Output {
    let command = sitemapper_command(&["runs", "--state", database.to_str().unwrap()]);
    let program = command.get_program().to_owned();
    let args: Vec<_> = command.get_args().map(ToOwned::to_owned).collect();
    let mut limited = std::process::Command::new("prlimit");
    limited
        .arg(format!("--as={}", limit_mib * 1024 * 1024))
        .arg("--")
        .arg(program)
        .args(args)
        .env("SQLITE_TMPDIR", directory);
    for (name, value) in command.get_envs() {
        match value {
            Some(value) => limited.env(name, value),
            None => limited.env_remove(name),
        };
    }
    limited.output().expect("run prlimit")
}

/// The least address space, in MiB, in which the binary upgrades the earlier release's small
/// database: its code and libraries, most of it in a debug build, and growing with the
/// binary. The bound of the million links is counted from there.
fn least_address_space_mib(directory: &Path) -> u64 {
    let (mut fails, mut works) = (8, 1024);
    while works - fails > 1 {
        let middle = (fails + works) / 2;
        let probe = directory.join(format!("probe-{middle}.db"));
        std::fs::copy(fixture("crawl-schema-12.db"), &probe).unwrap();
        if runs_within(&probe, directory, middle).status.success() {
            works = middle;
        } else {
            fails = middle;
        }
    }
    works
}

#[test]
fn a_million_links_are_converted_in_bounded_memory() {
    let directory = tempfile::tempdir().unwrap();
    let database = old_database(directory.path());
    let links = 1_000_000;
    add_links(&database, links);
    let count = |path: &Path, sql: &str| -> i64 {
        Connection::open(path)
            .unwrap()
            .query_row(sql, [], |row| row.get(0))
            .unwrap()
    };
    let before = count(&database, "SELECT count(*) FROM links");
    let with_text = count(
        &database,
        "SELECT count(*) FROM links WHERE anchor IS NOT NULL OR nofollow != 0",
    );
    assert_eq!(before, i64::try_from(links).unwrap() + 13);
    // Held in memory, the links alone (a million of them, two URLs each) would take more
    // than the process is allowed beyond what it takes to open a small database.
    let limit_mib = least_address_space_mib(directory.path()) + 16;
    let output = runs_within(&database, directory.path(), limit_mib);
    assert!(
        output.status.success(),
        "within {limit_mib} MiB: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(schema_version(&database) > 12);
    assert_eq!(count(&database, "SELECT count(*) FROM links"), before);
    assert_eq!(
        count(&database, "SELECT count(*) FROM link_details"),
        with_text
    );
}
