//! Bad values and unwritable outputs: a number outside its option's range, a line break in a
//! header, a path that cannot be written are one-line usage errors found before any request;
//! a change report that cannot be written after publishing loses no change.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::fixture::{Route, Site};
use crate::harness::{
    assert_one_line_error, crawl, listed_urls, previous_output, sitemapper, sitemapper_command,
};

/// The names in `directory`, sorted.
fn names_in(directory: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(directory)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn a_render_concurrency_beyond_its_range_is_one_usage_line_from_the_flag_or_its_variable() {
    let server = Site::new().page("/", "home").serve();
    let (out, previous) = previous_output();
    let out_path = out.path().to_str().unwrap();
    let flag = sitemapper(&[
        "crawl",
        &server.url("/"),
        "--out",
        out_path,
        "--render-concurrency",
        "18446744073709551615",
    ]);
    let variable = sitemapper_command(&["crawl", &server.url("/"), "--out", out_path])
        .env("SITEMAPPER_RENDER_CONCURRENCY", "18446744073709551615")
        .output()
        .unwrap();
    let variable = crate::harness::Run::from(variable);
    for (run, named) in [
        (&flag, "--render-concurrency"),
        (&variable, "SITEMAPPER_RENDER_CONCURRENCY"),
    ] {
        assert_eq!(run.code, 2, "{named}: {}", run.stderr);
        assert_one_line_error(&run.stderr);
        assert_eq!(
            run.stderr.trim_end(),
            format!(
                "error: {named} must be a whole number from 1 to 64, not \"18446744073709551615\""
            )
        );
    }
    assert!(server.targets().is_empty(), "{:?}", server.targets());
    assert_eq!(
        std::fs::read(out.path().join("sitemap.xml")).unwrap(),
        previous
    );
}

#[test]
fn a_number_outside_its_range_in_the_config_file_names_the_file_the_line_and_the_range() {
    let directory = tempfile::tempdir().unwrap();
    let config = directory.path().join("sitemapper.toml");
    std::fs::write(
        &config,
        "# nightly\nquiet = true\nrender-concurrency = 65\n",
    )
    .unwrap();
    let run = sitemapper(&[
        "crawl",
        "http://127.0.0.1:9/",
        "--config",
        config.to_str().unwrap(),
    ]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert_eq!(
        run.stderr.trim_end(),
        format!(
            "error: invalid config file {}, line 3: render-concurrency must be a whole number from 1 to 64, not 65",
            config.display()
        )
    );
}

#[test]
fn a_line_break_or_nul_in_a_header_value_is_a_usage_error_naming_the_option() {
    let server = Site::new().page("/", "home").serve();
    let (out, previous) = previous_output();
    let directory = tempfile::tempdir().unwrap();
    let config = directory.path().join("nul.toml");
    // TOML's \u0000: a NUL no command line can carry.
    std::fs::write(&config, "header = [\"X-Token: a\\u0000b\"]\n").unwrap();
    let config = config.to_str().unwrap();
    for (flags, named) in [
        (&["--user-agent", "a\r\nb"][..], "--user-agent"),
        (&["--user-agent", "a\tb\u{1}"][..], "--user-agent"),
        (&["--header", "X-Token: a\nInjected: b"][..], "--header"),
        (&["--config", config][..], "--header"),
        // A cookie is trimmed before use: a trailing CR would pass silently.
        (&["--cookie", "session=1\r"][..], "--cookie"),
        (&["--basic-auth", "user:pass\n"][..], "--basic-auth"),
    ] {
        let run = crawl(&server.url("/"), out.path(), flags);
        assert_eq!(run.code, 2, "{flags:?}: {}", run.stderr);
        assert_one_line_error(&run.stderr);
        assert!(
            run.stderr.starts_with(&format!("error: invalid {named}: ")),
            "{flags:?}: {}",
            run.stderr
        );
        assert!(
            !run.stderr.contains("Injected") && !run.stderr.contains("pass"),
            "the value is not repeated: {}",
            run.stderr
        );
    }
    assert!(server.targets().is_empty(), "{:?}", server.targets());
    assert_eq!(
        std::fs::read(out.path().join("sitemap.xml")).unwrap(),
        previous
    );
}

#[test]
fn an_output_that_cannot_be_written_is_refused_before_any_request() {
    let server = Site::new()
        .page("/", r#"<a href="/a">a</a>"#)
        .page("/a", "a")
        .serve();
    let (out, previous) = previous_output();
    let directory = tempfile::tempdir().unwrap();
    // A path under a regular file cannot be written, whoever runs the test (root included).
    let file = directory.path().join("a-file");
    std::fs::write(&file, "not a directory").unwrap();
    let under_file = |name: &str| file.join(name).to_str().unwrap().to_string();
    let a_directory = directory.path().to_str().unwrap().to_string();
    for (option, path) in [
        ("--report-changes", under_file("changes.json")),
        ("--report-changes", a_directory.clone()),
        ("--list-not-listed", under_file("not-listed.csv")),
        ("--state", under_file("crawl.db")),
        ("--out", under_file("out")),
    ] {
        let run = crawl(&server.url("/"), out.path(), &[option, &path]);
        assert_eq!(run.code, 2, "{option} {path}: {}", run.stderr);
        assert_one_line_error(&run.stderr);
        assert!(
            run.stderr
                .starts_with(&format!("error: cannot write {option} {path}: ")),
            "{}",
            run.stderr
        );
        assert!(
            server.targets().is_empty(),
            "{option}: {:?}",
            server.targets()
        );
        assert_eq!(
            std::fs::read(out.path().join("sitemap.xml")).unwrap(),
            previous,
            "{option}"
        );
        assert_eq!(names_in(out.path()), ["sitemap.xml"], "nothing left behind");
    }
    let report = under_file("report");
    let run = sitemapper(&["audit", &server.url("/"), "--report", &report]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert_one_line_error(&run.stderr);
    assert!(
        run.stderr
            .starts_with(&format!("error: cannot write --report {report}: ")),
        "{}",
        run.stderr
    );
    assert!(server.targets().is_empty(), "{:?}", server.targets());
}

/// The change report's JSON.
fn change_report(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn a_change_report_that_cannot_be_written_after_publishing_is_its_own_exit_code_and_loses_no_change()
 {
    let out = tempfile::tempdir().unwrap();
    let directory = tempfile::tempdir().unwrap();
    let reports = directory.path().join("reports");
    std::fs::create_dir(&reports).unwrap();
    let changes = reports.join("changes.json");
    // Requesting /b, the second run's new page, turns the report's directory into a file:
    // a disk that fails between the check before the crawl and the report after publishing.
    let sabotaged = Arc::new(AtomicBool::new(false));
    let (sabotage, broken) = (Arc::clone(&sabotaged), reports.clone());
    let server = Site::new()
        .sequence(
            "/",
            vec![
                Route::html(r#"<a href="/a">a</a>"#),
                Route::html(r#"<a href="/a">a</a> <a href="/b">b</a>"#),
            ],
        )
        .page("/a", "a")
        .generated(move |target| {
            if target != "/b" {
                return None;
            }
            if !sabotage.swap(true, Ordering::SeqCst) {
                std::fs::remove_dir_all(&broken).unwrap();
                std::fs::write(&broken, "no longer a directory").unwrap();
            }
            Some(Route::html("b"))
        })
        .serve();
    let state = directory.path().join("crawl.db");
    let flags = [
        "--state",
        state.to_str().unwrap(),
        "--report-changes",
        changes.to_str().unwrap(),
    ];

    crawl(&server.url("/"), out.path(), &flags).assert_success();
    assert_eq!(change_report(&changes)["run"], 1);
    assert_eq!(names_in(&reports), ["changes.json"], "no probe left behind");
    assert!(
        names_in(out.path())
            .iter()
            .all(|name| !name.contains("probe")),
        "{:?}",
        names_in(out.path())
    );

    let run = crawl(&server.url("/"), out.path(), &flags);
    assert!(sabotaged.load(Ordering::SeqCst));
    assert_eq!(run.code, 6, "{}", run.stderr);
    assert_one_line_error(&run.stderr);
    assert!(
        run.stderr
            .starts_with("error: the sitemaps are published, but the run is recorded as failed"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains(&changes.display().to_string()),
        "{}",
        run.stderr
    );
    assert!(
        listed_urls(out.path()).contains(&server.url("/b")),
        "published"
    );

    std::fs::remove_file(&reports).unwrap();
    std::fs::create_dir(&reports).unwrap();
    crawl(&server.url("/"), out.path(), &flags).assert_success();
    let report = change_report(&changes);
    assert_eq!(report["run"], 3);
    assert_eq!(
        report["previous_run"], 1,
        "compared with the last run whose report was written"
    );
    assert_eq!(report["added"], serde_json::json!([server.url("/b")]));
}
