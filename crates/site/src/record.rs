//! The recorder: a dedicated thread that writes crawl events into the crawl database in
//! batched transactions, so SQLite never blocks the async workers. A batch is written when it
//! is full or when its first event is [`BATCH_DELAY`] old: a transaction per page, or per
//! handful of pages, costs more than the writes themselves.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use sitemapper_crawl::{
    CrawlEvent, Exclusion, FetchFailureKind, Fingerprint, IgnoredHint, PageDetails, PageLink,
    PageLinkKind, PageOutcome, RenderDifference, Rendering, RobotsFile, SettledScope, TrapKind,
    Verdict,
};
use sitemapper_store::{
    FailureKind, Fingerprint as RecordedFingerprint, HintPlaces, IgnoredHint as Ignored, LinkKind,
    LinkRecord, PageDetails as RecordedDetails, PageExtraction, PageRecord, Reason,
    Rendering as RecordedRendering, RunId, ServedDifference, Store, Verdict as Recorded,
};
use tokio::sync::mpsc;

use crate::error::SiteError;

/// Records per transaction at most.
const BATCH_SIZE: usize = 512;

/// How long the first event of a batch waits for others: long enough to gather hundreds of
/// pages on a fast site, short enough that an interrupted crawl loses little.
const BATCH_DELAY: Duration = Duration::from_millis(100);

/// What the recorder has written so far, for a progress line.
#[derive(Debug, Default)]
pub struct EventCounts {
    /// Pages recorded as listed.
    pub listed: AtomicU64,
    /// Pages recorded as failed.
    pub errors: AtomicU64,
    /// The URL of the page recorded last.
    pub last_url: Mutex<String>,
}

impl EventCounts {
    fn set_last_url(&self, url: &str) {
        let mut last = self.last_url.lock().unwrap_or_else(PoisonError::into_inner);
        last.clear();
        last.push_str(url);
    }
}

/// What the recorder saw besides pages, for the summary.
#[derive(Debug, Default)]
pub struct Notes {
    /// `(origin, policy)` for each robots.txt read.
    pub robots: Vec<(String, String)>,
    /// The `Sitemap:` lines of the robots.txt files read.
    pub sitemaps: Vec<String>,
    /// Whether a robots.txt read gave a `Crawl-delay`.
    pub crawl_delay: bool,
    /// What each origin's robots.txt answered (the last time it was read).
    pub robots_files: BTreeMap<String, RobotsFile>,
}

#[derive(Debug)]
pub(super) struct Recorder {
    handle: JoinHandle<Result<(Store, Notes), SiteError>>,
}

impl Recorder {
    pub(super) fn spawn(
        mut store: Store,
        run: RunId,
        mut events: mpsc::Receiver<CrawlEvent>,
        counts: Arc<EventCounts>,
    ) -> Recorder {
        // The caller's span (a fleet's site) names the lines the recorder logs.
        let span = tracing::Span::current();
        let handle = std::thread::spawn(move || {
            let _entered = span.enter();
            // A runtime of this thread alone, only to wait for the channel with a deadline.
            let waiting = tokio::runtime::Builder::new_current_thread()
                .enable_time()
                .build()
                .map_err(SiteError::Runtime)?;
            let mut notes = Notes::default();
            let mut log = SeedLog::default();
            let mut batch = Vec::with_capacity(BATCH_SIZE);
            let mut extractions = Vec::new();
            let mut script_links = Vec::new();
            while let Some(event) = events.blocking_recv() {
                let deadline = Instant::now() + BATCH_DELAY;
                let mut next = Some(event);
                while let Some(event) = next.take() {
                    match event {
                        CrawlEvent::Page(mut outcome) => {
                            count(&counts, &outcome);
                            log.outcome(&outcome);
                            extractions.extend(page_extraction(&mut outcome));
                            batch.push(page_record(*outcome));
                        }
                        CrawlEvent::Robots {
                            origin,
                            policy,
                            sitemaps,
                            crawl_delay,
                            file,
                        } => {
                            log.robots(&origin, &policy);
                            notes.robots_files.insert(origin.clone(), file);
                            notes.robots.push((origin, policy));
                            notes.sitemaps.extend(sitemaps);
                            notes.crawl_delay |= crawl_delay.is_some();
                        }
                        CrawlEvent::Scope(scope) => log.settle(&scope),
                        CrawlEvent::SitemapListed { sitemap, urls } => {
                            let urls: Vec<String> = urls.into_iter().map(String::from).collect();
                            store.record_sitemap_links(sitemap.as_str(), &urls)?;
                        }
                        CrawlEvent::ScriptLinks(templates) => {
                            script_links.extend(templates.into_iter().map(|drawn| {
                                let links = drawn.links.into_iter().map(String::from).collect();
                                (drawn.template, links)
                            }));
                        }
                    }
                    if batch.len() < BATCH_SIZE {
                        next = match events.try_recv() {
                            Ok(event) => Some(event),
                            Err(mpsc::error::TryRecvError::Empty) => {
                                let wait = async {
                                    tokio::time::timeout_at(deadline.into(), events.recv()).await
                                };
                                waiting.block_on(wait).ok().flatten()
                            }
                            Err(mpsc::error::TryRecvError::Disconnected) => None,
                        };
                    }
                }
                if !batch.is_empty() {
                    store.record_pages(run, &batch)?;
                    batch.clear();
                }
                if !extractions.is_empty() {
                    store.record_extracted(&extractions)?;
                    extractions.clear();
                }
            }
            // Once every page is written: the links are recorded for each page of a template.
            if !script_links.is_empty() {
                let added = store.record_script_links(run, &script_links)?;
                tracing::debug!(added, "links drawn by scripts recorded for each page");
            }
            // A seed that failed settles no scope: what its visit logged is said anyway.
            log.flush();
            Ok((store, notes))
        });
        Recorder { handle }
    }

