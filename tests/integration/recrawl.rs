//! Scheduled recrawls: consecutive runs over one crawl database against a site that changes
//! between them. Conditional requests, lastmod kept true and stable, the change report, the
//! run lock, resuming an interrupted run, and IndexNow.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use sitemapper_store::{RunStatus, Store};

use crate::fixture::{Route, Server, Site};
use crate::harness::{crawl, lastmods, listed_urls, sitemapper, sitemapper_command};
use crate::schema::assert_all_valid;

const A_MODIFIED: &str = "Tue, 02 Jan 2024 03:04:05 GMT";
const A_LASTMOD: &str = "2024-01-02T03:04:05+00:00";

fn links_to(paths: &[&str]) -> String {
    paths
        .iter()
        .map(|path| format!("<a href=\"{path}\">{path}</a>"))
        .collect()
}

/// The site as it is on the first night.
fn first_version() -> Site {
    Site::new()
        .page("/", &links_to(&["/a", "/b", "/c", "/d"]))
        .route(
            "/a",
            Route::html("<p>a, with validators</p>")
                .header("ETag", "\"a1\"")
                .header("Last-Modified", A_MODIFIED),
        )
        .page("/b", "<p>b, version 1</p><script>var build = 1;</script>")
        .page("/c", "<p>c</p>")
        .route(
            "/d",
            Route::html("<p>d, version 1</p>").header("ETag", "\"d1\""),
        )
}

/// The next night: /b edited (no validators), /d edited (new ETag), /c gone, /e new.
fn second_version() -> Site {
    Site::new()
        .page("/", &links_to(&["/a", "/b", "/d", "/e"]))
        .route(
            "/a",
            Route::html("<p>a, with validators</p>")
                .header("ETag", "\"a1\"")
                .header("Last-Modified", A_MODIFIED),
        )
        .page("/b", "<p>b, version 2</p><script>var build = 2;</script>")
        .route(
            "/d",
            Route::html("<p>d, version 2</p>").header("ETag", "\"d2\""),
        )
        .page("/e", "<p>e is new</p>")
}

/// The third night: only markup noise changes (a script, whitespace).
fn third_version() -> Site {
    second_version().page(
        "/b",
        "<p>b,   version 2</p>\n<script>var build = 3;</script>",
    )
}

fn nightly(server: &Server, out: &Path, report: &Path) -> crate::harness::Run {
    let state = out.join("state.db");
    crawl(
        &server.url("/"),
        out,
        &[
            "--state",
            state.to_str().unwrap(),
            "--report-changes",
            report.to_str().unwrap(),
        ],
    )
}

