//! The config file: where it is found, how much of it is read, and its keys (every option of
//! every command, each named exactly as its long flag).

use std::io::Read;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use serde::Deserialize;

use super::keys::{field_names, nearest_key};
use crate::cli::values::{
    CHECKPOINT, CONCURRENCY, CONNECT_TIMEOUT, DEEP, DELAY, EXTERNAL_MAX_LINKS, EXTERNAL_MAX_TIME,
    EXTERNAL_TIMEOUT, KEEP_FAILED, LARGE, LEASE, MAX_BODY_SIZE, MAX_BYTES_PER_FILE, MAX_DEPTH,
    MAX_PAGES, MAX_PATTERN_CHAIN, MAX_REQUESTS, MAX_SHRINK, MAX_SITES, MAX_TIME, MAX_URLS,
    MAX_URLS_PER_FILE, OutOfRange, PER_SERVER, RENDER_CONCURRENCY, RENDER_OTHER_HOST_REQUESTS,
    RENDER_TIMEOUT, RETRIES, SITES_AT_ONCE, SLOW, TIMEOUT, VERBOSE,
};
use crate::cli::{
    ChangefreqRule, ColorName, ConcurrencyName, FormatName, PaperName, PriorityRule, RenderName,
    ServersByName, SeverityName, SummaryFormat,
};

/// The config file read when none is named, if it is there.
pub(crate) const DEFAULT_CONFIG_FILE: &str = "sitemapper.toml";

/// The config file: every option of every command, each key the option's long flag name.
/// A key a command has no flag for is left to the commands that have it (`report` is the
/// audit's, `state` is also the runs'), so that one file serves them all. serde reads each
/// value as its type; [`ConfigFile::out_of_range`] checks the numbers against their options'
/// ranges, as every reader of a config file (`ConfigFile::find`, a fleet's sites) does.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(crate) struct ConfigFile {
    // Every command.
    pub(super) color: Option<ColorName>,
    pub(super) quiet: Option<bool>,
    pub(super) verbose: Option<u8>,
    // crawl and audit.
    pub(super) url: Option<String>,
    pub(super) out: Option<PathBuf>,
    pub(super) state: Option<PathBuf>,
    // explain.
    pub(super) fleet: Option<PathBuf>,
    // mcp.
    pub(super) allow_dir: Option<Vec<PathBuf>>,
    pub(super) max_time: Option<u64>,
    pub(super) concurrency: Option<ConcurrencyName>,
    pub(super) max_pages: Option<u64>,
    pub(super) max_depth: Option<u32>,
    pub(super) max_requests: Option<u64>,
    pub(super) max_urls: Option<u64>,
    pub(super) max_pattern_chain: Option<u32>,
    pub(super) seed_sitemaps: Option<bool>,
    pub(super) delay: Option<f64>,
    pub(super) user_agent: Option<String>,
    pub(super) ignore_robots: Option<bool>,
    pub(super) allow_subdomains: Option<bool>,
    pub(super) allow_private: Option<bool>,
    pub(super) include: Option<Vec<String>>,
    pub(super) exclude: Option<Vec<String>>,
    // The key before it was named as the flag is.
    #[serde(alias = "strip-params")]
    pub(super) strip_param: Option<Vec<String>>,
    pub(super) timeout: Option<f64>,
    pub(super) connect_timeout: Option<f64>,
    pub(super) max_body_size: Option<usize>,
    pub(super) retries: Option<u32>,
    pub(super) render: Option<RenderName>,
    pub(super) chrome: Option<PathBuf>,
    pub(super) render_concurrency: Option<usize>,
    pub(super) render_timeout: Option<f64>,
    pub(super) render_other_host_requests: Option<u64>,
    pub(super) gzip: Option<bool>,
    pub(super) base_url: Option<String>,
    pub(super) max_urls_per_file: Option<usize>,
    pub(super) max_bytes_per_file: Option<u64>,
    pub(super) resume: Option<bool>,
    pub(super) keep_failed: Option<u32>,
    pub(super) max_shrink: Option<u8>,
    pub(super) format: Option<Vec<FormatName>>,
    pub(super) split_by: Option<Vec<String>>,
    pub(super) images: Option<bool>,
    pub(super) hreflang: Option<bool>,
    pub(super) video: Option<bool>,
    pub(super) news: Option<String>,
    pub(super) news_language: Option<String>,
    pub(super) documents: Option<Vec<String>>,
    pub(super) priority: Option<PriorityRule>,
    pub(super) changefreq: Option<ChangefreqRule>,
    pub(super) report_changes: Option<PathBuf>,
    pub(super) list_not_listed: Option<PathBuf>,
    pub(super) summary: Option<SummaryFormat>,
    pub(super) indexnow_key: Option<String>,
    pub(super) indexnow_key_location: Option<String>,
    pub(super) indexnow_endpoint: Option<String>,
    pub(super) header: Option<Vec<String>>,
    pub(super) basic_auth: Option<String>,
    pub(super) cookie: Option<Vec<String>>,
    pub(super) proxy: Option<String>,
    pub(super) cacert: Option<PathBuf>,
    pub(super) insecure: Option<bool>,
    pub(super) map_host: Option<Vec<String>>,
    // audit.
    pub(super) report: Option<PathBuf>,
    pub(super) fail_on: Option<SeverityName>,
    pub(super) deep: Option<u32>,
    pub(super) slow: Option<u64>,
    pub(super) large: Option<u64>,
    pub(super) threshold: Option<Vec<String>>,
    pub(super) extract: Option<Vec<String>>,
    pub(super) sitemap: Option<Vec<String>>,
    pub(super) title: Option<String>,
    pub(super) logo: Option<PathBuf>,
    pub(super) pdf: Option<bool>,
    pub(super) sarif: Option<PathBuf>,
    pub(super) junit: Option<PathBuf>,
    pub(super) csv_bom: Option<bool>,
    pub(super) check_external: Option<bool>,
    pub(super) external_timeout: Option<f64>,
    pub(super) external_max_age: Option<String>,
    pub(super) external_max_links: Option<usize>,
    pub(super) external_max_time: Option<f64>,
    pub(super) paper: Option<PaperName>,
    // fleet and worker.
    pub(super) state_dir: Option<PathBuf>,
    pub(super) sites_at_once: Option<usize>,
    pub(super) per_server: Option<u32>,
    pub(super) servers_by: Option<ServersByName>,
    pub(super) metrics: Option<std::net::SocketAddr>,
    pub(super) metrics_file: Option<PathBuf>,
    pub(super) site: Option<Vec<String>>,
    pub(super) all: Option<bool>,
    pub(super) queue: Option<String>,
    pub(super) name: Option<String>,
    pub(super) lease: Option<f64>,
    pub(super) checkpoint: Option<f64>,
    pub(super) max_sites: Option<u64>,
    pub(super) once: Option<bool>,
    pub(super) check: Option<bool>,
}

