//! `explain`: why one URL is listed or not, gathered from the crawl database alone.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use jiff::Timestamp;
use sitemapper_crawl::{DEFAULT_STRIP_PARAMETERS, UrlNormalizer};
use sitemapper_sitemap::format_lastmod;
use sitemapper_store::{
    HintPlaces, LISTINGS_KEPT, LinkKind, PageRecord, PageTimes, Reason, Rendering, RunId,
    RunStatus, RunSummary, Store, StoreError, Verdict,
};
use url::Url;

use super::explanation::{
    Evidence, Explanation, History, Hop, LastmodStory, Nearest, Reached, RunRef, Standing,
    StatusSpan, Step,
};
use super::nearest::{parents, variants};
use super::published::file_listing;

/// Why `explain` could not answer.
#[derive(Debug, thiserror::Error)]
pub enum ExplainError {
    /// What was asked is not an http(s) URL.
    #[error(
        "{0:?} is not an http(s) URL: give the page's full address, as https://example.com/page"
    )]
    NotAUrl(String),
    /// The crawl database could not be read.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// At most this many redirect hops and click-path steps are followed.
const MAX_STEPS: usize = 64;

/// At most this many pages linking to the URL are named.
const LINKED_FROM_EXAMPLES: usize = 5;

/// At most this many statuses are told, the last ones.
const STATUSES_TOLD: usize = 6;

/// Why `asked` is listed or not, from what `store` recorded.
pub fn explain(store: &Store, asked: &str) -> Result<Explanation, ExplainError> {
    let not_a_url = || ExplainError::NotAUrl(asked.to_string());
    let parsed = Url::parse(asked.trim()).map_err(|_| not_a_url())?;
    if !matches!(parsed.scheme(), "http" | "https") || parsed.host_str().is_none() {
        return Err(not_a_url());
    }
    let normalizer = UrlNormalizer::new(DEFAULT_STRIP_PARAMETERS);
    // As written, for a crawl that stripped other parameters (`--strip-param`) or none.
    let as_written = parsed.to_string();
    let normalized = normalizer.normalize(&parsed).unwrap_or(parsed);
    let runs = Runs::of(store)?;
    let scope = store.scope()?;
    let key = normalized.to_string();
    let mut explanation = Explanation {
        url: asked.to_string(),
        normalized: key.clone(),
        standing: Standing::NeverMet,
        reason: None,
        why: String::new(),
        evidence: Vec::new(),
        redirects: Vec::new(),
        reached: None,
        lastmod: None,
        history: None,
        nearest: None,
        scope: scope.clone(),
        run: runs.answering().map(|run| runs.reference(run.id)),
    };
    if let Some(note) = runs.unpublished_note() {
        explanation.evidence.push(Evidence {
            topic: "run",
            found: note,
        });
    }
    let recorded = match store.page(&key)? {
        Some(record) => Some(record),
        None if as_written != key => store.page(&as_written)?,
        None => None,
    };
    let times = match &recorded {
        Some(record) => store.page_times(&record.url)?,
        None => None,
    };
    let (Some(record), Some(times)) = (recorded, times) else {
        never_met(
            store,
            &runs,
            &normalizer,
            &normalized,
            scope.as_deref(),
            &mut explanation,
        )?;
        return Ok(explanation);
    };
    explanation.normalized = record.url.clone();
    let listings = store.listings_of(&record.url)?;
    let listed_by_answer = runs
        .answering()
        .is_some_and(|run| listings.iter().any(|listing| listing.run == run.id));
    if listed_by_answer {
        explanation.standing = Standing::Listed;
        explanation.why = listed_why(&record);
        explanation.lastmod = Some(lastmod_story(store, &record, &times, &listings, &runs)?);
    } else {
        explanation.standing = Standing::NotListed;
        let (reason, why) = not_listed_why(&record, &times, &runs);
        explanation.reason = Some(reason);
        explanation.why = why;
    }
    explanation.evidence.extend(evidence(&record, &times));
    explanation.redirects = redirects(store, &record)?;
    explanation.reached = Some(reached(store, &record, &times)?);
    explanation.history = Some(history(store, &record, &times, &listings, &runs)?);
    Ok(explanation)
}

