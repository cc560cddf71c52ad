//! Configuration stages, in one place: the flags (with the environment: clap reads
//! `SITEMAPPER_<OPTION>` where a flag is not given, see `cli::command`) and the config file
//! (`ConfigFile`, every field optional, keys named exactly as the long flags) resolve into
//! the settings of each command. For a crawl, first `MergedOptions` takes each value from the
//! flag or its variable, then the config file, then the default; then its values are checked
//! and become the `CrawlSettings`. The precedence is therefore: command line, environment,
//! config file, defaults.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, bail};
use regex::Regex;
use sitemapper_crawl::{
    AddressPolicy, Concurrency, CrawlConfig, DocumentKind, Documents, ScopeOptions,
    default_user_agent,
};
use sitemapper_site::{
    DEFAULT_INDEXNOW_ENDPOINT, DEFAULT_KEEP_FAILED, DEFAULT_MAX_SHRINK, IndexNow, RenderSettings,
    SiteSettings,
};
use sitemapper_sitemap::{Format, Limits, MAX_BYTES_PER_FILE, MAX_URLS_PER_FILE, SplitRule};
use url::Url;

use crate::cli::{ChangefreqRule, CrawlArgs, FormatName, PriorityRule, RenderName, SummaryFormat};

mod access;
mod commands;
mod file;
mod fleet;
mod keys;
mod meant;
mod news;

pub(crate) use self::access::BASIC_AUTH_VARIABLE;
use self::access::{AccessOptions, basic_auth_choice, check_header_text, seed_credentials};
pub(crate) use self::commands::{
    AuditOptions, AuditSettings, ExplainDatabase, ExplainSettings, McpServerSettings, RunsSettings,
    Verbosity, summary_format,
};
pub(crate) use self::file::ConfigFile;
pub(crate) use self::fleet::{
    FleetRunSettings, FleetStatusSettings, FleetSyncSettings, SiteRun, StatusSource, WorkerSettings,
};
use self::meant::check_out_directory;
pub(crate) use sitemapper_site::OutputTarget;
use sitemapper_site::SeedMistake;

/// Everything a crawl run needs, resolved: the site's run, and how the binary reports it.
#[derive(Debug)]
pub(crate) struct CrawlSettings {
    pub(crate) site: SiteSettings,
    pub(crate) summary: SummaryFormat,
}

impl CrawlSettings {
    /// Merges the flags, the config file and the defaults, then checks the result.
    pub(crate) fn resolve(args: CrawlArgs, file: ConfigFile) -> anyhow::Result<CrawlSettings> {
        MergedOptions::merge(args, file)?.check()
    }
}

/// Every option with its value chosen: the flag, else the config file, else the default.
/// Nothing is checked yet: [`MergedOptions::check`] does that, and builds the settings.
#[derive(Debug)]
struct MergedOptions {
    seed: String,
    out: PathBuf,
    state: Option<PathBuf>,
    concurrency: Concurrency,
    max_pages: Option<u64>,
    max_depth: Option<u32>,
    max_requests: Option<u64>,
    max_urls: u64,
    max_pattern_chain: u32,
    /// `None`: the command's default (off for a crawl, on for an audit).
    seed_sitemaps: Option<bool>,
    /// Seconds. `None`: robots.txt Crawl-delay sets the pace.
    delay: Option<f64>,
    user_agent: String,
    ignore_robots: bool,
    allow_subdomains: bool,
    allow_private: bool,
    include: Vec<String>,
    exclude: Vec<String>,
    strip_parameters: Vec<String>,
    /// Seconds. `None`: the crawler's default, which is a `Duration` and needs no check.
    timeout: Option<f64>,
    /// Seconds. `None`: the crawler's default.
    connect_timeout: Option<f64>,
    max_body_size: usize,
    retries: u32,
    render: RenderName,
    chrome: Option<PathBuf>,
    render_concurrency: usize,
    /// Seconds.
    render_timeout: Option<f64>,
    render_other_host_requests: u64,
    gzip: bool,
    base_url: Option<String>,
    max_urls_per_file: usize,
    max_bytes_per_file: u64,
    resume: bool,
    keep_failed: u32,
    max_shrink: u8,
    formats: Vec<FormatName>,
    split_by: Vec<String>,
    images: bool,
    hreflang: bool,
    video: bool,
    news: Option<String>,
    news_language: Option<String>,
    documents: Vec<String>,
    priority: Option<PriorityRule>,
    changefreq: Option<ChangefreqRule>,
    report_changes: Option<PathBuf>,
    list_not_listed: Option<PathBuf>,
    summary: SummaryFormat,
    indexnow_key: Option<String>,
    indexnow_key_location: Option<String>,
    indexnow_endpoint: String,
    /// What a protected site needs and how it is reached, as given.
    access: AccessOptions,
}

