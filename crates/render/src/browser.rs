//! One running Chromium: how it is started (its command line in [`arguments`]), the task that
//! drives its DevTools connection, and the sampler of its memory. Its processes and profile
//! directory are bound to sitemapper's life by the process module.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use chromiumoxide::browser::Browser;
use chromiumoxide::cdp::browser_protocol::browser::BrowserContextId;
use chromiumoxide::cdp::browser_protocol::browser::{
    CloseParams, SetDownloadBehaviorBehavior, SetDownloadBehaviorParams,
};
use chromiumoxide::cdp::browser_protocol::page::{
    SetWebLifecycleStateParams, SetWebLifecycleStateState,
};
use chromiumoxide::cdp::browser_protocol::target::{
    CloseTargetParams, CreateBrowserContextParams, CreateTargetParams, TargetId,
};
use chromiumoxide::handler::HandlerConfig;
use chromiumoxide::handler::viewport::Viewport;
use chromiumoxide::{Handler, Page};
use futures_util::StreamExt;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::ChildStderr;
use tokio::sync::watch;
use tokio::task::JoinHandle;

use crate::gate::{Gate, GateStartError};
use crate::memory;
use crate::options::ChromiumOptions;
use crate::process::running_as_root;
use crate::process::{self, BrowserProcess, Profile};

/// How often the browser's memory is sampled.
const MEMORY_SAMPLE: Duration = Duration::from_millis(250);

/// Pages one tab shows before it is closed and a new one started (what a page leaves behind
/// in its renderer process stays bounded).
const TAB_PAGES: u32 = 50;

/// Chromium's switches: headless, nothing in the background (updates, sync, metrics), no
/// GPU, no images decoded, no pop-ups. Site isolation is off: in the lanes' browser contexts it
/// starts a renderer process for every page a kept tab shows (measured: 36 for 40 pages,
/// against 4 without it), and a crawler's tabs hold nothing of a user's that another site's
/// page could read (frames are never loaded, the site's secrets are added by the gate).
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
    "disable-site-isolation-trials",
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
/// (`ProcessPerSiteUpToMainFrameThreshold` would put them in one process); the back-forward
/// cache, which would keep every page a reused tab showed alive in memory; and the address
/// bar's popups, which Chromium otherwise renders ahead for every window, headless too (two
/// renderer processes of 70 to 150 MiB each per browser context, measured).
const DISABLED_FEATURES: &str = "Translate,MediaRouter,OptimizationHints,AutofillServerCommunication,NetworkTimeServiceQuerying,CertificateTransparencyComponentUpdater,InterestFeedContentSuggestions,AimEnabled,AimServerEligibilityEnabled,ProcessPerSiteUpToMainFrameThreshold,BackForwardCache,WebUIOmniboxPopup,WebUIOmniboxAimPopup";

/// Chromium's checks of requests to private networks: off, since Chromium connects nowhere but
/// to the gate, and the crawl's address policy decides (checked again on every connection the
/// crawl's fetcher makes, so a name that resolves elsewhere once checked gains nothing).
const LOCAL_NETWORK_CHECKS: &str = "LocalNetworkAccessChecks,BlockInsecurePrivateNetworkRequests,PrivateNetworkAccessSendPreflights";

/// No host reaches the network but through the gate: loopback included, which Chromium
/// would otherwise reach directly.
const NO_BYPASS: &str = "<-loopback>";

/// How long the browser may take to start and say where it listens for DevTools.
const LAUNCH_TIMEOUT: Duration = Duration::from_secs(20);

/// How long one DevTools command may take.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);

/// How long a browser asked to close may take before what is left of it is killed.
const CLOSE_GRACE: Duration = Duration::from_secs(5);

