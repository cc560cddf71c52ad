//! The crawl database's benchmark as a Markdown section for BENCHMARKS.md: each build's
//! crawls of each site (wall, CPU, peak memory, the database's size per URL and per link,
//! whether the checks held), then the ratios the database is held to, each against its target.

use std::fmt::Write;

use crate::nightly::{NightlyResult, NightlySeries, NightlySite, Step, StepMeasure};
use crate::report::{median, spread};

/// A figure of the crawl database, and the target set for it on some sites: its median at
/// most `limit`.
#[derive(Debug, Clone, Copy)]
struct Target {
    /// The column's heading.
    heading: &'static str,
    /// The target, as the heading gives it where it is set (`≤ 1.5`).
    bound: &'static str,
    limit: f64,
    digits: usize,
    /// The sites the figure is shown for.
    shown: Sites,
    /// The sites the target is set for; elsewhere the figure is shown without a verdict.
    judged: Sites,
    /// The figure, run by run.
    figure: fn(&NightlySeries) -> Vec<f64>,
}

/// Which of the benchmark's sites.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Sites {
    Both,
    Generated,
    Web,
}

const TARGETS: [Target; 6] = [
    Target {
        heading: "first / plain, wall",
        bound: "≤ 1.5",
        limit: 1.5,
        digits: 2,
        shown: Sites::Both,
        judged: Sites::Generated,
        figure: |series| ratios(series, Step::First, Step::Plain, wall),
    },
    Target {
        heading: "first / plain, CPU",
        bound: "≤ 1.5",
        limit: 1.5,
        digits: 2,
        shown: Sites::Both,
        judged: Sites::Generated,
        figure: |series| ratios(series, Step::First, Step::Plain, cpu),
    },
    Target {
        heading: "unchanged / plain, wall",
        bound: "≤ 0.7",
        limit: 0.7,
        digits: 2,
        shown: Sites::Both,
        judged: Sites::Generated,
        figure: |series| ratios(series, Step::Unchanged, Step::Plain, wall),
    },
    Target {
        heading: "1% changed / unchanged, wall",
        bound: "≤ 1.1",
        limit: 1.1,
        digits: 2,
        shown: Sites::Generated,
        judged: Sites::Generated,
        figure: |series| ratios(series, Step::Changed, Step::Unchanged, wall),
    },
    Target {
        heading: "first's peak RSS, MiB",
        bound: "< 100",
        limit: 100.0,
        digits: 1,
        shown: Sites::Both,
        judged: Sites::Generated,
        figure: |series| figures(series, Step::First, |measure| Some(measure.peak_rss_mib)),
    },
    Target {
        heading: "first's database, bytes/link",
        bound: "< 60",
        limit: 60.0,
        digits: 1,
        shown: Sites::Both,
        judged: Sites::Web,
        figure: |series| figures(series, Step::First, bytes_per_link),
    },
];

fn wall(measure: &StepMeasure) -> f64 {
    measure.wall.as_secs_f64()
}

fn cpu(measure: &StepMeasure) -> f64 {
    measure.cpu_seconds
}

fn bytes_per_link(measure: &StepMeasure) -> Option<f64> {
    let database = measure.database?;
    (database.links > 0).then(|| database.bytes as f64 / database.links as f64)
}

fn bytes_per_url(measure: &StepMeasure) -> Option<f64> {
    let database = measure.database?;
    let urls = database.urls.filter(|&urls| urls > 0)?;
    Some(database.bytes as f64 / urls as f64)
}

/// `figure` of `step`, run by run, where it ran and has one.
fn figures(
    series: &NightlySeries,
    step: Step,
    figure: impl Fn(&StepMeasure) -> Option<f64>,
) -> Vec<f64> {
    series
        .nights
        .iter()
        .filter_map(|night| night.of(step).and_then(&figure))
        .collect()
}

/// `figure` of `over` divided by that of `under`, run by run (the two ran one after the other).
fn ratios(
    series: &NightlySeries,
    over: Step,
    under: Step,
    figure: fn(&StepMeasure) -> f64,
) -> Vec<f64> {
    series
        .nights
        .iter()
        .filter_map(|night| {
            let (over, under) = (night.of(over)?, night.of(under)?);
            Some(figure(over) / figure(under).max(1e-9))
        })
        .collect()
}

/// `values`' spread, or `-` when there are none.
fn or_dash(values: &[f64], digits: usize) -> String {
    if values.is_empty() {
        "-".to_string()
    } else {
        spread(values, digits)
    }
}

