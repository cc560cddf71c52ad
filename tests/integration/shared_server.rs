//! On a server shared with other users (docs/design.md, Safety): what sitemapper leaves in
//! the temp directory is its user's alone, and what a killed run left there is removed by the
//! next run.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use crate::fixture::{Route, Site};
use crate::harness::sitemapper_command;

/// The temporary crawl databases' directories in `temp_dir`.
fn crawl_directories(temp_dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(temp_dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| {
            path.file_name()
                .and_then(|name| name.to_str())
                .is_some_and(|name| name.starts_with("sitemapper-crawl-"))
        })
        .collect()
}

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

#[test]
fn a_temporary_crawl_database_is_private_and_what_a_killed_run_left_is_removed() {
    let server = Site::new()
        .page("/", "<a href=\"/hang\">hang</a>")
        .route(
            "/hang",
            Route::html("never").delay(Duration::from_secs(3600)),
        )
        .serve();
    let temp_dir = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    let mut running = sitemapper_command(&[
        "crawl",
        &server.url("/"),
        "--out",
        out.path().to_str().unwrap(),
        "--quiet",
    ])
    .env("TMPDIR", temp_dir.path())
    .stdout(Stdio::null())
    .stderr(Stdio::null())
    .spawn()
    .unwrap();
    server.wait_for(|seen| seen.iter().any(|request| request.target == "/hang"));

    let directories = crawl_directories(temp_dir.path());
    assert_eq!(directories.len(), 1, "{directories:?}");
    let directory = &directories[0];
    assert_eq!(mode(directory), 0o700, "{}", directory.display());
    for entry in std::fs::read_dir(directory).unwrap() {
        let path = entry.unwrap().path();
        assert_eq!(
            mode(&path) & 0o077,
            0,
            "{} is open to others",
            path.display()
        );
    }
    running.kill().unwrap();
    running.wait().unwrap();
    assert!(directory.is_dir(), "a killed run cleans nothing up");

    let quick = Site::new().page("/", "<p>home</p>").serve();
    let run: crate::harness::Run = sitemapper_command(&[
        "crawl",
        &quick.url("/"),
        "--out",
        out.path().to_str().unwrap(),
    ])
    .env("TMPDIR", temp_dir.path())
    .output()
    .unwrap()
    .into();

    run.assert_success();
    assert_eq!(crawl_directories(temp_dir.path()), Vec::<PathBuf>::new());
}

#[test]
fn a_fleet_state_directory_another_user_owns_or_may_write_is_refused() {
    let site = Site::new().page("/", "<p>home</p>").serve();
    let directory = tempfile::tempdir().unwrap();
    let fleet = crate::fleet::fleet_file(
        directory.path(),
        &directory.path().join("out"),
        &[("home".to_string(), site.url("/"))],
        "",
    );
    let open_to_all = directory.path().join("open");
    std::fs::create_dir(&open_to_all).unwrap();
    std::fs::set_permissions(&open_to_all, std::fs::Permissions::from_mode(0o777)).unwrap();
    let mut refused = vec![open_to_all];
    // Another user's directory, as a predictable name in /tmp taken first would be: only root
    // can give a directory away.
    let theirs = directory.path().join("theirs");
    std::fs::create_dir(&theirs).unwrap();
    if std::os::unix::fs::chown(&theirs, Some(65534), Some(65534)).is_ok() {
        refused.push(theirs);
    } else {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "CI runs as root, which can give a directory to nobody"
        );
        eprintln!("skipping another user's state directory: not root");
    }

    for state_dir in &refused {
        let run = crate::harness::sitemapper(&[
            "fleet",
            "run",
            &fleet,
            "--state-dir",
            state_dir.to_str().unwrap(),
        ]);
        assert_eq!(run.code, 2, "{}: {}", state_dir.display(), run.stderr);
        crate::harness::assert_one_line_error(&run.stderr);
        assert!(
            run.stderr
                .contains("another user owns it or may write in it"),
            "{}",
            run.stderr
        );
        assert_eq!(
            std::fs::read_dir(state_dir).unwrap().count(),
            0,
            "nothing written in {}",
            state_dir.display()
        );
    }
    assert!(site.requests().is_empty());
}

#[test]
fn the_list_of_urls_not_listed_and_the_change_report_replace_a_link_at_their_name() {
    let site = Site::new()
        .page("/", "<a href=\"/gone\">gone</a>")
        .route("/gone", Route::new(404, "gone"))
        .serve();
    let directory = tempfile::tempdir().unwrap();
    let victim = directory.path().join("victim");
    std::fs::write(&victim, "precious").unwrap();
    let list = directory.path().join("not-listed.csv");
    let report = directory.path().join("changes.json");
    for name in [&list, &report] {
        std::os::unix::fs::symlink(&victim, name).unwrap();
    }

    crate::harness::crawl(
        &site.url("/"),
        &directory.path().join("out"),
        &[
            "--list-not-listed",
            list.to_str().unwrap(),
            "--report-changes",
            report.to_str().unwrap(),
            "--state",
            directory.path().join("crawl.db").to_str().unwrap(),
        ],
    )
    .assert_success();

    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
    for name in [&list, &report] {
        assert!(
            std::fs::symlink_metadata(name).unwrap().is_file(),
            "{} is a file of its own",
            name.display()
        );
    }
    assert!(std::fs::read_to_string(&list).unwrap().contains("/gone"));
}
