//! The one task that owns the frontier: it turns the links fetch jobs found into queued URLs
//! (scope, depth, discovery cap, traps), starts jobs while limits allow, and sums up the run.
//!
//! Depth is the shortest click path from the seed, the same under any concurrency and timing
//! (docs/design.md, Inclusion): the crawl goes level by level, so a page of depth `d + 1` is
//! requested only once every page of depth `d` is done, and no slow page lets a longer path
//! reach a URL first. A queued URL's referrer is its parent of the level before that comes
//! first in URL order, whichever finished first.

use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use tokio::sync::watch;
use tokio::task::JoinSet;
use tracing::Instrument;

use url::Url;

use super::context::JobContext;
use super::job::{Visit, VisitEnd};
use super::sitemap_seeds::{self, ListedUrls};
use super::summary::CrawlSummary;
use super::visit::{VisitMode, render_kept, visit};
use crate::access::SiteSession;
use crate::address::AddressPolicy;
use crate::event::{CrawlEvent, Exclusion, PageOutcome, SettledScope};
use crate::frontier::{Frontier, FrontierSpill, QueuedUrl, ReferrerMap, fingerprint, referrer_key};
use crate::render::{Candidate, KeptPage, RenderCall};
use crate::resume::{ResumeError, ResumeSource};
use crate::scope::Scope;
use crate::sitemaps::{SitemapReader, SitemapSeeding};
use crate::traps::{LinkCheck, PageShape, TrapGuard};

/// Where links were found: a page (or a sitemap of the site), its depth and chain.
#[derive(Debug)]
struct FoundOn {
    url: Url,
    /// `url`'s text, shared by the referrers kept for the URLs it links to: a page of a wide
    /// level can stay the referrer of a URL until the next level, so it costs its text alone.
    shared: Arc<str>,
    depth: u32,
    chain: u32,
    shape: PageShape,
}

impl FoundOn {
    fn page(url: Url, depth: u32, chain: u32) -> FoundOn {
        FoundOn {
            shape: PageShape::of(&url),
            shared: Arc::from(url.as_str()),
            url,
            depth,
            chain,
        }
    }
}

/// What the owner made of one link.
#[derive(Debug)]
enum Admitted {
    /// A new URL, queued.
    Queued(Url),
    /// In scope, but known already, or not followed (depth, discovery cap, a trap).
    InScope(Url),
    /// Out of scope, or never to be listed (too long).
    OutOfScope,
}

/// A page read as served, to visit again and render.
fn queued_again(page: Candidate) -> QueuedUrl {
    QueuedUrl {
        url: page.url,
        depth: page.depth,
        referrer: page.referrer,
        chain: 0,
    }
}

/// The one task that owns the frontier: it turns found links into queued URLs.
pub(super) struct FrontierOwner {
    context: Arc<JobContext>,
    scope: Arc<Scope>,
    frontier: Frontier,
    beyond_max_depth: u64,
    beyond_max_urls: u64,
    traps: TrapGuard,
    /// URLs taken from the frontier and visited, the seed included.
    pages_visited: u64,
    interrupted: bool,
    /// What seeding from the site's sitemaps did, when it was asked for.
    sitemap_seeding: Option<SitemapSeeding>,
    /// The depth of the pages being fetched: deeper ones wait until these are done.
    level: u32,
    /// Every queued URL (by fingerprint, spilled ones too) with its depth and the parent that
    /// comes first in URL order among those found so far, the parents' texts shared
    /// (docs/design.md, Memory).
    referrers: ReferrerMap,
    /// Pages read as served to visit again, rendered, with their response when it was kept.
    renders: VecDeque<(QueuedUrl, RenderCall, Option<KeptPage>)>,
    /// Jobs in flight that visit a page again to render it: at most as many as the browser
    /// has tabs, so that what one render teaches (a template learned) holds back the next.
    rendering_again: usize,
}

impl FrontierOwner {
    /// The owner of an empty frontier, after the seed was visited.
    pub(super) fn new(
        context: Arc<JobContext>,
        scope: Arc<Scope>,
        spill: Option<Arc<dyn FrontierSpill>>,
    ) -> FrontierOwner {
        FrontierOwner {
            traps: TrapGuard::new(context.config.max_pattern_chain),
            context,
            scope,
            frontier: Frontier::new(spill),
            beyond_max_depth: 0,
            beyond_max_urls: 0,
            pages_visited: 1,
            interrupted: false,
            sitemap_seeding: None,
            level: 0,
            referrers: ReferrerMap::default(),
            renders: VecDeque::new(),
            rendering_again: 0,
        }
    }