/// Whether the checks of `step` held in every run, or how they failed.
fn checks(series: &NightlySeries, step: Step) -> String {
    let measures: Vec<&StepMeasure> = series
        .nights
        .iter()
        .filter_map(|night| night.of(step))
        .collect();
    let failed: Vec<&StepMeasure> = measures
        .iter()
        .copied()
        .filter(|measure| !measure.failures.is_empty())
        .collect();
    match failed.first() {
        None => "held".to_string(),
        Some(first) => format!(
            "FAILED in {} of {} runs: {}",
            failed.len(),
            measures.len(),
            first.failures.join("; ").replace('|', "\\|")
        ),
    }
}

/// One build's row for one crawl.
fn measure_row(series: &NightlySeries, step: Step) -> String {
    let kib = figures(series, step, |measure| {
        Some(measure.database?.bytes as f64 / 1024.0)
    });
    let links = figures(series, step, |measure| Some(measure.database?.links as f64));
    format!(
        "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
        series.binary,
        step.label(),
        spread(&figures(series, step, |measure| Some(wall(measure))), 2),
        spread(&figures(series, step, |measure| Some(cpu(measure))), 2),
        spread(
            &figures(series, step, |measure| Some(measure.peak_rss_mib)),
            1
        ),
        or_dash(&kib, 0),
        or_dash(&links, 0),
        or_dash(&figures(series, step, bytes_per_url), 0),
        or_dash(&figures(series, step, bytes_per_link), 1),
        checks(series, step)
    )
}

/// The steps that ran on `site`.
fn steps(site: &NightlySite) -> Vec<Step> {
    let mut steps = vec![Step::Plain, Step::First, Step::Unchanged];
    if site.revised > 0 {
        steps.push(Step::Changed);
    }
    steps
}

/// Whether `sites` include `site` (the generated site is the one with changed pages).
fn includes(sites: Sites, site: &NightlySite) -> bool {
    match sites {
        Sites::Both => true,
        Sites::Generated => site.revised > 0,
        Sites::Web => site.revised == 0,
    }
}

/// A target's heading on `site`: with the target where it is set.
fn target_heading(target: &Target, site: &NightlySite) -> String {
    if includes(target.judged, site) {
        format!("{} ({})", target.heading, target.bound)
    } else {
        target.heading.to_string()
    }
}

/// A target's cell: the figure's spread, and whether its median is within the limit where
/// the target is set on `site`.
fn target_cell(target: &Target, series: &NightlySeries, site: &NightlySite) -> String {
    let values = (target.figure)(series);
    if values.is_empty() {
        return "-".to_string();
    }
    let figure = spread(&values, target.digits);
    if !includes(target.judged, site) {
        return figure;
    }
    let verdict = if median(&values) <= target.limit {
        "met"
    } else {
        "missed"
    };
    format!("{figure}, {verdict}")
}

fn site_section(text: &mut String, site: &NightlySite) {
    let changed = if site.revised > 0 {
        format!(", {} of them changed for the last recrawl", site.revised)
    } else {
        String::new()
    };
    let _ = writeln!(
        text,
        "### {}, {} pages ({} URLs fetched{changed})\n",
        site.label, site.pages, site.fetched
    );
    let _ = writeln!(
        text,
        "| build | crawl | wall (s) | CPU (s) | peak RSS (MiB) | database (KiB) | links | bytes/URL | bytes/link | checks |"
    );
    let _ = writeln!(
        text,
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
    );
    for series in &site.series {
        for step in steps(site) {
            let _ = writeln!(text, "{}", measure_row(series, step));
        }
    }
    let targets: Vec<&Target> = TARGETS
        .iter()
        .filter(|target| includes(target.shown, site))
        .collect();
    let headings: Vec<String> = targets
        .iter()
        .map(|target| target_heading(target, site))
        .collect();
    let _ = writeln!(text, "\n| build | {} |", headings.join(" | "));
    let _ = writeln!(text, "| --- |{}", " --- |".repeat(targets.len()));
    for series in &site.series {
        let cells: Vec<String> = targets
            .iter()
            .map(|target| target_cell(target, series, site))
            .collect();
        let _ = writeln!(text, "| {} | {} |", series.binary, cells.join(" | "));
    }
    let _ = writeln!(text);
}

