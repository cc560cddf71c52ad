//! One crawl by the real `sitemapper` binary, as a user runs it: its wall time, and what its
//! summary says it cost (its CPU time and peak memory, and the browser's when one ran); then
//! the URLs it listed. A crawl given a time limit is stopped past it as a user stops one
//! (SIGTERM, then SIGKILL if it does not end), and says how far it got.

use std::collections::BTreeSet;
use std::fs::File;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use sitemapper_sitemap::{SitemapDocument, read_sitemap};

use crate::process_tree::{Descendants, Sampler};
use crate::stop::{terminate, wait_within};

/// How long a crawl stopped by SIGTERM has to end (closing its browser) before it is killed.
const GRACE: Duration = Duration::from_secs(15);

/// How a crawl with a time limit ended.
#[derive(Debug, Clone)]
pub(crate) enum CrawlEnd {
    /// It finished within the limit.
    Finished(CrawlMeasure),
    /// It was stopped at the limit.
    Stopped(Stopped),
}

/// A crawl stopped at its time limit: nothing published, no summary.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Stopped {
    /// The limit it ran for.
    pub after: Duration,
    /// Pages it had visited, as its last line says, when it said so.
    pub pages: Option<u64>,
}

/// What one crawl measured.
#[derive(Debug, Clone)]
pub(crate) struct CrawlMeasure {
    pub wall: Duration,
    pub summary: Summary,
    pub listed: BTreeSet<String>,
    /// sitemapper's descendant processes, when they were sampled.
    pub descendants: Option<Descendants>,
}

/// The counts of the summary's `Since run #N: A added, R removed, C changed.` line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ChangeCounts {
    pub added: u64,
    pub removed: u64,
    pub changed: u64,
}

/// The cost lines of the summary sitemapper prints on stderr:
///
/// ```text
/// Peak memory: 33.5 MiB.
/// CPU time: 0.63 s.
/// ```
///
/// or, when a browser ran:
///
/// ```text
/// Rendered 412 of 415 HTML pages: the site builds its links in JavaScript.
/// Peak memory: 33.5 MiB, and 403.4 MiB for the browser's processes.
/// CPU time: 0.63 s, and 12.30 s for the browser.
/// ```
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Summary {
    /// sitemapper's own CPU time, user and system.
    pub cpu_seconds: f64,
    /// The browser's CPU time (all its processes), when one ran.
    pub browser_cpu_seconds: Option<f64>,
    /// sitemapper's peak RSS.
    pub peak_rss_mib: f64,
    /// The peak memory of the browser's processes together, when one ran.
    pub browser_peak_mib: Option<f64>,
    /// The `Rendered N of M HTML pages: ...` line, when pages were rendered.
    pub rendered: Option<String>,
    /// Pages visited, from the `Crawled URL in T: N pages visited, ...` line.
    pub pages_visited: Option<u64>,
    /// URLs discovered, from the same line (`..., N URLs discovered.`).
    pub urls_discovered: Option<u64>,
    /// Pages answered 304, from `Unchanged (304 Not Modified, not downloaded): N pages.`
    /// (0 without the line).
    pub revalidated: u64,
    /// What changed since the previous run, from `Since run #N: ...`, when there was one.
    pub changes: Option<ChangeCounts>,
}

impl Summary {
    /// Whether anything says a browser ran.
    pub(crate) fn browser_ran(&self) -> bool {
        self.rendered.is_some()
            || self.browser_cpu_seconds.is_some()
            || self.browser_peak_mib.is_some()
    }

    /// Pages rendered, from the `Rendered N of M HTML pages` line (none without it).
    pub(crate) fn rendered_pages(&self) -> u64 {
        self.rendered
            .as_deref()
            .and_then(|line| first_number_after(line, "Rendered "))
            .unwrap_or(0)
    }
}

/// The number that starts the text after the first `marker` in `text`.
fn first_number_after(text: &str, marker: &str) -> Option<u64> {
    let (_, rest) = text.split_once(marker)?;
    rest.split_whitespace().next()?.parse().ok()
}

/// The number that ends the text before the first `marker` in `text`.
fn last_number_before(text: &str, marker: &str) -> Option<u64> {
    let (before, _) = text.split_once(marker)?;
    before.split_whitespace().last()?.parse().ok()
}

