//! One page in one tab: the page's own document answered with the crawl's response, other
//! documents (navigations) and images refused, every other request sent on to the tab's lane
//! of the gate, which hands it to the page's gate; the DOM serialized once the page is quiet.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use base64::Engine;
use chromiumoxide::Page;
use chromiumoxide::cdp::browser_protocol::fetch::{
    self, ContinueRequestParams, EventRequestPaused, FailRequestParams, FulfillRequestParams,
    HeaderEntry, RequestPattern,
};
use chromiumoxide::cdp::browser_protocol::network::{
    ErrorReason, EventLoadingFailed, EventLoadingFinished, EventRequestWillBeSent, ResourceType,
};
use chromiumoxide::cdp::browser_protocol::page::{
    AddScriptToEvaluateOnNewDocumentParams, EventJavascriptDialogOpening, FrameId,
    HandleJavaScriptDialogParams, NavigateParams,
};
use chromiumoxide::cdp::browser_protocol::target::TargetId;
use chromiumoxide::cdp::js_protocol::runtime::EvaluateParams;
use futures_util::StreamExt;
use sitemapper_crawl::{RenderRequest, RequestLog};
use tokio::time::Instant;
use url::Url;

use crate::browser::{IdleTab, LiveBrowser};
use crate::options::QUIET;
use crate::settle::{self, Network};

/// How often a loading tab looks again whether its network is quiet, to ask the page.
const POLL: Duration = Duration::from_millis(10);

/// How long a page may take to say how long it has been still at the render timeout: a page
/// busy then is not done.
const LAST_LOOK: Duration = Duration::from_millis(500);

/// How long past the page's own limit its answer to whether it is done may take.
const ANSWER_GRACE: Duration = Duration::from_secs(1);

/// How long past the render timeout a page found done at the timeout may take to be read.
const READ_AT_TIMEOUT: Duration = Duration::from_secs(2);

/// Why a tab gave no DOM.
#[derive(Debug)]
pub(crate) enum TabError {
    /// The page was not done at the render timeout, nor done but for requests it had waited
    /// on for [`LONG_REQUEST`](crate::settle::LONG_REQUEST) (see `settle`).
    TimedOut,
    Failed(String),
}

impl From<chromiumoxide::error::CdpError> for TabError {
    fn from(error: chromiumoxide::error::CdpError) -> TabError {
        TabError::Failed(error.to_string())
    }
}

/// Renders `request`'s page in a tab kept from an earlier page, or a new one. A tab whose page
/// was read is kept for the next; one that timed out or failed is closed, whatever its page
/// is doing. A page done at `timeout` but for requests that never answered is read as
/// rendered (see `settle`); reading it may take [`READ_AT_TIMEOUT`] more.
pub(crate) async fn render(
    browser: &LiveBrowser,
    lane: usize,
    request: &RenderRequest<'_>,
    timeout: Duration,
    log: &Mutex<RequestLog>,
) -> Result<String, TabError> {
    let target: Mutex<Option<TargetId>> = Mutex::new(None);
    let open_lane = browser
        .gate
        .lanes
        .get(lane)
        .map(|lane| lane.open(Arc::clone(&request.gate)));
    let deadline = Instant::now() + timeout;
    let loaded = tokio::time::timeout(
        timeout + READ_AT_TIMEOUT,
        load(browser, lane, request, deadline, log, &target),
    )
    .await;
    // The page was read: its connections close, and whatever the tab sends until its next
    // page is refused.
    drop(open_lane);
    match loaded {
        Ok(Ok((html, tab))) => {
            let kept = Instant::now();
            browser.keep_tab(lane, tab).await;
            tracing::trace!(took = ?kept.elapsed(), "a tab kept for the next page");
            Ok(html)
        }
        failed => {
            let target = target
                .lock()
                .unwrap_or_else(|poison| poison.into_inner())
                .take();
            if let Some(target) = target {
                browser.close_tab(target).await;
            }
            failed
                .unwrap_or(Err(TabError::TimedOut))
                .map(|(html, _)| html)
        }
    }
}

/// A new tab in `lane`, every request of which is intercepted, with the init script in each
/// document.
async fn new_tab(browser: &LiveBrowser, lane: usize) -> Result<IdleTab, TabError> {
    let page = browser.new_tab(lane).await?;
    Ok(IdleTab {
        page,
        pages_shown: 0,
    })
}

async fn prepare(page: &Page) -> Result<(), TabError> {
    page.execute(AddScriptToEvaluateOnNewDocumentParams::new(
        settle::init_script(),
    ))
    .await?;
    page.execute(fetch::EnableParams {
        patterns: Some(vec![RequestPattern::builder().url_pattern("*").build()]),
        handle_auth_requests: None,
    })
    .await?;
    Ok(())
}