/// The runs the database remembers, by number.
struct Runs {
    /// Newest first.
    all: Vec<RunSummary>,
    by_id: HashMap<RunId, usize>,
}

impl Runs {
    fn of(store: &Store) -> Result<Runs, StoreError> {
        let all = store.runs()?;
        let by_id = all
            .iter()
            .enumerate()
            .map(|(index, run)| (run.id, index))
            .collect();
        Ok(Runs { all, by_id })
    }

    /// The run whose sitemap is the published one: the last complete run.
    fn answering(&self) -> Option<&RunSummary> {
        self.all
            .iter()
            .find(|run| run.status == RunStatus::Complete)
    }

    /// When the last run is not the one whose sitemap stands, what it means.
    fn unpublished_note(&self) -> Option<String> {
        let latest = self.all.first()?;
        if latest.status == RunStatus::Complete {
            return None;
        }
        Some(match self.answering() {
            Some(answering) => format!(
                "the last run ({}) ended {}: the sitemap that stands is run {}'s, and this \
                 answer is of that run",
                latest.id.0,
                latest.status.as_str(),
                answering.id.0
            ),
            None => format!(
                "no run has completed (the last, {}, ended {}): no sitemap was published",
                latest.id.0,
                latest.status.as_str()
            ),
        })
    }

    fn reference(&self, run: RunId) -> RunRef {
        let summary = self.by_id.get(&run).map(|&index| &self.all[index]);
        RunRef {
            run: run.0,
            started_at: summary.map_or_else(String::new, |summary| rfc3339(summary.started_at)),
            status: summary
                .map_or("forgotten", |summary| summary.status.as_str())
                .to_string(),
        }
    }
}

fn rfc3339(time: Timestamp) -> String {
    time.strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
}

/// A URL with no row: outside the scope, or never linked; and the nearest URL that has one.
fn never_met(
    store: &Store,
    runs: &Runs,
    normalizer: &UrlNormalizer,
    url: &Url,
    scope: Option<&str>,
    explanation: &mut Explanation,
) -> Result<(), StoreError> {
    let scope_url = scope.and_then(|scope| Url::parse(scope).ok());
    let in_scope = scope_url
        .as_ref()
        .is_none_or(|scope| scope.origin() == url.origin() && url.path().starts_with(scope.path()));
    if let (false, Some(scope)) = (in_scope, scope) {
        explanation.reason = Some("out-of-scope".to_string());
        explanation.why = format!(
            "It is outside the crawl's scope, {scope} and below: the crawl does not follow \
             links there, and a sitemap may list only URLs under its own directory."
        );
        explanation.evidence.push(Evidence {
            topic: "scope",
            found: format!("the database maps {scope} and below"),
        });
    } else if runs.all.is_empty() {
        explanation.reason = Some("never-met".to_string());
        explanation.why = "The crawl database holds no run yet.".to_string();
    } else {
        explanation.reason = Some("never-met".to_string());
        explanation.why = "The crawl never met it: no page it read links to it, no redirect \
                           or canonical leads there, and no sitemap of the site it read lists \
                           it."
        .to_string();
    }
    let listed_now = |record: &PageRecord| -> Result<bool, StoreError> {
        Ok(match runs.answering() {
            Some(run) => store
                .listings_of(&record.url)?
                .iter()
                .any(|listing| listing.run == run.id),
            None => false,
        })
    };
    for (variant, differs) in variants(url) {
        let variant = normalizer.normalize(&variant).unwrap_or(variant);
        if let Some(record) = store.page(variant.as_str())? {
            explanation.nearest = Some(Nearest {
                listed: listed_now(&record)?,
                url: record.url,
                differs,
            });
            return Ok(());
        }
    }
    for parent in parents(url) {
        if let Some(record) = store.page(parent.as_str())? {
            explanation.nearest = Some(Nearest {
                listed: listed_now(&record)?,
                url: record.url,
                differs: "the nearest page above it",
            });
            return Ok(());
        }
    }
    Ok(())
}

