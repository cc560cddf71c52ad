//! The rendering benchmark: the generated single-page application crawled with
//! `--render auto` (every page rendered in the browser) and `--render never` (the HTML as
//! served: one page); the static generated site crawled with both, where `auto` must start
//! no browser and cost next to nothing; and the mixed site (the static site with the
//! application beside it), where `auto` renders the application's pages alone. With
//! `--before`, that build crawls each case with `auto` too. The crawls of a case alternate,
//! run by run, each taking the lead in turn, so that drift in the machine's load hits all.
//! sitemapper's descendant processes are sampled in every run: the browser's CPU time as the
//! summary reports it is checked against them, and on the static site there must be none.

use std::collections::BTreeSet;
use std::path::Path;
use std::time::Duration;

use anyhow::bail;

use crate::binary::{Binary, say};
use crate::crawl_run::{self, CrawlMeasure};
use crate::mixed::MixedSite;
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

/// One build's measures in one mode over its runs.
#[derive(Debug, Clone)]
pub(crate) struct Series {
    /// Which build crawled (`this build`, `before`).
    pub build: String,
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
    fn new(build: &str, mode: &'static str, pages: usize, expected: usize) -> Series {
        Series {
            build: build.to_string(),
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

/// The application of `pages` pages: each build with `auto`, this build with `never`.
#[derive(Debug, Clone)]
pub(crate) struct AppResult {
    pub pages: u64,
    pub series: Vec<Series>,
}

/// The static site of `pages` pages: this build with `never`, each build with `auto`.
#[derive(Debug, Clone)]
pub(crate) struct StaticResult {
    pub pages: u64,
    pub series: Vec<Series>,
}

/// The mixed site: each build with `auto`, this build with `never`.
#[derive(Debug, Clone)]
pub(crate) struct MixedResult {
    pub site: MixedSite,
    pub series: Vec<Series>,
}

/// One way a case is crawled: a build, a mode, and what that crawl must list.
struct Arm<'a> {
    binary: &'a Path,
    series: Series,
    expected: BTreeSet<String>,
}

/// The arms of a case: `auto` for each build, then `never` for this build, listing
/// `rendered` and `served`, counting `fetched` pages for `auto` and `fetched_never` for
/// `never`.
fn arms<'a>(
    binaries: &'a [Binary],
    (fetched, rendered): (usize, &BTreeSet<String>),
    (fetched_never, served): (usize, &BTreeSet<String>),
) -> Vec<Arm<'a>> {
    let mut arms: Vec<Arm<'a>> = binaries
        .iter()
        .map(|binary| Arm {
            binary: &binary.path,
            series: Series::new(&binary.label, "auto", fetched, rendered.len()),
            expected: rendered.clone(),
        })
        .collect();
    if let Some(this) = binaries.first() {
        arms.push(Arm {
            binary: &this.path,
            series: Series::new(&this.label, "never", fetched_never, served.len()),
            expected: served.clone(),
        });
    }
    arms
}

/// Crawls `server` with every arm, `settings.runs` times; run `r` starts with arm `r`, so that
/// each takes the lead in turn. `check` looks at each crawl before it is recorded.
fn run_arms(
    what: &str,
    server: &Server,
    arms: &mut [Arm<'_>],
    settings: RenderSettings,
    check: impl Fn(&Series, &CrawlMeasure) -> anyhow::Result<()>,
) -> anyhow::Result<Vec<Series>> {
    for run in 0..settings.runs.max(1) {
        for turn in 0..arms.len() {
            let arm = &mut arms[(run + turn) % arms.len()];
            let measure = crawl(arm.binary, server, arm.series.mode, settings)?;
            say_run(what, run, &arm.series, &measure);
            check(&arm.series, &measure)?;
            arm.series.record(&measure, &arm.expected);
        }
    }
    Ok(arms.iter().map(|arm| arm.series.clone()).collect())
}

/// Fails when `auto` reported no browser on a site that needs one.
fn browser_ran(what: &str, series: &Series, measure: &CrawlMeasure) -> anyhow::Result<()> {
    if series.mode == "auto" && measure.summary.browser_peak_mib.is_none() {
        bail!(
            "--render auto ({}) reported no browser on the {what} (is chromium installed?): {:?}",
            series.build,
            measure.summary
        );
    }
    Ok(())
}

/// Crawls the application of `pages` pages with each build.
pub(crate) fn app_case(
    binaries: &[Binary],
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
    let mut arms = arms(binaries, (all.len(), &all), (1, &seed_only));
    let what = format!("application of {pages} pages");
    let series = run_arms(&what, &server, &mut arms, settings, |series, measure| {
        browser_ran("application", series, measure)
    })?;
    Ok(AppResult { pages, series })
}

/// Crawls the static site of `pages` pages with each build; fails if `auto` started a
/// browser.
pub(crate) fn static_case(
    binaries: &[Binary],
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
    let mut arms = arms(binaries, (fetched, &expected), (fetched, &expected));
    let what = format!("static site of {pages} pages");
    let series = run_arms(&what, &server, &mut arms, settings, |series, measure| {
        if measure.summary.browser_ran()
            || measure
                .descendants
                .is_some_and(|descendants| descendants.processes > 0)
        {
            bail!(
                "--render {} ({}) used a browser on the static site of {pages} pages, which needs none: {:?}, {:?}",
                series.mode,
                series.build,
                measure.summary,
                measure.descendants
            );
        }
        Ok(())
    })?;
    Ok(StaticResult { pages, series })
}

/// Crawls the mixed site (`static_pages` static pages, `app_pages` pages of the application)
/// with each build.
pub(crate) fn mixed_case(
    binaries: &[Binary],
    (static_pages, app_pages): (u64, u64),
    settings: RenderSettings,
) -> anyhow::Result<MixedResult> {
    let site = MixedSite::new(static_pages, app_pages);
    let server = Server::start(site, 2)?;
    let urls = |paths: BTreeSet<String>| -> BTreeSet<String> {
        paths.iter().map(|path| server.url(path)).collect()
    };
    let rendered = urls(site.expected_paths());
    let served = urls(site.served_paths());
    let mut arms = arms(
        binaries,
        (site.fetched(), &rendered),
        (site.fetched_as_served(), &served),
    );
    let what = format!("mixed site of {static_pages} + {app_pages} pages");
    let series = run_arms(&what, &server, &mut arms, settings, |series, measure| {
        browser_ran("mixed site", series, measure)
    })?;
    Ok(MixedResult { site, series })
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

fn say_run(what: &str, run: usize, series: &Series, measure: &CrawlMeasure) {
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
        "{what}, run {}, {}, --render {}: {:.2} s, {} listed, {:.2} CPU s, {:.1} MiB; {browser}{sampled}",
        run + 1,
        series.build,
        series.mode,
        measure.wall.as_secs_f64(),
        measure.listed.len(),
        summary.cpu_seconds,
        summary.peak_rss_mib,
    ));
}
