//! Command-line arguments (clap). Every value is optional here: defaults are applied once, in
//! `settings.rs`, after the config file is merged. The values a user names (a format, a rule,
//! a severity) are defined here too; the config file reads the same names, and `settings.rs`
//! builds on this module, never the other way round.
//!
//! The doc comments of the arguments are the `--help` text, read in a terminal: they write
//! URLs and placeholders such as `<version>` as a user types them, not as rustdoc markup.
#![expect(
    rustdoc::bare_urls,
    rustdoc::invalid_html_tags,
    reason = "the argument docs are --help text"
)]

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};
use serde::Deserialize;

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

    /// Print nothing but errors.
    #[arg(short, long, global = true, conflicts_with = "verbose")]
    pub(crate) quiet: bool,

    /// Log what happens on stderr (-v: info, -vv: debug, -vvv: trace).
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
}

#[derive(Debug, Args)]
pub(crate) struct ValidateArgs {
    /// The sitemap: a file, or an http(s) URL; an index is followed into its children.
    pub(crate) target: String,
}

#[derive(Debug, Args)]
pub(crate) struct AuditArgs {
    #[command(flatten)]
    pub(crate) crawl: CrawlArgs,

    /// Directory to write the report into: report.html, findings.csv, pages.csv, links.csv,
    /// report.json, and the crawl database crawl.db (unless --state)
    #[arg(long, value_name = "DIR")]
    pub(crate) report: PathBuf,

    /// Exit with code 4 when there are findings at this level or worse: error, warning, notice
    #[arg(long, value_name = "SEVERITY")]
    pub(crate) fail_on: Option<SeverityName>,

    /// Flag indexable pages more than N clicks from the start page [default: 4]
    #[arg(long, value_name = "N")]
    pub(crate) deep: Option<u32>,

    /// Flag pages that take more than MS milliseconds to answer [default: 1500]
    #[arg(long, value_name = "MS")]
    pub(crate) slow: Option<u64>,

    /// Flag pages larger than BYTES [default: 1048576]
    #[arg(long, value_name = "BYTES")]
    pub(crate) large: Option<u64>,
}

/// A finding severity as the user names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum SeverityName {
    Error,
    Warning,
    Notice,
}

impl SeverityName {
    pub(crate) fn severity(self) -> sitemapper_audit::Severity {
        match self {
            SeverityName::Error => sitemapper_audit::Severity::Error,
            SeverityName::Warning => sitemapper_audit::Severity::Warning,
            SeverityName::Notice => sitemapper_audit::Severity::Notice,
        }
    }
}

/// A sitemap format as the user names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum FormatName {
    Xml,
    Txt,
}

/// When pages are rendered in a browser.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum RenderName {
    /// Only pages whose HTML looks built by JavaScript, and then every page of a site where
    /// rendering shows more (see README)
    Auto,
    /// Never: read the HTML as served
    Never,
    /// Every HTML page
    Always,
}

impl From<RenderName> for sitemapper_crawl::RenderMode {
    fn from(name: RenderName) -> Self {
        match name {
            RenderName::Auto => sitemapper_crawl::RenderMode::Auto,
            RenderName::Never => sitemapper_crawl::RenderMode::Never,
            RenderName::Always => sitemapper_crawl::RenderMode::Always,
        }
    }
}

/// How `<priority>` is derived (opt-in).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum PriorityRule {
    /// 1.0 for the seed, 0.8 per click below.
    Depth,
}

/// How `<changefreq>` is derived (opt-in).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum ChangefreqRule {
    /// From the median interval between changes observed across runs.
    Observed,
}

#[derive(Debug, Args)]
pub(crate) struct RunsArgs {
    /// The crawl database (the --state file of `sitemapper crawl`).
    #[arg(long, value_name = "FILE")]
    pub(crate) state: PathBuf,
}

#[derive(Debug, Args)]
pub(crate) struct CrawlArgs {
    /// The seed: the site's root URL, or a directory of it (https://example.com/blog/).
    pub(crate) url: String,

    /// Directory to write sitemap.xml (and its children) into [default: .]
    #[arg(short, long, value_name = "DIR")]
    pub(crate) out: Option<PathBuf>,

