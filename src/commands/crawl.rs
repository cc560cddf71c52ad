//! `sitemapper crawl URL`: crawl a site, record every URL in the crawl database, and publish
//! the sitemaps of the indexable ones.

mod not_listed;
mod publish;
mod split;
mod staging;
mod summary;
mod summary_json;

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::Instant;

use anyhow::Context;
use sitemapper_crawl::{
    CrawlStopper, CrawlSummary, Crawler, HostMap, PaceBoard, RenderMode, Renderer, ResumePoint,
    shown_proxy,
};
use sitemapper_render::{BrowserMissing, Chromium, ChromiumOptions, find_browser};
use sitemapper_sitemap::{Published, ROOT_FILE_NAME, StagingDir, Written, published_names};
use sitemapper_store::{ChangeReport, RunId, RunStatus, Store};
use tokio::sync::mpsc;
use tracing::Instrument;
use url::Url;

use self::not_listed::NotListed;
use self::publish::{Staging, publish};
pub(crate) use self::split::SplitRule;
use self::summary::Report;
pub(crate) use self::summary_json::CrawlJson;
use super::Output;
use super::changes::{self, IndexNow};
use super::history::StoreHistory;
use super::json;
use super::lock::RunLock;
use super::record::{Notes, Recorder};
pub(crate) use super::sitemap_seeds::ReadSitemaps;
use super::sitemap_seeds::SeedSitemaps;
use super::spill::StoreSpill;
use crate::cli::{CrawlArgs, SummaryFormat};
use crate::exit::{ExitStatus, Failure};
use crate::progress::{EventCounts, Progress};
use crate::settings::{ConfigFile, CrawlSettings, OutputTarget, summary_format};

/// Events in flight between the crawl and the recorder.
const EVENT_CHANNEL_CAPACITY: usize = 4096;

pub(crate) fn run(args: CrawlArgs, file: ConfigFile, output: Output) -> Result<(), Failure> {
    // Until the options are checked, the flag or the config file says whether to print JSON.
    let asked = summary_format(args.summary, &file);
    let settings = CrawlSettings::resolve(args, file)
        .map_err(|error| json::failed("crawl", asked, Failure::usage(error)))?;
    let crawled = crawl_and_publish(&settings, output, None, None)
        .map_err(|failure| json::failed("crawl", settings.summary, failure))?;
    match settings.summary {
        SummaryFormat::Text if output.quiet => {}
        SummaryFormat::Text => crawled.report(&settings).print()?,
        SummaryFormat::Json => {
            let summary = CrawlJson::new(&crawled, &settings)?;
            json::print("crawl", ExitStatus::Success, None, &summary)?;
        }
    }
    Ok(())
}

/// A finished, published run, with what the summary and the audit need.
#[derive(Debug)]
pub(crate) struct Crawled {
    pub store: Store,
    pub run: RunId,
    pub summary: CrawlSummary,
    pub notes: Notes,
    /// What was written and published; with `--out -`, no file is published.
    pub published: (Vec<Written>, Published),
    pub changes: ChangeReport,
    /// Pages that served a new `Last-Modified` over the same content, whose lastmod was kept.
    pub lastmod_kept: u64,
    /// The URLs not listed: a few of each reason.
    pub not_listed: NotListed,
    resumed: bool,
    notified: Option<String>,
    started: Instant,
    started_at: jiff::Timestamp,
    /// Held until the caller is done with the output directory and the database.
    _lock: RunLock,
    /// Keeps a temporary database alive as long as the store.
    _database: Database,
}

impl Crawled {
    pub(crate) fn report<'a>(&'a self, settings: &'a CrawlSettings) -> Report<'a> {
        Report::new(self, settings)
    }
}

/// How a crawl runs inside a larger run (a fleet's site): it shares the pace of hosts with
/// the other crawls, and is stopped by its owner rather than by signals of its own.
#[derive(Debug, Clone)]
pub(crate) struct Embedding {
    pub pace: Arc<PaceBoard>,
    /// Becomes `true` when the crawl must stop (nothing published, the run interrupted).
    pub stop: tokio::sync::watch::Receiver<bool>,
}

