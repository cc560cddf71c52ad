//! `fleet status --check` for monitoring: 0 and an OK line while every site's last run
//! succeeded and none is overdue; 1, a CRITICAL line and a line per site when one failed or
//! is overdue (due, plus its `retry` as grace, and not run). On one machine and on a queue.

use std::path::Path;
use std::time::{Duration, SystemTime};

use crate::fixture::Site;
use crate::fleet::{chain, fleet_file};
use crate::harness::{Run, sitemapper};
use crate::postgres;

fn check(fleet: &str) -> Run {
    sitemapper(&["fleet", "status", "--check", fleet])
}

/// Adds a site never run to the fleet file, last changed `ago`.
fn add_site(fleet: &str, name: &str, ago: Duration) {
    let mut text = std::fs::read_to_string(fleet).unwrap();
    text.push_str(&format!(
        "\n[[site]]\nname = \"{name}\"\nurl = \"http://127.0.0.1:9/{name}/\"\n"
    ));
    std::fs::write(fleet, text).unwrap();
    let file = std::fs::File::options().write(true).open(fleet).unwrap();
    file.set_modified(SystemTime::now() - ago).unwrap();
}

#[test]
fn sites_that_ran_and_are_not_due_are_ok() {
    let site = chain(Site::new(), "/", 2, Duration::ZERO).serve();
    let directory = tempfile::tempdir().unwrap();
    let fleet = fleet_file(
        directory.path(),
        &directory.path().join("out"),
        &[("ok".to_string(), site.url("/"))],
        "",
    );
    sitemapper(&["fleet", "run", &fleet]).assert_success();
    let run = check(&fleet);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert_eq!(run.stdout, "OK: 1 site on schedule, none failed\n");
    assert_eq!(run.stderr, "");
    // A site just added, not run yet: due, but within its grace.
    add_site(&fleet, "new", Duration::ZERO);
    let run = check(&fleet);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert_eq!(
        run.stdout,
        "OK: 2 sites on schedule, none failed, 1 not run yet (not due)\n"
    );
}

#[test]
fn a_failed_site_and_an_overdue_one_are_critical_and_named() {
    let down = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://{}/", listener.local_addr().unwrap())
    };
    let site = chain(Site::new(), "/", 2, Duration::ZERO).serve();
    let directory = tempfile::tempdir().unwrap();
    let fleet = fleet_file(
        directory.path(),
        &directory.path().join("out"),
        &[
            ("down".to_string(), down),
            ("ok".to_string(), site.url("/")),
        ],
        "",
    );
    assert_eq!(sitemapper(&["fleet", "run", &fleet]).code, 5);
    // Never run, and the fleet file unchanged for two hours: due for longer than its grace
    // (the default retry, one hour).
    add_site(&fleet, "late", Duration::from_secs(2 * 3600));
    let run = check(&fleet);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(
        lines[0],
        "CRITICAL: 2 of 3 sites failed or overdue: down (failed), late (overdue)"
    );
    assert_eq!(lines.len(), 3, "{}", run.stdout);
    assert!(lines[1].starts_with("down: failed at "), "{}", lines[1]);
    assert!(
        lines[2].starts_with("late: overdue since ") && lines[2].ends_with("last run never)"),
        "{}",
        lines[2]
    );
    // Said once, on stdout, where a monitor reads it: no error line repeats it.
    assert_eq!(run.stderr, "", "{}", run.stdout);
    // The table is as it was without --check.
    let table = sitemapper(&["fleet", "status", &fleet]);
    assert_eq!(table.code, 0, "{}", table.stderr);
    assert!(table.stdout.starts_with("site "), "{}", table.stdout);
}

#[test]
fn a_queue_s_sites_are_checked_too() {
    let Some(queue) = postgres::queue() else {
        return;
    };
    let directory = tempfile::tempdir().unwrap();
    let fleet = fleet_file(
        directory.path(),
        Path::new("/tmp/sitemapper-check-out"),
        &[
            ("a".to_string(), "http://127.0.0.1:9/a/".to_string()),
            ("b".to_string(), "http://127.0.0.1:9/b/".to_string()),
            ("c".to_string(), "http://127.0.0.1:9/c/".to_string()),
        ],
        "",
    );
    sitemapper(&["fleet", "sync", &fleet, "--queue", &queue.url]).assert_success();
    let check = || sitemapper(&["fleet", "status", "--check", "--queue", &queue.url]);
    let run = check();
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert_eq!(
        run.stdout,
        "OK: 3 sites on schedule, none failed, 3 not run yet (not due)\n"
    );
    queue.sql("UPDATE fleet_sites SET next_due = now() - interval '2 hours' WHERE name = 'b'");
    queue.sql(
        "INSERT INTO fleet_runs (site_id, lease, worker, started, finished, result, listed, \
         added, removed, changed, requests, error) \
         SELECT id, 1, 'w1', now(), now(), 'failed', 0, 0, 0, 0, 1, 'seed unreachable' \
         FROM fleet_sites WHERE name = 'a'",
    );
    let run = check();
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(
        lines[0],
        "CRITICAL: 2 of 3 sites failed or overdue: a (failed), b (overdue)"
    );
    assert!(
        lines[1].starts_with("a: failed at ") && lines[1].ends_with(": seed unreachable"),
        "{}",
        lines[1]
    );
    assert!(lines[2].starts_with("b: overdue since "), "{}", lines[2]);
    assert_eq!(run.stderr, "", "{}", run.stdout);
}