    /// TOML file with options (see config/example.toml); flags given here win over it.
    #[arg(short, long, value_name = "FILE")]
    pub(crate) config: Option<PathBuf>,

    /// Keep the crawl database in FILE (SQLite) instead of a temporary file.
    #[arg(long, value_name = "FILE")]
    pub(crate) state: Option<PathBuf>,

    /// Requests in flight at once [default: 8]
    #[arg(long, value_name = "N")]
    pub(crate) concurrency: Option<usize>,

    /// Stop after requesting this many pages.
    #[arg(long, value_name = "N")]
    pub(crate) max_pages: Option<u64>,

    /// Do not follow links deeper than N clicks from the seed.
    #[arg(long, value_name = "N")]
    pub(crate) max_depth: Option<u32>,

    /// Stop after this many HTTP requests in all, redirect hops and retries included.
    #[arg(long, value_name = "N")]
    pub(crate) max_requests: Option<u64>,

    /// Stop discovering new URLs after N distinct ones (those found are still crawled)
    /// [default: 2000000]
    #[arg(long, value_name = "N")]
    pub(crate) max_urls: Option<u64>,

    /// Follow a chain of same-shaped pages (an endless calendar) at most N deep; 0: no limit
    /// [default: 100]
    #[arg(long, value_name = "N")]
    pub(crate) max_pattern_chain: Option<u32>,

    /// Seconds between two requests to one host; overrides robots.txt Crawl-delay.
    #[arg(long, value_name = "SECONDS")]
    pub(crate) delay: Option<f64>,

    /// User-Agent header; its product token selects the robots.txt group
    /// [default: sitemapper/<version> (+<project url>)]
    #[arg(long, value_name = "STRING")]
    pub(crate) user_agent: Option<String>,

    /// Ignore robots.txt (only for auditing your own site).
    #[arg(long)]
    pub(crate) ignore_robots: bool,

    /// Also crawl subdomains of the seed's host.
    #[arg(long)]
    pub(crate) allow_subdomains: bool,

    /// Allow connections to private, loopback and link-local addresses (allowed anyway when
    /// the seed is on one)
    #[arg(long)]
    pub(crate) allow_private: bool,

    /// Only crawl URLs matching this regex (repeatable).
    #[arg(long, value_name = "REGEX")]
    pub(crate) include: Vec<String>,

    /// Never crawl URLs matching this regex (repeatable).
    #[arg(long, value_name = "REGEX")]
    pub(crate) exclude: Vec<String>,

    /// Query parameter stripped from URLs before fetching; `name*` matches a prefix.
    /// Repeatable; replaces the default list (utm_*, gclid, fbclid, msclkid, PHPSESSID,
    /// jsessionid, sid, sessionid).
    #[arg(long, value_name = "NAME")]
    pub(crate) strip_param: Vec<String>,

    /// Seconds one request may take, body included [default: 30]
    #[arg(long, value_name = "SECONDS")]
    pub(crate) timeout: Option<f64>,

    /// Seconds to wait for a connection [default: 10]
    #[arg(long, value_name = "SECONDS")]
    pub(crate) connect_timeout: Option<f64>,

    /// Bytes of a page read at most, after decompression [default: 10485760]
    #[arg(long, value_name = "BYTES")]
    pub(crate) max_body_size: Option<usize>,

    /// Retries after a timeout, connection error, 429, 502, 503 or 504 [default: 2]
    #[arg(long, value_name = "N")]
    pub(crate) retries: Option<u32>,

    /// Render pages in headless Chromium: auto renders where the HTML alone hides the page
    /// [default: auto]
    #[arg(long, value_name = "WHEN")]
    pub(crate) render: Option<RenderName>,

    /// The browser to render with [default: $CHROME, else chromium, chromium-browser or
    /// google-chrome on PATH]
    #[arg(long, value_name = "PATH")]
    pub(crate) chrome: Option<PathBuf>,

    /// Pages rendered at once, each in its own browser tab [default: 2]
    #[arg(long, value_name = "N")]
    pub(crate) render_concurrency: Option<usize>,

    /// Seconds a page may take to render before its HTML as served is used [default: 10]
    #[arg(long, value_name = "SECONDS")]
    pub(crate) render_timeout: Option<f64>,

