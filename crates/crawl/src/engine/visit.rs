//! One fetch job: a queued URL requested, its redirects followed hop by hop by the fetcher's
//! chain under the crawl's rules ([`VisitHops`]: robots.txt and the request budget before each
//! hop, the scope after each redirect), and the page the chain ends on handed to `page`. Every
//! URL of the chain is reported once.

use std::sync::Arc;

use url::Url;

use super::context::JobContext;
use super::job::{Hop, Visit, VisitEnd};
use super::page::{Answer, finish_document, finish_page, response_facts, revalidated_page};
use crate::concurrency::ConcurrencyLimit;
use crate::documents;
use crate::event::{Exclusion, PageOutcome, Verdict};
use crate::fetch::{
    BodyWanted, Broken, FetchFailure, FetchedResponse, HopRequest, Hops, Method, Validators,
};
use crate::frontier::QueuedUrl;
use crate::history::PreviousPage;
use crate::render::{KeptPage, RenderCall};
use crate::robots::RobotsPolicy;
use crate::scope::{Scope, adds_trailing_slash};

/// How a visit treats a redirect out of its scope.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum VisitMode {
    /// The seed: a redirect to another origin moves the scope instead of ending the chain,
    /// and one that only adds the trailing slash to the seed's path scopes the crawl to that
    /// directory.
    Seed,
    /// Any other URL: a redirect out of scope ends the chain.
    Page,
}

/// Where a chain stands while its redirects are followed.
#[derive(Debug)]
struct Redirects {
    mode: VisitMode,
    /// For the seed, the path typed (other chains need not keep theirs).
    seed_path: Option<String>,
    /// The scope the seed's redirects moved to, if they did.
    moved_scope: Option<Scope>,
}

/// Fetches one queued URL, following its redirects hop by hop, and classifies the page the
/// chain ends on. Emits one event per URL of the chain. `render` renders the page the chain
/// ends on: it was read as served before, and is visited again for that.
pub(super) async fn visit(
    context: Arc<JobContext>,
    scope: Arc<Scope>,
    item: QueuedUrl,
    mode: VisitMode,
    render: Option<RenderCall>,
) -> Visit {
    let QueuedUrl {
        url,
        depth,
        referrer,
        chain,
    } = item;
    let seed_path = (mode == VisitMode::Seed).then(|| url.path().to_string());
    let hops = VisitHops {
        context: &context,
        scope: &scope,
        hop: Hop {
            url: url.clone(),
            depth,
            referrer,
        },
        chain,
        redirects: Redirects {
            mode,
            seed_path,
            moved_scope: None,
        },
        render,
        previous: None,
        conditional: false,
        head: false,
        asked_again: false,
    };
    context.fetcher.follow(url, hops).await
}

/// Renders a page read as served from the response kept of it (see `render`), without
/// requesting it again.
pub(super) async fn render_kept(
    context: Arc<JobContext>,
    scope: Arc<Scope>,
    item: QueuedUrl,
    kept: KeptPage,
    render: RenderCall,
) -> Visit {
    let hop = Hop {
        url: item.url,
        depth: item.depth,
        referrer: item.referrer,
    };
    let answer = Answer {
        hop,
        facts: kept.facts,
        page: kept.served,
        legacy_fingerprint: false,
    };
    let finished = finish_page(&context, &scope, answer, Some(render.clone())).await;
    Visit {
        chain: item.chain,
        render_call: Some(render),
        ..finished
    }
}

/// The crawl's rules of a visit's chain: robots.txt and the request budget before each hop,
/// the scope after each redirect, validators of an earlier run, pace, and one event per URL
/// of the chain.
#[derive(Debug)]
struct VisitHops<'a> {
    context: &'a Arc<JobContext>,
    scope: &'a Arc<Scope>,
    /// The URL requested now, and how the crawl came to it.
    hop: Hop,
    /// The chain length of the queued URL (see `traps`).
    chain: u32,
    redirects: Redirects,
    /// Why the page the chain ends on is rendered, when it is.
    render: Option<RenderCall>,
    /// The earlier run's page of the URL requested now, when there is one the crawl may
    /// reuse: after a 304, or after a failure that may pass, its links are followed again.
    previous: Option<PreviousPage>,
    /// The URL requested now was requested conditionally, with `previous`'s validators.
    conditional: bool,
    /// The URL requested now is a document candidate asked with HEAD (`documents`).
    head: bool,
    /// The URL requested now is a document candidate asked again with a GET: its HEAD was
    /// refused, or answered a page.
    asked_again: bool,
}

