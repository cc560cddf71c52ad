//! What sitemapper tells its user and their scripts: the URLs behind each count of the
//! summary with their referrers, `--list-not-listed` (CSV), `-v` and `-vv` (one line per URL,
//! no library internals), `--summary json` on every command, `-` for stdout.

use std::collections::BTreeSet;
use std::io::Write;
use std::path::Path;
use std::process::Stdio;

use serde_json::Value;

use crate::fixture::{Route, Server, Site};
use crate::harness::{Run, crawl, sitemapper, sitemapper_command};

/// A site whose seed (/start) redirects to the home page, which links to three listed pages
/// and to 404s from two pages: seven 404s, one noindex page, one redirect.
fn site_with_dead_links() -> Server {
    let links = |paths: &[&str]| -> String {
        paths
            .iter()
            .map(|path| format!("<a href=\"{path}\">{path}</a>"))
            .collect()
    };
    Site::new()
        .route("/start", Route::redirect(301, "/"))
        .page(
            "/",
            &links(&["/a", "/b", "/missing-1", "/missing-3", "/hidden"]),
        )
        .page(
            "/a",
            &links(&["/", "/missing-2", "/missing-4", "/missing-5", "/missing-6"]),
        )
        .page("/b", &links(&["/a", "/search?q=-1&at=@x"]))
        .page(
            "/hidden",
            r#"<meta name="robots" content="noindex"><a href="/">home</a>"#,
        )
        .serve()
}

/// The URLs every test of [`site_with_dead_links`] expects not listed: `(path, reason,
/// status, referrer path)`, ordered by URL.
const NOT_LISTED: [(&str, &str, &str, &str); 9] = [
    ("/hidden", "noindex", "200", "/"),
    ("/missing-1", "http-404", "404", "/"),
    ("/missing-2", "http-404", "404", "/a"),
    ("/missing-3", "http-404", "404", "/"),
    ("/missing-4", "http-404", "404", "/a"),
    ("/missing-5", "http-404", "404", "/a"),
    ("/missing-6", "http-404", "404", "/a"),
    ("/search?q=-1&at=@x", "http-404", "404", "/b"),
    ("/start", "redirect", "301", ""),
];

/// The expected rows of `--list-not-listed`, with the server's origin.
fn expected_rows(server: &Server) -> Vec<Vec<String>> {
    NOT_LISTED
        .iter()
        .map(|(path, reason, status, referrer)| {
            let referrer = if referrer.is_empty() {
                String::new()
            } else {
                server.url(referrer)
            };
            vec![
                server.url(path),
                reason.to_string(),
                status.to_string(),
                referrer,
            ]
        })
        .collect()
}

