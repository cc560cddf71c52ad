//! The crawl loop: one task owns the frontier, fetch jobs run in a bounded set, and the crawl
//! ends when both are empty (DESIGN.md, Data flow).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use jiff::Timestamp;
use reqwest::header;
use sitemapper_extract::{Document, ExtractOptions, PageFacts, ResponseHeaders};
use tokio::sync::{Semaphore, mpsc, watch};
use tokio::task::JoinSet;
use url::Url;

use crate::CrawlError;
use crate::address::AddressPolicy;
use crate::classify::classify;
use crate::config::{CrawlConfig, ScopeOptions};
use crate::event::{CrawlEvent, Exclusion, PageOutcome, ResponseFacts, Verdict};
use crate::fetch::{BodyWanted, FetchedResponse, Fetcher, Validators};
use crate::frontier::{Frontier, FrontierSpill, QueuedUrl, SeenSet};
use crate::history::{History, PreviousPage};
use crate::lastmod::parse_last_modified;
use crate::normalize::UrlNormalizer;
use crate::origins::Origins;
use crate::robots::RobotsPolicy;
use crate::scope::Scope;
use crate::traps::{LinkCheck, PageShape, TrapGuard, TrapReport};

/// Counters the caller may read while the crawl runs (for a progress bar).
#[derive(Debug, Default)]
pub struct CrawlProgress {
    /// HTTP requests for pages sent so far (redirect hops included, robots.txt not).
    pub requests: AtomicU64,
    /// URLs waiting in the frontier.
    pub queued: AtomicU64,
    /// Pages that answered 304 Not Modified to a conditional request.
    pub revalidated: AtomicU64,
}

/// What a finished crawl reports besides its events.
#[derive(Debug, Clone)]
pub struct CrawlSummary {
    /// Where the crawl's scope ended up (after a seed redirect): the sitemaps' directory.
    pub scope_root: Url,
    /// URLs taken from the frontier and visited.
    pub pages_visited: u64,
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
    /// Whether [`CrawlStopper::stop`] ended the crawl early.
    pub interrupted: bool,
    pub elapsed: Duration,
}

/// A configured crawler. [`Crawler::run`] crawls one site.
#[derive(Debug)]
pub struct Crawler {
    config: Arc<CrawlConfig>,
    normalizer: Arc<UrlNormalizer>,
    progress: Arc<CrawlProgress>,
    stop: watch::Sender<bool>,
    history: Option<Arc<dyn History>>,
    spill: Option<Arc<dyn FrontierSpill>>,
    resume: Option<ResumePoint>,
}

/// Where an interrupted crawl stood: it continues from there instead of starting over.
#[derive(Debug, Clone, Default)]
pub struct ResumePoint {
    /// URLs already done: not requested again (the seed excepted, which restores the scope).
    pub finished: Vec<Url>,
    /// `(source, source depth, target)`: links of finished pages to URLs not done yet.
    pub pending: Vec<(Url, u32, Url)>,
}

/// Stops a running crawl (on Ctrl-C): no new request starts, requests in flight are dropped,
/// and [`Crawler::run`] returns what it has, marked interrupted.
#[derive(Debug, Clone)]
pub struct CrawlStopper(watch::Sender<bool>);

impl CrawlStopper {
    pub fn stop(&self) {
        self.0.send_replace(true);
    }
}

