//! What a finished crawl reports besides its events: [`CrawlSummary`].

use std::sync::Arc;
use std::time::Duration;

use crate::access::SiteSession;
use crate::address::AddressPolicy;
use crate::concurrency::ConcurrencyReport;
use crate::documents::DocumentReport;
use crate::event::SettledScope;
use crate::render::RenderReport;
use crate::sitemaps::SitemapSeeding;
use crate::traps::TrapReport;

/// What a finished crawl reports besides its events.
#[derive(Debug, Clone)]
pub struct CrawlSummary {
    /// The crawl's scope, as the seed's visit settled it; its root is the sitemaps'
    /// directory.
    pub scope: SettledScope,
    /// URLs taken from the frontier and visited.
    pub pages_visited: u64,
    /// HTTP requests for pages sent (redirect hops and retries included, robots.txt not).
    pub requests: u64,
    /// Pages that answered 304 Not Modified: no body downloaded, nothing parsed.
    pub revalidated: u64,
    /// Distinct in-scope URLs discovered.
    pub urls_discovered: u64,
    /// Links to new URLs not followed because `max_urls` were discovered already.
    pub beyond_max_urls: u64,
    /// Queued URLs the frontier's spill could not give back (a broken disk): the crawl is
    /// incomplete.
    pub urls_lost: u64,
    /// The address policy the crawl applied (private addresses allowed when the seed is on
    /// a private network): other requests made for this site should apply it too.
    pub addresses: AddressPolicy,
    /// What requests to the site carried (the user's headers, credentials and cookies, and
    /// the cookies the site set): other requests made to the site (its own sitemaps) carry
    /// it too, and requests to other hosts never do.
    pub session: Arc<SiteSession>,
    /// Links not followed because they were deeper than `max_depth`.
    pub beyond_max_depth: u64,
    /// URLs still queued when `max_pages` stopped the crawl.
    pub left_by_max_pages: u64,
    /// Whether `max_requests` ran out.
    pub request_budget_exhausted: bool,
    /// Crawler traps found and cut short.
    pub traps: Vec<TrapReport>,
    /// Query parameters found to be session identifiers, stripped from every URL.
    pub session_parameters: Vec<String>,
    /// What rendering in a browser did.
    pub render: RenderReport,
    /// What the concurrency limit did: how far it rose and how often it was cut, when it
    /// adapts.
    pub concurrency: ConcurrencyReport,
    /// Whether [`CrawlStopper::stop`](crate::CrawlStopper::stop) ended the crawl early.
    pub interrupted: bool,
    /// What seeding from the site's own sitemaps did, when
    /// [`CrawlConfig::seed_sitemaps`](crate::CrawlConfig::seed_sitemaps) asked for it.
    pub sitemap_seeding: Option<SitemapSeeding>,
    /// What became of the linked documents, when
    /// [`CrawlConfig::documents`](crate::CrawlConfig::documents) selects any.
    pub documents: Option<DocumentReport>,
    /// How long the crawl took.
    pub elapsed: Duration,
}
