//! The audit checks the links that leave the site (docs/audit.md, Outbound links): the site on
//! 127.0.0.1 links to another host on 127.0.0.2, whose paths answer each way a link can end.
//! Each URL is asked once (HEAD, then GET where HEAD is refused), one request at a time and a
//! second apart, robots.txt obeyed; the results are kept, reused by the next audit, asked
//! again when they are too old, and never asked for by `crawl` or with
//! `--check-external=false`. A public site cannot send the checks into a private network.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use crate::audit::{csv_rows, report_json};
use crate::fixture::{Route, Seen, Server, Site};
use crate::harness::{Run, sitemapper, sitemapper_command};

/// Where the other site is served.
const OTHER: &str = "127.0.0.2";

/// The check's deadline in these tests (`--external-timeout`), shorter than /hang's answer.
const TIMEOUT_SECONDS: &str = "2";

/// The other site: a page for each way a link can end.
fn other_site() -> Server {
    Site::new()
        .route(
            "/robots.txt",
            Route::new(200, "User-agent: *\nDisallow: /private\n"),
        )
        .route("/ok", Route::new(200, "fine"))
        .route("/moved", Route::redirect(301, "/new"))
        .route("/new", Route::new(200, "moved here"))
        .route("/gone", Route::new(404, "gone"))
        .route("/busy", Route::new(429, "slow down"))
        .route("/no-head", Route::new(200, "fine, when asked with GET"))
        .route(
            "/hang",
            Route::new(200, "too late").delay(Duration::from_secs(30)),
        )
        .route("/private", Route::new(200, "not for robots"))
        .guarded(|seen| {
            (seen.method == "HEAD" && seen.target == "/no-head").then(|| Route::new(405, ""))
        })
        .serve_on(OTHER)
}

/// The audited site: its home links to every page of `other`, its about page links to /gone
/// again and shows /ok as an image.
fn site_linking_to(other: &Server) -> Server {
    let links: String = [
        "/ok", "/moved", "/gone", "/busy", "/no-head", "/hang", "/private",
    ]
    .iter()
    .map(|path| format!("<a href=\"{}\">{path}</a>", other.url(path)))
    .collect();
    let about = format!(
        "<a href=\"{}\">gone</a><img src=\"{}\" alt=\"ok\">",
        other.url("/gone"),
        other.url("/ok")
    );
    Site::new()
        .page(
            "/",
            &format!("<title>Home</title><a href=\"/about\">about</a>{links}"),
        )
        .page("/about", &format!("<title>About</title>{about}"))
        .serve()
}

fn audit(seed: &str, report: &Path, extra: &[&str]) -> Run {
    let mut args = vec![
        "audit",
        seed,
        "--report",
        report.to_str().unwrap(),
        "--external-timeout",
        TIMEOUT_SECONDS,
    ];
    args.extend_from_slice(extra);
    // Checked by default: the harness turns the check off for every other test.
    sitemapper_command(&args)
        .env_remove("SITEMAPPER_CHECK_EXTERNAL")
        .output()
        .unwrap()
        .into()
}

/// `(method, path)` of each request, in order.
fn asked(requests: &[Seen]) -> Vec<(String, String)> {
    requests
        .iter()
        .map(|seen| (seen.method.clone(), seen.target.clone()))
        .collect()
}

/// outbound.csv by path on the other site.
fn outbound_rows(report: &Path, other: &Server) -> BTreeMap<String, BTreeMap<String, String>> {
    csv_rows(&report.join("outbound.csv"))
        .into_iter()
        .map(|row| (row["url"].replace(&other.origin(), ""), row))
        .collect()
}

