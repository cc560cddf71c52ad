//! One site's run, in phases: open (check what it writes, lock, claim the crawl database for
//! the seed's scope, begin the run), crawl (with the recorder writing every event into the
//! database), settle (the site-wide rules that need the whole run), publish, report what
//! changed, notify. A run that fails in any phase is recorded as failed, an early return
//! included: [`RunGuard`] sees to it.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use sitemapper_crawl::{
    CrawlEvent, CrawlProgress, CrawlSummary, Crawler, PaceBoard, RenderMode, Renderer,
    RequestObserver,
};
use sitemapper_render::{BrowserMissing, Chromium, ChromiumOptions, find_browser};
use sitemapper_sitemap::{Published, StagingDir, Written, published_names};
use sitemapper_store::{ChangeReport, KeepFailed, KeptPages, RunId, Store};
use tokio::sync::{mpsc, watch};
use tracing::Instrument;
use url::Url;

use crate::changes::{self, notify_indexnow, published_changes, record_changes};
use crate::database::{Database, RunGuard, claim_scope, start_run};
use crate::error::SiteError;
use crate::guard;
use crate::history::StoreHistory;
use crate::lock::RunLock;
use crate::media::MediaReport;
use crate::not_listed::{self, NotListed};
use crate::publish::{Staging, publish};
use crate::record::{EventCounts, Notes, Recorder};
use crate::resume::StoreResume;
use crate::settings::{PriorityRule, SiteSettings};
use crate::sitemap_seeds::{ReadSitemaps, SeedSitemaps};
use crate::spill::StoreSpill;
use crate::stdout::{ProcessStdout, Stdout};

/// Events in flight between the crawl and the recorder. When the recorder falls behind, the
/// crawl waits for it: each event holds a page's links, so this bounds what they take (about
/// 10 MB of pages with a hundred links each).
const EVENT_CHANNEL_CAPACITY: usize = 1024;

/// Shown how a run goes while it crawls: the binary draws its progress line from it.
pub trait Watcher {
    /// The crawl begins: `crawl` counts its requests and queue, `recorded` what the crawl
    /// database received.
    fn crawl_started(&mut self, crawl: Arc<CrawlProgress>, recorded: Arc<EventCounts>);
    /// The crawl has ended: every request is done.
    fn crawl_ended(&mut self);
}

/// How a run fits in the program that runs it. The default: a run of its own, stopped by
/// nothing but its end, shown to nobody.
#[derive(Default)]
pub struct RunContext<'a> {
    /// When it becomes `true`, the crawl stops: no new request, nothing published, the run
    /// recorded as interrupted (to continue with [`SiteSettings::resume`]).
    pub stop: Option<watch::Receiver<bool>>,
    /// The pace of each server, shared with the other runs of the process (a fleet).
    pub pace: Option<Arc<PaceBoard>>,
    /// Told of every request of the crawl (a fleet's metrics).
    pub requests: Option<Arc<dyn RequestObserver>>,
    /// Keeps the site's own sitemaps the crawl read as seeds (an audit compares them).
    pub read_sitemaps: Option<ReadSitemaps>,
    /// Shown the run's progress.
    pub watcher: Option<&'a mut dyn Watcher>,
    /// Where what the settings send to stdout goes; `None`: the process's standard output.
    pub stdout: Option<&'a dyn Stdout>,
}

impl std::fmt::Debug for RunContext<'_> {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("RunContext")
            .field("stop", &self.stop)
            .field("pace", &self.pace)
            .field("requests", &self.requests)
            .field("read_sitemaps", &self.read_sitemaps)
            .field("watcher", &self.watcher.is_some())
            .field("stdout", &self.stdout.is_some())
            .finish()
    }
}

