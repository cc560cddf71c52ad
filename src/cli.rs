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
    reason = "the argument docs are --help text"
)]

mod names;
pub(crate) mod values;

use std::error::Error as _;
use std::path::PathBuf;

use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand};

pub(crate) use self::names::{
    ChangefreqRule, ColorName, ConcurrencyName, FormatName, PriorityRule, RenderName, SeverityName,
    SummaryFormat,
};
use self::values::{
    CHECKPOINT, CONCURRENCY, CONNECT_TIMEOUT, DEEP, DELAY, LARGE, LEASE, MAX_BODY_SIZE,
    MAX_BYTES_PER_FILE, MAX_DEPTH, MAX_PAGES, MAX_PATTERN_CHAIN, MAX_REQUESTS, MAX_SITES, MAX_URLS,
    MAX_URLS_PER_FILE, OutOfRange, RENDER_CONCURRENCY, RENDER_OTHER_HOST_REQUESTS, RENDER_TIMEOUT,
    RETRIES, SITES_AT_ONCE, SLOW, TIMEOUT,
};

/// What the help of every command ends with.
const SETTINGS_HELP: &str = "Every option can also be set in the config file, under its long name \
(max-pages = 100), and in the environment, as SITEMAPPER_ and the name in capitals \
(SITEMAPPER_MAX_PAGES=100). The command line wins over the environment, which wins over the \
file.";

/// The command line's definition: the derived one, each option readable from its variable in
/// the environment (see [`environment_variable`]).
pub(crate) fn command() -> clap::Command {
    with_environment(Cli::command())
}

