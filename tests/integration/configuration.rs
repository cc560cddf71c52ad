//! Where options come from (the config file, named or found here, the environment, the command
//! line, in that order of strength), and how the binary presents itself: help headings,
//! colour, shell completions, manual pages and the progress line.

use std::path::Path;
use std::time::Duration;

use crate::fixture::{Route, Server, Site};
use crate::harness::{Run, listed_urls, sitemapper, sitemapper_command};

/// Three pages, one click apart: `--max-depth N` lists N + 1 of them.
fn three_deep() -> Server {
    Site::new()
        .page("/", r#"<a href="/a">a</a>"#)
        .page("/a", r#"<a href="/a/b">b</a>"#)
        .page("/a/b", "b")
        .serve()
}

fn run(command: &mut std::process::Command) -> Run {
    command.output().expect("run sitemapper").into()
}

#[test]
fn sitemapper_toml_here_is_read_and_can_give_the_seed() {
    let server = three_deep();
    let directory = tempfile::tempdir().unwrap();
    std::fs::write(
        directory.path().join("sitemapper.toml"),
        format!(
            "url = \"{}\"\nmax-depth = 1\nout = \"site\"\nretries = 0\n",
            server.url("/")
        ),
    )
    .unwrap();
    run(sitemapper_command(&["crawl"]).current_dir(directory.path())).assert_success();
    assert_eq!(
        listed_urls(&directory.path().join("site")),
        [server.url("/"), server.url("/a")].into_iter().collect()
    );
}

#[test]
fn the_command_line_beats_the_environment_which_beats_the_config_file() {
    let server = three_deep();
    let directory = tempfile::tempdir().unwrap();
    let file = directory.path().join("one.toml");
    std::fs::write(&file, "max-depth = 0\nretries = 0\n").unwrap();
    let other = directory.path().join("other.toml");
    std::fs::write(&other, "max-depth = 2\nretries = 0\n").unwrap();
    let out = directory.path().join("out");
    let crawl = |extra: &[&str], environment: &[(&str, &str)]| {
        let mut args = vec!["crawl", &server.url("/"), "--out", out.to_str().unwrap()]
            .into_iter()
            .map(str::to_string)
            .collect::<Vec<_>>();
        args.extend(extra.iter().map(|flag| flag.to_string()));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let mut command = sitemapper_command(&args);
        command.current_dir(directory.path());
        for (name, value) in environment {
            command.env(name, value);
        }
        run(&mut command).assert_success();
    };
    let listed = |extra: &[&str], environment: &[(&str, &str)]| {
        crawl(extra, environment);
        listed_urls(&out).len()
    };
    let named = ("SITEMAPPER_CONFIG", file.to_str().unwrap());
    assert_eq!(
        listed(&[], &[named]),
        1,
        "the file named by SITEMAPPER_CONFIG"
    );
    assert_eq!(
        listed(&["--config", other.to_str().unwrap()], &[named]),
        3,
        "--config beats SITEMAPPER_CONFIG"
    );
    assert_eq!(
        listed(&[], &[named, ("SITEMAPPER_MAX_DEPTH", "1")]),
        2,
        "the environment beats the file"
    );
    assert_eq!(
        listed(
            &["--max-depth", "2"],
            &[named, ("SITEMAPPER_MAX_DEPTH", "1")]
        ),
        3,
        "the command line beats the environment"
    );
    // A repeatable option from the environment (one value).
    crawl(&[], &[named, ("SITEMAPPER_FORMAT", "txt")]);
    assert_eq!(
        std::fs::read_to_string(out.join("sitemap.txt")).unwrap(),
        format!("{}\n", server.url("/"))
    );
}

#[test]
fn audit_and_runs_take_their_own_options_from_the_same_file() {
    let server = Site::new()
        .page("/", r#"<a href="/missing">a broken link</a>"#)
        .serve();
    let directory = tempfile::tempdir().unwrap();
    let file = directory.path().join("sitemapper.toml");
    std::fs::write(
        &file,
        format!(
            "url = \"{}\"\nreport = \"report\"\nstate = \"site.db\"\nfail-on = \"error\"\n\
             retries = 0\n",
            server.url("/")
        ),
    )
    .unwrap();
    let audit = run(sitemapper_command(&["audit", "-q"]).current_dir(directory.path()));
    assert_eq!(audit.code, 4, "fail-on from the file: {}", audit.stderr);
    assert!(directory.path().join("report/report.html").is_file());
    assert!(
        directory.path().join("site.db").is_file(),
        "state from the file"
    );
    let runs = run(sitemapper_command(&["runs"]).current_dir(directory.path()));
    runs.assert_success();
    assert!(runs.stdout.contains(&server.url("/")), "{}", runs.stdout);
}

#[test]
fn a_command_missing_what_it_needs_says_where_to_give_it() {
    let directory = tempfile::tempdir().unwrap();
    for (args, said) in [
        (&["crawl"][..], "no URL to crawl"),
        (
            &["audit", "https://example.com/"][..],
            "no report directory",
        ),
        (&["runs"][..], "no crawl database"),
    ] {
        let run = run(sitemapper_command(args).current_dir(directory.path()));
        assert_eq!(run.code, 2, "{args:?}: {}", run.stderr);
        let lines: Vec<&str> = run.stderr.lines().collect();
        assert_eq!(lines.len(), 1, "{args:?}: {}", run.stderr);
        assert!(
            lines[0].starts_with("error: ") && lines[0].contains(said),
            "{args:?}: {}",
            run.stderr
        );
        assert!(lines[0].contains("config file"), "{}", run.stderr);
    }
    // A named config file that is not there is an error, not an empty configuration.
    let missing = run(sitemapper_command(&["crawl", "https://example.com/"])
        .env("SITEMAPPER_CONFIG", directory.path().join("missing.toml"))
        .current_dir(directory.path()));
    assert_eq!(missing.code, 2, "{}", missing.stderr);
    assert!(
        missing.stderr.contains("missing.toml"),
        "{}",
        missing.stderr
    );
}

#[test]
fn help_is_grouped_under_headings() {
    let crawl = sitemapper(&["crawl", "--help"]).stdout;
    let headings = ["Crawl:", "Politeness:", "Rendering:", "Output:", "Cron:"];
    let positions: Vec<usize> = headings
        .iter()
        .map(|heading| {
            crawl
                .lines()
                .position(|line| line == *heading)
                .unwrap_or_else(|| panic!("no {heading} in:\n{crawl}"))
        })
        .collect();
    assert!(positions.is_sorted(), "{headings:?} in order:\n{crawl}");
    let line_of = |option: &str| {
        crawl
            .lines()
            .position(|line| line.trim_start().starts_with(option))
            .unwrap_or_else(|| panic!("no {option} in:\n{crawl}"))
    };
    for (option, heading) in [
        ("--max-pages", 0),
        ("--include", 0),
        ("--delay", 1),
        ("--render ", 2),
        ("--gzip", 3),
        ("--state", 4),
    ] {
        let line = line_of(option);
        assert!(
            line > positions[heading] && positions.get(heading + 1).is_none_or(|next| line < *next),
            "{option} under {}",
            headings[heading]
        );
    }
    assert!(crawl.contains("SITEMAPPER_MAX_PAGES"), "{crawl}");
    let audit = sitemapper(&["audit", "--help"]).stdout;
    assert!(audit.lines().any(|line| line == "Audit:"), "{audit}");
    let words = audit.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        words.contains("the --report directory for audit"),
        "{audit}"
    );
}

#[test]
fn colour_is_chosen_by_color_whatever_no_color_says() {
    let server = three_deep();
    let out = tempfile::tempdir().unwrap();
    let out = out.path().to_str().unwrap();
    let seed = server.url("/");
    // The harness sets NO_COLOR; stderr is a pipe.
    let coloured = |flags: &[&str]| {
        let mut args = vec!["crawl", &seed, "--out", out, "-v"];
        args.extend_from_slice(flags);
        let run = sitemapper(&args);
        run.assert_success();
        run.stderr.contains('\u{1b}')
    };
    assert!(coloured(&["--color", "always"]));
    assert!(!coloured(&["--color", "never"]));
    assert!(!coloured(&["--color", "auto"]));
    assert!(!coloured(&[]));
}

#[test]
fn completions_and_manual_pages_are_generated_from_the_options() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let run = sitemapper(&["completions", shell]);
        run.assert_success();
        assert!(
            run.stdout.contains("max-pages") && run.stdout.contains("render-concurrency"),
            "{shell}: {}",
            run.stdout
        );
    }
    let unknown = sitemapper(&["completions", "cmd.exe"]);
    assert_eq!(unknown.code, 2);

    let man = sitemapper(&["man"]);
    man.assert_success();
    assert!(man.stdout.starts_with(".ie") || man.stdout.contains(".TH sitemapper"));
    assert!(man.stdout.contains("crawl"), "{}", man.stdout);

    let directory = tempfile::tempdir().unwrap();
    let pages = directory.path().join("man1");
    sitemapper(&["man", "--dir", pages.to_str().unwrap()]).assert_success();
    for page in [
        "sitemapper.1",
        "sitemapper-crawl.1",
        "sitemapper-audit.1",
        "sitemapper-runs.1",
        "sitemapper-validate.1",
    ] {
        assert!(pages.join(page).is_file(), "{page}");
    }
    let crawl = std::fs::read_to_string(pages.join("sitemapper-crawl.1")).unwrap();
    assert!(crawl.contains(r"max\-pages"), "{crawl}");
}

