//! The queue's guarantees against a real PostgreSQL (`SITEMAPPER_TEST_POSTGRES`, which
//! `.ci/run` sets; skipped with a message elsewhere, but not under CI): one claim per site, a
//! lease as a fencing token, one record per claim however often it is sent.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::print_stderr,
    reason = "tests"
)]

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use sitemapper_fleet::{Claimed, Fleet, Queue, Release, RunRecord, RunResult};

/// A database of its own for a test, dropped after it.
struct TestDatabase {
    admin: String,
    name: String,
    url: String,
}

impl TestDatabase {
    fn create(test: &str) -> Option<TestDatabase> {
        let Ok(admin) = std::env::var("SITEMAPPER_TEST_POSTGRES") else {
            assert!(
                std::env::var("CI").as_deref() != Ok("true"),
                "SITEMAPPER_TEST_POSTGRES is required under CI"
            );
            eprintln!("skipping a queue test: SITEMAPPER_TEST_POSTGRES names no server");
            return None;
        };
        let name = format!("sitemapper_fleet_{test}_{}", std::process::id());
        psql(&admin, &format!("DROP DATABASE IF EXISTS {name}"));
        psql(&admin, &format!("CREATE DATABASE {name}"));
        let base = admin
            .rsplit_once('/')
            .map_or(admin.as_str(), |(base, _)| base);
        let url = format!("{base}/{name}");
        Some(TestDatabase { admin, name, url })
    }
}

impl Drop for TestDatabase {
    fn drop(&mut self) {
        let _ = Command::new("psql")
            .args([self.admin.as_str(), "-qAtc"])
            .arg(format!(
                "DROP DATABASE IF EXISTS {} WITH (FORCE)",
                self.name
            ))
            .output();
    }
}