/// Everything a fetch job shares with the others.
#[derive(Debug)]
struct JobContext {
    config: Arc<CrawlConfig>,
    fetcher: Arc<Fetcher>,
    normalizer: Arc<UrlNormalizer>,
    origins: Origins,
    seen: SeenSet,
    extract_options: Arc<ExtractOptions>,
    /// One HTML parse per core at a time: parsing is CPU work, and a page's DOM costs many
    /// times its size, so this also bounds the memory that parsing can take.
    parse_slots: Arc<Semaphore>,
    history: Option<Arc<dyn History>>,
    events: mpsc::Sender<CrawlEvent>,
    progress: Arc<CrawlProgress>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum VisitMode {
    /// The seed: a redirect to another origin moves the scope instead of ending the chain.
    Seed,
    Page,
}

/// What a fetch job hands back to the frontier's owner.
#[derive(Debug)]
struct Visit {
    depth: u32,
    /// The chain length of the page (see `traps`).
    chain: u32,
    /// The page whose links these are.
    page: Option<Url>,
    links: Vec<Url>,
    /// Whether the chain ended in a successful response; why not, otherwise.
    end: VisitEnd,
    moved_scope: Option<Scope>,
}

/// How a visit's redirect chain ended: for the seed, whether the crawl can go on.
#[derive(Debug, Clone, PartialEq, Eq)]
enum VisitEnd {
    /// A successful response ended the chain, or another visit reports where it led.
    Reached,
    /// robots.txt refused a URL of the chain; the text says which rules.
    Disallowed(String),
    /// The chain ended without a successful response, for this reason.
    Failed(String),
}

impl Visit {
    /// A visit that found no page to take links from.
    fn ended(depth: u32, end: VisitEnd, moved_scope: Option<Scope>) -> Visit {
        Visit {
            depth,
            chain: 0,
            page: None,
            links: Vec::new(),
            end,
            moved_scope,
        }
    }
}

impl JobContext {
    fn budget_exhausted(&self) -> bool {
        self.config
            .max_requests
            .is_some_and(|max| self.progress.requests.load(Ordering::Relaxed) >= max)
    }

    /// Counts one more request, unless the budget is spent: checked and counted in one
    /// atomic step, so that concurrent jobs can never pass the budget together.
    fn reserve_request(&self) -> bool {
        let max = self.config.max_requests.unwrap_or(u64::MAX);
        self.progress
            .requests
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |sent| {
                (sent < max).then_some(sent + 1)
            })
            .is_ok()
    }
}

impl Crawler {
    pub fn new(config: CrawlConfig) -> Crawler {
        Crawler {
            normalizer: Arc::new(UrlNormalizer::new(&config.strip_parameters)),
            config: Arc::new(config),
            progress: Arc::default(),
            stop: watch::Sender::new(false),
            history: None,
            spill: None,
            resume: None,
        }
    }

    /// Keeps queued URLs beyond the frontier's memory budget in `spill` instead of memory.
    pub fn with_spill(mut self, spill: Arc<dyn FrontierSpill>) -> Crawler {
        self.spill = Some(spill);
        self
    }

    /// Continues an interrupted crawl from `point`.
    pub fn with_resume(mut self, point: ResumePoint) -> Crawler {
        self.resume = Some(point);
        self
    }

    /// Makes the crawl incremental: URLs an earlier run fetched are revalidated with
    /// conditional requests, and a 304 reuses what that run found.
    pub fn with_history(mut self, history: Arc<dyn History>) -> Crawler {
        self.history = Some(history);
        self
    }

    pub fn stopper(&self) -> CrawlStopper {
        CrawlStopper(self.stop.clone())
    }

    pub fn progress(&self) -> Arc<CrawlProgress> {
        Arc::clone(&self.progress)
    }

    /// The directory a crawl from `seed` covers, before any redirect of the seed: what a
    /// crawl database belongs to.
    pub fn scope_root(seed: &Url) -> Url {
        Scope::from_seed(seed, &ScopeOptions::default())
            .root()
            .clone()
    }

    /// Parses and normalizes a seed URL given by the user.
    pub fn parse_seed(&self, seed: &str) -> Result<Url, CrawlError> {
        let max = self.config.max_url_length;
        if seed.len() > max {
            return Err(CrawlError::SeedTooLong {
                length: seed.len(),
                max,
            });
        }
        self.normalizer
            .parse(seed)
            .ok_or_else(|| CrawlError::InvalidSeed {
                url: seed.to_string(),
            })
    }