/// The request streams of one tab.
struct Listeners {
    paused: chromiumoxide::listeners::EventStream<EventRequestPaused>,
    sent: chromiumoxide::listeners::EventStream<EventRequestWillBeSent>,
    finished: chromiumoxide::listeners::EventStream<EventLoadingFinished>,
    failed: chromiumoxide::listeners::EventStream<EventLoadingFailed>,
    dialogs: chromiumoxide::listeners::EventStream<EventJavascriptDialogOpening>,
}

/// Where a tab's loading stands.
struct Loading {
    /// The main frame, once its document was requested.
    main_frame: Option<FrameId>,
    /// The page's requests, and whether they let it be done (see `settle`).
    network: Network,
}

async fn load(
    browser: &LiveBrowser,
    lane: usize,
    request: &RenderRequest<'_>,
    deadline: Instant,
    log: &Mutex<RequestLog>,
    target: &Mutex<Option<TargetId>>,
) -> Result<(String, IdleTab), TabError> {
    let started = Instant::now();
    let (mut tab, fresh) = match browser.idle_tab(lane).await {
        Some(tab) => (tab, false),
        None => (new_tab(browser, lane).await?, true),
    };
    let page = tab.page.clone();
    *target.lock().unwrap_or_else(|poison| poison.into_inner()) = Some(page.target_id().clone());
    let mut listeners = Listeners {
        paused: page.event_listener::<EventRequestPaused>().await?,
        sent: page.event_listener::<EventRequestWillBeSent>().await?,
        finished: page.event_listener::<EventLoadingFinished>().await?,
        failed: page.event_listener::<EventLoadingFailed>().await?,
        dialogs: page
            .event_listener::<EventJavascriptDialogOpening>()
            .await?,
    };
    if fresh {
        prepare(&page).await?;
    }
    let opened_at = started.elapsed();
    // The answer to the navigation may never come (a script's navigation, refused, can leave
    // it pending): the page is known to be there once its document was answered, and loaded
    // once its readyState says so.
    let navigate = page.execute(NavigateParams::new(request.url.as_str()));
    tokio::pin!(navigate);
    let mut answered = false;
    let mut loading = Loading {
        main_frame: None,
        network: Network::new(Instant::now()),
    };
    // The page's answers to whether it is done (see `settle`), asked in a task of their own so
    // that the tab's events go on being read meanwhile.
    let (answered_tx, mut answers) = tokio::sync::mpsc::unbounded_channel();
    let mut asking = false;
    let mut asked = false;
    let mut poll = tokio::time::interval(POLL);
    poll.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let give_up = tokio::time::sleep_until(deadline);
    tokio::pin!(give_up);
    loop {
        // Biased: of the events read together, starts come before ends.
        tokio::select! {
            biased;
            Some(event) = listeners.sent.next() => {
                // A request with no loader is a worker's script, loaded for the worker: its end
                // is reported to the worker, never to the tab.
                if event.loader_id.as_ref().is_empty() {
                    loading.network.started_unheard(Instant::now());
                } else {
                    loading.network.started(event.request_id.clone(), Instant::now());
                }
            }
            navigation = &mut navigate, if !answered => {
                if let Some(error) = navigation?.result.error_text {
                    return Err(TabError::Failed(format!("navigation failed: {error}")));
                }
                answered = true;
            }
            Some(event) = listeners.paused.next() => {
                loading.network.intercepted(Instant::now());
                let answer = decide(&page, request, &event, &mut loading, log);
                // A refused request's end may be reported elsewhere (a worker's) or not at all.
                if answer == Answer::Refused
                    && let Some(id) = event.network_id.clone()
                {
                    loading.network.ended(id, Instant::now());
                }
            }
            Some(event) = listeners.finished.next() => loading.network.ended(event.request_id.clone(), Instant::now()),
            Some(event) = listeners.failed.next() => {
                tracing::debug!(error = %event.error_text, blocked = ?event.blocked_reason, "a request of the browser failed");
                loading.network.ended(event.request_id.clone(), Instant::now());
            }
            Some(_) = listeners.dialogs.next() => {
                answer(&page, HandleJavaScriptDialogParams::new(false));
            }
            Some(settled) = answers.recv() => {
                asking = false;
                let now = Instant::now();
                tracing::trace!(?settled, in_flight = loading.network.in_flight(), since_request = ?loading.network.since_request(now), "a page answered whether it is done");
                if settled == Settled::Done && loading.network.is_quiet(now) {
                    break;
                }
            }
            () = &mut give_up => {
                let now = Instant::now();
                if loading.main_frame.is_some()
                    && loading.network.is_quiet_but_for_long_requests(now)
                    && still_for(&page).await? >= QUIET
                {
                    tracing::debug!(url = %request.url, in_flight = loading.network.in_flight(), "read at the render timeout: requests it waited on never answered");
                    break;
                }
                return Err(TabError::TimedOut);
            }
            _ = poll.tick() => {
                // The page is asked once its document was answered, and again whenever the
                // network is quiet: it answers once it is done, or at the render timeout.
                let now = Instant::now();
                if !asking
                    && loading.main_frame.is_some()
                    && (!asked || loading.network.is_quiet(now))
                {
                    asking = true;
                    asked = true;
                    let limit = deadline.saturating_duration_since(now);
                    tokio::spawn(ask_settled(page.clone(), limit, answered_tx.clone()));
                }
            }
        }
    }
    let quiet_at = started.elapsed();
    let (html, opened) = serialize(&page, request.max_html_bytes).await?;
    tracing::debug!(url = %request.url, fresh, tab = ?opened_at, quiet = ?quiet_at, read = ?started.elapsed(), "a page rendered");
    let mut log = log.lock().unwrap_or_else(|poison| poison.into_inner());
    for url in opened {
        if let Ok(url) = Url::parse(&url)
            && matches!(url.scheme(), "http" | "https")
        {
            log.navigations.push(url);
        }
    }
    tab.pages_shown += 1;
    Ok((html, tab))
}

