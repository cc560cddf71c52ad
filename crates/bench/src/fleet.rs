//! The fleet benchmark (`--fleet SITES --fleet-pages PAGES`): SITES generated sites of PAGES
//! pages, each served on its own port of 127.0.0.1, written into one fleet file, and crawled by
//! `sitemapper fleet run --all` in one process; by one `sitemapper crawl` per site without a
//! crawl database kept, as many at once as `fleet run` runs sites, the cost a fleet is
//! measured against; and, with `--queue`, synced into an emptied
//! PostgreSQL queue and crawled by one worker, then by three at once (`worker --once`). Every
//! site's sitemap must list exactly the generator's expected URLs for that site, and in the
//! queue every site must have been run once, by one worker. The cases alternate run by run,
//! each taking the lead in turn, so that drift in the machine's load hits them all.

use std::collections::BTreeSet;
use std::ffi::OsString;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use anyhow::{Context, bail};

use crate::binary::{Binary, say};
use crate::cpu_account::{CpuSnapshot, CpuSpent, Postgres};
use crate::crawl_run::listed_urls;
use crate::fleet_processes::{Launch, ProcessesMeasure, run_at_most, run_together};
use crate::psql::{psql, succeeded};
use crate::server::Server;
use crate::site::GeneratedSite;

/// Sites a `fleet run` or a worker crawls at once (`--sites-at-once`).
pub(crate) const SITES_AT_ONCE: usize = 4;

/// The worker counts of the queue's cases.
const WORKER_COUNTS: [usize; 2] = [1, 3];

/// Empties the queue's database of sitemapper's tables, so that every run starts from none.
pub(crate) const DROP_TABLES: &str =
    "DROP TABLE IF EXISTS fleet_runs, fleet_state, fleet_sites, fleet_schema CASCADE";

/// Threads of the server that serves every site.
const SERVER_THREADS: usize = 2;

/// How the fleet benchmark runs.
#[derive(Debug, Clone)]
pub(crate) struct FleetSettings {
    /// Sites in the fleet.
    pub sites: usize,
    /// Pages of each site.
    pub pages: u64,
    /// Runs per case.
    pub runs: usize,
    /// Requests in flight per site (`concurrency` of the fleet file's defaults).
    pub concurrency: usize,
    /// The PostgreSQL URL of the queue, for the queue's cases.
    pub queue: Option<String>,
}

/// A way of crawling the fleet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FleetCase {
    /// `sitemapper fleet run --all`: one process, no queue.
    Run,
    /// `sitemapper crawl` without `--state`, one process per site, [`SITES_AT_ONCE`] at once.
    Crawls,
    /// `sitemapper worker --once`, this many processes at once, on the queue.
    Queue { workers: usize },
}

impl FleetCase {
    /// The case's name in the tables.
    pub(crate) fn label(self) -> String {
        match self {
            FleetCase::Run => "fleet run".to_string(),
            FleetCase::Crawls => format!("crawl, {SITES_AT_ONCE} at once"),
            FleetCase::Queue { workers: 1 } => "queue, 1 worker".to_string(),
            FleetCase::Queue { workers } => format!("queue, {workers} workers"),
        }
    }
}

/// One case's measures over its runs, by one build.
#[derive(Debug, Clone)]
pub(crate) struct Series {
    pub case: FleetCase,
    /// Which sitemapper binary ran (`this build`, `before`).
    pub binary: String,
    /// From the first process's start to the last one's exit, per run.
    pub walls: Vec<Duration>,
    /// The processes' CPU time, user and system, per run.
    pub cpu_seconds: Vec<f64>,
    /// The largest peak RSS of one process, per run.
    pub peak_rss_mib: Vec<f64>,
    /// The peaks of the processes run together, summed, per run.
    pub summed_peak_rss_mib: Vec<f64>,
    /// The sites each worker ran, per run, from the queue's record of runs (`w1 67, w2 66`).
    pub sites_per_worker: Vec<String>,
    /// The CPU time of the queue's PostgreSQL server, per run, when it runs on this machine.
    pub postgres_cpu_seconds: Vec<f64>,
}

impl Series {
    fn new(case: FleetCase, binary: &Binary) -> Series {
        Series {
            case,
            binary: binary.label.clone(),
            walls: Vec::new(),
            cpu_seconds: Vec::new(),
            peak_rss_mib: Vec::new(),
            summed_peak_rss_mib: Vec::new(),
            sites_per_worker: Vec::new(),
            postgres_cpu_seconds: Vec::new(),
        }
    }

