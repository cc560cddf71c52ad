//! Configuration stages: `CrawlArgs` (flags) and `CrawlOptions` (config file, every field
//! optional) resolve into `CrawlSettings` in one place, where every default is applied.
//! Precedence: flags, then the config file, then defaults.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, bail};
use regex::Regex;
use serde::Deserialize;
use sitemapper_crawl::{AddressPolicy, CrawlConfig, ScopeOptions, default_user_agent};
use sitemapper_sitemap::{Format, Limits, MAX_BYTES_PER_FILE, MAX_URLS_PER_FILE};
use url::Url;

use crate::cli::{ChangefreqRule, CrawlArgs, FormatName, PriorityRule};
use crate::commands::changes::{DEFAULT_INDEXNOW_ENDPOINT, IndexNow};

/// The config file: the same options as the flags, in kebab-case.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct CrawlOptions {
    pub out: Option<PathBuf>,
    pub state: Option<PathBuf>,
    pub concurrency: Option<usize>,
    pub max_pages: Option<u64>,
    pub max_depth: Option<u32>,
    pub max_requests: Option<u64>,
    pub max_urls: Option<u64>,
    pub max_pattern_chain: Option<u32>,
    pub delay: Option<f64>,
    pub user_agent: Option<String>,
    pub ignore_robots: Option<bool>,
    pub allow_subdomains: Option<bool>,
    pub allow_private: Option<bool>,
    pub include: Option<Vec<String>>,
    pub exclude: Option<Vec<String>>,
    pub strip_params: Option<Vec<String>>,
    pub timeout: Option<f64>,
    pub connect_timeout: Option<f64>,
    pub max_body_size: Option<usize>,
    pub retries: Option<u32>,
    pub gzip: Option<bool>,
    pub base_url: Option<String>,
    pub max_urls_per_file: Option<usize>,
    pub max_bytes_per_file: Option<u64>,
    pub resume: Option<bool>,
    pub format: Option<Vec<FormatName>>,
    pub images: Option<bool>,
    pub hreflang: Option<bool>,
    pub priority: Option<PriorityRule>,
    pub changefreq: Option<ChangefreqRule>,
    pub report_changes: Option<PathBuf>,
    pub indexnow_key: Option<String>,
    pub indexnow_key_location: Option<String>,
    pub indexnow_endpoint: Option<String>,
}

/// The largest config file read. Every option with long lists fits in far less: anything
/// larger is a mistake, not a config, and must not cost unbounded memory.
const MAX_CONFIG_BYTES: u64 = 1024 * 1024;

impl CrawlOptions {
    pub fn load(path: &Path) -> anyhow::Result<CrawlOptions> {
        let text = read_config(path)?;
        toml::from_str(&text).map_err(|error| {
            // toml's message spans several lines (a source excerpt); keep the first.
            let message = error
                .message()
                .lines()
                .next()
                .unwrap_or("invalid TOML")
                .to_string();
            let location = error
                .span()
                .map(|span| line_of(&text, span.start))
                .map_or(String::new(), |line| format!(", line {line}"));
            anyhow::anyhow!(
                "invalid config file {}{location}: {message}",
                path.display()
            )
        })
    }
}

/// The text of a config file: a regular file of at most [`MAX_CONFIG_BYTES`]. Anything else
/// is refused before it is opened (opening a FIFO waits for a writer; `/dev/zero` never
/// ends), checked again once open (the path may have changed in between), and read through
/// a cap, so that a file growing while it is read is bounded too.
fn read_config(path: &Path) -> anyhow::Result<String> {
    let cannot_read = || format!("cannot read config file {}", path.display());
    check_config_file(path, &std::fs::metadata(path).with_context(cannot_read)?)?;
    let file = std::fs::File::open(path).with_context(cannot_read)?;
    check_config_file(path, &file.metadata().with_context(cannot_read)?)?;
    let mut text = String::new();
    file.take(MAX_CONFIG_BYTES + 1)
        .read_to_string(&mut text)
        .with_context(cannot_read)?;
    if text.len() as u64 > MAX_CONFIG_BYTES {
        bail!(too_large(path));
    }
    Ok(text)
}

fn check_config_file(path: &Path, metadata: &std::fs::Metadata) -> anyhow::Result<()> {
    if metadata.is_dir() {
        bail!("config file {} is a directory", path.display());
    }
    if !metadata.is_file() {
        bail!(
            "config file {} is not a regular file (a FIFO, a device or a socket)",
            path.display()
        );
    }
    if metadata.len() > MAX_CONFIG_BYTES {
        bail!(too_large(path));
    }
    Ok(())
}

fn too_large(path: &Path) -> String {
    format!(
        "config file {} is larger than {MAX_CONFIG_BYTES} bytes (1 MiB), the most read",
        path.display()
    )
}

fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}

/// Everything a crawl run needs, resolved.
#[derive(Debug)]
pub struct CrawlSettings {
    pub seed: String,
    pub out: PathBuf,
    pub state: Option<PathBuf>,
    pub crawl: CrawlConfig,
    pub gzip: bool,
    /// `None`: the scope's directory once the crawl knows it (after a seed redirect).
    pub base_url: Option<String>,
    pub limits: Limits,
    pub resume: bool,
    pub report_changes: Option<PathBuf>,
    pub indexnow: Option<IndexNow>,
    /// The formats to write, without repeats, XML first.
    pub formats: Vec<Format>,
    pub images: bool,
    pub hreflang: bool,
    pub priority: Option<PriorityRule>,
    pub changefreq: Option<ChangefreqRule>,
}

impl CrawlSettings {
    pub fn resolve(args: CrawlArgs) -> anyhow::Result<CrawlSettings> {
        let options = match &args.config {
            Some(path) => CrawlOptions::load(path)?,
            None => CrawlOptions::default(),
        };
        let defaults = CrawlConfig::default();
        let include = args
            .include
            .is_empty()
            .then_some(options.include)
            .flatten()
            .unwrap_or(args.include);
        let exclude = args
            .exclude
            .is_empty()
            .then_some(options.exclude)
            .flatten()
            .unwrap_or(args.exclude);
        let strip_parameters = if args.strip_param.is_empty() {
            options
                .strip_params
                .unwrap_or(defaults.strip_parameters.clone())
        } else {
            args.strip_param
        };
        let concurrency = args
            .concurrency
            .or(options.concurrency)
            .unwrap_or(defaults.concurrency);
        if concurrency == 0 {
            bail!("--concurrency must be at least 1");
        }
        let delay = args
            .delay
            .or(options.delay)
            .map(|seconds| seconds_option("--delay", seconds))
            .transpose()?;
        let crawl = CrawlConfig {
            concurrency,
            max_pages: args.max_pages.or(options.max_pages),
            max_depth: args.max_depth.or(options.max_depth),
            max_requests: args.max_requests.or(options.max_requests),
            max_urls: args
                .max_urls
                .or(options.max_urls)
                .unwrap_or(defaults.max_urls),
            addresses: AddressPolicy {
                allow_private: args.allow_private || options.allow_private.unwrap_or(false),
                public_exceptions: public_exceptions()?,
            },
            max_pattern_chain: args
                .max_pattern_chain
                .or(options.max_pattern_chain)
                .unwrap_or(defaults.max_pattern_chain),
            delay,
            user_agent: args
                .user_agent
                .or(options.user_agent)
                .unwrap_or_else(default_user_agent),
            respect_robots: !(args.ignore_robots || options.ignore_robots.unwrap_or(false)),
            connect_timeout: match args.connect_timeout.or(options.connect_timeout) {
                Some(seconds) => seconds_option("--connect-timeout", seconds)?,
                None => defaults.connect_timeout,
            },
            request_timeout: match args.timeout.or(options.timeout) {
                Some(seconds) => seconds_option("--timeout", seconds)?,
                None => defaults.request_timeout,
            },
            max_body_bytes: args
                .max_body_size
                .or(options.max_body_size)
                .unwrap_or(defaults.max_body_bytes),
            retries: args.retries.or(options.retries).unwrap_or(defaults.retries),
            scope: ScopeOptions {
                allow_subdomains: args.allow_subdomains
                    || options.allow_subdomains.unwrap_or(false),
                include: compile_patterns("--include", &include)?,
                exclude: compile_patterns("--exclude", &exclude)?,
            },
            strip_parameters,
            ..defaults
        };
        let base_url = args
            .base_url
            .or(options.base_url)
            .map(|text| base_url(&text))
            .transpose()?;
        let limits = Limits::new(
            args.max_urls_per_file
                .or(options.max_urls_per_file)
                .unwrap_or(MAX_URLS_PER_FILE),
            args.max_bytes_per_file
                .or(options.max_bytes_per_file)
                .unwrap_or(MAX_BYTES_PER_FILE),
        )
        .map_err(|error| anyhow::anyhow!("{error}"))?;
        let state = args.state.or(options.state);
        let names = if args.format.is_empty() {
            options.format.unwrap_or_default()
        } else {
            args.format
        };
        let mut formats: Vec<Format> = names
            .iter()
            .map(|name| match name {
                FormatName::Xml => Format::Xml,
                FormatName::Txt => Format::Text,
            })
            .collect();
        if formats.is_empty() {
            formats.push(Format::Xml);
        }
        formats.sort_by_key(|format| *format != Format::Xml);
        formats.dedup();
        let images = args.images || options.images.unwrap_or(false);
        let hreflang = args.hreflang || options.hreflang.unwrap_or(false);
        let changefreq = args.changefreq.or(options.changefreq);
        if changefreq.is_some() && state.is_none() {
            bail!("--changefreq observed needs --state: changes are observed across runs");
        }
        let resume = args.resume || options.resume.unwrap_or(false);
        if resume && state.is_none() {
            bail!("--resume needs --state: the interrupted run is kept in the crawl database");
        }
        let indexnow = match args.indexnow_key.or(options.indexnow_key) {
            None => None,
            Some(key) => Some(IndexNow {
                key: indexnow_key(&key)?,
                key_location: args
                    .indexnow_key_location
                    .or(options.indexnow_key_location)
                    .map(|text| absolute_url("--indexnow-key-location", &text))
                    .transpose()?,
                endpoint: absolute_url(
                    "--indexnow-endpoint",
                    &args
                        .indexnow_endpoint
                        .or(options.indexnow_endpoint)
                        .unwrap_or_else(|| DEFAULT_INDEXNOW_ENDPOINT.to_string()),
                )?,
                user_agent: crawl.user_agent.clone(),
            }),
        };
        Ok(CrawlSettings {
            seed: args.url,
            out: args
                .out
                .or(options.out)
                .unwrap_or_else(|| PathBuf::from(".")),
            crawl: CrawlConfig {
                record_links: state.is_some(),
                collect_images: images,
                collect_alternates: hreflang,
                ..crawl
            },
            state,
            gzip: args.gzip || options.gzip.unwrap_or(false),
            base_url,
            limits,
            resume,
            report_changes: args.report_changes.or(options.report_changes),
            indexnow,
            formats,
            images,
            hreflang,
            priority: args.priority.or(options.priority),
            changefreq,
        })
    }
}

