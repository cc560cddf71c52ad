//! The options of every command but `crawl` (`crawl.rs`): the audit's own, the database's
//! runs, validation, fleets and workers, completions and the manual.
//!
//! As in `crawl.rs`, each doc comment's first paragraph is the line `-h` prints; the whole
//! comment is what `--help` and the manual print.

use std::path::PathBuf;

use clap::{Args, Subcommand};

use super::CrawlArgs;
use super::names::{PaperName, ServersByName, SeverityName, SummaryFormat};
use super::values::{
    CHECKPOINT, DEEP, EXTERNAL_MAX_LINKS, EXTERNAL_MAX_TIME, EXTERNAL_TIMEOUT, LARGE, LEASE,
    MAX_PAGES, MAX_SITES, MAX_TIME, PER_SERVER, SITES_AT_ONCE, SLOW, max_age,
};

#[derive(Debug, Args)]
pub(crate) struct AuditArgs {
    /// Where to write the report (required)
    ///
    /// report.html, report.xlsx, findings.csv, pages.csv, links.csv, report.json, and the
    /// crawl database crawl.db (unless --state); required, here or in the config file
    #[arg(long, value_name = "DIR", help_heading = "Audit")]
    pub(crate) report: Option<PathBuf>,

    /// The report's heading and page title
    ///
    /// [default: "Site audit: " and the site's address]
    #[arg(long, value_name = "TEXT", help_heading = "Audit")]
    pub(crate) title: Option<String>,

    /// Show this image in the report's heading
    ///
    /// PNG, JPEG, GIF, WebP or SVG, at most 1 MiB, embedded in the report.
    #[arg(long, value_name = "FILE", help_heading = "Audit")]
    pub(crate) logo: Option<PathBuf>,

    /// Also write report.pdf (needs Chromium)
    ///
    /// Printed by the browser of --chrome; without one, the audit says so and exits with 1
    /// once the other files are written.
    #[arg(long, help_heading = "Audit")]
    pub(crate) pdf: bool,