/// Why a listed page is listed, in one sentence.
fn listed_why(record: &PageRecord) -> String {
    let canonical = match (&record.canonical, record.reason) {
        (_, Some(Reason::BrokenCanonical)) => format!(
            "its canonical names {}, which is broken, so the hint is ignored",
            record.target.as_deref().unwrap_or("another page")
        ),
        (_, Some(Reason::CanonicalLoop)) => {
            "its canonical is part of a loop, of which it is the first URL".to_string()
        }
        (Some(canonical), _) if *canonical == record.url => "its canonical is itself".to_string(),
        (Some(canonical), _) => format!("its canonical, {canonical}, is ignored"),
        (None, _) => "it names no canonical".to_string(),
    };
    format!(
        "It answered 200 with HTML, robots.txt allows it, it does not ask not to be indexed, \
         and {canonical}."
    )
}

/// The reason's code and its sentence, for a page the published sitemap does not list.
fn not_listed_why(record: &PageRecord, times: &PageTimes, runs: &Runs) -> (String, String) {
    let target = record.target.as_deref().unwrap_or("another URL");
    let detail = record.detail.as_deref().unwrap_or("");
    match record.verdict {
        Verdict::Indexable => {
            let answering = runs.answering().map(|run| run.id);
            match answering {
                Some(answering) if times.last_seen < answering => (
                    "not-reached".to_string(),
                    format!(
                        "The last complete run ({}) did not reach it: no link it followed led \
                         there, and no sitemap of the site it read listed it. It was last seen, \
                         listable, in run {}.",
                        answering.0, times.last_seen.0
                    ),
                ),
                _ => (
                    "not-published".to_string(),
                    format!(
                        "Run {} found it listable, but that run published no sitemap.",
                        times.last_seen.0
                    ),
                ),
            }
        }
        Verdict::Canonicalised => (
            "canonicalised".to_string(),
            format!("Its canonical names another page, {target}, which is listed in its place."),
        ),
        Verdict::Redirect => (
            "redirect".to_string(),
            format!("It redirects to {target}: the page it leads to is listed, not it."),
        ),
        Verdict::Excluded => {
            let Some(reason) = record.reason else {
                return ("excluded".to_string(), "It is left out.".to_string());
            };
            let why = match reason {
                Reason::RobotsDisallowed => {
                    "robots.txt disallows it, so it was never requested.".to_string()
                }
                Reason::NoIndex => "It asks not to be indexed (noindex).".to_string(),
                Reason::NotHtml => format!(
                    "It answered 200, but with {}, not an HTML page.",
                    record.content_type.as_deref().unwrap_or("no content type")
                ),
                Reason::HttpStatus(status) => format!("It answered {}.", status_words(status)),
                Reason::FetchError => format!(
                    "Its request got no response, after the retries ({}: {detail}).",
                    record
                        .failure
                        .map_or("failure".to_string(), |failure| failure.to_string())
                ),
                Reason::TooManyRedirects => {
                    "It redirects more times in a row than the crawl follows.".to_string()
                }
                Reason::RedirectOutOfScope => {
                    format!("It redirects out of the crawl's scope, to {target}.")
                }
                Reason::InvalidRedirect => {
                    format!("It redirects without a usable Location ({detail}).")
                }
                Reason::CanonicalOutOfScope => {
                    format!("Its canonical names a URL outside the crawl's scope: {target}.")
                }
                Reason::UrlTooLong => "It is longer than --max-url-length allows, so it was \
                                       never requested."
                    .to_string(),
                Reason::RepeatedSegmentsTrap => "Its path repeats a segment three times or more, \
                    the mark of a crawler trap (a relative link resolved against itself): it \
                    was never requested."
                    .to_string(),
                Reason::PatternChainTrap => "It is part of a chain of pages of one shape, each \
                    found only on the one before (a calendar without end), which the crawl cuts \
                    at --max-pattern-chain: it was never requested."
                    .to_string(),
                Reason::RequestBudget => "The crawl's request budget (--max-requests) ran out \
                                          before it was requested."
                    .to_string(),
                Reason::BrokenCanonical => {
                    format!("Its canonical names {target}, which is broken; the hint was ignored.")
                }
                Reason::CanonicalLoop => {
                    "Its canonical is part of a loop: another URL of the loop is listed."
                        .to_string()
                }
                Reason::SessionParameter => format!(
                    "Its URL carries a parameter that changes on every response ({detail}): \
                     the crawl strips it and lists the URL without it."
                ),
            };
            (reason.code().into_owned(), why)
        }
    }
}

