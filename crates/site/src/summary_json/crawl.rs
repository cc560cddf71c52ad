//! The crawl's summary as data (`--summary json`): the same facts as the text summary, in the
//! fields docs/summary-json.md describes. Every count is a number, every URL a string, every
//! absent value `null`.

use std::collections::BTreeMap;

use serde::Serialize;
use sitemapper_audit::describe_incomplete_video;
use sitemapper_crawl::{
    ConcurrencyReport, DocumentReport, NotRead, Refusal, RenderMode, SiteDecision, TrapKind,
};
use sitemapper_sitemap::Format;
use sitemapper_store::{KeptPages, StoreError, TransientCause, Verdict};
use url::Url;

use crate::media::MediaReport;
use crate::not_listed::NotListedGroup;
use crate::output_target::OutputTarget;
use crate::process_use::{children_cpu_seconds, cpu_seconds, peak_rss_bytes};
use crate::run::SiteRun;
use crate::settings::SiteSettings;
use crate::summary_json::envelope::path_text;

/// The fields of `sitemapper crawl --summary json` after the envelope, and the `crawl` field
/// of the audit's.
#[derive(Debug, Serialize)]
pub struct CrawlJson {
    seed: String,
    scope_root: String,
    /// Where the seed redirected the scope from, when it did.
    scope_moved_from: Option<String>,
    /// With `--allow-subdomains`, the site whose subdomains are in scope too.
    scope_subdomains_of: Option<String>,
    /// The seed names a directory without its trailing slash and was answered as a page:
    /// the scope is the directory above it (the warning says how to narrow it).
    scope_wider_than_seed: bool,
    run: i64,
    resumed: bool,
    timings: Timings,
    pages_visited: u64,
    requests: u64,
    urls_discovered: u64,
    revalidated: u64,
    /// Pages that served a new `Last-Modified` with the same content: their lastmod kept.
    lastmod_kept: u64,
    listed: u64,
    /// Listed under their own URL although they name another canonical.
    listed_as_themselves: Vec<ReasonCountJson>,
    not_listed_total: u64,
    not_listed: Vec<NotListedJson>,
    /// Where `--list-not-listed` wrote every URL not listed: a path, `-` for stdout.
    not_listed_file: Option<String>,
    limits_reached: LimitsReached,
    traps: Vec<TrapJson>,
    session_parameters: Vec<String>,
    /// What the site's own sitemaps added (`--seed-sitemaps`); `null` when they were not read.
    sitemap_seeds: Option<SitemapSeedsJson>,
    robots: Vec<RobotsJson>,
    pace: Option<PaceJson>,
    concurrency: ConcurrencyJson,
    files: FilesJson,
    /// The video entries (`--video`); `null` without it.
    videos: Option<VideosJson>,
    /// The news sitemap (`--news`); `null` without it.
    news: Option<NewsJson>,
    changes: Option<ChangesJson>,
    /// URLs the last complete run listed that failed this time in a way that may pass: kept
    /// listed, or dropped after `--keep-failed` runs in a row; `null` without an earlier
    /// complete run.
    kept: Option<KeptJson>,
    /// Where `--report-changes` wrote the change report: a path, `-` for stdout.
    change_report: Option<String>,
    /// What was sent to IndexNow, in words.
    indexnow: Option<String>,
    rendering: RenderingJson,
    resources: Resources,
    /// With `--documents`, the documents listed by type and the others by why not.
    documents: Option<DocumentsJson>,
}

#[derive(Debug, Serialize)]
struct DocumentsJson {
    listed: BTreeMap<&'static str, u64>,
    not_listed: BTreeMap<&'static str, u64>,
}

impl DocumentsJson {
    fn of(report: &DocumentReport) -> DocumentsJson {
        DocumentsJson {
            listed: report
                .listed
                .iter()
                .map(|(kind, n)| (kind.name(), *n))
                .collect(),
            not_listed: report
                .not_listed
                .iter()
                .map(|(miss, n)| (miss.code(), *n))
                .collect(),
        }
    }
}

#[derive(Debug, Serialize)]
struct Timings {
    /// RFC 3339, UTC.
    started_at: String,
    elapsed_seconds: f64,
    crawl_seconds: f64,
}

