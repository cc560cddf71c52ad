//! The rendering benchmark: the generated single-page application crawled with
//! `--render auto` (every page rendered in the browser) and `--render never` (the HTML as
//! served: one page), and the static generated site crawled with both, where `auto` must start
//! no browser and cost next to nothing. The two modes alternate, run by run, and swap which
//! goes first, so that drift in the machine's load hits both. sitemapper's descendant
//! processes are sampled in every run: the browser's CPU time as the summary reports it is
//! checked against them, and on the static site there must be none.

use std::collections::BTreeSet;
use std::path::Path;
use std::time::Duration;

use anyhow::bail;

use crate::binary::say;
use crate::crawl_run::{self, CrawlMeasure};
use crate::server::Server;
use crate::site::GeneratedSite;
use crate::spa::SinglePageApp;

/// How the crawls run.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RenderSettings {
    pub runs: usize,
    pub concurrency: usize,
    pub tabs: usize,
}

/// One mode's measures over its runs.
#[derive(Debug, Clone)]
pub(crate) struct Series {
    /// The `--render` value.
    pub mode: &'static str,
    /// Pages fetched per crawl, what "per page" divides by.
    pub pages: usize,
    /// What a correct crawl lists in this mode.
    pub expected: usize,
    pub walls: Vec<Duration>,
    /// sitemapper's CPU seconds and the browser's, per run.
    pub cpu_seconds: Vec<f64>,
    pub browser_cpu_seconds: Vec<f64>,
    /// The CPU seconds of sitemapper's descendant processes, sampled in `/proc`, per run.
    pub sampled_cpu_seconds: Vec<f64>,
    pub peak_rss_mib: Vec<f64>,
    pub browser_peak_mib: Vec<f64>,
    /// The `Rendered` line of the last run.
    pub rendered: Option<String>,
    /// `None` when every run listed the expected set; otherwise what differs.
    pub mismatch: Option<String>,
}

impl Series {
    fn new(mode: &'static str, pages: usize, expected: usize) -> Series {
        Series {
            mode,
            pages,
            expected,
            walls: Vec::new(),
            cpu_seconds: Vec::new(),
            browser_cpu_seconds: Vec::new(),
            sampled_cpu_seconds: Vec::new(),
            peak_rss_mib: Vec::new(),
            browser_peak_mib: Vec::new(),
            rendered: None,
            mismatch: None,
        }
    }

    fn record(&mut self, measure: &CrawlMeasure, expected: &BTreeSet<String>) {
        let summary = &measure.summary;
        self.walls.push(measure.wall);
        self.cpu_seconds.push(summary.cpu_seconds);
        self.browser_cpu_seconds
            .push(summary.browser_cpu_seconds.unwrap_or(0.0));
        self.sampled_cpu_seconds.push(
            measure
                .descendants
                .map_or(0.0, |descendants| descendants.cpu_seconds),
        );
        self.peak_rss_mib.push(summary.peak_rss_mib);
        self.browser_peak_mib
            .push(summary.browser_peak_mib.unwrap_or(0.0));
        self.rendered.clone_from(&summary.rendered);
        if measure.listed != *expected && self.mismatch.is_none() {
            let missing: Vec<&String> = expected.difference(&measure.listed).take(3).collect();
            let extra: Vec<&String> = measure.listed.difference(expected).take(3).collect();
            self.mismatch = Some(format!(
                "{} listed, {} expected; missing e.g. {missing:?}, extra e.g. {extra:?}",
                measure.listed.len(),
                expected.len()
            ));
        }
    }
}

/// The application of `pages` pages, rendered and not.
#[derive(Debug, Clone)]
pub(crate) struct AppResult {
    pub pages: u64,
    pub auto: Series,
    pub never: Series,
}

/// The static site of `pages` pages, `--render auto` against `--render never`.
#[derive(Debug, Clone)]
pub(crate) struct StaticResult {
    pub pages: u64,
    pub auto: Series,
    pub never: Series,
}