    /// Queues the links of the seed's page and, when the crawl resumes, the links its
    /// finished pages left pending, read a batch at a time (the frontier spills what its
    /// memory budget does not hold); the finished URLs are not requested again.
    pub(super) async fn start(
        &mut self,
        seed_visit: Visit,
        resume: Option<Box<dyn ResumeSource>>,
    ) -> Result<(), ResumeError> {
        let Some(mut resume) = resume else {
            self.enqueue_links(seed_visit).await;
            return Ok(());
        };
        loop {
            let finished = resume.finished()?;
            if finished.is_empty() {
                break;
            }
            for url in &finished {
                self.context.seen.insert(url);
            }
        }
        self.enqueue_links(seed_visit).await;
        loop {
            let pending = resume.pending()?;
            if pending.is_empty() {
                break;
            }
            let mut pending = pending.into_iter().peekable();
            while let Some((source, depth, target)) = pending.next() {
                let mut links = vec![target];
                while let Some((_, _, target)) = pending.next_if(|(next, _, _)| *next == source) {
                    links.push(target);
                }
                self.enqueue_links(Visit::found(source, depth, links, VisitEnd::Reached))
                    .await;
            }
        }
        Ok(())
    }

    /// Runs fetch jobs until the frontier and the jobs in flight are both empty, a limit
    /// stops new jobs, or `stopped` says stop; then, with a `reader`, seeds from the site's
    /// own sitemaps and crawls what they add; then renders what rendering may find (see
    /// `render`), as long as it finds more.
    pub(super) async fn crawl(
        &mut self,
        mut stopped: watch::Receiver<bool>,
        reader: Option<&dyn SitemapReader>,
    ) {
        self.run_jobs(&mut stopped).await;
        if let Some(reader) = reader {
            if self.ran_out_of_links() {
                let (context, scope) = (Arc::clone(&self.context), Arc::clone(&self.scope));
                let seeding = sitemap_seeds::seed(self, context, scope, reader, &stopped).await;
                self.sitemap_seeding = Some(seeding);
                self.run_jobs(&mut stopped).await;
            } else {
                tracing::info!(
                    "the crawl stopped before its links ran out: the site's sitemaps are not read"
                );
                self.sitemap_seeding = Some(SitemapSeeding {
                    not_reached: true,
                    ..SitemapSeeding::default()
                });
            }
        }
        while self.ran_out_of_links() {
            let probes = self.context.render.take_probes();
            if probes.is_empty() {
                break;
            }
            for (call, page, kept) in probes {
                self.renders.push_back((queued_again(page), call, kept));
            }
            self.run_jobs(&mut stopped).await;
        }
        if self.context.config.record_links {
            let links = self.context.render.script_links();
            if !links.is_empty() {
                self.context
                    .emit_event(CrawlEvent::ScriptLinks(links))
                    .await;
            }
        }
    }

    /// Whether the crawl ended because no link led anywhere new, not because of a limit or
    /// a stop.
    fn ran_out_of_links(&self) -> bool {
        let config = &self.context.config;
        !self.interrupted
            && self.frontier.len() == 0
            && !self.context.budget_exhausted()
            && config.max_pages.is_none_or(|max| self.pages_visited < max)
    }

    /// Runs fetch jobs until the frontier and the jobs in flight are both empty, a limit
    /// stops new jobs, or `stopped` says stop.
    async fn run_jobs(&mut self, stopped: &mut watch::Receiver<bool>) {
        self.interrupted |= *stopped.borrow_and_update();
        let mut jobs = JoinSet::new();
        loop {
            self.start_jobs(&mut jobs);
            self.context
                .progress
                .queued
                .store(self.frontier.len() as u64, Ordering::Relaxed);
            let joined = tokio::select! {
                joined = jobs.join_next() => joined,
                _ = stopped.changed(), if !self.interrupted => {
                    self.interrupted = true;
                    jobs.abort_all();
                    continue;
                }
            };
            let Some(joined) = joined else {
                break;
            };
            match joined {
                Ok(finished) => self.enqueue_links(finished).await,
                Err(error) if error.is_cancelled() => {}
                Err(error) => tracing::error!(%error, "a fetch job failed"),
            }
        }
    }