    fn record(
        &mut self,
        measure: &ProcessesMeasure,
        spent: &CpuSpent,
        sites_per_worker: Option<String>,
    ) {
        self.walls.push(measure.wall);
        self.cpu_seconds.push(measure.cpu_seconds);
        self.peak_rss_mib
            .push(measure.peak_rss_mib.iter().copied().fold(0.0, f64::max));
        // The crawls run a few at a time, not all together: their peaks do not add up.
        if self.case != FleetCase::Crawls {
            self.summed_peak_rss_mib
                .push(measure.peak_rss_mib.iter().sum());
        }
        self.sites_per_worker.extend(sites_per_worker);
        if matches!(self.case, FleetCase::Queue { .. }) {
            self.postgres_cpu_seconds.extend(spent.postgres);
        }
    }
}

/// What the fleet benchmark measured.
#[derive(Debug, Clone)]
pub(crate) struct FleetResult {
    pub settings: FleetSettings,
    /// URLs a crawl of one site fetches: its pages, canonical duplicates and noindex pages.
    pub fetched_per_site: usize,
    /// URLs a correct sitemap of one site lists.
    pub listed_per_site: usize,
    /// The server version of the queue's PostgreSQL, when there was a queue.
    pub postgres_version: Option<String>,
    /// Build by build, in the order of the cases: `fleet run`, the crawls, then the queue's.
    pub series: Vec<Series>,
}

/// One generated site of the fleet.
#[derive(Debug, Clone)]
struct FleetSite {
    name: String,
    seed: String,
    expected: BTreeSet<String>,
}

/// Serves the fleet and runs every case `settings.runs` times with each of `binaries`.
pub(crate) fn run(binaries: &[Binary], settings: &FleetSettings) -> anyhow::Result<FleetResult> {
    anyhow::ensure!(
        settings.sites > 0 && settings.pages > 0,
        "a fleet needs at least one site of at least one page"
    );
    let site = GeneratedSite::new(settings.pages);
    let server = Server::start_many(site, settings.sites, SERVER_THREADS)?;
    let width = settings.sites.to_string().len().max(3);
    let sites: Vec<FleetSite> = server
        .addresses
        .iter()
        .enumerate()
        .map(|(index, address)| {
            let origin = format!("http://{address}");
            FleetSite {
                name: format!("site-{:0width$}", index + 1),
                seed: format!("{origin}/"),
                expected: site
                    .expected_paths()
                    .iter()
                    .map(|path| format!("{origin}{path}"))
                    .collect(),
            }
        })
        .collect();
    let fetched_per_site = site.fetched_paths().len();
    let (postgres_version, postgres) = match &settings.queue {
        // Also checks, before anything runs, that the queue's database can be reached.
        Some(queue) => (
            Some(psql(queue, "SHOW server_version")?.trim().to_string()),
            Postgres::find(queue)?,
        ),
        None => (None, None),
    };
    let mut cases = vec![FleetCase::Run, FleetCase::Crawls];
    if settings.queue.is_some() {
        cases.extend(WORKER_COUNTS.map(|workers| FleetCase::Queue { workers }));
    }
    let mut series: Vec<Series> = binaries
        .iter()
        .flat_map(|binary| cases.iter().map(|&case| Series::new(case, binary)))
        .collect();
    let total_fetched = settings.sites.saturating_mul(fetched_per_site);
    // Generous: ten milliseconds a URL on top of ten minutes; only a hang reaches it.
    let limit = Duration::from_secs(600)
        + Duration::from_millis(10_u64.saturating_mul(total_fetched as u64));
    let runs = settings.runs.max(1);
    let count = series.len();
    for run in 0..runs {
        for offset in 0..count {
            let Some(series) = series.get_mut((run + offset) % count) else {
                continue;
            };
            let Some(binary) = binaries.iter().find(|binary| binary.label == series.binary) else {
                continue;
            };
            let binary = binary.path.as_path();
            let label = format!("{}, {}", series.case.label(), series.binary);
            let directory = tempfile::tempdir().context("fleet directory")?;
            let fleet_file = write_fleet_file(directory.path(), &sites, settings.concurrency)?;
            let ((measure, spent), split) = match (series.case, &settings.queue) {
                (FleetCase::Run, _) => (
                    fleet_run(binary, directory.path(), &fleet_file, limit, postgres)?,
                    None,
                ),
                (FleetCase::Crawls, _) => {
                    let launches = crawl_launches(directory.path(), &sites, settings.concurrency);
                    let measured = measured(postgres, || {
                        run_at_most(binary, &launches, directory.path(), limit, SITES_AT_ONCE)
                    })?;
                    (measured, None)
                }
                (FleetCase::Queue { workers }, Some(queue)) => {
                    let run = QueueRun {
                        queue,
                        workers,
                        limit,
                        postgres,
                    };
                    let measured = queue_run(binary, directory.path(), &fleet_file, run)?;
                    (measured, Some(queue_split(queue, sites.len())?))
                }
                (FleetCase::Queue { .. }, None) => bail!("the queue's cases need --queue"),
            };
            check_sitemaps(directory.path(), &sites)
                .with_context(|| format!("{label}, run {}", run + 1))?;
            let mut line = format!(
                "fleet of {} sites of {} pages, run {}, {label}: {:.2} s, peak RSS {}; {} sitemaps exact",
                settings.sites,
                settings.pages,
                run + 1,
                measure.wall.as_secs_f64(),
                peaks(&measure.peak_rss_mib),
                sites.len()
            );
            if let Some(split) = &split {
                let _ = write!(line, "; sites per worker: {split}");
            }
            say_cpu(&mut line, &measure, &spent);
            say(&line);
            series.record(&measure, &spent, split);
        }
    }
    Ok(FleetResult {
        settings: settings.clone(),
        fetched_per_site,
        listed_per_site: site.expected_paths().len(),
        postgres_version,
        series,
    })
}

