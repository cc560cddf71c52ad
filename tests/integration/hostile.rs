//! Sites that misbehave on purpose: every crawl still ends, in bounded time and memory, with
//! the right pages listed; bad input from the user loses nothing.

use std::collections::BTreeSet;
use std::io::Write;
use std::process::{Command, Stdio};
use std::time::Duration;

use sitemapper_store::Verdict;

use crate::fixture::{BodyPacing, Route, Server, Site};
use crate::harness::{
    crawl, crawl_recorded, listed_urls, peak_memory_mib, sitemapper, sitemapper_command, verdict_of,
};

fn urls(server: &Server, paths: &[&str]) -> BTreeSet<String> {
    paths.iter().map(|path| server.url(path)).collect()
}

fn links_to(paths: &[&str]) -> String {
    paths
        .iter()
        .map(|path| format!("<a href=\"{path}\">{path}</a>"))
        .collect()
}

fn requested(server: &Server, prefix: &str) -> usize {
    server
        .targets()
        .iter()
        .filter(|target| target.starts_with(prefix))
        .count()
}

/// A gzip body that expands to `expanded` bytes: `head`, then zeros.
fn gzip_bomb(head: &str, expanded: usize) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    encoder.write_all(head.as_bytes()).unwrap();
    let zeros = vec![0u8; 1 << 20];
    let mut written = head.len();
    while written < expanded {
        let chunk = zeros.len().min(expanded - written);
        encoder.write_all(&zeros[..chunk]).unwrap();
        written += chunk;
    }
    encoder.finish().unwrap()
}

/// An endless calendar: every month links to the next one.
fn calendar(target: &str) -> Option<Route> {
    let rest = target.strip_prefix("/calendar/")?;
    let (year, month) = rest.trim_end_matches('/').split_once('/')?;
    let (year, month): (u32, u32) = (year.parse().ok()?, month.parse().ok()?);
    let (next_year, next_month) = if month == 12 {
        (year + 1, 1)
    } else {
        (year, month + 1)
    };
    Some(Route::html(&format!(
        "<h1>{year}-{month:02}</h1><a href=\"/calendar/{next_year}/{next_month:02}/\">next</a><a href=\"/\">home</a>"
    )))
}

/// Every response links to the same two pages with a fresh session id.
fn session_ids(target: &str) -> Option<Route> {
    static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let path = target.split('?').next()?;
    if !matches!(path, "/shop" | "/shop/a" | "/shop/b") {
        return None;
    }
    let mut links = String::new();
    for page in ["/shop/a", "/shop/b"] {
        let number = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let token = format!(
            "s{:016x}z{number}",
            number.wrapping_mul(0x9E37_79B9_7F4A_7C15)
        );
        links.push_str(&format!("<a href=\"{page}?visit={token}\">{page}</a>"));
    }
    Some(Route::html(&links))
}

#[test]
fn slow_bodies_end_at_the_deadline_and_slow_pages_are_waited_for() {
    let body = "<html><body><p>slow</p></body></html>".repeat(20);
    let server = Site::new()
        .page("/", &links_to(&["/trickle", "/stall", "/hang", "/slow"]))
        .route(
            "/trickle",
            Route::html(&body).pacing(BodyPacing::Trickle(Duration::from_millis(200))),
        )
        .route("/stall", Route::html(&body).pacing(BodyPacing::Stall(100)))
        .route(
            "/hang",
            Route::html("never").delay(Duration::from_secs(3600)),
        )
        .route(
            "/slow",
            Route::html("<p>slow but finite</p>").delay(Duration::from_millis(1500)),
        )
        .serve();
    let out = tempfile::tempdir().unwrap();
    // Three of five pages never finish: a run that is mostly timeouts publishes only when told.
    let (run, store) = crawl_recorded(
        &server.url("/"),
        out.path(),
        &["--timeout", "3", "--max-shrink", "100"],
    );
    run.assert_success();
    assert_eq!(listed_urls(out.path()), urls(&server, &["/", "/slow"]));
    for path in ["/trickle", "/stall", "/hang"] {
        let page = store.page(&server.url(path)).unwrap().unwrap();
        assert_eq!(
            page.reason.map(|reason| reason.to_string()).as_deref(),
            Some("fetch-error"),
            "{path}"
        );
        assert!(
            page.detail
                .as_deref()
                .is_some_and(|detail| detail.contains("no complete answer from")
                    && detail.ends_with("within 3 s (--timeout 3)")),
            "{path}: {:?}",
            page.detail
        );
    }
}