/// Crawls, records and publishes: everything `sitemapper crawl` does but the summary. The
/// site's sitemaps read as seeds are kept in `read_sitemaps` when it is given. Embedded, the
/// crawl installs no signal handler: its owner stops it.
pub(crate) fn crawl_and_publish(
    settings: &CrawlSettings,
    output: Output,
    read_sitemaps: Option<ReadSitemaps>,
    embedding: Option<&Embedding>,
) -> Result<Crawled, Failure> {
    let started = Instant::now();
    let started_at = jiff::Timestamp::now();
    let mut config = settings.crawl.clone();
    // What earlier runs published where the site serves it is never a seed.
    if settings.publishes_sitemaps
        && let Some(directory) = settings.out.path()
    {
        config.own_sitemaps = published_names(directory).into_iter().collect();
    }
    let crawler = Crawler::new(config);
    let seed = crawler.parse_seed(&settings.seed).map_err(Failure::usage)?;
    let browser_executable = browser_executable(settings)?;
    // Before any request: an output directory that cannot be written fails the run now, not
    // after an hour of crawling. The lock comes first, so that nothing in the output
    // directory is touched while another run uses it.
    let out_directory = settings.out.path();
    if let Some(directory) = out_directory {
        std::fs::create_dir_all(directory)
            .with_context(|| format!("cannot create output directory {}", directory.display()))?;
    }
    let mut locked: Vec<&Path> = out_directory.into_iter().collect();
    locked.extend(settings.state.as_deref());
    let lock = RunLock::acquire(&locked)?;
    if let Some(directory) = out_directory {
        for abandoned in StagingDir::remove_abandoned(directory) {
            tracing::info!(path = %abandoned.display(), "removed a staging directory left by a killed run");
        }
    }
    let staging = Staging::create(&settings.out)?;
    let database = Database::open(settings.state.as_deref())?;
    let mut store = database.open_store()?;
    claim_scope(&mut store, &Crawler::scope_root(&seed))?;
    let (run, resume) = start_run(&mut store, settings, &seed)?;
    let resumed = resume.is_some();
    let spill = StoreSpill::new(database.open_store()?)?;
    let mut crawler = crawler
        .with_spill(Arc::new(spill))
        .with_sitemap_reader(Arc::new(SeedSitemaps::new(
            settings.crawl.host_map.clone(),
            read_sitemaps,
        )));
    if settings.state.is_some() {
        let history = StoreHistory::new(database.open_store()?);
        crawler = crawler.with_history(Arc::new(history));
    }
    if let Some(point) = resume {
        crawler = crawler.with_resume(point);
    }
    if let Some(embedding) = embedding {
        crawler = crawler.with_pace_board(Arc::clone(&embedding.pace));
    }

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let browser = browser_executable.map(|executable| {
        let private_networks = runtime.block_on(settings.crawl.addresses.allows_private_for(&seed));
        Arc::new(Chromium::new(ChromiumOptions {
            executable,
            tabs: settings.render.tabs,
            timeout: settings.render.timeout,
            user_agent: settings.crawl.user_agent.clone(),
            private_networks,
            proxy: browser_proxy(settings),
            accept_invalid_certificates: settings.crawl.network.accept_invalid_certificates,
        }))
    });
    if let Some(browser) = &browser {
        crawler = crawler.with_renderer(Arc::clone(browser) as Arc<dyn Renderer>);
    }
    let counts = Arc::new(EventCounts::default());
    let (sender, receiver) = mpsc::channel(EVENT_CHANNEL_CAPACITY);
    let recorder = Recorder::spawn(store, run, receiver, Arc::clone(&counts));
    // With a JSON summary stderr carries warnings and errors only.
    let quiet = output.quiet || settings.summary == SummaryFormat::Json;
    let progress = Progress::start(quiet, crawler.progress(), counts);
    let signal = Arc::new(OnceLock::new());
    match embedding {
        Some(embedding) => {
            let mut stop = embedding.stop.clone();
            let stopper = crawler.stopper();
            runtime.spawn(async move {
                if stop.wait_for(|stop| *stop).await.is_ok() {
                    stopper.stop();
                }
            });
        }
        None => {
            runtime.spawn(stop_on_signals(crawler.stopper(), Arc::clone(&signal)));
        }
    }
    // The caller's span (a fleet's site) follows the crawl into its runtime.
    let crawled = runtime.block_on(
        crawler
            .run(&seed, sender)
            .instrument(tracing::Span::current()),
    );
    if let Some(browser) = &browser {
        runtime.block_on(browser.shut_down());
    }
    if let Ok(summary) = &crawled {
        for (host, requests) in &summary.render.requests.other_hosts {
            tracing::info!(%host, requests, "the browser fetched from another host");
        }
    }
    progress.finish();
    let (mut store, notes) = recorder.finish()?;

    let summary = match crawled {
        Ok(summary) => summary,
        Err(error) => {
            let _ = store.finish_run(run, RunStatus::Failed);
            return Err(Failure::fatal(anyhow::anyhow!(
                "{error}; {}",
                left_as_it_was(settings)
            )));
        }
    };
    if summary.interrupted {
        let _ = store.finish_run(run, RunStatus::Interrupted);
        let kept = match &settings.state {
            Some(path) => format!(
                "; what was crawled is in {} (continue with --resume)",
                path.display()
            ),
            None => String::new(),
        };
        let signal = signal.get().copied().unwrap_or(StopSignal::Interrupt);
        return Err(Failure {
            status: signal.exit_status(),
            error: anyhow::anyhow!(
                "{} after {} pages and {} requests: nothing published, {}{kept}",
                signal.describe(),
                summary.pages_visited,
                summary.requests,
                left_as_it_was(settings)
            ),
        });
    }
    if summary.urls_lost > 0 {
        let _ = store.finish_run(run, RunStatus::Failed);
        return Err(Failure::fatal(anyhow::anyhow!(
            "{} queued URLs could not be read back from the crawl database {}: the crawl is incomplete, nothing published, {}",
            summary.urls_lost,
            database.path.display(),
            left_as_it_was(settings)
        )));
    }
    let not_listed = settle(&mut store, run, settings, &summary).inspect_err(|_| {
        let _ = store.finish_run(run, RunStatus::Failed);
    })?;
    let published = publish(&mut store, run, settings, &summary, staging).inspect_err(|_| {
        let _ = store.finish_run(run, RunStatus::Failed);
    })?;
    let changes = published_changes(
        record_changes(&mut store, run, &summary)?,
        &settings.crawl.host_map,
    );
    let lastmod_kept = store.kept_lastmod_count(run)?;
    store.finish_run(run, RunStatus::Complete)?;
    if let Some(target) = &settings.report_changes {
        changes::write_report(&changes, target)?;
    }
    let notified = settings
        .indexnow
        .as_ref()
        .and_then(|indexnow| notify_indexnow(&runtime, indexnow, &summary, &changes));
    Ok(Crawled {
        store,
        run,
        summary,
        notes,
        published,
        changes,
        lastmod_kept,
        not_listed,
        resumed,
        notified,
        started,
        started_at,
        _lock: lock,
        _database: database,
    })
}

