//! The config file: where it is found, how much of it is read, and its keys (every option of
//! every command, each named exactly as its long flag).

use std::io::Read;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use serde::Deserialize;

use crate::cli::{
    ChangefreqRule, ColorName, ConcurrencyName, FormatName, PriorityRule, RenderName, SeverityName,
    SummaryFormat,
};

/// The config file read when none is named, if it is there.
pub(crate) const DEFAULT_CONFIG_FILE: &str = "sitemapper.toml";

/// The config file: every option of every command, each key the option's long flag name.
/// A key a command has no flag for is left to the commands that have it (`report` is the
/// audit's, `state` is also the runs'), so that one file serves them all.
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
    pub(super) format: Option<Vec<FormatName>>,
    pub(super) split_by: Option<Vec<String>>,
    pub(super) images: Option<bool>,
    pub(super) hreflang: Option<bool>,
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
    pub(super) extract: Option<Vec<String>>,
    pub(super) sitemap: Option<Vec<String>>,
    pub(super) title: Option<String>,
    pub(super) logo: Option<PathBuf>,
    pub(super) pdf: Option<bool>,
    // fleet and worker.
    pub(super) state_dir: Option<PathBuf>,
    pub(super) sites_at_once: Option<usize>,
    pub(super) site: Option<Vec<String>>,
    pub(super) all: Option<bool>,
    pub(super) queue: Option<String>,
    pub(super) name: Option<String>,
    pub(super) lease: Option<f64>,
    pub(super) checkpoint: Option<f64>,
    pub(super) max_sites: Option<u64>,
    pub(super) once: Option<bool>,
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
