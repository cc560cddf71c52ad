//! A page's HTML read, then rendered in the browser when the crawl decides it must be (see
//! `render`): the rendered DOM goes through the same extraction as the HTML, and what the two
//! disagree on is kept.

use std::collections::HashSet;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, PoisonError};

use reqwest::Method;

use sitemapper_extract::{Link, LinkKind, PageFacts, ResponseHeaders};
use url::Url;

use super::context::JobContext;
use super::extraction::extract_off_thread;
use super::job::Hop;
use super::progress::CrawlProgress;
use crate::classify::distinct_canonical;
use crate::event::{RenderDifference, Rendering, ResponseFacts};
use crate::fetch::{BrowserRequest, BrowserResponse};
use crate::render::{
    BoxFuture, Candidate, GateError, Refusal, RenderCall, RenderFailure, RenderRequest,
    RequestGate, RequestLog, ServedPage, Template, is_empty_without_scripts, shell_reason,
};
use crate::scope::Scope;

/// An HTML page that answered 200, read: as served, or as rendered.
#[derive(Debug, Default)]
pub(super) struct ReadPage {
    /// Its facts: the rendered DOM's when it was rendered, its HTML's otherwise.
    pub facts: Option<PageFacts>,
    /// How rendering went, when the page was rendered.
    pub rendering: Option<Rendering>,
    /// The pages of the site the rendered DOM links to and the HTML does not, normalized.
    pub rendered_only: HashSet<Url>,
    /// The pages of the site the rendered DOM links to, normalized.
    pub rendered_links: HashSet<Url>,
    /// The rendered DOM's canonical or noindex differ from the HTML's.
    pub differs: bool,
    /// Why the page was rendered, when it was, and its render succeeded.
    pub rendered_as: Option<RenderCall>,
    /// Its template ([`Template::key`]), when it runs scripts and the crawl counts the links
    /// templates' scripts draw.
    pub template: Option<u64>,
}

/// The facts of `hop`'s page, an HTML page that answered 200: its HTML's, or its rendered
/// DOM's when the crawl decides it is rendered (see `render`); `forced` renders it (a page
/// visited again for that).
pub(super) async fn read_page(
    context: &Arc<JobContext>,
    scope: &Arc<Scope>,
    hop: &Hop,
    facts: &ResponseFacts,
    page: ServedPage,
    forced: Option<RenderCall>,
    legacy_fingerprint: bool,
) -> ReadPage {
    let url = &hop.url;
    let ServedPage { headers, body } = page;
    let (raw, body) =
        extract_off_thread(context, url, headers.clone(), body, legacy_fingerprint).await;
    let Some(raw) = raw else {
        return ReadPage::default();
    };
    let state = &context.render;
    state.note_hash_routes(&raw.hash_routes);
    let as_served = |raw| ReadPage {
        facts: Some(raw),
        ..ReadPage::default()
    };
    if state.is_off() {
        return as_served(raw);
    }
    let has_site_links = raw.links.iter().any(|link| scope.contains(&link.url));
    let shell = shell_reason(&raw.shell, has_site_links);
    let candidate = Candidate {
        url: url.clone(),
        depth: hop.depth,
        referrer: hop.referrer.clone(),
        shell: shell.is_some(),
        empty: is_empty_without_scripts(&raw.shell, has_site_links),
        unfinished: raw
            .shell
            .unfinished
            .clone()
            .filter(|_| raw.shell.scripts > 0),
    };
    let template = Template::of(&raw.shell);
    let key = template
        .as_ref()
        .filter(|_| state.counts_script_links())
        .map(Template::key);
    let as_served = |raw| ReadPage {
        template: key,
        ..as_served(raw)
    };
    let looks_like_a_shell = shell.is_some();
    let Some(call) = state.decide(candidate, template.clone(), shell, forced) else {
        if looks_like_a_shell && let Some(template) = &template {
            // The page may stand for its template once links run out: kept, it need not
            // be requested again.
            let served = ServedPage { headers, body };
            state.offer(template, url, facts, served);
        }
        return as_served(raw);
    };
    let Some(renderer) = state.renderer() else {
        return as_served(raw);
    };
    // A page waits for a tab here, not in the browser: what a render teaches meanwhile (a
    // template learned) spares the pages still waiting.
    let Some(turn) = state.turn(&call).await else {
        return as_served(raw);
    };
    let gate = Arc::new(PageGate::new(context, scope));
    let request = RenderRequest {
        url,
        body: &body,
        content_type: headers.content_type.as_deref(),
        max_html_bytes: context.config.max_body_bytes,
        gate: Arc::clone(&gate) as Arc<dyn RequestGate>,
    };
    let in_browser = InBrowser::enter(&context.progress);
    let mut rendered = renderer.render(request).await;
    drop(turn);
    drop(in_browser);
    drop(body);
    // The page's requests, as the gate saw them, join what the browser itself noted.
    match &mut rendered {
        Ok(page) => page.requests.absorb(gate.take_log()),
        Err(RenderFailure::TimedOut(log)) => log.absorb(gate.take_log()),
        Err(_) => {}
    }
    match rendered {
        Ok(page) => {
            let rendered_headers = ResponseHeaders {
                content_type: Some("text/html; charset=utf-8".to_string()),
                ..headers
            };
            let (rendered, _) = extract_off_thread(
                context,
                url,
                rendered_headers,
                page.html.into_bytes(),
                legacy_fingerprint,
            )
            .await;
            let Some(mut rendered) = rendered else {
                return ReadPage {
                    rendering: Some(Rendering::Failed("extraction failed".to_string())),
                    ..as_served(raw)
                };
            };
            add_navigations(&mut rendered, &page.requests.navigations);
            drop_page_states(url, &raw, &mut rendered);
            state.note_hash_routes(&rendered.hash_routes);
            if call.rerenders() {
                rendered.fingerprint.clone_from(&raw.fingerprint);
                rendered
                    .legacy_fingerprint
                    .clone_from(&raw.legacy_fingerprint);
            }
            let differences = differences(context, &raw, &rendered);
            let (rendered_links, rendered_only) = site_links(context, scope, &raw, &rendered);
            tracing::debug!(%url, added = rendered_only.len(), "rendered");
            state.rendered(page.requests, &call);
            ReadPage {
                differs: !differences.is_empty(),
                rendering: Some(Rendering::Rendered(differences)),
                facts: Some(rendered),
                rendered_only,
                rendered_links,
                rendered_as: Some(call),
                template: key,
            }
        }
        Err(failure) => {
            tracing::debug!(%url, ?failure, "not rendered");
            state.failed(&failure);
            let rendering = match failure {
                RenderFailure::TimedOut(_) => Rendering::TimedOut,
                RenderFailure::Failed(reason) | RenderFailure::Unavailable(reason) => {
                    Rendering::Failed(reason)
                }
            };
            ReadPage {
                rendering: Some(rendering),
                ..as_served(raw)
            }
        }
    }
}

