//! A fleet's politeness per server and its metrics: workers of one queue never crawl more
//! sites of one address at once than `--per-server`; a worker serves its metrics at
//! `/metrics`, and `fleet run` writes them for node_exporter, both counting what the servers
//! saw.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::time::{Duration, Instant};

use crate::fixture::{Server, Site};
use crate::fleet::{chain, down_url, fleet_file, page_requests};
use crate::fleet_queue::{status, wait, worker, worker_log, workers};
use crate::harness::sitemapper;
use crate::postgres;

/// How long each page of the sites takes to answer.
const PAGE_TIME: Duration = Duration::from_millis(150);

/// When a site was being crawled: from its first request to its last answer.
fn crawled_during(server: &Server) -> (Instant, Instant) {
    let seen = server.requests();
    let first = seen.iter().map(|request| request.at).min().unwrap();
    let last = seen.iter().map(|request| request.at).max().unwrap();
    (first, last + PAGE_TIME)
}

fn overlap(a: (Instant, Instant), b: (Instant, Instant)) -> bool {
    a.0 < b.1 && b.0 < a.1
}

#[test]
fn workers_crawl_no_more_sites_of_one_address_at_once_than_per_server() {
    let Some(queue) = postgres::queue() else {
        return;
    };
    // Four sites on each of two addresses, each a few pages that take a while.
    let servers: Vec<(&str, Server)> = ["127.0.0.1", "127.0.0.2"]
        .into_iter()
        .flat_map(|address| {
            (0..4).map(move |_| {
                (
                    address,
                    chain(Site::new(), "/", 3, PAGE_TIME).serve_on(address),
                )
            })
        })
        .collect();
    let directory = tempfile::tempdir().unwrap();
    let out = directory.path().join("out");
    let sites: Vec<(String, String)> = servers
        .iter()
        .enumerate()
        .map(|(index, (_, server))| (format!("site-{index}"), server.url("/")))
        .collect();
    let fleet = fleet_file(directory.path(), &out, &sites, "concurrency = 2");
    let sync = sitemapper(&["fleet", "sync", &fleet, "--queue", &queue.url]);
    assert_eq!(sync.code, 0, "{}", sync.stderr);

    let (states, mut workers) = workers(
        &queue,
        directory.path(),
        3,
        &["--once", "--per-server", "1"],
    );
    for (worker, state) in workers.iter_mut().zip(&states) {
        assert_eq!(wait(worker), 0, "{}", worker_log(state));
    }

    let status = status(&queue);
    for (name, _) in &sites {
        assert_eq!(status[name].0, "ok", "{name}");
    }
    let mut across = false;
    for (index, (address, server)) in servers.iter().enumerate() {
        assert_eq!(page_requests(server).len(), 4, "site-{index} crawled once");
        for (other, (other_address, other_server)) in servers.iter().enumerate().skip(index + 1) {
            let overlapping = overlap(crawled_during(server), crawled_during(other_server));
            if address == other_address {
                assert!(
                    !overlapping,
                    "site-{index} and site-{other}, both on {address}, were crawled at once"
                );
            } else {
                across |= overlapping;
            }
        }
    }
    // The limit is a server's: sites of the two addresses were crawled side by side.
    assert!(across, "no two sites were ever crawled at once");
}

/// The metrics of `text`, by the series' name and labels as written.
fn metrics(text: &str) -> BTreeMap<String, f64> {
    text.lines()
        .filter(|line| !line.starts_with('#') && !line.trim().is_empty())
        .filter_map(|line| {
            let (series, value) = line.rsplit_once(' ')?;
            Some((series.to_string(), value.parse().ok()?))
        })
        .collect()
}