/// The browser pages are rendered in, unless `--render never`. None is found: `always`
/// cannot run; `auto` runs, and warns if a page needs rendering. A browser named with
/// `--chrome` or `$CHROME` must exist.
fn browser_executable(settings: &CrawlSettings) -> Result<Option<PathBuf>, Failure> {
    let mode = settings.crawl.render;
    if mode == RenderMode::Never {
        return Ok(None);
    }
    match find_browser(settings.render.chrome.as_deref()) {
        Ok(executable) => Ok(Some(executable)),
        Err(BrowserMissing::NotFound) if mode == RenderMode::Auto => Ok(None),
        Err(error) => {
            let mode = if mode == RenderMode::Always {
                "always"
            } else {
                "auto"
            };
            Err(Failure::usage(anyhow::anyhow!("--render {mode}: {error}")))
        }
    }
}

/// Begins this run: a new one, or with `--resume` the interrupted one, with where it stood.
/// Runs a killed process left unfinished are marked failed.
fn start_run(
    store: &mut Store,
    settings: &CrawlSettings,
    seed: &Url,
) -> anyhow::Result<(RunId, Option<ResumePoint>)> {
    if settings.resume
        && let Some((run, RunStatus::Running | RunStatus::Interrupted)) =
            store.latest_run_status()?
    {
        let state = store.resume_state(run)?;
        store.reopen_run(run)?;
        let parse = |text: &str| Url::parse(text).ok();
        let point = ResumePoint {
            finished: state.finished.iter().filter_map(|url| parse(url)).collect(),
            pending: state
                .pending
                .iter()
                .filter_map(|(source, depth, target)| {
                    Some((parse(source)?, *depth, parse(target)?))
                })
                .collect(),
        };
        tracing::info!(run = run.0, finished = point.finished.len(), "resuming");
        return Ok((run, Some(point)));
    }
    if settings.resume {
        tracing::warn!("--resume: no interrupted run to continue; starting a new one");
    }
    let abandoned = store.abandon_unfinished_runs()?;
    if abandoned > 0 {
        tracing::info!(abandoned, "unfinished earlier runs marked failed");
    }
    Ok((store.begin_run(seed.as_str())?, None))
}