/// What a page said when asked whether it is done.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Settled {
    /// Loaded, nothing pending, quiet and idle: the page's half of the rule holds.
    Done,
    /// Not done within its limit, or the tab still showed its blank page, or the answer did
    /// not come: the tab asks again.
    NotYet,
}

/// Asks the page whether it is done (`settle.js`, `__sitemapperSettled`): the page answers once
/// it is, or after `limit`. The answer is sent on `answers`.
async fn ask_settled(
    page: Page,
    limit: Duration,
    answers: tokio::sync::mpsc::UnboundedSender<Settled>,
) {
    let expression = format!(
        "window.__sitemapperSettled ? window.__sitemapperSettled({}) : -2",
        limit.as_millis()
    );
    let asking = evaluate(&page, expression, true);
    // An error: the document changed under the question (the tab's blank page gave way to
    // the page's), or the tab is going away.
    let settled = match tokio::time::timeout(limit + ANSWER_GRACE, asking).await {
        Ok(Ok(quiet)) if quiet.as_f64().is_some_and(|quiet| quiet >= 0.0) => Settled::Done,
        _ => Settled::NotYet,
    };
    let _ = answers.send(settled);
}

/// How long since the page last added an element or started a request, in ticks of its own
/// timers when it was idle (`settle.js`); zero while it loads or when it does not answer
/// within [`LAST_LOOK`].
async fn still_for(page: &Page) -> Result<Duration, TabError> {
    let asking = evaluate(
        page,
        "window.__sitemapperStillFor ? window.__sitemapperStillFor() : 0".to_string(),
        false,
    );
    // A page too busy to answer is not still; the render timeout bounds the wait.
    match tokio::time::timeout(LAST_LOOK, asking).await {
        Ok(still) => {
            let milliseconds = still?.as_f64().unwrap_or(0.0);
            Ok(Duration::from_secs_f64(milliseconds.max(0.0) / 1000.0))
        }
        Err(_) => Ok(Duration::ZERO),
    }
}

/// Run once the page is quiet: the document as HTML, with every open shadow root however
/// deep (a web component inside another) written as the declarative shadow root that would
/// make it (`<template shadowrootmode="open">`), which extraction reads as part of the page.
/// `outerHTML` leaves shadow roots out, and with them a menu made of web components. A closed
/// root is out of every other script's reach, this one's too. A browser without `getHTML`
/// (before Chromium 125) gives `outerHTML`. The HTML is cut at `MAX_BYTES` bytes of UTF-8, as
/// a body is, and at a character: a half surrogate pair would not cross over as JSON.
const SERIALIZE_SCRIPT: &str = r#"(() => {
  let html = document.doctype ? new XMLSerializer().serializeToString(document.doctype) : '';
  const root = document.documentElement;
  if (root && typeof root.getHTML === 'function') {
    const openShadowRoots = [];
    const scopes = [document];
    while (scopes.length > 0) {
      for (const element of scopes.pop().querySelectorAll('*')) {
        if (element.shadowRoot) {
          openShadowRoots.push(element.shadowRoot);
          scopes.push(element.shadowRoot);
        }
      }
    }
    const bare = root.cloneNode(false).outerHTML;
    const end = bare.lastIndexOf('</');
    const content = root.getHTML({ serializableShadowRoots: true, shadowRoots: openShadowRoots });
    html += bare.slice(0, end) + content + bare.slice(end);
  } else if (root) {
    html += root.outerHTML;
  }
  // A UTF-16 unit is at most 3 bytes of UTF-8: only a longer text may be too long.
  if (html.length * 3 > MAX_BYTES) {
    const { read } = new TextEncoder().encodeInto(html, new Uint8Array(MAX_BYTES));
    html = html.slice(0, read);
  }
  // The page was read: asked again whether it is done while the next page loads in the tab,
  // it says it is not the page asked about.
  if (!window.__sitemapperRead) Object.defineProperty(window, '__sitemapperRead', { value: true });
  return [html, Array.from(window.__sitemapperOpened || []).slice(0, 100)];
})()"#;

