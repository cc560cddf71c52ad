//! What a user with only the binary reads: `-h` fits a screen, one line per option;
//! `--help` ends with examples that parse; the manual pages have the sections a manual page
//! is expected to have; docs/options.md is the `--help` it shows.

use crate::harness::{Run, repository_file, sitemapper, sitemapper_command};

/// Every command, by its words after `sitemapper`.
const COMMANDS: [&[&str]; 14] = [
    &[],
    &["crawl"],
    &["audit"],
    &["explain"],
    &["runs"],
    &["mcp"],
    &["validate"],
    &["fleet"],
    &["fleet", "run"],
    &["fleet", "status"],
    &["fleet", "sync"],
    &["worker"],
    &["completions"],
    &["man"],
];

/// The most lines `-h` may take, on a terminal of 80 columns: a screen.
const SHORT_HELP_LINES: usize = 60;

/// `sitemapper WORDS FLAG` as printed on a terminal of 80 columns (`-h`), or of clap's
/// default 100 (`--help`, as docs/options.md shows it).
fn help_of(words: &[&str], flag: &str) -> String {
    let mut args = words.to_vec();
    args.push(flag);
    let columns = if flag == "-h" { "80" } else { "100" };
    let run: Run = sitemapper_command(&args)
        .env("COLUMNS", columns)
        .output()
        .expect("run sitemapper")
        .into();
    run.assert_success();
    run.stdout
}

#[test]
fn short_help_fits_a_screen_with_one_line_per_option() {
    for words in COMMANDS {
        let help = help_of(words, "-h");
        let lines: Vec<&str> = help.lines().collect();
        assert!(
            lines.len() <= SHORT_HELP_LINES,
            "sitemapper {} -h is {} lines:\n{help}",
            words.join(" "),
            lines.len()
        );
        // An option's line starts with two blanks (six without a short flag), a command's
        // with two: a line that starts with more continues the one above, wrapped.
        for line in &lines {
            assert!(
                !line.starts_with("        "),
                "sitemapper {} -h wraps a line: {line:?}\n{help}",
                words.join(" ")
            );
        }
        assert!(
            help.contains("--help, or man sitemapper"),
            "sitemapper {} -h names --help and the manual:\n{help}",
            words.join(" ")
        );
    }
}

#[test]
fn the_audit_short_help_shows_its_own_options_first() {
    let help = help_of(&["audit"], "-h");
    let audit = help.find("\nAudit:").expect("an Audit heading");
    let crawl = help.find("\nCrawl:").expect("a Crawl heading");
    assert!(audit < crawl, "{help}");
    for own in ["--report", "--title", "--pdf", "--fail-on"] {
        let at = help
            .find(own)
            .unwrap_or_else(|| panic!("{own} in audit -h"));
        assert!(at < crawl, "{own} comes before the crawl options:\n{help}");
    }
}

/// The examples `--help` ends with: each `what:` line and the command under it.
fn examples_of(help: &str) -> Vec<(String, String)> {
    let start = help
        .rfind("\nExamples:\n")
        .expect("--help ends with examples");
    let lines: Vec<&str> = help[start..].lines().skip(2).collect();
    lines
        .chunks(2)
        .map(|pair| {
            assert_eq!(pair.len(), 2, "an example is two lines: {pair:?}");
            assert!(
                pair[0].starts_with("  ") && pair[0].ends_with(':'),
                "{pair:?}"
            );
            assert!(pair[1].starts_with("    "), "{pair:?}");
            (pair[0].trim().to_string(), pair[1].trim().to_string())
        })
        .collect()
}

/// The arguments of the `sitemapper` command of an example's shell line: the words after
/// `sitemapper` (past `sudo` and `VAR=value`), up to a pipe or a redirection; single quotes
/// group words, as the shell reads them.
fn sitemapper_arguments(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut quoted = false;
    for character in line.chars() {
        match character {
            '\'' => quoted = !quoted,
            ' ' if !quoted => {
                if !word.is_empty() {
                    words.push(std::mem::take(&mut word));
                }
            }
            _ => word.push(character),
        }
    }
    words.push(word);
    let segment = words
        .split(|word| word == "|")
        .find(|segment| segment.iter().any(|word| word == "sitemapper"))
        .unwrap_or_else(|| panic!("no sitemapper command in {line:?}"));
    let start = segment
        .iter()
        .position(|word| word == "sitemapper")
        .unwrap();
    segment[start + 1..]
        .iter()
        .take_while(|word| *word != ">")
        .cloned()
        .collect()
}