    /// The paper of report.pdf: a4 or letter
    ///
    /// [default: from the locale: letter when LC_ALL, else LC_PAPER, else LANG names the
    /// territory US or CA (en_US.UTF-8, fr_CA), a4 otherwise, C and POSIX included]
    #[arg(
        long,
        value_name = "PAPER",
        hide_possible_values = true,
        help_heading = "Audit",
        hide_short_help = true
    )]
    pub(crate) paper: Option<PaperName>,

    /// Exit with 4 on findings of SEVERITY or worse
    ///
    /// SEVERITY is error, warning or notice: for a deployment pipeline. The report is written
    /// either way.
    #[arg(
        long,
        value_name = "SEVERITY",
        hide_possible_values = true,
        help_heading = "Audit"
    )]
    pub(crate) fail_on: Option<SeverityName>,

    /// Write the findings as SARIF, for code scanning
    ///
    /// SARIF 2.1.0: one rule per kind of finding, one result per finding with the page as
    /// its location, for GitHub code scanning and other SARIF viewers. Written even when
    /// --fail-on fails the run.
    #[arg(long, value_name = "FILE", help_heading = "Audit")]
    pub(crate) sarif: Option<PathBuf>,

    /// Write the findings as JUnit XML, for CI
    ///
    /// A test report with one test case per kind of finding: a failure when the kind has
    /// findings at the --fail-on level or worse (errors without --fail-on). Written even when
    /// --fail-on fails the run.
    #[arg(long, value_name = "FILE", help_heading = "Audit")]
    pub(crate) junit: Option<PathBuf>,

    /// Start the CSV files with a UTF-8 byte order mark
    ///
    /// So that Excel reads them as UTF-8; =false leaves it out, for tools that do not expect
    /// one [default: true]
    #[arg(
        long,
        value_name = "BOOL",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "true",
        hide_possible_values = true,
        help_heading = "Audit",
        hide_short_help = true
    )]
    pub(crate) csv_bom: Option<bool>,

    /// The site's own sitemap to compare (repeatable)
    ///
    /// Compared with the crawl, and seeding it. [default: robots.txt's Sitemap: lines, else
    /// /sitemap.xml, /sitemap_index.xml and /sitemap.xml.gz]
    #[arg(long, value_name = "URL", help_heading = "Audit")]
    pub(crate) sitemap: Vec<String>,

    /// Add CSS-selected values to pages.csv
    ///
    /// Extracts values from every HTML page into the column NAME: the text of the elements the CSS selector matches (`.product
    /// .price`), or with @attr their attribute's value (`sku=[data-sku]@data-sku`); every
    /// match joined by " | ", at most 20 per page. Repeatable.
    #[arg(long, value_name = "NAME=SELECTOR", help_heading = "Audit")]
    pub(crate) extract: Vec<String>,

    /// Set a threshold of the audit's checks (repeatable)
    ///
    /// NAME=VALUE: title-max-chars, title-min-chars, description-max-chars, description-min-chars,
    /// h1-max-chars, thin-words, near-duplicate-bits, url-max-chars, url-max-parameters,
    /// large-image-bytes, heavy-page-bytes (docs/audit.md gives their defaults and ranges).
    #[arg(
        long,
        value_name = "NAME=VALUE",
        help_heading = "Audit",
        hide_short_help = true
    )]
    pub(crate) threshold: Vec<String>,

    /// Flag indexable pages more than N clicks from the seed
    ///
    /// [default: 4] [range: 0 to 1000000]
    #[arg(
        long,
        value_name = "N",
        value_parser = DEEP.parser::<u32>(),
        help_heading = "Audit",
        hide_short_help = true
    )]
    pub(crate) deep: Option<u32>,

    /// Flag pages that take more than MS milliseconds
    ///
    /// [default: 1500] [range: 0 to 86400000]
    #[arg(
        long,
        value_name = "MS",
        value_parser = SLOW.parser::<u64>(),
        help_heading = "Audit",
        hide_short_help = true
    )]
    pub(crate) slow: Option<u64>,

    /// Flag pages larger than BYTES
    ///
    /// [default: 1048576] [range: 0 to 1073741824]
    #[arg(
        long,
        value_name = "BYTES",
        value_parser = LARGE.parser::<u64>(),
        help_heading = "Audit",
        hide_short_help = true
    )]
    pub(crate) large: Option<u64>,

    /// Check the links to other sites
    ///
    /// Each outbound URL once (HEAD, then GET where HEAD is refused), robots.txt obeyed, one
    /// request a second per host; results kept in the crawl database for --external-max-age.
    /// [default: true; =false turns it off]
    #[arg(
        long,
        value_name = "BOOL",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "true",
        hide_possible_values = true,
        help_heading = "Audit",
        hide_short_help = true
    )]
    pub(crate) check_external: Option<bool>,

    /// Seconds one request to another site may take
    ///
    /// [default: 10] [range: 0.001 to 86400]
    #[arg(
        long,
        value_name = "SECONDS",
        value_parser = EXTERNAL_TIMEOUT.parser::<f64>(),
        help_heading = "Audit",
        hide_short_help = true
    )]
    pub(crate) external_timeout: Option<f64>,

    /// Reuse checks of links to other sites younger than this
    ///
    /// A duration such as 7d, 12h, 90m or 0s (0s checks every link again). [default: 7d]
    #[arg(
        long,
        value_name = "DURATION",
        value_parser = max_age,
        help_heading = "Audit",
        hide_short_help = true
    )]
    pub(crate) external_max_age: Option<std::time::Duration>,

    /// Check at most N links to other sites
    ///
    /// Taken from every host in turn; the others are reported as not checked, never as fine
    /// or broken. [default: 5000] [range: 0 to 1000000000]
    #[arg(
        long,
        value_name = "N",
        value_parser = EXTERNAL_MAX_LINKS.parser::<usize>(),
        help_heading = "Audit",
        hide_short_help = true
    )]
    pub(crate) external_max_links: Option<usize>,

    /// Seconds the checks of links to other sites may take in all
    ///
    /// Links not checked by then are reported as not checked. [default: 600] [range: 1 to
    /// 86400]
    #[arg(
        long,
        value_name = "SECONDS",
        value_parser = EXTERNAL_MAX_TIME.parser::<f64>(),
        help_heading = "Audit",
        hide_short_help = true
    )]
    pub(crate) external_max_time: Option<f64>,

    // Last, so that the audit's own options come first in its help.
    #[command(flatten)]
    pub(crate) crawl: CrawlArgs,
}