fn psql(url: &str, statement: &str) {
    let output = Command::new("psql")
        .args([url, "-qAtc", statement])
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

fn fleet(sites: &[&str]) -> Fleet {
    let mut text = String::from("[defaults]\nout = \"/tmp/{name}\"\nevery = \"1h\"\n");
    for name in sites {
        text.push_str(&format!(
            "[[site]]\nname = \"{name}\"\nurl = \"https://{name}.example/\"\n"
        ));
    }
    Fleet::parse(Path::new("fleet.toml"), &text).unwrap()
}

fn record(result: RunResult) -> RunRecord {
    RunRecord {
        result,
        listed: 7,
        ..RunRecord::new(jiff::Timestamp::now(), Some("w1".to_string()))
    }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

#[test]
fn a_site_is_claimed_once_and_an_expired_lease_fences_its_old_holder() {
    let Some(database) = TestDatabase::create("fencing") else {
        return;
    };
    runtime().block_on(async {
        let queue = Queue::connect(&database.url).await.unwrap();
        let counts = queue.sync(&fleet(&["a"]).sites).await.unwrap();
        assert_eq!((counts.added, counts.unchanged), (1, 0));
        // Connecting again migrates nothing twice.
        let other = Queue::connect(&database.url).await.unwrap();

        let first = queue
            .claim("w1", Duration::from_secs(1))
            .await
            .unwrap()
            .unwrap();
        assert_eq!((first.site.name.as_str(), first.resume), ("a", false));
        assert!(
            other
                .claim("w2", Duration::from_secs(60))
                .await
                .unwrap()
                .is_none()
        );
        assert!(queue.renew(&first, Duration::from_secs(1)).await.unwrap());

        // The lease runs out: another worker takes the site over, to be continued.
        tokio::time::sleep(Duration::from_millis(1500)).await;
        let second = other
            .claim("w2", Duration::from_secs(60))
            .await
            .unwrap()
            .unwrap();
        assert_eq!(second.taken_over_from.as_deref(), Some("w1"));
        assert!(second.resume);
        assert!(second.lease > first.lease);

        // The first holder's writes change nothing now.
        assert!(!queue.renew(&first, Duration::from_secs(60)).await.unwrap());
        assert_eq!(queue.checkpoint(&first, b"stale").await.unwrap(), None);
        let late = Release::Finished(record(RunResult::Succeeded));
        assert_eq!(
            queue.release(&first, &late, Some(b"stale")).await.unwrap(),
            None
        );
        assert!(queue.state(second.site_id).await.unwrap().is_none());

        // The holder saves, then releases; a release sent again records nothing more.
        assert_eq!(other.checkpoint(&second, b"saved").await.unwrap(), Some(1));
        let done = Release::Finished(record(RunResult::Succeeded));
        assert_eq!(
            other.release(&second, &done, Some(b"final")).await.unwrap(),
            Some(2)
        );
        assert_eq!(
            other.release(&second, &done, Some(b"final")).await.unwrap(),
            Some(2)
        );
        assert_eq!(
            queue.state(second.site_id).await.unwrap(),
            Some((2, b"final".to_vec()))
        );
        let status = queue.status().await.unwrap();
        assert_eq!(status[0].runs, 1);
        assert_eq!(status[0].last.as_ref().unwrap().listed, 7);
        assert!(status[0].running_on.is_none());
        // Due again in an hour, not now.
        assert!(
            queue
                .claim("w3", Duration::from_secs(60))
                .await
                .unwrap()
                .is_none()
        );
        let wait = queue.next_wake().await.unwrap().unwrap();
        assert!(
            wait > Duration::from_secs(3500) && wait <= Duration::from_secs(3600),
            "{wait:?}"
        );
    });
}

#[test]
fn sync_adds_changes_and_removes_and_a_handed_back_site_is_due_at_once() {
    let Some(database) = TestDatabase::create("sync") else {
        return;
    };
    runtime().block_on(async {
        let queue = Queue::connect(&database.url).await.unwrap();
        queue.sync(&fleet(&["a", "b", "c"]).sites).await.unwrap();
        let counts = queue.sync(&fleet(&["a", "b", "c"]).sites).await.unwrap();
        assert_eq!(
            (
                counts.added,
                counts.changed,
                counts.removed,
                counts.unchanged
            ),
            (0, 0, 0, 3)
        );
        let counts = queue.sync(&fleet(&["a", "d"]).sites).await.unwrap();
        assert_eq!(
            (
                counts.added,
                counts.changed,
                counts.removed,
                counts.unchanged
            ),
            (1, 0, 2, 1)
        );
        let names: Vec<String> = queue
            .status()
            .await
            .unwrap()
            .into_iter()
            .map(|site| site.name)
            .collect();
        assert_eq!(names, ["a", "d"]);

        let claim = queue
            .claim("w1", Duration::from_secs(60))
            .await
            .unwrap()
            .unwrap();
        assert_eq!(
            queue
                .release(&claim, &Release::HandedBack, Some(b"half"))
                .await
                .unwrap(),
            Some(1)
        );
        let again = queue
            .claim("w2", Duration::from_secs(60))
            .await
            .unwrap()
            .unwrap();
        assert_eq!(again.site.name, claim.site.name);
        assert!(again.resume);
        assert_eq!(again.state_generation, 1);
    });
}

/// The server of the test sites: `a-*.example` are on one, `b-*.example` on another.
async fn server_of(url: String) -> String {
    if url.contains("://a-") {
        "192.0.2.1".to_string()
    } else {
        "192.0.2.2".to_string()
    }
}

fn claimed_name(claimed: Claimed) -> Option<String> {
    match claimed {
        Claimed::Site(claim) => Some(claim.site.name),
        Claimed::NothingDue | Claimed::ServersBusy => None,
    }
}

#[test]
fn a_server_is_crawled_by_no_more_claims_than_its_limit_across_workers() {
    let Some(database) = TestDatabase::create("per_server") else {
        return;
    };
    runtime().block_on(async {
        let queue = Queue::connect(&database.url).await.unwrap();
        let other = Queue::connect(&database.url).await.unwrap();
        queue
            .sync(&fleet(&["a-1", "a-2", "a-3", "b-1"]).sites)
            .await
            .unwrap();
        let lease = Duration::from_secs(60);
        let first = match queue
            .claim_per_server("w1", lease, 1, server_of)
            .await
            .unwrap()
        {
            Claimed::Site(claim) => *claim,
            other => panic!("nothing claimed: {other:?}"),
        };
        assert_eq!(first.site.name, "a-1");
        // Server 192.0.2.1 is at its limit: the next worker gets the other server's site,
        // then none, though two sites are due.
        let second = other.claim_per_server("w2", lease, 1, server_of).await;
        assert_eq!(claimed_name(second.unwrap()).as_deref(), Some("b-1"));
        let third = other
            .claim_per_server("w3", lease, 1, server_of)
            .await
            .unwrap();
        assert!(matches!(third, Claimed::ServersBusy), "{third:?}");
        // With two crawls allowed a server, one more is taken.
        let wider = other.claim_per_server("w3", lease, 2, server_of).await;
        assert_eq!(claimed_name(wider.unwrap()).as_deref(), Some("a-2"));
        let full = other.claim_per_server("w3", lease, 2, server_of).await;
        assert!(matches!(full.unwrap(), Claimed::ServersBusy));

        // The first run ends: its place on the server is free again.
        let ended = Release::Finished(record(RunResult::Succeeded));
        queue.release(&first, &ended, None).await.unwrap();
        let freed = other.claim_per_server("w1", lease, 2, server_of).await;
        assert_eq!(claimed_name(freed.unwrap()).as_deref(), Some("a-3"));
        let done = other.claim_per_server("w1", lease, 2, server_of).await;
        assert!(matches!(done.unwrap(), Claimed::NothingDue));
    });
}

/// The error of connecting to `url`, as the user reads it.
fn connect_error(url: &str) -> String {
    match runtime().block_on(Queue::connect(url)) {
        Ok(_) => panic!("connected to {url}"),
        Err(error) => error.to_string(),
    }
}

/// The admin URL with another password, or another database.
fn admin_url_with(admin: &str, password: Option<&str>, database: Option<&str>) -> String {
    let (scheme, rest) = admin.split_once("://").unwrap();
    let (credentials, place) = rest.rsplit_once('@').unwrap();
    let user = credentials.split(':').next().unwrap();
    let (host, admin_database) = place.split_once('/').unwrap();
    let password = password.map_or_else(
        || {
            credentials
                .split_once(':')
                .map_or("", |(_, p)| p)
                .to_string()
        },
        str::to_string,
    );
    let database = database.unwrap_or(admin_database);
    format!("{scheme}://{user}:{password}@{host}/{database}")
}

#[test]
fn a_wrong_password_and_a_missing_database_are_named_without_the_password() {
    let Some(database) = TestDatabase::create("causes") else {
        return;
    };
    let secret = "Wr0ng-secret-never-shown";
    let message = connect_error(&admin_url_with(&database.admin, Some(secret), None));
    assert!(
        message.contains("authentication failed (password authentication failed for user"),
        "{message}"
    );
    assert!(!message.contains(secret), "the password shows: {message}");
    let missing = format!("sitemapper_missing_{}", std::process::id());
    let message = connect_error(&admin_url_with(&database.admin, None, Some(&missing)));
    assert!(
        message.contains(&format!("database \"{missing}\" does not exist: create it")),
        "{message}"
    );
    assert!(!message.contains(secret), "the password shows: {message}");
    // A certificate checked against the system's roots: the server's own (self-signed, or
    // for another name) fails the handshake; a server without TLS fails it too.
    let url = admin_url_with(&database.admin, Some(secret), None);
    let message = connect_error(&format!("{url}?sslmode=verify-full"));
    assert!(message.contains("TLS"), "{message}");
    assert!(!message.contains(secret), "the password shows: {message}");
}

#[test]
fn a_closed_port_is_refused_and_an_unknown_host_not_found() {
    // A port nothing listens on: bound, then closed.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    let message = connect_error(&format!(
        "postgres://user:Secret-123@127.0.0.1:{port}/queue?sslmode=disable"
    ));
    assert_eq!(
        message,
        format!(
            "cannot connect to the queue at 127.0.0.1:{port}/queue: connection refused: is \
             PostgreSQL running, and listening on that host and port?"
        )
    );
    let message = connect_error("postgres://user:Secret-123@no-such-host.invalid/queue");
    assert!(
        message.contains("host \"no-such-host.invalid\" not found"),
        "{message}"
    );
    assert!(!message.contains("Secret-123"), "{message}");
}