/// A finished, published run, with what a summary, an audit or a fleet's record needs.
#[derive(Debug)]
pub struct SiteRun {
    /// The crawl database, open.
    pub store: Store,
    /// This run in it.
    pub run: RunId,
    /// What the crawl reports besides its pages.
    pub summary: CrawlSummary,
    /// What the recorder saw besides pages.
    pub notes: Notes,
    /// What was written and published; with stdout, no file is published.
    pub published: (Vec<Written>, Published),
    /// The videos and news articles the sitemaps carry, and those left out.
    pub media: MediaReport,
    /// What changed since the previous complete run, in the URLs the sitemaps publish.
    pub changes: ChangeReport,
    /// Pages that served a new `Last-Modified` over the same content, whose lastmod was kept.
    pub lastmod_kept: u64,
    /// URLs the last complete run listed that failed this time in a way that may pass and
    /// stay listed, and those dropped after failing too many runs in a row.
    pub kept: KeptPages,
    /// The URLs not listed: a few of each reason.
    pub not_listed: NotListed,
    /// Whether the run continued an interrupted one.
    pub resumed: bool,
    /// What to say of IndexNow, when it was asked for.
    pub notified: Option<String>,
    /// When the run started.
    pub started: Instant,
    /// When the run started, on the clock.
    pub started_at: jiff::Timestamp,
    /// Held until the caller is done with the output directory and the database.
    _lock: RunLock,
    /// Keeps a temporary database alive as long as the store.
    _database: Database,
}

/// Crawls `settings.seed`, records every URL in the crawl database, publishes the sitemaps of
/// the listable ones, reports what changed and notifies IndexNow. Nothing is published unless
/// every phase before publishing succeeded: on an error until then the previous sitemap stays
/// as it was. An error once the sitemaps are published (a change report that cannot be
/// written) is [`SiteError::AfterPublishing`], with the run recorded failed, so that the next
/// run's change report holds its changes; a failed notification is only logged.
///
/// A bad night never makes a worse sitemap (docs/design.md, Output): a URL the last complete
/// run listed that fails in a way that may pass stays listed (`--keep-failed`), a run in
/// which most requests failed so publishes nothing, and neither does one that would lose
/// more than `--max-shrink` of what the output directory publishes now. An output directory
/// the run created is removed again when the run fails and it is still empty.
pub fn run(settings: &SiteSettings, context: RunContext<'_>) -> Result<SiteRun, SiteError> {
    let created = settings
        .out
        .path()
        .filter(|directory| !directory.exists())
        .map(Path::to_path_buf);
    let outcome = run_phases(settings, context);
    if outcome.is_err()
        && let Some(directory) = created
    {
        // Only an empty directory goes: whatever else came to be there stays.
        if std::fs::remove_dir(&directory).is_ok() {
            tracing::debug!(path = %directory.display(), "removed the output directory the failed run created");
        }
    }
    outcome
}

/// The run's phases, in order (see [`run`]).
fn run_phases(settings: &SiteSettings, context: RunContext<'_>) -> Result<SiteRun, SiteError> {
    let started = Instant::now();
    let started_at = jiff::Timestamp::now();
    let stdout = context.stdout.unwrap_or(&ProcessStdout);
    let opened = Opened::open(settings, context.read_sitemaps)?;
    let run = opened.run;
    // From here on the run is in the database: it ends recorded as failed unless it ends
    // otherwise.
    let mut guard = RunGuard::new(&opened.database.path, run);
    let crawler = match context.requests {
        Some(observer) => opened.crawler.with_request_observer(observer),
        None => opened.crawler,
    };
    let crawled = crawl(
        settings,
        crawler,
        &opened.seed,
        opened.browser,
        opened.store,
        run,
        context.stop,
        context.pace,
        context.watcher,
    )?;
    let Crawled {
        summary,
        mut store,
        notes,
        runtime,
    } = crawled;
    let summary = ended(settings, summary, &opened.database, &mut guard)?;
    let not_listed = settle(&mut store, run, settings, &summary, stdout)?;
    let kept = store.kept_pages(run, opened.kept_from)?;
    if settings.publishes_sitemaps {
        guard::check_failures(&store, run, settings)?;
        guard::check_shrink(&store, run, settings)?;
    }
    let (written, published, media) =
        publish(&mut store, run, settings, &summary, opened.staging, stdout)?;
    let published = (written, published);
    let (changes, lastmod_kept) =
        report_changes(&mut store, run, settings, &summary, &mut guard, stdout)
            .map_err(|error| SiteError::AfterPublishing(Box::new(error)))?;
    // IndexNow is told of what the site publishes: an audit's sitemap beside its report is
    // not published.
    let notified = settings
        .indexnow
        .as_ref()
        .filter(|_| settings.publishes_sitemaps)
        .and_then(|indexnow| notify_indexnow(&runtime, indexnow, &summary, &changes));
    Ok(SiteRun {
        store,
        run,
        summary,
        notes,
        published,
        media,
        changes,
        lastmod_kept,
        kept,
        not_listed,
        resumed: opened.resumed,
        notified,
        started,
        started_at,
        _lock: opened.lock,
        _database: opened.database,
    })
}