    /// Write gzip-compressed children (sitemap-00001.xml.gz) under a sitemap.xml index.
    #[arg(long)]
    pub(crate) gzip: bool,

    /// Absolute URL under which the sitemaps are published [default: the seed's directory]
    #[arg(long, value_name = "URL")]
    pub(crate) base_url: Option<String>,

    /// URLs per sitemap file, at most 50000 [default: 50000]
    #[arg(long, value_name = "N")]
    pub(crate) max_urls_per_file: Option<usize>,

    /// Uncompressed bytes per sitemap file, at most 52428800 [default: 52428800]
    #[arg(long, value_name = "BYTES")]
    pub(crate) max_bytes_per_file: Option<u64>,

    /// Sitemap formats to write: xml (sitemap.xml), txt (sitemap.txt), or xml,txt [default:
    /// xml]
    #[arg(long, value_name = "FORMAT", value_delimiter = ',')]
    pub(crate) format: Vec<FormatName>,

    /// Add <image:image> entries for the images each page shows
    #[arg(long)]
    pub(crate) images: bool,

    /// Add hreflang alternates (<xhtml:link>) between listed pages
    #[arg(long)]
    pub(crate) hreflang: bool,

    /// Write <priority>: "depth" gives the seed 1.0 and 0.8 per click below (ignored by Google
    /// and Bing)
    #[arg(long, value_name = "RULE")]
    pub(crate) priority: Option<PriorityRule>,

    /// Write <changefreq>: "observed" from the changes seen across runs (needs --state;
    /// ignored by Google and Bing)
    #[arg(long, value_name = "RULE")]
    pub(crate) changefreq: Option<ChangefreqRule>,

    /// Continue the interrupted run kept in --state instead of starting over
    #[arg(long)]
    pub(crate) resume: bool,

    /// Write the URLs added, removed and changed since the previous run to FILE (JSON)
    #[arg(long, value_name = "FILE")]
    pub(crate) report_changes: Option<PathBuf>,

    /// Notify IndexNow of added, changed and removed URLs, with this key (see README)
    #[arg(long, value_name = "KEY")]
    pub(crate) indexnow_key: Option<String>,

    /// Where the key file is, if not at the site's root (https://example.com/KEY.txt)
    #[arg(long, value_name = "URL")]
    pub(crate) indexnow_key_location: Option<String>,

    /// IndexNow endpoint [default: https://api.indexnow.org/indexnow]
    #[arg(long, value_name = "URL")]
    pub(crate) indexnow_endpoint: Option<String>,

    /// Header 'Name: value' sent with every request to the site, never to other hosts
    /// (repeatable)
    #[arg(long, value_name = "HEADER")]
    pub(crate) header: Vec<String>,

    /// Basic authentication for the site, never sent to other hosts [default:
    /// $SITEMAPPER_BASIC_AUTH, else the config file, else the seed URL's user:password]
    #[arg(long, value_name = "USER:PASSWORD")]
    pub(crate) basic_auth: Option<String>,

    /// Cookie sent to the site, name=value or 'a=1; b=2' (repeatable); the cookies the site
    /// sets are kept for the crawl
    #[arg(long, value_name = "COOKIE")]
    pub(crate) cookie: Vec<String>,

    /// Proxy for every request: http://, https://, socks5:// or socks5h:// URL [default:
    /// $HTTPS_PROXY, $HTTP_PROXY or $ALL_PROXY, minus $NO_PROXY]
    #[arg(long, value_name = "URL")]
    pub(crate) proxy: Option<String>,

    /// Also trust the certificates in FILE (PEM), such as a private CA's
    #[arg(long, value_name = "FILE")]
    pub(crate) cacert: Option<PathBuf>,

    /// Accept any TLS certificate (a self-signed staging site): unsafe, and said so
    #[arg(long)]
    pub(crate) insecure: bool,

    /// Crawl STAGING as a copy of PRODUCTION: URLs naming PRODUCTION are crawled on STAGING,
    /// and the sitemaps name PRODUCTION (repeatable; see README)
    #[arg(long, value_name = "STAGING=PRODUCTION")]
    pub(crate) map_host: Vec<String>,
}
