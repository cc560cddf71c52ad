//! One running Chromium: its process, the task that drives its DevTools connection, its
//! profile directory (removed with it), and the sampler of its memory.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use chromiumoxide::Page;
use chromiumoxide::browser::{Browser, BrowserConfig};
use chromiumoxide::cdp::browser_protocol::browser::BrowserContextId;
use chromiumoxide::cdp::browser_protocol::browser::{
    CloseParams, SetDownloadBehaviorBehavior, SetDownloadBehaviorParams,
};
use chromiumoxide::cdp::browser_protocol::page::NavigateParams;
use chromiumoxide::cdp::browser_protocol::target::{
    CloseTargetParams, CreateBrowserContextParams, CreateTargetParams, TargetId,
};
use futures_util::StreamExt;
use tokio::sync::watch;
use tokio::task::JoinHandle;

use crate::gate::{Gate, GateStartError};
use crate::{ChromiumOptions, memory, running_as_root};

/// How often the browser's memory is sampled.
const MEMORY_SAMPLE: Duration = Duration::from_millis(250);

/// Pages one tab shows before it is closed and a new one started (what a page leaves behind
/// in its renderer process stays bounded).
const TAB_PAGES: u32 = 50;

/// Chromium's switches: headless, nothing in the background (updates, sync, metrics), no
/// GPU, no images decoded, no pop-ups.
const SWITCHES: &[&str] = &[
    "disable-background-networking",
    "disable-background-timer-throttling",
    "disable-backgrounding-occluded-windows",
    "disable-renderer-backgrounding",
    "disable-breakpad",
    "disable-client-side-phishing-detection",
    "disable-component-extensions-with-background-pages",
    "disable-component-update",
    "disable-default-apps",
    "disable-domain-reliability",
    "disable-field-trial-config",
    "disable-search-engine-choice-screen",
    "disable-sync",
    "disable-gpu",
    "disable-dev-shm-usage",
    "disable-prompt-on-repost",
    "metrics-recording-only",
    "no-first-run",
    "no-default-browser-check",
    "no-pings",
    "no-service-autorun",
    "mute-audio",
    "hide-scrollbars",
    "password-store=basic",
    "use-mock-keychain",
    "blink-settings=imagesEnabled=false",
];

/// The features turned off: background services; one renderer process per tab, so that a
/// page whose script never ends cannot stall the pages of the same site beside it
/// (`ProcessPerSiteUpToMainFrameThreshold` would put them in one process); and the
/// back-forward cache, which would keep every page a reused tab showed alive in memory.
const DISABLED_FEATURES: &str = "Translate,MediaRouter,OptimizationHints,AutofillServerCommunication,NetworkTimeServiceQuerying,CertificateTransparencyComponentUpdater,InterestFeedContentSuggestions,AimEnabled,AimServerEligibilityEnabled,ProcessPerSiteUpToMainFrameThreshold,BackForwardCache";

/// Chromium's checks of requests to private networks: off, since Chromium connects nowhere but
/// to the gate, and the crawl's address policy decides (checked again on every connection the
/// crawl's fetcher makes, so a name that resolves elsewhere once checked gains nothing).
const LOCAL_NETWORK_CHECKS: &str = "LocalNetworkAccessChecks,BlockInsecurePrivateNetworkRequests,PrivateNetworkAccessSendPreflights";

/// No host reaches the network but through the gate: loopback included, which Chromium
/// would otherwise reach directly.
const NO_BYPASS: &str = "<-loopback>";

/// The switches that make the gate the browser's one way out: its own requests go to the
/// browser's lane, and the gate's TLS end is trusted by its key, and only it.
fn gate_switches(gate: &Gate) -> Vec<String> {
    vec![
        format!("proxy-server={}", gate.browser_proxy),
        format!("proxy-bypass-list={NO_BYPASS}"),
        format!("ignore-certificate-errors-spki-list={}", gate.key_hash),
    ]
}

/// A tab kept for the next page, and how many pages it has shown.
#[derive(Debug)]
pub(crate) struct IdleTab {
    pub(crate) page: Page,
    pub(crate) pages_shown: u32,
}

