//! The end of a chain: the response it ended on parsed and classified (a document by its
//! headers alone; or, after a 304, the earlier run's findings reused), reported as one
//! outcome, with the links to follow.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use jiff::Timestamp;
use reqwest::header;
use sitemapper_extract::{
    LinkKind, PageDetails, PageFacts, ResponseHeaders, SecurityHeaders, StructuredData,
    extract_headers,
};
use url::Url;

use super::context::JobContext;
use super::extraction::extract_off_thread;
use super::job::{Hop, Visit, VisitEnd};
use super::rendering::{ReadPage, read_page};
use crate::classify::{Classification, classify, hint_origins};
use crate::documents;
use crate::event::{Fingerprint, HintOrigins, PageLink, PageLinkKind, PageOutcome, ResponseFacts};
use crate::fetch::FetchedResponse;
use crate::history::PreviousPage;
use crate::lastmod::parse_last_modified;
use crate::render::{RenderCall, ServedPage};
use crate::scope::Scope;

/// The last hop of a chain and the response it got (not a redirect).
#[derive(Debug)]
pub(super) struct Answer {
    pub hop: Hop,
    /// What the crawl keeps of the response.
    pub facts: ResponseFacts,
    /// The response as extraction reads it.
    pub page: ServedPage,
    /// The page's recorded fingerprint is of the legacy function: compute that one too.
    pub legacy_fingerprint: bool,
}

impl Answer {
    /// `hop`'s answer, `response`.
    pub(super) fn new(hop: Hop, response: FetchedResponse, facts: ResponseFacts) -> Answer {
        Answer {
            hop,
            facts,
            page: ServedPage {
                headers: extraction_headers(&response),
                body: response.body,
            },
            legacy_fingerprint: false,
        }
    }
}

/// Classifies the response a chain ended on, reports it, and collects the links to follow.
/// `forced` renders the page (a page visited again for that).
pub(super) async fn finish_page(
    context: &Arc<JobContext>,
    scope: &Arc<Scope>,
    answer: Answer,
    forced: Option<RenderCall>,
) -> Visit {
    let Answer {
        hop,
        facts,
        page,
        legacy_fingerprint,
    } = answer;
    let replaces_earlier = forced.as_ref().is_some_and(RenderCall::rerenders);
    let is_page = facts.is_html_ok();
    let read = if is_page {
        if facts.status == 200 {
            read_page(
                context,
                scope,
                &hop,
                &facts,
                page,
                forced,
                legacy_fingerprint,
            )
            .await
        } else {
            ReadPage {
                facts: extract_off_thread(
                    context,
                    &hop.url,
                    page.headers,
                    page.body,
                    legacy_fingerprint,
                )
                .await
                .0,
                ..ReadPage::default()
            }
        }
    } else {
        ReadPage::default()
    };
    let ReadPage {
        facts: page_facts,
        rendering,
        rendered_only,
        rendered_links,
        differs,
        rendered_as,
        template,
    } = read;
    let classification = classify(
        &hop.url,
        &facts,
        page_facts.as_ref(),
        scope,
        &context.normalizer,
    );
    let links = links_to_follow(&classification, page_facts.as_ref());
    let recorded = context
        .config
        .record_links
        .then(|| recorded_links(context, &hop.url, &classification, page_facts.as_ref()));
    let hints = page_facts
        .as_ref()
        .map_or_else(HintOrigins::default, |page_facts| {
            hint_origins(
                page_facts,
                classification.canonical.as_ref(),
                &context.normalizer,
            )
        });
    let end = if (200..300).contains(&facts.status) {
        VisitEnd::Reached
    } else {
        VisitEnd::Failed(refusal_reason(context, &hop.url, facts.status))
    };
    let outcome = PageOutcome {
        rendering,
        replaces_earlier,
        failed_transiently: facts.failed_transiently(),
        hints,
        canonical: classification.canonical,
        ignored_hints: classification.ignored_hints,
        links: recorded,
        template: template.filter(|_| classification.follow_links),
        // A document declares no structured data: forget what an earlier page here did.
        structured: context.config.structured_data.then(StructuredData::default),
        ..PageOutcome::fetched(
            hop.url.clone(),
            hop.depth,
            hop.referrer,
            facts,
            classification.verdict,
        )
    };
    let outcome = match page_facts {
        Some(page_facts) => with_page_facts(context, outcome, page_facts),
        // A response that is no page declares no structured data (but a page whose reading
        // failed keeps what was recorded).
        None if !is_page => PageOutcome {
            structured: context.config.structured_data.then(StructuredData::default),
            ..outcome
        },
        None => outcome,
    };
    context.emit(outcome).await;
    Visit {
        rendered_only,
        rendered_links,
        render_differs: differs,
        rendered_as,
        ..Visit::found(hop.url, hop.depth, links, end)
    }
}