    /// Starts jobs for queued URLs while there is room for them and no limit says stop:
    /// pages to render again first, then the frontier's, a level at a time.
    fn start_jobs(&mut self, jobs: &mut JoinSet<Visit>) {
        if jobs.is_empty() {
            // A job that panicked returned no visit: none renders now.
            self.rendering_again = 0;
        }
        let config = &self.context.config;
        while !self.interrupted
            && jobs.len() < self.context.concurrency.current()
            && config.max_pages.is_none_or(|max| self.pages_visited < max)
            && !self.context.budget_exhausted()
        {
            let room = self.rendering_again < self.context.render.tabs();
            let again = if room { self.renders.pop_front() } else { None };
            let (item, render, kept) = if let Some(again) = again {
                if !self.context.render.renders_again(&again.1) {
                    continue;
                }
                self.rendering_again += 1;
                (again.0, Some(again.1), again.2)
            } else {
                let Some(depth) = self.frontier.peek_depth() else {
                    break;
                };
                if depth > self.level && !jobs.is_empty() {
                    break;
                }
                let Some(mut item) = self.frontier.pop() else {
                    break;
                };
                let key = referrer_key(fingerprint(item.url.as_str()));
                if let Some((_, referrer)) = self.referrers.remove(&key) {
                    item.referrer = Url::parse(&referrer).ok();
                }
                self.pages_visited += 1;
                (item, None, None)
            };
            self.level = if jobs.is_empty() {
                item.depth
            } else {
                self.level.max(item.depth)
            };
            let context = Arc::clone(&self.context);
            let scope = Arc::clone(&self.scope);
            // A job logs in the crawl's span: a fleet's crawls say which site they are.
            match (kept, render) {
                (Some(kept), Some(call)) => {
                    let job = render_kept(context, scope, item, kept, call);
                    jobs.spawn(job.in_current_span());
                }
                (_, render) => {
                    let job = visit(context, scope, item, VisitMode::Page, render);
                    jobs.spawn(job.in_current_span());
                }
            }
        }
    }

    /// Queues the links of a visited page that pass scope, depth, the discovery cap, the URL
    /// length and the trap checks; reports those cut by the last two. Counts the URLs only
    /// rendering led to, and judges the template a rendered page stood for.
    async fn enqueue_links(&mut self, visit: Visit) {
        if visit.render_call.is_some() {
            self.rendering_again = self.rendering_again.saturating_sub(1);
        }
        let mut found = 0;
        if let Some(page) = visit.page {
            let found_on = FoundOn::page(page, visit.depth, visit.chain);
            for link in visit.links {
                if let Some(url) = self.context.normalizer.normalize(&link) {
                    // Most pages are not rendered: their links are not hashed for nothing.
                    let rendered_only =
                        !visit.rendered_only.is_empty() && visit.rendered_only.contains(&url);
                    let admitted = self.admit(url, &found_on).await;
                    if rendered_only && let Admitted::Queued(url) = &admitted {
                        tracing::info!(%url, page = %found_on.url, "a link only the rendered page has");
                        found += 1;
                    }
                }
            }
        }
        let render = &self.context.render;
        if found > 0 {
            render.found(found);
        }
        let found_something = found > 0 || visit.render_differs;
        match &visit.render_call {
            Some(RenderCall::Probe(template)) => {
                let calls = render.judge(template, found_something, &visit.rendered_only);
                for (call, page) in calls {
                    self.renders.push_back((queued_again(page), call, None));
                }
            }
            Some(RenderCall::Confirm(template)) => {
                let calls = render.confirm(template, found_something, &visit.rendered_only);
                for (call, page) in calls {
                    self.renders.push_back((queued_again(page), call, None));
                }
            }
            Some(RenderCall::Unfinished(template)) => {
                render.judge_unfinished(template, found_something);
            }
            _ => {}
        }
        match &visit.rendered_as {
            Some(RenderCall::Again(template) | RenderCall::Every(Some(template))) => {
                render.draw(template, &visit.rendered_links, &visit.rendered_only);
                render.learn(template, &visit.rendered_only, visit.render_differs);
            }
            Some(RenderCall::Probe(template) | RenderCall::Confirm(template)) => {
                render.draw(template, &visit.rendered_links, &visit.rendered_only);
            }
            _ => {}
        }
    }