fn report(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn urls_in(report: &serde_json::Value, key: &str, server: &Server) -> Vec<String> {
    report[key]
        .as_array()
        .unwrap()
        .iter()
        .map(|url| {
            url.as_str()
                .unwrap()
                .trim_start_matches(&server.origin())
                .to_string()
        })
        .collect()
}

/// How each request for `path` since `from` was answered: whether it was conditional.
fn conditional_requests(server: &Server, from: usize, path: &str) -> Vec<bool> {
    server.requests()[from..]
        .iter()
        .filter(|seen| seen.target == path)
        .map(|seen| {
            seen.headers.contains_key("if-none-match")
                || seen.headers.contains_key("if-modified-since")
        })
        .collect()
}

#[test]
fn three_nights_of_a_changing_site() {
    let server = first_version().serve();
    let out = tempfile::tempdir().unwrap();
    let report_file = out.path().join("changes.json");

    // Night 1: no history, so no invented lastmod; everything is added.
    let run = nightly(&server, out.path(), &report_file);
    run.assert_success();
    let first = lastmods(out.path());
    assert_eq!(first[&server.url("/a")].as_deref(), Some(A_LASTMOD));
    for path in ["/", "/b", "/c", "/d"] {
        assert_eq!(
            first[&server.url(path)],
            None,
            "{path}: first run, no header"
        );
    }
    let first_report = report(&report_file);
    assert_eq!(first_report["previous_run"], serde_json::Value::Null);
    assert_eq!(urls_in(&first_report, "added", &server).len(), 5);
    assert_all_valid(out.path());

    // Night 2.
    server.change(second_version());
    let before_second = server.requests().len();
    let run = nightly(&server, out.path(), &report_file);
    run.assert_success();
    assert_eq!(
        conditional_requests(&server, before_second, "/a"),
        [true],
        "revalidated with its validators"
    );
    assert!(
        run.stderr
            .contains("Unchanged (304 Not Modified, not downloaded): 1 page."),
        "{}",
        run.stderr
    );
    let second = lastmods(out.path());
    assert_eq!(
        second[&server.url("/a")].as_deref(),
        Some(A_LASTMOD),
        "304 keeps it"
    );
    let changed_b = second[&server.url("/b")]
        .clone()
        .expect("/b changed: it gets the time the change was seen");
    let changed_d = second[&server.url("/d")]
        .clone()
        .expect("/d changed: it gets the time the change was seen");
    assert!(changed_b.as_str() > "2025", "{changed_b}");
    assert!(changed_d.as_str() > "2025", "{changed_d}");
    assert_eq!(
        second[&server.url("/e")],
        None,
        "new, no header: no lastmod"
    );
    assert!(
        second[&server.url("/")].is_some(),
        "the home page changed visibly: its links to /c and /e"
    );
    assert!(!second.contains_key(&server.url("/c")));
    let second_report = report(&report_file);
    assert_eq!(urls_in(&second_report, "added", &server), ["/e"]);
    assert_eq!(urls_in(&second_report, "removed", &server), ["/c"]);
    assert_eq!(
        urls_in(&second_report, "changed", &server),
        ["/", "/b", "/d"]
    );
    assert!(
        run.stderr
            .contains("Since run #1: 1 added, 1 removed, 3 changed."),
        "{}",
        run.stderr
    );
    let sitemap_after_second = std::fs::read(out.path().join("sitemap.xml")).unwrap();

    // Night 3: only noise changed: the same sitemap, byte for byte, and an empty report.
    server.change(third_version());
    let before_third = server.requests().len();
    let run = nightly(&server, out.path(), &report_file);
    run.assert_success();
    assert_eq!(conditional_requests(&server, before_third, "/a"), [true]);
    assert_eq!(conditional_requests(&server, before_third, "/d"), [true]);
    assert_eq!(
        std::fs::read(out.path().join("sitemap.xml")).unwrap(),
        sitemap_after_second,
        "lastmod is stable while nothing visible changes"
    );
    let third_report = report(&report_file);
    for key in ["added", "removed", "changed"] {
        assert!(urls_in(&third_report, key, &server).is_empty(), "{key}");
    }

    let runs = sitemapper(&[
        "runs",
        "--state",
        out.path().join("state.db").to_str().unwrap(),
    ]);
    assert_eq!(runs.code, 0, "{}", runs.stderr);
    let lines: Vec<&str> = runs.stdout.lines().collect();
    assert_eq!(lines.len(), 4, "a header and three runs:\n{}", runs.stdout);
    assert!(lines[1].trim_start().starts_with("3 ") && lines[1].contains("complete"));
    assert!(lines[2].contains("complete") && lines[2].contains(&server.url("/")));
}

#[test]
fn a_second_run_on_the_same_output_or_database_is_refused() {
    let server = Site::new().page("/", "home").serve();
    let out = tempfile::tempdir().unwrap();
    let other_out = tempfile::tempdir().unwrap();
    let state = out.path().join("state.db");
    crawl(
        &server.url("/"),
        out.path(),
        &["--state", state.to_str().unwrap()],
    )
    .assert_success();

    // Another process (this test) holds the output directory, as a running crawl of a
    // release that wrote no lock record would: refused all the same, the holder unnamed.
    let held = std::fs::File::open(out.path()).unwrap();
    held.try_lock().unwrap();
    let before = std::fs::read(out.path().join("sitemap.xml")).unwrap();
    let run = crawl(&server.url("/"), out.path(), &[]);
    assert_eq!(run.code, 3, "{}", run.stderr);
    assert!(
        run.stderr.contains(&format!(
            "another sitemapper run is using {}; this one stops",
            out.path().display()
        )),
        "{}",
        run.stderr
    );
    assert_eq!(run.stderr.trim().lines().count(), 1);
    assert_eq!(
        std::fs::read(out.path().join("sitemap.xml")).unwrap(),
        before
    );
    drop(held);

    let held = std::fs::File::open(&state).unwrap();
    held.try_lock().unwrap();
    let run = crawl(
        &server.url("/"),
        other_out.path(),
        &["--state", state.to_str().unwrap()],
    );
    assert_eq!(run.code, 3, "{}", run.stderr);
    drop(held);
    crawl(
        &server.url("/"),
        other_out.path(),
        &["--state", state.to_str().unwrap()],
    )
    .assert_success();
}

fn slow_site(delay: Duration) -> Site {
    let mut home = String::new();
    for page in 0..60 {
        home.push_str(&format!("<a href=\"/p/{page}\">{page}</a>"));
    }
    let mut site = Site::new().page("/", &home);
    for page in 0..60 {
        site = site.route(
            &format!("/p/{page}"),
            Route::html(&format!("<p>page {page}</p>")).delay(delay),
        );
    }
    site
}

#[test]
fn a_killed_run_resumes_without_refetching_what_it_finished() {
    let server = slow_site(Duration::from_millis(200)).serve();
    let out = tempfile::tempdir().unwrap();
    let state = out.path().join("state.db");
    let mut child = spawn_with_state(&server.url("/"), out.path(), &state, &[]);
    server.wait_for(|seen| {
        seen.iter()
            .filter(|seen| seen.target.starts_with("/p/"))
            .count()
            >= 12
    });
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(
        !out.path().join("sitemap.xml").exists(),
        "nothing published"
    );

    let finished: Vec<String> = {
        let store = Store::open(&state).unwrap();
        (0..60)
            .map(|page| format!("/p/{page}"))
            .filter(|path| store.page(&server.url(path)).unwrap().is_some())
            .collect()
    };
    assert!(
        finished.len() >= 5,
        "pages were recorded as they finished: {finished:?}"
    );

    server.change(slow_site(Duration::ZERO));
    let before = server.requests().len();
    let run = crawl(
        &server.url("/"),
        out.path(),
        &["--state", state.to_str().unwrap(), "--resume"],
    );
    run.assert_success();
    assert!(run.stderr.contains("Resumed run #1"), "{}", run.stderr);
    let again: Vec<String> = server.targets()[before..]
        .iter()
        .filter(|target| finished.contains(target))
        .cloned()
        .collect();
    assert!(again.is_empty(), "refetched after resuming: {again:?}");
    assert_eq!(listed_urls(out.path()).len(), 61);

    // Without --resume, the next run starts clean and works.
    let run = crawl(
        &server.url("/"),
        out.path(),
        &["--state", state.to_str().unwrap()],
    );
    run.assert_success();
    assert_eq!(listed_urls(out.path()).len(), 61);
}

#[test]
fn indexnow_is_told_what_changed() {
    let endpoint = Site::new().route("/indexnow", Route::new(202, "")).serve();
    let server = first_version().serve();
    let out = tempfile::tempdir().unwrap();
    let state = out.path().join("state.db");
    let key = "0123456789abcdef";
    let flags = [
        "--state",
        state.to_str().unwrap(),
        "--indexnow-key",
        key,
        "--indexnow-endpoint",
        &endpoint.url("/indexnow"),
    ];
    let run = crawl(&server.url("/"), out.path(), &flags);
    run.assert_success();
    assert!(
        endpoint.requests().is_empty(),
        "the first run has no baseline"
    );
    assert!(run.stderr.contains("IndexNow: first run"), "{}", run.stderr);

    server.change(second_version());
    let run = crawl(&server.url("/"), out.path(), &flags);
    run.assert_success();
    let requests = endpoint.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0].method, "POST");
    assert!(requests[0].headers["content-type"].starts_with("application/json"));
    let body: serde_json::Value = serde_json::from_slice(&requests[0].body).unwrap();
    assert_eq!(body["host"], "127.0.0.1");
    assert_eq!(body["key"], key);
    let mut submitted: Vec<String> = body["urlList"]
        .as_array()
        .unwrap()
        .iter()
        .map(|url| url.as_str().unwrap().to_string())
        .collect();
    submitted.sort();
    let mut expected: Vec<String> = ["/", "/b", "/c", "/d", "/e"]
        .iter()
        .map(|path| server.url(path))
        .collect();
    expected.sort();
    assert_eq!(submitted, expected, "added, changed and removed");
    assert!(run.stderr.contains("IndexNow: notified"), "{}", run.stderr);

    let bad_key = crawl(&server.url("/"), out.path(), &["--indexnow-key", "short"]);
    assert_eq!(bad_key.code, 2, "{}", bad_key.stderr);
}

