//! The report directory may be writable by others (docs/design.md, Safety): a link planted
//! at any name `audit --report DIR` writes is replaced by the file, never written through,
//! and a link at the crawl database's names refuses the run before anything is opened.

use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

use crate::audit::audit;
use crate::fixture::{Server, Site};
use crate::harness::{assert_one_line_error, chromium, sitemapper_command};

/// Every file an audit writes into its report directory (with its sitemap beside the report,
/// and the CI files put there too), but the crawl database.
const WRITTEN: [&str; 10] = [
    "report.html",
    "report.xlsx",
    "report.json",
    "findings.csv",
    "pages.csv",
    "links.csv",
    "outbound.csv",
    "sitemap.xml",
    "findings.sarif",
    "junit.xml",
];

/// The names SQLite opens for the report's crawl database.
const DATABASE: [&str; 3] = ["crawl.db", "crawl.db-wal", "crawl.db-shm"];

fn small_site() -> Server {
    Site::new()
        .page(
            "/",
            "<html><head><title>Home</title></head><body><a href=\"/about\">About</a>\
             <a href=\"https://example.invalid/\">elsewhere</a></body></html>",
        )
        .page(
            "/about",
            "<html><head><title>About</title></head><body><a href=\"/\">Home</a></body></html>",
        )
        .serve()
}

/// Victim files outside the report directory, each with bytes of its own.
struct Victims {
    directory: tempfile::TempDir,
}

impl Victims {
    fn new() -> Victims {
        Victims {
            directory: tempfile::tempdir().unwrap(),
        }
    }

    /// Plants a link at `name` in `report` to a victim file with known bytes.
    fn plant(&self, report: &Path, name: &str) -> PathBuf {
        let victim = self.directory.path().join(format!("victim-of-{name}"));
        std::fs::write(&victim, Self::bytes(name)).unwrap();
        symlink(&victim, report.join(name)).unwrap();
        victim
    }

    /// Plants a link at `name` in `report` to a file that does not exist.
    fn plant_dangling(&self, report: &Path, name: &str) -> PathBuf {
        let victim = self.directory.path().join(format!("never-{name}"));
        symlink(&victim, report.join(name)).unwrap();
        victim
    }

    fn bytes(name: &str) -> String {
        format!("the victim's own bytes, linked from {name}\n")
    }

    /// Asserts every victim planted for `names` holds its bytes.
    fn assert_unchanged(&self, names: &[&str]) {
        for name in names {
            let victim = self.directory.path().join(format!("victim-of-{name}"));
            assert_eq!(
                std::fs::read_to_string(&victim).unwrap(),
                Self::bytes(name),
                "{name} was written through"
            );
        }
    }
}

/// Asserts that `name` in `report` is a regular file now, not a link.
fn assert_regular_file(report: &Path, name: &str) {
    let metadata = std::fs::symlink_metadata(report.join(name)).unwrap();
    assert!(metadata.is_file(), "{name} is a regular file: {metadata:?}");
}

/// Asserts that no file under a temporary name of sitemapper's was left in `report`.
fn assert_nothing_left(report: &Path) {
    for entry in std::fs::read_dir(report).unwrap() {
        let name = entry.unwrap().file_name();
        let name = name.to_string_lossy();
        assert!(
            !name.starts_with(".sitemapper-"),
            "{name} was left in the report directory"
        );
    }
}

#[test]
fn a_link_at_every_name_the_report_writes_is_replaced_and_its_target_left_alone() {
    let server = small_site();
    let report = tempfile::tempdir().unwrap();
    let victims = Victims::new();
    for name in WRITTEN {
        victims.plant(report.path(), name);
    }
    let sarif = report.path().join("findings.sarif");
    let junit = report.path().join("junit.xml");
    // A FIFO at a name holds no run: it is replaced, never opened.
    for fifo in [report.path().join("findings.csv"), junit.clone()] {
        std::fs::remove_file(&fifo).unwrap();
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success());
    }
    let run = audit(
        &server,
        report.path(),
        &[
            "--sarif",
            sarif.to_str().unwrap(),
            "--junit",
            junit.to_str().unwrap(),
        ],
    );
    run.assert_success();
    victims.assert_unchanged(&WRITTEN);
    for name in WRITTEN {
        assert_regular_file(report.path(), name);
    }
    assert!(
        std::fs::read_to_string(report.path().join("report.html"))
            .unwrap()
            .contains("<html"),
    );
    assert!(
        run.stderr.contains("replaced by the"),
        "a warning says a link was replaced:\n{}",
        run.stderr
    );
    assert_nothing_left(report.path());
}