/// Crawls the application of `pages` pages in both modes.
pub(crate) fn app_case(
    binary: &Path,
    pages: u64,
    settings: RenderSettings,
) -> anyhow::Result<AppResult> {
    let app = SinglePageApp { pages };
    let server = Server::start(app, 2)?;
    let all: BTreeSet<String> = app
        .expected_paths()
        .iter()
        .map(|path| server.url(path))
        .collect();
    // As served, the shell has no links: only the seed is listed.
    let seed_only: BTreeSet<String> = [server.url("/")].into();
    let mut auto = Series::new("auto", all.len(), all.len());
    let mut never = Series::new("never", 1, 1);
    for run in 0..settings.runs.max(1) {
        for (series, expected) in ordered(run, (&mut auto, &all), (&mut never, &seed_only)) {
            let measure = crawl(binary, &server, series.mode, settings)?;
            say_run(
                &format!("application of {pages} pages"),
                run,
                series.mode,
                &measure,
            );
            if series.mode == "auto" && measure.summary.browser_peak_mib.is_none() {
                bail!(
                    "--render auto reported no browser on the application (is chromium installed?): {:?}",
                    measure.summary
                );
            }
            series.record(&measure, expected);
        }
    }
    Ok(AppResult { pages, auto, never })
}

/// Crawls the static site of `pages` pages in both modes; fails if `auto` started a browser.
pub(crate) fn static_case(
    binary: &Path,
    pages: u64,
    settings: RenderSettings,
) -> anyhow::Result<StaticResult> {
    let site = GeneratedSite::new(pages);
    let server = Server::start(site, 2)?;
    let fetched = site.fetched_paths().len();
    let expected: BTreeSet<String> = site
        .expected_paths()
        .iter()
        .map(|path| server.url(path))
        .collect();
    let mut auto = Series::new("auto", fetched, expected.len());
    let mut never = Series::new("never", fetched, expected.len());
    for run in 0..settings.runs.max(1) {
        for (series, expected) in ordered(run, (&mut auto, &expected), (&mut never, &expected)) {
            let measure = crawl(binary, &server, series.mode, settings)?;
            say_run(
                &format!("static site of {pages} pages"),
                run,
                series.mode,
                &measure,
            );
            if measure.summary.browser_ran()
                || measure
                    .descendants
                    .is_some_and(|descendants| descendants.processes > 0)
            {
                bail!(
                    "--render {} used a browser on the static site of {pages} pages, which needs none: {:?}, {:?}",
                    series.mode,
                    measure.summary,
                    measure.descendants
                );
            }
            series.record(&measure, expected);
        }
    }
    Ok(StaticResult { pages, auto, never })
}

/// The two modes in the order of `run`: `first` first on even runs.
fn ordered<'a>(
    run: usize,
    first: (&'a mut Series, &'a BTreeSet<String>),
    second: (&'a mut Series, &'a BTreeSet<String>),
) -> [(&'a mut Series, &'a BTreeSet<String>); 2] {
    if run.is_multiple_of(2) {
        [first, second]
    } else {
        [second, first]
    }
}

fn crawl(
    binary: &Path,
    server: &Server,
    mode: &str,
    settings: RenderSettings,
) -> anyhow::Result<CrawlMeasure> {
    let extra = render_arguments(mode, settings);
    crawl_run::crawl(binary, &server.url("/"), settings.concurrency, &extra, true)
}

/// sitemapper's arguments for `--render mode` with the settings' tabs.
pub(crate) fn render_arguments(mode: &str, settings: RenderSettings) -> [String; 4] {
    [
        "--render".to_string(),
        mode.to_string(),
        "--render-concurrency".to_string(),
        settings.tabs.to_string(),
    ]
}

fn say_run(what: &str, run: usize, mode: &str, measure: &CrawlMeasure) {
    let summary = &measure.summary;
    let browser = match (summary.browser_cpu_seconds, summary.browser_peak_mib) {
        (None, None) => "no browser".to_string(),
        (cpu, peak) => format!(
            "browser {:.2} CPU s, {:.1} MiB",
            cpu.unwrap_or(0.0),
            peak.unwrap_or(0.0)
        ),
    };
    let sampled = match measure.descendants {
        Some(descendants) if descendants.processes > 0 => format!(
            "; sampled: {} processes, {:.2} CPU s",
            descendants.processes, descendants.cpu_seconds
        ),
        _ => String::new(),
    };
    say(&format!(
        "{what}, run {}, --render {mode}: {:.2} s, {} listed, {:.2} CPU s, {:.1} MiB; {browser}{sampled}",
        run + 1,
        measure.wall.as_secs_f64(),
        measure.listed.len(),
        summary.cpu_seconds,
        summary.peak_rss_mib,
    ));
}
