//! The settings of a fleet's site: its crawl options from the fleet file, checked as a
//! config file's are (the same keys, the same rules), with what the fleet manages itself (the
//! crawl database, resuming, the summary) set by the fleet. A mistake names the fleet file,
//! the site and the line.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::bail;
use sitemapper_crawl::ServersBy;
use sitemapper_fleet::{
    DEFAULT_CHECKPOINT, DEFAULT_LEASE, DEFAULT_PER_SERVER, DEFAULT_SITES_AT_ONCE, FLEET_KEYS,
    FilePart, Fleet, FleetFileError, SiteChoice, SiteOption, SiteSpec, WorkerPlan, check_name,
};
use sitemapper_site::SeedMistake;

use super::file::config_keys;
use super::keys::nearest_key;
use super::{
    ConfigFile, CrawlSettings, MergedOptions, OutputTarget, list, seconds_option, summary_format,
};
use crate::cli::{
    CrawlArgs, FleetRunArgs, FleetStatusArgs, FleetSyncArgs, ServersByName, SummaryFormat,
    WorkerArgs,
};

/// Keys a site cannot set, and why.
const MANAGED_KEYS: &[(&str, &str)] = &[
    (
        "state",
        "the fleet keeps each site's crawl database in its state directory",
    ),
    ("resume", "the fleet continues interrupted runs by itself"),
    ("summary", "the fleet reports every site in its own summary"),
    ("color", "a setting of the process, not of a site"),
    ("quiet", "a setting of the process, not of a site"),
    ("verbose", "a setting of the process, not of a site"),
    ("report", "an audit option: a fleet crawls"),
    ("fail-on", "an audit option: a fleet crawls"),
    ("deep", "an audit option: a fleet crawls"),
    ("slow", "an audit option: a fleet crawls"),
    ("large", "an audit option: a fleet crawls"),
    ("extract", "an audit option: a fleet crawls"),
    ("sitemap", "an audit option: a fleet crawls"),
    ("title", "an audit option: a fleet crawls"),
    ("logo", "an audit option: a fleet crawls"),
    ("pdf", "an audit option: a fleet crawls"),
    ("sarif", "an audit option: a fleet crawls"),
    ("junit", "an audit option: a fleet crawls"),
    ("csv-bom", "an audit option: a fleet crawls"),
    ("check-external", "an audit option: a fleet crawls"),
    ("external-timeout", "an audit option: a fleet crawls"),
    ("external-max-age", "an audit option: a fleet crawls"),
    ("paper", "an audit option: a fleet crawls"),
];

/// How a fleet's site runs this time.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SiteRun<'a> {
    /// The site's crawl database.
    pub(crate) state: &'a Path,
    /// Continue the site's interrupted run.
    pub(crate) resume: bool,
}

impl CrawlSettings {
    /// The settings of `site` of the fleet file `fleet` (named in errors), run as `run` says.
    pub(crate) fn for_fleet_site(
        fleet: &Path,
        site: &SiteSpec,
        run: SiteRun<'_>,
    ) -> anyhow::Result<CrawlSettings> {
        let at = |line: usize| place(fleet, &FilePart::Site(site.name.clone()), line);
        // An option `[defaults]` gave is blamed on `[defaults]`, not on the first site.
        let at_option = |option: &SiteOption| place(fleet, &site.part_of(option), option.line);
        for (key, option) in &site.options {
            if let Some((_, why)) = MANAGED_KEYS.iter().find(|(managed, _)| managed == key) {
                bail!(
                    "{}: `{key}` cannot be set for a site: {why}",
                    at_option(option)
                );
            }
            if !config_keys().contains(&key.as_str()) {
                bail!(
                    "{}: unknown option `{key}`: {}",
                    at_option(option),
                    meant_site_key(key)
                );
            }
            let single = toml::Table::from_iter([(key.clone(), option.value.clone())]);
            if let Err(error) = config_file(single) {
                bail!("{}: {error}", at_option(option));
            }
        }
        let mut file = config_file(site.options_table())
            .map_err(|error| anyhow::anyhow!("{}: {error}", at(site.line)))?;
        if site.out.as_os_str() == "-" {
            bail!(
                "{}: `out` is a directory: a fleet's sites cannot write to stdout",
                at(site.line)
            );
        }
        file.url = Some(site.url.clone());
        file.out = Some(site.out.clone());
        file.state = Some(run.state.to_path_buf());
        file.resume = Some(run.resume);
        MergedOptions::merge(CrawlArgs::default(), file)
            .and_then(MergedOptions::check)
            .map_err(|error| anyhow::anyhow!("{}: {error:#}", at(site.line)))
    }
}