#[test]
fn a_dangling_link_at_a_report_file_creates_nothing_where_it_points() {
    let server = small_site();
    let report = tempfile::tempdir().unwrap();
    let victims = Victims::new();
    let targets: Vec<PathBuf> = ["report.json", "links.csv", "report.xlsx"]
        .into_iter()
        .map(|name| victims.plant_dangling(report.path(), name))
        .collect();
    audit(&server, report.path(), &[]).assert_success();
    for target in targets {
        assert!(!target.exists(), "{} was created", target.display());
    }
    assert_regular_file(report.path(), "report.json");
}

#[test]
fn a_link_at_the_crawl_database_s_names_refuses_the_audit_before_any_request() {
    let server = small_site();
    // Another sitemapper database, which the store alone would accept.
    let elsewhere = tempfile::tempdir().unwrap();
    audit(&server, elsewhere.path(), &[]).assert_success();
    let other_database = elsewhere.path().join("crawl.db");
    let before = std::fs::read(&other_database).unwrap();
    for name in DATABASE {
        let report = tempfile::tempdir().unwrap();
        let victims = Victims::new();
        if name == "crawl.db" {
            symlink(&other_database, report.path().join(name)).unwrap();
        } else {
            victims.plant(report.path(), name);
        }
        let requests = server.requests().len();
        let run = audit(&server, report.path(), &[]);
        assert_eq!(run.code, 2, "{name}: {}", run.stderr);
        assert_one_line_error(&run.stderr);
        assert!(
            run.stderr.contains(name) && run.stderr.contains("is a link"),
            "{}",
            run.stderr
        );
        assert_eq!(server.requests().len(), requests, "{name}: no request made");
        if name != "crawl.db" {
            victims.assert_unchanged(&[name]);
        }
        assert!(!report.path().join("report.html").exists());
    }
    assert_eq!(std::fs::read(&other_database).unwrap(), before);
    // A directory at the name is refused the same way.
    let report = tempfile::tempdir().unwrap();
    std::fs::create_dir(report.path().join("crawl.db")).unwrap();
    let run = audit(&server, report.path(), &[]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert_one_line_error(&run.stderr);
}

#[test]
fn a_link_at_report_pdf_is_replaced_and_the_browser_prints_the_report_not_its_target() {
    let Some(executable) = chromium() else { return };
    let server = small_site();
    let report = tempfile::tempdir().unwrap();
    let victims = Victims::new();
    let names = ["report.pdf", "report.pdf.partial", "report.html"];
    for name in names {
        victims.plant(report.path(), name);
    }
    let seed = server.url("/");
    let run = crate::harness::Run::from(
        sitemapper_command(&[
            "audit",
            &seed,
            "--report",
            report.path().to_str().unwrap(),
            "--retries",
            "0",
            "--render",
            "never",
            "--pdf",
            "--chrome",
            executable.to_str().unwrap(),
        ])
        .output()
        .unwrap(),
    );
    run.assert_success();
    victims.assert_unchanged(&names);
    assert_regular_file(report.path(), "report.pdf");
    // A name sitemapper no longer writes is left as it stands.
    assert!(
        std::fs::symlink_metadata(report.path().join("report.pdf.partial"))
            .unwrap()
            .is_symlink()
    );
    assert!(
        std::fs::read(report.path().join("report.pdf"))
            .unwrap()
            .starts_with(b"%PDF-")
    );
    assert_nothing_left(report.path());
}