/// The run as the open phase leaves it: locked, claimed, begun, nothing fetched yet.
struct Opened {
    crawler: Crawler,
    seed: Url,
    browser: Option<PathBuf>,
    lock: RunLock,
    staging: Staging,
    database: Database,
    store: Store,
    run: RunId,
    resumed: bool,
    /// The last complete run, whose listing pages that fail this time keep.
    kept_from: Option<RunId>,
}

impl Opened {
    /// Checks what can be checked before any request, locks the output directory and the
    /// crawl database, claims the database for the seed's scope and begins the run (or
    /// continues the interrupted one). A path the run cannot write (the output directory,
    /// the crawl database, the reports) fails the run now, not after an hour of crawling.
    fn open(
        settings: &SiteSettings,
        read_sitemaps: Option<ReadSitemaps>,
    ) -> Result<Opened, SiteError> {
        let mut config = settings.crawl.clone();
        // What the sitemaps need of each page: its language to split by (its own hreflang,
        // else its <html lang>) and an article's; the structured data videos and articles
        // are read from.
        let by_language = settings.split.needs_language();
        config.page_details |= by_language || settings.news.is_some();
        config.collect_alternates |= by_language;
        config.structured_data |= settings.video || settings.news.is_some();
        // A priority by depth counts the links scripts draw on every page of a template,
        // which the crawl learns only as it renders: they are recorded with each page's own,
        // and the depths settled with them once the crawl ends.
        config.record_links |=
            settings.priority == Some(PriorityRule::Depth) && config.render == RenderMode::Auto;
        // What earlier runs published where the site serves it is never a seed.
        if settings.publishes_sitemaps
            && let Some(directory) = settings.out.path()
        {
            config.own_sitemaps = published_names(directory).into_iter().collect();
        }
        let crawler = Crawler::new(config);
        let seed = crawler
            .parse_seed(&settings.seed)
            .map_err(SiteError::Seed)?;
        let browser = browser_executable(settings)?;
        // The lock comes before anything is written in the output directory, so that nothing
        // there is touched while another run uses it (the check leaves nothing behind).
        settings.check_outputs()?;
        let out_directory = settings.out.path();
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
        // An audit reports the site as it answered: only a run that publishes keeps failed pages.
        let kept_from = store
            .previous_complete_run(run)?
            .filter(|_| settings.publishes_sitemaps);
        store.keep_failed_pages(kept_from.map(|from| KeepFailed {
            from,
            runs: settings.keep_failed,
        }));
        let spill = StoreSpill::new(database.open_store()?)?;
        let mut crawler = crawler
            .with_spill(Arc::new(spill))
            .with_sitemap_reader(Arc::new(SeedSitemaps::new(
                settings.crawl.host_map.clone(),
                read_sitemaps,
            )));
        if settings.state.is_some() {
            let connections =
                std::thread::available_parallelism().map_or(2, std::num::NonZeroUsize::get);
            let stores = (0..connections)
                .map(|_| database.open_store())
                .collect::<Result<Vec<_>, _>>()?;
            let history = StoreHistory::new(stores);
            crawler = crawler.with_history(Arc::new(history));
        }
        if let Some(cursor) = resume {
            let source = StoreResume::new(database.open_store()?, cursor);
            crawler = crawler.with_resume(Box::new(source));
        }
        Ok(Opened {
            crawler,
            seed,
            browser,
            lock,
            staging,
            database,
            store,
            run,
            resumed,
            kept_from,
        })
    }
}