#[test]
fn a_gzip_bomb_costs_at_most_the_body_cap() {
    let bomb = gzip_bomb("<html><body><a href=\"/after-bomb\">x</a>", 1 << 30);
    assert!(
        bomb.len() < 2 << 20,
        "the bomb is small on the wire: {}",
        bomb.len()
    );
    let server = Site::new()
        .page("/", &links_to(&["/bomb", "/corrupt"]))
        .route(
            "/bomb",
            Route::html("")
                .header("Content-Encoding", "gzip")
                .bytes(bomb),
        )
        .route(
            "/corrupt",
            Route::html("")
                .header("Content-Encoding", "gzip")
                .bytes(b"\x1f\x8b\x08\x00garbage, not deflate at all".to_vec()),
        )
        .page("/after-bomb", "found in the bomb's first bytes")
        .serve();
    let out = tempfile::tempdir().unwrap();
    let (run, store) = crawl_recorded(&server.url("/"), out.path(), &[]);
    run.assert_success();
    assert_eq!(
        listed_urls(out.path()),
        urls(&server, &["/", "/bomb", "/after-bomb"])
    );
    assert_eq!(
        verdict_of(&store, &server.url("/corrupt")),
        (Verdict::Excluded, Some("fetch-error".into()))
    );
    let peak = peak_memory_mib(&run.stderr);
    assert!(peak < 150.0, "1 GiB expanded cost {peak} MiB");
}

#[test]
fn a_20_mb_page_is_truncated_at_the_cap_and_its_early_links_found() {
    let mut huge = String::from("<html><body><a href=\"/early\">early</a><p>");
    huge.push_str(&"lorem ipsum ".repeat(20 * 1024 * 1024 / 12));
    huge.push_str("</p><a href=\"/late\">late</a></body></html>");
    let server = Site::new()
        .page("/", "<a href=\"/huge\">huge</a>")
        .page("/huge", &huge)
        .page("/early", "early")
        .page("/late", "late")
        .serve();
    let out = tempfile::tempdir().unwrap();
    crawl(&server.url("/"), out.path(), &[]).assert_success();
    assert_eq!(requested(&server, "/early"), 1);
    assert_eq!(
        requested(&server, "/late"),
        0,
        "the end of the page is past the cap"
    );
}

#[test]
fn an_endless_calendar_is_cut_short_and_the_rest_of_the_site_is_crawled() {
    let server = Site::new()
        .page("/", &links_to(&["/calendar/2024/01/", "/about", "/sub/"]))
        .page("/about", "about")
        .page("/sub/", "<a href=\"sub/\">again</a>")
        .page("/sub/sub/", "<a href=\"sub/\">again</a>")
        .page("/sub/sub/sub/", "never")
        .generated(calendar)
        .serve();
    let out = tempfile::tempdir().unwrap();
    let (run, store) = crawl_recorded(&server.url("/"), out.path(), &[]);
    run.assert_success();
    let months = requested(&server, "/calendar/");
    assert!(
        (100..=102).contains(&months),
        "the chain is cut at 100: {months} months fetched"
    );
    assert!(
        run.stderr
            .contains("Crawler trap cut short (an endless chain of same-shaped pages)"),
        "{}",
        run.stderr
    );
    assert_eq!(requested(&server, "/sub/sub/sub/"), 0, "repeated segments");
    assert_eq!(
        verdict_of(&store, &server.url("/sub/sub/sub/"))
            .1
            .as_deref(),
        Some("trap-repeated-segments")
    );
    let listed = listed_urls(out.path());
    assert!(listed.contains(&server.url("/about")));
    assert_eq!(
        listed.len(),
        months + 4,
        "/, /about, /sub/, /sub/sub/ and the months"
    );

    // The limit is the user's to move.
    let shorter = tempfile::tempdir().unwrap();
    crawl(
        &server.url("/"),
        shorter.path(),
        &["--max-pattern-chain", "10"],
    )
    .assert_success();
    assert_eq!(listed_urls(shorter.path()).len(), 11 + 4);
}

