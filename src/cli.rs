//! Command-line arguments (clap). Every value is optional here: defaults are applied once, in
//! `settings/`, after the config file is merged. The values a user names (a format, a rule,
//! a severity) are defined here too, and the range of every numeric option (`values`); the
//! config file reads the same names and ranges, and `settings/` builds on this module, never
//! the other way round.
//!
//! The doc comments of the arguments are the `--help` text, read in a terminal: they write
//! URLs and placeholders such as `<version>` as a user types them, not as rustdoc markup.
#![expect(
    rustdoc::bare_urls,
    rustdoc::invalid_html_tags,
    rustdoc::broken_intra_doc_links,
    reason = "the argument docs are --help text, which writes TOML tables as [site]"
)]

mod commands;
mod crawl;
pub(crate) mod examples;
mod flag_meant;
pub(crate) use flag_meant::nearest_name;
mod names;
pub(crate) mod values;

use std::error::Error as _;
use std::path::PathBuf;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

pub(crate) use self::commands::{
    AuditArgs, CompletionsArgs, ExplainArgs, FleetArgs, FleetCommand, FleetRunArgs,
    FleetStatusArgs, FleetSyncArgs, ManArgs, McpArgs, RunsArgs, ValidateArgs, WorkerArgs,
};
pub(crate) use self::crawl::CrawlArgs;
pub(crate) use self::names::{
    ChangefreqRule, ColorName, ConcurrencyName, FormatName, PaperName, PriorityRule, RenderName,
    ServersByName, SeverityName, SummaryFormat,
};
use self::values::{OutOfRange, variable_name};

/// What the long help of every command with options says before its examples, and its manual
/// page's ENVIRONMENT.
pub(crate) const SETTINGS_HELP: &str = "Every option can also be set in the config file, under \
its long name (max-pages = 100), and in the environment, as SITEMAPPER_ and the name in \
capitals (SITEMAPPER_MAX_PAGES=100). The command line wins over the environment, which wins \
over the file.";

/// The crawl options (by id: the field's name) `audit -h` leaves to `audit --help`: those of publishing a sitemap, which
/// an audit rarely needs, so that its own options and the crawl's main ones fit a screen.
const AUDIT_SHORT_HELP_HIDES: [&str; 10] = [
    "gzip",
    "base_url",
    "split_by",
    "format",
    "images",
    "hreflang",
    "resume",
    "report_changes",
    "indexnow_key",
    "list_not_listed",
];

/// The command line's definition: the derived one, each option readable from its variable in
/// the environment (see [`environment_variable`]), and each command's help ending with its
/// examples.
pub(crate) fn command() -> clap::Command {
    let command = with_help_endings(with_environment(Cli::command()), &[]);
    command.mut_subcommand("audit", |audit| {
        AUDIT_SHORT_HELP_HIDES
            .into_iter()
            .fold(audit, |audit, name| {
                audit.mut_arg(name, |arg| arg.hide_short_help(true))
            })
    })
}

/// Each command's endings: `--help` ends with the settings paragraph (for a command with
/// options) and the examples; `-h` with one line saying where they are. `words` name the
/// command after `sitemapper`.
fn with_help_endings(command: clap::Command, words: &[String]) -> clap::Command {
    let word_refs: Vec<&str> = words.iter().map(String::as_str).collect();
    let has_settings = command
        .get_arguments()
        .any(|arg| environment_variable(arg).is_some());
    let mut long_ending = String::new();
    if has_settings {
        long_ending.push_str(SETTINGS_HELP);
        long_ending.push_str("\n\n");
    }
    long_ending.push_str(&examples::help_text(examples::of(&word_refs)));
    let full_name = std::iter::once("sitemapper")
        .chain(word_refs.iter().copied())
        .collect::<Vec<_>>()
        .join(" ");
    let short_ending = format!(
        "Examples and all options: --help, or man {}",
        full_name.replace(' ', "-")
    );
    let command = command
        .after_help(short_ending)
        .after_long_help(long_ending);
    let subcommands: Vec<String> = command
        .get_subcommands()
        .map(|subcommand| subcommand.get_name().to_string())
        .collect();
    subcommands
        .into_iter()
        .fold(command, |command, subcommand| {
            let mut inner_words = words.to_vec();
            inner_words.push(subcommand.clone());
            command.mut_subcommand(&subcommand, |inner| with_help_endings(inner, &inner_words))
        })
}

/// Parses the command line (and the options' variables); prints the help, the version or the
/// usage error and exits where clap does, except for a numeric value outside its range, which
/// is returned, to be said in one line like every other bad value (clap's own message takes
/// three, and would not name the environment variable it came from). An unknown flag's
/// error names the flag meant (`flag_meant.rs`).
pub(crate) fn parse() -> anyhow::Result<Cli> {
    let command = command().color(help_color());
    let matches = match command.clone().try_get_matches() {
        Ok(matches) => matches,
        Err(error) => match error
            .source()
            .and_then(|source| source.downcast_ref::<OutOfRange>())
        {
            Some(out_of_range) => return Err(said_where_given(out_of_range.clone()).into()),
            None => flag_meant::with_flag_meant(error, &command, std::env::args_os()).exit(),
        },
    };
    Ok(Cli::from_arg_matches(&matches).unwrap_or_else(|error| error.exit()))
}