/// Chromium's command line: every switch it is started with, built here and nowhere else.
/// Its only way out is `gate`: its own requests go to the browser's lane, and the gate's TLS
/// end is trusted by its key, and only it. `as_root`: Chromium's sandbox cannot start
/// (docs/rendering.md).
fn arguments(options: &ChromiumOptions, gate: &Gate, profile: &Path, as_root: bool) -> Vec<String> {
    let mut arguments = vec![
        "--headless=new".to_string(),
        // Any free port; the address is read from the line Chromium writes on stderr.
        "--remote-debugging-port=0".to_string(),
        format!("--user-data-dir={}", profile.display()),
        "--disable-extensions".to_string(),
    ];
    arguments.extend(SWITCHES.iter().map(|switch| format!("--{switch}")));
    arguments.push(format!("--user-agent={}", options.user_agent));
    arguments.push(format!(
        "--disable-features={DISABLED_FEATURES},{LOCAL_NETWORK_CHECKS}"
    ));
    arguments.push(format!("--proxy-server={}", gate.browser_proxy));
    arguments.push(format!("--proxy-bypass-list={NO_BYPASS}"));
    arguments.push(format!(
        "--ignore-certificate-errors-spki-list={}",
        gate.key_hash
    ));
    if as_root {
        arguments.push("--no-sandbox".to_string());
        arguments.push("--disable-setuid-sandbox".to_string());
    }
    // The window Chromium opens at start shows a blank page, not its new tab page (a renderer
    // of its own for nothing).
    arguments.push("about:blank".to_string());
    arguments
}