/// The key of a site probably meant by the unknown `key` (one of the fleet's own, or a
/// crawl option a site may set), else what a site takes.
fn meant_site_key(key: &str) -> String {
    let site_keys = FLEET_KEYS.iter().chain(
        config_keys()
            .iter()
            .filter(|key| MANAGED_KEYS.iter().all(|(managed, _)| managed != *key)),
    );
    match nearest_key(key, site_keys.copied()) {
        Some(meant) => format!("did you mean `{meant}`?"),
        None => format!(
            "a site takes `{}` and the crawl's options, as `sitemapper crawl --help` lists \
             them (config/fleet.example.toml shows a fleet)",
            FLEET_KEYS.join("`, `")
        ),
    }
}

/// The crawl options of a site read as a config file's keys (each known: `for_fleet_site`
/// checks), numbers within their ranges.
fn config_file(table: toml::Table) -> anyhow::Result<ConfigFile> {
    let file = toml::Value::Table(table)
        .try_into::<ConfigFile>()
        .map_err(|error| {
            let message = error.message().lines().next().unwrap_or("invalid option");
            anyhow::anyhow!("{}", message.replace("field", "option"))
        })?;
    match file.out_of_range() {
        Some(error) => bail!("{error}"),
        None => Ok(file),
    }
}

/// `invalid fleet file F, site "S", line N` (or `[defaults], line N`), or without the line
/// for a site read back from the queue (whose fleet file is elsewhere).
fn place(fleet: &Path, part: &FilePart, line: usize) -> String {
    let part = part.to_string();
    let part = part.trim_end_matches(", ");
    if line == 0 {
        part.to_string()
    } else {
        format!(
            "invalid fleet file {}, {part}, line {line}",
            fleet.display()
        )
    }
}

/// What `sitemapper fleet run` needs.
#[derive(Debug)]
pub(crate) struct FleetRunSettings {
    pub(crate) fleet: Fleet,
    pub(crate) state_dir: PathBuf,
    pub(crate) sites_at_once: usize,
    /// How many sites of one server run at once, and what makes one.
    pub(crate) servers: ServerLimit,
    pub(crate) choice: SiteChoice,
    /// `--report`: where the JSON report goes.
    pub(crate) report: Option<OutputTarget>,
    /// `--metrics-file`: where the run's metrics are written.
    pub(crate) metrics_file: Option<PathBuf>,
}

impl FleetRunSettings {
    pub(crate) fn resolve(
        args: FleetRunArgs,
        file: ConfigFile,
    ) -> anyhow::Result<FleetRunSettings> {
        let fleet = load_fleet(&args.fleet)?;
        let choice = match (
            args.all || file.all.unwrap_or(false),
            list(args.sites, file.site).unwrap_or_default(),
        ) {
            (true, _) => SiteChoice::All,
            (false, names) if names.is_empty() => SiteChoice::Due,
            (false, names) => {
                if let Some(unknown) = names.iter().find(|name| fleet.site(name).is_none()) {
                    bail!(
                        "--site {unknown}: no such site in {} (its sites: {})",
                        fleet.path.display(),
                        shown_names(&fleet)
                    );
                }
                SiteChoice::Named(names)
            }
        };
        Ok(FleetRunSettings {
            state_dir: (args.state_dir.or(file.state_dir)).unwrap_or_else(|| fleet.state_dir()),
            fleet,
            sites_at_once: args
                .servers
                .sites_at_once
                .or(file.sites_at_once)
                .unwrap_or(DEFAULT_SITES_AT_ONCE),
            servers: ServerLimit::resolve(
                args.servers.per_server.or(file.per_server),
                args.servers.servers_by.or(file.servers_by),
            ),
            choice,
            report: args.report.map(OutputTarget::from_path),
            metrics_file: args
                .metrics_file
                .or(file.metrics_file)
                .map(checked_metrics_file)
                .transpose()?,
        })
    }
}