/// The error, said of the environment variable when that is where the value came from: the
/// variable holds it, and the command line does not give the flag.
fn said_where_given(error: OutOfRange) -> OutOfRange {
    let flag = format!("--{}", error.name());
    let given_as_flag = std::env::args_os().skip(1).any(|argument| {
        let argument = argument.to_string_lossy();
        argument == flag.as_str() || argument.starts_with(&format!("{flag}="))
    });
    if !given_as_flag && std::env::var_os(variable_name(error.name())).is_some() {
        error.in_variable()
    } else {
        error
    }
}

fn with_environment(command: clap::Command) -> clap::Command {
    command
        .mut_args(|arg| match environment_variable(&arg) {
            // Named once in the help's last paragraphs rather than on every line.
            Some(variable) => arg.env(variable).hide_env(true),
            None => arg,
        })
        .mut_subcommands(with_environment)
}

/// The environment variable of an option: `SITEMAPPER_` and its long name in capitals, dashes
/// as underscores (`SITEMAPPER_MAX_PAGES` for `--max-pages`). `--help`, `--version`,
/// `--verbose` (a count) and the arguments of `man` and `completions` have none, and
/// `SITEMAPPER_BASIC_AUTH` is read by the settings, which say where credentials came from.
pub(crate) fn environment_variable(arg: &clap::Arg) -> Option<String> {
    let long = arg.get_long()?;
    if matches!(long, "help" | "version" | "verbose" | "dir" | "basic-auth") {
        return None;
    }
    Some(variable_name(long))
}

/// The colour of the help, which clap prints before the arguments are read: `--color` and
/// `SITEMAPPER_COLOR` looked up by hand; clap's own choice (a terminal without NO_COLOR)
/// otherwise.
fn help_color() -> clap::ColorChoice {
    let mut arguments = std::env::args_os().skip(1);
    let mut chosen = std::env::var("SITEMAPPER_COLOR").ok();
    while let Some(argument) = arguments.next() {
        let argument = argument.to_string_lossy().into_owned();
        if argument == "--" {
            break;
        }
        if argument == "--color" {
            chosen = arguments
                .next()
                .map(|value| value.to_string_lossy().into_owned());
        } else if let Some(value) = argument.strip_prefix("--color=") {
            chosen = Some(value.to_string());
        }
    }
    match chosen.as_deref() {
        Some("always") => clap::ColorChoice::Always,
        Some("never") => clap::ColorChoice::Never,
        _ => clap::ColorChoice::Auto,
    }
}

#[derive(Debug, Parser)]
#[command(
    name = "sitemapper",
    version,
    about = "Crawl a website and write correct, chunked sitemaps.",
    long_about = "Crawl a website from its root URL, respecting robots.txt, and write the sitemaps \
                  (sitemaps.org protocol 0.9) that search engines read.",
    propagate_version = true
)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) command: Command,

    /// TOML file of options [default: ./sitemapper.toml]
    ///
    /// Every option, under its long name (max-pages = 100); config/example.toml documents
    /// each one. [default: ./sitemapper.toml when present]
    #[arg(short, long, global = true, value_name = "FILE")]
    pub(crate) config: Option<PathBuf>,

    /// Colour in logs and help
    ///
    /// [default: auto]
    #[arg(long, global = true, value_name = "WHEN", hide_short_help = true)]
    pub(crate) color: Option<ColorName>,

    /// Print nothing but errors
    #[arg(short, long, global = true, conflicts_with = "verbose")]
    pub(crate) quiet: bool,

    /// Log on stderr: -v each URL, -vv debug, -vvv trace
    ///
    /// -v logs each URL fetched, -vv sitemapper's debug details, -vvv trace. RUST_LOG replaces
    /// these levels (RUST_LOG=debug,hyper=trace).
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub(crate) verbose: u8,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Crawl a site from URL and write its sitemaps.
    // A flag given twice takes its last value, so scripts can override earlier flags.
    #[command(args_override_self = true)]
    Crawl(Box<CrawlArgs>),
    /// Report what is wrong with a site and its own sitemaps.
    #[command(args_override_self = true)]
    Audit(Box<AuditArgs>),
    /// Say why a URL is in the sitemap or not, from the crawl database.
    Explain(ExplainArgs),
    /// List the runs a crawl database remembers, newest first.
    Runs(RunsArgs),
    /// Serve the tools to an assistant (Model Context Protocol, stdio).
    Mcp(McpArgs),
    /// Check a sitemap or index (file or URL) against the protocol.
    Validate(ValidateArgs),
    /// Run a fleet file's due sites, show them, or sync them to a queue.
    Fleet(FleetArgs),
    /// Run the sites of a fleet's PostgreSQL queue, beside other workers.
    Worker(WorkerArgs),
    /// Print a shell's completion script (bash, zsh, fish, ...).
    Completions(CompletionsArgs),
    /// Print the manual page, or write every page into a directory.
    Man(ManArgs),
}
