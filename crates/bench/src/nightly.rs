//! The crawl database's benchmark (`--nightly PAGES`): what keeping a crawl database
//! (`--state`) costs the scheduled job that recrawls a site every night. On the generated site
//! of PAGES pages, served with validators ([`ChangingSite`]), each build crawls in turn: without
//! `--state`; a first time into a new database; again from a copy of that database and of the
//! files it published, the site unchanged (every page must be answered 304, the files must stay
//! byte for byte the same, and nothing be reported added, removed or changed); and from another
//! copy once one page in a hundred has changed (the change report must name exactly those
//! pages). On the site that looks like the web (`--nightly-web`), the first three. Each crawl's
//! wall time, CPU time and peak memory, and the database's size on disk once sitemapper has
//! exited, per URL recorded and per link. The builds alternate run by run, each leading in
//! turn.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Context;

use crate::binary::{Binary, say};
use crate::crawl_run::{self, ChangeCounts, CrawlMeasure};
use crate::nginx::Nginx;
use crate::server::{ResponseCounts, Server};
use crate::site::{ChangingSite, GeneratedSite, Generation};
use crate::web::WebSite;
use crate::web_served::{CompressedWebSite, Encodings};

/// Threads of the server of the sites.
const SERVER_THREADS: usize = 2;

/// The generation of the site in which its revised pages have changed.
const CHANGED: u64 = 1;

/// How the benchmark runs.
#[derive(Debug, Clone, Copy)]
pub(crate) struct NightlySettings {
    /// Pages of the generated site.
    pub pages: u64,
    /// Pages of the web-like site; none when 0.
    pub web_pages: u64,
    /// Runs of every crawl by every build.
    pub runs: usize,
    /// Requests in flight.
    pub concurrency: usize,
}

/// One crawl of a night.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Step {
    /// Without `--state`: the database is a temporary file.
    Plain,
    /// With `--state` into a new database.
    First,
    /// With a copy of the first crawl's database and files, the site unchanged.
    Unchanged,
    /// With another copy, one page in a hundred changed.
    Changed,
}

impl Step {
    pub(crate) fn label(self) -> &'static str {
        match self {
            Step::Plain => "plain crawl",
            Step::First => "first crawl, --state",
            Step::Unchanged => "recrawl, unchanged",
            Step::Changed => "recrawl, 1% changed",
        }
    }
}

/// The crawl database a crawl left on disk.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct DatabaseSize {
    /// The database file and its `-wal` and `-shm` files, once sitemapper has exited.
    pub bytes: u64,
    /// URLs the crawl recorded, as its summary says (`N URLs discovered`).
    pub urls: Option<u64>,
    /// Rows of its `links` table.
    pub links: u64,
}

/// What one crawl measured, and what it did wrong.
#[derive(Debug, Clone)]
pub(crate) struct StepMeasure {
    pub step: Step,
    pub wall: Duration,
    /// sitemapper's CPU time, user and system, as its summary says.
    pub cpu_seconds: f64,
    /// sitemapper's peak RSS, as its summary says.
    pub peak_rss_mib: f64,
    /// The database, for the crawls with `--state`.
    pub database: Option<DatabaseSize>,
    /// The checks that failed, in words; none when all held.
    pub failures: Vec<String>,
}

impl StepMeasure {
    fn new(
        step: Step,
        measure: &CrawlMeasure,
        database: Option<DatabaseSize>,
        failures: Vec<String>,
    ) -> StepMeasure {
        StepMeasure {
            step,
            wall: measure.wall,
            cpu_seconds: measure.summary.cpu_seconds,
            peak_rss_mib: measure.summary.peak_rss_mib,
            database,
            failures,
        }
    }
}

/// One build's crawls of a site in one run.
#[derive(Debug, Clone, Default)]
pub(crate) struct Night {
    pub measures: Vec<StepMeasure>,
}

impl Night {
    /// The measure of `step`, if it ran.
    pub(crate) fn of(&self, step: Step) -> Option<&StepMeasure> {
        self.measures.iter().find(|measure| measure.step == step)
    }
}