/// A page in the browser, counted in [`CrawlProgress::rendering`] from the moment it is
/// handed to the browser until its render ends, or is dropped with a crawl that stops.
struct InBrowser<'a>(&'a CrawlProgress);

impl<'a> InBrowser<'a> {
    fn enter(progress: &'a CrawlProgress) -> InBrowser<'a> {
        progress.rendering.fetch_add(1, Ordering::Relaxed);
        InBrowser(progress)
    }
}

impl Drop for InBrowser<'_> {
    fn drop(&mut self) {
        self.0.rendering.fetch_sub(1, Ordering::Relaxed);
    }
}

/// Leaves out the links the rendered DOM adds from the page to itself with another query
/// (`?search=`, `?tab=2`): what a script keeps of the page's state in its address, the same
/// page to a search engine, and a new URL on every page that would make rendering find
/// "new" URLs without end (the search box of rustdoc's pages does this). The HTML's own such
/// links stay.
fn drop_page_states(url: &Url, raw: &PageFacts, rendered: &mut PageFacts) {
    let is_state = |link: &Link| {
        link.url.query() != url.query()
            && link.url.path() == url.path()
            && link.url.origin() == url.origin()
    };
    let served: HashSet<&Url> = raw
        .links
        .iter()
        .filter(|link| is_state(link))
        .map(|link| &link.url)
        .collect();
    rendered
        .links
        .retain(|link| !is_state(link) || served.contains(&link.url));
}

/// Places scripts tried to take the tab to are links of the page.
fn add_navigations(facts: &mut PageFacts, navigations: &[Url]) {
    for url in navigations {
        let link = Link {
            url: url.clone(),
            kind: LinkKind::Anchor,
            nofollow: false,
        };
        if !facts.links.contains(&link) {
            facts.links.push(link);
        }
    }
}

/// The pages of the site the rendered DOM links to, and of those the ones the HTML does not,
/// normalized.
fn site_links(
    context: &JobContext,
    scope: &Scope,
    raw: &PageFacts,
    rendered: &PageFacts,
) -> (HashSet<Url>, HashSet<Url>) {
    let site_links = |facts: &PageFacts| -> HashSet<Url> {
        facts
            .links
            .iter()
            .filter(|link| scope.contains(&link.url))
            .filter_map(|link| context.normalizer.normalize(&link.url))
            .collect()
    };
    let served = site_links(raw);
    let rendered = site_links(rendered);
    let only = rendered
        .iter()
        .filter(|link| !served.contains(*link))
        .cloned()
        .collect();
    (rendered, only)
}

