//! The fleet on PostgreSQL: `fleet sync`, workers claiming sites with leases, a dead worker's
//! site taken over and continued, a restart of PostgreSQL mid-run, SIGTERM handing a site back.
//! Each test has a database of its own on the server `.ci/run` starts.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::Duration;

use crate::fixture::{Server, Site};
use crate::fleet::{chain, chain_urls, down_url, fleet_file, page_requests};
use crate::harness::{listed_urls, sitemapper, sitemapper_command};
use crate::postgres::{self, TestQueue};

/// A worker process (stderr kept in a file for the test to read).
pub(crate) fn worker(queue: &TestQueue, name: &str, state: &Path, extra: &[&str]) -> Child {
    let log = std::fs::File::create(state.with_extension("log")).unwrap();
    let mut args = vec![
        "worker",
        "--queue",
        &queue.url,
        "--name",
        name,
        "-v",
        "--state-dir",
        state.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    sitemapper_command(&args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .expect("start a worker")
}

/// `count` workers (`w1`, `w2`...), each with its state directory in `directory`; the
/// directories, and the processes.
pub(crate) fn workers(
    queue: &TestQueue,
    directory: &Path,
    count: usize,
    extra: &[&str],
) -> (Vec<PathBuf>, Vec<Child>) {
    let states: Vec<_> = (1..=count)
        .map(|index| directory.join(format!("w{index}")))
        .collect();
    let workers = states
        .iter()
        .enumerate()
        .map(|(index, state)| worker(queue, &format!("w{}", index + 1), state, extra))
        .collect();
    (states, workers)
}

pub(crate) fn worker_log(state: &Path) -> String {
    std::fs::read_to_string(state.with_extension("log")).unwrap_or_default()
}

/// The queue's view of each site: (result of the last run, runs, worker of the last run).
pub(crate) fn status(queue: &TestQueue) -> BTreeMap<String, (String, u64, String)> {
    let run = sitemapper(&[
        "fleet",
        "status",
        "--queue",
        &queue.url,
        "--summary",
        "json",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let status: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    status["sites"]
        .as_array()
        .unwrap()
        .iter()
        .map(|site| {
            (
                site["name"].as_str().unwrap().to_string(),
                (
                    site["last"]["result"]
                        .as_str()
                        .unwrap_or("never")
                        .to_string(),
                    site["runs"].as_u64().unwrap(),
                    site["last"]["worker"].as_str().unwrap_or("").to_string(),
                ),
            )
        })
        .collect()
}

pub(crate) fn wait(child: &mut Child) -> i32 {
    child.wait().unwrap().code().unwrap_or(-1)
}

#[test]
fn three_workers_crawl_each_due_site_exactly_once() {
    let Some(queue) = postgres::queue() else {
        return;
    };
    let servers: Vec<Server> = (0..20)
        .map(|index| chain(Site::new(), "/", 3 + index % 4, Duration::ZERO).serve())
        .collect();
    let down = down_url();
    let directory = tempfile::tempdir().unwrap();
    let out = directory.path().join("out");
    let mut sites: Vec<(String, String)> = servers
        .iter()
        .enumerate()
        .map(|(index, server)| (format!("site-{index:02}"), server.url("/")))
        .collect();
    sites.push(("down".to_string(), down));
    let fleet = fleet_file(directory.path(), &out, &sites, "concurrency = 2");
    let sync = sitemapper(&["fleet", "sync", &fleet, "--queue", &queue.url]);
    assert_eq!(sync.code, 0, "{}", sync.stderr);
    assert!(
        sync.stderr
            .contains("21 added, 0 changed, 0 removed, 0 unchanged"),
        "{}",
        sync.stderr
    );
    let again = sitemapper(&["fleet", "sync", &fleet, "--queue", &queue.url]);
    assert!(
        again
            .stderr
            .contains("0 added, 0 changed, 0 removed, 21 unchanged"),
        "{}",
        again.stderr
    );

    let (states, mut workers) = workers(
        &queue,
        directory.path(),
        3,
        &["--once", "--sites-at-once", "2"],
    );
    let codes: Vec<i32> = workers.iter_mut().map(wait).collect();
    // The worker that ran the site that is down says so; the others succeed.
    assert_eq!(
        codes.iter().filter(|code| **code == 5).count(),
        1,
        "{codes:?}"
    );
    assert_eq!(
        codes.iter().filter(|code| **code == 0).count(),
        2,
        "{codes:?}"
    );

    for (index, server) in servers.iter().enumerate() {
        let pages = 3 + index % 4;
        let mut requests = page_requests(server);
        requests.sort();
        let mut expected: Vec<String> = std::iter::once("/".to_string())
            .chain((1..=pages).map(|page| format!("/p{page}")))
            .collect();
        expected.sort();
        assert_eq!(
            requests, expected,
            "site-{index:02} crawled once, by one worker"
        );
        assert_eq!(
            listed_urls(&out.join(format!("site-{index:02}"))),
            chain_urls(server, "/", pages)
        );
    }
    let status = status(&queue);
    assert_eq!(status.len(), 21);
    for (name, (result, runs, worker)) in &status {
        let expected = if name == "down" { "failed" } else { "ok" };
        assert_eq!((result.as_str(), *runs), (expected, 1), "{name}");
        assert!(
            ["w1", "w2", "w3"].contains(&worker.as_str()),
            "{name}: {worker}"
        );
    }
    let logs: String = states.iter().map(|state| worker_log(state)).collect();
    assert_eq!(logs.matches("claimed the site").count(), 21, "{logs}");

    // Nothing is due now but the site that is down (after its retry): a worker finds nothing.
    let requests: usize = servers.iter().map(|server| server.targets().len()).sum();
    let mut idle = worker(&queue, "w4", &directory.path().join("w4"), &["--once"]);
    assert_eq!(wait(&mut idle), 0);
    assert_eq!(
        servers
            .iter()
            .map(|server| server.targets().len())
            .sum::<usize>(),
        requests
    );

    // The same sites on one machine, without a server, give the same sitemaps.
    let embedded_out = directory.path().join("embedded");
    let embedded_directory = directory.path().join("embedded-fleet");
    std::fs::create_dir_all(&embedded_directory).unwrap();
    let embedded = fleet_file(
        &embedded_directory,
        &embedded_out,
        &sites[..20],
        "concurrency = 2",
    );
    let run = sitemapper(&["fleet", "run", &embedded]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    for (name, _) in &sites[..20] {
        assert_eq!(
            std::fs::read(out.join(name).join("sitemap.xml")).unwrap(),
            std::fs::read(embedded_out.join(name).join("sitemap.xml")).unwrap(),
            "{name}"
        );
    }

    // A sync with one site removed and one changed says so.
    let mut fewer = sites.clone();
    fewer.retain(|(name, _)| name != "down");
    let fleet = fleet_file(directory.path(), &out, &fewer, "concurrency = 3");
    let sync = sitemapper(&["fleet", "sync", &fleet, "--queue", &queue.url]);
    assert!(
        sync.stderr
            .contains("0 added, 20 changed, 1 removed, 0 unchanged"),
        "{}",
        sync.stderr
    );
}

/// A fleet of one site, `slow`, synced into `queue`: `pages` pages crawled one at a time,
/// 0.1 s each, slow enough to be caught mid-run. Returns its server, the directory of the
/// test's files, and the site's output directory.
fn slow_fleet(queue: &TestQueue, pages: usize) -> (Server, tempfile::TempDir, PathBuf) {
    let server = chain(Site::new(), "/", pages, Duration::from_millis(100)).serve();
    let directory = tempfile::tempdir().unwrap();
    let out = directory.path().join("out");
    let sites = [("slow".to_string(), server.url("/"))];
    let fleet = fleet_file(directory.path(), &out, &sites, "concurrency = 1");
    let sync = sitemapper(&["fleet", "sync", &fleet, "--queue", &queue.url]);
    assert_eq!(sync.code, 0, "{}", sync.stderr);
    (server, directory, out.join("slow"))
}

#[test]
fn a_killed_worker_s_site_is_taken_over_and_continued() {
    let Some(queue) = postgres::queue() else {
        return;
    };
    let (server, directory, out) = slow_fleet(&queue, 30);
    let first = directory.path().join("w1");
    let mut killed = worker(
        &queue,
        "w1",
        &first,
        &["--lease", "2", "--checkpoint", "0.3"],
    );
    server.wait_for(|seen| seen.len() >= 12);
    killed.kill().unwrap();
    let _ = killed.wait();
    let before = page_requests(&server);
    assert!(
        !out.join("sitemap.xml").exists(),
        "nothing published by the killed worker"
    );

    let second = directory.path().join("w2");
    let mut taker = worker(&queue, "w2", &second, &["--lease", "2", "--max-sites", "1"]);
    assert_eq!(wait(&mut taker), 0, "{}", worker_log(&second));
    let log = worker_log(&second);
    assert!(log.contains("took the site over from w1"), "{log}");
    assert_eq!(listed_urls(&out), chain_urls(&server, "/", 30));
    // The run was continued from the killed worker's last save, not started over.
    let after: Vec<String> = page_requests(&server).split_off(before.len());
    let again = before
        .iter()
        .filter(|target| after.contains(target))
        .count();
    assert!(
        again < before.len(),
        "every page was fetched again: {before:?} then {after:?}"
    );
    let status = status(&queue);
    assert_eq!(status["slow"], ("ok".to_string(), 1, "w2".to_string()));
}

#[test]
fn a_restart_of_postgresql_mid_run_loses_and_repeats_nothing() {
    let Some((queue, restart)) = postgres::queue_alone() else {
        return;
    };
    let (server, directory, out) = slow_fleet(&queue, 25);
    let state = directory.path().join("w1");
    let mut running = worker(
        &queue,
        "w1",
        &state,
        &["--once", "--lease", "30", "--checkpoint", "0.5"],
    );
    server.wait_for(|seen| seen.len() >= 5);
    postgres::restart(&restart);
    assert_eq!(wait(&mut running), 0, "{}", worker_log(&state));
    let log = worker_log(&state);
    // Down when the worker next needed it, or back already: either way the worker saw it.
    assert!(
        log.contains("PostgreSQL unreachable") || log.contains("connected again"),
        "the worker saw the restart: {log}"
    );
    let mut requests = page_requests(&server);
    let count = requests.len();
    requests.sort();
    requests.dedup();
    assert_eq!(requests.len(), count, "no page fetched twice");
    assert_eq!(listed_urls(&out), chain_urls(&server, "/", 25));
    assert_eq!(
        status(&queue)["slow"],
        ("ok".to_string(), 1, "w1".to_string())
    );
    assert_eq!(queue.sql("SELECT count(*) FROM fleet_runs").trim(), "1");
}

#[test]
fn sigterm_hands_the_site_back_and_the_next_worker_continues_it() {
    let Some(queue) = postgres::queue() else {
        return;
    };
    let (server, directory, out) = slow_fleet(&queue, 30);
    let first = directory.path().join("w1");
    let mut stopped = worker(&queue, "w1", &first, &[]);
    server.wait_for(|seen| seen.len() >= 8);
    let terminated = std::process::Command::new("kill")
        .args(["-TERM", &stopped.id().to_string()])
        .status()
        .unwrap();
    assert!(terminated.success());
    assert_eq!(wait(&mut stopped), 0, "{}", worker_log(&first));
    assert!(
        worker_log(&first).contains("handed the site back"),
        "{}",
        worker_log(&first)
    );
    assert_eq!(
        queue
            .sql("SELECT leased_by IS NULL, resume FROM fleet_sites")
            .trim(),
        "t|t"
    );
    let before = page_requests(&server).len();

    let second = directory.path().join("w2");
    let mut next = worker(&queue, "w2", &second, &["--once"]);
    assert_eq!(wait(&mut next), 0, "{}", worker_log(&second));
    assert_eq!(listed_urls(&out), chain_urls(&server, "/", 30));
    assert!(
        page_requests(&server).len() - before < 31,
        "continued, not started over"
    );
    assert_eq!(
        status(&queue)["slow"],
        ("ok".to_string(), 1, "w2".to_string())
    );
}