/// `(kind, path on the other site) -> (detail, referrers)` of the outbound findings.
fn outbound_findings(
    report: &Path,
    other: &Server,
) -> BTreeMap<(String, String), (String, Vec<String>)> {
    let json = report_json(report);
    json["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|finding| finding["kind"].as_str().unwrap().starts_with("outbound-"))
        .map(|finding| {
            let referrers = finding["referrers"]
                .as_array()
                .unwrap()
                .iter()
                .map(|referrer| referrer.as_str().unwrap().to_string())
                .collect();
            (
                (
                    finding["kind"].as_str().unwrap().to_string(),
                    finding["url"]
                        .as_str()
                        .unwrap()
                        .replace(&other.origin(), ""),
                ),
                (finding["detail"].as_str().unwrap().to_string(), referrers),
            )
        })
        .collect()
}

#[test]
fn outbound_links_are_checked_once_each_at_the_hosts_pace_and_kept() {
    let other = other_site();
    let site = site_linking_to(&other);
    let report = tempfile::tempdir().unwrap();
    let run = audit(&site.url("/"), report.path(), &[]);
    run.assert_success();
    let checked_score = report_json(report.path())["score"]["value"]
        .as_u64()
        .unwrap();

    // HEAD first; GET only where HEAD was refused; nothing for the URL robots.txt disallows.
    let requests = other.requests();
    let pairs = |list: &[(&str, &str)]| -> Vec<(String, String)> {
        list.iter()
            .map(|(method, path)| (method.to_string(), path.to_string()))
            .collect()
    };
    assert_eq!(
        asked(&requests),
        pairs(&[
            ("GET", "/robots.txt"),
            ("HEAD", "/busy"),
            ("HEAD", "/gone"),
            ("HEAD", "/hang"),
            ("HEAD", "/moved"),
            ("HEAD", "/new"),
            ("HEAD", "/no-head"),
            ("GET", "/no-head"),
            ("HEAD", "/ok"),
        ])
    );
    // One at a time, a second apart: the request after /hang waited for its deadline.
    for pair in requests.windows(2) {
        let gap = pair[1].at - pair[0].at;
        assert!(
            gap >= Duration::from_millis(900),
            "{} {} then {} {} after {gap:?}",
            pair[0].method,
            pair[0].target,
            pair[1].method,
            pair[1].target
        );
        if pair[0].target == "/hang" {
            assert!(gap >= Duration::from_millis(1900), "{gap:?}");
        }
    }

    let rows = outbound_rows(report.path(), &other);
    let result = |path: &str| -> (&str, &str, &str, &str) {
        let row = &rows[path];
        (
            row["status"].as_str(),
            row["result"].as_str(),
            row["final_url"].as_str(),
            row["cached"].as_str(),
        )
    };
    let new = other.url("/new");
    assert_eq!(result("/ok"), ("200", "ok", "", "false"));
    assert_eq!(
        result("/moved"),
        ("200", "redirected", new.as_str(), "false")
    );
    assert_eq!(result("/gone"), ("404", "broken", "", "false"));
    assert_eq!(result("/busy"), ("429", "blocked", "", "false"));
    assert_eq!(result("/no-head"), ("200", "ok", "", "false"));
    assert_eq!(result("/hang"), ("", "broken", "", "false"));
    assert_eq!(
        result("/private"),
        ("", "disallowed by robots.txt", "", "false")
    );
    assert_eq!(rows.len(), 7, "{rows:?}");
    assert_eq!(rows["/gone"]["referrers"], "2");
    assert_eq!(rows["/ok"]["referrers"], "2", "the image counts");
    assert!(!rows["/hang"]["checked_at"].is_empty());
    assert!(rows["/private"]["checked_at"].len() > 10);

    let findings = outbound_findings(report.path(), &other);
    let kinds: Vec<(&str, &str)> = findings
        .keys()
        .map(|(kind, path)| (kind.as_str(), path.as_str()))
        .collect();
    assert_eq!(
        kinds,
        [
            ("outbound-blocked", "/busy"),
            ("outbound-broken", "/gone"),
            ("outbound-broken", "/hang"),
            ("outbound-redirected", "/moved"),
        ]
    );
    let (detail, referrers) = &findings[&("outbound-redirected".to_string(), "/moved".to_string())];
    assert!(detail.contains(&new), "{detail}");
    assert_eq!(referrers, &[site.url("/")]);
    let (detail, referrers) = &findings[&("outbound-broken".to_string(), "/gone".to_string())];
    assert_eq!(detail, "answered 404");
    assert_eq!(referrers, &[site.url("/"), site.url("/about")]);
    let (detail, _) = &findings[&("outbound-broken".to_string(), "/hang".to_string())];
    assert!(detail.starts_with("no answer: "), "{detail}");
    let severities = std::fs::read_to_string(report.path().join("findings.csv")).unwrap();
    assert!(
        severities
            .lines()
            .any(|line| line.starts_with("warning,") && line.contains(",outbound-broken,")),
        "{severities}"
    );
    assert!(
        run.stderr.contains(
            "Links to other sites: 7 URLs, 6 checked, 0 from cache; 2 broken, 1 blocked, 1 redirected, 1 not checked"
        ),
        "{}",
        run.stderr
    );

    // Within the maximum age: the results are reused, and the other host is not asked.
    let again = audit(&site.url("/"), report.path(), &[]);
    again.assert_success();
    assert_eq!(other.requests().len(), requests.len(), "no request");
    let rows = outbound_rows(report.path(), &other);
    assert_eq!(rows["/gone"]["cached"], "true");
    assert_eq!(rows["/gone"]["result"], "broken");
    assert_eq!(outbound_findings(report.path(), &other).len(), 4);
    assert!(
        again
            .stderr
            .contains("7 URLs, 0 checked, 6 from cache; 2 broken"),
        "{}",
        again.stderr
    );

    // Too old for `--external-max-age 0s`: asked again.
    let fresh = audit(&site.url("/"), report.path(), &["--external-max-age", "0s"]);
    fresh.assert_success();
    let asked_again = &other.requests()[requests.len()..];
    assert!(
        asked_again
            .iter()
            .any(|seen| seen.method == "HEAD" && seen.target == "/gone"),
        "{:?}",
        asked(asked_again)
    );
    assert_eq!(
        outbound_rows(report.path(), &other)["/gone"]["cached"],
        "false"
    );

    // Turned off, and never by a crawl.
    let before = other.requests().len();
    let off = audit(&site.url("/"), report.path(), &["--check-external=false"]);
    off.assert_success();
    assert!(outbound_findings(report.path(), &other).is_empty());
    // Both pages link a broken URL of the other site and have a warning of their own (no
    // <h1>): checking the links weighs on them, and the other site's URLs are not counted,
    // which would raise the score.
    let unchecked_score = report_json(report.path())["score"]["value"]
        .as_u64()
        .unwrap();
    assert_eq!(
        (checked_score, unchecked_score),
        (83, 83),
        "checking more never raises the score"
    );
    assert!(outbound_rows(report.path(), &other).is_empty());
    assert!(
        !off.stderr.contains("Links to other sites"),
        "{}",
        off.stderr
    );
    let out = tempfile::tempdir().unwrap();
    sitemapper(&[
        "crawl",
        &site.url("/"),
        "--out",
        out.path().to_str().unwrap(),
    ])
    .assert_success();
    assert_eq!(other.requests().len(), before, "no request");
}

#[test]
fn a_public_sites_links_into_a_private_network_are_not_followed() {
    // 127.0.0.2 plays the public site; 127.0.0.1 the private network behind it.
    let private = Site::new()
        .page("/robots.txt", "")
        .page("/admin", "secret")
        .serve();
    let public = Site::new()
        .page(
            "/",
            &format!(
                "<title>Public</title><a href=\"{}\">admin</a>",
                private.url("/admin")
            ),
        )
        .serve_on(OTHER);
    let report = tempfile::tempdir().unwrap();
    let run: Run = sitemapper_command(&[
        "audit",
        &public.url("/"),
        "--report",
        report.path().to_str().unwrap(),
    ])
    .env_remove("SITEMAPPER_CHECK_EXTERNAL")
    .env("SITEMAPPER_TEST_PUBLIC_ADDRESSES", OTHER)
    .output()
    .unwrap()
    .into();
    run.assert_success();
    assert!(
        private.requests().is_empty(),
        "{:?}",
        asked(&private.requests())
    );
    let rows = csv_rows(&report.path().join("outbound.csv"));
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(rows[0]["result"], "not checked");
    assert!(rows[0]["detail"].contains("private network"), "{rows:?}");
}

/// A site on 127.0.0.1 whose home page links to `links` pages of another site on 127.0.0.2.
fn linking_to_many(links: usize) -> (Server, Server) {
    let other = Site::new()
        .generated(|_| Some(Route::new(200, "fine")))
        .serve_on(OTHER);
    let anchors: String = (0..links)
        .map(|n| format!("<a href=\"{}\">{n}</a>", other.url(&format!("/page-{n}"))))
        .collect();
    let site = Site::new()
        .page(
            "/",
            &format!("<html lang=\"en\"><title>Home</title>{anchors}</html>"),
        )
        .serve();
    (site, other)
}

#[test]
fn links_beyond_the_budget_are_reported_not_checked_never_fine_or_broken() {
    let (site, other) = linking_to_many(20);
    let report = tempfile::tempdir().unwrap();

    let run = audit(
        &site.url("/"),
        report.path(),
        &["--external-max-links", "2"],
    );

    assert_eq!(run.code, 0, "{}", run.stderr);
    let asked = other
        .targets()
        .into_iter()
        .filter(|target| target != "/robots.txt")
        .count();
    assert!(asked <= 4, "{asked} requests for a budget of 2 links");
    let rows = csv_rows(&report.path().join("outbound.csv"));
    let results: Vec<&str> = rows.iter().map(|row| row["result"].as_str()).collect();
    assert_eq!(results.len(), 20);
    assert_eq!(
        results
            .iter()
            .filter(|result| **result == "not checked")
            .count(),
        18,
        "{results:?}"
    );
    assert!(
        run.stderr
            .contains("18 beyond the checks' budget: --external-max-links, --external-max-time"),
        "{}",
        run.stderr
    );
    let json = report_json(report.path());
    let methodology = json.to_string();
    assert!(
        methodology.contains("18 URLs not checked, beyond the checks' budget of 2 links"),
        "{methodology}"
    );
}

#[test]
fn sigterm_stops_an_audit_while_it_checks_the_links_to_other_sites() {
    let (site, other) = linking_to_many(60);
    let report = tempfile::tempdir().unwrap();
    let mut child = sitemapper_command(&[
        "audit",
        &site.url("/"),
        "--report",
        report.path().to_str().unwrap(),
    ])
    .env_remove("SITEMAPPER_CHECK_EXTERNAL")
    .stdout(std::process::Stdio::null())
    .stderr(std::process::Stdio::piped())
    .spawn()
    .unwrap();
    // One request a second to the other host: two asked means the checks are under way.
    other.wait_for(|seen| {
        seen.iter()
            .filter(|request| request.target != "/robots.txt")
            .count()
            >= 2
    });

    let terminated = std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(terminated.success());
    let mut waited = 0;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(waited < 600, "the audit went on checking after SIGTERM");
        std::thread::sleep(Duration::from_millis(100));
        waited += 1;
    };

    let stderr = std::io::read_to_string(child.stderr.take().unwrap()).unwrap();
    assert_eq!(status.code(), Some(143), "{stderr}");
    assert!(
        stderr.contains("terminated (SIGTERM) while checking the links to other sites"),
        "{stderr}"
    );
    let asked = other.targets().len();
    assert!(asked < 20, "{asked} requests after SIGTERM");
    assert!(!report.path().join("report.html").exists());
}

