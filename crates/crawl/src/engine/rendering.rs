//! A page's HTML read, then rendered in the browser when the crawl decides it must be (see
//! `render`): the rendered DOM goes through the same extraction as the HTML, and what the two
//! disagree on is kept.

use std::collections::HashSet;

use sitemapper_extract::{Link, LinkKind, PageFacts, ResponseHeaders};
use url::Url;

use super::context::JobContext;
use super::page::extract_off_thread;
use crate::classify::distinct_canonical;
use crate::event::{RenderDifference, Rendering};
use crate::render::{
    Admission, BoxFuture, Refusal, RenderFailure, RenderRequest, RequestGate, shell_reason,
};
use crate::scope::Scope;

/// The facts of an HTML page that answered 200: its HTML's, or its rendered DOM's when it is
/// rendered (with how that went).
pub(super) async fn read_page(
    context: &JobContext,
    scope: &Scope,
    url: &Url,
    headers: ResponseHeaders,
    body: Vec<u8>,
) -> (Option<PageFacts>, Option<Rendering>) {
    let (raw, body) = extract_off_thread(context, url, headers.clone(), body).await;
    let Some(raw) = raw else {
        return (None, None);
    };
    let state = &context.render;
    state.note_hash_routes(&raw.hash_routes);
    if state.is_off() {
        return (Some(raw), None);
    }
    let has_site_links = raw.links.iter().any(|link| scope.contains(&link.url));
    let shell = shell_reason(&raw.shell, has_site_links);
    let Some(call) = state.decide(url, shell) else {
        return (Some(raw), None);
    };
    let Some(renderer) = state.renderer() else {
        return (Some(raw), None);
    };
    let gate = PageGate { context, scope };
    let request = RenderRequest {
        url,
        body: &body,
        content_type: headers.content_type.as_deref(),
        max_html_bytes: context.config.max_body_bytes,
        gate: &gate,
    };
    let rendered = renderer.render(request).await;
    drop(body);
    match rendered {
        Ok(page) => {
            let rendered_headers = ResponseHeaders {
                content_type: Some("text/html; charset=utf-8".to_string()),
                ..headers
            };
            let (rendered, _) =
                extract_off_thread(context, url, rendered_headers, page.html.into_bytes()).await;
            let Some(mut rendered) = rendered else {
                return (
                    Some(raw),
                    Some(Rendering::Failed("extraction failed".to_string())),
                );
            };
            add_navigations(&mut rendered, &page.requests.navigations);
            state.note_hash_routes(&rendered.hash_routes);
            let differences = differences(context, &raw, &rendered);
            let gained = !differences.is_empty() || gains_links(context, scope, &raw, &rendered);
            tracing::debug!(%url, gained, "rendered");
            state.rendered(&call, gained, page.requests);
            (Some(rendered), Some(Rendering::Rendered(differences)))
        }
        Err(failure) => {
            tracing::debug!(%url, ?failure, "not rendered");
            state.failed(&call, &failure);
            let rendering = match failure {
                RenderFailure::TimedOut(_) => Rendering::TimedOut,
                RenderFailure::Failed(reason) | RenderFailure::Unavailable(reason) => {
                    Rendering::Failed(reason)
                }
            };
            (Some(raw), Some(rendering))
        }
    }
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

/// Whether the rendered DOM links to pages of the site the HTML does not link to.
fn gains_links(context: &JobContext, scope: &Scope, raw: &PageFacts, rendered: &PageFacts) -> bool {
    let site_links = |facts: &PageFacts| -> HashSet<Url> {
        facts
            .links
            .iter()
            .filter(|link| scope.contains(&link.url))
            .filter_map(|link| context.normalizer.normalize(&link.url))
            .collect()
    };
    let served = site_links(raw);
    site_links(rendered)
        .iter()
        .any(|link| !served.contains(link))
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

/// The crawl's rules for the requests of one page's browser tab.
struct PageGate<'a> {
    context: &'a JobContext,
    scope: &'a Scope,
}

impl RequestGate for PageGate<'_> {
    fn admit<'a>(&'a self, url: &'a Url) -> BoxFuture<'a, Admission> {
        Box::pin(async move {
            if !matches!(url.scheme(), "http" | "https") {
                return Admission::Refused(Refusal::NotHttp);
            }
            let context = self.context;
            if self.scope.is_same_site(url) {
                let policy = context.origins.robots(url, &context.fetcher).await;
                return if policy.is_allowed(url) {
                    Admission::Site
                } else {
                    tracing::info!(%url, "robots.txt disallows a request of the browser: not sent");
                    Admission::Refused(Refusal::RobotsDisallowed)
                };
            }
            if context.may_connect_to(url).await {
                Admission::OtherHost
            } else {
                tracing::info!(%url, "a request of the browser to a private network: not sent");
                Admission::Refused(Refusal::PrivateAddress)
            }
        })
    }

    fn site_headers(&self, url: &Url) -> Vec<(String, String)> {
        // The session checks the URL itself: the site's origins only.
        self.context.session.browser_headers(url)
    }
}