    /// Queues `url` (normalized), found on `found_on`, when it passes scope, depth, the
    /// discovery cap, the URL length and the trap checks; reports those cut by the last two.
    async fn admit(&mut self, mut url: Url, found_on: &FoundOn) -> Admitted {
        let depth = found_on.depth + 1;
        let config = &self.context.config;
        self.traps.strip_sessions(&mut url);
        if !self.scope.contains(&url) {
            return Admitted::OutOfScope;
        }
        if config.max_depth.is_some_and(|max| depth > max) {
            self.beyond_max_depth += 1;
            return Admitted::InScope(url);
        }
        if self.context.seen.len() >= config.max_urls {
            // Bounded discovery: past the cap only URLs already known pass.
            if !self.context.seen.contains(&url) {
                self.beyond_max_urls += 1;
            }
            return Admitted::InScope(url);
        }
        // Hashed once: for the seen-set and the referrers.
        let key = fingerprint(url.as_str());
        if !self.context.seen.insert_fingerprint(key) {
            self.prefer_referrer(key, found_on, depth);
            return Admitted::InScope(url);
        }
        let page = &found_on.url;
        if url.as_str().len() > config.max_url_length {
            let outcome =
                PageOutcome::skipped(url, depth, Some(page.clone()), Exclusion::UrlTooLong);
            self.context.emit(outcome).await;
            return Admitted::OutOfScope;
        }
        let chain = match self.traps.check(&found_on.shape, found_on.chain, &url) {
            LinkCheck::Follow { chain } => chain,
            LinkCheck::Cut(kind) => {
                let outcome = PageOutcome::skipped(
                    url.clone(),
                    depth,
                    Some(page.clone()),
                    Exclusion::Trap(kind),
                );
                self.context.emit(outcome).await;
                return Admitted::InScope(url);
            }
        };
        self.referrers
            .insert(referrer_key(key), (depth, Arc::clone(&found_on.shared)));
        self.frontier.push(&url, depth, chain);
        Admitted::Queued(url)
    }

    /// Makes `page` the referrer of the queued URL of `fingerprint` when it links there on as
    /// short a path as the referrer kept, and comes first in URL order.
    fn prefer_referrer(&mut self, fingerprint: u128, page: &FoundOn, depth: u32) {
        if let Some((queued_depth, referrer)) = self.referrers.get_mut(&referrer_key(fingerprint))
            && *queued_depth == depth
            && page.url.as_str() < &**referrer
        {
            *referrer = Arc::clone(&page.shared);
        }
    }

    /// The run's summary, once every job has finished.
    pub(super) fn summary(
        &self,
        scope: SettledScope,
        addresses: AddressPolicy,
        session: Arc<SiteSession>,
        elapsed: Duration,
    ) -> CrawlSummary {
        let progress = &self.context.progress;
        CrawlSummary {
            scope,
            pages_visited: self.pages_visited,
            requests: progress.requests.load(Ordering::Relaxed),
            revalidated: progress.revalidated.load(Ordering::Relaxed),
            urls_discovered: self.context.seen.len(),
            beyond_max_urls: self.beyond_max_urls,
            urls_lost: self.frontier.lost(),
            addresses,
            session,
            beyond_max_depth: self.beyond_max_depth,
            left_by_max_pages: self.frontier.len() as u64,
            request_budget_exhausted: self.context.budget_exhausted(),
            traps: self.traps.reports(),
            session_parameters: self.traps.session_parameters(),
            render: self.context.render.finish(),
            concurrency: self.context.concurrency.report(),
            interrupted: self.interrupted,
            sitemap_seeding: self.sitemap_seeding.clone(),
            documents: (!self.context.config.documents.is_empty())
                .then(|| self.context.documents.report()),
            elapsed,
        }
    }
}

impl ListedUrls for FrontierOwner {
    /// Queues the URLs a sitemap of the site lists, as links of the sitemap one click from
    /// the seed, under the same rules as a page's links; reports the ones in scope and
    /// returns how many were new.
    async fn enqueue_listed(&mut self, sitemap: &Url, listed: Vec<String>) -> u64 {
        let found_on = FoundOn::page(sitemap.clone(), 0, 0);
        let mut in_scope = Vec::new();
        let mut queued = 0;
        for loc in listed {
            let Some(url) = self.context.normalizer.parse(&loc) else {
                continue;
            };
            match self.admit(url, &found_on).await {
                Admitted::Queued(url) => {
                    queued += 1;
                    in_scope.push(url);
                }
                Admitted::InScope(url) => in_scope.push(url),
                Admitted::OutOfScope => {}
            }
        }
        let _ = self
            .context
            .events
            .send(CrawlEvent::SitemapListed {
                sitemap: sitemap.clone(),
                urls: in_scope,
            })
            .await;
        queued
    }
}
