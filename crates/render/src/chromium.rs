//! [`Chromium`], the crawl's [`Renderer`]: one browser started on the first page that needs
//! it, a bounded number of tabs, and a browser that dies started again, at most
//! [`MAX_RESTARTS`] times per run.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};

use sitemapper_crawl::{
    BoxFuture, BrowserReport, RenderFailure, RenderRequest, RenderedPage, Renderer, RequestLog,
};
use tokio::sync::{Mutex, Semaphore};

use crate::browser::LiveBrowser;
use crate::options::{ChromiumOptions, MAX_RESTARTS};
use crate::tab;

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

    fn tabs(&self) -> usize {
        self.options.tabs.max(1)
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