#[test]
fn every_command_help_ends_with_examples_that_parse() {
    for words in COMMANDS {
        let help = help_of(words, "--help");
        let examples = examples_of(&help);
        assert!(
            (3..=4).contains(&examples.len()),
            "sitemapper {} --help has {} examples",
            words.join(" "),
            examples.len()
        );
        for (what, command) in examples {
            assert!(
                command.len() <= 96,
                "an example's command fits a line, to be copied whole: {command}"
            );
            let arguments = sitemapper_arguments(&command);
            assert!(
                arguments.starts_with(&words.iter().map(|w| w.to_string()).collect::<Vec<_>>())
                    || words.is_empty(),
                "{what}: {command} is an example of sitemapper {}",
                words.join(" ")
            );
            // Parsed without running: the help flag after every argument exits at once, and
            // clap checks each argument before it.
            let mut checked: Vec<&str> = arguments.iter().map(String::as_str).collect();
            checked.push("--help");
            let run = sitemapper(&checked);
            assert_eq!(
                run.code, 0,
                "{what}: `{command}` does not parse: {}",
                run.stderr
            );
        }
        assert!(
            !help.to_lowercase().contains("readme"),
            "sitemapper {} --help sends the reader to a README the binary does not have",
            words.join(" ")
        );
    }
}

#[test]
fn manual_pages_have_examples_exit_status_environment_and_files() {
    let directory = tempfile::tempdir().unwrap();
    sitemapper(&["man", "--dir", directory.path().to_str().unwrap()]).assert_success();
    let mut pages = 0;
    for entry in std::fs::read_dir(directory.path()).unwrap() {
        let path = entry.unwrap().path();
        let page = std::fs::read_to_string(&path).unwrap();
        pages += 1;
        for section in [
            ".SH EXAMPLES",
            ".SH \"EXIT STATUS\"",
            ".SH ENVIRONMENT",
            ".SH FILES",
        ] {
            assert!(
                page.contains(section),
                "{} has no {section}",
                path.display()
            );
        }
        assert!(!page.contains(".SH EXTRA"), "{}", path.display());
        assert!(page.contains(r"sitemapper"), "{}", path.display());
    }
    assert_eq!(pages, COMMANDS.len(), "a page per command");
    let crawl = std::fs::read_to_string(directory.path().join("sitemapper-crawl.1")).unwrap();
    assert!(
        crawl.contains(r"sitemapper crawl https://example.com/ \-\-out ./public"),
        "{crawl}"
    );
    assert!(crawl.contains("143"), "{crawl}");
}

#[test]
fn the_options_page_shows_the_crawl_help() {
    let page = std::fs::read_to_string(repository_file("docs/options.md")).unwrap();
    let help = help_of(&["crawl"], "--help");
    let start = page
        .find("```text\nUsage: sitemapper crawl")
        .expect("docs/options.md has the crawl usage block");
    let block = &page[start + "```text\n".len()..];
    let block = &block[..block.find("```").unwrap()];
    let usage = &help[help.find("Usage:").unwrap()..];
    let trimmed = |text: &str| -> String {
        let lines: Vec<&str> = text.lines().map(str::trim_end).collect();
        lines.join("\n").trim_end().to_string() + "\n"
    };
    let (shown, printed) = (trimmed(block), trimmed(usage));
    if std::env::var("SITEMAPPER_BLESS").as_deref() == Ok("1") {
        let updated = page.replacen(block, &printed, 1);
        std::fs::write(repository_file("docs/options.md"), updated).unwrap();
        return;
    }
    let first_difference = shown
        .lines()
        .zip(printed.lines())
        .position(|(shown, printed)| shown != printed)
        .unwrap_or(shown.lines().count().min(printed.lines().count()));
    assert_eq!(
        shown,
        printed,
        "docs/options.md's usage block differs from `sitemapper crawl --help` from line {} \
         (SITEMAPPER_BLESS=1 writes it)",
        first_difference + 1
    );
}