impl MergedOptions {
    /// One line a value, in the order of the flags, so that where each comes from reads at
    /// a glance. Fails when there is no seed at all. Numbers are within their ranges already:
    /// clap checks the flags, `ConfigFile` its keys (`cli::values`).
    fn merge(args: CrawlArgs, file: ConfigFile) -> anyhow::Result<MergedOptions> {
        let defaults = CrawlConfig::default();
        let Some(seed) = args.url.or(file.url) else {
            bail!("no URL to crawl: give it after the command (or as `url` in the config file)");
        };
        Ok(MergedOptions {
            seed,
            out: args.out.or(file.out).unwrap_or_else(|| PathBuf::from(".")),
            state: args.state.or(file.state),
            concurrency: args
                .concurrency
                .or(file.concurrency)
                .map_or(defaults.concurrency, Concurrency::from),
            max_pages: args.max_pages.or(file.max_pages),
            max_depth: args.max_depth.or(file.max_depth),
            max_requests: args.max_requests.or(file.max_requests),
            max_urls: args.max_urls.or(file.max_urls).unwrap_or(defaults.max_urls),
            max_pattern_chain: args
                .max_pattern_chain
                .or(file.max_pattern_chain)
                .unwrap_or(defaults.max_pattern_chain),
            seed_sitemaps: args.seed_sitemaps.or(file.seed_sitemaps),
            delay: args.delay.or(file.delay),
            user_agent: args
                .user_agent
                .or(file.user_agent)
                .unwrap_or_else(default_user_agent),
            ignore_robots: switch(args.ignore_robots, file.ignore_robots),
            allow_subdomains: switch(args.allow_subdomains, file.allow_subdomains),
            allow_private: switch(args.allow_private, file.allow_private),
            include: list(args.include, file.include).unwrap_or_default(),
            exclude: list(args.exclude, file.exclude).unwrap_or_default(),
            strip_parameters: list(args.strip_param, file.strip_param)
                .unwrap_or(defaults.strip_parameters),
            timeout: args.timeout.or(file.timeout),
            connect_timeout: args.connect_timeout.or(file.connect_timeout),
            max_body_size: args
                .max_body_size
                .or(file.max_body_size)
                .unwrap_or(defaults.max_body_bytes),
            retries: args.retries.or(file.retries).unwrap_or(defaults.retries),
            render: args.render.or(file.render).unwrap_or(RenderName::Auto),
            chrome: args.chrome.or(file.chrome),
            render_concurrency: args
                .render_concurrency
                .or(file.render_concurrency)
                .unwrap_or(sitemapper_render::DEFAULT_TABS),
            render_timeout: args.render_timeout.or(file.render_timeout),
            render_other_host_requests: args
                .render_other_host_requests
                .or(file.render_other_host_requests)
                .unwrap_or(sitemapper_crawl::DEFAULT_OTHER_HOST_REQUESTS),
            gzip: switch(args.gzip, file.gzip),
            base_url: args.base_url.or(file.base_url),
            max_urls_per_file: args
                .max_urls_per_file
                .or(file.max_urls_per_file)
                .unwrap_or(MAX_URLS_PER_FILE),
            max_bytes_per_file: args
                .max_bytes_per_file
                .or(file.max_bytes_per_file)
                .unwrap_or(MAX_BYTES_PER_FILE),
            resume: switch(args.resume, file.resume),
            keep_failed: args
                .keep_failed
                .or(file.keep_failed)
                .unwrap_or(DEFAULT_KEEP_FAILED),
            max_shrink: args
                .max_shrink
                .map(|percent| percent.0)
                .or(file.max_shrink)
                .unwrap_or(DEFAULT_MAX_SHRINK),
            // An empty list in the config file is no choice of format either.
            formats: list(args.format, file.format)
                .filter(|names| !names.is_empty())
                .unwrap_or_else(|| vec![FormatName::Xml]),
            split_by: list(args.split_by, file.split_by).unwrap_or_default(),
            images: switch(args.images, file.images),
            hreflang: switch(args.hreflang, file.hreflang),
            video: args.video.or(file.video).unwrap_or(false),
            news: args.news.or(file.news),
            news_language: args.news_language.or(file.news_language),
            documents: list(args.documents, file.documents).unwrap_or_default(),
            priority: args.priority.or(file.priority),
            changefreq: args.changefreq.or(file.changefreq),
            report_changes: args.report_changes.or(file.report_changes),
            list_not_listed: args.list_not_listed.or(file.list_not_listed),
            summary: args.summary.or(file.summary).unwrap_or_default(),
            indexnow_key: args.indexnow_key.or(file.indexnow_key),
            indexnow_key_location: args.indexnow_key_location.or(file.indexnow_key_location),
            indexnow_endpoint: args
                .indexnow_endpoint
                .or(file.indexnow_endpoint)
                .unwrap_or_else(|| DEFAULT_INDEXNOW_ENDPOINT.to_string()),
            access: AccessOptions {
                headers: list(args.header, file.header).unwrap_or_default(),
                basic_auth: basic_auth_choice(
                    args.basic_auth,
                    std::env::var(BASIC_AUTH_VARIABLE).ok(),
                    file.basic_auth,
                ),
                cookies: list(args.cookie, file.cookie).unwrap_or_default(),
                proxy: args.proxy.or(file.proxy),
                cacert: args.cacert.or(file.cacert),
                insecure: switch(args.insecure, file.insecure),
                map_hosts: list(args.map_host, file.map_host).unwrap_or_default(),
            },
        })
    }