/// A URL on 127.0.0.3 where nothing listens: its connection is refused.
fn unreachable_url(path: &str) -> String {
    let listener = std::net::TcpListener::bind("127.0.0.3:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    format!("http://127.0.0.3:{port}{path}")
}

fn page_linking(urls: &[String]) -> Server {
    let links: String = urls
        .iter()
        .map(|url| format!("<a href=\"{url}\">elsewhere</a>"))
        .collect();
    Site::new()
        .page("/", &format!("<title>Home</title><h1>Home</h1>{links}"))
        .serve()
}

#[test]
fn offline_is_not_broken_and_nothing_is_kept_as_broken() {
    // Every host the site links to refuses the connection: the network looks unavailable.
    let urls: Vec<String> = (0..4)
        .map(|index| unreachable_url(&format!("/{index}")))
        .collect();
    let site = page_linking(&urls);
    let report = tempfile::tempdir().unwrap();
    for _ in 0..2 {
        let run = audit(&site.url("/"), report.path(), &[]);
        run.assert_success();
        assert!(
            run.stderr.contains(
                "Links to other sites: 4 URLs, not checked: the network looks unavailable \
                 (most hosts could not be reached; nothing was kept as broken); 0 from earlier \
                 checks."
            ),
            "the second audit finds nothing kept by the first:\n{}",
            run.stderr
        );
        let json = report_json(report.path());
        let outbound: Vec<&str> = json["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|finding| finding["kind"].as_str())
            .filter(|kind| kind.starts_with("outbound-"))
            .collect();
        assert!(outbound.is_empty(), "{outbound:?}");
        let results: Vec<String> = csv_rows(&report.path().join("outbound.csv"))
            .into_iter()
            .map(|row| row["result"].clone())
            .collect();
        assert_eq!(results, ["not checked"; 4]);
    }

    // One dead host among three is a broken link.
    let other = other_site();
    let third = Site::new().route("/fine", Route::new(200, "fine")).serve();
    let dead = unreachable_url("/dead");
    let site = page_linking(&[other.url("/ok"), third.url("/fine"), dead.clone()]);
    let report = tempfile::tempdir().unwrap();
    let run = audit(&site.url("/"), report.path(), &[]);
    run.assert_success();
    assert!(
        run.stderr
            .contains("Links to other sites: 3 URLs, 3 checked, 0 from cache; 1 broken"),
        "{}",
        run.stderr
    );
    let broken: Vec<String> = report_json(report.path())["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|finding| finding["kind"] == "outbound-broken")
        .map(|finding| finding["url"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(broken, [dead]);
}