/// One build's nights on a site, run by run.
#[derive(Debug, Clone)]
pub(crate) struct NightlySeries {
    pub binary: String,
    pub nights: Vec<Night>,
}

/// A site, and every build's nights on it.
#[derive(Debug, Clone)]
pub(crate) struct NightlySite {
    /// What the site is and how it is served.
    pub label: String,
    pub pages: u64,
    /// URLs a crawl fetches.
    pub fetched: usize,
    /// Pages changed for the last recrawl; none on a site without that recrawl.
    pub revised: usize,
    pub series: Vec<NightlySeries>,
}

/// What the benchmark measured.
#[derive(Debug, Clone)]
pub(crate) struct NightlyResult {
    pub settings: NightlySettings,
    pub sites: Vec<NightlySite>,
}

/// A site being served, and what correct crawls of it do.
struct Served<'a> {
    label: String,
    pages: u64,
    seed: String,
    /// URLs a crawl fetches (each answered 304 by an unchanged site).
    fetched: usize,
    /// URLs a correct sitemap lists.
    expected: BTreeSet<String>,
    /// The switch to the generation in which the revised URLs change, and those URLs; none
    /// for a site that does not change.
    changing: Option<(&'a Generation, BTreeSet<String>)>,
    /// The benchmark's own server, which counts its answers (nginx does not).
    server: Option<&'a Server>,
}

impl Served<'_> {
    fn counts(&self) -> Option<ResponseCounts> {
        self.server.map(Server::counts)
    }
}

/// Serves the sites and runs every build's nights on them.
pub(crate) fn run(
    binaries: &[Binary],
    settings: &NightlySettings,
) -> anyhow::Result<NightlyResult> {
    anyhow::ensure!(settings.pages > 0, "the generated site needs pages");
    let mut sites = vec![generated_site(binaries, settings)?];
    if settings.web_pages > 0 {
        sites.push(web_site(binaries, settings)?);
    }
    Ok(NightlyResult {
        settings: *settings,
        sites,
    })
}

fn generated_site(binaries: &[Binary], settings: &NightlySettings) -> anyhow::Result<NightlySite> {
    let site = GeneratedSite::new(settings.pages);
    let generation = Generation::default();
    let changing = ChangingSite {
        site,
        generation: generation.clone(),
    };
    let server = Server::start(changing, SERVER_THREADS)?;
    let urls = |paths: BTreeSet<String>| -> BTreeSet<String> {
        paths.iter().map(|path| server.url(path)).collect()
    };
    let served = Served {
        label: "generated site".to_string(),
        pages: settings.pages,
        seed: server.url("/"),
        fetched: site.fetched_paths().len(),
        expected: urls(site.expected_paths()),
        changing: Some((&generation, urls(site.revised_paths()))),
        server: Some(&server),
    };
    measure_site(binaries, &served, settings)
}

/// The web-like site, served by nginx from files when the machine has nginx (it makes its
/// own validators), else gzip-compressed by the benchmark's server with validators.
fn web_site(binaries: &[Binary], settings: &NightlySettings) -> anyhow::Result<NightlySite> {
    let pages = settings.web_pages;
    let site = WebSite { pages };
    let fetched = site.fetched_paths().len();
    let expected = site.expected_paths();
    if let Some(binary) = Nginx::binary() {
        say(&format!("web-like site: writing {pages} pages for nginx"));
        let nginx = Nginx::start(&binary, site)?;
        let served = Served {
            label: "web-like site, nginx gzip_static".to_string(),
            pages,
            seed: nginx.url("/"),
            fetched,
            expected: expected.iter().map(|path| nginx.url(path)).collect(),
            changing: None,
            server: None,
        };
        return measure_site(binaries, &served, settings);
    }
    say(&format!("web-like site: compressing {pages} pages"));
    let compressed = CompressedWebSite::new(site, Encodings::Gzip).with_validators();
    let server = Server::start(compressed, SERVER_THREADS)?;
    let served = Served {
        label: "web-like site, gzip".to_string(),
        pages,
        seed: server.url("/"),
        fetched,
        expected: expected.iter().map(|path| server.url(path)).collect(),
        changing: None,
        server: Some(&server),
    };
    measure_site(binaries, &served, settings)
}

