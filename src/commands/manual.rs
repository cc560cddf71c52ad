//! `sitemapper completions SHELL` and `sitemapper man`: the shell completions and the manual
//! pages, generated from the command line's definition, so that they never differ from
//! `--help`. Each page has clap_mangen's sections (NAME, SYNOPSIS, DESCRIPTION, OPTIONS,
//! SUBCOMMANDS, VERSION), then the ones a manual page is expected to have (man-pages(7)):
//! EXAMPLES, EXIT STATUS, ENVIRONMENT and FILES.

use std::io::Write;
use std::path::Path;

use anyhow::Context;
use clap_mangen::Man;
use clap_mangen::roff::{Roff, bold, roman};

use crate::cli::examples::{self, Example};
use crate::cli::{CompletionsArgs, ManArgs, SETTINGS_HELP};
use crate::exit::{ExitStatus, Failure};

/// Prints the completion script of a shell on stdout.
pub(crate) fn completions(args: &CompletionsArgs) -> Result<(), Failure> {
    let mut command = crate::cli::command();
    let mut out = Vec::new();
    clap_complete::generate(args.shell, &mut command, "sitemapper", &mut out);
    crate::stdout::lock()
        .write_all(&out)
        .context("cannot write to stdout")?;
    Ok(())
}

/// Prints sitemapper(1) on stdout, or writes it and a page per command into `--dir`.
pub(crate) fn man(args: &ManArgs) -> Result<(), Failure> {
    let mut command = crate::cli::command().disable_help_subcommand(true);
    command.build();
    match &args.dir {
        Some(directory) => {
            std::fs::create_dir_all(directory)
                .with_context(|| format!("cannot create {}", directory.display()))?;
            write_pages(&command, &[], directory)
                .with_context(|| format!("cannot write the manual into {}", directory.display()))?;
        }
        None => {
            let mut out = Vec::new();
            render(&command, &[], &mut out).context("cannot render the manual")?;
            crate::stdout::lock()
                .write_all(&out)
                .context("cannot write to stdout")?;
        }
    }
    Ok(())
}

/// Writes the page of `command` (named by `words` after `sitemapper`) and of every command
/// under it into `directory`: sitemapper.1, sitemapper-crawl.1, sitemapper-fleet-run.1...
fn write_pages(command: &clap::Command, words: &[&str], directory: &Path) -> std::io::Result<()> {
    for subcommand in command.get_subcommands().filter(|sub| !sub.is_hide_set()) {
        let mut inner = words.to_vec();
        inner.push(subcommand.get_name());
        write_pages(subcommand, &inner, directory)?;
    }
    let page = Man::new(command.clone());
    let mut file = std::fs::File::create(directory.join(page.get_filename()))?;
    render(command, words, &mut file)?;
    file.flush()
}

/// One page: clap_mangen's sections but its EXTRA (the help's endings, which the sections
/// below say in the manual's own way), then EXAMPLES, EXIT STATUS, ENVIRONMENT and FILES.
fn render(command: &clap::Command, words: &[&str], out: &mut dyn Write) -> std::io::Result<()> {
    let page = Man::new(command.clone());
    page.render_title(out)?;
    page.render_name_section(out)?;
    page.render_synopsis_section(out)?;
    page.render_description_section(out)?;
    if command.get_arguments().any(|arg| !arg.is_hide_set()) {
        page.render_options_section(out)?;
    }
    if command.has_subcommands() {
        page.render_subcommands_section(out)?;
    }
    let mut roff = Roff::new();
    examples_section(&mut roff, examples::of(words));
    exit_status_section(&mut roff);
    environment_section(&mut roff);
    files_section(&mut roff);
    roff.to_writer(out)?;
    page.render_version_section(out)
}

fn examples_section(roff: &mut Roff, examples: &[Example]) {
    roff.control("SH", ["EXAMPLES"]);
    for example in examples {
        roff.control("TP", []);
        roff.text([roman(format!("{}:", example.what))]);
        // Unfilled, so that a command is neither justified nor broken: it is copied as is.
        roff.control("nf", []);
        roff.text([bold(example.command)]);
        roff.control("fi", []);
    }
}

fn exit_status_section(roff: &mut Roff) {
    roff.control("SH", ["EXIT STATUS"]);
    for status in ExitStatus::ALL {
        roff.control("TP", []);
        roff.text([bold((status as u8).to_string())]);
        roff.text([roman(status.meaning())]);
    }
}

/// The variables sitemapper reads besides its options'.
const ENVIRONMENT: [(&str, &str); 7] = [
    (
        "SITEMAPPER_CONFIG",
        "The config file, as --config names it.",
    ),
    (
        "SITEMAPPER_BASIC_AUTH",
        "USER:PASSWORD for the site's basic authentication, kept out of process lists and \
         shell histories (--basic-auth wins over it).",
    ),
    (
        "SITEMAPPER_QUEUE",
        "The fleet queue (postgres://...) of fleet sync, fleet status and worker.",
    ),
    (
        "CHROME",
        "The browser to render with, when --chrome is not given.",
    ),
    (
        "HTTPS_PROXY, HTTP_PROXY, ALL_PROXY, NO_PROXY",
        "The proxy for https and http URLs, for both, and the hosts reached directly, when \
         --proxy is not given (upper or lower case).",
    ),
    (
        "NO_COLOR",
        "When set and not empty, no colour (--color auto).",
    ),
    (
        "RUST_LOG",
        "Log levels by module (debug,hyper=trace), in place of those -v sets.",
    ),
];

fn environment_section(roff: &mut Roff) {
    roff.control("SH", ["ENVIRONMENT"]);
    roff.text([roman(SETTINGS_HELP)]);
    for (variable, meaning) in ENVIRONMENT {
        roff.control("TP", []);
        roff.text([bold(variable)]);
        roff.text([roman(meaning)]);
    }
}

/// The files sitemapper reads or writes besides those named on the command line.
const FILES: [(&str, &str); 6] = [
    (
        "./sitemapper.toml",
        "The config file, when present and --config names none: each key is an option's long \
         name (max-pages = 100), and config/example.toml in the sources comments every one.",
    ),
    (
        "OUT/sitemap.xml",
        "The sitemap, or the index of its children (sitemap-00001.xml, sitemap-blog.xml, ...); \
         OUT is --out. Nothing else of sitemapper's is left there: the index says which files \
         the next run may remove.",
    ),
    (
        "$XDG_RUNTIME_DIR/sitemapper/, else /tmp/sitemapper-UID/",
        "While a run holds its locks, who it is (PID, start time), for the message of a run \
         refused; a directory of the user's alone (in $TMPDIR when it is set).",
    ),
    (
        "--state FILE",
        "The crawl database (SQLite): pages, links and runs, for incremental runs, --resume, \
         change reports and runs.",
    ),
    (
        "REPORT/report.html, findings.csv, pages.csv, links.csv, report.json, crawl.db",
        "What audit writes into its --report directory.",
    ),
    (
        "FLEET.state/",
        "Beside a fleet file: each site's crawl database and the record of fleet run's runs.",
    ),
];

fn files_section(roff: &mut Roff) {
    roff.control("SH", ["FILES"]);
    for (file, meaning) in FILES {
        roff.control("TP", []);
        roff.text([bold(file)]);
        roff.text([roman(meaning)]);
    }
}
