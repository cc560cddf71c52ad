//! `sitemapper fleet run` and `fleet status` on one machine: due sites run a few at a time,
//! each incrementally, a failing site alone fails, hosts keep their pace across sites.

use std::collections::BTreeSet;
use std::path::Path;
use std::time::Duration;

use crate::fixture::{Route, Server, Site};
use crate::harness::{assert_one_line_error, listed_urls, sitemapper};

/// A site of `pages` pages under `prefix` (`/` or `/docs/`), each linking to the next; its
/// pages answer after `delay`.
pub(crate) fn chain(site: Site, prefix: &str, pages: usize, delay: Duration) -> Site {
    let page = |index: usize| format!("{prefix}p{index}");
    let mut site = site.route(
        prefix,
        Route::html(&format!("<a href=\"{}\">first</a>", page(1))).delay(delay),
    );
    for index in 1..=pages {
        let next = if index < pages {
            format!("<a href=\"{}\">next</a>", page(index + 1))
        } else {
            String::new()
        };
        site = site.route(
            &page(index),
            Route::html(&format!("<title>{index}</title>{next}")).delay(delay),
        );
    }
    site
}

/// The URLs a chain of `pages` pages lists.
pub(crate) fn chain_urls(server: &Server, prefix: &str, pages: usize) -> BTreeSet<String> {
    std::iter::once(server.url(prefix))
        .chain((1..=pages).map(|index| server.url(&format!("{prefix}p{index}"))))
        .collect()
}

/// The URL of a site that is down: a port on 127.0.0.1 that was just free.
pub(crate) fn down_url() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    format!("http://{}/", listener.local_addr().unwrap())
}

/// A fleet file of `sites` (name, seed URL) publishing under `out`, with `extra` in
/// [defaults].
pub(crate) fn fleet_file(
    directory: &Path,
    out: &Path,
    sites: &[(String, String)],
    extra: &str,
) -> String {
    let mut text = format!(
        "[defaults]\nout = \"{}/{{name}}\"\nevery = \"24h\"\nretries = 0\n{extra}\n",
        out.display()
    );
    for (name, url) in sites {
        text.push_str(&format!("\n[[site]]\nname = \"{name}\"\nurl = \"{url}\"\n"));
    }
    let path = directory.join("fleet.toml");
    std::fs::write(&path, text).unwrap();
    path.to_str().unwrap().to_string()
}

/// The requests to `server` other than robots.txt, by target.
pub(crate) fn page_requests(server: &Server) -> Vec<String> {
    server
        .targets()
        .into_iter()
        .filter(|target| target != "/robots.txt")
        .collect()
}