/// Where `fleet status` reads from.
#[derive(Debug)]
pub(crate) enum StatusSource {
    /// The state directory of `fleet run`, for the sites of the fleet file.
    Local { fleet: Fleet, state_dir: PathBuf },
    /// The queue's registry.
    Queue { url: String },
}

/// What `sitemapper fleet status` needs.
#[derive(Debug)]
pub(crate) struct FleetStatusSettings {
    pub(crate) source: StatusSource,
    pub(crate) summary: SummaryFormat,
    /// `--check`: say whether every site is well, for monitoring, instead of the table.
    pub(crate) check: bool,
}

impl FleetStatusSettings {
    pub(crate) fn resolve(
        args: FleetStatusArgs,
        file: ConfigFile,
    ) -> anyhow::Result<FleetStatusSettings> {
        let summary = summary_format(args.summary, &file);
        let source = match (args.queue, args.fleet) {
            (Some(url), fleet) => {
                if let Some(path) = fleet {
                    load_fleet(&path)?;
                }
                StatusSource::Queue { url }
            }
            (None, Some(path)) => {
                let fleet = load_fleet(&path)?;
                StatusSource::Local {
                    state_dir: (args.state_dir.or(file.state_dir))
                        .unwrap_or_else(|| fleet.state_dir()),
                    fleet,
                }
            }
            (None, None) => match file.queue {
                Some(url) => StatusSource::Queue { url },
                None => bail!("no fleet: give the fleet file, or --queue URL"),
            },
        };
        Ok(FleetStatusSettings {
            source,
            summary,
            check: args.check || file.check.unwrap_or(false),
        })
    }
}

/// What `sitemapper fleet sync` needs.
#[derive(Debug)]
pub(crate) struct FleetSyncSettings {
    pub(crate) fleet: Fleet,
    pub(crate) queue: String,
}

impl FleetSyncSettings {
    pub(crate) fn resolve(
        args: FleetSyncArgs,
        file: ConfigFile,
    ) -> anyhow::Result<FleetSyncSettings> {
        let queue = args.queue.or(file.queue).ok_or_else(no_queue)?;
        Ok(FleetSyncSettings {
            fleet: load_fleet(&args.fleet)?,
            queue,
        })
    }
}

/// What `sitemapper worker` needs.
#[derive(Debug)]
pub(crate) struct WorkerSettings {
    pub(crate) queue: String,
    pub(crate) name: String,
    pub(crate) state_dir: PathBuf,
    pub(crate) sites_at_once: usize,
    /// How many sites of one server are crawled at once, by all the workers of the queue,
    /// and what makes one.
    pub(crate) servers: ServerLimit,
    /// `--metrics`: where the worker serves its metrics.
    pub(crate) metrics: Option<std::net::SocketAddr>,
    pub(crate) lease: Duration,
    pub(crate) checkpoint: Duration,
    pub(crate) max_sites: Option<u64>,
    pub(crate) once: bool,
}

impl WorkerSettings {
    /// Whether the worker runs a batch of sites and ends (`--once`, `--max-sites`) rather
    /// than serving until it is stopped.
    pub(crate) fn batch(&self) -> bool {
        self.once || self.max_sites.is_some()
    }
}