/// The DOM as HTML (see [`SERIALIZE_SCRIPT`]), and the URLs scripts tried to open.
async fn serialize(page: &Page, max_bytes: usize) -> Result<(String, Vec<String>), TabError> {
    let expression = SERIALIZE_SCRIPT.replace("MAX_BYTES", &max_bytes.to_string());
    let value = evaluate(page, expression, false).await?;
    serde_json::from_value(value)
        .map_err(|error| TabError::Failed(format!("cannot read the rendered DOM: {error}")))
}

/// Evaluates `expression` in the page's current document and returns its value, once settled
/// when it is a promise and `await_promise`. A plain `Runtime.evaluate`: it does not wait for
/// a navigation the tab was refused to finish.
async fn evaluate(
    page: &Page,
    expression: String,
    await_promise: bool,
) -> Result<serde_json::Value, TabError> {
    let mut parameters = EvaluateParams::new(expression);
    parameters.return_by_value = Some(true);
    parameters.await_promise = Some(await_promise);
    let evaluated = page.execute(parameters).await?.result;
    if let Some(exception) = evaluated.exception_details {
        return Err(TabError::Failed(format!(
            "a script of ours failed: {}",
            exception.text
        )));
    }
    Ok(evaluated.result.value.unwrap_or(serde_json::Value::Null))
}

/// Whether an intercepted request was let through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Answer {
    Sent,
    Refused,
}

/// Answers one intercepted request: the page's document from the crawl's response, images,
/// media and fonts refused, other documents (navigations, frames) aborted, the rest sent on
/// to the gate, whose rules decide.
fn decide(
    page: &Page,
    request: &RenderRequest<'_>,
    event: &EventRequestPaused,
    loading: &mut Loading,
    log: &Mutex<RequestLog>,
) -> Answer {
    let id = event.request_id.clone();
    let note = |update: &dyn Fn(&mut RequestLog)| {
        update(&mut log.lock().unwrap_or_else(|poison| poison.into_inner()));
    };
    if event.resource_type == ResourceType::Document {
        if loading.main_frame.is_none() {
            loading.main_frame = Some(event.frame_id.clone());
            loading.network.document_requested(Instant::now());
            answer(page, document_response(id, request));
            return Answer::Sent;
        }
        if loading.main_frame.as_ref() == Some(&event.frame_id)
            && let Ok(url) = Url::parse(&event.request.url)
        {
            // A script taking the tab elsewhere: a link to follow, not a place to go.
            note(&|log| log.navigations.push(url.clone()));
        }
        // Aborted, not failed: a failed navigation would put an error page in the tab.
        answer(page, FailRequestParams::new(id, ErrorReason::Aborted));
        return Answer::Refused;
    }
    if matches!(
        event.resource_type,
        ResourceType::Image
            | ResourceType::Media
            | ResourceType::Font
            | ResourceType::TextTrack
            | ResourceType::Ping
            | ResourceType::CspViolationReport
            | ResourceType::Manifest
    ) {
        note(&|log| log.skipped_resources += 1);
        return refuse(page, id);
    }
    answer(page, ContinueRequestParams::new(id));
    Answer::Sent
}

fn refuse(page: &Page, id: fetch::RequestId) -> Answer {
    answer(
        page,
        FailRequestParams::new(id, ErrorReason::BlockedByClient),
    );
    Answer::Refused
}

/// Sends `command` without waiting for its reply: the tab's events go on being read meanwhile
/// (the browser may hold a reply back until a refused navigation settles).
fn answer<T>(page: &Page, command: T)
where
    T: chromiumoxide::types::Command + Send + 'static,
    T::Response: Send,
{
    let page = page.clone();
    tokio::spawn(async move {
        if let Err(error) = page.execute(command).await {
            tracing::debug!(%error, "a tab did not take an answer");
        }
    });
}

/// The page's document, answered with the response the crawl already has.
fn document_response(id: fetch::RequestId, request: &RenderRequest<'_>) -> FulfillRequestParams {
    let content_type = request.content_type.unwrap_or("text/html").to_string();
    let mut response = FulfillRequestParams::new(id, 200);
    response.response_headers = Some(vec![HeaderEntry::new("Content-Type", content_type)]);
    response.body = Some(
        base64::engine::general_purpose::STANDARD
            .encode(request.body)
            .into(),
    );
    response
}