    /// Waits for the recorder to drain the channel (the sender must be dropped first).
    pub(super) fn finish(self) -> Result<(Store, Notes), SiteError> {
        self.handle.join().map_err(|_| SiteError::RecorderLost)?
    }
}

fn count(counts: &EventCounts, outcome: &PageOutcome) {
    counts.set_last_url(outcome.url.as_str());
    if outcome.replaces_earlier {
        return;
    }
    match &outcome.verdict {
        Verdict::Indexable => {
            counts.listed.fetch_add(1, Ordering::Relaxed);
        }
        Verdict::Excluded(_)
            if outcome
                .response
                .as_ref()
                .is_none_or(|response| response.status >= 400) =>
        {
            counts.errors.fetch_add(1, Ordering::Relaxed);
        }
        _ => {}
    }
}

/// The log of the crawl's events. Until the seed's visit settles the scope, its lines (the
/// robots.txt read, the seed's redirect chain) are held, so that the log begins with the
/// scope the crawl covers; the few lines of one redirect chain are all it ever holds.
#[derive(Debug, Default)]
struct SeedLog {
    settled: bool,
    held: Vec<HeldLine>,
}

/// A log line held until the scope is settled.
#[derive(Debug)]
enum HeldLine {
    /// A page's line, at -v (`info`) or -vv (`debug`).
    Page {
        info: bool,
        message: String,
    },
    Robots {
        origin: String,
        policy: String,
    },
}

impl HeldLine {
    fn emit(&self) {
        match self {
            HeldLine::Page {
                info: true,
                message,
            } => tracing::info!("{message}"),
            HeldLine::Page {
                info: false,
                message,
            } => tracing::debug!("{message}"),
            HeldLine::Robots { origin, policy } => log_robots(origin, policy),
        }
    }
}

impl SeedLog {
    fn outcome(&mut self, outcome: &PageOutcome) {
        let line = OutcomeLine(outcome);
        if self.settled {
            // Formatted only when the level is enabled: this is every page's path.
            if line.is_info() {
                tracing::info!("{line}");
            } else {
                tracing::debug!("{line}");
            }
        } else {
            self.held.push(HeldLine::Page {
                info: line.is_info(),
                message: line.to_string(),
            });
        }
    }

    fn robots(&mut self, origin: &str, policy: &str) {
        if self.settled {
            log_robots(origin, policy);
        } else {
            self.held.push(HeldLine::Robots {
                origin: origin.to_string(),
                policy: policy.to_string(),
            });
        }
    }