/// The largest config file read. Every option with long lists fits in far less: anything
/// larger is a mistake, not a config, and must not cost unbounded memory.
const MAX_CONFIG_BYTES: u64 = 1024 * 1024;

/// The config file a run reads, and whether it was found here rather than named. It is found
/// before logging is set up (it holds `quiet` and `verbose`), so what finding it has to say
/// waits for [`FoundConfig::log`].
#[derive(Debug)]
pub(crate) struct FoundConfig {
    pub(crate) file: ConfigFile,
    found_here: bool,
}

impl FoundConfig {
    /// Logs where the config file came from, once the subscriber is installed.
    pub(crate) fn log(&self) {
        if self.found_here {
            tracing::debug!(
                path = DEFAULT_CONFIG_FILE,
                "read the config file found here"
            );
        }
    }
}

impl ConfigFile {
    /// The config file named by `--config` (or `SITEMAPPER_CONFIG`), else `./sitemapper.toml`
    /// when there is one, else none (every key unset). A named file must exist.
    pub(crate) fn find(named: Option<&Path>) -> anyhow::Result<FoundConfig> {
        if let Some(path) = named {
            return Ok(FoundConfig {
                file: ConfigFile::load(path)?,
                found_here: false,
            });
        }
        let default = Path::new(DEFAULT_CONFIG_FILE);
        if default.is_file() {
            return Ok(FoundConfig {
                file: ConfigFile::load(default)?,
                found_here: true,
            });
        }
        Ok(FoundConfig {
            file: ConfigFile::default(),
            found_here: false,
        })
    }

    fn load(path: &Path) -> anyhow::Result<ConfigFile> {
        ConfigFile::parse(path, &read_config(path)?)
    }