/// `404 Not Found`.
fn status_words(status: u16) -> String {
    match reqwest::StatusCode::from_u16(status)
        .ok()
        .and_then(|code| code.canonical_reason())
    {
        Some(words) => format!("{status} {words}"),
        None => status.to_string(),
    }
}

/// Where a hint was found, in words: `a Link header and the HTML`.
fn places(places: HintPlaces, header: &str, html: &str, rendered: bool) -> String {
    let html = if rendered {
        format!("{html} of the rendered DOM")
    } else {
        html.to_string()
    };
    match (places.header, places.html) {
        (true, true) => format!("{header} and {html}"),
        (true, false) => header.to_string(),
        _ => html,
    }
}

/// The facts that show the verdict.
fn evidence(record: &PageRecord, times: &PageTimes) -> Vec<Evidence> {
    let mut evidence = Vec::new();
    let mut add = |topic, found: String| evidence.push(Evidence { topic, found });
    let rendered = record.rendering == Some(Rendering::Rendered);
    match (record.status, record.failure) {
        (Some(status), _) => add(
            "response",
            format!(
                "{}{}",
                status_words(status),
                record
                    .content_type
                    .as_deref()
                    .map(|kind| format!(", Content-Type: {kind}"))
                    .unwrap_or_default()
            ),
        ),
        (None, Some(failure)) => add(
            "response",
            format!(
                "no response: {failure}{}",
                record
                    .detail
                    .as_deref()
                    .map(|detail| format!(" ({detail})"))
                    .unwrap_or_default()
            ),
        ),
        (None, None) => add("response", "never requested".to_string()),
    }
    match (times.kept_status, times.kept_failure) {
        (Some(status), _) => add(
            "kept",
            format!(
                "the last run got {}, a failure that may pass: the page stands as the run \
                 before recorded it",
                status_words(status)
            ),
        ),
        (None, Some(failure)) => add(
            "kept",
            format!(
                "the last run got no response ({failure}), a failure that may pass: the page \
                 stands as the run before recorded it"
            ),
        ),
        (None, None) => {}
    }
    if record.reason == Some(Reason::RobotsDisallowed) {
        add(
            "robots.txt",
            record.detail.clone().unwrap_or_else(|| {
                "robots.txt disallows it (the rule was not recorded by the release that \
                 crawled it)"
                    .to_string()
            }),
        );
    }
    if let Some(canonical) = &record.canonical {
        let found = if record.canonical_from.is_none() {
            String::new()
        } else {
            format!(
                ", in {}",
                places(
                    record.canonical_from,
                    "a Link header",
                    "<link rel=canonical>",
                    rendered
                )
            )
        };
        add("canonical", format!("{canonical}{found}"));
    }
    if record.reason == Some(Reason::NoIndex) || !record.noindex_from.is_none() {
        let found = if record.noindex_from.is_none() {
            "noindex".to_string()
        } else {
            format!(
                "noindex in {}",
                places(
                    record.noindex_from,
                    "the X-Robots-Tag header",
                    "<meta name=robots>",
                    rendered
                )
            )
        };
        add("noindex", found);
    }
    for difference in &record.served_differences {
        add(
            "rendering",
            format!("the HTML as served differs: {difference}"),
        );
    }
    match record.rendering {
        Some(Rendering::Rendered) => add(
            "rendering",
            "read in a browser: the verdict is the rendered DOM's".to_string(),
        ),
        Some(other) => add("rendering", format!("rendering failed ({})", other.code())),
        None => {}
    }
    if record.reason == Some(Reason::RepeatedSegmentsTrap)
        && let Some(segment) = repeated_segment(&record.url)
    {
        add(
            "trap",
            format!("the segment {segment:?} repeats in the path"),
        );
    }
    for hint in &record.ignored_hints {
        add("canonical", format!("ignored: {hint}"));
    }
    evidence
}