/// The section: what ran, a table of measures and one of targets per site, and how to
/// measure again.
pub(crate) fn markdown(result: &NightlyResult, machine: &str, date: &str, command: &str) -> String {
    let settings = &result.settings;
    let mut text = String::new();
    let _ = writeln!(text, "## The crawl database\n");
    let runs = crate::report::runs_sentence(settings.runs, "crawl", "builds");
    let _ = writeln!(
        text,
        "Measured {date} on: {machine}. Server and sitemapper share the machine. Concurrency \
         {}. {runs}.\n",
        settings.concurrency
    );
    let _ = writeln!(
        text,
        "What a scheduled job pays for its crawl database (`--state`). Each build crawls each \
         site in turn: a plain crawl (no `--state`: the database is a temporary file, dropped \
         at the end); a first crawl with `--state` into a new database; a recrawl of the \
         unchanged site from a copy of that database and of the files it published, with \
         `--report-changes`: every URL must be answered 304 Not Modified (as the server \
         counted, and as the summary says), the files must stay byte for byte the same, and \
         nothing be reported added, removed or changed; and, on the generated site, a recrawl \
         from another copy once one page in a hundred (the pages numbered 42 modulo 100) reads \
         differently, with a new `ETag` and a later `Last-Modified`: those pages must be \
         answered 200 and the rest 304, and the report must name exactly those pages as \
         changed. The pages carry a strong `ETag` and a `Last-Modified`.\n"
    );
    let _ = writeln!(
        text,
        "Wall time is the process's, from start to exit; CPU (user and system) and peak RSS \
         are what sitemapper's summary reports. The database is the file with its `-wal` and \
         `-shm`, measured once sitemapper has exited; bytes per URL divide it by the URLs the \
         summary reports discovered, bytes per link by the rows of its `links` table. The \
         ratios are taken run by run, between crawls that ran one after the other. A target \
         (in a heading, in brackets) is met when the median is within it; they are set for the \
         generated site of 100,000 pages and the web-like site of 10,000, and a smaller site \
         only shows the trend.\n"
    );
    for site in &result.sites {
        site_section(&mut text, site);
    }
    let _ = writeln!(
        text,
        "To measure again: `cargo build --release --workspace && target/release/{command}`."
    );
    text
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::nightly::{DatabaseSize, Night, NightlySettings};

    fn seconds(values: &[f64]) -> Vec<Duration> {
        values
            .iter()
            .copied()
            .map(Duration::from_secs_f64)
            .collect()
    }

    fn measure(step: Step, wall: Duration, cpu: f64, failures: &[&str]) -> StepMeasure {
        StepMeasure {
            step,
            wall,
            cpu_seconds: cpu,
            peak_rss_mib: 40.0,
            database: (step != Step::Plain).then_some(DatabaseSize {
                bytes: 2_048_000,
                urls: Some(2_000),
                links: 40_960,
            }),
            failures: failures.iter().map(|failure| failure.to_string()).collect(),
        }
    }

    fn night(walls: &[f64], failures: &[&str]) -> Night {
        let walls = seconds(walls);
        Night {
            measures: vec![
                measure(Step::Plain, walls[0], 2.0, &[]),
                measure(Step::First, walls[1], 2.5, &[]),
                measure(Step::Unchanged, walls[2], 1.0, failures),
                measure(Step::Changed, walls[3], 1.1, &[]),
            ],
        }
    }

    #[test]
    fn ratios_are_taken_run_by_run_and_held_to_their_targets() {
        let result = NightlyResult {
            settings: NightlySettings {
                pages: 2_000,
                web_pages: 0,
                runs: 2,
                concurrency: 8,
            },
            sites: vec![NightlySite {
                label: "generated site".to_string(),
                pages: 2_000,
                fetched: 2_197,
                revised: 20,
                series: vec![NightlySeries {
                    binary: "this build".to_string(),
                    nights: vec![
                        night(&[10.0, 12.0, 6.0, 6.0], &[]),
                        night(&[20.0, 28.0, 16.0, 20.0], &["a page was answered 200"]),
                    ],
                }],
            }],
        };
        let text = markdown(
            &result,
            "a machine",
            "2026-01-01",
            "sitemapper-bench --nightly 2000",
        );
        // 1.2 and 1.4; 1.25 twice; 0.6 and 0.8; 1.0 and 1.25.
        assert!(
            text.contains(
                "| this build | 1.30 (1.20 to 1.40), met | 1.25 (1.25 to 1.25), met | \
                 0.70 (0.60 to 0.80), met | 1.12 (1.00 to 1.25), missed | 40.0 (40.0 to 40.0), met | \
                 50.0 (50.0 to 50.0) |"
            ),
            "{text}"
        );
        // 2,048,000 bytes: 2000 KiB, 1024 bytes per URL, 50 per link.
        assert!(
            text.contains("| 2000 (2000 to 2000) | 40960 (40960 to 40960) | 1024 (1024 to 1024) | 50.0 (50.0 to 50.0) | held |"),
            "{text}"
        );
        assert!(
            text.contains("| recrawl, unchanged | 11.00 (6.00 to 16.00) |")
                && text.contains("FAILED in 1 of 2 runs: a page was answered 200 |"),
            "{text}"
        );
        assert!(
            text.contains("| first's peak RSS, MiB (< 100) | first's database, bytes/link |"),
            "{text}"
        );
    }
}
