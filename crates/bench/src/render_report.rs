//! The rendering benchmark's results as a Markdown section for BENCHMARKS.md: the
//! application in both modes, `--render auto` against `--render never` on the static site,
//! and the mixed site; each build's crawls, with `--before`.

use std::fmt::Write;
use std::time::Duration;

use crate::render::{AppResult, MixedResult, RenderSettings, Series, StaticResult};
use crate::report::{median, milliseconds_each, per_second, spread};
use crate::spa::{APP, SHELL, SinglePageApp};

/// How much worse `auto` may be than `never` on the static site, in percent.
const TOLERANCE_PERCENT: f64 = 5.0;

impl Series {
    fn pages_per_second(&self) -> Vec<f64> {
        per_second(self.pages, &self.walls)
    }

    /// CPU milliseconds per page: sitemapper's and the browser's together.
    fn cpu_ms_per_page(&self) -> Vec<f64> {
        self.cpu_seconds
            .iter()
            .zip(&self.browser_cpu_seconds)
            .map(|(own, browser)| (own + browser) * 1000.0 / self.pages as f64)
            .collect()
    }

    fn browser_cpu_ms_per_page(&self) -> Vec<f64> {
        milliseconds_each(&self.browser_cpu_seconds, self.pages)
    }

    fn sampled_cpu_ms_per_page(&self) -> Vec<f64> {
        milliseconds_each(&self.sampled_cpu_seconds, self.pages)
    }

    fn used_browser(&self) -> bool {
        self.browser_peak_mib.iter().any(|&peak| peak > 0.0)
    }

    fn correct(&self, what: &str) -> String {
        match &self.mismatch {
            None if self.expected == 1 => format!("{what} (1 URL)"),
            None => format!("{what} ({} URLs)", self.expected),
            Some(difference) => format!("MISMATCH: {difference}"),
        }
    }
}

fn walls(series: &Series) -> Vec<f64> {
    series.walls.iter().map(Duration::as_secs_f64).collect()
}

/// A row of the application's or the mixed site's table: `pages`, then `series`'s measures,
/// `as_served` saying what `never` lists when it is right.
fn rendering_row(pages: &str, series: &Series, as_served: &str) -> String {
    let (browser_cpu, sampled_cpu, browser_peak) = if series.used_browser() {
        (
            spread(&series.browser_cpu_ms_per_page(), 1),
            spread(&series.sampled_cpu_ms_per_page(), 1),
            spread(&series.browser_peak_mib, 1),
        )
    } else {
        ("none".to_string(), "none".to_string(), "none".to_string())
    };
    let correct = if series.mode == "auto" {
        series.correct("exact")
    } else {
        series.correct(as_served)
    };
    format!(
        "| {pages} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
        series.build,
        series.mode,
        series.walls.len(),
        spread(&walls(series), 2),
        spread(&series.pages_per_second(), 2),
        spread(&series.cpu_ms_per_page(), 1),
        browser_cpu,
        sampled_cpu,
        spread(&series.peak_rss_mib, 1),
        browser_peak,
        correct
    )
}

/// The header of the application's and the mixed site's tables.
const RENDERING_HEADER: &str = "| pages | build | `--render` | runs | wall (s) | pages/s | CPU ms/page, with the browser | of which the browser | browser, sampled | sitemapper peak RSS (MiB) | browser peak (MiB) | URLs listed |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |";

/// Each build's `auto` against this build's (the first series), in percent, in a sentence.
fn against_this_build(series: &[Series]) -> String {
    let Some(this) = series.first() else {
        return String::new();
    };
    let others: Vec<String> = series
        .iter()
        .skip(1)
        .filter(|other| other.mode == "auto")
        .map(|other| {
            format!(
                "{}: {:.2} pages/s against {:.2} ({:+.0}%), {:.1} ms of CPU a page against {:.1}",
                other.build,
                median(&this.pages_per_second()),
                median(&other.pages_per_second()),
                difference(&this.pages_per_second(), &other.pages_per_second()),
                median(&this.cpu_ms_per_page()),
                median(&other.cpu_ms_per_page()),
            )
        })
        .collect();
    if others.is_empty() {
        String::new()
    } else {
        format!(
            "With `auto`, {} against {}.\n",
            this.build,
            others.join("; ")
        )
    }
}

/// `auto`'s median against `never`'s, in percent.
fn difference(auto: &[f64], never: &[f64]) -> f64 {
    100.0 * (median(auto) / median(never).max(1e-9) - 1.0)
}

fn static_rows(text: &mut String, result: &StaticResult) {
    for series in &result.series {
        let _ = writeln!(
            text,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            result.pages,
            series.build,
            series.mode,
            series.walls.len(),
            spread(&walls(series), 2),
            spread(&series.pages_per_second(), 0),
            spread(&series.cpu_ms_per_page(), 3),
            spread(&series.peak_rss_mib, 1),
            series.correct("exact")
        );
    }
    let this = |mode: &str| result.series.iter().find(|series| series.mode == mode);
    let (Some(auto), Some(never)) = (this("auto"), this("never")) else {
        return;
    };
    let rate = difference(&auto.pages_per_second(), &never.pages_per_second());
    let cpu = difference(&auto.cpu_ms_per_page(), &never.cpu_ms_per_page());
    let memory = difference(&auto.peak_rss_mib, &never.peak_rss_mib);
    let wall = difference(&walls(auto), &walls(never));
    let _ = writeln!(
        text,
        "| {} | {} | auto against never | | {wall:+.1}% | {rate:+.1}% | {cpu:+.1}% | {memory:+.1}% | |",
        result.pages, auto.build
    );
    let within =
        -rate <= TOLERANCE_PERCENT && cpu <= TOLERANCE_PERCENT && memory <= TOLERANCE_PERCENT;
    let _ = writeln!(
        text,
        "\n`--render auto` on the static site of {} pages: no browser started (no `Rendered` line, \
         no browser memory or CPU in any run's summary, no child process seen); {} {TOLERANCE_PERCENT:.0}% of \
         `--render never` in pages/s, CPU and peak RSS.\n",
        result.pages,
        if within { "within" } else { "NOT within" }
    );
}