#[test]
fn due_sites_run_incrementally_and_a_failing_site_fails_alone() {
    let first = chain(Site::new(), "/", 3, Duration::ZERO).serve();
    let second = chain(Site::new(), "/", 2, Duration::ZERO).serve();
    let down = down_url();
    let directory = tempfile::tempdir().unwrap();
    let out = directory.path().join("out");
    let sites = [
        ("first".to_string(), first.url("/")),
        ("second".to_string(), second.url("/")),
        ("down".to_string(), down),
    ];
    let fleet = fleet_file(directory.path(), &out, &sites, "");
    let report = directory.path().join("report.json");
    let run = sitemapper(&["fleet", "run", &fleet, "--report", report.to_str().unwrap()]);
    assert_eq!(run.code, 5, "some sites failed: {}", run.stderr);
    assert_eq!(listed_urls(&out.join("first")), chain_urls(&first, "/", 3));
    assert_eq!(
        listed_urls(&out.join("second")),
        chain_urls(&second, "/", 2)
    );
    assert!(
        run.stderr.contains("error: 1 of 3 sites failed"),
        "{}",
        run.stderr
    );
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    assert_eq!(report["succeeded"], 2);
    assert_eq!(report["failed"], 1);
    let results: Vec<(String, String, u64)> = report["sites"]
        .as_array()
        .unwrap()
        .iter()
        .map(|site| {
            (
                site["name"].as_str().unwrap().to_string(),
                site["result"].as_str().unwrap().to_string(),
                site["listed"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        results,
        [
            ("down".to_string(), "failed".to_string(), 0),
            ("first".to_string(), "ok".to_string(), 4),
            ("second".to_string(), "ok".to_string(), 3),
        ]
    );
    assert!(
        report["sites"][0]["error"]
            .as_str()
            .unwrap()
            .contains("refused the connection"),
        "{report}"
    );

    // Nothing is due a moment later but the failed site, which waits for its retry.
    let requests = (first.targets().len(), second.targets().len());
    let again = sitemapper(&["fleet", "run", &fleet]);
    assert_eq!(again.code, 0, "{}", again.stderr);
    assert_eq!(
        again.stderr, "No site run: 3 sites not due yet (fleet status shows when each is due).\n",
        "a sentence, not a table's header over no row"
    );
    assert_eq!((first.targets().len(), second.targets().len()), requests);

    // --site runs one now, incrementally: its pages are revalidated, not listed anew.
    let forced = sitemapper(&["fleet", "run", &fleet, "--site", "first", "--report", "-"]);
    assert_eq!(forced.code, 0, "{}", forced.stderr);
    let report: serde_json::Value = serde_json::from_str(&forced.stdout).unwrap();
    assert_eq!(report["sites"][0]["name"], "first");
    assert_eq!(report["sites"][0]["added"], 0);
    assert_eq!(report["not_due"], 2);
    let revalidated = first.requests().into_iter().skip(requests.0);
    assert!(
        revalidated
            .filter(|seen| seen.target != "/robots.txt")
            .count()
            == 4,
        "each page asked once more"
    );

    let status = sitemapper(&["fleet", "status", &fleet]);
    assert_eq!(status.code, 0, "{}", status.stderr);
    let lines: Vec<&str> = status.stdout.lines().collect();
    assert!(
        lines[0].starts_with("site") && lines[0].contains("next due"),
        "{}",
        status.stdout
    );
    assert!(
        lines
            .iter()
            .any(|line| line.starts_with("down ") && line.contains("failed"))
    );
    assert!(
        lines
            .iter()
            .any(|line| line.starts_with("first ") && line.contains(" ok "))
    );
    let status = sitemapper(&["fleet", "status", &fleet, "--summary", "json"]);
    let status: serde_json::Value = serde_json::from_str(&status.stdout).unwrap();
    let first_status = status["sites"]
        .as_array()
        .unwrap()
        .iter()
        .find(|site| site["name"] == "first")
        .unwrap();
    assert_eq!(first_status["runs"], 2);
    assert_eq!(first_status["schedule"], "every 24h");
}

#[test]
fn quiet_says_only_which_sites_failed_and_why() {
    let up = chain(Site::new(), "/", 1, Duration::ZERO).serve();
    let directory = tempfile::tempdir().unwrap();
    let out = directory.path().join("out");
    let sites = [
        ("up".to_string(), up.url("/")),
        ("down".to_string(), down_url()),
    ];
    let fleet = fleet_file(directory.path(), &out, &sites, "");
    let run = sitemapper(&["fleet", "run", &fleet, "--quiet"]);
    assert_eq!(run.code, 5, "{}", run.stderr);
    assert_eq!(run.stdout, "");
    let lines: Vec<&str> = run.stderr.lines().collect();
    assert_eq!(lines.len(), 2, "{}", run.stderr);
    assert!(
        lines[0].starts_with("down: failed after ") && lines[0].contains("refused the connection"),
        "the failed site's line says why: {}",
        run.stderr
    );
    assert_eq!(lines[1], "error: 1 of 2 sites failed: down");
}

#[test]
fn a_mistake_in_the_fleet_file_names_the_site_and_the_line() {
    let directory = tempfile::tempdir().unwrap();
    let fleet = directory.path().join("fleet.toml");
    std::fs::write(
        &fleet,
        "[defaults]\nout = \"/tmp/{name}\"\n\n[[site]]\nname = \"shop\"\nurl = \"https://shop.example/\"\nmax-pagez = 10\n",
    )
    .unwrap();
    let run = sitemapper(&["fleet", "run", fleet.to_str().unwrap()]);
    assert_eq!(run.code, 2);
    assert_one_line_error(&run.stderr);
    assert!(
        run.stderr
            .contains("site \"shop\", line 7: unknown option `max-pagez`"),
        "{}",
        run.stderr
    );
    std::fs::write(
        &fleet,
        "[[site]]\nurl = \"https://shop.example/\"\nout = \"/tmp/x\"\nevery = \"fortnightly\"\n",
    )
    .unwrap();
    let run = sitemapper(&["fleet", "status", fleet.to_str().unwrap()]);
    assert_eq!(run.code, 2);
    assert_one_line_error(&run.stderr);
    assert!(
        run.stderr.contains("site \"shop.example\", line 4"),
        "{}",
        run.stderr
    );
    // A mistake in [defaults] is the defaults', not the first site's.
    std::fs::write(
        &fleet,
        "[defaults]\nout = \"/tmp/{name}\"\nevery = \"fortnightly\"\n\n[[site]]\nname = \"shop\"\nurl = \"https://shop.example/\"\n",
    )
    .unwrap();
    let run = sitemapper(&["fleet", "run", fleet.to_str().unwrap()]);
    assert_eq!(run.code, 2);
    assert_one_line_error(&run.stderr);
    assert!(
        run.stderr.contains(&format!(
            "error: invalid fleet file {}, [defaults], line 3: \"fortnightly\" is not a duration",
            fleet.display()
        )),
        "{}",
        run.stderr
    );
}

#[test]
fn sites_that_share_a_host_share_its_pace() {
    // Two sites of one host, 0.5 s between requests, each answered after 0.1 s, run side by
    // side (two a server). Paced together, no two requests overlap; apart, both sites would
    // start at once.
    let site = chain(Site::new(), "/a/", 2, Duration::from_millis(100));
    let server = chain(site, "/b/", 2, Duration::from_millis(100)).serve();
    let directory = tempfile::tempdir().unwrap();
    let out = directory.path().join("out");
    let sites = [
        ("a".to_string(), server.url("/a/")),
        ("b".to_string(), server.url("/b/")),
    ];
    let fleet = fleet_file(directory.path(), &out, &sites, "delay = 0.5");
    let run = sitemapper(&[
        "fleet",
        "run",
        &fleet,
        "--sites-at-once",
        "2",
        "--per-server",
        "2",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(listed_urls(&out.join("a")), chain_urls(&server, "/a/", 2));
    assert_eq!(listed_urls(&out.join("b")), chain_urls(&server, "/b/", 2));
    assert_eq!(server.max_in_flight(), 1, "{:?}", server.targets());
}

#[test]
fn the_example_fleet_file_loads() {
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("config/fleet.example.toml");
    let directory = tempfile::tempdir().unwrap();
    let run = sitemapper(&[
        "fleet",
        "status",
        example.to_str().unwrap(),
        "--state-dir",
        directory.path().to_str().unwrap(),
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let text = std::fs::read_to_string(&example).unwrap();
    for key in ["name", "url", "out", "every", "cron", "retry", "publish"] {
        assert!(
            text.contains(&format!("\n{key} =")) || text.contains(&format!("\n# {key} =")),
            "config/fleet.example.toml does not show `{key}`"
        );
    }
    assert!(run.stdout.lines().count() >= 3, "{}", run.stdout);
}

#[test]
fn a_publish_command_runs_after_each_publish_and_its_failure_fails_the_site() {
    let server = chain(Site::new(), "/", 2, Duration::ZERO).serve();
    let directory = tempfile::tempdir().unwrap();
    let out = directory.path().join("out");
    let copies = directory.path().join("copies");
    std::fs::create_dir_all(&copies).unwrap();
    let text = format!(
        "[defaults]\nout = \"{out}/{{name}}\"\nretries = 0\n\
         publish = 'cp \"$SITEMAPPER_FLEET_OUT/sitemap.xml\" \"{copies}/$SITEMAPPER_FLEET_SITE.xml\"'\n\n\
         [[site]]\nname = \"copied\"\nurl = \"{url}\"\n\n\
         [[site]]\nname = \"refused\"\nurl = \"{url}\"\nout = \"{out}/refused\"\n\
         publish = 'echo \"rsync: connection refused\" >&2; exit 12'\n",
        out = out.display(),
        copies = copies.display(),
        url = server.url("/"),
    );
    let fleet = directory.path().join("fleet.toml");
    std::fs::write(&fleet, text).unwrap();
    let run = sitemapper(&["fleet", "run", fleet.to_str().unwrap(), "--report", "-"]);
    assert_eq!(run.code, 5, "{}", run.stderr);
    assert_eq!(
        std::fs::read(copies.join("copied.xml")).unwrap(),
        std::fs::read(out.join("copied/sitemap.xml")).unwrap()
    );
    let report: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let refused = &report["sites"][1];
    assert_eq!(refused["name"], "refused");
    assert_eq!(refused["result"], "failed");
    assert!(
        refused["error"]
            .as_str()
            .unwrap()
            .ends_with("the publish command failed (exit status: 12): rsync: connection refused"),
        "{refused}"
    );
    // Published locally all the same: the command is what failed.
    assert_eq!(
        listed_urls(&out.join("refused")),
        chain_urls(&server, "/", 2)
    );
}

#[test]
fn a_sites_password_reaches_neither_the_report_nor_the_json_status() {
    let server = chain(Site::new(), "/", 2, Duration::ZERO).serve();
    let directory = tempfile::tempdir().unwrap();
    let url = server
        .url("/")
        .replace("http://", "http://editor:s3cret-pw@");
    let fleet = fleet_file(
        directory.path(),
        &directory.path().join("out"),
        &[("protected".to_string(), url)],
        "",
    );
    let report = directory.path().join("report.json");

    let run = sitemapper(&["fleet", "run", &fleet, "--report", report.to_str().unwrap()]);
    run.assert_success();
    let status = sitemapper(&["fleet", "status", &fleet, "--summary", "json"]);
    status.assert_success();

    let report = std::fs::read_to_string(&report).unwrap();
    for shown in [&report, &status.stdout, &run.stdout, &run.stderr] {
        assert!(!shown.contains("s3cret-pw"), "{shown}");
    }
    assert!(report.contains("http://***@127.0.0.1:"), "{report}");
    assert!(
        status.stdout.contains("http://***@127.0.0.1:"),
        "{}",
        status.stdout
    );
}