/// Classifies a document the chain ended on by what its headers say (`documents`), and
/// reports it. A document is a leaf: its canonical target is the only link to follow.
pub(super) async fn finish_document(
    context: &Arc<JobContext>,
    scope: &Arc<Scope>,
    hop: Hop,
    response: &FetchedResponse,
    facts: ResponseFacts,
) -> Visit {
    let headers = extraction_headers(response);
    let page_facts = extract_headers(&hop.url, &headers, &context.extract_options);
    let classification = documents::classify(&hop.url, &page_facts, scope, &context.normalizer);
    let links = links_to_follow(&classification, None);
    let recorded = context
        .config
        .record_links
        .then(|| recorded_links(context, &hop.url, &classification, None));
    let outcome = PageOutcome {
        hints: hint_origins(
            &page_facts,
            classification.canonical.as_ref(),
            &context.normalizer,
        ),
        canonical: classification.canonical,
        ignored_hints: classification.ignored_hints,
        links: recorded,
        ..PageOutcome::fetched(
            hop.url.clone(),
            hop.depth,
            hop.referrer,
            facts,
            classification.verdict,
        )
    };
    context.emit(outcome).await;
    Visit::found(hop.url, hop.depth, links, VisitEnd::Reached)
}

/// Why a URL that answered `status` could not be crawled, in words; for a protected site,
/// what to do about it.
fn refusal_reason(context: &JobContext, url: &Url, status: u16) -> String {
    match status {
        401 if context.session.sends_credentials(url) => {
            format!("{url} answered 401 Unauthorized: the site refused the credentials given")
        }
        401 => format!(
            "{url} answered 401 Unauthorized: the site asks for credentials (--basic-auth, --header or --cookie)"
        ),
        407 => format!(
            "{url} answered 407: the proxy asks for credentials (give them in its URL, http://user:password@proxy:port)"
        ),
        _ => format!("{url} answered {status}"),
    }
}

/// The page's links when they are followed, and the URL its verdict points at, if any.
fn links_to_follow(classification: &Classification, page_facts: Option<&PageFacts>) -> Vec<Url> {
    let mut links: Vec<Url> = Vec::new();
    if classification.follow_links
        && let Some(page_facts) = page_facts
    {
        links = page_facts
            .links
            .iter()
            .map(|link| link.url.clone())
            .collect();
    }
    if let Some(target) = classification.verdict.target() {
        links.push(target.clone());
    }
    links
}

/// The links a page is recorded with, normalized: those it is followed through, its
/// canonical when it names another URL, and with details its images.
fn recorded_links(
    context: &JobContext,
    url: &Url,
    classification: &Classification,
    page_facts: Option<&PageFacts>,
) -> Vec<PageLink> {
    let mut links = Vec::new();
    if let Some(page_facts) = page_facts {
        let anchors = page_facts.details.as_ref().map(|details| &details.anchors);
        if classification.follow_links {
            links.extend(page_facts.links.iter().filter_map(|link| {
                Some(PageLink {
                    url: context.normalizer.normalize(&link.url)?,
                    kind: match link.kind {
                        LinkKind::Anchor | LinkKind::Area => PageLinkKind::Anchor,
                        LinkKind::Alternate { .. } => PageLinkKind::Hreflang,
                        LinkKind::Frame => PageLinkKind::Frame,
                        LinkKind::Refresh => PageLinkKind::Refresh,
                    },
                    anchor: anchors.and_then(|anchors| anchors.get(&link.url).cloned()),
                    nofollow: link.nofollow,
                })
            }));
        }
        if let Some(details) = &page_facts.details {
            let resource = |url: Url, kind| PageLink {
                url,
                kind,
                anchor: None,
                nofollow: false,
            };
            links.extend(
                page_facts
                    .images
                    .iter()
                    .map(|image| resource(image.clone(), PageLinkKind::Image)),
            );
            for (files, kind) in [
                (&details.signals.scripts, PageLinkKind::ScriptFile),
                (&details.signals.stylesheets, PageLinkKind::Stylesheet),
            ] {
                links.extend(
                    files
                        .iter()
                        .filter_map(|file| Url::parse(file).ok())
                        .map(|file| resource(file, kind)),
                );
            }
        }
    }
    if let Some(canonical) = &classification.canonical
        && canonical != url
    {
        links.push(PageLink {
            url: canonical.clone(),
            kind: PageLinkKind::Canonical,
            anchor: None,
            nofollow: false,
        });
    }
    links
}