/// The path segment `url` repeats most, when one repeats three times or more.
fn repeated_segment(url: &str) -> Option<String> {
    let url = Url::parse(url).ok()?;
    let mut counts: HashMap<&str, usize> = HashMap::new();
    for segment in url.path_segments()?.filter(|segment| !segment.is_empty()) {
        *counts.entry(segment).or_default() += 1;
    }
    counts
        .into_iter()
        .filter(|&(_, count)| count >= 3)
        .max_by_key(|&(segment, count)| (count, std::cmp::Reverse(segment)))
        .map(|(segment, _)| segment.to_string())
}

/// The redirect chain from the page, hop by hop, as recorded.
fn redirects(store: &Store, record: &PageRecord) -> Result<Vec<Hop>, StoreError> {
    let mut hops = Vec::new();
    let mut seen = HashSet::new();
    let mut current = record.clone();
    while hops.len() < MAX_STEPS
        && seen.insert(current.url.clone())
        && (current.verdict == Verdict::Redirect
            || matches!(
                current.reason,
                Some(Reason::RedirectOutOfScope | Reason::TooManyRedirects)
            ))
    {
        let Some(to) = current.target.clone() else {
            break;
        };
        hops.push(Hop {
            url: current.url.clone(),
            status: current.status.filter(|status| (300..400).contains(status)),
            to: to.clone(),
        });
        match store.page(&to)? {
            Some(next) => current = next,
            None => break,
        }
    }
    Ok(hops)
}

/// How the crawl reached the page: the click path through the recorded referrers, the pages
/// that link to it, the sitemaps that list it.
fn reached(store: &Store, record: &PageRecord, times: &PageTimes) -> Result<Reached, StoreError> {
    let mut path = Vec::new();
    let mut seen = HashSet::new();
    let mut current = record.clone();
    loop {
        seen.insert(current.url.clone());
        let Some(referrer) = current.referrer.clone() else {
            path.push(Step {
                url: current.url.clone(),
                via: "seed",
            });
            break;
        };
        let from = store.page(&referrer)?;
        let kinds = store.link_kinds(&referrer, &current.url)?;
        let via = step_via(&kinds, from.as_ref());
        path.push(Step {
            url: current.url.clone(),
            via,
        });
        match from {
            Some(from) if path.len() < MAX_STEPS && !seen.contains(&from.url) => current = from,
            Some(_) => break,
            None => {
                path.push(Step {
                    url: referrer,
                    via: if kinds.contains(&LinkKind::Sitemap) {
                        "site-sitemap"
                    } else {
                        "unknown"
                    },
                });
                break;
            }
        }
    }
    path.reverse();
    let linking = store.referrers(times.last_seen, &record.url)?;
    Ok(Reached {
        depth: record.depth,
        path,
        linked_from: linking.len() as u64,
        linked_from_examples: linking.into_iter().take(LINKED_FROM_EXAMPLES).collect(),
        sitemaps: store.sitemaps_listing(&record.url)?,
    })
}

/// How one step of a click path led to the next, from the kinds of the links recorded
/// between them.
fn step_via(kinds: &[LinkKind], from: Option<&PageRecord>) -> &'static str {
    let rendered = from.is_some_and(|from| from.rendering == Some(Rendering::Rendered));
    let order = [
        (LinkKind::Redirect, "redirect"),
        (LinkKind::Anchor, if rendered { "rendered" } else { "link" }),
        (LinkKind::Script, "script"),
        (LinkKind::Iframe, "frame"),
        (LinkKind::Refresh, "refresh"),
        (LinkKind::Canonical, "canonical"),
        (LinkKind::Hreflang, "alternate"),
        (LinkKind::Sitemap, "sitemap"),
    ];
    order
        .into_iter()
        .find(|(kind, _)| kinds.contains(kind))
        .map_or_else(
            || match from {
                // A redirect's target names the URL that redirected as its referrer.
                Some(from) if from.verdict == Verdict::Redirect => "redirect",
                _ => "link",
            },
            |(_, via)| via,
        )
}