    /// Checks every value and builds the settings. The checks run in a fixed order, so that
    /// of several mistakes the same one is reported first every time.
    fn check(mut self) -> anyhow::Result<CrawlSettings> {
        if let Some(mistake) = SeedMistake::of(&self.seed) {
            bail!("the seed {} {mistake}", self.seed.trim());
        }
        check_out_directory(&self.out)?;
        let (seed, seed_credentials) = seed_credentials(&self.seed)?;
        self.seed = seed;
        let mut crawl = self.crawl_config()?;
        let split = SplitRule::parse(&self.split_by)?;
        let news = news::news_settings(
            self.news.as_deref(),
            self.news_language.as_deref(),
            &self.formats,
        )?;
        crawl.access = self.access.site_access(seed_credentials)?;
        crawl.network = self.access.network()?;
        crawl.host_map = self.access.host_map()?;
        let base_url = self.base_url.as_deref().map(base_url).transpose()?;
        crawl.published_base = base_url.as_deref().and_then(|text| Url::parse(text).ok());
        let limits = Limits::new(self.max_urls_per_file, self.max_bytes_per_file)
            .map_err(|error| anyhow::anyhow!("{error}"))?;
        self.check_needs_state()?;
        self.check_stdout()?;
        let indexnow = self.indexnow(&crawl)?;
        let render = self.render_settings()?;
        let site = SiteSettings {
            render,
            seed: self.seed,
            out: OutputTarget::from_path(self.out),
            state: self.state,
            crawl,
            gzip: self.gzip,
            base_url,
            limits,
            resume: self.resume,
            report_changes: self.report_changes.map(OutputTarget::from_path),
            list_not_listed: self.list_not_listed.map(OutputTarget::from_path),
            indexnow,
            formats: formats(&self.formats),
            split,
            publishes_sitemaps: true,
            images: self.images,
            hreflang: self.hreflang,
            video: self.video,
            news,
            priority: self.priority.map(PriorityRule::rule),
            changefreq: self.changefreq.map(ChangefreqRule::rule),
            keep_failed: self.keep_failed,
            max_shrink: self.max_shrink,
        };
        Ok(CrawlSettings {
            site,
            summary: self.summary,
        })
    }