/// A generated static site as a deploy leaves it: every file re-dated to `date`, with an
/// `ETag` made from its date, as nginx and Apache make theirs; `/b` says `b_text`.
fn deployed(date: &str, b_text: &str) -> Site {
    let file = |body: &str| {
        let etag = format!("\"{}\"", date.replace([' ', ',', ':'], ""));
        Route::html(body)
            .header("Last-Modified", date)
            .header("ETag", &etag)
    };
    Site::new()
        .route("/", file(&links_to(&["/a", "/b", "/c"])))
        .route("/a", file("<p>a</p>"))
        .route("/b", file(&format!("<p>{b_text}</p>")))
        .route("/c", file("<p>c</p>"))
}

const FIRST_DEPLOY: &str = "Mon, 01 Jan 2024 00:00:00 GMT";
const SECOND_DEPLOY: &str = "Tue, 02 Jan 2024 00:00:00 GMT";
const THIRD_DEPLOY: &str = "Wed, 03 Jan 2024 00:00:00 GMT";

#[test]
fn a_redeploy_that_re_dates_every_file_moves_nothing_and_an_edit_moves_its_page() {
    let endpoint = Site::new().route("/indexnow", Route::new(202, "")).serve();
    let server = deployed(FIRST_DEPLOY, "b, first edition").serve();
    let out = tempfile::tempdir().unwrap();
    let state = out.path().join("state.db");
    let report_file = out.path().join("changes.json");
    let flags = [
        "--state",
        state.to_str().unwrap(),
        "--report-changes",
        report_file.to_str().unwrap(),
        "--indexnow-key",
        "0123456789abcdef",
        "--indexnow-endpoint",
        &endpoint.url("/indexnow"),
    ];
    crawl(&server.url("/"), out.path(), &flags).assert_success();
    let first = lastmods(out.path());
    assert_eq!(first.len(), 4);
    assert!(
        first
            .values()
            .all(|lastmod| lastmod.as_deref() == Some("2024-01-01T00:00:00+00:00")),
        "{first:?}"
    );
    let sitemap_after_first = std::fs::read(out.path().join("sitemap.xml")).unwrap();

    // The site is generated and deployed again: every file re-dated, none changed.
    server.change(deployed(SECOND_DEPLOY, "b, first edition"));
    let run = crawl(&server.url("/"), out.path(), &flags);
    run.assert_success();
    assert_eq!(
        std::fs::read(out.path().join("sitemap.xml")).unwrap(),
        sitemap_after_first,
        "every <lastmod> stays"
    );
    let second_report = report(&report_file);
    for key in ["added", "removed", "changed"] {
        assert!(urls_in(&second_report, key, &server).is_empty(), "{key}");
    }
    assert!(
        run.stderr
            .contains("4 pages served a new Last-Modified with the same content: lastmod kept."),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr
            .contains("Since run #1: 0 added, 0 removed, 0 changed."),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr
            .contains("IndexNow: nothing changed: not notified."),
        "{}",
        run.stderr
    );
    assert!(endpoint.requests().is_empty(), "IndexNow was told nothing");

    // The next deploy carries one edit: that page alone moves, to the deploy's date.
    server.change(deployed(THIRD_DEPLOY, "b, second edition"));
    let mut json_flags = flags.to_vec();
    json_flags.extend(["--summary", "json"]);
    let run = crawl(&server.url("/"), out.path(), &json_flags);
    run.assert_success();
    let third = lastmods(out.path());
    for path in ["/", "/a", "/c"] {
        assert_eq!(
            third[&server.url(path)].as_deref(),
            Some("2024-01-01T00:00:00+00:00"),
            "{path}"
        );
    }
    assert_eq!(
        third[&server.url("/b")].as_deref(),
        Some("2024-01-03T00:00:00+00:00"),
        "edited: the header's time, newer than its lastmod"
    );
    assert_eq!(urls_in(&report(&report_file), "changed", &server), ["/b"]);
    let summary: serde_json::Value = serde_json::from_str(run.stdout.trim()).unwrap();
    assert_eq!(summary["lastmod_kept"], 3, "{summary}");
    assert_eq!(summary["changes"]["changed"], 1, "{summary}");
    let requests = endpoint.requests();
    assert_eq!(requests.len(), 1);
    let body: serde_json::Value = serde_json::from_slice(&requests[0].body).unwrap();
    assert_eq!(body["urlList"], serde_json::json!([server.url("/b")]));

    let runs = Store::open(&state).unwrap().runs().unwrap();
    let changed: Vec<Option<u64>> = runs
        .iter()
        .map(|run| run.changes.map(|changes| changes.changed))
        .collect();
    assert_eq!(changed, [Some(1), Some(0), None], "newest first");
}

