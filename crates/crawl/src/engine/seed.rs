//! The seed: visited alone before any other URL, because its redirects may move the scope and
//! its failure ends the crawl.

use std::sync::Arc;

use url::Url;

use super::context::JobContext;
use super::job::{Visit, VisitEnd};
use super::visit::{VisitMode, visit};
use crate::error::CrawlError;
use crate::event::{CrawlEvent, SettledScope};
use crate::frontier::QueuedUrl;
use crate::robots::RobotsUnavailable;
use crate::scope::Scope;

/// The seed's visit and the scope the crawl goes on in.
#[derive(Debug)]
pub(super) struct SeedVisit {
    /// The seed's scope, or the one its redirects moved to.
    pub scope: Arc<Scope>,
    /// The same, as the crawl reports it.
    pub settled: SettledScope,
    /// The visit, with the links to follow from the page the seed led to.
    pub visit: Visit,
}

/// Visits `seed` (normalized) and settles the crawl's scope, which it reports before any
/// other page is visited. A seed that robots.txt refuses, or that leads to no successful
/// response, ends the crawl. `private_network`: the seed is on one, so the crawl may reach
/// private addresses.
pub(super) async fn visit_seed(
    context: &Arc<JobContext>,
    seed: &Url,
    private_network: bool,
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
    let moved_from = seed_visit
        .moved_scope
        .as_ref()
        .map(|_| initial_scope.root().clone());
    let scope = match &seed_visit.moved_scope {
        Some(moved) => {
            if !context.config.access.is_empty() && !context.session.is_site(moved.root()) {
                tracing::warn!(
                    to = %moved.root(),
                    "the seed redirected to another host: the headers, credentials and cookies given are not sent there"
                );
            }
            moved.clone()
        }
        None => initial_scope,
    };
    let reached = match (&seed_visit.end, &seed_visit.page) {
        (VisitEnd::Reached, Some(page)) => Some(page),
        _ => None,
    };
    let (narrowed_by_include, narrowed_by_exclude) = scope.filters();
    let settled = SettledScope {
        seed: seed.clone(),
        root: scope.root().clone(),
        subdomains_of: scope.subdomains_of().map(String::from),
        narrowed_by_include,
        narrowed_by_exclude,
        moved_from,
        wider_than_seed: reached.is_some_and(|page| scope.is_wider_than_seed(seed, page)),
        private_network,
    };
    let _ = context
        .events
        .send(CrawlEvent::Scope(settled.clone()))
        .await;
    match &seed_visit.end {
        VisitEnd::Reached => Ok(SeedVisit {
            scope: Arc::new(scope),
            settled,
            visit: seed_visit,
        }),
        VisitEnd::Disallowed(robots) => Err(CrawlError::SeedDisallowed {
            url: seed.to_string(),
            robots: robots.clone(),
        }),
        // robots.txt that cannot be read forbids the crawl (RFC 9309 section 2.3.1.4); when
        // no response came, the seed cannot be reached, and that is what the user must fix.
        VisitEnd::RobotsUnavailable(RobotsUnavailable::Unreachable(failure)) => {
            Err(CrawlError::SeedUnreachable {
                url: seed.to_string(),
                reason: failure.to_string(),
            })
        }
        VisitEnd::RobotsUnavailable(RobotsUnavailable::ServerError(status)) => {
            Err(CrawlError::RobotsUnavailable {
                url: seed.to_string(),
                status: *status,
            })
        }
        VisitEnd::Failed(reason) => Err(CrawlError::SeedUnreachable {
            url: seed.to_string(),
            // The line names the seed already: the seed answering is "it" (a URL it
            // redirected to is still named).
            reason: reason
                .strip_prefix(&format!("{seed} "))
                .map_or_else(|| reason.clone(), |rest| format!("it {rest}")),
        }),
    }
}