#[derive(Debug, Serialize)]
struct ReasonCountJson {
    reason: String,
    count: u64,
}

#[derive(Debug, Serialize)]
struct NotListedJson {
    /// The reason's code, or the verdict's when it says it all (`redirect`, `canonicalised`).
    reason: String,
    verdict: &'static str,
    count: u64,
    examples: Vec<ExampleJson>,
}

#[derive(Debug, Serialize)]
struct ExampleJson {
    url: String,
    /// `null` for the seed.
    referrer: Option<String>,
}

/// Each limit that stopped part of the crawl, `null` when it did not.
#[derive(Debug, Serialize)]
struct LimitsReached {
    max_pages: Option<LimitJson>,
    max_urls: Option<LimitJson>,
    max_requests: Option<LimitJson>,
    max_depth: Option<LimitJson>,
}

#[derive(Debug, Serialize)]
struct LimitJson {
    /// The limit's value; `null` when the run does not know it.
    value: Option<u64>,
    /// What it left out: queued URLs not visited (max_pages), links not followed (max_urls,
    /// max_depth); `null` for max_requests.
    not_crawled: Option<u64>,
}

#[derive(Debug, Serialize)]
struct TrapJson {
    kind: &'static str,
    urls_cut: u64,
    example: String,
}

#[derive(Debug, Serialize)]
struct SitemapSeedsJson {
    read: u64,
    skipped: u64,
    unreadable: u64,
    urls_queued: u64,
    /// The sitemaps skipped or unreadable, each with why (the first 100).
    not_read: Vec<NotReadJson>,
    /// Listed URLs no link of a crawled page led to: only the sitemaps did.
    listed_only_from_sitemaps: u64,
    /// Whether a limit or a stop ended the crawl before the sitemaps were read.
    not_reached: bool,
}

#[derive(Debug, Serialize)]
struct RobotsJson {
    origin: String,
    policy: String,
}

#[derive(Debug, Serialize)]
struct PaceJson {
    /// `delay` (the --delay option) or `crawl-delay` (robots.txt).
    source: &'static str,
    /// The --delay seconds; `null` for crawl-delay, which may differ per host.
    seconds: Option<f64>,
}

#[derive(Debug, Serialize)]
struct ConcurrencyJson {
    /// `fixed` (a number) or `auto`.
    mode: &'static str,
    /// The limit when the crawl ended.
    #[serde(rename = "final")]
    final_limit: usize,
    /// The highest the limit was.
    max_reached: usize,
    /// How many times `auto` cut the limit.
    decreases: u32,
}

#[derive(Debug, Serialize)]
struct FilesJson {
    /// The output directory; `null` when the sitemap went to stdout.
    directory: Option<String>,
    stdout: bool,
    formats: Vec<&'static str>,
    /// Whether sitemap.xml is an index over children.
    index: bool,
    /// Entries written, per format.
    urls: u64,
    written: Vec<String>,
    unchanged: Vec<String>,
    removed_stale: Vec<String>,
    /// The files of URLs, with their group and URL count.
    children: Vec<ChildJson>,
}

#[derive(Debug, Serialize)]
struct VideosJson {
    entries: u64,
    pages: u64,
    left_out: u64,
    /// The first videos left out, with their page and what they lack.
    left_out_examples: Vec<VideoLeftOutJson>,
}

#[derive(Debug, Serialize)]
struct VideoLeftOutJson {
    page: String,
    video: String,
    missing: Vec<&'static str>,
}

#[derive(Debug, Serialize)]
struct NewsJson {
    /// The news sitemap's name; `null` when no article was recent enough to write one.
    file: Option<String>,
    articles: u64,
    cut: u64,
    without_language: u64,
    without_title: u64,
}

#[derive(Debug, Serialize)]
struct ChildJson {
    name: String,
    format: &'static str,
    group: Option<String>,
    urls: u64,
}

#[derive(Debug, Serialize)]
struct ChangesJson {
    previous_run: i64,
    added: u64,
    removed: u64,
    changed: u64,
}