/// `sitemapper ARGS` run in `directory`, with `input` on stdin.
pub(crate) fn sitemapper_in(directory: &Path, args: &[&str], input: Option<&[u8]>) -> Run {
    let mut command = sitemapper_command(args);
    command
        .current_dir(directory)
        .stdin(if input.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = command.spawn().unwrap();
    if let Some(input) = input {
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(input).unwrap();
    }
    child.wait_with_output().unwrap().into()
}

pub(crate) fn parse_json(run: &Run) -> Value {
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(
        lines.len(),
        1,
        "one line of JSON on stdout:\n{}",
        run.stdout
    );
    serde_json::from_str(lines[0])
        .unwrap_or_else(|error| panic!("{error}: {}\nstderr:\n{}", run.stdout, run.stderr))
}

fn files_in(directory: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(directory)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn the_summary_names_the_first_urls_of_each_reason_with_their_referrers() {
    let server = site_with_dead_links();
    let out = tempfile::tempdir().unwrap();
    let run = crawl(&server.url("/start"), out.path(), &[]);
    run.assert_success();
    let url = |path: &str| server.url(path);
    let expected = format!(
        "Listed: 3 URLs.
Not listed:
        7  http-404
             {}  (from {})
             {}  (from {})
             {}  (from {})
             {}  (from {})
             {}  (from {})
             … and 2 more: --list-not-listed FILE
        1  noindex
             {}  (from {})
        1  redirect
             {}  (the seed)
",
        url("/missing-1"),
        url("/"),
        url("/missing-2"),
        url("/a"),
        url("/missing-3"),
        url("/"),
        url("/missing-4"),
        url("/a"),
        url("/missing-5"),
        url("/a"),
        url("/hidden"),
        url("/"),
        url("/start"),
    );
    assert!(
        run.stderr.contains(&expected),
        "expected:\n{expected}\nin:\n{}",
        run.stderr
    );
}

#[test]
fn every_url_not_listed_goes_to_the_csv_without_state() {
    let server = site_with_dead_links();
    let out = tempfile::tempdir().unwrap();
    let list = out.path().join("not-listed.csv");
    let run = crawl(
        &server.url("/start"),
        out.path(),
        &["--list-not-listed", list.to_str().unwrap()],
    );
    run.assert_success();
    let mut reader = csv::Reader::from_path(&list).unwrap();
    assert_eq!(
        reader.headers().unwrap(),
        vec!["url", "reason", "status", "referrer"]
    );
    let rows: Vec<Vec<String>> = reader
        .records()
        .map(|record| record.unwrap().iter().map(str::to_string).collect())
        .collect();
    // A URL with `-` and `@` inside is left as it is: only a leading trigger is neutralized.
    assert_eq!(rows, expected_rows(&server));
    assert!(
        run.stderr
            .contains(&format!("… and 2 more in {}", list.display())),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains(&format!(
            "The URLs not listed (9 URLs), with their reasons and referrers: {}",
            list.display()
        )),
        "{}",
        run.stderr
    );
    // Nothing but the sitemap and the list of URLs not listed in the output directory: no
    // database without --state, no bookkeeping of sitemapper's.
    assert_eq!(files_in(out.path()), ["not-listed.csv", "sitemap.xml"]);
}

#[test]
fn the_csv_goes_to_stdout_with_a_dash_and_the_audit_writes_it_too() {
    let server = site_with_dead_links();
    let out = tempfile::tempdir().unwrap();
    let run = crawl(
        &server.url("/start"),
        out.path(),
        &["--list-not-listed", "-"],
    );
    run.assert_success();
    let mut reader = csv::Reader::from_reader(run.stdout.as_bytes());
    let rows: Vec<Vec<String>> = reader
        .records()
        .map(|record| record.unwrap().iter().map(str::to_string).collect())
        .collect();
    assert_eq!(rows, expected_rows(&server));

    let report = tempfile::tempdir().unwrap();
    let list = report.path().join("list.csv");
    let run = sitemapper(&[
        "audit",
        &server.url("/start"),
        "--report",
        report.path().to_str().unwrap(),
        "--retries",
        "0",
        "--list-not-listed",
        list.to_str().unwrap(),
    ]);
    run.assert_success();
    let rows: Vec<Vec<String>> = csv::Reader::from_path(&list)
        .unwrap()
        .records()
        .map(|record| record.unwrap().iter().map(str::to_string).collect())
        .collect();
    assert_eq!(rows, expected_rows(&server));
}

#[test]
fn the_csv_says_why_when_nothing_is_listable() {
    let server = Site::new()
        .page(
            "/",
            r#"<meta name="robots" content="noindex"><a href="/missing">x</a>"#,
        )
        .serve();
    let out = tempfile::tempdir().unwrap();
    let list = out.path().join("not-listed.csv");
    let run = crawl(
        &server.url("/"),
        out.path(),
        &["--list-not-listed", list.to_str().unwrap()],
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(run.stderr.contains("no indexable page"), "{}", run.stderr);
    assert_eq!(
        std::fs::read_to_string(&list).unwrap(),
        format!(
            "url,reason,status,referrer\n{},noindex,200,\n{},http-404,404,{}\n",
            server.url("/"),
            server.url("/missing"),
            server.url("/")
        )
    );
}

/// The `GET` lines of a log: `(URL, status, verdict)`.
fn fetch_lines(stderr: &str) -> BTreeSet<(String, String, String)> {
    stderr
        .lines()
        .filter_map(|line| {
            let rest = &line[line.find(" GET ")? + 5..];
            let words: Vec<&str> = rest.split_whitespace().collect();
            assert_eq!(words.len(), 5, "GET URL STATUS MS ms VERDICT: {line}");
            assert_eq!(words[3], "ms", "{line}");
            assert!(words[2].parse::<u64>().is_ok(), "{line}");
            Some((
                words[0].to_string(),
                words[1].to_string(),
                words[4].to_string(),
            ))
        })
        .collect()
}

fn expected_fetches(server: &Server) -> BTreeSet<(String, String, String)> {
    let mut expected: BTreeSet<(String, String, String)> = NOT_LISTED
        .iter()
        .map(|(path, reason, status, _)| (server.url(path), status.to_string(), reason.to_string()))
        .collect();
    for path in ["/", "/a", "/b"] {
        expected.insert((server.url(path), "200".to_string(), "listed".to_string()));
    }
    expected
}

/// Crawls the site with dead links at `verbosity`, and checks that stderr has one line per URL
/// fetched.
fn crawl_logging_each_fetch(verbosity: &str) -> crate::harness::Run {
    let server = site_with_dead_links();
    let out = tempfile::tempdir().unwrap();
    let run = crawl(&server.url("/start"), out.path(), &[verbosity]);
    run.assert_success();
    assert_eq!(fetch_lines(&run.stderr), expected_fetches(&server));
    let get_lines = run
        .stderr
        .lines()
        .filter(|line| line.contains(" GET "))
        .count();
    // Every request but robots.txt's, once.
    assert_eq!(get_lines, server.targets().len() - 1, "{}", run.stderr);
    run
}

#[test]
fn verbose_logs_one_line_per_url_fetched() {
    crawl_logging_each_fetch("-v");
}

#[test]
fn very_verbose_adds_no_line_of_the_libraries() {
    let run = crawl_logging_each_fetch("-vv");
    // The tokenizer's states, connection pools and TLS: none of it.
    for noise in [
        "html5ever",
        "tokenizer",
        "processing",
        "connect",
        "hyper",
        "reqwest",
        "rustls",
    ] {
        assert!(
            !run.stderr.to_lowercase().contains(noise),
            "{noise}:\n{}",
            run.stderr
        );
    }
    let log_lines = run
        .stderr
        .lines()
        .filter(|line| line.contains(" DEBUG ") || line.contains(" TRACE "))
        .count();
    assert!(log_lines < 20, "{log_lines} debug lines:\n{}", run.stderr);
}

#[test]
fn the_crawl_summary_as_json() {
    let server = site_with_dead_links();
    let out = tempfile::tempdir().unwrap();
    let run = crawl(&server.url("/start"), out.path(), &["--summary", "json"]);
    run.assert_success();
    assert_eq!(run.stderr, "", "stderr carries warnings and errors only");
    let summary = parse_json(&run);
    assert_eq!(summary["version"], 1);
    assert_eq!(summary["command"], "crawl");
    assert_eq!(summary["ok"], true);
    assert_eq!(summary["exit_code"], 0);
    assert_eq!(summary["error"], Value::Null);
    assert_eq!(summary["seed"], server.url("/start"));
    assert_eq!(summary["scope_root"], server.url("/"));
    assert_eq!(summary["listed"], 3);
    assert_eq!(summary["not_listed_total"], 9);
    let requests = server.targets().len() as u64 - 1;
    assert_eq!(summary["requests"], requests);
    assert!(summary["pages_visited"].as_u64().unwrap() >= 10);
    assert!(summary["urls_discovered"].as_u64().unwrap() >= 11);
    let not_listed = summary["not_listed"].as_array().unwrap();
    let reasons: Vec<(&str, &str, u64)> = not_listed
        .iter()
        .map(|group| {
            (
                group["reason"].as_str().unwrap(),
                group["verdict"].as_str().unwrap(),
                group["count"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        reasons,
        [
            ("http-404", "excluded", 7),
            ("noindex", "excluded", 1),
            ("redirect", "redirect", 1)
        ]
    );
    let examples: Vec<(String, Value)> = not_listed[0]["examples"]
        .as_array()
        .unwrap()
        .iter()
        .map(|example| {
            (
                example["url"].as_str().unwrap().to_string(),
                example["referrer"].clone(),
            )
        })
        .collect();
    let example =
        |path: &str, referrer: &str| (server.url(path), Value::from(server.url(referrer)));
    assert_eq!(
        examples,
        [
            example("/missing-1", "/"),
            example("/missing-2", "/a"),
            example("/missing-3", "/"),
            example("/missing-4", "/a"),
            example("/missing-5", "/a"),
        ]
    );
    assert_eq!(
        not_listed[2]["examples"][0],
        serde_json::json!({"url": server.url("/start"), "referrer": null})
    );
    assert_eq!(
        summary["concurrency"],
        serde_json::json!({"mode": "fixed", "final": 8, "max_reached": 8, "decreases": 0})
    );
    assert_eq!(
        summary["limits_reached"],
        serde_json::json!({"max_pages": null, "max_urls": null, "max_requests": null, "max_depth": null})
    );
    let sitemap = out.path().join("sitemap.xml");
    assert_eq!(
        summary["files"]["written"],
        serde_json::json!([sitemap.to_str().unwrap()])
    );
    assert_eq!(summary["files"]["stdout"], false);
    assert_eq!(summary["files"]["urls"], 3);
    assert_eq!(summary["changes"], Value::Null);
    assert_eq!(summary["rendering"]["mode"], "auto");
    assert_eq!(summary["rendering"]["rendered"], 0);
    assert!(summary["timings"]["elapsed_seconds"].as_f64().unwrap() >= 0.0);
    assert!(
        summary["timings"]["started_at"]
            .as_str()
            .unwrap()
            .ends_with('Z')
    );
    if cfg!(target_os = "linux") {
        assert!(summary["resources"]["peak_memory_bytes"].as_u64().unwrap() > 1_000_000);
        assert!(summary["resources"]["cpu_seconds"].as_f64().is_some());
    }
}

#[test]
fn the_summary_in_the_config_file_and_changes_since_the_previous_run() {
    let server = site_with_dead_links();
    let out = tempfile::tempdir().unwrap();
    let config = out.path().join("sitemapper.toml");
    std::fs::write(&config, "summary = \"json\"\nretries = 0\n").unwrap();
    let state = out.path().join("crawl.db");
    let args = [
        "crawl",
        &server.url("/start"),
        "--out",
        out.path().to_str().unwrap(),
        "--config",
        config.to_str().unwrap(),
        "--state",
        state.to_str().unwrap(),
    ];
    let first = parse_json(sitemapper(&args).assert_success());
    assert_eq!(first["changes"], Value::Null);
    let second = parse_json(sitemapper(&args).assert_success());
    assert_eq!(
        second["changes"],
        serde_json::json!({"previous_run": 1, "added": 0, "removed": 0, "changed": 0})
    );
    assert_eq!(second["run"], 2);

    let runs = sitemapper(&[
        "runs",
        "--state",
        state.to_str().unwrap(),
        "--summary",
        "json",
    ]);
    let runs = parse_json(runs.assert_success());
    assert_eq!(runs["command"], "runs");
    assert_eq!(runs["ok"], true);
    assert_eq!(runs["state"], state.to_str().unwrap());
    let list = runs["runs"].as_array().unwrap();
    let summary: Vec<(u64, &str, u64, Value)> = list
        .iter()
        .map(|run| {
            (
                run["run"].as_u64().unwrap(),
                run["status"].as_str().unwrap(),
                run["pages_listed"].as_u64().unwrap(),
                run["added"].clone(),
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            (2, "complete", 3, Value::from(0)),
            (1, "complete", 3, Value::Null)
        ]
    );
    assert_eq!(list[0]["seed"], server.url("/start"));
    assert!(list[0]["finished_at"].is_string());

    let missing = sitemapper(&["runs", "--state", "no-such.db", "--summary", "json"]);
    assert_eq!(missing.code, 2);
    let failed = parse_json(&missing);
    assert_eq!(failed["ok"], false);
    assert_eq!(failed["exit_code"], 2);
    assert_eq!(failed["error"], "no crawl database at no-such.db");
}

#[test]
fn a_failed_run_still_prints_a_json_object() {
    let server = Site::new().serve();
    let out = tempfile::tempdir().unwrap();
    let run = crawl(&server.url("/"), out.path(), &["--summary", "json"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let failed = parse_json(&run);
    assert_eq!(failed["version"], 1);
    assert_eq!(failed["command"], "crawl");
    assert_eq!(failed["ok"], false);
    assert_eq!(failed["exit_code"], 1);
    let error = failed["error"].as_str().unwrap();
    assert!(error.contains("404"), "{error}");
    assert_eq!(run.stderr.trim_end(), format!("error: {error}"));

    let usage = crawl(
        &server.url("/"),
        out.path(),
        &["--summary", "json", "--include", "("],
    );
    assert_eq!(usage.code, 2);
    assert_eq!(parse_json(&usage)["exit_code"], 2);
}

#[test]
fn the_audit_summary_as_json() {
    let server = site_with_dead_links();
    let report = tempfile::tempdir().unwrap();
    let run = sitemapper(&[
        "audit",
        &server.url("/start"),
        "--report",
        report.path().to_str().unwrap(),
        "--retries",
        "0",
        "--summary",
        "json",
        "--fail-on",
        "error",
    ]);
    assert_eq!(run.code, 4, "{}", run.stderr);
    let summary = parse_json(&run);
    assert_eq!(summary["command"], "audit");
    assert_eq!(summary["ok"], false);
    assert_eq!(summary["exit_code"], 4);
    assert_eq!(summary["crawl"]["listed"], 3);
    assert_eq!(summary["crawl"]["not_listed_total"], 9);
    let findings = &summary["findings"];
    let broken = findings["by_kind"]
        .as_array()
        .unwrap()
        .iter()
        .find(|kind| kind["kind"] == "broken-link")
        .unwrap_or_else(|| panic!("no broken-link in {findings}"));
    assert_eq!(broken["severity"], "error");
    assert_eq!(broken["count"], 7);
    let errors = findings["by_severity"]["error"].as_u64().unwrap();
    assert!(errors >= 7, "{findings}");
    let total: u64 = ["error", "warning", "notice", "info"]
        .iter()
        .map(|severity| findings["by_severity"][severity].as_u64().unwrap())
        .sum();
    assert_eq!(findings["total"], total);
    let health = &summary["health"];
    let score = health["score"].as_u64().unwrap();
    assert!(score < 100, "{health}");
    assert_eq!(health["previous"], serde_json::Value::Null);
    assert_eq!(
        (health["new"].as_u64(), health["fixed"].as_u64()),
        (Some(0), Some(0))
    );
    assert_eq!(
        summary["fail_on"],
        serde_json::json!({"severity": "error", "findings": errors})
    );
    assert_eq!(
        summary["error"],
        format!("{errors} findings at error level or worse (--fail-on error)")
    );
    let files: Vec<&str> = summary["report"]["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|file| file.as_str().unwrap())
        .collect();
    for name in ["report.html", "findings.csv", "report.json", "crawl.db"] {
        let path = report.path().join(name);
        assert!(files.contains(&path.to_str().unwrap()), "{name}: {files:?}");
        assert!(path.exists(), "{name}");
    }
}

#[test]
fn a_text_sitemap_on_stdout_writes_no_file() {
    let server = site_with_dead_links();
    let directory = tempfile::tempdir().unwrap();
    let run = sitemapper_in(
        directory.path(),
        &[
            "crawl",
            &server.url("/start"),
            "--format",
            "txt",
            "--out",
            "-",
            "--retries",
            "0",
        ],
        None,
    );
    run.assert_success();
    let expected = format!(
        "{}\n{}\n{}\n",
        server.url("/"),
        server.url("/a"),
        server.url("/b")
    );
    assert_eq!(run.stdout, expected);
    assert!(
        files_in(directory.path()).is_empty(),
        "no file, no folder named -"
    );
    assert!(
        run.stderr
            .contains("Printed the sitemap on stdout: 3 URLs."),
        "{}",
        run.stderr
    );
}

#[test]
fn an_xml_sitemap_on_stdout_when_it_fits_one_file() {
    let server = site_with_dead_links();
    let directory = tempfile::tempdir().unwrap();
    let seed = server.url("/start");
    let args = ["crawl", &seed, "--out", "-", "--retries", "0"];
    let run = sitemapper_in(directory.path(), &args, None);
    run.assert_success();
    assert!(run.stdout.starts_with("<?xml"), "{}", run.stdout);
    assert_eq!(
        crate::harness::locs(&run.stdout),
        [server.url("/"), server.url("/a"), server.url("/b")]
    );
    assert!(files_in(directory.path()).is_empty());

    // Two files and an index cannot be one document on stdout.
    let mut split = args.to_vec();
    split.extend(["--max-urls-per-file", "2"]);
    let run = sitemapper_in(directory.path(), &split, None);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert_eq!(run.stdout, "");
    assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
    assert!(
        run.stderr
            .starts_with("error: --out -: 3 URLs need 2 sitemap files and an index"),
        "{}",
        run.stderr
    );
    assert!(files_in(directory.path()).is_empty());
}

#[test]
fn stdout_carries_one_output_and_the_change_report_can_be_it() {
    let server = site_with_dead_links();
    let out = tempfile::tempdir().unwrap();
    let state = out.path().join("crawl.db");
    let run = crawl(
        &server.url("/start"),
        out.path(),
        &["--state", state.to_str().unwrap(), "--report-changes", "-"],
    );
    run.assert_success();
    let report: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(report["run"], 1);
    assert_eq!(report["previous_run"], Value::Null);
    assert_eq!(
        report["added"],
        serde_json::json!([server.url("/"), server.url("/a"), server.url("/b")])
    );
    assert!(!out.path().join("-").exists());

    for extra in [
        &["--out", "-", "--summary", "json"][..],
        &["--list-not-listed", "-", "--report-changes", "-"][..],
        &["--out", "-", "--gzip"][..],
        &["--out", "-", "--format", "xml,txt"][..],
    ] {
        let run = crawl(&server.url("/start"), out.path(), extra);
        assert_eq!(run.code, 2, "{extra:?}: {}", run.stderr);
    }
}