    /// The crawler's configuration; the crawl database records links when there is a
    /// `--state` to keep them in, or the sitemaps seed the crawl (the links tell what only
    /// the sitemaps led to).
    fn crawl_config(&self) -> anyhow::Result<CrawlConfig> {
        let delay = self
            .delay
            .map(|seconds| seconds_option("--delay", seconds))
            .transpose()?;
        let addresses = AddressPolicy {
            allow_private: self.allow_private,
            public_exceptions: public_exceptions()?,
        };
        let defaults = CrawlConfig::default();
        let connect_timeout = match self.connect_timeout {
            Some(seconds) => seconds_option("--connect-timeout", seconds)?,
            None => defaults.connect_timeout,
        };
        let request_timeout = match self.timeout {
            Some(seconds) => seconds_option("--timeout", seconds)?,
            None => defaults.request_timeout,
        };
        Ok(CrawlConfig {
            concurrency: self.concurrency,
            max_pages: self.max_pages,
            max_depth: self.max_depth,
            max_requests: self.max_requests,
            max_urls: self.max_urls,
            addresses,
            max_pattern_chain: self.max_pattern_chain,
            delay,
            user_agent: user_agent(&self.user_agent)?,
            respect_robots: !self.ignore_robots,
            connect_timeout,
            request_timeout,
            max_body_bytes: self.max_body_size,
            retries: self.retries,
            scope: self.scope()?,
            strip_parameters: self.strip_parameters.clone(),
            seed_sitemaps: self.seed_sitemaps.unwrap_or(false),
            record_links: self.state.is_some() || self.seed_sitemaps.unwrap_or(false),
            collect_images: self.images,
            collect_alternates: self.hreflang,
            max_url_length: sitemapper_sitemap::MAX_URL_LENGTH,
            render: self.render.into(),
            render_other_host_requests: self.render_other_host_requests,
            documents: documents(&self.documents)?,
            ..defaults
        })
    }

    fn render_settings(&self) -> anyhow::Result<RenderSettings> {
        let timeout = match self.render_timeout {
            Some(seconds) => seconds_option("--render-timeout", seconds)?,
            None => sitemapper_render::DEFAULT_TIMEOUT,
        };
        Ok(RenderSettings {
            chrome: self.chrome.clone(),
            tabs: self.render_concurrency,
            timeout,
        })
    }

    fn scope(&self) -> anyhow::Result<ScopeOptions> {
        Ok(ScopeOptions {
            allow_subdomains: self.allow_subdomains,
            include: compile_patterns("--include", &self.include)?,
            exclude: compile_patterns("--exclude", &self.exclude)?,
        })
    }

    /// The options that build on earlier runs need the crawl database that keeps them.
    fn check_needs_state(&self) -> anyhow::Result<()> {
        if self.changefreq.is_some() && self.state.is_none() {
            bail!("--changefreq observed needs --state: changes are observed across runs");
        }
        if self.resume && self.state.is_none() {
            bail!("--resume needs --state: the interrupted run is kept in the crawl database");
        }
        Ok(())
    }

    /// Stdout carries one thing the user asked for; `--out -` prints one uncompressed format.
    fn check_stdout(&self) -> anyhow::Result<()> {
        let dash =
            |path: &Option<PathBuf>| path.as_ref().is_some_and(|path| path.as_os_str() == "-");
        let out = self.out.as_os_str() == "-";
        let writers: Vec<&str> = [
            (out, "--out -"),
            (dash(&self.report_changes), "--report-changes -"),
            (dash(&self.list_not_listed), "--list-not-listed -"),
            (self.summary == SummaryFormat::Json, "--summary json"),
        ]
        .into_iter()
        .filter_map(|(writes, name)| writes.then_some(name))
        .collect();
        if writers.len() > 1 {
            bail!(
                "{} all write to stdout: choose one, and give the others a file",
                writers.join(", ")
            );
        }
        if out && formats(&self.formats).len() > 1 {
            bail!("--out - prints one sitemap: give --format xml or --format txt, not both");
        }
        if out && self.gzip {
            bail!("--out - prints an uncompressed sitemap: --gzip needs --out DIR");
        }
        if out && !self.split_by.is_empty() {
            bail!("--out - prints one sitemap: --split-by writes several files, give --out DIR");
        }
        if out && self.news.is_some() {
            bail!("--out - prints one sitemap: --news writes sitemap-news.xml too, give --out DIR");
        }
        Ok(())
    }