/// Why the browser could not be started.
#[derive(Debug, thiserror::Error)]
pub(crate) enum LaunchError {
    /// Its profile directory could not be made.
    #[error("cannot create its profile directory: {0}")]
    Profile(std::io::Error),
    /// Its gate could not be started.
    #[error("cannot start its gate: {0}")]
    Gate(#[from] GateStartError),
    /// The driver refused the options (its message).
    #[error("{0}")]
    Options(String),
    /// The process did not start or did not answer: the first line of what the driver said.
    #[error("{0}")]
    Start(String),
}

/// A browser process and its DevTools connection.
#[derive(Debug)]
pub(crate) struct LiveBrowser {
    pub(crate) browser: Browser,
    /// The browser's one way out; its lanes are the tabs' (see `gate`).
    pub(crate) gate: Gate,
    /// The browser context of each lane, whose proxy is the lane's port.
    contexts: Vec<BrowserContextId>,
    /// Whether the DevTools connection is open; false once the browser died or closed.
    alive: Arc<watch::Sender<bool>>,
    driver: JoinHandle<()>,
    sampler: Option<JoinHandle<()>>,
    /// Tabs a page was read in, blank again, for the next pages: one per lane at most.
    idle_tabs: std::sync::Mutex<Vec<Option<IdleTab>>>,
    /// The profile directory, removed when the browser is dropped.
    _profile: tempfile::TempDir,
}

impl LiveBrowser {
    /// Starts the browser behind a gate of its own, with a lane for each of `options.tabs`;
    /// its memory is sampled into `peak_memory`, what its gate refuses because no page made it
    /// is counted in `not_from_a_page`.
    pub(crate) async fn launch(
        options: &ChromiumOptions,
        peak_memory: Arc<AtomicU64>,
        not_from_a_page: Arc<AtomicU64>,
    ) -> Result<LiveBrowser, LaunchError> {
        let gate = Gate::start(options.tabs.max(1), not_from_a_page).await?;
        let profile = tempfile::Builder::new()
            .prefix("sitemapper-chromium-")
            .tempdir()
            .map_err(LaunchError::Profile)?;
        let mut builder = BrowserConfig::builder()
            .chrome_executable(&options.executable)
            .disable_default_args()
            .new_headless_mode()
            .user_data_dir(profile.path())
            .launch_timeout(Duration::from_secs(20))
            .request_timeout(Duration::from_secs(30))
            .respect_https_errors()
            .args(SWITCHES.iter().copied())
            .args(gate_switches(&gate))
            .arg(format!("user-agent={}", options.user_agent))
            .arg(format!(
                "disable-features={DISABLED_FEATURES},{LOCAL_NETWORK_CHECKS}"
            ));
        if running_as_root() {
            // Chromium's sandbox cannot start as root (README, JavaScript-built sites).
            tracing::warn!(
                "running as root: Chromium runs without its sandbox (run sitemapper as another user to keep it)"
            );
            builder = builder.no_sandbox();
        }
        let config = builder.build().map_err(LaunchError::Options)?;
        let (mut browser, mut handler) = Browser::launch(config)
            .await
            .map_err(|error| LaunchError::Start(first_line(&error.to_string())))?;
        let alive = Arc::new(watch::Sender::new(true));
        let driver = {
            let alive = Arc::clone(&alive);
            tokio::spawn(async move {
                // A message that cannot be read is skipped; the connection ends when the
                // browser closes it, or fails when the browser dies.
                while let Some(event) = handler.next().await {
                    if let Err(chromiumoxide::error::CdpError::Ws(error)) = event {
                        tracing::debug!(%error, "the browser's connection failed");
                        break;
                    }
                }
                alive.send_replace(false);
            })
        };
        let process = browser.get_mut_child().and_then(|child| child.inner.id());
        let sampler = process.map(|pid| {
            let alive = Arc::clone(&alive);
            tokio::spawn(async move {
                while *alive.borrow() {
                    let sample = tokio::task::spawn_blocking(move || memory::tree_memory(pid));
                    if let Ok(Some(bytes)) = sample.await {
                        peak_memory.fetch_max(bytes, Ordering::Relaxed);
                    }
                    tokio::time::sleep(MEMORY_SAMPLE).await;
                }
            })
        });
        let deny_downloads = SetDownloadBehaviorParams {
            behavior: SetDownloadBehaviorBehavior::Deny,
            browser_context_id: None,
            download_path: None,
            events_enabled: None,
        };
        if let Err(error) = browser.execute(deny_downloads).await {
            tracing::debug!(%error, "downloads could not be denied");
        }
        let mut contexts = Vec::new();
        for lane in &gate.lanes {
            let context = CreateBrowserContextParams {
                proxy_server: Some(format!("http://127.0.0.1:{}", lane.port)),
                proxy_bypass_list: Some(NO_BYPASS.to_string()),
                ..CreateBrowserContextParams::default()
            };
            match browser.create_browser_context(context).await {
                Ok(id) => contexts.push(id),
                Err(error) => {
                    let _ = browser.kill().await;
                    return Err(LaunchError::Start(format!(
                        "cannot make a browser context: {}",
                        first_line(&error.to_string())
                    )));
                }
            }
        }
        tracing::info!(browser = %options.executable.display(), "browser started");
        Ok(LiveBrowser {
            browser,
            idle_tabs: std::sync::Mutex::new((0..contexts.len()).map(|_| None).collect()),
            contexts,
            gate,
            alive,
            driver,
            sampler,
            _profile: profile,
        })
    }

