//! A PostgreSQL database of its own for each queue test, on the server `.ci/run` starts and
//! names in `SITEMAPPER_TEST_POSTGRES` (an administrator's URL). Without it the queue tests are
//! skipped with a message, but not under CI.

use std::process::Command;
use std::sync::{RwLock, RwLockReadGuard, RwLockWriteGuard};

/// Where the test server is: `postgres://USER:PASSWORD@HOST:PORT/DATABASE`.
const SERVER_VARIABLE: &str = "SITEMAPPER_TEST_POSTGRES";
/// A shell command that restarts the test server.
const RESTART_VARIABLE: &str = "SITEMAPPER_TEST_POSTGRES_RESTART";

/// Held for reading by every queue test, and for writing by the test that restarts the
/// server, which the others must not see.
static SERVER: RwLock<()> = RwLock::new(());

/// A database made for one test, dropped after it.
pub(crate) struct TestQueue {
    /// The URL of the test's database.
    pub url: String,
    admin: String,
    name: String,
    _shared: Option<RwLockReadGuard<'static, ()>>,
    _exclusive: Option<RwLockWriteGuard<'static, ()>>,
}

impl std::fmt::Debug for TestQueue {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("TestQueue")
            .field("url", &self.url)
            .finish()
    }
}

/// A fresh database, or `None` (skipped, with a message) where no server is given.
pub(crate) fn queue() -> Option<TestQueue> {
    let admin = server()?;
    let shared = SERVER
        .read()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    Some(TestQueue::create(admin, Some(shared), None))
}

/// A fresh database, with the server to this test alone (it restarts it), and the command
/// that restarts it.
pub(crate) fn queue_alone() -> Option<(TestQueue, String)> {
    let admin = server()?;
    let Ok(restart) = std::env::var(RESTART_VARIABLE) else {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "{RESTART_VARIABLE} is required under CI (.ci/run sets it)"
        );
        eprintln!("skipping a PostgreSQL restart test: {RESTART_VARIABLE} is not set");
        return None;
    };
    let exclusive = SERVER
        .write()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    Some((TestQueue::create(admin, None, Some(exclusive)), restart))
}

fn server() -> Option<String> {
    match std::env::var(SERVER_VARIABLE) {
        Ok(url) if !url.is_empty() => Some(url),
        _ => {
            assert!(
                std::env::var("CI").as_deref() != Ok("true"),
                "{SERVER_VARIABLE} is required under CI (.ci/run starts PostgreSQL)"
            );
            eprintln!("skipping a queue test: {SERVER_VARIABLE} names no PostgreSQL server");
            None
        }
    }
}

impl TestQueue {
    fn create(
        admin: String,
        shared: Option<RwLockReadGuard<'static, ()>>,
        exclusive: Option<RwLockWriteGuard<'static, ()>>,
    ) -> TestQueue {
        static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let name = format!(
            "sitemapper_test_{}_{}",
            std::process::id(),
            NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
        );
        psql(&admin, &format!("DROP DATABASE IF EXISTS {name}"));
        psql(&admin, &format!("CREATE DATABASE {name}"));
        let base = admin
            .rsplit_once('/')
            .map_or(admin.as_str(), |(base, _)| base);
        TestQueue {
            url: format!("{base}/{name}"),
            admin,
            name,
            _shared: shared,
            _exclusive: exclusive,
        }
    }

    /// Runs SQL in the test's database; its output, rows unaligned, one per line.
    pub(crate) fn sql(&self, statement: &str) -> String {
        psql(&self.url, statement)
    }
}

impl Drop for TestQueue {
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

/// Restarts the test server with `command`.
pub(crate) fn restart(command: &str) {
    let status = Command::new("sh")
        .args(["-c", command])
        .status()
        .expect("run the restart command");
    assert!(status.success(), "{command} failed");
}

fn psql(url: &str, statement: &str) -> String {
    let output = Command::new("psql")
        .args([url, "-qAtc", statement])
        .output()
        .expect("run psql");
    assert!(
        output.status.success(),
        "psql {statement}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}