/// `outcome` with what the page itself says, as far as the configuration asks for it.
fn with_page_facts(
    context: &JobContext,
    outcome: PageOutcome,
    page_facts: PageFacts,
) -> PageOutcome {
    let config = &context.config;
    PageOutcome {
        title: page_facts.title,
        description: page_facts.description,
        fingerprint: page_facts.fingerprint.map(Fingerprint::current),
        legacy_fingerprint: page_facts.legacy_fingerprint.map(Fingerprint::legacy),
        details: page_facts.details.map(|details| PageDetails {
            anchors: HashMap::new(),
            ..details
        }),
        extracted: Some(page_facts.extracted),
        structured: page_facts.structured,
        images: config.collect_images.then_some(page_facts.images),
        alternates: config.collect_alternates.then(|| {
            page_facts
                .alternates
                .iter()
                .filter_map(|(hreflang, url)| {
                    Some((hreflang.clone(), context.normalizer.normalize(url)?))
                })
                .collect()
        }),
        ..outcome
    }
}

/// A page that answered 304 Not Modified: the previous run's facts stand, its links are
/// followed from the database, and nothing is downloaded or parsed.
pub(super) async fn revalidated_page(
    context: &JobContext,
    hop: Hop,
    response: ResponseFacts,
    previous: PreviousPage,
) -> Visit {
    context.progress.revalidated.fetch_add(1, Ordering::Relaxed);
    let mut links = previous.followed;
    if let Some(target) = previous.verdict.target() {
        links.push(target.clone());
    }
    let facts = ResponseFacts {
        status: 200,
        content_type: previous.content_type,
        last_modified: previous.last_modified,
        etag: response.etag.or(previous.etag),
        revalidated: true,
        ..response
    };
    let outcome = PageOutcome {
        canonical: previous.canonical,
        title: previous.title,
        description: previous.description,
        fingerprint: previous.fingerprint,
        // The links recorded stand as they are: nothing to write again.
        links: None,
        extracted: None,
        ..PageOutcome::fetched(
            hop.url.clone(),
            hop.depth,
            hop.referrer,
            facts,
            previous.verdict,
        )
    };
    context.emit(outcome).await;
    Visit::found(hop.url, hop.depth, links, VisitEnd::Reached)
}

/// The response headers extraction reads.
fn extraction_headers(response: &FetchedResponse) -> ResponseHeaders {
    ResponseHeaders {
        content_type: response.header(header::CONTENT_TYPE),
        link: response.header_values(header::LINK),
        x_robots_tag: response.header_values(header::HeaderName::from_static("x-robots-tag")),
        // Four lookups, not a walk over every header: every response of every crawl comes
        // this way.
        security: SecurityHeaders::read(
            [
                header::STRICT_TRANSPORT_SECURITY,
                header::X_CONTENT_TYPE_OPTIONS,
                header::X_FRAME_OPTIONS,
                header::CONTENT_SECURITY_POLICY,
            ]
            .iter()
            .filter_map(|name| Some((name.as_str(), response.headers.get(name)?.to_str().ok()?))),
        ),
    }
}

/// What the crawl keeps of a response.
pub(super) fn response_facts(response: &FetchedResponse) -> ResponseFacts {
    ResponseFacts {
        status: response.status.as_u16(),
        content_type: response.header(header::CONTENT_TYPE),
        last_modified: response
            .header(header::LAST_MODIFIED)
            .and_then(|value| parse_last_modified(&value, Timestamp::now())),
        etag: response.header(header::ETAG),
        fetched_at: response.fetched_at,
        elapsed: response.elapsed,
        body_bytes: response.body.len(),
        truncated: response.truncated,
        revalidated: false,
    }
}