/// The environment variable that names addresses to treat as public. It exists for the test
/// suite, which can only play a public site on a loopback address; it is not documented
/// for users, who have --allow-private.
const PUBLIC_EXCEPTIONS_VARIABLE: &str = "SITEMAPPER_TEST_PUBLIC_ADDRESSES";

fn public_exceptions() -> anyhow::Result<Vec<std::net::IpAddr>> {
    let Some(value) = std::env::var_os(PUBLIC_EXCEPTIONS_VARIABLE) else {
        return Ok(Vec::new());
    };
    value
        .to_string_lossy()
        .split(',')
        .filter(|address| !address.trim().is_empty())
        .map(|address| {
            address.trim().parse().with_context(|| {
                format!("{PUBLIC_EXCEPTIONS_VARIABLE}: {address:?} is not an IP address")
            })
        })
        .collect()
}

fn seconds_option(name: &str, seconds: f64) -> anyhow::Result<Duration> {
    Duration::try_from_secs_f64(seconds)
        .map_err(|_| anyhow::anyhow!("{name} must be a number of seconds, not {seconds}"))
}

fn compile_patterns(name: &str, patterns: &[String]) -> anyhow::Result<Vec<Regex>> {
    patterns
        .iter()
        .map(|pattern| {
            Regex::new(pattern).map_err(|error| {
                let reason = error
                    .to_string()
                    .lines()
                    .last()
                    .unwrap_or_default()
                    .trim()
                    .to_string();
                anyhow::anyhow!("invalid {name} pattern {pattern:?}: {reason}")
            })
        })
        .collect()
}

/// IndexNow keys are 8 to 128 characters of letters, digits and dashes.
fn indexnow_key(key: &str) -> anyhow::Result<String> {
    let valid = (8..=128).contains(&key.len())
        && key
            .bytes()
            .all(|byte| byte.is_ascii_alphanumeric() || byte == b'-');
    if !valid {
        bail!("invalid --indexnow-key {key:?}: 8 to 128 letters, digits or dashes");
    }
    Ok(key.to_string())
}

fn absolute_url(name: &str, text: &str) -> anyhow::Result<Url> {
    let url =
        Url::parse(text).map_err(|error| anyhow::anyhow!("invalid {name} {text:?}: {error}"))?;
    if !matches!(url.scheme(), "http" | "https") {
        bail!("invalid {name} {text:?}: not an http or https URL");
    }
    Ok(url)
}

/// An absolute http(s) URL, with a trailing slash added so that file names append to it.
fn base_url(text: &str) -> anyhow::Result<String> {
    let url = Url::parse(text)
        .map_err(|error| anyhow::anyhow!("invalid --base-url {text:?}: {error}"))?;
    if !matches!(url.scheme(), "http" | "https") {
        bail!("invalid --base-url {text:?}: not an http or https URL");
    }
    let mut text = url.to_string();
    if !text.ends_with('/') {
        text.push('/');
    }
    Ok(text)
}