#[test]
fn session_ids_in_every_link_are_detected_and_stripped() {
    let server = Site::new()
        .page("/", &links_to(&["/shop", "/about"]))
        .page("/about", "about")
        .generated(session_ids)
        .serve();
    let out = tempfile::tempdir().unwrap();
    let run = crawl(&server.url("/"), out.path(), &[]);
    run.assert_success();
    assert!(
        run.stderr
            .contains("Session parameters detected and stripped from every URL: visit."),
        "{}",
        run.stderr
    );
    assert_eq!(
        listed_urls(out.path()),
        urls(&server, &["/", "/about", "/shop", "/shop/a", "/shop/b"])
    );
    assert!(requested(&server, "/shop") < 20, "{:?}", server.targets());
}

/// A site that makes 1,000 new links on every page, without end.
fn endless_links(target: &str) -> Option<Route> {
    let number: u64 = target.strip_prefix("/n/")?.parse().ok()?;
    let links: String = (0..1000)
        .map(|index| format!("<a href=\"/n/{}\">{index}</a>", number * 1000 + index + 1))
        .collect();
    Some(Route::html(&links))
}

#[test]
fn a_site_of_endless_new_links_stays_in_bounded_memory() {
    let server = Site::new().generated(endless_links).serve();
    let out = tempfile::tempdir().unwrap();
    // 300 pages queue 300,000 URLs: most wait in the crawl database, not in memory.
    let run = crawl(
        &server.url("/n/0"),
        out.path(),
        &["--max-pages", "300", "--concurrency", "8"],
    );
    run.assert_success();
    assert!(
        run.stderr.contains("Stopped by --max-pages"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("300001 URLs discovered"),
        "every link was queued: {}",
        run.stderr
    );
    let peak = peak_memory_mib(&run.stderr);
    // Measured: about 55 MiB; with every queued URL in memory, about 110 MiB.
    assert!(peak < 85.0, "peak memory {peak} MiB");
}

#[test]
fn discovery_stops_at_max_urls_and_the_summary_says_so() {
    let server = Site::new().generated(endless_links).serve();
    let out = tempfile::tempdir().unwrap();
    let run = crawl(
        &server.url("/n/0"),
        out.path(),
        &["--max-urls", "2500", "--max-pages", "50"],
    );
    run.assert_success();
    assert!(
        run.stderr.contains(
            "Stopped discovering at --max-urls 2500: 47501 links to new URLs not followed."
        ),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("2500 URLs discovered"),
        "{}",
        run.stderr
    );
    assert_eq!(listed_urls(out.path()).len(), 50);
}

#[test]
fn the_request_budget_bounds_any_crawl() {
    let server = Site::new()
        .page("/", "<a href=\"/calendar/2000/01/\">calendar</a>")
        .generated(calendar)
        .serve();
    let out = tempfile::tempdir().unwrap();
    let run = crawl(
        &server.url("/"),
        out.path(),
        &["--max-requests", "10", "--max-pattern-chain", "0"],
    );
    run.assert_success();
    assert_eq!(
        requested(&server, "/calendar/"),
        9,
        "10 requests, the seed included"
    );
    assert!(run.stderr.contains("--max-requests"), "{}", run.stderr);

    // Eight requests in flight at once do not pass the budget together either.
    let mut home = String::new();
    let mut wide = Site::new();
    for page in 0..50 {
        home.push_str(&format!("<a href=\"/w/{page}\">{page}</a>"));
        wide = wide.route(
            &format!("/w/{page}"),
            Route::html("wide").delay(Duration::from_millis(50)),
        );
    }
    let server = wide.page("/", &home).serve();
    let out = tempfile::tempdir().unwrap();
    crawl(&server.url("/"), out.path(), &["--max-requests", "10"]).assert_success();
    assert_eq!(
        requested(&server, "/w/"),
        9,
        "10 requests, the seed included"
    );
}

fn previous_sitemap(out: &std::path::Path) -> Vec<u8> {
    let previous =
        b"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!-- the previous sitemap -->\n".to_vec();
    std::fs::write(out.join("sitemap.xml"), &previous).unwrap();
    previous
}

fn slow_site() -> Server {
    let mut home = String::new();
    for page in 0..200 {
        home.push_str(&format!("<a href=\"/slow/{page}\">{page}</a>"));
    }
    Site::new()
        .page("/", &home)
        .generated(|target| {
            target
                .starts_with("/slow/")
                .then(|| Route::html("slow").delay(Duration::from_millis(300)))
        })
        .serve()
}

fn spawn_crawl(
    seed: &str,
    out: &std::path::Path,
    temp_dir: &std::path::Path,
) -> std::process::Child {
    sitemapper_command(&[
        "crawl",
        seed,
        "--out",
        out.to_str().unwrap(),
        "--concurrency",
        "2",
    ])
    // A killed run cannot remove its temporary crawl database: keep it in a directory of the
    // test's, which the test removes.
    .env("TMPDIR", temp_dir)
    .stdout(Stdio::null())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap()
}

#[test]
fn a_crawl_killed_mid_run_leaves_the_previous_sitemap() {
    let server = slow_site();
    let out = tempfile::tempdir().unwrap();
    let previous = previous_sitemap(out.path());
    let temp_dir = tempfile::tempdir().unwrap();
    let mut child = spawn_crawl(&server.url("/"), out.path(), temp_dir.path());
    server.wait_for(|seen| {
        seen.iter()
            .filter(|seen| seen.target.starts_with("/slow/"))
            .count()
            >= 4
    });
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(
        std::fs::read(out.path().join("sitemap.xml")).unwrap(),
        previous
    );
}

#[test]
fn ctrl_c_and_sigterm_stop_gracefully_and_say_what_they_did() {
    for (signal, code, said, stopping) in [
        (
            "-INT",
            130,
            "error: interrupted after",
            "Stopping: no new request, nothing published (Ctrl-C again quits at once).",
        ),
        (
            "-TERM",
            143,
            "error: terminated (SIGTERM) after",
            "SIGTERM: stopping, nothing published.",
        ),
    ] {
        let server = slow_site();
        let out = tempfile::tempdir().unwrap();
        let previous = previous_sitemap(out.path());
        let temp_dir = tempfile::tempdir().unwrap();
        let child = spawn_crawl(&server.url("/"), out.path(), temp_dir.path());
        server.wait_for(|seen| {
            seen.iter()
                .filter(|seen| seen.target.starts_with("/slow/"))
                .count()
                >= 4
        });
        let status = Command::new("kill")
            .args([signal, &child.id().to_string()])
            .status()
            .unwrap();
        assert!(status.success());
        let at_signal = requested(&server, "/slow/");
        let output = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(code), "{signal}: {stderr}");
        assert!(
            stderr.contains(said) && stderr.contains("left as it was"),
            "{signal}: {stderr}"
        );
        assert_eq!(
            stderr
                .lines()
                .filter(|line| line.starts_with("error:"))
                .count(),
            1,
            "{signal}: one error line: {stderr}"
        );
        // The signal is answered at once by one plain line (no time, no level), and that and
        // the error line are all that is said.
        let lines: Vec<&str> = stderr.lines().filter(|line| !line.is_empty()).collect();
        assert_eq!(lines.len(), 2, "{signal}: {stderr}");
        assert_eq!(lines[0], stopping, "{signal}: {stderr}");
        // Two requests were in flight at most (--concurrency 2); none started after.
        assert!(
            requested(&server, "/slow/") <= at_signal + 2,
            "{signal}: no new requests after the signal"
        );
        assert_eq!(
            std::fs::read(out.path().join("sitemap.xml")).unwrap(),
            previous
        );
        let left: Vec<String> = std::fs::read_dir(out.path())
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|name| name != "sitemap.xml")
            .collect();
        assert!(
            left.is_empty(),
            "{signal}: the staging directory is removed: {left:?}"
        );
    }
}