#[derive(Debug, Args)]
pub(crate) struct RunsArgs {
    /// The crawl database: the --state file of crawl
    ///
    /// Required, here or in the config file.
    #[arg(long, value_name = "FILE")]
    pub(crate) state: Option<PathBuf>,

    /// Print a table (text), or json for scripts
    ///
    /// json is one object, whose fields docs/summary-json.md describes. [default: text]
    #[arg(long, value_name = "FORMAT", hide_possible_values = true)]
    pub(crate) summary: Option<SummaryFormat>,
}

#[derive(Debug, Args)]
pub(crate) struct ExplainArgs {
    /// The URL, as a visitor or a search engine writes it
    ///
    /// Read as the crawl keys URLs: normalized, tracking parameters such as utm_* dropped.
    pub(crate) url: String,

    /// The crawl database: the --state file of crawl
    ///
    /// Required, here, in the config file, or through --fleet.
    #[arg(long, value_name = "FILE", conflicts_with = "fleet")]
    pub(crate) state: Option<PathBuf>,

    /// A fleet file: read its site that maps URL
    ///
    /// The site whose scope holds URL, the deepest when several do; the crawl databases of
    /// `fleet run`, beside the fleet file.
    #[arg(long, value_name = "FILE")]
    pub(crate) fleet: Option<PathBuf>,

    /// Print text, or json for scripts
    ///
    /// json is one object, whose fields docs/summary-json.md describes. [default: text]
    #[arg(long, value_name = "FORMAT", hide_possible_values = true)]
    pub(crate) summary: Option<SummaryFormat>,
}

#[derive(Debug, Args)]
pub(crate) struct McpArgs {
    /// A directory the tools may use (repeatable)
    ///
    /// The tools read and write there, nowhere else: every path a tool is given must lie in one of them (symbolic links followed); a
    /// relative path is relative to the first. The resources are the audit reports and
    /// sitemaps found in them.
    #[arg(long = "allow-dir", value_name = "DIR")]
    pub(crate) allow_dir: Vec<PathBuf>,

    /// Let the tools reach private networks and this host
    ///
    /// Without it a crawl, an audit or a validation of such a site is refused.
    #[arg(long)]
    pub(crate) allow_private: bool,

    /// Pages a crawl or audit may fetch [default: 10000]
    ///
    /// A tool may ask for fewer, never more. [default: 10000] [range: 1 to 1000000000]
    #[arg(long, value_name = "N", value_parser = MAX_PAGES.parser::<u64>())]
    pub(crate) max_pages: Option<u64>,

    /// Seconds a crawl or audit may run [default: 1800]
    ///
    /// It is then stopped as by Ctrl-C: nothing published, the previous sitemap kept.
    /// [default: 1800] [range: 1 to 86400]
    #[arg(long, value_name = "SECONDS", value_parser = MAX_TIME.parser::<u64>())]
    pub(crate) max_time: Option<u64>,
}

#[derive(Debug, Args)]
pub(crate) struct ValidateArgs {
    /// A sitemap file, an http(s) URL, or - for stdin
    ///
    /// gzip or not; an index is followed into its children.
    pub(crate) target: String,

    /// Print text, or json for scripts
    ///
    /// json is one object, whose fields docs/summary-json.md describes. [default: text]
    #[arg(long, value_name = "FORMAT", hide_possible_values = true)]
    pub(crate) summary: Option<SummaryFormat>,
}