/// A listed page's `<lastmod>` and where it comes from.
fn lastmod_story(
    store: &Store,
    record: &PageRecord,
    times: &PageTimes,
    listings: &[sitemapper_store::Listing],
    runs: &Runs,
) -> Result<LastmodStory, StoreError> {
    let listed = runs
        .answering()
        .and_then(|run| listings.iter().find(|listing| listing.run == run.id));
    let value = listed.and_then(|listing| listing.lastmod);
    let source = match (value, record.last_modified) {
        (None, _) => "none",
        (Some(value), Some(header)) if value == header => "last-modified",
        (Some(value), Some(header)) if times.lastmod_kept || header > value => "kept",
        _ => "content-change",
    };
    let mut changes: Vec<String> = store
        .change_times(&record.url)?
        .into_iter()
        .rev()
        .take(10)
        .map(format_lastmod)
        .collect();
    changes.dedup();
    let (file, file_not_found) = match store.published_to()? {
        Some(directory) => {
            let names = store.sitemap_files()?;
            let url = Url::parse(&record.url).ok();
            match url.map(|url| {
                file_listing(
                    Path::new(&directory),
                    names.keys().map(String::as_str),
                    &url,
                )
            }) {
                Some(Ok(file)) => (file, None),
                Some(Err(directory)) => (None, Some(directory)),
                None => (None, None),
            }
        }
        None => (None, None),
    };
    Ok(LastmodStory {
        value: value.map(format_lastmod),
        source,
        last_modified: record.last_modified.map(format_lastmod),
        changes,
        file,
        file_not_found,
    })
}

/// The page's runs: first and last seen, its statuses over them, the listings that name it.
fn history(
    store: &Store,
    record: &PageRecord,
    times: &PageTimes,
    listings: &[sitemapper_store::Listing],
    runs: &Runs,
) -> Result<History, StoreError> {
    let status_text = |status: Option<u16>, failure: Option<sitemapper_store::FailureKind>| match (
        status, failure,
    ) {
        (Some(status), _) => status.to_string(),
        (None, Some(failure)) => failure.to_string(),
        (None, None) => "not requested".to_string(),
    };
    let mut statuses = Vec::new();
    let mut from_run = times.first_seen.0;
    for change in store.status_changes(&record.url)? {
        statuses.push(StatusSpan {
            status: status_text(change.status, change.failure),
            from_run,
            to_run: change.run.0 - 1,
        });
        from_run = change.run.0;
    }
    let current = match (times.kept_status, times.kept_failure) {
        (None, None) => status_text(record.status, record.failure),
        (status, failure) => status_text(status, failure),
    };
    statuses.push(StatusSpan {
        status: current,
        from_run,
        to_run: times.last_seen.0,
    });
    let told = statuses.len().saturating_sub(STATUSES_TOLD);
    statuses.drain(..told);
    Ok(History {
        first_seen: runs.reference(times.first_seen),
        last_seen: runs.reference(times.last_seen),
        last_changed: store
            .change_times(&record.url)?
            .last()
            .map(|time| rfc3339(*time)),
        statuses,
        listed_in_runs: listings.iter().map(|listing| listing.run.0).collect(),
        listings_kept: runs.all.len().min(LISTINGS_KEPT as usize),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_segment_a_trap_repeats_is_named() {
        assert_eq!(
            repeated_segment("https://e.com/a/b/a/b/a/b/c").as_deref(),
            Some("a")
        );
        assert_eq!(repeated_segment("https://e.com/a/b/a/b"), None);
    }

    #[test]
    fn a_step_says_how_it_was_reached() {
        let rendered = PageRecord {
            rendering: Some(Rendering::Rendered),
            ..PageRecord::new("https://e.com/", Verdict::Indexable)
        };
        assert_eq!(step_via(&[LinkKind::Anchor], None), "link");
        assert_eq!(step_via(&[LinkKind::Anchor], Some(&rendered)), "rendered");
        assert_eq!(
            step_via(&[LinkKind::Script, LinkKind::Hreflang], Some(&rendered)),
            "script"
        );
        let redirecting = PageRecord::new("https://e.com/old", Verdict::Redirect);
        assert_eq!(step_via(&[], Some(&redirecting)), "redirect");
    }
}