    /// Logs the scope first, then what was held.
    fn settle(&mut self, scope: &SettledScope) {
        tracing::info!("{}", ScopeStatement(scope));
        if let Some(from) = &scope.moved_from {
            tracing::info!(%from, to = %scope.root, "the seed redirected: scope moved");
        }
        if scope.private_network {
            tracing::info!(seed = %scope.seed, "the seed is on a private network: private addresses allowed");
        }
        if scope.wider_than_seed {
            tracing::warn!("{}", WiderThanSeed(scope));
        }
        self.settled = true;
        self.flush();
    }

    fn flush(&mut self) {
        for line in self.held.drain(..) {
            line.emit();
        }
    }
}

fn log_robots(origin: &str, policy: &str) {
    tracing::info!(%origin, %policy, "robots.txt");
}

/// What the crawl covers, in the words the log and the summary begin with: `Scope:
/// https://example.com/book/ and below`, with subdomains `, on example.com and its
/// subdomains`, and the patterns that narrow it.
#[derive(Debug)]
pub struct ScopeStatement<'a>(pub &'a SettledScope);

impl std::fmt::Display for ScopeStatement<'_> {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let scope = self.0;
        write!(formatter, "Scope: {} and below", scope.root)?;
        if let Some(site) = &scope.subdomains_of {
            write!(formatter, ", on {site} and its subdomains")?;
        }
        match (scope.narrowed_by_include, scope.narrowed_by_exclude) {
            (true, true) => write!(formatter, ", narrowed by --include and --exclude"),
            (true, false) => write!(formatter, ", narrowed by --include"),
            (false, true) => write!(formatter, ", narrowed by --exclude"),
            (false, false) => Ok(()),
        }
    }
}

/// The warning for a seed typed without the trailing slash of a directory (`/book`) that the
/// site answered as it is: its parent directory is crawled, and `--include` narrows that to
/// the path typed.
struct WiderThanSeed<'a>(&'a SettledScope);

impl std::fmt::Display for WiderThanSeed<'_> {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut typed = self.0.seed.clone();
        typed.set_query(None);
        write!(
            formatter,
            "the scope is {}, wider than the seed {typed}: the site answered it as a page of that directory, not as a directory of its own; to crawl only {typed} and below, add --include '^{}([/?]|$)'",
            self.0.root,
            regex::escape(typed.as_str())
        )
    }
}

/// -v: one line per URL requested (method, URL, status, milliseconds, and `listed` or the
/// code of why not); -vv adds the URLs decided without a request (robots.txt, traps).
struct OutcomeLine<'a>(&'a PageOutcome);

impl OutcomeLine<'_> {
    /// Whether the line is for -v (a request was made), else for -vv.
    fn is_info(&self) -> bool {
        self.0.response.is_some()
            || matches!(self.0.verdict, Verdict::Excluded(Exclusion::FetchFailed(_)))
    }
}

impl std::fmt::Display for OutcomeLine<'_> {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let outcome = self.0;
        let url = &outcome.url;
        let verdict = VerdictCode(&outcome.verdict);
        match (&outcome.response, &outcome.verdict) {
            (Some(response), _) => write!(
                formatter,
                "GET {url} {} {} ms {verdict}",
                response.status,
                response.elapsed.as_millis()
            ),
            (None, Verdict::Excluded(Exclusion::FetchFailed(message))) => {
                write!(formatter, "GET {url} no response {verdict}: {message}")
            }
            (None, _) => write!(formatter, "not requested: {url} {verdict}"),
        }
    }
}

/// A verdict as the log shows it: `listed`, or the code the crawl database keeps.
struct VerdictCode<'a>(&'a Verdict);

impl std::fmt::Display for VerdictCode<'_> {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            Verdict::Indexable => formatter.write_str("listed"),
            Verdict::Canonicalised { .. } => formatter.write_str(Recorded::Canonicalised.code()),
            Verdict::Redirect { .. } => formatter.write_str(Recorded::Redirect.code()),
            Verdict::Excluded(exclusion) => {
                formatter.write_str(&StoredReason::of(exclusion).reason.code())
            }
        }
    }
}

/// What the HTML as served said, where the rendered DOM says otherwise.
fn served_difference(difference: RenderDifference) -> ServedDifference {
    match difference {
        RenderDifference::Canonical { served, .. } => {
            ServedDifference::Canonical(served.map(String::from))
        }
        RenderDifference::Noindex { served } => ServedDifference::Noindex(served),
    }
}