    /// The config file `text`, read from `path` (named in errors, with the line).
    pub(super) fn parse(path: &Path, text: &str) -> anyhow::Result<ConfigFile> {
        let file: ConfigFile = toml::from_str(text).map_err(|error| {
            // serde's message lists every key after an unknown one: the nearest says more.
            if let Some((key, line)) = unknown_key(text) {
                return anyhow::anyhow!(
                    "invalid config file {}, line {line}: unknown key `{key}`: {}",
                    path.display(),
                    meant_key(&key)
                );
            }
            // toml's message spans several lines (a source excerpt); keep the first.
            let message = error
                .message()
                .lines()
                .next()
                .unwrap_or("invalid TOML")
                .to_string();
            let location = error
                .span()
                .map(|span| line_of(text, span.start))
                .map_or(String::new(), |line| format!(", line {line}"));
            anyhow::anyhow!(
                "invalid config file {}{location}: {message}",
                path.display()
            )
        })?;
        if let Some(error) = file.out_of_range() {
            let location =
                key_line(text, error.name()).map_or(String::new(), |line| format!(", line {line}"));
            bail!("invalid config file {}{location}: {error}", path.display());
        }
        Ok(file)
    }

    /// The first number outside its option's range (in the order of the options, not of the
    /// file: a key is written once, and the message names it).
    pub(super) fn out_of_range(&self) -> Option<OutOfRange> {
        [
            VERBOSE.check(self.verbose),
            CONCURRENCY.check(self.concurrency),
            MAX_PAGES.check(self.max_pages),
            MAX_DEPTH.check(self.max_depth),
            MAX_REQUESTS.check(self.max_requests),
            MAX_URLS.check(self.max_urls),
            MAX_PATTERN_CHAIN.check(self.max_pattern_chain),
            DELAY.check(self.delay),
            TIMEOUT.check(self.timeout),
            CONNECT_TIMEOUT.check(self.connect_timeout),
            MAX_BODY_SIZE.check(self.max_body_size),
            RETRIES.check(self.retries),
            KEEP_FAILED.check(self.keep_failed),
            MAX_SHRINK.check(self.max_shrink),
            RENDER_CONCURRENCY.check(self.render_concurrency),
            RENDER_TIMEOUT.check(self.render_timeout),
            RENDER_OTHER_HOST_REQUESTS.check(self.render_other_host_requests),
            MAX_URLS_PER_FILE.check(self.max_urls_per_file),
            MAX_BYTES_PER_FILE.check(self.max_bytes_per_file),
            DEEP.check(self.deep),
            SLOW.check(self.slow),
            LARGE.check(self.large),
            EXTERNAL_TIMEOUT.check(self.external_timeout),
            EXTERNAL_MAX_LINKS.check(self.external_max_links),
            EXTERNAL_MAX_TIME.check(self.external_max_time),
            SITES_AT_ONCE.check(self.sites_at_once),
            PER_SERVER.check(self.per_server),
            LEASE.check(self.lease),
            CHECKPOINT.check(self.checkpoint),
            MAX_SITES.check(self.max_sites),
            MAX_TIME.check(self.max_time),
        ]
        .into_iter()
        .find_map(Result::err)
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

/// Every key of the config file (aliases included), as serde reads them.
pub(super) fn config_keys() -> &'static [&'static str] {
    field_names::<ConfigFile>()
}

/// The first key of `text`, in the file's order, that the config file does not have, and
/// its line.
fn unknown_key(text: &str) -> Option<(String, usize)> {
    let table = toml::de::DeTable::parse(text).ok()?;
    let keys = config_keys();
    table
        .get_ref()
        .iter()
        .filter(|(name, _)| !keys.contains(&name.get_ref().as_ref()))
        .map(|(name, _)| (name.get_ref().to_string(), line_of(text, name.span().start)))
        .min_by_key(|(_, line)| *line)
}

/// The key probably meant by the unknown `key`, else where the keys are listed.
fn meant_key(key: &str) -> String {
    match nearest_key(key, config_keys().iter().copied()) {
        Some(meant) => format!("did you mean `{meant}`?"),
        None => "each key is an option's long name, as `sitemapper crawl --help` lists them \
                 (config/example.toml has them all)"
            .to_string(),
    }
}

/// The line of the top-level key `key` in `text`, a config file that parses.
fn key_line(text: &str, key: &str) -> Option<usize> {
    let table = toml::de::DeTable::parse(text).ok()?;
    table
        .get_ref()
        .iter()
        .find(|(name, _)| name.get_ref().as_ref() == key)
        .map(|(name, _)| line_of(text, name.span().start))
}

fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}
