//! The command line: exit codes, one-line errors, the config file, and nothing lost on failure.

use std::path::Path;
use std::process::Command;

use crate::fixture::Site;
use crate::harness::{
    Run, assert_one_line_error, crawl, listed_urls, previous_output, repository_file, sitemapper,
    sitemapper_command,
};

#[test]
fn an_invalid_seed_is_a_usage_error() {
    let (out, previous) = previous_output();
    for seed in [
        "not a url",
        "ftp://example.com/",
        "mailto:someone@example.com",
    ] {
        let run = crawl(seed, out.path(), &[]);
        assert_eq!(run.code, 2, "{seed}: {}", run.stderr);
        assert_one_line_error(&run.stderr);
    }
    assert_eq!(
        std::fs::read(out.path().join("sitemap.xml")).unwrap(),
        previous
    );
}

#[test]
fn an_unreachable_seed_is_fatal_and_keeps_the_previous_sitemap() {
    // A port that was just free: nothing listens there.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let (out, previous) = previous_output();
    let run = crawl(
        &format!("http://127.0.0.1:{port}/"),
        out.path(),
        &["--connect-timeout", "2"],
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_one_line_error(&run.stderr);
    assert!(
        run.stderr.contains(&format!("127.0.0.1:{port}")),
        "the error names the seed: {}",
        run.stderr
    );
    assert_eq!(
        std::fs::read(out.path().join("sitemap.xml")).unwrap(),
        previous
    );
}

#[test]
fn a_seed_answering_an_error_is_fatal_and_keeps_the_previous_sitemap() {
    let server = Site::new().serve();
    let (out, previous) = previous_output();
    let run = crawl(&server.url("/"), out.path(), &[]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(run.stderr.contains("404"), "{}", run.stderr);
    assert_eq!(
        std::fs::read(out.path().join("sitemap.xml")).unwrap(),
        previous
    );
}

#[test]
fn an_unwritable_output_directory_is_a_usage_error_before_any_request() {
    let server = Site::new().page("/", "home").serve();
    let directory = tempfile::tempdir().unwrap();
    let file = directory.path().join("a-file");
    std::fs::write(&file, "not a directory").unwrap();
    let run = crawl(&server.url("/"), &file.join("out"), &[]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert_one_line_error(&run.stderr);
    assert!(
        server.targets().is_empty(),
        "no request before the output is known writable"
    );
}

#[test]
fn unknown_options_and_bad_values_are_usage_errors() {
    for args in [
        &["crawl", "http://127.0.0.1:9/", "--no-such-option"][..],
        &["crawl", "http://127.0.0.1:9/", "--concurrency", "many"][..],
        &["crawl", "http://127.0.0.1:9/", "--concurrency", "0"][..],
        &["crawl", "http://127.0.0.1:9/", "--include", "("][..],
        &[
            "crawl",
            "http://127.0.0.1:9/",
            "--max-urls-per-file",
            "50001",
        ][..],
        &["crawl", "http://127.0.0.1:9/", "--base-url", "not a url"][..],
        &["crawl"][..],
    ] {
        let run = sitemapper(args);
        assert_eq!(run.code, 2, "{args:?}: {}", run.stderr);
    }
}

/// clap's own guess (Jaro likeness above 0.7) misses a transposition in a short name and
/// finds likeness in unrelated ones; every command names the flag meant, as the config file
/// names its key.
#[test]
fn an_unknown_flag_names_the_flag_meant_in_every_command() {
    let cases = [
        (&["crawl", "http://127.0.0.1:9/", "--otu", "x"][..], "--out"),
        (&["crawl", "http://127.0.0.1:9/", "--ot", "x"][..], "--out"),
        (
            &["crawl", "http://127.0.0.1:9/", "--max_pages", "5"][..],
            "--max-pages",
        ),
        (&["audit", "http://127.0.0.1:9/", "--pfd"][..], "--pdf"),
        (&["validate", "sitemap.xml", "--qiuet"][..], "--quiet"),
        (&["fleet", "run", "fleet.toml", "--lal"][..], "--all"),
        (&["fleet", "status", "fleet.toml", "--chekc"][..], "--check"),
        (&["worker", "--naem", "a"][..], "--name"),
    ];
    for (args, meant) in cases {
        let run = sitemapper(args);
        assert_eq!(run.code, 2, "{args:?}: {}", run.stderr);
        assert!(
            run.stderr
                .contains(&format!("tip: a similar argument exists: '{meant}'")),
            "{args:?} names {meant}: {}",
            run.stderr
        );
        assert!(
            !run.stderr.contains("as a value, use '--"),
            "{args:?}: no tip to pass the flag as a value when one was meant: {}",
            run.stderr
        );
    }
    // Nothing near: no flag is named.
    let run = sitemapper(&["crawl", "http://127.0.0.1:9/", "--xyzzy"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(!run.stderr.contains("a similar argument"), "{}", run.stderr);
}

#[test]
fn concurrency_is_a_number_or_auto() {
    let server = Site::new()
        .page("/", r#"<a href="/a">a</a><a href="/b">b</a>"#)
        .page("/a", "a")
        .page("/b", "b")
        .serve();
    let out = tempfile::tempdir().unwrap();
    let run = crawl(&server.url("/"), out.path(), &["--concurrency", "auto"]);
    run.assert_success();
    assert_eq!(listed_urls(out.path()).len(), 3);
    assert!(
        run.stderr.contains("Concurrency (auto): "),
        "the summary says how auto went: {}",
        run.stderr
    );

    let run = crawl(&server.url("/"), out.path(), &["--concurrency", "lots"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert_one_line_error(&run.stderr);
    assert_eq!(
        run.stderr.trim_end(),
        "error: --concurrency must be a whole number from 1 to 256, or auto, not \"lots\""
    );
}

#[test]
fn a_malformed_config_file_is_a_one_line_usage_error() {
    let directory = tempfile::tempdir().unwrap();
    let config = directory.path().join("bad.toml");
    for text in [
        "concurrency = \"eight\"\n",
        "concurrency = -1\n",
        "no-such-option = 1\n",
        "concurrency = \n",
    ] {
        std::fs::write(&config, text).unwrap();
        let run = sitemapper(&[
            "crawl",
            "http://127.0.0.1:9/",
            "--config",
            config.to_str().unwrap(),
        ]);
        assert_eq!(run.code, 2, "{text}: {}", run.stderr);
        assert_one_line_error(&run.stderr);
        assert!(
            run.stderr.contains("bad.toml"),
            "the error names the file: {}",
            run.stderr
        );
        assert!(
            run.stderr.contains("line 1"),
            "the error names the line: {}",
            run.stderr
        );
    }
}

/// `sitemapper crawl` with `--config config`, its address space capped at 1 GB (`ulimit -v`):
/// a config read without a limit then fails the test instead of exhausting the machine.
fn crawl_with_capped_memory(config: &Path) -> Run {
    let output = Command::new("sh")
        .args(["-c", "ulimit -v 1000000 && exec \"$0\" \"$@\""])
        .arg(env!("CARGO_BIN_EXE_sitemapper"))
        .args(["crawl", "http://127.0.0.1:9/", "--config"])
        .arg(config)
        .env_remove("RUST_LOG")
        .output()
        .unwrap();
    Run::from(output)
}

#[test]
fn a_config_that_is_not_a_small_regular_file_is_refused_before_it_is_read() {
    let directory = tempfile::tempdir().unwrap();
    let large = directory.path().join("large.toml");
    // Valid TOML (one comment) of 2 MiB: only its size is wrong.
    std::fs::write(&large, format!("#{}\n", "x".repeat(2 * 1024 * 1024))).unwrap();
    let cases = [
        (Path::new("/dev/zero"), "is not a regular file"),
        (directory.path(), "is a directory"),
        (large.as_path(), "is larger than 1048576 bytes (1 MiB)"),
    ];
    for (config, reason) in cases {
        let run = crawl_with_capped_memory(config);
        assert_eq!(run.code, 2, "{}: {}", config.display(), run.stderr);
        assert_one_line_error(&run.stderr);
        let expected = format!("error: config file {} {reason}", config.display());
        assert!(run.stderr.starts_with(&expected), "{}", run.stderr);
    }
}

#[test]
fn a_config_of_exactly_1_mib_loads() {
    let server = Site::new().page("/", "home").serve();
    let directory = tempfile::tempdir().unwrap();
    let config = directory.path().join("padded.toml");
    let settings = "retries = 0\n";
    let padding = 1024 * 1024 - settings.len() - 2;
    std::fs::write(&config, format!("{settings}#{}\n", "x".repeat(padding))).unwrap();
    assert_eq!(std::fs::metadata(&config).unwrap().len(), 1024 * 1024);
    let out = tempfile::tempdir().unwrap();
    crawl(
        &server.url("/"),
        out.path(),
        &["--config", config.to_str().unwrap()],
    )
    .assert_success();
    assert_eq!(listed_urls(out.path()).len(), 1);
}

#[test]
fn the_config_file_is_used_and_flags_win_over_it() {
    let server = Site::new()
        .page("/", r#"<a href="/a">a</a><a href="/b">b</a>"#)
        .page("/a", r#"<a href="/a/deeper">x</a>"#)
        .page("/a/deeper", "x")
        .page("/b", "b")
        .serve();
    let directory = tempfile::tempdir().unwrap();
    let config = directory.path().join("sitemapper.toml");
    std::fs::write(&config, "max-depth = 1\nexclude = [\"/b$\"]\nretries = 0\n").unwrap();
    let out = tempfile::tempdir().unwrap();
    let config_flag = config.to_str().unwrap();
    crawl(&server.url("/"), out.path(), &["--config", config_flag]).assert_success();
    assert_eq!(
        listed_urls(out.path()).len(),
        2,
        "/ and /a: depth 1, /b excluded"
    );
    crawl(
        &server.url("/"),
        out.path(),
        &["--config", config_flag, "--max-depth", "5"],
    )
    .assert_success();
    assert_eq!(
        listed_urls(out.path()).len(),
        3,
        "the flag wins over the file"
    );
}

#[test]
fn the_example_config_loads_and_documents_every_option() {
    let example = repository_file("config/example.toml");
    let text = std::fs::read_to_string(&example).unwrap();
    // Loading: a crawl of an invalid seed fails on the seed (2), not on the config file.
    let run = sitemapper(&["crawl", "not a url", "--config", example.to_str().unwrap()]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("not a url"),
        "the example config loads: {}",
        run.stderr
    );

    // Every option of every command that runs (not `completions` and `man`).
    let mut options: Vec<String> = Vec::new();
    for command in [
        "crawl",
        "audit",
        "runs",
        "explain",
        "mcp",
        "validate",
        "fleet run",
        "fleet status",
        "fleet sync",
        "worker",
    ] {
        let mut words: Vec<&str> = command.split(' ').collect();
        words.push("--help");
        let help = sitemapper(&words).stdout;
        // Option lines start with `-x, --name` or `--name`; descriptions may mention options.
        options.extend(
            help.lines()
                .map(str::trim_start)
                .filter_map(|line| {
                    let line = line
                        .strip_prefix('-')
                        .filter(|rest| rest.chars().nth(1) == Some(','))
                        .map_or(line, |rest| rest[2..].trim_start());
                    line.split_whitespace().next()
                })
                // An optional value follows its flag: `--seed-sitemaps[=<BOOL>]`.
                .map(|word| word.split('[').next().unwrap_or(word))
                .map(|word| word.trim_end_matches([',', '.']))
                .filter(|word| word.starts_with("--") && word.len() > 2)
                .filter(|word| !["--config", "--help", "--version"].contains(word))
                .map(str::to_string),
        );
    }
    assert!(options.len() > 40, "help lists the options: {options:?}");
    for option in &options {
        let key = option.trim_start_matches("--");
        assert!(
            text.contains(&format!("\n{key} =")) || text.contains(&format!("\n# {key} =")),
            "config/example.toml does not document {option}"
        );
    }
}

#[test]
fn quiet_prints_nothing_on_success() {
    let server = Site::new().page("/", "home").serve();
    let out = tempfile::tempdir().unwrap();
    let run = crawl(&server.url("/"), out.path(), &["--quiet"]);
    run.assert_success();
    assert_eq!((run.stdout.as_str(), run.stderr.as_str()), ("", ""));
}

#[test]
fn a_site_with_nothing_indexable_is_fatal_and_keeps_the_previous_sitemap() {
    let server = Site::new()
        .page("/", r#"<meta name="robots" content="noindex">"#)
        .serve();
    let (out, previous) = previous_output();
    let run = crawl(&server.url("/"), out.path(), &[]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(run.stderr.contains("no indexable page"), "{}", run.stderr);
    assert_eq!(
        std::fs::read(out.path().join("sitemap.xml")).unwrap(),
        previous
    );
}

/// `sitemapper ARGS` with stdout a pipe whose reader has already gone, as after `| head` has
/// read its lines: the reading end is closed before the process starts, so that its first
/// write to stdout fails (EPIPE) every time, whatever it prints and however fast.
fn with_stdout_closed(args: &[&str]) -> Run {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    sitemapper_command(args)
        .stdout(writer)
        .output()
        .expect("run sitemapper")
        .into()
}

/// No error line, no word of the pipe: the reader's going is not the run's failure.
fn assert_quiet_about_stdout(args: &[&str], run: &Run) {
    let said = format!("{args:?} said:\n{}", run.stderr);
    assert_eq!(run.code, 0, "{said}");
    assert!(
        !run.stderr.to_lowercase().contains("error") && !run.stderr.contains("pipe"),
        "{said}"
    );
}

#[test]
fn a_command_whose_stdout_is_closed_ends_quietly_with_success() {
    let server = Site::new()
        .page("/", r#"<a href="/a">a</a>"#)
        .page("/a", "a")
        .serve();
    let seed = server.url("/");
    let directory = tempfile::tempdir().unwrap();
    let path = |name: &str| directory.path().join(name).to_str().unwrap().to_string();
    let (state, out, sitemap) = (path("crawl.db"), path("out"), path("out/sitemap.xml"));
    crawl(&seed, Path::new(&out), &["--state", &state]).assert_success();
    let fleet = crate::fleet::fleet_file(
        directory.path(),
        &directory.path().join("sites"),
        &[("home".to_string(), seed.clone())],
        "",
    );
    let summary_json = ["--summary", "json"];
    let crawl_to = ["crawl", &seed, "--retries", "0", "--state", &state, "--out"];
    for args in [
        &["runs", "--state", &state][..],
        &["runs", "--state", &state, summary_json[0], summary_json[1]],
        &["validate", &sitemap],
        &["validate", &sitemap, summary_json[0], summary_json[1]],
        &["fleet", "status", &fleet],
        &["completions", "bash"],
        &["man"],
        &[&crawl_to[..], &["-"]].concat(),
        &[&crawl_to[..], &[out.as_str()], &summary_json[..]].concat(),
    ] {
        assert_quiet_about_stdout(args, &with_stdout_closed(args));
    }
}

#[test]
fn a_crawl_whose_list_or_change_report_reader_has_gone_still_publishes() {
    let server = Site::new()
        .page("/", r#"<a href="/a">a</a> <a href="/gone">gone</a>"#)
        .page("/a", "a")
        .serve();
    for extra in ["--list-not-listed", "--report-changes"] {
        let out = tempfile::tempdir().unwrap();
        let state = out.path().join("crawl.db");
        let (seed, out_path) = (server.url("/"), out.path().to_str().unwrap());
        let args = [
            "crawl",
            &seed,
            "--retries",
            "0",
            "--state",
            state.to_str().unwrap(),
            "--out",
            out_path,
            extra,
            "-",
        ];
        assert_quiet_about_stdout(&args, &with_stdout_closed(&args));
        assert_eq!(
            listed_urls(out.path()),
            [server.url("/"), server.url("/a")].into_iter().collect(),
            "{extra}"
        );
    }
}