/// The crawl's view of a URL, flattened into the database's plain record: the one place
/// where the crawl's verdicts and reasons become the store's.
fn page_record(outcome: PageOutcome) -> PageRecord {
    let (verdict, stored) = match &outcome.verdict {
        Verdict::Indexable => (Recorded::Indexable, None),
        Verdict::Canonicalised { .. } => (Recorded::Canonicalised, None),
        Verdict::Redirect { .. } => (Recorded::Redirect, None),
        Verdict::Excluded(exclusion) => (Recorded::Excluded, Some(StoredReason::of(exclusion))),
    };
    let (reason, detail, failure) = match stored {
        Some(stored) => (Some(stored.reason), stored.detail, stored.failure),
        None => (None, None, None),
    };
    let response = outcome.response.as_ref();
    // A redirect's one link is its target; a page's are what the crawl recorded.
    let links = match &outcome.verdict {
        Verdict::Redirect { to } => Some(vec![LinkRecord {
            target: to.to_string(),
            kind: LinkKind::Redirect,
            anchor: None,
            nofollow: false,
        }]),
        _ => outcome
            .links
            .map(|links| links.into_iter().map(link_record).collect()),
    };
    PageRecord {
        url: outcome.url.into(),
        depth: outcome.depth,
        referrer: outcome.referrer.map(String::from),
        status: response.map(|response| response.status),
        content_type: response.and_then(|response| response.content_type.clone()),
        html_ok: response.is_some_and(|response| response.is_html_ok()),
        target: outcome.verdict.target().map(ToString::to_string),
        verdict,
        reason,
        detail,
        failure,
        ignored_hints: outcome
            .ignored_hints
            .into_iter()
            .map(ignored_hint)
            .collect(),
        canonical_from: HintPlaces {
            header: outcome.hints.canonical_in_header,
            html: outcome.hints.canonical_in_html,
        },
        noindex_from: HintPlaces {
            header: outcome.hints.noindex_in_header,
            html: outcome.hints.noindex_in_meta,
        },
        canonical: outcome.canonical.map(String::from),
        last_modified: response.and_then(|response| response.last_modified),
        etag: response.and_then(|response| response.etag.clone()),
        fetched_at: response.map(|response| response.fetched_at),
        revalidated: response.is_some_and(|response| response.revalidated),
        fingerprint: outcome.fingerprint.map(fingerprint),
        legacy_fingerprint: outcome.legacy_fingerprint.map(fingerprint),
        failed_transiently: outcome.failed_transiently,
        template: outcome.template,
        title: outcome.title,
        description: outcome.description,
        elapsed_ms: response
            .map(|response| response.elapsed.as_millis().try_into().unwrap_or(u64::MAX)),
        body_bytes: response.map(|response| response.body_bytes as u64),
        truncated: response.is_some_and(|response| response.truncated),
        links,
        details: outcome.details.map(page_details),
        images: outcome
            .images
            .map(|images| images.into_iter().map(String::from).collect()),
        alternates: outcome.alternates.map(|alternates| {
            alternates
                .into_iter()
                .map(|(hreflang, url)| (hreflang, url.into()))
                .collect()
        }),
        // Read and empty forgets what was recorded; not read (a 304, or not asked for)
        // keeps it.
        structured: outcome.structured.map(|data| {
            if data.is_empty() {
                String::new()
            } else {
                data.to_json()
            }
        }),
        rendering: outcome.rendering.as_ref().map(|rendering| match rendering {
            Rendering::Rendered(_) => RecordedRendering::Rendered,
            Rendering::TimedOut => RecordedRendering::TimedOut,
            Rendering::Failed(_) => RecordedRendering::Failed,
        }),
        served_differences: match outcome.rendering {
            Some(Rendering::Rendered(differences)) => {
                differences.into_iter().map(served_difference).collect()
            }
            _ => Vec::new(),
        },
    }
}

/// The store's form of a fingerprint.
fn fingerprint(fingerprint: Fingerprint) -> RecordedFingerprint {
    RecordedFingerprint {
        version: fingerprint.version,
        hex: fingerprint.hex,
    }
}