#[derive(Debug, Serialize)]
struct KeptJson {
    /// The run whose listing the kept URLs come from.
    from_run: i64,
    /// URLs kept listed with their previous entry.
    urls: u64,
    /// How they failed this time (`"503"`, `"timeout"`), with counts.
    causes: BTreeMap<String, u64>,
    /// URLs dropped after failing too many runs in a row, reported removed.
    dropped: u64,
    dropped_causes: BTreeMap<String, u64>,
}

impl KeptJson {
    fn of(kept: &KeptPages) -> Option<KeptJson> {
        let causes = |counts: &[(TransientCause, u64)]| {
            counts
                .iter()
                .map(|(cause, count)| (cause.to_string(), *count))
                .collect()
        };
        Some(KeptJson {
            from_run: kept.from?.0,
            urls: kept.kept_count(),
            causes: causes(&kept.kept),
            dropped: kept.dropped_count(),
            dropped_causes: causes(&kept.dropped),
        })
    }
}

#[derive(Debug, Serialize)]
struct RenderingJson {
    mode: &'static str,
    decision: &'static str,
    html_pages: u64,
    rendered: u64,
    templates_probed: u64,
    templates_rendered: u64,
    templates_learned: u64,
    templates_confirmed: u64,
    script_links: u64,
    unfinished_rendered: u64,
    found_urls: u64,
    timed_out: u64,
    failed: u64,
    not_rendered: u64,
    unavailable: Option<String>,
    browser_started: bool,
    browser_restarts: u32,
    requests_disallowed: usize,
    requests_private: u64,
    requests_refused: BTreeMap<&'static str, u64>,
    requests_not_from_a_page: u64,
    other_hosts: BTreeMap<String, u64>,
    hash_routes: Vec<String>,
}

#[derive(Debug, Serialize)]
struct Resources {
    peak_memory_bytes: Option<u64>,
    cpu_seconds: Option<f64>,
    browser_peak_memory_bytes: Option<u64>,
    browser_cpu_seconds: Option<f64>,
}

impl CrawlJson {
    /// The summary of `crawled`, run with `settings`; the store is asked what it counted.
    pub fn new(crawled: &SiteRun, settings: &SiteSettings) -> Result<CrawlJson, StoreError> {
        let summary = &crawled.summary;
        let counts = crawled.store.reason_counts(crawled.run)?;
        let indexable = counts
            .iter()
            .filter(|count| count.verdict == Verdict::Indexable);
        let listed: u64 = indexable.clone().map(|count| count.count).sum();
        let listed_as_themselves = indexable
            .filter_map(|count| {
                Some(ReasonCountJson {
                    reason: count.reason?.code().into_owned(),
                    count: count.count,
                })
            })
            .collect();
        Ok(CrawlJson {
            seed: settings.seed.clone(),
            scope_root: summary.scope.root.to_string(),
            scope_moved_from: summary.scope.moved_from.as_ref().map(Url::to_string),
            scope_subdomains_of: summary.scope.subdomains_of.clone(),
            scope_wider_than_seed: summary.scope.wider_than_seed,
            run: crawled.run.0,
            resumed: crawled.resumed,
            timings: Timings {
                started_at: crawled.started_at.to_string(),
                elapsed_seconds: crawled.started.elapsed().as_secs_f64(),
                crawl_seconds: summary.elapsed.as_secs_f64(),
            },
            pages_visited: summary.pages_visited,
            requests: summary.requests,
            urls_discovered: summary.urls_discovered,
            revalidated: summary.revalidated,
            lastmod_kept: crawled.lastmod_kept,
            listed,
            listed_as_themselves,
            not_listed_total: crawled.not_listed.total(),
            not_listed: crawled.not_listed.groups.iter().map(not_listed).collect(),
            not_listed_file: settings.list_not_listed.as_ref().map(target_text),
            limits_reached: limits_reached(crawled, settings),
            traps: summary
                .traps
                .iter()
                .map(|trap| TrapJson {
                    kind: match trap.kind {
                        TrapKind::RepeatedSegments => "repeated-segments",
                        TrapKind::PatternChain => "pattern-chain",
                    },
                    urls_cut: trap.urls_cut,
                    example: trap.example.clone(),
                })
                .collect(),
            session_parameters: summary.session_parameters.clone(),
            sitemap_seeds: summary
                .sitemap_seeding
                .as_ref()
                .map(|seeding| -> Result<SitemapSeedsJson, StoreError> {
                    Ok(SitemapSeedsJson {
                        read: seeding.read,
                        skipped: seeding.skipped,
                        unreadable: seeding.unreadable,
                        urls_queued: seeding.urls_queued,
                        not_read: NotReadJson::list(&seeding.not_read),
                        listed_only_from_sitemaps: crawled
                            .store
                            .listed_only_from_sitemaps(crawled.run)?,
                        not_reached: seeding.not_reached,
                    })
                })
                .transpose()?,
            robots: crawled
                .notes
                .robots
                .iter()
                .map(|(origin, policy)| RobotsJson {
                    origin: origin.clone(),
                    policy: policy.clone(),
                })
                .collect(),
            pace: pace(crawled, settings),
            concurrency: concurrency(&summary.concurrency),
            files: files(crawled, settings),
            videos: settings.video.then(|| videos(&crawled.media)),
            news: crawled.media.news.as_ref().map(|news| NewsJson {
                file: news.file.clone(),
                articles: news.articles,
                cut: news.cut,
                without_language: news.without_language,
                without_title: news.without_title,
            }),
            changes: crawled.changes.previous.map(|previous| {
                let counts = crawled.changes.counts();
                ChangesJson {
                    previous_run: previous.0,
                    added: counts.added,
                    removed: counts.removed,
                    changed: counts.changed,
                }
            }),
            kept: KeptJson::of(&crawled.kept),
            change_report: settings.report_changes.as_ref().map(target_text),
            indexnow: crawled.notified.clone(),
            rendering: rendering(crawled),
            resources: resources(crawled),
            documents: summary.documents.as_ref().map(DocumentsJson::of),
        })
    }
}

