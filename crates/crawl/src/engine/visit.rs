//! One fetch job: a queued URL requested, its redirects followed hop by hop (each hop checked
//! against robots.txt and scope before it is requested), and the page the chain ends on handed
//! to `page`. Every URL of the chain is reported once.

use std::collections::HashSet;
use std::sync::Arc;

use reqwest::header;
use url::Url;

use super::context::JobContext;
use super::page::{Answer, finish_page, response_facts, revalidated_page};
use crate::event::{Exclusion, PageOutcome, ResponseFacts, Verdict};
use crate::fetch::{BodyWanted, FetchedResponse, Validators};
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

/// What a fetch job hands back to the frontier's owner.
#[derive(Debug)]
pub(super) struct Visit {
    /// The depth of the queued URL the chain started from.
    pub depth: u32,
    /// The chain length of the page (see `traps`).
    pub chain: u32,
    /// The page whose links these are.
    pub page: Option<Url>,
    /// The links to follow from `page`; the frontier's owner normalizes them.
    pub links: Vec<Url>,
    /// Whether the chain ended in a successful response; why not, otherwise.
    pub end: VisitEnd,
    /// The scope the seed's redirects moved to, if they did.
    pub moved_scope: Option<Scope>,
    /// Of `links`, the pages of the site (normalized) only the rendered DOM links to.
    pub rendered_only: HashSet<Url>,
    /// The rendered DOM's canonical or noindex differ from the HTML's.
    pub render_differs: bool,
    /// Why the page was visited to be rendered, when it was.
    pub render_call: Option<RenderCall>,
}

/// How a visit's redirect chain ended: for the seed, whether the crawl can go on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum VisitEnd {
    /// A successful response ended the chain, or another visit reports where it led.
    Reached,
    /// robots.txt refused a URL of the chain; the text says which rules.
    Disallowed(String),
    /// The chain ended without a successful response, for this reason.
    Failed(String),
}

impl Visit {
    /// A visit that ended on `page`, whose links are to be followed.
    pub(super) fn found(page: Url, depth: u32, links: Vec<Url>, end: VisitEnd) -> Visit {
        Visit {
            depth,
            chain: 0,
            page: Some(page),
            links,
            end,
            moved_scope: None,
            rendered_only: HashSet::new(),
            render_differs: false,
            render_call: None,
        }
    }

    /// A visit that found no page to take links from.
    fn ended(depth: u32, end: VisitEnd, moved_scope: Option<Scope>) -> Visit {
        Visit {
            depth,
            chain: 0,
            page: None,
            links: Vec::new(),
            end,
            moved_scope,
            rendered_only: HashSet::new(),
            render_differs: false,
            render_call: None,
        }
    }
}

/// One URL of a redirect chain, and how the crawl came to it.
#[derive(Debug)]
pub(super) struct Hop {
    pub url: Url,
    /// Clicks from the seed of the URL the chain started from.
    pub depth: u32,
    /// The page that linked to the chain's first URL, or the URL that redirected here.
    pub referrer: Option<Url>,
}

impl Hop {
    /// The hop's outcome when no request was made for it.
    fn skipped(&self, exclusion: Exclusion) -> PageOutcome {
        PageOutcome::skipped(
            self.url.clone(),
            self.depth,
            self.referrer.clone(),
            exclusion,
        )
    }

    /// The hop's outcome when it answered with a redirect.
    fn redirected(&self, facts: &ResponseFacts, verdict: Verdict) -> PageOutcome {
        PageOutcome::fetched(
            self.url.clone(),
            self.depth,
            self.referrer.clone(),
            facts.clone(),
            verdict,
        )
    }
}

/// Where a redirect leads a chain.
#[derive(Debug)]
enum Redirected {
    /// On to the target.
    To(Hop),
    /// Nowhere: the chain ends here, and this is how.
    Ended(VisitEnd),
}

/// Where a chain stands while its redirects are followed.
#[derive(Debug)]
struct Redirects {
    mode: VisitMode,
    /// For the seed, the path typed (other chains need not keep theirs).
    seed_path: Option<String>,
    /// Redirects followed so far.
    followed: usize,
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
    let mut hop = Hop {
        url,
        depth,
        referrer,
    };
    let mut redirects = Redirects {
        mode,
        seed_path,
        followed: 0,
        moved_scope: None,
    };
    loop {
        let conditional = render.is_none();
        let (response, previous) = match request(&context, &hop, conditional).await {
            Ok(answered) => answered,
            Err(end) => return Visit::ended(depth, end, redirects.moved_scope),
        };
        let facts = response_facts(&response);
        let finished = if let Some(previous) = previous.filter(|_| facts.status == 304) {
            revalidated_page(&context, hop, facts, previous).await
        } else if !is_redirect(facts.status) {
            let scope = redirects.moved_scope.as_ref().unwrap_or(&scope);
            let answer = Answer::new(hop, response, facts);
            finish_page(&context, scope, answer, render.clone()).await
        } else {
            match follow_redirect(&context, &scope, &mut redirects, hop, &response, facts).await {
                Redirected::To(next) => {
                    hop = next;
                    continue;
                }
                Redirected::Ended(end) => return Visit::ended(depth, end, redirects.moved_scope),
            }
        };
        return Visit {
            chain,
            moved_scope: redirects.moved_scope,
            render_call: render,
            ..finished
        };
    }
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
    };
    let finished = finish_page(&context, &scope, answer, Some(render.clone())).await;
    Visit {
        chain: item.chain,
        render_call: Some(render),
        ..finished
    }
}