/// Records what the published sitemaps list and what changed since the previous complete run,
/// writes the change report, and only then records the run complete. The next run's report
/// compares with the last complete run: a run whose report could not be written is left
/// failed, so that its changes are reported with the next one's rather than lost.
fn report_changes(
    store: &mut Store,
    run: RunId,
    settings: &SiteSettings,
    summary: &CrawlSummary,
    guard: &mut RunGuard,
    stdout: &dyn Stdout,
) -> Result<(ChangeReport, u64), SiteError> {
    let changes = published_changes(
        record_changes(store, run, summary)?,
        &settings.crawl.host_map,
    );
    let lastmod_kept = store.kept_lastmod_count(run)?;
    if let Some(target) = &settings.report_changes {
        changes::write_report(&changes, target, stdout)?;
    }
    guard.complete(store)?;
    Ok((changes, lastmod_kept))
}

/// What the crawl phase hands on: the crawl's ending, the store back from the recorder, and
/// the runtime the last phase notifies on.
struct Crawled {
    summary: Result<CrawlSummary, sitemapper_crawl::CrawlError>,
    store: Store,
    notes: Notes,
    runtime: tokio::runtime::Runtime,
}

/// Crawls from `seed` while the recorder writes every event into the database; stops when
/// `stop` says so.
#[expect(
    clippy::too_many_arguments,
    reason = "the phase takes what the open phase made and the context's parts, each once"
)]
fn crawl(
    settings: &SiteSettings,
    mut crawler: Crawler,
    seed: &Url,
    browser: Option<PathBuf>,
    store: Store,
    run: RunId,
    stop: Option<watch::Receiver<bool>>,
    pace: Option<Arc<PaceBoard>>,
    mut watcher: Option<&mut dyn Watcher>,
) -> Result<Crawled, SiteError> {
    if let Some(pace) = pace {
        crawler = crawler.with_pace_board(pace);
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(SiteError::Runtime)?;
    let browser = browser.map(|executable| {
        Arc::new(Chromium::new(ChromiumOptions {
            executable,
            tabs: settings.render.tabs,
            timeout: settings.render.timeout,
            user_agent: settings.crawl.user_agent.clone(),
        }))
    });
    if let Some(browser) = &browser {
        crawler = crawler.with_renderer(Arc::clone(browser) as Arc<dyn Renderer>);
    }
    let counts = Arc::new(EventCounts::default());
    let (sender, receiver) = mpsc::channel::<CrawlEvent>(EVENT_CHANNEL_CAPACITY);
    let recorder = Recorder::spawn(store, run, receiver, Arc::clone(&counts));
    if let Some(watcher) = watcher.as_deref_mut() {
        watcher.crawl_started(crawler.progress(), counts);
    }
    if let Some(mut stop) = stop {
        let stopper = crawler.stopper();
        runtime.spawn(async move {
            if stop.wait_for(|stop| *stop).await.is_ok() {
                stopper.stop();
            }
        });
    }
    // The caller's span (a fleet's site) follows the crawl into its runtime.
    let summary = runtime.block_on(
        crawler
            .run(seed, sender)
            .instrument(tracing::Span::current()),
    );
    if let Some(browser) = &browser {
        runtime.block_on(browser.shut_down());
    }
    if let Ok(summary) = &summary {
        for (host, requests) in &summary.render.requests.other_hosts {
            tracing::info!(%host, requests, "the browser fetched from another host");
        }
    }
    if let Some(watcher) = watcher {
        watcher.crawl_ended();
    }
    let (store, notes) = recorder.finish()?;
    Ok(Crawled {
        summary,
        store,
        notes,
        runtime,
    })
}

/// How the crawl ended: a summary to publish from, or why nothing is published.
fn ended(
    settings: &SiteSettings,
    summary: Result<CrawlSummary, sitemapper_crawl::CrawlError>,
    database: &Database,
    guard: &mut RunGuard,
) -> Result<CrawlSummary, SiteError> {
    let summary = summary.map_err(|error| SiteError::Crawl {
        error,
        untouched: settings.untouched(),
    })?;
    if summary.interrupted {
        guard.stopped();
        return Err(SiteError::Stopped {
            pages: summary.pages_visited,
            requests: summary.requests,
            untouched: settings.untouched(),
            state: settings.state.clone(),
        });
    }
    if summary.urls_lost > 0 {
        return Err(SiteError::UrlsLost {
            lost: summary.urls_lost,
            database: database.path.clone(),
            untouched: settings.untouched(),
        });
    }
    Ok(summary)
}

/// The browser pages are rendered in, unless `--render never`. None is found: `always`
/// cannot run; `auto` runs, and warns if a page needs rendering. A browser named with
/// `--chrome` or `$CHROME` must exist.
fn browser_executable(settings: &SiteSettings) -> Result<Option<PathBuf>, SiteError> {
    let mode = settings.crawl.render;
    if mode == RenderMode::Never {
        return Ok(None);
    }
    match find_browser(settings.render.chrome.as_deref()) {
        Ok(executable) => Ok(Some(executable)),
        Err(BrowserMissing::NotFound) if mode == RenderMode::Auto => Ok(None),
        Err(error) => Err(SiteError::Browser {
            mode: if mode == RenderMode::Always {
                "always"
            } else {
                "auto"
            },
            error,
        }),
    }
}

/// Applies the site-wide rules that need the whole run (session parameters, canonicals), so
/// that every verdict is final; then reads the URLs not listed, writing them all to
/// `--list-not-listed`. That list is written even when nothing turns out listable: it says why.
fn settle(
    store: &mut Store,
    run: RunId,
    settings: &SiteSettings,
    summary: &CrawlSummary,
    stdout: &dyn Stdout,
) -> Result<NotListed, SiteError> {
    store.exclude_session_urls(run, &summary.session_parameters)?;
    store.resolve_canonicals(run)?;
    not_listed::gather(store, run, settings.list_not_listed.as_ref(), stdout)
}

#[cfg(test)]
mod tests {
    use sitemapper_crawl::CrawlConfig;
    use sitemapper_store::RunStatus;

    use super::*;
    use crate::error::ErrorKind;
    use crate::fixture::{Answer, names_in, serve};
    use crate::lock::LockError;
    use crate::output_target::OutputTarget;
    use crate::run::SiteRun;

    /// A sitemap an earlier run published, to be left as it was by a run that fails.
    const PREVIOUS_SITEMAP: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
<url><loc>https://e.com/earlier</loc></url>
</urlset>
"#;

    /// How the newest run of the crawl database ended, if it has one.
    fn latest_status(database: &Path) -> Option<RunStatus> {
        Store::open(database)
            .and_then(|store| store.latest_run_status())
            .unwrap_or_else(|error| panic!("{error}"))
            .map(|(_, status)| status)
    }

    /// A run of `seed` into `out` that keeps its crawl database in `database`.
    fn settings(seed: String, out: OutputTarget, database: &Path) -> SiteSettings {
        let crawl = CrawlConfig {
            render: RenderMode::Never,
            ..CrawlConfig::default()
        };
        SiteSettings {
            state: Some(database.to_path_buf()),
            ..SiteSettings::new(seed, out, crawl)
        }
    }

    fn failed(outcome: Result<SiteRun, SiteError>) -> SiteError {
        outcome
            .err()
            .unwrap_or_else(|| panic!("the run published a sitemap"))
    }

    #[test]
    fn a_site_with_nothing_indexable_fails_and_leaves_the_published_sitemap_as_it_was() {
        const SITE: &[(&str, Answer)] = &[(
            "/",
            Answer::Html(
                r#"<html><head><meta name="robots" content="noindex"><title>Private</title></head><body><p>Nothing to list.</p></body></html>"#,
            ),
        )];
        let out = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
        let state = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
        let database = state.path().join("crawl.db");
        let sitemap = out.path().join("sitemap.xml");
        std::fs::write(&sitemap, PREVIOUS_SITEMAP).unwrap_or_else(|error| panic!("{error}"));
        let settings = settings(
            serve(SITE),
            OutputTarget::Path(out.path().to_path_buf()),
            &database,
        );

        let error = failed(run(&settings, RunContext::default()));

        assert!(
            matches!(error, SiteError::NothingListed { .. }),
            "{error:?}"
        );
        assert_eq!(error.kind(), ErrorKind::Fatal);
        assert_eq!(
            std::fs::read(&sitemap).unwrap_or_else(|error| panic!("{error}")),
            PREVIOUS_SITEMAP.as_bytes()
        );
        assert_eq!(
            names_in(out.path()),
            ["sitemap.xml"],
            "no staging directory is left behind"
        );
        assert_eq!(latest_status(&database), Some(RunStatus::Failed));
    }

    #[test]
    fn a_stop_asked_before_the_crawl_starts_ends_the_run_interrupted_with_nothing_published() {
        // The seed links to a page that never answers, so that the crawl cannot run out of
        // links before the stop reaches it.
        const SITE: &[(&str, Answer)] = &[
            (
                "/",
                Answer::Html(r#"<title>Home</title><a href="/never">Never</a>"#),
            ),
            ("/never", Answer::Never),
        ];
        let out = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
        let state = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
        let database = state.path().join("crawl.db");
        let settings = settings(
            serve(SITE),
            OutputTarget::Path(out.path().to_path_buf()),
            &database,
        );
        let (stop, stopped) = watch::channel(true);
        let context = RunContext {
            stop: Some(stopped),
            ..RunContext::default()
        };

        let error = failed(run(&settings, context));
        drop(stop);

        assert!(
            matches!(&error, SiteError::Stopped { state: Some(path), .. } if *path == database),
            "{error:?}"
        );
        assert_eq!(error.kind(), ErrorKind::Stopped);
        assert_eq!(latest_status(&database), Some(RunStatus::Interrupted));
        assert!(!out.path().join("sitemap.xml").exists());
    }

    #[test]
    fn a_run_on_what_another_run_holds_is_refused_before_it_records_anything() {
        let out = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
        let state = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
        let database = state.path().join("crawl.db");
        let sitemap = out.path().join("sitemap.xml");
        std::fs::write(&sitemap, PREVIOUS_SITEMAP).unwrap_or_else(|error| panic!("{error}"));
        // No site is served: a run that got past the lock would fail on its seed instead.
        let settings = settings(
            "http://127.0.0.1:9/".to_string(),
            OutputTarget::Path(out.path().to_path_buf()),
            &database,
        );
        for held in [out.path(), database.as_path()] {
            let other_run = RunLock::acquire(&[held]).unwrap_or_else(|error| panic!("{error}"));

            let error = failed(run(&settings, RunContext::default()));

            assert!(
                matches!(error, SiteError::Lock(LockError::Busy(_))),
                "{}: {error:?}",
                held.display()
            );
            assert_eq!(error.kind(), ErrorKind::Locked);
            drop(other_run);
        }
        assert_eq!(
            std::fs::read(&sitemap).unwrap_or_else(|error| panic!("{error}")),
            PREVIOUS_SITEMAP.as_bytes()
        );
        assert_eq!(latest_status(&database), None);
    }
}