/// Every build's nights on `served`, the builds alternating run by run.
fn measure_site(
    binaries: &[Binary],
    served: &Served<'_>,
    settings: &NightlySettings,
) -> anyhow::Result<NightlySite> {
    let mut series: Vec<NightlySeries> = binaries
        .iter()
        .map(|binary| NightlySeries {
            binary: binary.label.clone(),
            nights: Vec::new(),
        })
        .collect();
    let runs = settings.runs.max(1);
    for run in 0..runs {
        for turn in 0..binaries.len() {
            let index = (run + turn) % binaries.len();
            let binary = &binaries[index];
            let name = format!(
                "{} of {} pages, {}, run {}",
                served.label,
                served.pages,
                binary.label,
                run + 1
            );
            let night =
                one_night(binary, served, settings.concurrency).with_context(|| name.clone())?;
            for measure in &night.measures {
                say(&format!("{name}: {}", describe(measure)));
            }
            series[index].nights.push(night);
        }
    }
    Ok(NightlySite {
        label: served.label.clone(),
        pages: served.pages,
        fetched: served.fetched,
        revised: served
            .changing
            .as_ref()
            .map_or(0, |(_, revised)| revised.len()),
        series,
    })
}

/// A measure in one line.
fn describe(measure: &StepMeasure) -> String {
    let mut line = format!(
        "{} {:.2} s, {:.2} CPU s, {:.1} MiB",
        measure.step.label(),
        measure.wall.as_secs_f64(),
        measure.cpu_seconds,
        measure.peak_rss_mib
    );
    if let Some(database) = measure.database {
        let _ = write!(
            line,
            ", database {} bytes, {} links",
            database.bytes, database.links
        );
    }
    if measure.failures.is_empty() {
        line.push_str("; checks held");
    } else {
        let _ = write!(line, "; FAILED: {}", measure.failures.join("; "));
    }
    line
}

/// What a scheduled job keeps from one night to the next: its crawl database and the files
/// it published; and where its change report goes.
struct JobDirectory {
    root: PathBuf,
}

impl JobDirectory {
    fn create(root: PathBuf) -> anyhow::Result<JobDirectory> {
        let job = JobDirectory { root };
        std::fs::create_dir_all(job.out())
            .with_context(|| format!("create {}", job.out().display()))?;
        Ok(job)
    }

    fn database(&self) -> PathBuf {
        self.root.join("state.db")
    }

    fn out(&self) -> PathBuf {
        self.root.join("out")
    }

    fn changes(&self) -> PathBuf {
        self.root.join("changes.json")
    }

    /// A copy of the database and the published files in `root`, for another night.
    fn copy_to(&self, root: PathBuf) -> anyhow::Result<JobDirectory> {
        let copy = JobDirectory::create(root)?;
        for file in database_files(&self.database()) {
            let name = file.file_name().context("a database file without a name")?;
            std::fs::copy(&file, copy.root.join(name))
                .with_context(|| format!("copy {}", file.display()))?;
        }
        copy_directory(&self.out(), &copy.out())?;
        Ok(copy)
    }
}

/// A crawl of `served` by `binary` for `job`, with `--state`, and `--report-changes` for a
/// recrawl.
fn crawl_for(
    binary: &Binary,
    served: &Served<'_>,
    concurrency: usize,
    job: &JobDirectory,
    recrawl: bool,
) -> anyhow::Result<CrawlMeasure> {
    let mut extra = vec!["--state".to_string(), job.database().display().to_string()];
    if recrawl {
        extra.push("--report-changes".to_string());
        extra.push(job.changes().display().to_string());
    }
    crawl_run::crawl_into(&binary.path, &served.seed, concurrency, &extra, &job.out())
}