#[test]
fn a_sync_updates_changed_definitions_and_schedules_together() {
    let Some(database) = TestDatabase::create("changes") else {
        return;
    };
    let fleet_of = |sites: &[(&str, &str, &str)]| {
        let mut text = String::from("[defaults]\nout = \"/tmp/{name}\"\n");
        for (name, every, pages) in sites {
            text.push_str(&format!(
                "[[site]]\nname = \"{name}\"\nurl = \"https://{name}.example/\"\nevery = \"{every}\"\nmax-pages = {pages}\n"
            ));
        }
        Fleet::parse(Path::new("fleet.toml"), &text).unwrap()
    };
    runtime().block_on(async {
        let queue = Queue::connect(&database.url).await.unwrap();
        let first = fleet_of(&[("a", "1h", "1"), ("b", "1h", "1"), ("c", "1h", "1")]);
        queue.sync(&first.sites).await.unwrap();
        // a: another option, same schedule; b: another schedule; c as it was; d new.
        let second = fleet_of(&[
            ("a", "1h", "2"),
            ("b", "2h", "1"),
            ("c", "1h", "1"),
            ("d", "1h", "1"),
        ]);
        let counts = queue.sync(&second.sites).await.unwrap();
        assert_eq!(
            (
                counts.added,
                counts.changed,
                counts.removed,
                counts.unchanged
            ),
            (1, 2, 0, 1)
        );
        let schedules: Vec<(String, String)> = queue
            .status()
            .await
            .unwrap()
            .into_iter()
            .map(|site| (site.name, site.schedule))
            .collect();
        assert_eq!(
            schedules,
            [
                ("a".to_string(), "every 1h".to_string()),
                ("b".to_string(), "every 2h".to_string()),
                ("c".to_string(), "every 1h".to_string()),
                ("d".to_string(), "every 1h".to_string()),
            ]
        );
        let again = queue.sync(&second.sites).await.unwrap();
        assert_eq!(again.unchanged, 4, "{again:?}");
    });
}