/// `GET http://address/metrics`: the status line and the body.
fn scrape(address: &str) -> (String, String) {
    let mut stream = std::net::TcpStream::connect(address).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    write!(
        stream,
        "GET /metrics HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    let (head, body) = response.split_once("\r\n\r\n").unwrap();
    (head.lines().next().unwrap().to_string(), body.to_string())
}

/// The requests the servers answered with 200 and with 404 (robots.txt and missing pages).
fn answered(servers: &[Server]) -> (f64, f64) {
    let mut found = 0;
    let mut missing = 0;
    for server in servers {
        for target in server.targets() {
            if target == "/robots.txt" || target == "/missing" {
                missing += 1;
            } else {
                found += 1;
            }
        }
    }
    (f64::from(found), f64::from(missing))
}

/// A chain of three pages whose last links to a page that is not there.
fn site_with_a_missing_page() -> Site {
    chain(Site::new(), "/", 3, Duration::ZERO).page("/p3", "<a href=\"/missing\">gone</a>")
}

#[test]
fn a_worker_serves_metrics_that_count_what_the_servers_saw() {
    let Some(queue) = postgres::queue() else {
        return;
    };
    let servers: Vec<Server> = (0..3).map(|_| site_with_a_missing_page().serve()).collect();
    let directory = tempfile::tempdir().unwrap();
    let out = directory.path().join("out");
    let sites: Vec<(String, String)> = servers
        .iter()
        .enumerate()
        .map(|(index, server)| (format!("site-{index}"), server.url("/")))
        .collect();
    let fleet = fleet_file(directory.path(), &out, &sites, "");
    let sync = sitemapper(&["fleet", "sync", &fleet, "--queue", &queue.url]);
    assert_eq!(sync.code, 0, "{}", sync.stderr);

    let state = directory.path().join("w1");
    let mut serving = worker(
        &queue,
        "w1",
        &state,
        &["--metrics", "127.0.0.1:0", "--per-server", "3"],
    );
    let started = Instant::now();
    let address = loop {
        let log = worker_log(&state);
        if let Some(address) = log
            .split("metrics at http://")
            .nth(1)
            .and_then(|rest| rest.split("/metrics").next())
        {
            break address.to_string();
        }
        assert!(started.elapsed() < Duration::from_secs(30), "{log}");
        std::thread::sleep(Duration::from_millis(100));
    };
    // Scraped while the worker serves, until its three runs are counted and let go.
    let scraped = loop {
        let (status_line, body) = scrape(&address);
        assert!(status_line.contains(" 200 "), "{status_line}");
        let scraped = metrics(&body);
        if scraped.get("sitemapper_site_runs_total{result=\"ok\"}") == Some(&3.0)
            && scraped.get("sitemapper_leases_held") == Some(&0.0)
        {
            break scraped;
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "{body}\n{}",
            worker_log(&state)
        );
        std::thread::sleep(Duration::from_millis(200));
    };
    let (found, missing) = answered(&servers);
    assert_eq!(found, 12.0, "four pages a site");
    assert_eq!(scraped["sitemapper_requests_total{class=\"2xx\"}"], found);
    assert_eq!(scraped["sitemapper_requests_total{class=\"4xx\"}"], missing);
    assert_eq!(scraped["sitemapper_requests_total{class=\"5xx\"}"], 0.0);
    assert_eq!(scraped["sitemapper_pages_listed_total"], 12.0);
    assert_eq!(
        scraped["sitemapper_site_runs_total{result=\"failed\"}"],
        0.0
    );
    assert_eq!(scraped["sitemapper_sites_due"], 0.0);
    assert_eq!(scraped["sitemapper_leases_lost_total"], 0.0);
    assert_eq!(scraped["sitemapper_leases_taken_over_total"], 0.0);
    assert_eq!(scraped["sitemapper_queue_reconnects_total"], 0.0);
    assert!(scraped["sitemapper_response_body_bytes_total"] > 0.0);
    for (name, _) in &sites {
        assert_eq!(
            scraped[&format!("sitemapper_site_pages_listed{{site=\"{name}\"}}")],
            4.0
        );
        assert_eq!(
            scraped[&format!("sitemapper_site_last_run_succeeded{{site=\"{name}\"}}")],
            1.0
        );
        assert!(
            scraped[&format!("sitemapper_site_last_success_timestamp_seconds{{site=\"{name}\"}}")]
                > 1.7e9
        );
    }
    // No URL is a label.
    let (_, body) = scrape(&address);
    assert!(!body.contains("http://"), "{body}");

    let terminated = std::process::Command::new("kill")
        .args(["-TERM", &serving.id().to_string()])
        .status()
        .unwrap();
    assert!(terminated.success());
    assert_eq!(wait(&mut serving), 0, "{}", worker_log(&state));
}

#[test]
fn fleet_run_writes_its_metrics_for_the_textfile_collector() {
    let servers: Vec<Server> = (0..2).map(|_| site_with_a_missing_page().serve()).collect();
    let down = down_url();
    let directory = tempfile::tempdir().unwrap();
    let out = directory.path().join("out");
    let mut sites: Vec<(String, String)> = servers
        .iter()
        .enumerate()
        .map(|(index, server)| (format!("site-{index}"), server.url("/")))
        .collect();
    sites.push(("down".to_string(), down));
    let fleet = fleet_file(directory.path(), &out, &sites, "");
    let textfiles = directory.path().join("textfiles");
    std::fs::create_dir(&textfiles).unwrap();
    let file = textfiles.join("sitemapper.prom");
    let run = sitemapper(&[
        "fleet",
        "run",
        &fleet,
        "--metrics-file",
        file.to_str().unwrap(),
    ]);
    assert_eq!(run.code, 5, "{}", run.stderr);
    let text = std::fs::read_to_string(&file).unwrap();
    let written = metrics(&text);
    let (found, missing) = answered(&servers);
    assert_eq!(written["sitemapper_requests_total{class=\"2xx\"}"], found);
    assert_eq!(written["sitemapper_requests_total{class=\"4xx\"}"], missing);
    assert!(written["sitemapper_request_failures_total{cause=\"connection-refused\"}"] >= 1.0);
    assert_eq!(written["sitemapper_site_runs_total{result=\"ok\"}"], 2.0);
    assert_eq!(
        written["sitemapper_site_runs_total{result=\"failed\"}"],
        1.0
    );
    assert_eq!(
        written["sitemapper_site_last_run_succeeded{site=\"down\"}"],
        0.0
    );
    assert_eq!(
        written["sitemapper_site_last_run_succeeded{site=\"site-0\"}"],
        1.0
    );
    assert_eq!(written["sitemapper_sites_due"], 3.0);
    assert!(written["sitemapper_fleet_run_timestamp_seconds"] > 1.7e9);
    assert!(written["sitemapper_fleet_run_duration_seconds"] > 0.0);
    assert!(
        text.contains("# TYPE sitemapper_requests_total counter\n"),
        "{text}"
    );
    // A worker's metrics are not a fleet run's.
    assert!(!text.contains("leases"), "{text}");
    // Replaced whole: nothing but the file is left in the collector's directory.
    let names: Vec<_> = std::fs::read_dir(&textfiles)
        .unwrap()
        .map(|entry| entry.unwrap().file_name())
        .collect();
    assert_eq!(names, ["sitemapper.prom"]);
}

#[test]
fn fleet_run_tells_servers_apart_by_address_or_by_host_name() {
    // One server, named two ways: 127.0.0.1 and localhost.
    let by = |servers_by: &str| {
        let first = chain(Site::new(), "/", 3, PAGE_TIME).serve();
        let second = chain(Site::new(), "/", 3, PAGE_TIME).serve();
        let directory = tempfile::tempdir().unwrap();
        let sites = [
            ("first".to_string(), first.url("/")),
            (
                "second".to_string(),
                second.url("/").replace("127.0.0.1", "localhost"),
            ),
        ];
        let fleet = fleet_file(directory.path(), &directory.path().join("out"), &sites, "");
        let run = sitemapper(&[
            "fleet",
            "run",
            &fleet,
            "--sites-at-once",
            "2",
            "--servers-by",
            servers_by,
        ]);
        assert_eq!(run.code, 0, "{}", run.stderr);
        assert_eq!(page_requests(&second).len(), 4);
        overlap(crawled_during(&first), crawled_during(&second))
    };
    assert!(!by("address"), "one address, one site at a time");
    assert!(by("host"), "two names, two servers side by side");
}