/// One build's night on `served`: the plain crawl, the first with `--state`, and the
/// recrawls from copies of the first's database and files.
fn one_night(binary: &Binary, served: &Served<'_>, concurrency: usize) -> anyhow::Result<Night> {
    let directory = tempfile::tempdir().context("the night's directory")?;
    let plain = crawl_run::crawl(&binary.path, &served.seed, concurrency, &[], false)?;
    let mut night = Night::default();
    night.measures.push(StepMeasure::new(
        Step::Plain,
        &plain,
        None,
        listing_failures(served, &plain),
    ));

    let first_job = JobDirectory::create(directory.path().join("first"))?;
    let first = crawl_for(binary, served, concurrency, &first_job, false)?;
    // Copied before the database is opened to count its links, so that the recrawls start
    // from the files exactly as sitemapper left them.
    let unchanged_job = first_job.copy_to(directory.path().join("unchanged"))?;
    let changed_job = match served.changing {
        Some(_) => Some(first_job.copy_to(directory.path().join("changed"))?),
        None => None,
    };
    night.measures.push(StepMeasure::new(
        Step::First,
        &first,
        Some(database_size(&first_job.database(), &first)?),
        listing_failures(served, &first),
    ));

    let before = served.counts();
    let unchanged = crawl_for(binary, served, concurrency, &unchanged_job, true)?;
    let answered = served
        .counts()
        .zip(before)
        .map(|(now, then)| now.since(then));
    let mut failures = listing_failures(served, &unchanged);
    failures.extend(revalidation_failures(served, &unchanged, answered, 0));
    failures.extend(report_failures(
        &unchanged_job,
        &unchanged,
        &BTreeSet::new(),
    ));
    failures.extend(file_failures(&first_job.out(), &unchanged_job.out())?);
    night.measures.push(StepMeasure::new(
        Step::Unchanged,
        &unchanged,
        Some(database_size(&unchanged_job.database(), &unchanged)?),
        failures,
    ));

    if let (Some((generation, revised)), Some(changed_job)) = (&served.changing, changed_job) {
        let before = served.counts();
        generation.set(CHANGED);
        let crawled = crawl_for(binary, served, concurrency, &changed_job, true);
        generation.set(0);
        let changed = crawled?;
        let answered = served
            .counts()
            .zip(before)
            .map(|(now, then)| now.since(then));
        let mut failures = listing_failures(served, &changed);
        failures.extend(revalidation_failures(
            served,
            &changed,
            answered,
            revised.len(),
        ));
        failures.extend(report_failures(&changed_job, &changed, revised));
        night.measures.push(StepMeasure::new(
            Step::Changed,
            &changed,
            Some(database_size(&changed_job.database(), &changed)?),
            failures,
        ));
    }
    Ok(night)
}

/// What differs between the URLs listed and those expected, if anything.
fn listing_failures(served: &Served<'_>, measure: &CrawlMeasure) -> Vec<String> {
    crate::report::listing_mismatch(&served.expected, &measure.listed)
        .into_iter()
        .collect()
}

/// Whether every URL but the `fresh` changed ones was answered 304, as the server counted
/// (when it is the benchmark's) and as sitemapper's summary says.
fn revalidation_failures(
    served: &Served<'_>,
    measure: &CrawlMeasure,
    answered: Option<ResponseCounts>,
    fresh: usize,
) -> Vec<String> {
    let unchanged = served.fetched.saturating_sub(fresh) as u64;
    let mut failures = Vec::new();
    if let Some(answered) = answered
        && (answered.not_modified, answered.ok) != (unchanged, fresh as u64)
    {
        failures.push(format!(
            "the server answered {} URLs 304 and {} 200, not {unchanged} and {fresh}",
            answered.not_modified, answered.ok
        ));
    }
    if measure.summary.revalidated != unchanged {
        failures.push(format!(
            "the summary says {} pages unchanged (304), not {unchanged}",
            measure.summary.revalidated
        ));
    }
    failures
}