/// Stores what this run lists and compares it with the previous complete run.
fn record_changes(
    store: &mut Store,
    run: RunId,
    summary: &CrawlSummary,
) -> anyhow::Result<ChangeReport> {
    store.record_listing(run)?;
    let changes = store.change_report(run)?;
    let counts = changes.previous.map(|_| changes.counts());
    store.record_run_counts(run, summary.requests, summary.revalidated, counts)?;
    Ok(changes)
}

/// The change report in the URLs the sitemaps publish (`--map-host`): it is read with them,
/// and IndexNow is told of them.
fn published_changes(mut changes: ChangeReport, host_map: &HostMap) -> ChangeReport {
    if host_map.is_empty() {
        return changes;
    }
    for urls in [
        &mut changes.added,
        &mut changes.removed,
        &mut changes.changed,
    ] {
        for url in urls.iter_mut() {
            *url = host_map.publish_text(url).into_owned();
        }
    }
    changes
}

/// The proxy the browser goes through: `--proxy` without its credentials (Chromium takes
/// none on its command line, and they would show in the process list), or, without
/// `--proxy`, the environment's, which Chromium reads itself.
fn browser_proxy(settings: &CrawlSettings) -> Option<String> {
    let proxy = settings.crawl.network.proxy.as_ref()?;
    if !proxy.username().is_empty() {
        tracing::warn!(
            "the browser cannot authenticate to the proxy: pages rendered may miss what their scripts fetch"
        );
    }
    Some(shown_proxy(proxy))
}

/// Notifies IndexNow of what changed since the previous run. A failure is reported but does
/// not fail the run: the sitemap is published already. Returns what to say in the summary.
fn notify_indexnow(
    runtime: &tokio::runtime::Runtime,
    indexnow: &IndexNow,
    summary: &CrawlSummary,
    changes: &ChangeReport,
) -> Option<String> {
    if changes.previous.is_none() {
        return Some("IndexNow: first run, nothing to compare with: not notified.".to_string());
    }
    let counts = changes.counts();
    if counts.added + counts.removed + counts.changed == 0 {
        return Some("IndexNow: nothing changed: not notified.".to_string());
    }
    let published_root = indexnow.host_map.to_published(&summary.scope.root);
    let host = published_root.host_str().unwrap_or_default();
    match runtime.block_on(indexnow.notify(host, changes, &summary.addresses)) {
        Ok(notified) => Some(format!(
            "IndexNow: notified {} of {} URLs in {} request(s).",
            indexnow.endpoint, notified.urls, notified.batches
        )),
        Err(error) => {
            tracing::error!("{error:#}");
            None
        }
    }
}

/// A crawl database belongs to one scope (docs/design.md, Safety): a run of another site on it
/// would mix two sites' pages into one sitemap, report the first site's URLs as removed, and
/// send them to IndexNow. A new database is bound to this run's scope; a database from
/// before scopes were recorded is bound to the scope of its newest run's seed.
fn claim_scope(store: &mut Store, scope: &Url) -> Result<(), Failure> {
    let bound = match store.scope()? {
        Some(bound) => Some(bound),
        None => store
            .latest_seed()?
            .and_then(|seed| Url::parse(&seed).ok())
            .map(|seed| Crawler::scope_root(&seed).to_string()),
    };
    if let Some(bound) = bound
        && bound != scope.as_str()
    {
        return Err(Failure::usage(anyhow::anyhow!(
            "the crawl database {} belongs to {bound}, not {scope}: give each site its own --state file",
            store.path().display()
        )));
    }
    store.bind_scope(scope.as_str())?;
    Ok(())
}

/// The signals that stop a crawl gracefully.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StopSignal {
    /// Ctrl-C (SIGINT).
    Interrupt,
    /// SIGTERM: what systemd, batch schedulers and `kill` send.
    Terminate,
}

impl StopSignal {
    pub(crate) fn exit_status(self) -> ExitStatus {
        match self {
            StopSignal::Interrupt => ExitStatus::Interrupted,
            StopSignal::Terminate => ExitStatus::Terminated,
        }
    }

    pub(crate) fn describe(self) -> &'static str {
        match self {
            StopSignal::Interrupt => "interrupted",
            StopSignal::Terminate => "terminated (SIGTERM)",
        }
    }
}

/// The first Ctrl-C or SIGTERM stops the crawl gracefully: no new request, nothing
/// published. A second one ends the process at once.
async fn stop_on_signals(stopper: CrawlStopper, received: Arc<OnceLock<StopSignal>>) {
    let Some(signal) = next_stop_signal().await else {
        return;
    };
    let _ = received.set(signal);
    // One plain line, above the progress line: the requests in flight still end.
    crate::progress::print_line(match signal {
        StopSignal::Interrupt => {
            "Stopping: no new request, nothing published (Ctrl-C again quits at once)."
        }
        StopSignal::Terminate => "SIGTERM: stopping, nothing published.",
    });
    stopper.stop();
    if let Some(second) = next_stop_signal().await {
        std::process::exit(second.exit_status() as i32);
    }
}