impl WorkerSettings {
    pub(crate) fn resolve(args: WorkerArgs, file: ConfigFile) -> anyhow::Result<WorkerSettings> {
        let queue = args.queue.or(file.queue).ok_or_else(no_queue)?;
        let name = match args.name.or(file.name) {
            Some(name) => {
                check_name(&name).map_err(|message| anyhow::anyhow!("--name: {message}"))?;
                name
            }
            None => WorkerPlan::default_name(),
        };
        let lease = match args.lease.or(file.lease) {
            Some(seconds) => seconds_option("--lease", seconds)?,
            None => DEFAULT_LEASE,
        };
        let checkpoint = match args.checkpoint.or(file.checkpoint) {
            Some(seconds) => seconds_option("--checkpoint", seconds)?,
            None => DEFAULT_CHECKPOINT,
        };
        let state_dir = args
            .state_dir
            .or(file.state_dir)
            .unwrap_or_else(|| WorkerPlan::default_state_dir(&name));
        Ok(WorkerSettings {
            queue,
            state_dir,
            sites_at_once: args
                .servers
                .sites_at_once
                .or(file.sites_at_once)
                .unwrap_or(DEFAULT_SITES_AT_ONCE),
            servers: ServerLimit::resolve(
                args.servers.per_server.or(file.per_server),
                args.servers.servers_by.or(file.servers_by),
            ),
            metrics: args.metrics.or(file.metrics),
            lease,
            checkpoint,
            max_sites: args.max_sites.or(file.max_sites),
            once: args.once || file.once.unwrap_or(false),
            name,
        })
    }
}

/// How a fleet keeps to its servers: how many sites of one run at once, and what makes two
/// sites one server.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ServerLimit {
    pub(crate) per_server: u32,
    pub(crate) servers_by: ServersBy,
}

impl ServerLimit {
    /// The limit as the command line or the config file sets it, else the defaults.
    fn resolve(per_server: Option<u32>, servers_by: Option<ServersByName>) -> ServerLimit {
        ServerLimit {
            per_server: per_server.unwrap_or(DEFAULT_PER_SERVER),
            servers_by: servers_by.unwrap_or_default().servers_by(),
        }
    }
}

/// `--metrics-file`, refused before the run when its directory is not there: the run's metrics
/// are written at its end, and lost then.
fn checked_metrics_file(path: PathBuf) -> anyhow::Result<PathBuf> {
    let directory = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    if !directory.is_dir() {
        bail!(
            "--metrics-file {}: no such directory {}",
            path.display(),
            directory.display()
        );
    }
    if path.is_dir() {
        bail!("--metrics-file {}: a directory, not a file", path.display());
    }
    Ok(path)
}

fn no_queue() -> anyhow::Error {
    anyhow::anyhow!("no queue: give --queue postgres://... (or `queue` in the config file)")
}

/// Reads the fleet file and checks every site's settings, so that a mistake in any site
/// stops the command before a request.
fn load_fleet(path: &Path) -> anyhow::Result<Fleet> {
    let fleet = Fleet::load(path).map_err(fleet_file_error)?;
    for site in &fleet.sites {
        let run = SiteRun {
            state: Path::new("crawl.db"),
            resume: false,
        };
        CrawlSettings::for_fleet_site(&fleet.path, site, run)?;
    }
    Ok(fleet)
}

/// A fleet file's mistake; a site's `url` typed without its scheme, or given as a file,
/// says what it was probably meant to be.
fn fleet_file_error(error: FleetFileError) -> anyhow::Error {
    if let FleetFileError::Url {
        path,
        line,
        error: url,
    } = &error
        && let Some(mistake) = SeedMistake::of(url.text())
    {
        return anyhow::anyhow!(
            "invalid fleet file {}, line {line}: `url` {:?} {mistake}",
            path.display(),
            url.text()
        );
    }
    error.into()
}

fn shown_names(fleet: &Fleet) -> String {
    let names: Vec<&str> = fleet.names().into_iter().take(10).collect();
    let more = fleet.sites.len().saturating_sub(names.len());
    if more == 0 {
        names.join(", ")
    } else {
        format!("{}, and {more} more", names.join(", "))
    }
}

#[cfg(test)]
mod tests;