/// Starts `sitemapper crawl` in the background with `--state`, quietly.
fn spawn_with_state(seed: &str, out: &Path, state: &Path, extra: &[&str]) -> std::process::Child {
    let (out, state) = (out.to_str().unwrap(), state.to_str().unwrap());
    let mut args = vec![
        "crawl",
        seed,
        "--out",
        out,
        "--state",
        state,
        "--concurrency",
        "2",
    ];
    args.extend_from_slice(extra);
    sitemapper_command(&args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

#[test]
fn a_crawl_database_belongs_to_one_site() {
    let first = Site::new()
        .page("/", &links_to(&["/a"]))
        .page("/a", "a")
        .serve();
    let second = Site::new()
        .page("/", &links_to(&["/b"]))
        .page("/b", "b")
        .serve();
    let out = tempfile::tempdir().unwrap();
    let state = out.path().join("state.db");
    let state_flag = ["--state", state.to_str().unwrap()];
    crawl(&first.url("/"), out.path(), &state_flag).assert_success();
    let published = std::fs::read(out.path().join("sitemap.xml")).unwrap();

    for extra in [&[][..], &["--resume"][..]] {
        let other_out = tempfile::tempdir().unwrap();
        let mut flags = state_flag.to_vec();
        flags.extend_from_slice(extra);
        let run = crawl(&second.url("/"), other_out.path(), &flags);
        assert_eq!(run.code, 2, "{extra:?}: {}", run.stderr);
        assert_eq!(run.stderr.trim().lines().count(), 1, "{}", run.stderr);
        assert!(
            run.stderr
                .contains(&format!("belongs to {}", first.url("/"))),
            "{}",
            run.stderr
        );
        assert!(!other_out.path().join("sitemap.xml").exists());
    }
    assert!(
        second.requests().is_empty(),
        "the other site was not crawled"
    );
    assert_eq!(
        std::fs::read(out.path().join("sitemap.xml")).unwrap(),
        published
    );
    // The database was left as it was: its own site crawls on, with nothing removed.
    let run = crawl(&first.url("/"), out.path(), &state_flag);
    run.assert_success();
    assert!(
        run.stderr.contains("0 added, 0 removed, 0 changed"),
        "{}",
        run.stderr
    );
    // A directory of the same site is another scope too.
    let run = crawl(&first.url("/a/"), out.path(), &state_flag);
    assert_eq!(run.code, 2, "{}", run.stderr);
}

#[test]
fn an_interrupted_run_of_one_site_is_not_resumed_by_another() {
    let first = slow_site(Duration::from_millis(200)).serve();
    let second = Site::new().page("/", "other").serve();
    let out = tempfile::tempdir().unwrap();
    let state = out.path().join("state.db");
    let mut child = spawn_with_state(&first.url("/"), out.path(), &state, &[]);
    first.wait_for(|seen| {
        seen.iter()
            .filter(|seen| seen.target.starts_with("/p/"))
            .count()
            >= 6
    });
    child.kill().unwrap();
    child.wait().unwrap();
    let run = crawl(
        &second.url("/"),
        out.path(),
        &["--state", state.to_str().unwrap(), "--resume"],
    );
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(!out.path().join("sitemap.xml").exists());
    assert!(second.requests().is_empty());
}

#[test]
fn two_runs_started_on_a_new_database_cannot_both_run() {
    let server = slow_site(Duration::from_millis(200)).serve();
    let out = tempfile::tempdir().unwrap();
    let other_out = tempfile::tempdir().unwrap();
    let state = out.path().join("new.db");
    assert!(!state.exists());
    let mut first = spawn_with_state(&server.url("/"), out.path(), &state, &[]);
    server.wait_for(|seen| seen.iter().any(|seen| seen.target.starts_with("/p/")));
    let second = crawl(
        &server.url("/"),
        other_out.path(),
        &["--state", state.to_str().unwrap()],
    );
    assert_eq!(second.code, 3, "{}", second.stderr);
    assert!(!other_out.path().join("sitemap.xml").exists());
    let status = first.wait().unwrap();
    assert!(status.success(), "the first run was not disturbed");
    let store = Store::open(&state).unwrap();
    let runs = store.runs().unwrap();
    assert_eq!(runs.len(), 1, "one run recorded");
    assert_eq!(runs[0].status, RunStatus::Complete);
    assert_eq!(listed_urls(out.path()).len(), 61);
}

#[test]
fn an_interrupted_audit_continues_as_its_hint_says() {
    let server = slow_site(Duration::from_millis(200)).serve();
    let report = tempfile::tempdir().unwrap();
    let seed = server.url("/");
    let report_arg = report.path().to_str().unwrap();
    let args = ["audit", &seed, "--report", report_arg, "--concurrency", "2"];
    let child = sitemapper_command(&args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    server.wait_for(|seen| {
        seen.iter()
            .filter(|seen| seen.target.starts_with("/p/"))
            .count()
            >= 8
    });
    let status = std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("(continue with --resume)"),
        "the hint: {stderr}"
    );

    // The hint, as printed: the same command with --resume, no --state.
    server.change(slow_site(Duration::ZERO));
    let resumed = sitemapper(&[&args[..], &["--resume"]].concat());
    resumed.assert_success();
    assert!(
        resumed.stderr.contains("Resumed run #1"),
        "{}",
        resumed.stderr
    );
    assert!(report.path().join("report.html").is_file());
}
