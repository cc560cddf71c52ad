//! The rendering benchmark's results as a Markdown section for BENCHMARKS.md: the
//! application in both modes, and `--render auto` against `--render never` on the static site.

use std::fmt::Write;
use std::time::Duration;

use crate::render::{AppResult, RenderSettings, Series, StaticResult};
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

fn app_row(result: &AppResult, series: &Series) -> String {
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
        series.correct("as served: `/` only, the shell has no links")
    };
    format!(
        "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
        result.pages,
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

/// `auto`'s median against `never`'s, in percent.
fn difference(auto: &[f64], never: &[f64]) -> f64 {
    100.0 * (median(auto) / median(never).max(1e-9) - 1.0)
}

fn static_rows(text: &mut String, result: &StaticResult) {
    for series in [&result.never, &result.auto] {
        let _ = writeln!(
            text,
            "| {} | {} | {} | {} | {} | {} | {} | {} |",
            result.pages,
            series.mode,
            series.walls.len(),
            spread(&walls(series), 2),
            spread(&series.pages_per_second(), 0),
            spread(&series.cpu_ms_per_page(), 3),
            spread(&series.peak_rss_mib, 1),
            series.correct("exact")
        );
    }
    let (auto, never) = (&result.auto, &result.never);
    let rate = difference(&auto.pages_per_second(), &never.pages_per_second());
    let cpu = difference(&auto.cpu_ms_per_page(), &never.cpu_ms_per_page());
    let memory = difference(&auto.peak_rss_mib, &never.peak_rss_mib);
    let wall = difference(&walls(auto), &walls(never));
    let _ = writeln!(
        text,
        "| {} | auto against never | | {wall:+.1}% | {rate:+.1}% | {cpu:+.1}% | {memory:+.1}% | |",
        result.pages
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

/// The section: what the application is, the tables, and how to measure again.
pub(crate) fn markdown(
    apps: &[AppResult],
    statics: Option<&StaticResult>,
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
         {} runs, with the range in brackets; the two modes of a site ran alternately in the same \
         run, each taking the lead in turn.\n",
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
        let _ = writeln!(
            text,
            "| pages | `--render` | runs | wall (s) | pages/s | CPU ms/page, with the browser | of which the browser | browser, sampled | sitemapper peak RSS (MiB) | browser peak (MiB) | URLs listed |"
        );
        let _ = writeln!(
            text,
            "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
        );
        for result in apps {
            let _ = writeln!(text, "{}", app_row(result, &result.auto));
            let _ = writeln!(text, "{}", app_row(result, &result.never));
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
            "| pages | `--render` | runs | wall (s) | pages/s | CPU ms/page | peak RSS (MiB) | URLs listed |"
        );
        let _ = writeln!(text, "| --- | --- | --- | --- | --- | --- | --- | --- |");
        static_rows(&mut text, result);
    }
    let _ = writeln!(
        text,
        "To measure again: `cargo build --release --workspace && target/release/{command}`."
    );
    text
}