/// The processes' peak RSS, each, or the largest when there are many (one crawl per site).
fn peaks(peak_rss_mib: &[f64]) -> String {
    if peak_rss_mib.len() > WORKER_COUNTS.iter().copied().max().unwrap_or(1) {
        let largest = peak_rss_mib.iter().copied().fold(0.0, f64::max);
        return format!(
            "at most {largest:.1} MiB over {} processes",
            peak_rss_mib.len()
        );
    }
    peak_rss_mib
        .iter()
        .map(|peak| format!("{peak:.1} MiB"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Writes the fleet file of `sites` into `directory`, each site publishing into
/// `directory/out/NAME`.
fn write_fleet_file(
    directory: &Path,
    sites: &[FleetSite],
    concurrency: usize,
) -> anyhow::Result<PathBuf> {
    let out = directory.join("out").join("{name}");
    let out = out
        .to_str()
        .with_context(|| format!("{} is not UTF-8", out.display()))?;
    let mut text = String::new();
    let _ = writeln!(text, "[defaults]");
    let _ = writeln!(text, "out = {}", toml_string(out));
    let _ = writeln!(text, "every = \"24h\"");
    let _ = writeln!(text, "concurrency = {concurrency}");
    let _ = writeln!(text, "retries = 0");
    for site in sites {
        let _ = writeln!(text, "\n[[site]]");
        let _ = writeln!(text, "name = {}", toml_string(&site.name));
        let _ = writeln!(text, "url = {}", toml_string(&site.seed));
    }
    let path = directory.join("fleet.toml");
    std::fs::write(&path, text).with_context(|| format!("write {}", path.display()))?;
    Ok(path)
}

/// `text` as a TOML basic string.
fn toml_string(text: &str) -> String {
    let mut quoted = String::with_capacity(text.len() + 2);
    quoted.push('"');
    for character in text.chars() {
        match character {
            '"' => quoted.push_str("\\\""),
            '\\' => quoted.push_str("\\\\"),
            control if control.is_control() => {
                let _ = write!(quoted, "\\u{:04X}", u32::from(control));
            }
            other => quoted.push(other),
        }
    }
    quoted.push('"');
    quoted
}

/// `sitemapper fleet run FLEET --state-dir DIR --sites-at-once 4 --all`.
fn fleet_run(
    binary: &Path,
    directory: &Path,
    fleet_file: &Path,
    limit: Duration,
    postgres: Option<Postgres>,
) -> anyhow::Result<(ProcessesMeasure, CpuSpent)> {
    let launch = Launch {
        name: "fleet-run".to_string(),
        arguments: vec![
            "fleet".into(),
            "run".into(),
            fleet_file.into(),
            "--state-dir".into(),
            directory.join("state").into(),
            "--sites-at-once".into(),
            SITES_AT_ONCE.to_string().into(),
            "--all".into(),
        ],
    };
    measured(postgres, || {
        run_together(binary, &[launch], directory, limit)
    })
}

/// One `sitemapper crawl SEED --out DIR/out/NAME` per site, with the settings of the fleet
/// file's defaults and no `--state`: the crawl database is a temporary file, dropped at the end.
fn crawl_launches(directory: &Path, sites: &[FleetSite], concurrency: usize) -> Vec<Launch> {
    sites
        .iter()
        .map(|site| Launch {
            name: site.name.clone(),
            arguments: vec![
                "crawl".into(),
                site.seed.clone().into(),
                "--out".into(),
                directory.join("out").join(&site.name).into(),
                "--concurrency".into(),
                concurrency.to_string().into(),
                "--retries".into(),
                "0".into(),
            ],
        })
        .collect()
}

/// `run`'s measure, and the CPU time spent meanwhile beside it.
fn measured(
    postgres: Option<Postgres>,
    run: impl FnOnce() -> anyhow::Result<ProcessesMeasure>,
) -> anyhow::Result<(ProcessesMeasure, CpuSpent)> {
    let before = CpuSnapshot::take(postgres);
    let measure = run()?;
    Ok((measure, CpuSnapshot::take(postgres).since(&before)))
}

/// Appends where the CPU time went to a run's line: sitemapper's, the queue's, the server's,
/// and the rest of the machine's (other work that skews the figures).
fn say_cpu(line: &mut String, measure: &ProcessesMeasure, spent: &CpuSpent) {
    let _ = write!(line, "; CPU s: sitemapper {:.2}", measure.cpu_seconds);
    if let Some(postgres) = spent.postgres {
        let _ = write!(line, ", PostgreSQL {postgres:.2}");
    }
    if let Some(own) = spent.own {
        let _ = write!(line, ", server {own:.2}");
    }
    if let Some(machine) = spent.machine {
        let others = machine
            - measure.cpu_seconds
            - spent.postgres.unwrap_or(0.0)
            - spent.own.unwrap_or(0.0);
        let _ = write!(line, ", machine {machine:.2} (others {others:.2})");
    }
}

/// How the queue's case runs.
#[derive(Debug, Clone, Copy)]
struct QueueRun<'a> {
    /// The queue's URL.
    queue: &'a str,
    /// Worker processes at once.
    workers: usize,
    /// How long they may take.
    limit: Duration,
    /// The queue's server, when it runs here.
    postgres: Option<Postgres>,
}

/// Empties the queue, syncs the fleet file into it (not timed), then runs `workers` workers
/// at once until none finds a site due.
fn queue_run(
    binary: &Path,
    directory: &Path,
    fleet_file: &Path,
    run: QueueRun<'_>,
) -> anyhow::Result<(ProcessesMeasure, CpuSpent)> {
    let QueueRun {
        queue,
        workers,
        limit,
        postgres,
    } = run;
    psql(queue, DROP_TABLES)?;
    let sync = Command::new(binary)
        .args(["fleet", "sync"])
        .arg(fleet_file)
        .args(["--queue", queue])
        .current_dir(directory)
        .env("NO_COLOR", "1")
        .output()
        .context("run sitemapper fleet sync")?;
    succeeded(&sync, "sitemapper fleet sync")?;
    let launches: Vec<Launch> = (1..=workers)
        .map(|number| {
            let name = format!("w{number}");
            let arguments: Vec<OsString> = vec![
                "worker".into(),
                "--queue".into(),
                queue.into(),
                "--once".into(),
                "--name".into(),
                name.clone().into(),
                "--state-dir".into(),
                directory.join(format!("state-{name}")).into(),
                "--sites-at-once".into(),
                SITES_AT_ONCE.to_string().into(),
            ];
            Launch { name, arguments }
        })
        .collect();
    measured(postgres, || {
        run_together(binary, &launches, directory, limit)
    })
}

/// The sites each worker ran (`w1 67, w2 66, w3 67`), from the queue's record of runs; an
/// error unless every one of the `sites` ran exactly once.
fn queue_split(queue: &str, sites: usize) -> anyhow::Result<String> {
    let totals = psql(
        queue,
        "SELECT count(*), count(DISTINCT site_id) FROM fleet_runs",
    )?;
    let (runs, distinct) = totals
        .trim()
        .split_once('|')
        .with_context(|| format!("unreadable counts of runs: {totals:?}"))?;
    let runs: usize = runs.parse().context("count of runs")?;
    let distinct: usize = distinct.parse().context("count of sites run")?;
    if runs != sites || distinct != sites {
        bail!(
            "the queue's record holds {runs} runs of {distinct} distinct sites, for {sites} sites \
             that should each have run once"
        );
    }
    let per_worker = psql(
        queue,
        "SELECT worker, count(*) FROM fleet_runs GROUP BY worker ORDER BY worker",
    )?;
    Ok(per_worker
        .lines()
        .filter_map(|line| line.split_once('|'))
        .map(|(worker, count)| format!("{worker} {count}"))
        .collect::<Vec<_>>()
        .join(", "))
}

/// Every site's sitemap in `directory/out/NAME` against its expected URLs; an error naming
/// the first sites that differ.
fn check_sitemaps(directory: &Path, sites: &[FleetSite]) -> anyhow::Result<()> {
    let mut differences = Vec::new();
    let mut wrong = 0_usize;
    for site in sites {
        let out = directory.join("out").join(&site.name);
        let difference = match listed_urls(&out) {
            Ok(listed) if listed == site.expected => None,
            Ok(listed) => {
                let missing: Vec<&String> = site.expected.difference(&listed).take(3).collect();
                let extra: Vec<&String> = listed.difference(&site.expected).take(3).collect();
                Some(format!(
                    "{} listed, {} expected; missing e.g. {missing:?}, extra e.g. {extra:?}",
                    listed.len(),
                    site.expected.len()
                ))
            }
            Err(error) => Some(format!("{error:#}")),
        };
        if let Some(difference) = difference {
            wrong += 1;
            if differences.len() < 3 {
                differences.push(format!("{} ({}): {difference}", site.name, out.display()));
            }
        }
    }
    if wrong > 0 {
        bail!(
            "{wrong} of {} sitemaps are wrong: {}",
            sites.len(),
            differences.join("; ")
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fleet_file_names_every_site() {
        let directory = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
        let sites: Vec<FleetSite> = (1..=2)
            .map(|number| FleetSite {
                name: format!("site-00{number}"),
                seed: format!("http://127.0.0.1:{}/", 4000 + number),
                expected: BTreeSet::new(),
            })
            .collect();
        let path = write_fleet_file(directory.path(), &sites, 8)
            .unwrap_or_else(|error| panic!("{error:#}"));
        let text = std::fs::read_to_string(path).unwrap_or_default();
        assert!(text.starts_with("[defaults]\nout = \""), "{text}");
        assert!(text.contains("/out/{name}\"\nevery = \"24h\"\nconcurrency = 8\nretries = 0\n"));
        assert_eq!(text.matches("[[site]]").count(), 2);
        assert!(text.contains("name = \"site-002\"\nurl = \"http://127.0.0.1:4002/\"\n"));
    }

    #[test]
    fn toml_strings_are_escaped() {
        assert_eq!(toml_string("plain"), "\"plain\"");
        assert_eq!(toml_string("a\"b\\c\td"), "\"a\\\"b\\\\c\\u0009d\"");
    }

    #[test]
    fn cases_are_named() {
        assert_eq!(FleetCase::Run.label(), "fleet run");
        assert_eq!(FleetCase::Crawls.label(), "crawl, 4 at once");
        assert_eq!(FleetCase::Queue { workers: 1 }.label(), "queue, 1 worker");
        assert_eq!(FleetCase::Queue { workers: 3 }.label(), "queue, 3 workers");
    }

    #[test]
    fn a_missing_sitemap_is_an_error() {
        let directory = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
        let sites = [FleetSite {
            name: "site-001".to_string(),
            seed: "http://127.0.0.1:1/".to_string(),
            expected: BTreeSet::from(["http://127.0.0.1:1/".to_string()]),
        }];
        let error = check_sitemaps(directory.path(), &sites)
            .err()
            .map(|error| format!("{error:#}"))
            .unwrap_or_default();
        assert!(error.contains("1 of 1 sitemaps are wrong"), "{error}");
    }
}