#[test]
fn an_unreachable_host_or_an_unwritable_output_is_one_line_and_loses_nothing() {
    let closed_port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let out = tempfile::tempdir().unwrap();
    let previous = previous_sitemap(out.path());
    let run = crawl(&format!("http://127.0.0.1:{closed_port}/"), out.path(), &[]);
    assert_eq!(run.code, 1);
    assert_eq!(run.stderr.trim().lines().count(), 1, "{}", run.stderr);
    assert!(
        run.stderr.contains(&format!("127.0.0.1:{closed_port}")),
        "{}",
        run.stderr
    );
    assert_eq!(
        std::fs::read(out.path().join("sitemap.xml")).unwrap(),
        previous
    );

    let server = Site::new().page("/", "home").serve();
    let file = out.path().join("a-file");
    std::fs::write(&file, "not a directory").unwrap();
    let run = sitemapper(&[
        "crawl",
        &server.url("/"),
        "--out",
        file.join("sub").to_str().unwrap(),
    ]);
    assert_eq!(run.code, 2);
    assert_eq!(run.stderr.trim().lines().count(), 1, "{}", run.stderr);
    assert!(run.stderr.contains("a-file"), "{}", run.stderr);
    assert!(
        server.targets().is_empty(),
        "nothing is fetched before the output is known to work"
    );
}