    /// IndexNow is notified when a key is given; the other IndexNow options count only then.
    fn indexnow(&self, crawl: &CrawlConfig) -> anyhow::Result<Option<IndexNow>> {
        let Some(key) = &self.indexnow_key else {
            return Ok(None);
        };
        Ok(Some(IndexNow {
            key: indexnow_key(key)?,
            key_location: self
                .indexnow_key_location
                .as_deref()
                .map(|text| absolute_url("--indexnow-key-location", text))
                .transpose()?,
            endpoint: absolute_url("--indexnow-endpoint", &self.indexnow_endpoint)?,
            user_agent: self.user_agent.clone(),
            network: crawl.network.clone(),
            host_map: crawl.host_map.clone(),
        }))
    }
}

/// A switch is on when its flag is given or the config file turns it on: there is no flag
/// to turn off what the file turns on.
fn switch(flag: bool, file: Option<bool>) -> bool {
    flag || file.unwrap_or(false)
}

/// A repeatable flag given at least once replaces the config file's list (it does not add
/// to it).
fn list<T>(flags: Vec<T>, file: Option<Vec<T>>) -> Option<Vec<T>> {
    if flags.is_empty() { file } else { Some(flags) }
}

/// The formats to write, without repeats, XML first.
fn formats(names: &[FormatName]) -> Vec<Format> {
    let mut formats: Vec<Format> = names
        .iter()
        .map(|name| match name {
            FormatName::Xml => Format::Xml,
            FormatName::Txt => Format::Text,
        })
        .collect();
    formats.sort_by_key(|format| *format != Format::Xml);
    formats.dedup();
    formats
}

/// The environment variable that names addresses to treat as public. It exists for the test
/// suite, which can only play a public site on a loopback address; it is not documented
/// for users, who have --allow-private, and release builds ignore it, so that no variable
/// left in an environment can open the private networks behind the user's back.
const PUBLIC_EXCEPTIONS_VARIABLE: &str = "SITEMAPPER_TEST_PUBLIC_ADDRESSES";

fn public_exceptions() -> anyhow::Result<Vec<std::net::IpAddr>> {
    if !cfg!(debug_assertions) {
        return Ok(Vec::new());
    }
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

/// Seconds as a duration. The value is within its option's range already (`cli::values`);
/// the conversion still refuses what no duration can be rather than panic.
pub(super) fn seconds_option(name: &str, seconds: f64) -> anyhow::Result<Duration> {
    Duration::try_from_secs_f64(seconds)
        .map_err(|_| anyhow::anyhow!("{name} must be a number of seconds, not {seconds}"))
}

/// The document types `--documents` names (`pdf`, `docx`, ...), each as its kind.
fn documents(names: &[String]) -> anyhow::Result<Documents> {
    let kinds = names
        .iter()
        .map(|name| {
            DocumentKind::named(name).with_context(|| {
                let accepted: Vec<&str> =
                    DocumentKind::ALL.iter().map(|kind| kind.name()).collect();
                format!(
                    "--documents: {name:?} is not a document type; accepted: {}",
                    accepted.join(", ")
                )
            })
        })
        .collect::<anyhow::Result<Vec<DocumentKind>>>()?;
    Ok(Documents::new(kinds))
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

/// The `User-Agent` header: no line break or NUL (`check_header_text`), nor any other control
/// character but a tab, which RFC 9110 (section 5.5) leaves out of a field value and the HTTP
/// client refuses.
fn user_agent(text: &str) -> anyhow::Result<String> {
    check_header_text("--user-agent", text)?;
    if text
        .chars()
        .any(|character| character.is_control() && character != '\t')
    {
        bail!("invalid --user-agent: it holds a control character, which an HTTP header cannot");
    }
    Ok(text.to_string())
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
    let mut text = String::from(absolute_url("--base-url", text)?);
    if !text.ends_with('/') {
        text.push('/');
    }
    Ok(text)
}

#[cfg(test)]
mod tests;