#[derive(Debug, Args)]
pub(crate) struct FleetArgs {
    #[command(subcommand)]
    pub(crate) command: FleetCommand,
}

#[derive(Debug, Subcommand)]
pub(crate) enum FleetCommand {
    /// Crawl the due sites, each incrementally (one machine).
    Run(FleetRunArgs),
    /// Show each site's last run, its result and when it is due next.
    Status(FleetStatusArgs),
    /// Write the fleet file's sites into the queue (PostgreSQL), for workers.
    Sync(FleetSyncArgs),
}

#[derive(Debug, Args)]
pub(crate) struct FleetRunArgs {
    /// The fleet file: defaults, then one table per site
    ///
    /// TOML: a [defaults] table (any crawl option, out with {name} for the site's name, every =
    /// "24h" or cron = "0 3 * * *", publish = a shell command), then one [[site]] table per
    /// site (url, name, and its own options, which win). config/fleet.example.toml in the
    /// sources comments every key.
    #[arg(value_name = "FLEET")]
    pub(crate) fleet: PathBuf,

    /// Where the sites' databases and runs are kept
    ///
    /// [default: FLEET.state, beside the fleet file]
    #[arg(long, value_name = "DIR")]
    pub(crate) state_dir: Option<PathBuf>,

    #[command(flatten)]
    pub(crate) servers: ServersArgs,

    /// Run this site now, due or not (repeatable)
    ///
    /// The other sites wait.
    #[arg(long = "site", value_name = "NAME")]
    pub(crate) sites: Vec<String>,

    /// Run every site now, due or not
    #[arg(long, conflicts_with = "sites")]
    pub(crate) all: bool,

    /// Also write the report as JSON (- for stdout)
    #[arg(long, value_name = "FILE")]
    pub(crate) report: Option<PathBuf>,

    /// Write the run's metrics for Prometheus to FILE
    ///
    /// The text format node_exporter's textfile collector reads (FILE ending in .prom),
    /// written when the run ends, replacing the last.
    #[arg(long, value_name = "FILE", hide_short_help = true)]
    pub(crate) metrics_file: Option<PathBuf>,
}

/// How many sites run at once, in all and on one server: `fleet run`'s and a worker's.
#[derive(Debug, Args)]
pub(crate) struct ServersArgs {
    /// How many sites are crawled at once
    ///
    /// [default: 4] [range: 1 to 64]
    #[arg(long, value_name = "N", value_parser = SITES_AT_ONCE.parser::<usize>())]
    pub(crate) sites_at_once: Option<usize>,

    /// How many sites of one server are crawled at once
    ///
    /// A server is the address a site's host resolves to: the sites of a shared host are
    /// crawled one after another. [default: 1] [range: 1 to 1000]
    #[arg(long, value_name = "N", value_parser = PER_SERVER.parser::<u32>(), hide_short_help = true)]
    pub(crate) per_server: Option<u32>,

    /// What makes two sites one server
    ///
    /// For --per-server and the pace (delay, Crawl-delay). [default: address]
    #[arg(long, value_name = "BY", hide_short_help = true)]
    pub(crate) servers_by: Option<ServersByName>,
}

#[derive(Debug, Args)]
pub(crate) struct FleetStatusArgs {
    /// The fleet file (not needed with --queue)
    #[arg(value_name = "FLEET")]
    pub(crate) fleet: Option<PathBuf>,

    /// The state directory of fleet run
    ///
    /// [default: FLEET.state, beside the fleet file]
    #[arg(long, value_name = "DIR", conflicts_with = "queue")]
    pub(crate) state_dir: Option<PathBuf>,

    /// Show a queue's sites (postgres://...)
    ///
    /// postgres://USER:PASSWORD@HOST/DB; add ?sslmode=require for TLS.
    #[arg(long, value_name = "URL")]
    pub(crate) queue: Option<String>,