#[test]
fn a_hostile_site_all_at_once() {
    let mut malformed = b"<html><body><div><a href=unquoted>u</a><a href='single'>s</a>\
        <p><a href=\"/nul\0byte\">n</a>\xff\xfe invalid UTF-8 <table><a href=\"/in-table\">t</a>"
        .to_vec();
    // An element left open to the end of the file still counts; a tag cut off by the end of
    // the file does not, for a browser either.
    malformed.extend_from_slice(b"<a href=/unclosed>unclosed <a href=/cut-off");
    let server = Site::new()
        .page(
            "/",
            &links_to(&[
                "/calendar/1999/01/",
                "/shop",
                "/bomb",
                "/huge",
                "/trickle",
                "/malformed",
                "/about",
                "/sub/",
            ]),
        )
        .page("/about", "about")
        .page("/sub/", "<a href=\"sub/\">again</a>")
        .page("/sub/sub/", "<a href=\"sub/\">again</a>")
        .route(
            "/bomb",
            Route::html("")
                .header("Content-Encoding", "gzip")
                .bytes(gzip_bomb("<a href=\"/about\">x</a>", 512 << 20)),
        )
        .page("/huge", &"<p>lorem ipsum</p>".repeat(20 * 1024 * 1024 / 18))
        .route(
            "/trickle",
            Route::html(&"x".repeat(1000)).pacing(BodyPacing::Trickle(Duration::from_millis(100))),
        )
        .route(
            "/malformed",
            Route::new(200, "")
                .header("Content-Type", "text/html")
                .bytes(malformed),
        )
        .page("/unquoted", "u")
        .page("/single", "s")
        .page("/in-table", "t")
        .page("/unclosed", "c")
        .generated(|target| calendar(target).or_else(|| session_ids(target)))
        .serve();
    let out = tempfile::tempdir().unwrap();
    let run = crawl(&server.url("/"), out.path(), &["--timeout", "3"]);
    run.assert_success();
    let listed = listed_urls(out.path());
    let expected_fixed = urls(
        &server,
        &[
            "/",
            "/about",
            "/sub/",
            "/sub/sub/",
            "/shop",
            "/shop/a",
            "/shop/b",
            "/bomb",
            "/huge",
            "/malformed",
            "/unquoted",
            "/single",
            "/in-table",
            "/unclosed",
        ],
    );
    let months: BTreeSet<String> = listed
        .iter()
        .filter(|url| url.contains("/calendar/"))
        .cloned()
        .collect();
    assert!(
        (100..=102).contains(&months.len()),
        "{} months",
        months.len()
    );
    let others: BTreeSet<String> = listed.difference(&months).cloned().collect();
    assert_eq!(others, expected_fixed);
    // The bound: extraction streams tokens and keeps no DOM, so a page costs a few times the
    // body cap (10 MiB) at most, one page per core at a time.
    let peak = peak_memory_mib(&run.stderr);
    assert!(peak < 100.0, "peak memory {peak} MiB");
}

#[test]
fn a_seed_of_100000_characters_is_a_usage_error_of_one_short_line() {
    let out = tempfile::tempdir().unwrap();
    for seed in [
        format!("http://127.0.0.1:9/{}", "a".repeat(100_000)),
        format!("not a url {}", "b".repeat(100_000)),
    ] {
        let run = crawl(&seed, out.path(), &[]);
        assert_eq!(run.code, 2, "{}", &run.stderr[..run.stderr.len().min(300)]);
        assert_eq!(run.stderr.lines().count(), 1);
        assert!(run.stderr.len() < 400, "{} bytes", run.stderr.len());
    }
}