/// `Since run #1: 1 added, 1 removed, 3 changed.`: the three counts.
fn change_counts(line: &str) -> Option<ChangeCounts> {
    let (_, counts) = line.strip_prefix("Since run #")?.split_once(": ")?;
    Some(ChangeCounts {
        added: last_number_before(counts, " added")?,
        removed: last_number_before(counts, " removed")?,
        changed: last_number_before(counts, " changed")?,
    })
}

/// Reads the cost lines out of sitemapper's stderr.
pub(crate) fn parse_summary(stderr: &str) -> anyhow::Result<Summary> {
    let line_after = |prefix: &str| -> anyhow::Result<&str> {
        stderr
            .lines()
            .find_map(|line| line.trim_start().strip_prefix(prefix))
            .with_context(|| format!("no {prefix:?} line in the summary:\n{stderr}"))
    };
    let memory = line_after("Peak memory: ")?;
    let cpu = line_after("CPU time: ")?;
    let (peak_rss_mib, browser_peak_mib) = own_and_browser(memory, "MiB")
        .with_context(|| format!("unreadable \"Peak memory: {memory}\""))?;
    let (cpu_seconds, browser_cpu_seconds) =
        own_and_browser(cpu, "s").with_context(|| format!("unreadable \"CPU time: {cpu}\""))?;
    let crawled_line = stderr.lines().find(|line| line.starts_with("Crawled "));
    Ok(Summary {
        cpu_seconds,
        browser_cpu_seconds,
        peak_rss_mib,
        browser_peak_mib,
        rendered: stderr
            .lines()
            .map(str::trim_start)
            .find(|line| line.starts_with("Rendered "))
            .map(str::to_string),
        pages_visited: crawled_line.and_then(|line| first_number_after(line, ": ")),
        urls_discovered: crawled_line.and_then(|line| last_number_before(line, " URLs discovered")),
        revalidated: stderr
            .lines()
            .find_map(|line| {
                first_number_after(line, "Unchanged (304 Not Modified, not downloaded): ")
            })
            .unwrap_or(0),
        changes: stderr.lines().find_map(change_counts),
    })
}

/// The pages a crawl stopped by SIGTERM had visited, from its last line
/// (`error: terminated (SIGTERM) after 23 pages and 23 requests: nothing published, ...`).
fn pages_when_stopped(stderr: &str) -> Option<u64> {
    stderr
        .lines()
        .rev()
        .find(|line| line.contains("(SIGTERM) after "))
        .and_then(|line| first_number_after(line, "(SIGTERM) after "))
}

/// `"33.5 MiB."` or `"33.5 MiB, and 403.4 MiB for the browser's processes."` (with `unit`
/// `"MiB"`): the first figure, and the browser's.
fn own_and_browser(text: &str, unit: &str) -> Option<(f64, Option<f64>)> {
    let figure = |part: &str| -> Option<f64> {
        let mut words = part.split_whitespace();
        let number = words.next()?.parse().ok()?;
        (words.next()?.trim_end_matches(['.', ',']) == unit).then_some(number)
    };
    match text.split_once(", and ") {
        None => Some((figure(text)?, None)),
        Some((own, browser)) if browser.contains("browser") => {
            Some((figure(own)?, Some(figure(browser)?)))
        }
        Some(_) => None,
    }
}

/// Crawls from `seed` with `concurrency` requests in flight and `extra` arguments (such as
/// `--render never`); with `sample`, samples the CPU time of sitemapper's descendant
/// processes (the browser's) meanwhile.
pub(crate) fn crawl(
    binary: &Path,
    seed: &str,
    concurrency: usize,
    extra: &[String],
    sample: bool,
) -> anyhow::Result<CrawlMeasure> {
    match run(binary, seed, concurrency, extra, sample, None)? {
        CrawlEnd::Finished(measure) => Ok(measure),
        CrawlEnd::Stopped(stopped) => {
            bail!("a crawl without a time limit was stopped: {stopped:?}")
        }
    }
}

/// As [`crawl`], without sampling, publishing into `out`, which may hold an earlier run's
/// files as a scheduled job's does (they are left there).
pub(crate) fn crawl_into(
    binary: &Path,
    seed: &str,
    concurrency: usize,
    extra: &[String],
    out: &Path,
) -> anyhow::Result<CrawlMeasure> {
    match run_into(binary, seed, concurrency, extra, false, None, out)? {
        CrawlEnd::Finished(measure) => Ok(measure),
        CrawlEnd::Stopped(stopped) => {
            bail!("a crawl without a time limit was stopped: {stopped:?}")
        }
    }
}