/// The mixed site's paragraph and table.
fn mixed_section(text: &mut String, result: &MixedResult) {
    let site = &result.site;
    let _ = writeln!(
        text,
        "The mixed site: the static generated site of {} pages, whose home page links to the first \
         pages of the application of {} pages beside it (`/page/N`, whose links lead back to `/`). \
         `auto` must render the application's pages and read the static ones as served; `never` \
         lists the static site and the two shells the home page links to. Pages per second count \
         every page fetched.\n",
        site.static_site.pages, site.app.pages
    );
    let _ = writeln!(text, "{RENDERING_HEADER}");
    let pages = format!("{} + {}", site.static_site.pages, site.app.pages);
    for series in &result.series {
        let _ = writeln!(
            text,
            "{}",
            rendering_row(&pages, series, "as served: the static site and two shells")
        );
    }
    let _ = writeln!(text, "\n{}", against_this_build(&result.series));
}

/// The section: what the application is, the tables, and how to measure again.
pub(crate) fn markdown(
    apps: &[AppResult],
    statics: Option<&StaticResult>,
    mixed: Option<&MixedResult>,
    settings: RenderSettings,
    machine: &str,
    date: &str,
    command: &str,
) -> String {
    let mut text = String::new();
    let _ = writeln!(text, "## Sites built by JavaScript\n");
    let _ = writeln!(
        text,
        "Measured {date} on: {machine}. Server, crawler and browser (Debian's Chromium, headless) \
         share the machine. Concurrency {}, {} browser tabs (`--render-concurrency`). Medians of \
         {} runs, with the range in brackets; the crawls of a site (each build, each mode) ran \
         alternately in the same run, each taking the lead in turn.\n",
        settings.concurrency,
        settings.tabs,
        settings.runs.max(1)
    );
    if let Some(first) = apps.first() {
        let app = SinglePageApp { pages: first.pages };
        let json: usize = (0..app.pages).map(|page| app.page_json(page).len()).sum();
        let _ = writeln!(
            text,
            "The application: every page URL (`/`, `/page/1` ... `/page/N-1`) serves the same \
             {:.1} KB shell (meta tags and inline CSS, `<script src=\"/app.js\" defer>`, a \
             `<noscript>` asking for JavaScript, an empty `<div id=\"root\">`). `/app.js`, {:.1} KB \
             of plain JavaScript, fetches `/api/page/<n>.json` (about {:.1} KB) for the address and \
             builds the page: a header with 8 section links, breadcrumbs, 3 to 6 paragraphs with 20 \
             to 40 links to other pages (two of them to pages `2n+1` and `2n+2`, so every page is \
             reachable from `/`), a footer. Read as served, the site is one page without links.\n",
            SHELL.len() as f64 / 1024.0,
            APP.len() as f64 / 1024.0,
            json as f64 / app.pages.max(1) as f64 / 1024.0
        );
        let _ = writeln!(
            text,
            "Pages per second and CPU per page count the pages crawled (for `never`, the one page \
             it finds). CPU is sitemapper's user and system time plus the browser's, as the \
             summary reports them; the browser's share is shown on its own. The summary's figure \
             for the browser counts only the processes that were waited for up to sitemapper; \
             \"browser, sampled\" is the CPU time of all of sitemapper's descendant processes, \
             read from `/proc` every 100 ms by the benchmark during the crawl (a lower bound). Peak \
             memory: sitemapper's peak RSS, and the peak of the browser's processes together \
             (their private pages summed and the browser's code counted once, sampled by sitemapper every 250 ms).\n"
        );
        let _ = writeln!(text, "{RENDERING_HEADER}");
        for result in apps {
            for series in &result.series {
                let _ = writeln!(
                    text,
                    "{}",
                    rendering_row(
                        &result.pages.to_string(),
                        series,
                        "as served: `/` only, the shell has no links"
                    )
                );
            }
        }
        let _ = writeln!(text);
        for result in apps {
            let _ = write!(text, "{}", against_this_build(&result.series));
        }
        let _ = writeln!(text);
    }
    if let Some(result) = statics {
        let _ = writeln!(
            text,
            "The static generated site of the table above (no scripts), crawled with \
             `--render auto` (the default) and `--render never`. Pages per second count every URL \
             fetched.\n"
        );
        let _ = writeln!(
            text,
            "| pages | build | `--render` | runs | wall (s) | pages/s | CPU ms/page | peak RSS (MiB) | URLs listed |"
        );
        let _ = writeln!(
            text,
            "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
        );
        static_rows(&mut text, result);
    }
    if let Some(result) = mixed {
        mixed_section(&mut text, result);
    }
    let _ = writeln!(
        text,
        "To measure again: `cargo build --release --workspace && target/release/{command}`."
    );
    text
}