/// Parses the command line (and the options' variables); prints the help, the version or the
/// usage error and exits where clap does, except for a numeric value outside its range, which
/// is returned, to be said in one line like every other bad value (clap's own message takes
/// three, and would not name the environment variable it came from).
pub(crate) fn parse() -> anyhow::Result<Cli> {
    let matches = match command().color(help_color()).try_get_matches() {
        Ok(matches) => matches,
        Err(error) => match error
            .source()
            .and_then(|source| source.downcast_ref::<OutOfRange>())
        {
            Some(out_of_range) => return Err(said_where_given(out_of_range.clone()).into()),
            None => error.exit(),
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
    let command = command
        .mut_args(|arg| match environment_variable(&arg) {
            // Named once in the help's last paragraph rather than on every line.
            Some(variable) => arg.env(variable).hide_env(true),
            None => arg,
        })
        .mut_subcommands(with_environment);
    if command
        .get_arguments()
        .any(|arg| environment_variable(arg).is_some())
    {
        command.after_help(SETTINGS_HELP)
    } else {
        command
    }
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

/// `SITEMAPPER_MAX_PAGES` for `max-pages`.
fn variable_name(long: &str) -> String {
    format!("SITEMAPPER_{}", long.to_ascii_uppercase().replace('-', "_"))
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

    /// TOML file with options (see config/example.toml) [default: ./sitemapper.toml when
    /// present]
    #[arg(short, long, global = true, value_name = "FILE")]
    pub(crate) config: Option<PathBuf>,

    /// Colour in logs and help: auto (on a terminal, unless NO_COLOR is set), always, never
    #[arg(long, global = true, value_name = "WHEN")]
    pub(crate) color: Option<ColorName>,

    /// Print nothing but errors.
    #[arg(short, long, global = true, conflicts_with = "verbose")]
    pub(crate) quiet: bool,

    /// Log on stderr: -v each URL fetched, -vv sitemapper's debug details, -vvv trace
    /// (RUST_LOG replaces these levels).
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub(crate) verbose: u8,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Crawl a site from URL and write its sitemaps.
    // A flag given twice takes its last value, so scripts can override earlier flags.
    #[command(args_override_self = true)]
    Crawl(Box<CrawlArgs>),
    /// Crawl a site and report what is wrong with it and with its own sitemaps.
    #[command(args_override_self = true)]
    Audit(Box<AuditArgs>),
    /// List the runs a crawl database remembers, newest first.
    Runs(RunsArgs),
    /// Check a sitemap or sitemap index (a file or a URL, gzip or not) against the protocol.
    Validate(ValidateArgs),
    /// Run the sites of a fleet file that are due, show how they stand, or sync them to a queue.
    Fleet(FleetArgs),
    /// Run the sites of a fleet's queue (PostgreSQL), on this machine and any number of others.
    Worker(WorkerArgs),
    /// Print the completion script of a shell (bash, zsh, fish, elvish, powershell).
    Completions(CompletionsArgs),
    /// Print the manual page (roff), or write one page per command into a directory.
    Man(ManArgs),
}

#[derive(Debug, Args)]
pub(crate) struct FleetArgs {
    #[command(subcommand)]
    pub(crate) command: FleetCommand,
}

#[derive(Debug, Subcommand)]
pub(crate) enum FleetCommand {
    /// Crawl the sites that are due, a few at a time, each incrementally, and report each one
    /// (one machine, no server).
    Run(FleetRunArgs),
    /// Show each site's last run, its result and when it is due next.
    Status(FleetStatusArgs),
    /// Write the fleet file's sites into the queue (added, changed, removed), for workers.
    Sync(FleetSyncArgs),
}

#[derive(Debug, Args)]
pub(crate) struct FleetRunArgs {
    /// The fleet file: defaults, then one table per site (see config/fleet.example.toml).
    #[arg(value_name = "FLEET")]
    pub(crate) fleet: PathBuf,

    /// Where the sites' crawl databases and the record of their runs are kept [default:
    /// FLEET.state, beside the fleet file]
    #[arg(long, value_name = "DIR")]
    pub(crate) state_dir: Option<PathBuf>,

    /// How many sites are crawled at once [default: 4] [range: 1 to 64]
    #[arg(long, value_name = "N", value_parser = SITES_AT_ONCE.parser::<usize>())]
    pub(crate) sites_at_once: Option<usize>,

    /// Run this site now, due or not (repeatable); the other sites wait.
    #[arg(long = "site", value_name = "NAME")]
    pub(crate) sites: Vec<String>,

    /// Run every site now, due or not.
    #[arg(long, conflicts_with = "sites")]
    pub(crate) all: bool,

    /// Also write the report of the run as JSON to FILE ("-": stdout).
    #[arg(long, value_name = "FILE")]
    pub(crate) report: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub(crate) struct FleetStatusArgs {
    /// The fleet file; with --queue, the queue's sites are shown and this is not needed.
    #[arg(value_name = "FLEET")]
    pub(crate) fleet: Option<PathBuf>,

    /// The state directory of `fleet run` [default: FLEET.state, beside the fleet file]
    #[arg(long, value_name = "DIR", conflicts_with = "queue")]
    pub(crate) state_dir: Option<PathBuf>,

    /// The queue: postgres://USER:PASSWORD@HOST/DATABASE (add ?sslmode=require for TLS).
    #[arg(long, value_name = "URL")]
    pub(crate) queue: Option<String>,

    /// Print a table, or one JSON object [default: text]
    #[arg(long, value_name = "FORMAT")]
    pub(crate) summary: Option<SummaryFormat>,
}

#[derive(Debug, Args)]
pub(crate) struct FleetSyncArgs {
    /// The fleet file whose sites the queue gets.
    #[arg(value_name = "FLEET")]
    pub(crate) fleet: PathBuf,

    /// The queue: postgres://USER:PASSWORD@HOST/DATABASE (add ?sslmode=require for TLS);
    /// required, here or in the config file
    #[arg(long, value_name = "URL")]
    pub(crate) queue: Option<String>,
}

#[derive(Debug, Args)]
pub(crate) struct WorkerArgs {
    /// The queue: postgres://USER:PASSWORD@HOST/DATABASE (add ?sslmode=require for TLS);
    /// required, here or in the config file
    #[arg(long, value_name = "URL")]
    pub(crate) queue: Option<String>,

    /// This worker's name in logs and in the record of runs [default: HOSTNAME-PID]
    #[arg(long, value_name = "NAME")]
    pub(crate) name: Option<String>,

    /// Where the crawl databases of the sites run here are kept between runs (a cache: the
    /// queue holds each site's) [default: sitemapper-worker-NAME in the temporary directory]
    #[arg(long, value_name = "DIR")]
    pub(crate) state_dir: Option<PathBuf>,

    /// How many sites are crawled at once [default: 4] [range: 1 to 64]
    #[arg(long, value_name = "N", value_parser = SITES_AT_ONCE.parser::<usize>())]
    pub(crate) sites_at_once: Option<usize>,

    /// Seconds a claim holds a site without a heartbeat; renewed every third of it. A dead
    /// worker's site is taken over once it runs out [default: 60] [range: 1 to 86400]
    #[arg(long, value_name = "SECONDS", value_parser = LEASE.parser::<f64>())]
    pub(crate) lease: Option<f64>,

    /// Seconds between two saves of a running site's crawl database into the queue, which a
    /// worker taking the site over continues from [default: 60] [range: 0.001 to 86400]
    #[arg(long, value_name = "SECONDS", value_parser = CHECKPOINT.parser::<f64>())]
    pub(crate) checkpoint: Option<f64>,

    /// Stop after running this many sites [range: 1 to 1000000000]
    #[arg(long, value_name = "N", value_parser = MAX_SITES.parser::<u64>())]
    pub(crate) max_sites: Option<u64>,

    /// Run the sites that are due, then stop instead of waiting for the next.
    #[arg(long)]
    pub(crate) once: bool,
}

#[derive(Debug, Args)]
pub(crate) struct CompletionsArgs {
    /// The shell: bash, zsh, fish, elvish or powershell.
    #[arg(value_name = "SHELL")]
    pub(crate) shell: clap_complete::Shell,
}

#[derive(Debug, Args)]
pub(crate) struct ManArgs {
    /// Write sitemapper.1 and one page per command (sitemapper-crawl.1...) into DIR instead of
    /// printing sitemapper.1.
    #[arg(long, value_name = "DIR")]
    pub(crate) dir: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub(crate) struct ValidateArgs {
    /// The sitemap: a file, an http(s) URL, or - for stdin; an index is followed into its
    /// children.
    pub(crate) target: String,

    /// Print the result as text, or as one JSON object (docs/summary-json.md) [default: text]
    #[arg(long, value_name = "FORMAT")]
    pub(crate) summary: Option<SummaryFormat>,
}

#[derive(Debug, Args)]
pub(crate) struct AuditArgs {
    #[command(flatten)]
    pub(crate) crawl: CrawlArgs,

    /// Directory to write the report into: report.html, findings.csv, pages.csv, links.csv,
    /// report.json, and the crawl database crawl.db (unless --state); required, here or in
    /// the config file
    #[arg(long, value_name = "DIR", help_heading = "Audit")]
    pub(crate) report: Option<PathBuf>,

    /// Exit with code 4 when there are findings at this level or worse: error, warning, notice
    #[arg(long, value_name = "SEVERITY", help_heading = "Audit")]
    pub(crate) fail_on: Option<SeverityName>,

    /// Flag indexable pages more than N clicks from the start page [default: 4] [range: 0 to
    /// 1000000]
    #[arg(long, value_name = "N", value_parser = DEEP.parser::<u32>(), help_heading = "Audit")]
    pub(crate) deep: Option<u32>,

    /// Flag pages that take more than MS milliseconds to answer [default: 1500] [range: 0 to
    /// 86400000]
    #[arg(long, value_name = "MS", value_parser = SLOW.parser::<u64>(), help_heading = "Audit")]
    pub(crate) slow: Option<u64>,

    /// Flag pages larger than BYTES [default: 1048576] [range: 0 to 1073741824]
    #[arg(
        long,
        value_name = "BYTES",
        value_parser = LARGE.parser::<u64>(),
        help_heading = "Audit"
    )]
    pub(crate) large: Option<u64>,

    /// Extract values from every HTML page into the pages.csv column NAME: the text of the
    /// elements the CSS selector matches, or with @attr their attribute's value (repeatable;
    /// see README)
    #[arg(long, value_name = "NAME=SELECTOR[@attr]", help_heading = "Audit")]
    pub(crate) extract: Vec<String>,

    /// The site's own sitemap to compare the crawl with and seed it from (repeatable)
    /// [default: robots.txt's Sitemap: lines, else /sitemap.xml, /sitemap_index.xml and
    /// /sitemap.xml.gz]
    #[arg(long, value_name = "URL", help_heading = "Audit")]
    pub(crate) sitemap: Vec<String>,

    /// The report's heading and page title (default: "Site audit: " and the site's address)
    #[arg(long, value_name = "TEXT", help_heading = "Audit")]
    pub(crate) title: Option<String>,

    /// Show this image in the report's heading: PNG, JPEG, GIF, WebP or SVG, at most 1 MiB
    #[arg(long, value_name = "FILE", help_heading = "Audit")]
    pub(crate) logo: Option<PathBuf>,

    /// Also write report.pdf, printed by Chromium (the browser of --chrome)
    #[arg(long, help_heading = "Audit")]
    pub(crate) pdf: bool,
}

#[derive(Debug, Args)]
pub(crate) struct RunsArgs {
    /// The crawl database (the --state file of `sitemapper crawl`); required, here or in the
    /// config file
    #[arg(long, value_name = "FILE")]
    pub(crate) state: Option<PathBuf>,

    /// Print the runs as a table, or as one JSON object (docs/summary-json.md) [default: text]
    #[arg(long, value_name = "FORMAT")]
    pub(crate) summary: Option<SummaryFormat>,
}

#[derive(Debug, Default, Args)]
pub(crate) struct CrawlArgs {
    /// The seed: the site's root URL, or a directory of it (https://example.com/blog/);
    /// required, here or as `url` in the config file
    pub(crate) url: Option<String>,

    /// Stop after requesting this many pages [range: 1 to 1000000000]
    #[arg(
        long,
        value_name = "N",
        value_parser = MAX_PAGES.parser::<u64>(),
        help_heading = "Crawl"
    )]
    pub(crate) max_pages: Option<u64>,

    /// Stop after this many HTTP requests in all, redirect hops and retries included [range: 1
    /// to 1000000000]
    #[arg(
        long,
        value_name = "N",
        value_parser = MAX_REQUESTS.parser::<u64>(),
        help_heading = "Crawl"
    )]
    pub(crate) max_requests: Option<u64>,

    /// Stop discovering new URLs after N distinct ones (those found are still crawled)
    /// [default: 2000000] [range: 1 to 1000000000]
    #[arg(
        long,
        value_name = "N",
        value_parser = MAX_URLS.parser::<u64>(),
        help_heading = "Crawl"
    )]
    pub(crate) max_urls: Option<u64>,

    /// Seconds one request may take, body included [default: 30] [range: 0.001 to 86400]
    #[arg(
        long,
        value_name = "SECONDS",
        value_parser = TIMEOUT.parser::<f64>(),
        help_heading = "Crawl"
    )]
    pub(crate) timeout: Option<f64>,

    /// Seconds to wait for a connection [default: 10] [range: 0.001 to 86400]
    #[arg(
        long,
        value_name = "SECONDS",
        value_parser = CONNECT_TIMEOUT.parser::<f64>(),
        help_heading = "Crawl"
    )]
    pub(crate) connect_timeout: Option<f64>,

    /// Bytes of a page read at most, after decompression [default: 10485760] [range: 1 to
    /// 1073741824]
    #[arg(
        long,
        value_name = "BYTES",
        value_parser = MAX_BODY_SIZE.parser::<usize>(),
        help_heading = "Crawl"
    )]
    pub(crate) max_body_size: Option<usize>,

    /// Do not follow links deeper than N clicks from the seed [range: 0 to 1000000]
    #[arg(
        long,
        value_name = "N",
        value_parser = MAX_DEPTH.parser::<u32>(),
        help_heading = "Scope"
    )]
    pub(crate) max_depth: Option<u32>,

    /// Once links lead nowhere new, also crawl what the site's own sitemaps list (robots.txt's
    /// Sitemap: lines, else /sitemap.xml, /sitemap_index.xml and /sitemap.xml.gz; never this
    /// crawl's own output), under the same rules as links [default: false for crawl, true for
    /// audit; =false turns it off]
    #[arg(
        long,
        value_name = "BOOL",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "true",
        hide_possible_values = true,
        help_heading = "Scope"
    )]
    pub(crate) seed_sitemaps: Option<bool>,

    /// Follow a chain of same-shaped pages (an endless calendar) at most N deep; 0: no limit
    /// [default: 100] [range: 0 to 1000000]
    #[arg(
        long,
        value_name = "N",
        value_parser = MAX_PATTERN_CHAIN.parser::<u32>(),
        help_heading = "Scope"
    )]
    pub(crate) max_pattern_chain: Option<u32>,

    /// Also crawl subdomains of the seed's host.
    #[arg(long, help_heading = "Scope")]
    pub(crate) allow_subdomains: bool,

    /// Allow connections to private, loopback and link-local addresses (allowed anyway when
    /// the seed is on one)
    #[arg(long, help_heading = "Scope")]
    pub(crate) allow_private: bool,

    /// Only crawl URLs matching this regex (repeatable).
    #[arg(long, value_name = "REGEX", help_heading = "Scope")]
    pub(crate) include: Vec<String>,

    /// Never crawl URLs matching this regex (repeatable).
    #[arg(long, value_name = "REGEX", help_heading = "Scope")]
    pub(crate) exclude: Vec<String>,

    /// Query parameter stripped from URLs before fetching; `name*` matches a prefix.
    /// Repeatable; replaces the default list (utm_*, gclid, fbclid, msclkid, PHPSESSID,
    /// jsessionid, sid, sessionid).
    #[arg(long, value_name = "NAME", help_heading = "Scope")]
    pub(crate) strip_param: Vec<String>,

    /// Requests in flight at once, or auto: from 2, more while the site's response times stay
    /// flat, fewer when they rise or the site is overloaded (429, 502, 503, 504, timeouts), at
    /// most 64 [default: 8] [range: 1 to 256]
    #[arg(
        long,
        value_name = "N|auto",
        value_parser = CONCURRENCY.parser::<ConcurrencyName>(),
        help_heading = "Politeness"
    )]
    pub(crate) concurrency: Option<ConcurrencyName>,

    /// Seconds between two requests to one host; overrides robots.txt Crawl-delay [range: 0 to
    /// 86400]
    #[arg(
        long,
        value_name = "SECONDS",
        value_parser = DELAY.parser::<f64>(),
        help_heading = "Politeness"
    )]
    pub(crate) delay: Option<f64>,

    /// User-Agent header, without line breaks or other control characters; its product token
    /// selects the robots.txt group [default: sitemapper/<version> (+<project url>)]
    #[arg(long, value_name = "STRING", help_heading = "Politeness")]
    pub(crate) user_agent: Option<String>,

    /// Ignore robots.txt (only for auditing your own site).
    #[arg(long, help_heading = "Politeness")]
    pub(crate) ignore_robots: bool,

    /// Retries after a timeout, connection error, 429, 502, 503 or 504 [default: 2] [range: 0
    /// to 10]
    #[arg(
        long,
        value_name = "N",
        value_parser = RETRIES.parser::<u32>(),
        help_heading = "Politeness"
    )]
    pub(crate) retries: Option<u32>,

    /// Render pages in headless Chromium: auto renders where the HTML alone hides the page
    /// [default: auto]
    #[arg(long, value_name = "WHEN", help_heading = "Rendering")]
    pub(crate) render: Option<RenderName>,

    /// The browser to render with [default: $CHROME, else chromium, chromium-browser or
    /// google-chrome on PATH]
    #[arg(long, value_name = "PATH", help_heading = "Rendering")]
    pub(crate) chrome: Option<PathBuf>,

    /// Pages rendered at once, each in its own browser tab [default: 2] [range: 1 to 64]
    #[arg(
        long,
        value_name = "N",
        value_parser = RENDER_CONCURRENCY.parser::<usize>(),
        help_heading = "Rendering"
    )]
    pub(crate) render_concurrency: Option<usize>,

    /// Seconds a page may take to render before its HTML as served is used [default: 10]
    /// [range: 0.001 to 86400]
    #[arg(
        long,
        value_name = "SECONDS",
        value_parser = RENDER_TIMEOUT.parser::<f64>(),
        help_heading = "Rendering"
    )]
    pub(crate) render_timeout: Option<f64>,

    /// Requests a rendered page may make to other hosts than the site's (CDNs, APIs); those
    /// past it are refused [default: 100] [range: 0 to 100000]
    #[arg(
        long,
        value_name = "N",
        value_parser = RENDER_OTHER_HOST_REQUESTS.parser::<u64>(),
        help_heading = "Rendering"
    )]
    pub(crate) render_other_host_requests: Option<u64>,

    /// Directory to write sitemap.xml (and its children) into; - prints the sitemap on stdout
    /// [default: . for crawl, the --report directory for audit]
    #[arg(short, long, value_name = "DIR", help_heading = "Output")]
    pub(crate) out: Option<PathBuf>,

    /// Write gzip-compressed children (sitemap-00001.xml.gz) under a sitemap.xml index.
    #[arg(long, help_heading = "Output")]
    pub(crate) gzip: bool,

    /// Absolute URL under which the sitemaps are published [default: the seed's directory]
    #[arg(long, value_name = "URL", help_heading = "Output")]
    pub(crate) base_url: Option<String>,

    /// URLs per sitemap file [default: 50000] [range: 1 to 50000]
    #[arg(
        long,
        value_name = "N",
        value_parser = MAX_URLS_PER_FILE.parser::<usize>(),
        help_heading = "Output"
    )]
    pub(crate) max_urls_per_file: Option<usize>,

    /// Uncompressed bytes per sitemap file [default: 52428800] [range: 4096 to 52428800]
    #[arg(
        long,
        value_name = "BYTES",
        value_parser = MAX_BYTES_PER_FILE.parser::<u64>(),
        help_heading = "Output"
    )]
    pub(crate) max_bytes_per_file: Option<u64>,

    /// Split the sitemap into files by group under one sitemap.xml index: "section" (the
    /// first path segment with pages beneath it), "language" (each page's own hreflang, else
    /// <html lang>), or NAME=REGEX (repeatable, first match wins); the rest go into
    /// sitemap-other.xml
    #[arg(long, value_name = "RULE", help_heading = "Output")]
    pub(crate) split_by: Vec<String>,

    /// Sitemap formats to write: xml (sitemap.xml), txt (sitemap.txt), or xml,txt [default:
    /// xml]
    #[arg(
        long,
        value_name = "FORMAT",
        value_delimiter = ',',
        help_heading = "Output"
    )]
    pub(crate) format: Vec<FormatName>,

    /// Add <image:image> entries for the images each page shows
    #[arg(long, help_heading = "Output")]
    pub(crate) images: bool,

    /// Add hreflang alternates (<xhtml:link>) between listed pages
    #[arg(long, help_heading = "Output")]
    pub(crate) hreflang: bool,

    /// Write <priority>: "depth" gives the seed 1.0 and 0.8 per click below (ignored by Google
    /// and Bing)
    #[arg(long, value_name = "RULE", help_heading = "Output")]
    pub(crate) priority: Option<PriorityRule>,

    /// Write <changefreq>: "observed" from the changes seen across runs (needs --state;
    /// ignored by Google and Bing)
    #[arg(long, value_name = "RULE", help_heading = "Output")]
    pub(crate) changefreq: Option<ChangefreqRule>,

    /// Keep the crawl database in FILE (SQLite) instead of a temporary file.
    #[arg(long, value_name = "FILE", help_heading = "Cron")]
    pub(crate) state: Option<PathBuf>,

    /// Continue the interrupted run kept in --state instead of starting over
    #[arg(long, help_heading = "Cron")]
    pub(crate) resume: bool,

    /// Write the URLs added, removed and changed since the previous run to FILE (JSON; - for
    /// stdout)
    #[arg(long, value_name = "FILE", help_heading = "Cron")]
    pub(crate) report_changes: Option<PathBuf>,

    /// Write every URL not listed, with its reason, status and referrer, to FILE (CSV; - for
    /// stdout)
    #[arg(long, value_name = "FILE", help_heading = "Output")]
    pub(crate) list_not_listed: Option<PathBuf>,

    /// Print the summary as text on stderr, or as one JSON object on stdout
    /// (docs/summary-json.md) [default: text]
    #[arg(long, value_name = "FORMAT", help_heading = "Output")]
    pub(crate) summary: Option<SummaryFormat>,

    /// Notify IndexNow of added, changed and removed URLs, with this key (see README)
    #[arg(long, value_name = "KEY", help_heading = "Cron")]
    pub(crate) indexnow_key: Option<String>,

    /// Where the key file is, if not at the site's root (https://example.com/KEY.txt)
    #[arg(long, value_name = "URL", help_heading = "Cron")]
    pub(crate) indexnow_key_location: Option<String>,

    /// IndexNow endpoint [default: https://api.indexnow.org/indexnow]
    #[arg(long, value_name = "URL", help_heading = "Cron")]
    pub(crate) indexnow_endpoint: Option<String>,

    /// Header 'Name: value' sent with every request to the site, never to other hosts; no line
    /// breaks or NUL (repeatable)
    #[arg(long, value_name = "HEADER", help_heading = "Access")]
    pub(crate) header: Vec<String>,

    /// Basic authentication for the site, never sent to other hosts [default:
    /// $SITEMAPPER_BASIC_AUTH, else the config file, else the seed URL's user:password]
    #[arg(long, value_name = "USER:PASSWORD", help_heading = "Access")]
    pub(crate) basic_auth: Option<String>,

    /// Cookie sent to the site, name=value or 'a=1; b=2' (repeatable); the cookies the site
    /// sets are kept for the crawl
    #[arg(long, value_name = "COOKIE", help_heading = "Access")]
    pub(crate) cookie: Vec<String>,

    /// Proxy for every request: http://, https://, socks5:// or socks5h:// URL [default:
    /// $HTTPS_PROXY, $HTTP_PROXY or $ALL_PROXY, minus $NO_PROXY]
    #[arg(long, value_name = "URL", help_heading = "Access")]
    pub(crate) proxy: Option<String>,

    /// Also trust the certificates in FILE (PEM), such as a private CA's
    #[arg(long, value_name = "FILE", help_heading = "Access")]
    pub(crate) cacert: Option<PathBuf>,

    /// Accept any TLS certificate (a self-signed staging site): unsafe, and said so
    #[arg(long, help_heading = "Access")]
    pub(crate) insecure: bool,

    /// Crawl STAGING as a copy of PRODUCTION: URLs naming PRODUCTION are crawled on STAGING,
    /// and the sitemaps name PRODUCTION (repeatable; see README)
    #[arg(long, value_name = "STAGING=PRODUCTION", help_heading = "Access")]
    pub(crate) map_host: Vec<String>,
}