    /// Whether the browser's connection is still open.
    pub(crate) fn is_alive(&self) -> bool {
        *self.alive.borrow() && !self.driver.is_finished()
    }

    /// Returns once the browser's connection is gone: a render in flight fails at once
    /// instead of waiting for its timeout.
    pub(crate) async fn died(&self) {
        let mut alive = self.alive.subscribe();
        let _ = alive.wait_for(|alive| !alive).await;
    }

    /// The tab of `lane` that showed pages before and is blank now, if one is kept.
    pub(crate) fn idle_tab(&self, lane: usize) -> Option<IdleTab> {
        self.idle_tabs
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
            .get_mut(lane)
            .and_then(Option::take)
    }

    /// A new tab in `lane`'s browser context, whose requests go through the lane.
    pub(crate) async fn new_tab(
        &self,
        lane: usize,
    ) -> Result<Page, chromiumoxide::error::CdpError> {
        let mut target = CreateTargetParams::new("about:blank");
        target.browser_context_id = self.contexts.get(lane).cloned();
        self.browser.new_page(target).await
    }

    /// Takes back a tab whose page was read: blank again, it shows the next page, which
    /// saves starting a tab and its renderer process per page. A tab that showed
    /// [`TAB_PAGES`] pages, or does not turn blank, is closed.
    pub(crate) async fn keep_tab(&self, lane: usize, tab: IdleTab) {
        if tab.pages_shown < TAB_PAGES {
            let blank = tab.page.execute(NavigateParams::new("about:blank"));
            if let Ok(Ok(_)) = tokio::time::timeout(Duration::from_secs(2), blank).await
                && let Some(slot) = self
                    .idle_tabs
                    .lock()
                    .unwrap_or_else(|poison| poison.into_inner())
                    .get_mut(lane)
            {
                *slot = Some(tab);
                return;
            }
        }
        self.close_tab(tab.page.target_id().clone()).await;
    }

    /// Closes a tab, whatever its page is doing (a script in an endless loop included).
    pub(crate) async fn close_tab(&self, target: TargetId) {
        let closing = self.browser.execute(CloseTargetParams::new(target));
        if let Ok(Err(error)) = tokio::time::timeout(Duration::from_secs(5), closing).await {
            tracing::debug!(%error, "closing a tab");
        }
    }

    /// Closes the browser and waits for its process to end.
    pub(crate) async fn shut_down(self: Arc<Self>) {
        let Ok(mut browser) = Arc::try_unwrap(self) else {
            // A page still renders: the process is killed when the last one lets go.
            return;
        };
        let closing = browser.browser.execute(CloseParams::default());
        let _ = tokio::time::timeout(Duration::from_secs(5), closing).await;
        if tokio::time::timeout(Duration::from_secs(5), browser.browser.wait())
            .await
            .is_err()
        {
            let _ = browser.browser.kill().await;
        }
        browser.alive.send_replace(false);
        if let Some(sampler) = browser.sampler.take() {
            sampler.abort();
        }
    }
}

impl Drop for LiveBrowser {
    fn drop(&mut self) {
        self.alive.send_replace(false);
        self.driver.abort();
    }
}

fn first_line(text: &str) -> String {
    text.lines().next().unwrap_or_default().to_string()
}