/// Where the HTML as served and the rendered DOM disagree on canonical or noindex.
fn differences(
    context: &JobContext,
    raw: &PageFacts,
    rendered: &PageFacts,
) -> Vec<RenderDifference> {
    let mut differences = Vec::new();
    let (served_canonical, _) = distinct_canonical(raw, &context.normalizer);
    let (rendered_canonical, _) = distinct_canonical(rendered, &context.normalizer);
    if served_canonical != rendered_canonical {
        differences.push(RenderDifference::Canonical {
            served: served_canonical,
            rendered: rendered_canonical,
        });
    }
    if raw.robots.noindex != rendered.robots.noindex {
        differences.push(RenderDifference::Noindex {
            served: raw.robots.noindex,
        });
    }
    differences
}

/// The gate of one page's browser tab: the crawl's rules for every request the page makes
/// (docs/design.md, `crates/render`).
///
/// - Requests to the site: robots.txt; one at a time (the page is one job of the crawl's
///   `--concurrency`), each paced as the crawler's own (`--delay`, `Crawl-delay`: the crawl's
///   per-host pace) and counted against `--max-requests`.
/// - Requests to other hosts: the address policy; at most
///   [`CrawlConfig::render_other_host_requests`](crate::CrawlConfig) for the page, each host
///   paced on its own.
/// - Only methods that read (GET, HEAD, OPTIONS for CORS, POST for the queries of
///   applications); no WebSocket.
struct PageGate {
    context: Arc<JobContext>,
    scope: Arc<Scope>,
    /// Held while a request to the site waits for its response's headers.
    site_turn: tokio::sync::Mutex<()>,
    /// Requests to other hosts the page may still make.
    other_host_requests: AtomicU64,
    /// What the gate refused and let through.
    log: std::sync::Mutex<RequestLog>,
}

impl PageGate {
    fn new(context: &Arc<JobContext>, scope: &Arc<Scope>) -> PageGate {
        PageGate {
            context: Arc::clone(context),
            scope: Arc::clone(scope),
            site_turn: tokio::sync::Mutex::new(()),
            other_host_requests: AtomicU64::new(context.config.render_other_host_requests),
            log: std::sync::Mutex::new(RequestLog::default()),
        }
    }

    fn note(&self, update: impl FnOnce(&mut RequestLog)) {
        update(&mut self.log.lock().unwrap_or_else(PoisonError::into_inner));
    }

    fn refuse(&self, url: &Url, refusal: Refusal) -> GateError {
        tracing::info!(%url, reason = %refusal, "a request of the browser refused");
        self.note(|log| {
            *log.refused.entry(refusal).or_default() += 1;
            if refusal == Refusal::RobotsDisallowed {
                log.disallowed.push(url.clone());
            }
        });
        GateError::Refused(refusal)
    }

    /// The log of what the gate did, taken.
    fn take_log(&self) -> RequestLog {
        std::mem::take(&mut *self.log.lock().unwrap_or_else(PoisonError::into_inner))
    }

    async fn send_checked(&self, request: BrowserRequest) -> Result<BrowserResponse, GateError> {
        let url = request.url.clone();
        if !matches!(url.scheme(), "http" | "https") {
            return Err(self.refuse(&url, Refusal::NotHttp));
        }
        if is_websocket(&request) {
            return Err(self.refuse(&url, Refusal::WebSocket));
        }
        if !matches!(
            request.method,
            Method::GET | Method::HEAD | Method::OPTIONS | Method::POST
        ) {
            return Err(self.refuse(&url, Refusal::Method));
        }
        let context = &self.context;
        // The site's requests wait their turn until their response's headers.
        let _turn = if self.scope.is_same_site(&url) {
            let policy = context.origins.robots(&url, &context.fetcher).await;
            if !policy.is_allowed(&url) {
                return Err(self.refuse(&url, Refusal::RobotsDisallowed));
            }
            let turn = self.site_turn.lock().await;
            if !context.reserve_request() {
                return Err(self.refuse(&url, Refusal::RequestBudget));
            }
            Some(turn)
        } else {
            if !context.may_connect_to(&url).await {
                return Err(self.refuse(&url, Refusal::PrivateAddress));
            }
            let spent = self
                .other_host_requests
                .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |left| {
                    left.checked_sub(1)
                })
                .is_err();
            if spent {
                return Err(self.refuse(&url, Refusal::OtherHostBudget));
            }
            let host = url.host_str().unwrap_or_default().to_string();
            self.note(|log| *log.other_hosts.entry(host).or_default() += 1);
            None
        };
        context.origins.pace(&url).await;
        context
            .fetcher
            .relay(request)
            .await
            .map_err(GateError::Failed)
    }
}

impl RequestGate for PageGate {
    fn send(&self, request: BrowserRequest) -> BoxFuture<'_, Result<BrowserResponse, GateError>> {
        Box::pin(self.send_checked(request))
    }
}

/// Whether `request` opens a WebSocket (RFC 6455 section 4.1).
fn is_websocket(request: &BrowserRequest) -> bool {
    request
        .headers
        .get(reqwest::header::UPGRADE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| value.eq_ignore_ascii_case("websocket"))
}