/// As [`crawl`], without sampling, and stopped once it has run for `limit`.
pub(crate) fn crawl_within(
    binary: &Path,
    seed: &str,
    concurrency: usize,
    extra: &[String],
    limit: Duration,
) -> anyhow::Result<CrawlEnd> {
    run(binary, seed, concurrency, extra, false, Some(limit))
}

fn run(
    binary: &Path,
    seed: &str,
    concurrency: usize,
    extra: &[String],
    sample: bool,
    limit: Option<Duration>,
) -> anyhow::Result<CrawlEnd> {
    let out = tempfile::tempdir().context("output directory")?;
    run_into(binary, seed, concurrency, extra, sample, limit, out.path())
}

fn run_into(
    binary: &Path,
    seed: &str,
    concurrency: usize,
    extra: &[String],
    sample: bool,
    limit: Option<Duration>,
    out: &Path,
) -> anyhow::Result<CrawlEnd> {
    // stderr goes to a file, so that a full pipe never stalls the crawl while it is timed.
    let logs = tempfile::tempdir().context("log directory")?;
    let stderr_path = logs.path().join("stderr");
    let stderr_file = File::create(&stderr_path).context("create the crawl's stderr file")?;
    let started = Instant::now();
    let mut child = Command::new(binary)
        .args(["crawl", seed, "--out"])
        .arg(out)
        .args(["--concurrency", &concurrency.to_string()])
        .args(extra)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(stderr_file)
        .spawn()
        .with_context(|| format!("run {}", binary.display()))?;
    let sampler = sample.then(|| Sampler::start(child.id()));
    let status = match limit {
        None => Some(child.wait().context("wait for sitemapper")?),
        Some(limit) => wait_within(&mut child, limit).context("wait for sitemapper")?,
    };
    let wall = started.elapsed();
    let descendants = sampler.map(Sampler::finish);
    let Some(status) = status else {
        terminate(&mut child, GRACE).context("stop sitemapper")?;
        let stderr = std::fs::read_to_string(&stderr_path).unwrap_or_default();
        return Ok(CrawlEnd::Stopped(Stopped {
            after: limit.unwrap_or(wall),
            pages: pages_when_stopped(&stderr),
        }));
    };
    let stderr = std::fs::read_to_string(&stderr_path).context("read the crawl's stderr")?;
    if !status.success() {
        bail!("sitemapper failed: {stderr}");
    }
    Ok(CrawlEnd::Finished(CrawlMeasure {
        wall,
        summary: parse_summary(&stderr)?,
        listed: listed_urls(out)?,
        descendants,
    }))
}