/// Requests `hop` when robots.txt and the request budget allow it, `conditional`ly when an
/// earlier run left validators; hands back that run's page too. A URL that gets no response
/// is reported here.
async fn request(
    context: &JobContext,
    hop: &Hop,
    conditional: bool,
) -> Result<(FetchedResponse, Option<PreviousPage>), VisitEnd> {
    let policy = context.origins.robots(&hop.url, &context.fetcher).await;
    if !policy.is_allowed(&hop.url) {
        context.emit(hop.skipped(Exclusion::RobotsDisallowed)).await;
        let rules = match policy.as_ref() {
            RobotsPolicy::DisallowAll { reason } => reason.clone(),
            _ => format!("robots.txt ({})", policy.describe()),
        };
        return Err(VisitEnd::Disallowed(rules));
    }
    if !context.reserve_request() {
        context.emit(hop.skipped(Exclusion::RequestBudget)).await;
        return Err(VisitEnd::Failed("the request budget ran out".to_string()));
    }
    let previous = context
        .history
        .as_ref()
        .filter(|_| conditional)
        .and_then(|history| history.previous(&hop.url))
        .filter(PreviousPage::can_revalidate);
    let validators = previous.as_ref().map(|previous| Validators {
        etag: previous.etag.clone(),
        last_modified: previous.last_modified,
    });
    context.origins.pace(&hop.url).await;
    let fetched = context
        .fetcher
        .fetch(
            &hop.url,
            BodyWanted::Html200,
            validators.as_ref(),
            &|| context.reserve_request(),
            Some(&context.concurrency),
        )
        .await;
    match fetched {
        Ok(response) => Ok((response, previous)),
        Err(failure) => {
            let reason = failure.to_string();
            context
                .emit(hop.skipped(Exclusion::FetchFailed(reason.clone())))
                .await;
            Err(VisitEnd::Failed(reason))
        }
    }
}

fn is_redirect(status: u16) -> bool {
    matches!(status, 301 | 302 | 303 | 307 | 308)
}

/// Reports a redirect of `hop` and decides where the chain goes: to the target, or nowhere.
/// A redirect of the seed out of its scope moves the scope there.
async fn follow_redirect(
    context: &JobContext,
    scope: &Scope,
    redirects: &mut Redirects,
    hop: Hop,
    response: &FetchedResponse,
    facts: ResponseFacts,
) -> Redirected {
    let location = response.header(header::LOCATION);
    let target = location
        .as_deref()
        .and_then(|location| hop.url.join(location.trim()).ok())
        .and_then(|target| context.normalizer.normalize(&target));
    let Some(target) = target else {
        let invalid =
            Exclusion::InvalidRedirect(format!("{} with Location {location:?}", facts.status));
        context
            .emit(hop.redirected(&facts, Verdict::Excluded(invalid)))
            .await;
        return Redirected::Ended(VisitEnd::Failed(format!(
            "redirect without a usable Location ({})",
            facts.status
        )));
    };
    redirects.followed += 1;
    if redirects.followed > context.config.max_redirects {
        let verdict = Verdict::Excluded(Exclusion::TooManyRedirects);
        context.emit(hop.redirected(&facts, verdict)).await;
        return Redirected::Ended(VisitEnd::Failed("too many redirects".to_string()));
    }
    let current_scope = redirects.moved_scope.as_ref().unwrap_or(scope);
    if redirects.seed_path.as_deref() == Some(hop.url.path())
        && adds_trailing_slash(&hop.url, &target)
    {
        // `/book` -> `/book/`: the path typed names a directory, and the crawl is of it.
        redirects.moved_scope = Some(current_scope.narrowed_to(&target));
    } else if !current_scope.contains(&target) {
        if redirects.mode == VisitMode::Seed
            && target.as_str().len() <= context.config.max_url_length
        {
            redirects.moved_scope = Some(current_scope.moved_to(&target));
        } else {
            let verdict = Verdict::Excluded(Exclusion::RedirectOutOfScope(target.clone()));
            context.emit(hop.redirected(&facts, verdict)).await;
            return Redirected::Ended(VisitEnd::Failed(format!(
                "redirected out of scope to {target}"
            )));
        }
    }
    let verdict = Verdict::Redirect { to: target.clone() };
    context.emit(hop.redirected(&facts, verdict)).await;
    if !context.seen.insert(&target) {
        // Reached by another path already (or a loop): that visit reports it.
        return Redirected::Ended(if redirects.mode == VisitMode::Seed {
            VisitEnd::Failed(format!("redirect loop at {target}"))
        } else {
            VisitEnd::Reached
        });
    }
    if target.as_str().len() > context.config.max_url_length {
        let too_long =
            PageOutcome::skipped(target, hop.depth, Some(hop.url), Exclusion::UrlTooLong);
        context.emit(too_long).await;
        return Redirected::Ended(VisitEnd::Failed("redirect target too long".to_string()));
    }
    Redirected::To(Hop {
        url: target,
        depth: hop.depth,
        referrer: Some(hop.url),
    })
}
