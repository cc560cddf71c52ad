//! Rendering pages built by JavaScript in the installed Chromium, driven over the DevTools
//! protocol (docs/design.md, `crates/render`).
//!
//! [`Chromium`] implements the crawl's [`Renderer`]: one browser process, started on the first
//! page that needs it, a bounded number of tabs, and one way out for every connection the
//! browser opens: a proxy on loopback that hands each request to the crawl's gate (`gate`).
//! The page's own document is answered with the response the crawl already has (the DevTools
//! Fetch domain), so the server sees one request per page. A tab is done when the page has loaded, no request is in flight and no
//! element was added for [`QUIET`]; a tab that is not done within the timeout is closed, one
//! whose page was read shows the next page. A browser that dies is started again, at most
//! [`MAX_RESTARTS`] times per run.
//!
//! [`print_to_pdf`] prints one local page to PDF in a browser started for it alone.

mod browser;
mod gate;
mod memory;
mod owned;
mod peer;
mod print;
mod process;
mod tab;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::time::Duration;

use sitemapper_crawl::{
    BoxFuture, BrowserReport, RenderFailure, RenderRequest, RenderedPage, Renderer, RequestLog,
};
use tokio::sync::{Mutex, Semaphore};

use browser::LiveBrowser;
pub use owned::{OwnedDirectory, Removal, remove_abandoned};
pub use print::{PdfLayout, PrintError, print_to_pdf};

/// How long a page must stay quiet (no request in flight, no element added) to be done.
pub const QUIET: Duration = Duration::from_millis(500);

/// Browser restarts after crashes in one run before rendering stops.
pub const MAX_RESTARTS: u32 = 3;

/// The render timeout's default.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

/// The tabs' default: pages rendered at once.
pub const DEFAULT_TABS: usize = 2;

/// The browsers looked for on `PATH`, in this order, when none is named.
pub const BROWSER_NAMES: &[&str] = &[
    "chromium",
    "chromium-browser",
    "google-chrome",
    "google-chrome-stable",
];

/// How the browser is run.
#[derive(Debug, Clone)]
pub struct ChromiumOptions {
    /// The browser's executable.
    pub executable: PathBuf,
    /// Pages rendered at once, each in its own tab.
    pub tabs: usize,
    /// How long a page may take to settle.
    pub timeout: Duration,
    /// The User-Agent of the browser's requests: the crawl's.
    pub user_agent: String,
}

/// No browser to render with.
#[derive(Debug, Clone, thiserror::Error)]
pub enum BrowserMissing {
    /// The browser named (`--chrome`, `$CHROME`) is not an executable file.
    #[error("the browser {path} ({source_name}) is not an executable file")]
    NotExecutable {
        /// The path given.
        path: String,
        /// Where it was given.
        source_name: &'static str,
    },
    /// None of [`BROWSER_NAMES`] is on `PATH`.
    #[error(
        "no browser found: install Chromium (apt install chromium) or pass --chrome PATH (looked for {} on PATH)",
        BROWSER_NAMES.join(", ")
    )]
    NotFound,
}

/// The browser to render with: `explicit` (`--chrome`), else `$CHROME`, else the first of
/// [`BROWSER_NAMES`] on `PATH`.
pub fn find_browser(explicit: Option<&Path>) -> Result<PathBuf, BrowserMissing> {
    let named = explicit
        .map(|path| (path.to_path_buf(), "--chrome"))
        .or_else(|| {
            std::env::var_os("CHROME")
                .filter(|value| !value.is_empty())
                .map(|value| (PathBuf::from(value), "$CHROME"))
        });
    if let Some((path, source_name)) = named {
        // A bare name is looked up on PATH, as a shell would.
        let found = if path.components().count() == 1 {
            on_path(&path)
        } else {
            Some(path.clone()).filter(|path| is_executable(path))
        };
        return found.ok_or_else(|| BrowserMissing::NotExecutable {
            path: path.display().to_string(),
            source_name,
        });
    }
    BROWSER_NAMES
        .iter()
        .find_map(|name| on_path(Path::new(name)))
        .ok_or(BrowserMissing::NotFound)
}

fn on_path(name: &Path) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|directory| directory.join(name))
        .find(|candidate| is_executable(candidate))
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path)
        .is_ok_and(|metadata| metadata.is_file() && metadata.permissions().mode() & 0o111 != 0)
}

/// Headless Chromium, started on first use.
#[derive(Debug)]
pub struct Chromium {
    options: ChromiumOptions,
    tabs: Semaphore,
    browser: Mutex<BrowserSlot>,
    started: AtomicBool,
    restarts: AtomicU32,
    peak_memory: Arc<AtomicU64>,
    /// The lanes of the gate no page renders in now (see `gate`): one per tab.
    free_lanes: std::sync::Mutex<Vec<usize>>,
    /// Requests no rendered page made, refused by the gate.
    not_from_a_page: Arc<AtomicU64>,
}

#[derive(Debug)]
enum BrowserSlot {
    /// Not running: started by the next page.
    Stopped,
    Running(Arc<LiveBrowser>),
    /// Cannot be used any more in this run, for this reason.
    GaveUp(String),
}

impl Chromium {
    /// A browser run with `options`; nothing starts until a page is rendered.
    pub fn new(options: ChromiumOptions) -> Chromium {
        Chromium {
            tabs: Semaphore::new(options.tabs.max(1)),
            free_lanes: std::sync::Mutex::new((0..options.tabs.max(1)).collect()),
            not_from_a_page: Arc::new(AtomicU64::new(0)),
            options,
            browser: Mutex::new(BrowserSlot::Stopped),
            started: AtomicBool::new(false),
            restarts: AtomicU32::new(0),
            peak_memory: Arc::new(AtomicU64::new(0)),
        }
    }