    /// Crawls from `seed`, sending one event per decision to `events`. Returns when the
    /// frontier is empty and every job has finished, or when the seed cannot be crawled.
    pub async fn run(
        &self,
        seed: &Url,
        events: mpsc::Sender<CrawlEvent>,
    ) -> Result<CrawlSummary, CrawlError> {
        let started = Instant::now();
        let seed = self
            .normalizer
            .normalize(seed)
            .ok_or_else(|| CrawlError::InvalidSeed {
                url: seed.to_string(),
            })?;
        let addresses = self.config.addresses.clone().for_seed(&seed).await;
        let fetcher = Arc::new(Fetcher::new(&self.config, addresses.clone())?);
        let context = Arc::new(JobContext {
            origins: Origins::new(
                self.config.respect_robots,
                self.config.robots_token(),
                self.config.delay,
                self.config.max_crawl_delay,
                events.clone(),
            ),
            config: Arc::clone(&self.config),
            fetcher,
            normalizer: Arc::clone(&self.normalizer),
            seen: SeenSet::default(),
            history: self.history.clone(),
            parse_slots: Arc::new(Semaphore::new(
                std::thread::available_parallelism().map_or(2, std::num::NonZeroUsize::get),
            )),
            extract_options: Arc::new(ExtractOptions {
                robots_token: self.config.robots_token(),
                // Fingerprints tell changed pages from unchanged ones across runs and find
                // duplicates: only worth computing when history is kept.
                fingerprint: self.config.record_links,
            }),
            events: events.clone(),
            progress: Arc::clone(&self.progress),
        });
        if !self.config.respect_robots {
            tracing::warn!("robots.txt is IGNORED for this crawl (--ignore-robots)");
        }

        let initial_scope = Scope::from_seed(&seed, &self.config.scope);
        context.seen.insert(&seed);
        let seed_item = QueuedUrl {
            url: seed.clone(),
            depth: 0,
            referrer: None,
            chain: 0,
        };
        let seed_visit = visit(
            Arc::clone(&context),
            Arc::new(initial_scope.clone()),
            seed_item,
            VisitMode::Seed,
        )
        .await;
        let scope = match &seed_visit.moved_scope {
            Some(moved) => {
                tracing::info!(from = %initial_scope.root(), to = %moved.root(), "the seed redirected: scope moved");
                let _ = events
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
            VisitEnd::Reached => {}
            VisitEnd::Disallowed(robots) => {
                return Err(CrawlError::SeedDisallowed {
                    url: seed.to_string(),
                    robots: robots.clone(),
                });
            }
            VisitEnd::Failed(reason) => {
                return Err(CrawlError::SeedUnreachable {
                    url: seed.to_string(),
                    reason: reason.clone(),
                });
            }
        }

        let scope = Arc::new(scope);
        let mut owner = FrontierOwner {
            context: Arc::clone(&context),
            scope: Arc::clone(&scope),
            frontier: Frontier::new(self.spill.clone()),
            beyond_max_depth: 0,
            beyond_max_urls: 0,
            traps: TrapGuard::new(self.config.max_pattern_chain),
        };
        let resume = self.resume.clone().unwrap_or_default();
        for url in &resume.finished {
            context.seen.insert(url);
        }
        owner.enqueue_links(seed_visit).await;
        let mut pending = resume.pending.into_iter().peekable();
        while let Some((source, depth, target)) = pending.next() {
            let mut links = vec![target];
            while let Some((_, _, target)) = pending.next_if(|(next, _, _)| *next == source) {
                links.push(target);
            }
            owner
                .enqueue_links(Visit {
                    depth,
                    chain: 0,
                    page: Some(source),
                    links,
                    end: VisitEnd::Reached,
                    moved_scope: None,
                })
                .await;
        }

        let mut stopped = self.stop.subscribe();
        let mut interrupted = *stopped.borrow_and_update();
        let mut jobs = JoinSet::new();
        let mut visited: u64 = 1;
        let concurrency = self.config.concurrency.max(1);
        loop {
            while !interrupted
                && jobs.len() < concurrency
                && self.config.max_pages.is_none_or(|max| visited < max)
                && !context.budget_exhausted()
            {
                let Some(item) = owner.frontier.pop() else {
                    break;
                };
                visited += 1;
                jobs.spawn(visit(
                    Arc::clone(&context),
                    Arc::clone(&scope),
                    item,
                    VisitMode::Page,
                ));
            }
            self.progress
                .queued
                .store(owner.frontier.len() as u64, Ordering::Relaxed);
            let joined = tokio::select! {
                joined = jobs.join_next() => joined,
                _ = stopped.changed(), if !interrupted => {
                    interrupted = true;
                    jobs.abort_all();
                    continue;
                }
            };
            let Some(joined) = joined else {
                break;
            };
            match joined {
                Ok(finished) => owner.enqueue_links(finished).await,
                Err(error) if error.is_cancelled() => {}
                Err(error) => tracing::error!(%error, "a fetch job failed"),
            }
        }
        Ok(CrawlSummary {
            scope_root: scope.root().clone(),
            pages_visited: visited,
            requests: self.progress.requests.load(Ordering::Relaxed),
            revalidated: self.progress.revalidated.load(Ordering::Relaxed),
            urls_discovered: context.seen.len(),
            beyond_max_urls: owner.beyond_max_urls,
            urls_lost: owner.frontier.lost(),
            addresses,
            beyond_max_depth: owner.beyond_max_depth,
            left_by_max_pages: owner.frontier.len() as u64,
            request_budget_exhausted: context.budget_exhausted(),
            traps: owner.traps.reports(),
            session_parameters: owner.traps.session_parameters(),
            interrupted,
            elapsed: started.elapsed(),
        })
    }
}

/// The one task that owns the frontier: it turns found links into queued URLs.
struct FrontierOwner {
    context: Arc<JobContext>,
    scope: Arc<Scope>,
    frontier: Frontier,
    beyond_max_depth: u64,
    beyond_max_urls: u64,
    traps: TrapGuard,
}

impl FrontierOwner {
    async fn enqueue_links(&mut self, visit: Visit) {
        let Some(page) = visit.page else {
            return;
        };
        let depth = visit.depth + 1;
        let page_shape = PageShape::of(&page);
        let config = &self.context.config;
        for link in visit.links {
            let Some(mut url) = self.context.normalizer.normalize(&link) else {
                continue;
            };
            self.traps.strip_sessions(&mut url);
            if !self.scope.contains(&url) {
                continue;
            }
            if config.max_depth.is_some_and(|max| depth > max) {
                self.beyond_max_depth += 1;
                continue;
            }
            if self.context.seen.len() >= config.max_urls {
                // Bounded discovery: past the cap only URLs already known pass.
                if !self.context.seen.contains(&url) {
                    self.beyond_max_urls += 1;
                }
                continue;
            }
            if !self.context.seen.insert(&url) {
                continue;
            }
            if url.as_str().len() > config.max_url_length {
                let outcome =
                    PageOutcome::skipped(url, depth, Some(page.clone()), Exclusion::UrlTooLong);
                emit(&self.context.events, outcome).await;
                continue;
            }
            let chain = match self.traps.check(&page_shape, visit.chain, &url) {
                LinkCheck::Follow { chain } => chain,
                LinkCheck::Cut(kind) => {
                    let outcome =
                        PageOutcome::skipped(url, depth, Some(page.clone()), Exclusion::Trap(kind));
                    emit(&self.context.events, outcome).await;
                    continue;
                }
            };
            self.frontier.push(QueuedUrl {
                url,
                depth,
                referrer: Some(page.clone()),
                chain,
            });
        }
    }
}

async fn emit(events: &mpsc::Sender<CrawlEvent>, outcome: PageOutcome) {
    // A closed channel means the caller stopped listening; the crawl winds down by itself.
    let _ = events.send(CrawlEvent::Page(Box::new(outcome))).await;
}

fn is_redirect(status: u16) -> bool {
    matches!(status, 301 | 302 | 303 | 307 | 308)
}

/// Fetches one queued URL, following its redirects hop by hop, and classifies the page the
/// chain ends on. Emits one event per URL of the chain.
async fn visit(
    context: Arc<JobContext>,
    scope: Arc<Scope>,
    item: QueuedUrl,
    mode: VisitMode,
) -> Visit {
    let QueuedUrl {
        mut url,
        depth,
        mut referrer,
        chain,
    } = item;
    let mut moved_scope: Option<Scope> = None;
    let mut hops = 0;
    loop {
        let current_scope = moved_scope.as_ref().unwrap_or(&scope);
        let policy = context.origins.robots(&url, &context.fetcher).await;
        if !policy.is_allowed(&url) {
            emit(
                &context.events,
                PageOutcome::skipped(url, depth, referrer, Exclusion::RobotsDisallowed),
            )
            .await;
            let reason = match policy.as_ref() {
                RobotsPolicy::DisallowAll { reason } => reason.clone(),
                _ => format!("robots.txt ({})", policy.describe()),
            };
            return Visit::ended(depth, VisitEnd::Disallowed(reason), moved_scope);
        }
        if !context.reserve_request() {
            emit(
                &context.events,
                PageOutcome::skipped(url, depth, referrer, Exclusion::RequestBudget),
            )
            .await;
            return Visit::ended(
                depth,
                VisitEnd::Failed("the request budget ran out".to_string()),
                moved_scope,
            );
        }
        let previous = context
            .history
            .as_ref()
            .and_then(|history| history.previous(&url))
            .filter(PreviousPage::can_revalidate);
        let validators = previous.as_ref().map(|previous| Validators {
            etag: previous.etag.clone(),
            last_modified: previous.last_modified,
        });
        context.origins.pace(&url).await;
        let fetched = context
            .fetcher
            .fetch(&url, BodyWanted::Html200, validators.as_ref(), &|| {
                context.reserve_request()
            })
            .await;
        let response = match fetched {
            Ok(response) => response,
            Err(failure) => {
                let reason = failure.to_string();
                emit(
                    &context.events,
                    PageOutcome::skipped(
                        url,
                        depth,
                        referrer,
                        Exclusion::FetchFailed(reason.clone()),
                    ),
                )
                .await;
                return Visit::ended(depth, VisitEnd::Failed(reason), moved_scope);
            }
        };
        let facts = response_facts(&response);
        if let Some(previous) = previous.filter(|_| facts.status == 304) {
            let mut finished =
                revalidated_page(&context, url, depth, referrer, facts, previous).await;
            finished.moved_scope = moved_scope;
            finished.chain = chain;
            return finished;
        }
        if !is_redirect(facts.status) {
            let mut finished = finish_page(
                &context,
                current_scope,
                url,
                depth,
                referrer,
                response,
                facts,
            )
            .await;
            finished.moved_scope = moved_scope;
            finished.chain = chain;
            return finished;
        }

        let location = response.header(header::LOCATION);
        let target = location
            .as_deref()
            .and_then(|location| url.join(location.trim()).ok())
            .and_then(|target| context.normalizer.normalize(&target));
        let mut outcome = PageOutcome::fetched(
            url.clone(),
            depth,
            referrer.clone(),
            facts.clone(),
            Verdict::Excluded(Exclusion::InvalidRedirect(format!(
                "{} with Location {:?}",
                facts.status, location
            ))),
        );
        let Some(target) = target else {
            emit(&context.events, outcome).await;
            return Visit::ended(
                depth,
                VisitEnd::Failed(format!(
                    "redirect without a usable Location ({})",
                    facts.status
                )),
                moved_scope,
            );
        };
        hops += 1;
        if hops > context.config.max_redirects {
            outcome.verdict = Verdict::Excluded(Exclusion::TooManyRedirects);
            emit(&context.events, outcome).await;
            return Visit::ended(
                depth,
                VisitEnd::Failed("too many redirects".to_string()),
                moved_scope,
            );
        }
        if !current_scope.contains(&target) {
            if mode == VisitMode::Seed && target.as_str().len() <= context.config.max_url_length {
                moved_scope = Some(current_scope.moved_to(&target));
            } else {
                outcome.verdict = Verdict::Excluded(Exclusion::RedirectOutOfScope(target.clone()));
                emit(&context.events, outcome).await;
                return Visit::ended(
                    depth,
                    VisitEnd::Failed(format!("redirected out of scope to {target}")),
                    moved_scope,
                );
            }
        }
        outcome.verdict = Verdict::Redirect { to: target.clone() };
        emit(&context.events, outcome).await;
        if !context.seen.insert(&target) {
            // Reached by another path already (or a loop): that visit reports it.
            let end = if mode == VisitMode::Seed {
                VisitEnd::Failed(format!("redirect loop at {target}"))
            } else {
                VisitEnd::Reached
            };
            return Visit::ended(depth, end, moved_scope);
        }
        if target.as_str().len() > context.config.max_url_length {
            emit(
                &context.events,
                PageOutcome::skipped(target, depth, Some(url), Exclusion::UrlTooLong),
            )
            .await;
            return Visit::ended(
                depth,
                VisitEnd::Failed("redirect target too long".to_string()),
                moved_scope,
            );
        }
        referrer = Some(url);
        url = target;
    }
}

/// Classifies the response a chain ended on, and collects the links to follow.
async fn finish_page(
    context: &JobContext,
    scope: &Scope,
    url: Url,
    depth: u32,
    referrer: Option<Url>,
    response: FetchedResponse,
    facts: ResponseFacts,
) -> Visit {
    let page_facts = if facts.is_html_ok() {
        let _slot = context.parse_slots.acquire().await.ok();
        extract_off_thread(&context.extract_options, &url, response).await
    } else {
        None
    };
    let classification = classify(
        &url,
        &facts,
        page_facts.as_ref(),
        scope,
        &context.normalizer,
    );
    let mut links: Vec<Url> = Vec::new();
    if classification.follow_links
        && let Some(page_facts) = &page_facts
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
    let end = if (200..300).contains(&facts.status) {
        VisitEnd::Reached
    } else {
        VisitEnd::Failed(format!("{url} answered {}", facts.status))
    };
    let outcome = PageOutcome {
        canonical: classification.canonical,
        title: page_facts
            .as_ref()
            .and_then(|page_facts| page_facts.title.clone()),
        description: page_facts
            .as_ref()
            .and_then(|page_facts| page_facts.description.clone()),
        ignored_hints: classification.ignored_hints,
        fingerprint: page_facts
            .as_ref()
            .and_then(|page_facts| page_facts.fingerprint.clone()),
        links: context.config.record_links.then(|| {
            links
                .iter()
                .filter_map(|link| context.normalizer.normalize(link))
                .collect()
        }),
        images: page_facts
            .as_ref()
            .filter(|_| context.config.collect_images)
            .map(|page_facts| page_facts.images.clone()),
        alternates: page_facts
            .as_ref()
            .filter(|_| context.config.collect_alternates)
            .map(|page_facts| {
                page_facts
                    .alternates
                    .iter()
                    .filter_map(|(hreflang, url)| {
                        Some((hreflang.clone(), context.normalizer.normalize(url)?))
                    })
                    .collect()
            }),
        ..PageOutcome::fetched(url.clone(), depth, referrer, facts, classification.verdict)
    };
    emit(&context.events, outcome).await;
    Visit {
        depth,
        chain: 0,
        page: Some(url),
        links,
        end,
        moved_scope: None,
    }
}

/// A page that answered 304 Not Modified: the previous run's facts stand, its links are
/// followed from the database, and nothing is downloaded or parsed.
async fn revalidated_page(
    context: &JobContext,
    url: Url,
    depth: u32,
    referrer: Option<Url>,
    response: ResponseFacts,
    previous: PreviousPage,
) -> Visit {
    context.progress.revalidated.fetch_add(1, Ordering::Relaxed);
    let mut links = previous.links;
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
        links: context.config.record_links.then(|| links.clone()),
        ..PageOutcome::fetched(url.clone(), depth, referrer, facts, previous.verdict)
    };
    emit(&context.events, outcome).await;
    Visit {
        depth,
        chain: 0,
        page: Some(url),
        links,
        end: VisitEnd::Reached,
        moved_scope: None,
    }
}

/// HTML parsing is CPU work: it runs on the blocking pool so that it never stalls the
/// async workers that drive the network.
async fn extract_off_thread(
    options: &Arc<ExtractOptions>,
    url: &Url,
    response: FetchedResponse,
) -> Option<PageFacts> {
    let headers = ResponseHeaders {
        content_type: response.header(header::CONTENT_TYPE),
        link: response.header_values(header::LINK),
        x_robots_tag: response.header_values(header::HeaderName::from_static("x-robots-tag")),
    };
    let options = Arc::clone(options);
    let url = url.clone();
    let body = response.body;
    let task = tokio::task::spawn_blocking(move || {
        let document = Document {
            url: &url,
            body: &body,
            headers: &headers,
        };
        sitemapper_extract::extract(&document, &options)
    });
    match task.await {
        Ok(facts) => Some(facts),
        Err(error) => {
            tracing::error!(%error, "extraction failed");
            None
        }
    }
}

fn response_facts(response: &FetchedResponse) -> ResponseFacts {
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
