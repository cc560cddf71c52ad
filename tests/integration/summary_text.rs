//! What a new user reads on stderr: the summary counts in words that agree with their
//! numbers, a warning at the default verbosity reads as the summary does (no log format),
//! the audit's summary says only what means something for an audit, and a reader of stdout
//! that goes early ends a command quietly without hiding a failure of its own.

use std::io::{BufRead, BufReader};
use std::process::Stdio;

use crate::audit::{audit, troubled_site};
use crate::fixture::{Route, Site};
use crate::harness::{Run, crawl, sitemapper, sitemapper_command};

#[test]
fn one_of_each_is_said_in_the_singular() {
    let server = Site::new().page("/", "<title>Home</title>").serve();
    let out = tempfile::tempdir().unwrap();
    let run = crawl(&server.url("/"), out.path(), &[]);
    run.assert_success();
    for line in [
        "1 page visited, 1 request, 1 URL discovered.",
        "Listed: 1 URL.",
        "  sitemap.xml  1 URL",
    ] {
        assert!(run.stderr.contains(line), "no {line:?} in\n{}", run.stderr);
    }
    let sitemap = out.path().join("sitemap.xml");
    let validated = sitemapper(&["validate", sitemap.to_str().unwrap()]);
    assert_eq!(validated.code, 0, "{}", validated.stderr);
    assert!(
        validated.stdout.contains("valid sitemap, 1 entry\n")
            && validated.stdout.ends_with("1 file, 1 entry, 0 problems.\n"),
        "{}",
        validated.stdout
    );
}

/// The lines of `stderr` that look like a log's: a timestamp first, or a level column.
fn log_lines(stderr: &str) -> Vec<&str> {
    stderr
        .lines()
        .filter(|line| {
            line.starts_with(|first: char| first.is_ascii_digit())
                || [" WARN ", " ERROR ", " INFO "]
                    .iter()
                    .any(|level| line.contains(level))
        })
        .collect()
}

#[test]
fn a_warning_reads_as_prose_unless_logs_are_asked_for() {
    let server = Site::new().page("/", "<title>Home</title>").serve();
    let out = tempfile::tempdir().unwrap();
    let run = crawl(&server.url("/"), out.path(), &["--ignore-robots"]);
    run.assert_success();
    assert_eq!(
        run.stderr.lines().next(),
        Some("Warning: robots.txt is IGNORED for this crawl (--ignore-robots)"),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains("WARN"), "{}", run.stderr);
    assert_eq!(log_lines(&run.stderr), Vec::<&str>::new(), "{}", run.stderr);

    // -v asks for logs: they keep the log format.
    let logged = crawl(&server.url("/"), out.path(), &["--ignore-robots", "-v"]);
    logged.assert_success();
    let warning = logged
        .stderr
        .lines()
        .find(|line| line.contains("robots.txt is IGNORED"))
        .unwrap_or_default();
    assert!(
        warning.contains(" WARN ") && warning.starts_with(|c: char| c.is_ascii_digit()),
        "{}",
        logged.stderr
    );
}

#[test]
fn the_audit_says_nothing_of_a_sitemap_it_did_not_publish() {
    let server = troubled_site();
    let endpoint = Site::new().route("/indexnow", Route::new(202, "")).serve();
    let report = tempfile::tempdir().unwrap();
    let state = report.path().join("kept.db");
    let endpoint_url = endpoint.url("/indexnow");
    let extra = [
        "--state",
        state.to_str().unwrap(),
        "--indexnow-key",
        "0123456789abcdef",
        "--indexnow-endpoint",
        &endpoint_url,
    ];
    for run in 1..=2 {
        let audited = audit(&server, report.path(), &extra);
        assert_eq!(audited.code, 0, "run {run}: {}", audited.stderr);
        for crawl_only in [
            "First run in",
            "Since run #",
            "Wrote sitemap",
            "lastmod kept",
            "IndexNow",
        ] {
            assert!(
                !audited.stderr.contains(crawl_only),
                "run {run}: {crawl_only:?} in\n{}",
                audited.stderr
            );
        }
        for line in ["Crawled ", "Health score: ", "Report: "] {
            assert!(
                audited.stderr.contains(line),
                "run {run}: no {line:?} in\n{}",
                audited.stderr
            );
        }
        // What the run cost ends the summary, after the audit's lines.
        let last = audited.stderr.lines().last().unwrap_or_default();
        assert!(
            last.starts_with("CPU time: "),
            "run {run}:\n{}",
            audited.stderr
        );
    }
    // Given --out, the audit publishes its sitemap, and says so.
    let out = tempfile::tempdir().unwrap();
    let published = audit(
        &server,
        report.path(),
        &["--out", out.path().to_str().unwrap()],
    );
    assert_eq!(published.code, 0, "{}", published.stderr);
    assert!(
        published.stderr.contains("Wrote sitemap"),
        "{}",
        published.stderr
    );
}