/// Every `<loc>` under `out`: sitemap.xml, and its children when it is an index.
pub(crate) fn listed_urls(out: &Path) -> anyhow::Result<BTreeSet<String>> {
    let read = |name: &str| -> anyhow::Result<SitemapDocument> {
        let bytes = std::fs::read(out.join(name)).with_context(|| format!("read {name}"))?;
        read_sitemap(&bytes).with_context(|| format!("parse {name}"))
    };
    let mut listed = BTreeSet::new();
    match read("sitemap.xml")? {
        SitemapDocument::UrlSet(entries) => {
            listed.extend(entries.into_iter().map(|entry| entry.loc))
        }
        SitemapDocument::Index(children) => {
            for child in children {
                let name = child.loc.rsplit('/').next().unwrap_or_default().to_string();
                if let SitemapDocument::UrlSet(entries) = read(&name)? {
                    listed.extend(entries.into_iter().map(|entry| entry.loc));
                }
            }
        }
    }
    Ok(listed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_summary_without_a_browser() {
        let stderr =
            "Listed 10000 URLs in sitemap.xml.\nPeak memory: 23.0 MiB.\nCPU time: 1.66 s.\n";
        let summary = parse_summary(stderr).unwrap_or_else(|error| panic!("{error:#}"));
        assert_eq!(
            summary,
            Summary {
                cpu_seconds: 1.66,
                browser_cpu_seconds: None,
                peak_rss_mib: 23.0,
                browser_peak_mib: None,
                rendered: None,
                pages_visited: None,
                urls_discovered: None,
                revalidated: 0,
                changes: None,
            }
        );
        assert!(!summary.browser_ran());
        assert_eq!(summary.rendered_pages(), 0);
    }

    #[test]
    fn a_summary_with_a_browser() {
        let stderr = "Rendered 412 of 415 HTML pages: the site builds its links in JavaScript.\n\
                      Peak memory: 33.5 MiB, and 403.4 MiB for the browser's processes.\n\
                      CPU time: 0.63 s, and 12.30 s for the browser.\n";
        let summary = parse_summary(stderr).unwrap_or_else(|error| panic!("{error:#}"));
        assert_eq!(summary.peak_rss_mib, 33.5);
        assert_eq!(summary.browser_peak_mib, Some(403.4));
        assert_eq!(summary.cpu_seconds, 0.63);
        assert_eq!(summary.browser_cpu_seconds, Some(12.3));
        assert!(summary.browser_ran());
        assert!(
            summary
                .rendered
                .as_ref()
                .is_some_and(|line| line.starts_with("Rendered 412 of 415"))
        );
        assert_eq!(summary.rendered_pages(), 412);
    }

    #[test]
    fn pages_visited_come_from_the_crawled_line() {
        let stderr = "Crawled http://127.0.0.1:8080/book/ in 48.7s: 113 pages visited, 113 \
                      requests, 113 URLs discovered.\nPeak memory: 25.8 MiB.\nCPU time: 0.07 s.\n";
        let summary = parse_summary(stderr).unwrap_or_else(|error| panic!("{error:#}"));
        assert_eq!(summary.pages_visited, Some(113));
        assert_eq!(summary.urls_discovered, Some(113));
    }

    #[test]
    fn a_recrawl_says_what_was_revalidated_and_what_changed() {
        let stderr = "Crawled http://127.0.0.1:8080/ in 1.2s: 2197 pages visited, 2199 \
                      requests, 2197 URLs discovered.\n\
                      Unchanged (304 Not Modified, not downloaded): 2177 pages.\n\
                      Since run #1: 0 added, 2 removed, 20 changed.\n\
                      Peak memory: 25.8 MiB.\nCPU time: 0.07 s.\n";
        let summary = parse_summary(stderr).unwrap_or_else(|error| panic!("{error:#}"));
        assert_eq!(summary.urls_discovered, Some(2197));
        assert_eq!(summary.revalidated, 2177);
        assert_eq!(
            summary.changes,
            Some(ChangeCounts {
                added: 0,
                removed: 2,
                changed: 20
            })
        );
        let first = parse_summary(
            "First run in /tmp/state.db: no changes to report.\n\
                                   Peak memory: 25.8 MiB.\nCPU time: 0.07 s.\n",
        )
        .unwrap_or_else(|error| panic!("{error:#}"));
        assert_eq!((first.revalidated, first.changes), (0, None));
    }

    #[test]
    fn a_crawl_stopped_by_sigterm_says_how_far_it_got() {
        let stderr = "SIGTERM: stopping, nothing published.\nerror: terminated (SIGTERM) after 23 \
                      pages and 23 requests: nothing published, /tmp/out/sitemap.xml left as it was\n";
        assert_eq!(pages_when_stopped(stderr), Some(23));
        assert_eq!(pages_when_stopped("error: something else\n"), None);
    }

    #[test]
    fn a_browser_that_reported_only_its_cpu_still_counts() {
        let stderr = "Peak memory: 33.5 MiB.\nCPU time: 0.63 s, and 0.20 s for the browser.\n";
        let summary = parse_summary(stderr).unwrap_or_else(|error| panic!("{error:#}"));
        assert_eq!(summary.browser_peak_mib, None);
        assert_eq!(summary.browser_cpu_seconds, Some(0.2));
        assert!(summary.browser_ran());
    }

    #[test]
    fn unreadable_figures_are_errors_not_zeros() {
        for stderr in [
            "CPU time: 0.63 s.\n",
            "Peak memory: 33.5 MiB.\n",
            "Peak memory: lots.\nCPU time: 0.63 s.\n",
            "Peak memory: 33.5 GiB.\nCPU time: 0.63 s.\n",
            "Peak memory: 33.5 MiB, and many MiB for the browser's processes.\nCPU time: 0.63 s.\n",
            "Peak memory: 33.5 MiB.\nCPU time: 0.63 s, and 1.00 s for something else.\n",
        ] {
            assert!(parse_summary(stderr).is_err(), "{stderr}");
        }
    }
}