/// Whether the change report (`--report-changes`) and the summary name exactly `changed` as
/// changed, and nothing added or removed.
fn report_failures(
    job: &JobDirectory,
    measure: &CrawlMeasure,
    changed: &BTreeSet<String>,
) -> Vec<String> {
    let mut failures = Vec::new();
    let expected_counts = ChangeCounts {
        added: 0,
        removed: 0,
        changed: changed.len() as u64,
    };
    if measure.summary.changes != Some(expected_counts) {
        failures.push(format!(
            "the summary reports {:?}, not {expected_counts:?}",
            measure.summary.changes
        ));
    }
    match read_change_report(&job.changes()) {
        Ok(report) => {
            let nothing = BTreeSet::new();
            for (key, expected) in [
                ("added", &nothing),
                ("removed", &nothing),
                ("changed", changed),
            ] {
                let found = report.get(key).cloned().unwrap_or_default();
                if &found != expected {
                    let unexpected: Vec<&String> = found.difference(expected).take(3).collect();
                    let missing: Vec<&String> = expected.difference(&found).take(3).collect();
                    failures.push(format!(
                        "the change report has {} URLs {key}, not {}; unexpected e.g. \
                         {unexpected:?}, missing e.g. {missing:?}",
                        found.len(),
                        expected.len()
                    ));
                }
            }
        }
        Err(error) => failures.push(format!("{error:#}")),
    }
    failures
}

/// The URLs under `added`, `removed` and `changed` of a change report.
fn read_change_report(
    path: &Path,
) -> anyhow::Result<std::collections::BTreeMap<String, BTreeSet<String>>> {
    let text = std::fs::read_to_string(path).with_context(|| format!("read {}", path.display()))?;
    let report: serde_json::Value =
        serde_json::from_str(&text).with_context(|| format!("parse {}", path.display()))?;
    let mut lists = std::collections::BTreeMap::new();
    for key in ["added", "removed", "changed"] {
        let urls = report
            .get(key)
            .and_then(serde_json::Value::as_array)
            .with_context(|| format!("no {key:?} list in {}", path.display()))?;
        lists.insert(
            key.to_string(),
            urls.iter()
                .filter_map(|url| url.as_str().map(str::to_string))
                .collect(),
        );
    }
    Ok(lists)
}

/// Whether the files under `after` are those under `before`, byte for byte.
fn file_failures(before: &Path, after: &Path) -> anyhow::Result<Vec<String>> {
    let (before_files, after_files) = (files_under(before)?, files_under(after)?);
    let names = |files: &[(PathBuf, Vec<u8>)]| -> BTreeSet<PathBuf> {
        files.iter().map(|(name, _)| name.clone()).collect()
    };
    if names(&before_files) != names(&after_files) {
        return Ok(vec![format!(
            "the recrawl published {:?}, the first crawl {:?}",
            names(&after_files),
            names(&before_files)
        )]);
    }
    Ok(before_files
        .iter()
        .zip(&after_files)
        .filter(|((_, before), (_, after))| before != after)
        .map(|((name, _), _)| format!("{} changed", name.display()))
        .collect())
}

/// Every file under `directory`, by its path relative to it, with its bytes, in order.
fn files_under(directory: &Path) -> anyhow::Result<Vec<(PathBuf, Vec<u8>)>> {
    let mut files = Vec::new();
    let mut stack = vec![directory.to_path_buf()];
    while let Some(path) = stack.pop() {
        for entry in std::fs::read_dir(&path).with_context(|| format!("read {}", path.display()))? {
            let entry = entry?;
            if entry.file_type()?.is_dir() {
                stack.push(entry.path());
            } else {
                let relative = entry
                    .path()
                    .strip_prefix(directory)
                    .map(Path::to_path_buf)
                    .unwrap_or_else(|_| entry.path());
                files.push((relative, std::fs::read(entry.path())?));
            }
        }
    }
    files.sort();
    Ok(files)
}