/// Waits for SIGINT or SIGTERM; `None` when no handler could be installed.
#[cfg(unix)]
pub(crate) async fn next_stop_signal() -> Option<StopSignal> {
    use tokio::signal::unix::{SignalKind, signal};
    let mut terminate = signal(SignalKind::terminate()).ok()?;
    tokio::select! {
        interrupted = tokio::signal::ctrl_c() => interrupted.ok().map(|()| StopSignal::Interrupt),
        terminated = terminate.recv() => terminated.map(|()| StopSignal::Terminate),
    }
}

/// Waits for Ctrl-C; `None` when no handler could be installed.
#[cfg(not(unix))]
pub(crate) async fn next_stop_signal() -> Option<StopSignal> {
    tokio::signal::ctrl_c()
        .await
        .ok()
        .map(|()| StopSignal::Interrupt)
}

/// What a failed run did not touch, for its error line.
fn left_as_it_was(settings: &CrawlSettings) -> String {
    match &settings.out {
        OutputTarget::Path(directory) => format!(
            "{} left as it was",
            directory.join(ROOT_FILE_NAME).display()
        ),
        OutputTarget::Stdout => "nothing printed".to_string(),
    }
}

/// Applies the site-wide rules that need the whole run (session parameters, canonicals), so
/// that every verdict is final; then reads the URLs not listed, writing them all to
/// `--list-not-listed`. That list is written even when nothing turns out listable: it says why.
fn settle(
    store: &mut Store,
    run: RunId,
    settings: &CrawlSettings,
    summary: &CrawlSummary,
) -> anyhow::Result<NotListed> {
    store.exclude_session_urls(run, &summary.session_parameters)?;
    store.resolve_canonicals(run)?;
    not_listed::gather(store, run, settings.list_not_listed.as_ref())
}

/// The crawl database: the user's `--state` file, or a temporary one removed at the end.
#[derive(Debug)]
struct Database {
    path: PathBuf,
    _temporary: Option<tempfile::TempDir>,
}

impl Database {
    fn open(state: Option<&Path>) -> anyhow::Result<Database> {
        match state {
            Some(path) => Ok(Database {
                path: path.to_path_buf(),
                _temporary: None,
            }),
            None => {
                let directory = tempfile::Builder::new()
                    .prefix("sitemapper-")
                    .tempdir()
                    .context("cannot create a temporary crawl database")?;
                Ok(Database {
                    path: directory.path().join("crawl.db"),
                    _temporary: Some(directory),
                })
            }
        }
    }

    fn open_store(&self) -> anyhow::Result<Store> {
        Ok(Store::open(&self.path)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(text: &str) -> Url {
        Url::parse(text).unwrap_or_else(|error| panic!("{text}: {error}"))
    }

    #[test]
    fn a_database_is_claimed_by_its_first_scope_and_refused_to_others() {
        let directory = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
        let mut store = Store::open(&directory.path().join("crawl.db"))
            .unwrap_or_else(|error| panic!("{error}"));
        assert!(claim_scope(&mut store, &url("https://e.com/blog/")).is_ok());
        assert!(claim_scope(&mut store, &url("https://e.com/blog/")).is_ok());
        let refused = claim_scope(&mut store, &url("https://e.com/"))
            .err()
            .unwrap_or_else(|| panic!("another scope was accepted"));
        assert_eq!(refused.status, ExitStatus::Usage);
        assert!(
            refused
                .error
                .to_string()
                .contains("belongs to https://e.com/blog/")
        );
    }

    #[test]
    fn a_database_from_before_scopes_were_recorded_belongs_to_its_newest_seed() {
        let directory = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
        let mut store = Store::open(&directory.path().join("crawl.db"))
            .unwrap_or_else(|error| panic!("{error}"));
        store
            .begin_run("https://e.com/docs/index.html")
            .unwrap_or_else(|error| panic!("{error}"));
        assert!(claim_scope(&mut store, &url("https://other.example/")).is_err());
        assert!(claim_scope(&mut store, &url("https://e.com/docs/")).is_ok());
        assert_eq!(
            store
                .scope()
                .unwrap_or_else(|error| panic!("{error}"))
                .as_deref(),
            Some("https://e.com/docs/")
        );
    }
}