/// Runs `sitemapper ARGS`, reads the first line of its stdout and stops reading, as
/// `| head -1` does; returns the line and how the command ended.
fn first_line_then_gone(args: &[&str]) -> (String, Run) {
    let mut child = sitemapper_command(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run sitemapper");
    let mut first = String::new();
    let stdout = child.stdout.take().unwrap();
    BufReader::new(stdout).read_line(&mut first).unwrap();
    // The reader is dropped here: the command's next writes find the pipe closed.
    let output = child.wait_with_output().expect("wait for sitemapper");
    (first, output.into())
}

#[test]
fn a_reader_that_stops_after_one_line_ends_a_large_output_quietly() {
    // A sitemap of 3,000 URLs on stdout: far more than a pipe holds.
    let links: String = (0..3000)
        .map(|page| format!("<a href=\"/p{page}\">{page}</a>"))
        .collect();
    let server = Site::new()
        .page("/", &links)
        .generated(|path| path.starts_with("/p").then(|| Route::html("a page")))
        .serve();
    let directory = tempfile::tempdir().unwrap();
    let state = directory.path().join("crawl.db");
    let seed = server.url("/");
    let (first, run) = first_line_then_gone(&[
        "crawl",
        &seed,
        "--retries",
        "0",
        "--out",
        "-",
        "--format",
        "txt",
        "--state",
        state.to_str().unwrap(),
    ]);
    assert!(first.starts_with("http://"), "{first:?}");
    assert_eq!(run.code, 0, "{}", run.stderr);
    for said in ["error", "Error", "pipe", "panicked"] {
        assert!(!run.stderr.contains(said), "{said:?} in\n{}", run.stderr);
    }
    let state = state.to_str().unwrap();
    for args in [
        &["runs", "--state", state][..],
        &["man"],
        &["completions", "bash"],
    ] {
        let (first, run) = first_line_then_gone(args);
        assert!(!first.is_empty(), "{args:?}");
        assert_eq!(run.code, 0, "{args:?}: {}", run.stderr);
        assert!(
            !run.stderr.contains("rror") && !run.stderr.contains("panicked"),
            "{args:?}: {}",
            run.stderr
        );
    }
}

/// `sitemapper ARGS` with stdout a pipe whose reader has already gone.
fn with_stdout_closed(args: &[&str]) -> Run {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    sitemapper_command(args)
        .stdout(writer)
        .output()
        .expect("run sitemapper")
        .into()
}

#[test]
fn a_reader_gone_does_not_hide_a_failure_of_the_command_s_own() {
    let directory = tempfile::tempdir().unwrap();
    let missing = directory.path().join("missing.db");
    let run = with_stdout_closed(&[
        "runs",
        "--state",
        missing.to_str().unwrap(),
        "--summary",
        "json",
    ]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.starts_with("error: no crawl database at "),
        "{}",
        run.stderr
    );

    let server = troubled_site();
    let report = tempfile::tempdir().unwrap();
    let seed = server.url("/");
    let run = with_stdout_closed(&[
        "audit",
        &seed,
        "--report",
        report.path().to_str().unwrap(),
        "--retries",
        "0",
        "--fail-on",
        "error",
        "--summary",
        "json",
    ]);
    assert_eq!(run.code, 4, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("at error level or worse (--fail-on error)"),
        "{}",
        run.stderr
    );
}

#[test]
fn an_audit_that_publishes_nothing_notifies_indexnow_of_nothing() {
    let site = |pages: &[&str]| {
        let links: String = pages
            .iter()
            .map(|page| format!("<a href=\"{page}\">{page}</a>"))
            .collect();
        pages.iter().fold(
            Site::new().page("/", &format!("<title>Home page of the site</title>{links}")),
            |site, page| site.page(page, "<title>A page of the site, one of a few</title>"),
        )
    };
    let server = site(&["/a"]).serve();
    let endpoint = Site::new().route("/indexnow", Route::new(202, "")).serve();
    let report = tempfile::tempdir().unwrap();
    let endpoint_url = endpoint.url("/indexnow");
    let extra = [
        "--indexnow-key",
        "0123456789abcdef",
        "--indexnow-endpoint",
        endpoint_url.as_str(),
    ];
    audit(&server, report.path(), &extra).assert_success();
    server.change(site(&["/a", "/b"]));
    let second = audit(&server, report.path(), &extra);
    second.assert_success();
    assert!(
        endpoint.requests().is_empty(),
        "the audit's sitemap is not the site's: {:?}\n{}",
        endpoint.requests(),
        second.stderr
    );
}