impl VisitHops<'_> {
    /// The visit of a chain that ends here, without a page to take links from.
    fn ended(&mut self, end: VisitEnd) -> Visit {
        Visit::ended(self.hop.depth, end, self.redirects.moved_scope.take())
    }
}

impl Hops for VisitHops<'_> {
    type End = Visit;

    fn max_redirects(&self) -> usize {
        self.context.config.max_redirects
    }

    /// Requests the hop when robots.txt and the request budget allow it, conditionally
    /// when an earlier run left validators (unless the page is visited to be rendered,
    /// which needs its body), with HEAD when it is a document candidate. A URL that is not
    /// requested is reported here.
    async fn before(&mut self, url: &Url) -> Result<HopRequest, Visit> {
        let context = self.context;
        let policy = context.origins.robots(url, &context.fetcher).await;
        if let Some(rule) = policy.why_disallowed(url) {
            context
                .emit(self.hop.skipped(Exclusion::RobotsDisallowed(rule)))
                .await;
            let end = match policy.as_ref() {
                RobotsPolicy::DisallowAll { reason } => VisitEnd::RobotsUnavailable(reason.clone()),
                _ => VisitEnd::Disallowed(format!("robots.txt ({})", policy.describe())),
            };
            return Err(self.ended(end));
        }
        if !context.reserve_request() {
            context
                .emit(self.hop.skipped(Exclusion::RequestBudget))
                .await;
            let end = VisitEnd::Failed("the request budget ran out".to_string());
            return Err(self.ended(end));
        }
        self.previous = context
            .history
            .as_ref()
            .filter(|_| self.render.is_none())
            .and_then(|history| history.previous(url))
            .filter(|previous| documents::may_reuse(&context.config.documents, previous));
        let validators = self
            .previous
            .as_ref()
            .filter(|previous| previous.can_revalidate())
            .map(|previous| Validators {
                etag: previous.etag.clone(),
                last_modified: previous.last_modified,
            });
        self.conditional = validators.is_some();
        self.head = self.render.is_none()
            && !self.asked_again
            && context.config.documents.candidate(url).is_some();
        context.origins.pace(url).await;
        if self.head {
            return Ok(HopRequest {
                method: Method::Head,
                wanted: BodyWanted::Nothing,
                validators,
            });
        }
        Ok(HopRequest {
            validators,
            ..HopRequest::get(BodyWanted::Html200 {
                cap: context.config.max_body_bytes,
            })
        })
    }

    /// A document candidate whose HEAD was refused, or answered a page, is asked again
    /// with a GET (once: a GET is never asked again).
    fn ask_again(&mut self, url: &Url, response: &FetchedResponse) -> bool {
        if !self.head || !documents::asks_again_with_get(&response_facts(response)) {
            return false;
        }
        tracing::debug!(%url, status = response.status.as_u16(), "asking a document's URL with GET");
        self.asked_again = true;
        true
    }

    fn target(&self, target: Url) -> Option<Url> {
        self.context.normalizer.normalize(&target)
    }

    fn reserve_retry(&self) -> bool {
        self.context.reserve_request()
    }

    fn limit(&self) -> Option<&ConcurrencyLimit> {
        Some(&self.context.concurrency)
    }

    fn held_off(&self, url: &Url, wait: std::time::Duration) {
        self.context.origins.hold(url, wait);
    }

    /// Reports the redirect and decides whether the chain goes on to `target`. A redirect
    /// of the seed out of its scope moves the scope there.
    async fn redirected(
        &mut self,
        url: &Url,
        response: &FetchedResponse,
        target: &Url,
    ) -> Result<(), Visit> {
        let context = self.context;
        let facts = response_facts(response);
        let redirects = &mut self.redirects;
        let current_scope = redirects.moved_scope.as_ref().unwrap_or(self.scope);
        if redirects.seed_path.as_deref() == Some(url.path()) && adds_trailing_slash(url, target) {
            // `/book` -> `/book/`: the path typed names a directory, and the crawl is of it.
            redirects.moved_scope = Some(current_scope.narrowed_to(target));
        } else if !current_scope.contains(target) {
            if redirects.mode == VisitMode::Seed
                && target.as_str().len() <= context.config.max_url_length
            {
                redirects.moved_scope = Some(current_scope.moved_to(target));
            } else {
                let verdict = Verdict::Excluded(Exclusion::RedirectOutOfScope(target.clone()));
                context
                    .emit(
                        self.hop
                            .redirected(context.config.structured_data, &facts, verdict),
                    )
                    .await;
                let end = VisitEnd::Failed(format!("redirected out of scope to {target}"));
                return Err(self.ended(end));
            }
        }
        let verdict = Verdict::Redirect { to: target.clone() };
        context
            .emit(
                self.hop
                    .redirected(context.config.structured_data, &facts, verdict),
            )
            .await;
        if !context.seen.insert(target) {
            // Reached by another path already (or a loop): that visit reports it.
            let end = if self.redirects.mode == VisitMode::Seed {
                VisitEnd::Failed(format!("redirect loop at {target}"))
            } else {
                VisitEnd::Reached
            };
            return Err(self.ended(end));
        }
        if target.as_str().len() > context.config.max_url_length {
            let too_long = PageOutcome::skipped(
                target.clone(),
                self.hop.depth,
                Some(url.clone()),
                Exclusion::UrlTooLong,
            );
            context.emit(too_long).await;
            let end = VisitEnd::Failed("redirect target too long".to_string());
            return Err(self.ended(end));
        }
        self.hop = Hop {
            url: target.clone(),
            depth: self.hop.depth,
            referrer: Some(url.clone()),
        };
        self.asked_again = false;
        Ok(())
    }

    /// Classifies the page or document the chain ends on (or, after a 304, reuses the
    /// earlier run's).
    async fn answered(mut self, _url: Url, response: FetchedResponse) -> Visit {
        let context = self.context;
        let facts = response_facts(&response);
        let moved_scope = self.redirects.moved_scope.take();
        let legacy_fingerprint = self
            .previous
            .as_ref()
            .is_some_and(PreviousPage::has_legacy_fingerprint);
        let failed_transiently = facts.failed_transiently();
        let previous = self.previous.take();
        let (revalidated, known) = match previous {
            Some(previous) if self.conditional && facts.status == 304 => (Some(previous), None),
            previous => (None, previous.filter(|_| failed_transiently)),
        };
        let finished = if let Some(previous) = revalidated {
            revalidated_page(context, self.hop, facts, previous).await
        } else {
            let scope = moved_scope
                .clone()
                .map_or_else(|| Arc::clone(self.scope), Arc::new);
            if context.config.documents.served(&facts).is_some() {
                finish_document(context, &scope, self.hop, &response, facts).await
            } else {
                let answer = Answer {
                    legacy_fingerprint,
                    ..Answer::new(self.hop, response, facts)
                };
                finish_page(context, &scope, answer, self.render.clone()).await
            }
        };
        let finished = match known {
            Some(known) => finished.following(known),
            None => finished,
        };
        Visit {
            chain: self.chain,
            moved_scope,
            render_call: self.render,
            ..finished
        }
    }

    /// The URL got no response. When the failure may pass and an earlier run read the page,
    /// its recorded links are followed as for a 304 (docs/design.md, Fetching and
    /// politeness), so that one page down for a night hides none behind it.
    async fn failed(mut self, _url: Url, failure: FetchFailure) -> Visit {
        let reason = failure.to_string();
        let failed_transiently = failure.may_pass();
        let outcome = PageOutcome {
            failed_transiently,
            ..self.hop.skipped(Exclusion::FetchFailed(failure))
        };
        self.context.emit(outcome).await;
        let known = self.previous.take().filter(|_| failed_transiently);
        let ended = self.ended(VisitEnd::Failed(reason));
        match known {
            Some(known) => Visit {
                page: Some(self.hop.url.clone()),
                ..ended
            }
            .following(known),
            None => ended,
        }
    }

    async fn broken(mut self, _url: Url, response: FetchedResponse, broken: Broken) -> Visit {
        let facts = response_facts(&response);
        let (exclusion, reason) = match broken {
            Broken::UnusableLocation(location) => (
                Exclusion::InvalidRedirect(format!("{} with Location {location:?}", facts.status)),
                format!("redirect without a usable Location ({})", facts.status),
            ),
            Broken::TooManyRedirects => (
                Exclusion::TooManyRedirects,
                "too many redirects".to_string(),
            ),
        };
        let verdict = Verdict::Excluded(exclusion);
        self.context
            .emit(
                self.hop
                    .redirected(self.context.config.structured_data, &facts, verdict),
            )
            .await;
        self.ended(VisitEnd::Failed(reason))
    }
}