fn videos(media: &MediaReport) -> VideosJson {
    VideosJson {
        entries: media.videos,
        pages: media.video_pages,
        left_out: media.videos_left_out,
        left_out_examples: media
            .left_out
            .iter()
            .map(|(page, video)| VideoLeftOutJson {
                page: page.clone(),
                video: describe_incomplete_video(video),
                missing: video.missing.iter().map(|field| field.element()).collect(),
            })
            .collect(),
    }
}

/// A file the user named as the JSON names it: its path, or `-` for stdout.
fn target_text(target: &OutputTarget) -> String {
    match target {
        OutputTarget::Path(path) => path_text(path),
        OutputTarget::Stdout => "-".to_string(),
    }
}

fn not_listed(group: &NotListedGroup) -> NotListedJson {
    NotListedJson {
        reason: group.code(),
        verdict: group.verdict.code(),
        count: group.count,
        examples: group
            .examples
            .iter()
            .map(|example| ExampleJson {
                url: example.url.clone(),
                referrer: example.referrer.clone(),
            })
            .collect(),
    }
}

fn limits_reached(crawled: &SiteRun, settings: &SiteSettings) -> LimitsReached {
    let summary = &crawled.summary;
    let config = &settings.crawl;
    let limit = |reached: bool, value: Option<u64>, not_crawled: Option<u64>| {
        reached.then_some(LimitJson { value, not_crawled })
    };
    LimitsReached {
        max_pages: limit(
            summary.left_by_max_pages > 0,
            config.max_pages,
            Some(summary.left_by_max_pages),
        ),
        max_urls: limit(
            summary.beyond_max_urls > 0,
            Some(config.max_urls),
            Some(summary.beyond_max_urls),
        ),
        max_requests: limit(summary.request_budget_exhausted, config.max_requests, None),
        max_depth: limit(
            summary.beyond_max_depth > 0,
            config.max_depth.map(u64::from),
            Some(summary.beyond_max_depth),
        ),
    }
}

fn pace(crawled: &SiteRun, settings: &SiteSettings) -> Option<PaceJson> {
    if let Some(delay) = settings.crawl.delay {
        return Some(PaceJson {
            source: "delay",
            seconds: Some(delay.as_secs_f64()),
        });
    }
    crawled.notes.crawl_delay.then_some(PaceJson {
        source: "crawl-delay",
        seconds: None,
    })
}

fn concurrency(report: &ConcurrencyReport) -> ConcurrencyJson {
    ConcurrencyJson {
        mode: if report.adaptive { "auto" } else { "fixed" },
        final_limit: report.final_limit,
        max_reached: report.max_reached,
        decreases: report.decreases,
    }
}