/// How the DevTools connection treats the browser's targets.
fn handler_config() -> HandlerConfig {
    HandlerConfig {
        // Chromium talks TLS to the gate only, whose key it trusts; the gate checks the
        // site's certificate as the crawl does.
        ignore_https_errors: false,
        ignore_invalid_messages: true,
        viewport: Some(Viewport::default()),
        context_ids: Vec::new(),
        request_timeout: REQUEST_TIMEOUT,
        request_intercept: false,
        cache_enabled: true,
    }
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
    /// A browser context, for a lane of the gate, could not be made.
    #[error("cannot make a browser context: {0}")]
    Context(String),
    /// Its processes did not start.
    #[error(transparent)]
    Process(#[from] process::StartError),
    /// It ended before it said where it listens: the last line it wrote.
    #[error("it ended before it listened for DevTools: {0}")]
    Ended(String),
    /// It did not say where it listens within [`LAUNCH_TIMEOUT`].
    #[error("it did not listen for DevTools within {} s", LAUNCH_TIMEOUT.as_secs())]
    TimedOut,
    /// Its DevTools address did not answer: the first line of what the driver said.
    #[error("cannot connect to it: {0}")]
    Connect(String),
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
    /// Tabs a page was read in, that page frozen, for the next pages: one per lane at most.
    idle_tabs: std::sync::Mutex<Vec<Option<IdleTab>>>,
    /// Its processes, guarded: dropped, what is left of them is killed and the profile removed.
    process: BrowserProcess,
}

impl LiveBrowser {
    /// Starts the browser behind a gate of its own, with a lane for each of `options.tabs`;
    /// its memory is sampled into `peak_memory`, what its gate refuses because no page made it
    /// is counted in `not_from_a_page`. Profiles that runs now gone left in the temp
    /// directory are removed first.
    pub(crate) async fn launch(
        options: &ChromiumOptions,
        peak_memory: Arc<AtomicU64>,
        not_from_a_page: Arc<AtomicU64>,
    ) -> Result<LiveBrowser, LaunchError> {
        let gate = Gate::start(options.tabs.max(1), not_from_a_page).await?;
        let (process, browser, mut handler) = start(options, &gate).await?;
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
        let sampler = process.id().map(|pid| {
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
            // On failure, the guard ends the processes as `process` is dropped.
            let id = browser
                .create_browser_context(context)
                .await
                .map_err(|error| LaunchError::Context(first_line(&error.to_string())))?;
            contexts.push(id);
        }
        tracing::info!(browser = %options.executable.display(), "browser started");
        Ok(LiveBrowser {
            browser,
            alive,
            driver,
            sampler,
            idle_tabs: std::sync::Mutex::new((0..contexts.len()).map(|_| None).collect()),
            contexts,
            gate,
            process,
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

    /// The tab of `lane` that showed pages before, if one is kept, its page active again
    /// (`None` too when it cannot be woken: it is closed).
    pub(crate) async fn idle_tab(&self, lane: usize) -> Option<IdleTab> {
        let tab = self
            .idle_tabs
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
            .get_mut(lane)
            .and_then(Option::take)?;
        let wake = tab.page.execute(SetWebLifecycleStateParams::new(
            SetWebLifecycleStateState::Active,
        ));
        if let Ok(Ok(_)) = tokio::time::timeout(Duration::from_secs(2), wake).await {
            return Some(tab);
        }
        self.close_tab(tab.page.target_id().clone()).await;
        None
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

    /// Takes back a tab whose page was read: its page frozen (its timers and requests
    /// stopped, as in a tab in the background), it shows the next page, which saves starting
    /// a tab and its renderer process per page, and a blank page between two. A tab that
    /// showed [`TAB_PAGES`] pages, or does not freeze, is closed.
    pub(crate) async fn keep_tab(&self, lane: usize, tab: IdleTab) {
        if tab.pages_shown < TAB_PAGES {
            let freeze = tab.page.execute(SetWebLifecycleStateParams::new(
                SetWebLifecycleStateState::Frozen,
            ));
            if let Ok(Ok(_)) = tokio::time::timeout(Duration::from_secs(2), freeze).await
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

    /// Closes the browser and waits for its processes to end and its profile to be removed.
    pub(crate) async fn shut_down(self: Arc<Self>) {
        let Ok(mut browser) = Arc::try_unwrap(self) else {
            // A page still renders: the processes are killed when the last one lets go.
            return;
        };
        let closing = browser.browser.execute(CloseParams::default());
        let _ = tokio::time::timeout(CLOSE_GRACE, closing).await;
        browser.process.end(CLOSE_GRACE).await;
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

/// Starts the browser's processes, guarded, and connects to its DevTools address.
async fn start(
    options: &ChromiumOptions,
    gate: &Gate,
) -> Result<(BrowserProcess, Browser, Handler), LaunchError> {
    let as_root = running_as_root();
    if as_root {
        tracing::warn!(
            "running as root: Chromium runs without its sandbox (run sitemapper as another user to keep it)"
        );
    }
    start_connected(&options.executable, handler_config(), |profile| {
        arguments(options, gate, profile, as_root)
    })
    .await
}

/// Starts `executable` with the command line `arguments` makes for a new profile directory,
/// guarded (see the process module), and connects to its DevTools address with `config`. The
/// command line must ask for `--remote-debugging-port=0`: the address is read from stderr.
pub(crate) async fn start_connected(
    executable: &Path,
    config: HandlerConfig,
    arguments: impl FnOnce(&Path) -> Vec<String>,
) -> Result<(BrowserProcess, Browser, Handler), LaunchError> {
    let profile = new_profile().await.map_err(LaunchError::Profile)?;
    let arguments = arguments(profile.path());
    let mut process = BrowserProcess::start(executable, &arguments, profile).await?;
    let stderr = process
        .take_stderr()
        .ok_or_else(|| LaunchError::Ended("its stderr was not kept".to_string()))?;
    let address = tokio::time::timeout(LAUNCH_TIMEOUT, devtools_address(stderr))
        .await
        .map_err(|_| LaunchError::TimedOut)??;
    let (browser, handler) = Browser::connect_with_config(address, config)
        .await
        .map_err(|error| LaunchError::Connect(first_line(&error.to_string())))?;
    Ok((process, browser, handler))
}

/// A new profile directory in the temp directory, after removing the ones runs now gone
/// left there (files are removed: off the async threads).
async fn new_profile() -> std::io::Result<Profile> {
    tokio::task::spawn_blocking(|| {
        let temp_dir = std::env::temp_dir();
        let profile = Profile::create(&temp_dir)?;
        process::remove_stale_profiles(&temp_dir, &profile);
        Ok(profile)
    })
    .await
    .map_err(std::io::Error::other)?
}

/// Reads the browser's stderr up to the line that says where it listens for DevTools
/// (`DevTools listening on ws://...`), and returns that address. The rest of its stderr is
/// read and dropped until the browser ends, so that no write of its fails.
async fn devtools_address(stderr: ChildStderr) -> Result<String, LaunchError> {
    let mut reader = BufReader::new(stderr);
    let mut line = Vec::new();
    let mut last_words = String::from("it wrote nothing");
    loop {
        line.clear();
        let read = reader
            .read_until(b'\n', &mut line)
            .await
            .map_err(|error| LaunchError::Ended(error.to_string()))?;
        if read == 0 {
            return Err(LaunchError::Ended(last_words));
        }
        let text = String::from_utf8_lossy(&line);
        if let Some((_, address)) = text.split_once("DevTools listening on ") {
            let address = address.trim().to_string();
            tokio::spawn(async move {
                let _ = tokio::io::copy(&mut reader, &mut tokio::io::sink()).await;
            });
            return Ok(address);
        }
        if !text.trim().is_empty() {
            last_words = text.trim().to_string();
        }
    }
}

fn first_line(text: &str) -> String {
    text.lines().next().unwrap_or_default().to_string()
}