/// `script` (util-linux) runs a command on a terminal of its own.
fn script_available() -> bool {
    std::process::Command::new("script")
        .arg("--version")
        .output()
        .is_ok_and(|output| output.status.success())
}

#[test]
fn the_progress_line_fits_the_terminal_and_shows_the_page() {
    if !script_available() {
        assert!(
            std::env::var_os("CI").is_none(),
            "util-linux's `script` is needed under CI"
        );
        eprintln!("skipped: util-linux's `script` is not installed");
        return;
    }
    let mut home = String::new();
    for page in 0..12 {
        home.push_str(&format!(
            "<a href=\"/a-rather-long-path/page-{page}\">{page}</a>"
        ));
    }
    let server = Site::new()
        .page("/", &home)
        .generated(|target| {
            target
                .starts_with("/a-rather-long-path/")
                .then(|| Route::html("slow").delay(Duration::from_millis(150)))
        })
        .serve();
    let out = tempfile::tempdir().unwrap();
    let binary = env!("CARGO_BIN_EXE_sitemapper");
    let inner = format!(
        "stty cols 100 rows 20; exec {binary} crawl {} --out {} --concurrency 1",
        server.url("/"),
        out.path().display()
    );
    let output = std::process::Command::new("script")
        .args(["-qefc", &inner, "/dev/null"])
        .env("NO_COLOR", "1")
        .env_remove("RUST_LOG")
        .output()
        .unwrap();
    assert!(output.status.success());
    let screen = String::from_utf8_lossy(&output.stdout);
    // What the terminal showed, redraw by redraw: each drawing of the progress line starts
    // after a carriage return; escape sequences take no room.
    let drawings: Vec<String> = screen
        .split(['\r', '\n'])
        .map(strip_escapes)
        .filter(|drawing| drawing.contains("fetched"))
        .collect();
    assert!(!drawings.is_empty(), "no progress line drawn:\n{screen}");
    for drawing in &drawings {
        assert!(
            drawing.chars().count() <= 100,
            "{} columns: {drawing:?}",
            drawing.chars().count()
        );
        assert!(
            drawing.contains(" listed · ") && drawing.contains(" errors · "),
            "{drawing:?}"
        );
    }
    assert!(
        drawings
            .iter()
            .any(|drawing| drawing.contains("/a-rather-long-path/page-")),
        "the page recorded last: {drawings:?}"
    );
    assert!(Path::new(&out.path().join("sitemap.xml")).is_file());
}

/// `text` without its terminal escape sequences (CSI: ESC [ ... final byte).
fn strip_escapes(text: &str) -> String {
    let mut plain = String::new();
    let mut chars = text.chars();
    while let Some(character) = chars.next() {
        if character == '\u{1b}' {
            if chars.next() == Some('[') {
                for code in chars.by_ref() {
                    if ('@'..='~').contains(&code) {
                        break;
                    }
                }
            }
        } else {
            plain.push(character);
        }
    }
    plain
}