/// The store's form of a page's link.
fn link_record(link: PageLink) -> LinkRecord {
    LinkRecord {
        target: link.url.into(),
        kind: match link.kind {
            PageLinkKind::Anchor => LinkKind::Anchor,
            PageLinkKind::Canonical => LinkKind::Canonical,
            PageLinkKind::Hreflang => LinkKind::Hreflang,
            PageLinkKind::Image => LinkKind::Image,
            PageLinkKind::Frame => LinkKind::Iframe,
            PageLinkKind::Refresh => LinkKind::Refresh,
            PageLinkKind::ScriptFile => LinkKind::ScriptFile,
            PageLinkKind::Stylesheet => LinkKind::Stylesheet,
        },
        anchor: link.anchor,
        nofollow: link.nofollow,
    }
}

/// The store's form of what a page says on itself.
fn page_details(details: PageDetails) -> RecordedDetails {
    RecordedDetails {
        h1_count: details.h1_count,
        h1: details.h1,
        lang: details.lang,
        images_without_alt: details.images_without_alt,
        images_without_alt_examples: details.images_without_alt_examples,
        insecure_resources: details
            .insecure_resources
            .into_iter()
            .map(String::from)
            .collect(),
        word_count: Some(details.word_count),
        signals: Some(details.signals.to_json()),
    }
}

/// The values the page's custom extractions found, taken out of `outcome`, for the store:
/// `None` when the page was not read this time (a 304), so that the recorded ones stand.
/// Every other page replaces its values, with none when it gave none.
fn page_extraction(outcome: &mut PageOutcome) -> Option<PageExtraction> {
    let extracted = outcome.extracted.take()?;
    Some(PageExtraction {
        page: outcome.url.to_string(),
        values: extracted
            .into_iter()
            .map(|found| (found.name, found.values))
            .collect(),
    })
}

/// An exclusion as the store keeps it: the reason's code, the words that go with it, and
/// for a request that got no response, its kind. (Its target, when it has one, is the
/// record's.)
#[derive(Debug, Clone, PartialEq, Eq)]
struct StoredReason {
    reason: Reason,
    detail: Option<String>,
    failure: Option<FailureKind>,
}

impl StoredReason {
    fn of(exclusion: &Exclusion) -> StoredReason {
        let alone = |reason| StoredReason {
            reason,
            detail: None,
            failure: None,
        };
        match exclusion {
            Exclusion::RobotsDisallowed(rule) => StoredReason {
                detail: Some(rule.clone()),
                ..alone(Reason::RobotsDisallowed)
            },
            Exclusion::NoIndex => alone(Reason::NoIndex),
            Exclusion::NotHtml => alone(Reason::NotHtml),
            Exclusion::HttpStatus(status) => alone(Reason::HttpStatus(*status)),
            Exclusion::FetchFailed(failure) => StoredReason {
                reason: Reason::FetchError,
                detail: Some(failure.message().to_string()),
                failure: Some(failure_kind(failure.kind())),
            },
            Exclusion::TooManyRedirects => alone(Reason::TooManyRedirects),
            Exclusion::RedirectOutOfScope(_) => alone(Reason::RedirectOutOfScope),
            Exclusion::InvalidRedirect(message) => StoredReason {
                detail: Some(message.clone()),
                ..alone(Reason::InvalidRedirect)
            },
            Exclusion::CanonicalOutOfScope(_) => alone(Reason::CanonicalOutOfScope),
            Exclusion::UrlTooLong => alone(Reason::UrlTooLong),
            Exclusion::Trap(TrapKind::RepeatedSegments) => alone(Reason::RepeatedSegmentsTrap),
            Exclusion::Trap(TrapKind::PatternChain) => alone(Reason::PatternChainTrap),
            Exclusion::RequestBudget => alone(Reason::RequestBudget),
        }
    }
}

/// The store's word for the kind of a failed request.
pub(crate) fn failure_kind(kind: FetchFailureKind) -> FailureKind {
    match kind {
        FetchFailureKind::Timeout => FailureKind::Timeout,
        FetchFailureKind::Connect => FailureKind::Connect,
        FetchFailureKind::Body => FailureKind::Body,
        FetchFailureKind::Other => FailureKind::Other,
        FetchFailureKind::Refused => FailureKind::Refused,
    }
}

