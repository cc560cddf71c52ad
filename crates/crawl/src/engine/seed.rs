//! The seed: visited alone before any other URL, because its redirects may move the scope and
//! its failure ends the crawl.

use std::sync::Arc;

use url::Url;

use super::context::JobContext;
use super::visit::{Visit, VisitEnd, VisitMode, visit};
use crate::CrawlError;
use crate::event::CrawlEvent;
use crate::frontier::QueuedUrl;
use crate::scope::Scope;

/// The seed's visit and the scope the crawl goes on in.
#[derive(Debug)]
pub(super) struct SeedVisit {
    /// The seed's scope, or the one its redirects moved to.
    pub scope: Arc<Scope>,
    /// The visit, with the links to follow from the page the seed led to.
    pub visit: Visit,
}

/// Visits `seed` (normalized) and settles the crawl's scope. A seed that robots.txt refuses,
/// or that leads to no successful response, ends the crawl.
pub(super) async fn visit_seed(
    context: &Arc<JobContext>,
    seed: &Url,
) -> Result<SeedVisit, CrawlError> {
    let initial_scope = Scope::from_seed(seed, &context.config.scope);
    context.seen.insert(seed);
    let item = QueuedUrl {
        url: seed.clone(),
        depth: 0,
        referrer: None,
        chain: 0,
    };
    let seed_visit = visit(
        Arc::clone(context),
        Arc::new(initial_scope.clone()),
        item,
        VisitMode::Seed,
        None,
    )
    .await;
    let scope = match &seed_visit.moved_scope {
        Some(moved) => {
            tracing::info!(from = %initial_scope.root(), to = %moved.root(), "the seed redirected: scope moved");
            if !context.config.access.is_empty() && !context.session.is_site(moved.root()) {
                tracing::warn!(
                    to = %moved.root(),
                    "the seed redirected to another host: the headers, credentials and cookies given are not sent there"
                );
            }
            let _ = context
                .events
                .send(CrawlEvent::ScopeMoved {
                    from: initial_scope.root().clone(),
                    to: moved.root().clone(),
                })
                .await;
            moved.clone()
        }
        None => initial_scope,
    };
    match &seed_visit.end {
        VisitEnd::Reached => Ok(SeedVisit {
            scope: Arc::new(scope),
            visit: seed_visit,
        }),
        VisitEnd::Disallowed(robots) => Err(CrawlError::SeedDisallowed {
            url: seed.to_string(),
            robots: robots.clone(),
        }),
        VisitEnd::Failed(reason) => Err(CrawlError::SeedUnreachable {
            url: seed.to_string(),
            reason: reason.clone(),
        }),
    }
}