    /// The running browser, started when it is not.
    async fn running(&self) -> Result<Arc<LiveBrowser>, RenderFailure> {
        let mut slot = self.browser.lock().await;
        match &*slot {
            BrowserSlot::Running(browser) => return Ok(Arc::clone(browser)),
            BrowserSlot::GaveUp(reason) => return Err(RenderFailure::Unavailable(reason.clone())),
            BrowserSlot::Stopped => {}
        }
        let launched = LiveBrowser::launch(
            &self.options,
            Arc::clone(&self.peak_memory),
            Arc::clone(&self.not_from_a_page),
        )
        .await;
        match launched {
            Ok(browser) => {
                self.started.store(true, Ordering::Relaxed);
                let browser = Arc::new(browser);
                *slot = BrowserSlot::Running(Arc::clone(&browser));
                Ok(browser)
            }
            // Started before in this run: the browser died while it started again.
            Err(error) if self.started.load(Ordering::Relaxed) => {
                tracing::debug!(%error, "the browser did not start again");
                Err(self.crashed(&mut slot))
            }
            Err(error) => {
                let reason = format!(
                    "cannot start {}: {error}",
                    self.options.executable.display()
                );
                *slot = BrowserSlot::GaveUp(reason.clone());
                Err(RenderFailure::Unavailable(reason))
            }
        }
    }

    /// The browser died: the next page starts another one, unless it died too often.
    fn crashed(&self, slot: &mut BrowserSlot) -> RenderFailure {
        let restarts = self.restarts.load(Ordering::Relaxed);
        if restarts >= MAX_RESTARTS {
            let reason = format!("the browser crashed {} times", restarts + 1);
            *slot = BrowserSlot::GaveUp(reason.clone());
            return RenderFailure::Unavailable(reason);
        }
        self.restarts.fetch_add(1, Ordering::Relaxed);
        tracing::warn!("the browser crashed: starting it again");
        *slot = BrowserSlot::Stopped;
        RenderFailure::Failed("the browser crashed".to_string())
    }

    /// After a page failed in `browser`: did the browser itself die?
    async fn after_failure(
        &self,
        browser: &Arc<LiveBrowser>,
        failure: RenderFailure,
    ) -> RenderFailure {
        if browser.is_alive() {
            return failure;
        }
        let mut slot = self.browser.lock().await;
        match &*slot {
            BrowserSlot::Running(current) if Arc::ptr_eq(current, browser) => {
                self.crashed(&mut slot)
            }
            // Another page found it dead first.
            BrowserSlot::GaveUp(reason) => RenderFailure::Unavailable(reason.clone()),
            _ => RenderFailure::Failed("the browser crashed".to_string()),
        }
    }

    /// Stops the browser, if it runs.
    pub async fn shut_down(&self) {
        let mut slot = self.browser.lock().await;
        if let BrowserSlot::Running(browser) = std::mem::replace(&mut *slot, BrowserSlot::Stopped) {
            browser.shut_down().await;
        }
    }

    async fn render_page(&self, request: RenderRequest<'_>) -> Result<RenderedPage, RenderFailure> {
        let _tab = self
            .tabs
            .acquire()
            .await
            .map_err(|_| RenderFailure::Unavailable("the browser was shut down".to_string()))?;
        let browser = self.running().await?;
        // A tab permit is held: a lane is free.
        let lane = self
            .free_lanes
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .pop()
            .unwrap_or_default();
        let log = std::sync::Mutex::new(RequestLog::default());
        let rendered = tokio::select! {
            rendered = tab::render(&browser, lane, &request, self.options.timeout, &log) => rendered,
            () = browser.died() => Err(tab::TabError::Failed("the browser died".to_string())),
        };
        self.free_lanes
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push(lane);
        let log = log
            .into_inner()
            .unwrap_or_else(|poison| poison.into_inner());
        match rendered {
            Ok(html) => Ok(RenderedPage {
                html,
                requests: log,
            }),
            Err(tab::TabError::TimedOut) => Err(RenderFailure::TimedOut(log)),
            Err(tab::TabError::Failed(reason)) => Err(self
                .after_failure(&browser, RenderFailure::Failed(reason))
                .await),
        }
    }
}

impl Renderer for Chromium {
    fn render<'a>(
        &'a self,
        request: RenderRequest<'a>,
    ) -> BoxFuture<'a, Result<RenderedPage, RenderFailure>> {
        Box::pin(self.render_page(request))
    }

    fn report(&self) -> BrowserReport {
        let peak = self.peak_memory.load(Ordering::Relaxed);
        BrowserReport {
            started: self.started.load(Ordering::Relaxed),
            restarts: self.restarts.load(Ordering::Relaxed),
            peak_memory: (peak > 0).then_some(peak),
            not_from_a_page: self.not_from_a_page.load(Ordering::Relaxed),
        }
    }
}

/// Whether this process runs as root, where Chromium's sandbox cannot start.
fn running_as_root() -> bool {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata("/proc/self").is_ok_and(|metadata| metadata.uid() == 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_named_browser_must_be_an_executable_file() {
        let missing = find_browser(Some(Path::new("/nonexistent/chromium")));
        assert!(
            matches!(
                &missing,
                Err(BrowserMissing::NotExecutable {
                    source_name: "--chrome",
                    ..
                })
            ),
            "{missing:?}"
        );
        let directory = find_browser(Some(Path::new("/")));
        assert!(directory.is_err(), "{directory:?}");
        let shell = find_browser(Some(Path::new("/bin/sh")));
        assert_eq!(shell.ok(), Some(PathBuf::from("/bin/sh")));
        let on_path = find_browser(Some(Path::new("sh")));
        assert!(on_path.is_ok_and(|path| path.ends_with("sh")));
    }
}