/// The store's form of a canonical hint the crawl ignored.
fn ignored_hint(hint: IgnoredHint) -> Ignored {
    match hint {
        IgnoredHint::InvalidCanonical(values) => Ignored::InvalidCanonical(values),
        IgnoredHint::ConflictingCanonicals(urls) => {
            Ignored::ConflictingCanonicals(urls.into_iter().map(String::from).collect())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sitemapper_crawl::{FailureCause, FetchFailure};
    use url::Url;

    fn settled(seed: &str, root: &str) -> SettledScope {
        let url = |text: &str| Url::parse(text).unwrap_or_else(|error| panic!("{error}"));
        SettledScope {
            seed: url(seed),
            root: url(root),
            subdomains_of: None,
            narrowed_by_include: false,
            narrowed_by_exclude: false,
            moved_from: None,
            wider_than_seed: false,
            private_network: false,
        }
    }

    #[test]
    fn the_scope_is_stated_with_its_subdomains_and_patterns() {
        let scope = settled("https://www.e.com/book", "https://www.e.com/book/");
        assert_eq!(
            ScopeStatement(&scope).to_string(),
            "Scope: https://www.e.com/book/ and below"
        );
        let wide = SettledScope {
            subdomains_of: Some("e.com".to_string()),
            narrowed_by_include: true,
            narrowed_by_exclude: true,
            ..scope
        };
        assert_eq!(
            ScopeStatement(&wide).to_string(),
            "Scope: https://www.e.com/book/ and below, on e.com and its subdomains, narrowed by --include and --exclude"
        );
    }

    #[test]
    fn the_pattern_offered_matches_the_path_typed_and_below_only() {
        let scope = settled("https://e.com/docs/book?page=2", "https://e.com/docs/");
        let warning = WiderThanSeed(&scope).to_string();
        let pattern = warning
            .split("--include '")
            .nth(1)
            .and_then(|rest| rest.strip_suffix('\''))
            .unwrap_or_else(|| panic!("{warning}"));
        let pattern = regex::Regex::new(pattern).unwrap_or_else(|error| panic!("{error}"));
        for (url, matches) in [
            ("https://e.com/docs/book", true),
            ("https://e.com/docs/book?page=3", true),
            ("https://e.com/docs/book/chapter-1", true),
            ("https://e.com/docs/bookshelf", false),
            ("https://e.com/docs/", false),
            ("https://eXcom/docs/book", false),
        ] {
            assert_eq!(pattern.is_match(url), matches, "{url}");
        }
    }

    /// The exclusion a record of the store says, read back: what the crawl reported, when
    /// the store kept all of it.
    fn stored_exclusion(record: &PageRecord) -> Option<Exclusion> {
        if record.verdict != Recorded::Excluded {
            return None;
        }
        let target = || Url::parse(record.target.as_deref()?).ok();
        let detail = || record.detail.clone();
        Some(match record.reason? {
            Reason::RobotsDisallowed => Exclusion::RobotsDisallowed(detail()?),
            Reason::NoIndex => Exclusion::NoIndex,
            Reason::NotHtml => Exclusion::NotHtml,
            Reason::HttpStatus(status) => Exclusion::HttpStatus(status),
            Reason::FetchError => {
                let kind = match record.failure? {
                    FailureKind::Timeout => FetchFailureKind::Timeout,
                    FailureKind::Connect => FetchFailureKind::Connect,
                    FailureKind::Body => FetchFailureKind::Body,
                    FailureKind::Other => FetchFailureKind::Other,
                    FailureKind::Refused => FetchFailureKind::Refused,
                };
                // The store keeps the cause in words: read back, it is words only.
                let detail = detail()?;
                Exclusion::FetchFailed(FetchFailure::new(kind, FailureCause::Other { detail }))
            }
            Reason::TooManyRedirects => Exclusion::TooManyRedirects,
            Reason::RedirectOutOfScope => Exclusion::RedirectOutOfScope(target()?),
            Reason::InvalidRedirect => Exclusion::InvalidRedirect(detail()?),
            Reason::CanonicalOutOfScope => Exclusion::CanonicalOutOfScope(target()?),
            Reason::UrlTooLong => Exclusion::UrlTooLong,
            Reason::RepeatedSegmentsTrap => Exclusion::Trap(TrapKind::RepeatedSegments),
            Reason::PatternChainTrap => Exclusion::Trap(TrapKind::PatternChain),
            Reason::RequestBudget => Exclusion::RequestBudget,
            // Decided by the store over a whole run, never by the crawl.
            Reason::BrokenCanonical | Reason::CanonicalLoop | Reason::SessionParameter => {
                return None;
            }
        })
    }

    /// Which variant `exclusion` is: a variant added to `Exclusion` does not compile here
    /// until it is numbered, and the round trip below fails until it has an example.
    fn variant(exclusion: &Exclusion) -> usize {
        match exclusion {
            Exclusion::RobotsDisallowed(_) => 0,
            Exclusion::NoIndex => 1,
            Exclusion::NotHtml => 2,
            Exclusion::HttpStatus(_) => 3,
            Exclusion::FetchFailed(_) => 4,
            Exclusion::TooManyRedirects => 5,
            Exclusion::RedirectOutOfScope(_) => 6,
            Exclusion::InvalidRedirect(_) => 7,
            Exclusion::CanonicalOutOfScope(_) => 8,
            Exclusion::UrlTooLong => 9,
            Exclusion::Trap(TrapKind::RepeatedSegments) => 10,
            Exclusion::Trap(TrapKind::PatternChain) => 11,
            Exclusion::RequestBudget => 12,
        }
    }

    /// How many [`variant`]s there are.
    const VARIANTS: usize = 13;

    #[test]
    fn every_exclusion_comes_back_from_the_store_as_the_crawl_reported_it() {
        let url = |text: &str| Url::parse(text).unwrap_or_else(|error| panic!("{error}"));
        let mut exclusions = vec![
            Exclusion::RobotsDisallowed(
                "line 2: Disallow: /private/, in the group for \"*\"".to_string(),
            ),
            Exclusion::NoIndex,
            Exclusion::NotHtml,
            Exclusion::HttpStatus(503),
            Exclusion::TooManyRedirects,
            Exclusion::RedirectOutOfScope(url("https://other.example/moved")),
            Exclusion::InvalidRedirect("301 with Location None".to_string()),
            Exclusion::CanonicalOutOfScope(url("https://other.example/canonical")),
            Exclusion::UrlTooLong,
            Exclusion::Trap(TrapKind::RepeatedSegments),
            Exclusion::Trap(TrapKind::PatternChain),
            Exclusion::RequestBudget,
        ];
        // Every kind of failed request (its cause comes back as the words it was stored in).
        exclusions.extend(FetchFailureKind::ALL.map(|kind| {
            let detail = format!("{} failed", kind.code());
            Exclusion::FetchFailed(FetchFailure::new(kind, FailureCause::Other { detail }))
        }));
        let mut covered: Vec<usize> = exclusions.iter().map(variant).collect();
        covered.sort_unstable();
        covered.dedup();
        assert_eq!(covered, (0..VARIANTS).collect::<Vec<_>>(), "one of each");

        let directory = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
        let mut store = Store::open(&directory.path().join("crawl.db"))
            .unwrap_or_else(|error| panic!("{error}"));
        let run = store
            .begin_run("https://e.com/")
            .unwrap_or_else(|error| panic!("{error}"));
        for (index, exclusion) in exclusions.into_iter().enumerate() {
            let page = url(&format!("https://e.com/{index}"));
            let outcome = PageOutcome::skipped(page.clone(), 1, None, exclusion.clone());
            store
                .record_pages(run, &[page_record(outcome)])
                .unwrap_or_else(|error| panic!("{error}"));
            let record = store
                .page(page.as_str())
                .unwrap_or_else(|error| panic!("{error}"))
                .unwrap_or_else(|| panic!("{page} was not recorded"));
            assert_eq!(stored_exclusion(&record), Some(exclusion.clone()));
            if let Exclusion::FetchFailed(failure) = &exclusion {
                assert_eq!(
                    record.reason.map(|reason| reason.to_string()).as_deref(),
                    Some("fetch-error")
                );
                assert_eq!(record.detail.as_deref(), Some(failure.to_string().as_str()));
            }
        }
    }
}