/// Copies the files under `from` into `to`, directories and all.
fn copy_directory(from: &Path, to: &Path) -> anyhow::Result<()> {
    for (relative, bytes) in files_under(from)? {
        let target = to.join(&relative);
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("create {}", parent.display()))?;
        }
        std::fs::write(&target, bytes).with_context(|| format!("write {}", target.display()))?;
    }
    Ok(())
}

/// The database at `path` and its write-ahead log and shared memory files, those that exist.
fn database_files(path: &Path) -> Vec<PathBuf> {
    ["", "-wal", "-shm"]
        .iter()
        .map(|suffix| {
            let mut name = path.as_os_str().to_os_string();
            name.push(suffix);
            PathBuf::from(name)
        })
        .filter(|file| file.is_file())
        .collect()
}

/// The size on disk of the database at `path`, measured before it is opened, and the rows of
/// its `links` table (the one table read, by name: the schema around it may change).
fn database_size(path: &Path, measure: &CrawlMeasure) -> anyhow::Result<DatabaseSize> {
    let mut bytes = 0;
    for file in database_files(path) {
        bytes += std::fs::metadata(&file)
            .with_context(|| format!("size of {}", file.display()))?
            .len();
    }
    let connection = rusqlite::Connection::open_with_flags(
        path,
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .with_context(|| format!("open {}", path.display()))?;
    let links: i64 = connection
        .query_row("SELECT count(*) FROM links", [], |row| row.get(0))
        .with_context(|| format!("count the links of {}", path.display()))?;
    Ok(DatabaseSize {
        bytes,
        urls: measure.summary.urls_discovered,
        links: u64::try_from(links).unwrap_or(0),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_copy_of_a_job_holds_its_database_and_files() {
        let directory = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
        let job = JobDirectory::create(directory.path().join("first"))
            .unwrap_or_else(|error| panic!("{error:#}"));
        std::fs::write(job.database(), b"database").unwrap_or_else(|error| panic!("{error}"));
        let mut wal = job.database().into_os_string();
        wal.push("-wal");
        std::fs::write(&wal, b"log").unwrap_or_else(|error| panic!("{error}"));
        std::fs::write(job.out().join("sitemap.xml"), b"<urlset/>")
            .unwrap_or_else(|error| panic!("{error}"));
        std::fs::write(job.changes(), b"{}").unwrap_or_else(|error| panic!("{error}"));
        let copy = job
            .copy_to(directory.path().join("copy"))
            .unwrap_or_else(|error| panic!("{error:#}"));
        assert_eq!(database_files(&copy.database()).len(), 2);
        assert!(!copy.changes().exists(), "a report is the night's own");
        let failures =
            file_failures(&job.out(), &copy.out()).unwrap_or_else(|error| panic!("{error:#}"));
        assert!(failures.is_empty(), "{failures:?}");
        std::fs::write(copy.out().join("sitemap.xml"), b"<urlset></urlset>")
            .unwrap_or_else(|error| panic!("{error}"));
        let failures =
            file_failures(&job.out(), &copy.out()).unwrap_or_else(|error| panic!("{error:#}"));
        assert_eq!(failures, ["sitemap.xml changed"]);
    }

    #[test]
    fn a_change_report_is_read_by_its_lists() {
        let directory = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
        let path = directory.path().join("changes.json");
        std::fs::write(
            &path,
            r#"{"run": 2, "previous_run": 1, "added": [], "removed": ["http://a/x"],
                "changed": ["http://a/p/42", "http://a/p/142"]}"#,
        )
        .unwrap_or_else(|error| panic!("{error}"));
        let report = read_change_report(&path).unwrap_or_else(|error| panic!("{error:#}"));
        assert_eq!(report["added"].len(), 0);
        assert!(report["removed"].contains("http://a/x"));
        assert_eq!(report["changed"].len(), 2);
        std::fs::write(&path, r#"{"added": []}"#).unwrap_or_else(|error| panic!("{error}"));
        assert!(read_change_report(&path).is_err());
    }
}