fn files(crawled: &SiteRun, settings: &SiteSettings) -> FilesJson {
    let (written, published) = &crawled.published;
    let paths = |paths: &[std::path::PathBuf]| paths.iter().map(|path| path_text(path)).collect();
    FilesJson {
        directory: settings.out.path().map(path_text),
        stdout: settings.out == OutputTarget::Stdout,
        formats: written
            .iter()
            .map(|written| format_name(written.format))
            .collect(),
        index: written.iter().any(|written| written.is_index),
        urls: written.first().map_or(0, |written| written.urls),
        written: paths(published.files.as_slice()),
        unchanged: paths(published.unchanged.as_slice()),
        removed_stale: paths(published.removed_stale.as_slice()),
        children: written
            .iter()
            .flat_map(|written| {
                written.children.iter().map(|child| ChildJson {
                    name: child.name.clone(),
                    format: format_name(written.format),
                    group: (!child.group.is_empty()).then(|| child.group.clone()),
                    urls: child.urls,
                })
            })
            .collect(),
    }
}

fn format_name(format: Format) -> &'static str {
    match format {
        Format::Xml => "xml",
        Format::Text => "txt",
    }
}

fn rendering(crawled: &SiteRun) -> RenderingJson {
    let render = &crawled.summary.render;
    let browser = render.browser.as_ref();
    RenderingJson {
        mode: match render.mode {
            RenderMode::Never => "never",
            RenderMode::Auto => "auto",
            RenderMode::Always => "always",
        },
        decision: match render.decision {
            SiteDecision::Undecided => "undecided",
            SiteDecision::Renders => "renders",
            SiteDecision::ReadAsServed => "read-as-served",
        },
        html_pages: render.html_pages,
        rendered: render.rendered,
        templates_probed: render.templates_probed,
        templates_rendered: render.templates_rendered,
        templates_learned: render.templates_learned,
        templates_confirmed: render.templates_confirmed,
        script_links: render.script_links,
        unfinished_rendered: render.unfinished_rendered,
        found_urls: render.found_urls,
        timed_out: render.timed_out,
        failed: render.failed,
        not_rendered: render.not_rendered,
        unavailable: render.unavailable.clone(),
        browser_started: browser.is_some_and(|browser| browser.started),
        browser_restarts: browser.map_or(0, |browser| browser.restarts),
        requests_disallowed: render.requests.disallowed.len(),
        requests_private: render
            .requests
            .refused
            .get(&Refusal::PrivateAddress)
            .copied()
            .unwrap_or_default(),
        requests_refused: render
            .requests
            .refused
            .iter()
            .map(|(refusal, count)| (refusal.code(), *count))
            .collect(),
        requests_not_from_a_page: browser.map_or(0, |browser| browser.not_from_a_page),
        other_hosts: render.requests.other_hosts.clone(),
        hash_routes: render.hash_routes.iter().cloned().collect(),
    }
}

fn resources(crawled: &SiteRun) -> Resources {
    let browser = crawled.summary.render.browser.as_ref();
    let browser_started = browser.is_some_and(|browser| browser.started);
    Resources {
        peak_memory_bytes: peak_rss_bytes(),
        cpu_seconds: cpu_seconds(),
        browser_peak_memory_bytes: browser.and_then(|browser| browser.peak_memory),
        browser_cpu_seconds: children_cpu_seconds().filter(|_| browser_started),
    }
}

/// A sitemap of the site not read, with why: in the crawl's summary and the audit's.
#[derive(Debug, Serialize)]
pub struct NotReadJson {
    url: String,
    /// `skipped` (not requested) or `unreadable` (requested, and no sitemap came back).
    verdict: &'static str,
    why: String,
}

impl NotReadJson {
    /// Each of `not_read`.
    pub fn list(not_read: &[(Url, NotRead)]) -> Vec<NotReadJson> {
        not_read
            .iter()
            .map(|(url, why)| NotReadJson {
                url: url.to_string(),
                verdict: if why.is_skipped() {
                    "skipped"
                } else {
                    "unreadable"
                },
                why: why.to_string(),
            })
            .collect()
    }
}