    /// Print a table (text), or json for scripts
    ///
    /// [default: text]
    #[arg(long, value_name = "FORMAT", hide_possible_values = true)]
    pub(crate) summary: Option<SummaryFormat>,

    /// Check for monitoring: exit 1 if a site failed or is overdue
    ///
    /// Prints one line, OK or CRITICAL with the sites (as Nagios reads it), then a line for each
    /// site not well. A site is overdue once its due time plus its `retry` (the grace) has
    /// passed without a run; a site never run is due from the fleet file's last change (from
    /// its sync, in a queue).
    #[arg(long, conflicts_with = "summary", hide_short_help = true)]
    pub(crate) check: bool,
}

#[derive(Debug, Args)]
pub(crate) struct FleetSyncArgs {
    /// The fleet file whose sites the queue gets
    #[arg(value_name = "FLEET")]
    pub(crate) fleet: PathBuf,

    /// The queue (postgres://...; required)
    ///
    /// postgres://USER:PASSWORD@HOST/DB; add ?sslmode=require for TLS. Required, here or in
    /// the config file.
    #[arg(long, value_name = "URL")]
    pub(crate) queue: Option<String>,
}

#[derive(Debug, Args)]
pub(crate) struct WorkerArgs {
    /// The queue (postgres://...; required)
    ///
    /// postgres://USER:PASSWORD@HOST/DB; add ?sslmode=require for TLS. Required, here or in
    /// the config file.
    #[arg(long, value_name = "URL")]
    pub(crate) queue: Option<String>,

    /// This worker's name in logs and runs
    ///
    /// [default: HOSTNAME-PID]
    #[arg(long, value_name = "NAME")]
    pub(crate) name: Option<String>,

    /// Where the sites' databases are cached
    ///
    /// A cache between runs: the queue holds each site's. [default: sitemapper-worker-NAME in
    /// the temporary directory]
    #[arg(long, value_name = "DIR")]
    pub(crate) state_dir: Option<PathBuf>,

    #[command(flatten)]
    pub(crate) servers: ServersArgs,

    /// Seconds a claim holds a site without a heartbeat
    ///
    /// Renewed every third of it. A dead worker's site is taken over once it runs out.
    /// [default: 60] [range: 1 to 86400]
    #[arg(long, value_name = "SECONDS", value_parser = LEASE.parser::<f64>())]
    pub(crate) lease: Option<f64>,

    /// Seconds between saves of a site's database
    ///
    /// Saved into the queue; a worker taking the site over continues from the last save.
    /// [default: 60] [range: 0.001 to 86400]
    #[arg(long, value_name = "SECONDS", value_parser = CHECKPOINT.parser::<f64>())]
    pub(crate) checkpoint: Option<f64>,

    /// Stop after running N sites
    ///
    /// [range: 1 to 1000000000]
    #[arg(long, value_name = "N", value_parser = MAX_SITES.parser::<u64>())]
    pub(crate) max_sites: Option<u64>,

    /// Run the sites that are due, then stop
    ///
    /// Instead of waiting for the next.
    #[arg(long)]
    pub(crate) once: bool,

    /// Serve metrics for Prometheus at http://ADDR/metrics
    ///
    /// ADDR is an address and port to listen on (127.0.0.1:9464); the worker's requests,
    /// sites and leases, for as long as it runs.
    #[arg(long, value_name = "ADDR", hide_short_help = true)]
    pub(crate) metrics: Option<std::net::SocketAddr>,
}

#[derive(Debug, Args)]
pub(crate) struct CompletionsArgs {
    /// The shell
    #[arg(value_name = "SHELL")]
    pub(crate) shell: clap_complete::Shell,
}

#[derive(Debug, Args)]
pub(crate) struct ManArgs {
    /// Write every page into DIR instead of printing one
    ///
    /// sitemapper.1 and one page per command (sitemapper-crawl.1, ...).
    #[arg(long, value_name = "DIR")]
    pub(crate) dir: Option<PathBuf>,
}
