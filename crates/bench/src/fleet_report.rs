//! The fleet benchmark's results as a Markdown section for BENCHMARKS.md: each case's wall
//! time, sites per hour, pages per second, CPU and peak memory, what a site's crawl costs in
//! `fleet run` against `sitemapper crawl` without a kept database, and what the queue costs
//! per site over `fleet run`.

use std::fmt::Write;
use std::time::Duration;

use crate::fleet::{FleetCase, FleetResult, SITES_AT_ONCE, Series};
use crate::report::{median, milliseconds_each, per_second, spread};

impl Series {
    fn wall_seconds(&self) -> Vec<f64> {
        self.walls.iter().map(Duration::as_secs_f64).collect()
    }

    fn sites_per_hour(&self, sites: usize) -> Vec<f64> {
        per_second(sites, &self.walls)
            .into_iter()
            .map(|rate| rate * 3600.0)
            .collect()
    }

    fn pages_per_second(&self, pages: usize) -> Vec<f64> {
        per_second(pages, &self.walls)
    }

    fn cpu_ms_per_page(&self, pages: usize) -> Vec<f64> {
        milliseconds_each(&self.cpu_seconds, pages)
    }
}

fn row(result: &FleetResult, series: &Series) -> String {
    let sites = result.settings.sites;
    let fetched = sites * result.fetched_per_site;
    let or_dash = |values: &[f64]| {
        if values.is_empty() {
            "-".to_string()
        } else {
            spread(values, 1)
        }
    };
    let postgres = or_dash(&series.postgres_cpu_seconds);
    format!(
        "| {} | {} | {} | {} | {} | {} | {} | {} | {postgres} | {} | {summed} | exact ({sites} × {} URLs) |",
        series.case.label(),
        series.binary,
        series.walls.len(),
        spread(&series.wall_seconds(), 2),
        spread(&series.sites_per_hour(sites), 0),
        spread(&series.pages_per_second(fetched), 0),
        spread(&series.cpu_seconds, 1),
        spread(&series.cpu_ms_per_page(fetched), 3),
        spread(&series.peak_rss_mib, 1),
        result.listed_per_site,
        summed = or_dash(&series.summed_peak_rss_mib),
    )
}

/// The most `fleet run`'s CPU time may be over the crawls' without a kept database.
const FLEET_CPU_TARGET: f64 = 1.3;

/// `numerators` over `denominators`, run by run.
fn ratios(numerators: &[f64], denominators: &[f64]) -> Vec<f64> {
    numerators
        .iter()
        .zip(denominators)
        .map(|(numerator, denominator)| numerator / denominator.max(1e-9))
        .collect()
}

/// A site's CPU time in `fleet run` (which keeps a crawl database per site) against a
/// `sitemapper crawl` of it without one, build by build.
fn fleet_against_crawls(text: &mut String, result: &FleetResult) {
    let sites = result.settings.sites;
    let pairs: Vec<(&Series, &Series)> = result
        .series
        .iter()
        .filter(|series| series.case == FleetCase::Run)
        .filter_map(|run| Some((run, find(result, &run.binary, FleetCase::Crawls)?)))
        .collect();
    if pairs.is_empty() {
        return;
    }
    let _ = writeln!(
        text,
        "A site's crawl in `fleet run` (which keeps each site's crawl database in its state \
         directory) against `sitemapper crawl` of the same site without `--state`, \
         {SITES_AT_ONCE} at once: sitemapper's CPU time per site, and `fleet run`'s over the \
         crawls' run by run (the target: at most {FLEET_CPU_TARGET}).\n"
    );
    let _ = writeln!(
        text,
        "| build | fleet run CPU per site (ms) | crawl CPU per site (ms) | fleet run / crawl |"
    );
    let _ = writeln!(text, "| --- | --- | --- | --- |");
    let per_site = |series: &Series| milliseconds_each(&series.cpu_seconds, sites);
    for (run, crawls) in pairs {
        let ratio = ratios(&run.cpu_seconds, &crawls.cpu_seconds);
        let met = if median(&ratio) <= FLEET_CPU_TARGET {
            "met"
        } else {
            "missed"
        };
        let _ = writeln!(
            text,
            "| {} | {} | {} | {}, {met} |",
            run.binary,
            spread(&per_site(run), 1),
            spread(&per_site(crawls), 1),
            spread(&ratio, 2)
        );
    }
    let _ = writeln!(text);
}

/// `queue` − `run`, run by run, in milliseconds per site.
fn per_site_ms(queue: &[f64], run: &[f64], sites: f64) -> Vec<f64> {
    queue
        .iter()
        .zip(run)
        .map(|(queue, run)| (queue - run) * 1000.0 / sites)
        .collect()
}

/// The series of `case` by `binary`, if it ran.
fn find<'a>(result: &'a FleetResult, binary: &str, case: FleetCase) -> Option<&'a Series> {
    result
        .series
        .iter()
        .find(|series| series.case == case && series.binary == binary)
}

/// The queue's cost per site over `fleet run`, build by build.
fn queue_against_fleet_run(text: &mut String, result: &FleetResult) {
    let settings = &result.settings;
    let sites = settings.sites.max(1) as f64;
    let queued: Vec<(&Series, &Series)> = result
        .series
        .iter()
        .filter(|series| matches!(series.case, FleetCase::Queue { .. }))
        .filter_map(|queue| Some((queue, find(result, &queue.binary, FleetCase::Run)?)))
        .collect();
    if !queued.is_empty() {
        let _ = writeln!(
            text,
            "The queue against `fleet run`, per site: (the queue's wall time − `fleet run`'s \
                 in the same run) / {} sites, the median over the runs with the range in \
                 brackets, and the same for sitemapper's CPU time; PostgreSQL's CPU time per site \
                 comes on top (`fleet run` uses none). With one worker this is the queue's \
                 overhead per site claimed (claims, leases and heartbeats, the crawl database \
                 saved into PostgreSQL, the record of the run).\n",
            settings.sites
        );
        let _ = writeln!(
            text,
            "| case | build | wall per site (ms) | sitemapper CPU per site (ms) | PostgreSQL CPU per site (ms) |"
        );
        let _ = writeln!(text, "| --- | --- | --- | --- | --- |");
        for (series, run) in queued {
            let wall = per_site_ms(&series.wall_seconds(), &run.wall_seconds(), sites);
            let cpu = per_site_ms(&series.cpu_seconds, &run.cpu_seconds, sites);
            let postgres = if series.postgres_cpu_seconds.is_empty() {
                "-".to_string()
            } else {
                let per_site: Vec<f64> = series
                    .postgres_cpu_seconds
                    .iter()
                    .map(|seconds| seconds * 1000.0 / sites)
                    .collect();
                spread(&per_site, 1)
            };
            let _ = writeln!(
                text,
                "| {} against fleet run | {} | {} | {} | {postgres} |",
                series.case.label(),
                series.binary,
                spread(&wall, 1),
                spread(&cpu, 1)
            );
        }
        let _ = writeln!(text);
    }
}

/// The section: what ran, the table, the queue's cost per site, and how to measure again.
pub(crate) fn markdown(result: &FleetResult, machine: &str, date: &str, command: &str) -> String {
    let settings = &result.settings;
    let mut text = String::new();
    let _ = writeln!(text, "## Fleets\n");
    let shared = match &result.postgres_version {
        Some(version) => format!("Server, sitemapper and PostgreSQL {version} (the queue)"),
        None => "Server and sitemapper".to_string(),
    };
    let runs = crate::report::runs_sentence(settings.runs, "case", "cases");
    let _ = writeln!(
        text,
        "Measured {date} on: {machine}. {shared} share the machine. {runs}.\n"
    );
    let _ = writeln!(
        text,
        "The fleet: {} generated sites of {} pages (the static site of the first table), each \
         served on its own port of 127.0.0.1, one fleet file (`every = \"24h\"`, \
         `concurrency = {}`, `retries = 0`). A crawl of a site fetches {} URLs (pages, canonical \
         duplicates, noindex pages) and lists {}. \"fleet run\" is `sitemapper fleet run FLEET \
         --all --sites-at-once {SITES_AT_ONCE}` with a new state directory. \"crawl, \
         {SITES_AT_ONCE} at once\" is one `sitemapper crawl SEED --out DIR --concurrency {} \
         --retries 0` per site, without `--state`, {SITES_AT_ONCE} running at a time, timed \
         from the first start to the last exit (the summed peak RSS is left out: they do not \
         all run together). \"queue, N workers\" \
         is `sitemapper fleet sync FLEET --queue URL` into a queue emptied of sitemapper's \
         tables (not timed), then N processes `sitemapper worker --queue URL --once \
         --sites-at-once {SITES_AT_ONCE}`, each with its own new state directory, started \
         together and timed from the first start to the last exit.\n",
        settings.sites,
        settings.pages,
        settings.concurrency,
        result.fetched_per_site,
        result.listed_per_site,
        settings.concurrency
    );
    let _ = writeln!(
        text,
        "Pages per second count every URL fetched. CPU is the user and system time of the \
         sitemapper processes (and of any process they waited for); PostgreSQL's is that of \
         the server's processes over the same time (its processes' own and what its postmaster \
         reaped, read in `/proc`; \"-\" where it is not measured). Peak RSS is each sitemapper \
         process's high-water mark, sampled every 50 ms: the largest, and summed over the \
         processes run together. \"Sitemaps\" compares every site's sitemap with the \
         generator's expected set; in the queue each site must also have been run exactly \
         once.\n"
    );
    let _ = writeln!(
        text,
        "| case | build | runs | wall (s) | sites/hour | pages/s | CPU (s) | CPU ms/page | PostgreSQL CPU (s) | peak RSS, largest process (MiB) | peak RSS, summed (MiB) | sitemaps |"
    );
    let _ = writeln!(
        text,
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
    );
    for series in &result.series {
        let _ = writeln!(text, "{}", row(result, series));
    }
    let _ = writeln!(text);
    fleet_against_crawls(&mut text, result);
    queue_against_fleet_run(&mut text, result);
    for series in &result.series {
        if let FleetCase::Queue { workers } = series.case
            && workers > 1
            && !series.sites_per_worker.is_empty()
        {
            let _ = writeln!(
                text,
                "Sites per worker, {}, {}: {}.\n",
                series.case.label(),
                series.binary,
                series
                    .sites_per_worker
                    .iter()
                    .enumerate()
                    .map(|(run, split)| format!("run {}: {split}", run + 1))
                    .collect::<Vec<_>>()
                    .join("; ")
            );
        }
    }
    let _ = writeln!(
        text,
        "To measure again: `cargo build --release --workspace && target/release/{command}`."
    );
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fleet::FleetSettings;

    fn series(case: FleetCase, wall: u64, cpu: f64) -> Series {
        Series {
            case,
            binary: "this build".to_string(),
            walls: vec![Duration::from_secs(wall)],
            cpu_seconds: vec![cpu],
            peak_rss_mib: vec![40.0],
            summed_peak_rss_mib: vec![40.0],
            sites_per_worker: Vec::new(),
            postgres_cpu_seconds: match case {
                FleetCase::Run | FleetCase::Crawls => Vec::new(),
                FleetCase::Queue { .. } => vec![1.5],
            },
        }
    }

    #[test]
    fn the_overhead_is_per_site_run_by_run() {
        let result = FleetResult {
            settings: FleetSettings {
                sites: 100,
                pages: 500,
                runs: 1,
                concurrency: 8,
                queue: Some("postgres://bench@127.0.0.1/bench".to_string()),
            },
            fetched_per_site: 574,
            listed_per_site: 500,
            postgres_version: Some("15.18".to_string()),
            series: vec![
                series(FleetCase::Run, 36, 50.0),
                Series {
                    summed_peak_rss_mib: Vec::new(),
                    ..series(FleetCase::Crawls, 35, 40.0)
                },
                series(FleetCase::Queue { workers: 1 }, 40, 52.0),
                Series {
                    binary: "before".to_string(),
                    ..series(FleetCase::Run, 30, 60.0)
                },
                Series {
                    binary: "before".to_string(),
                    summed_peak_rss_mib: Vec::new(),
                    ..series(FleetCase::Crawls, 30, 40.0)
                },
            ],
        };
        let text = markdown(
            &result,
            "a machine",
            "2026-01-01",
            "sitemapper-bench --fleet 100",
        );
        // 100 sites in 36 s: 10,000 sites an hour; 57,400 URLs: 1,594 pages/s.
        assert!(
            text.contains("| fleet run | this build | 1 | 36.00 (36.00 to 36.00) | 10000 (10000 to 10000) | 1594 (1594 to 1594) |"),
            "{text}"
        );
        assert!(
            text.contains("| queue, 1 worker against fleet run | this build | 40.0 (40.0 to 40.0) | 20.0 (20.0 to 20.0) | 15.0 (15.0 to 15.0) |"),
            "{text}"
        );
        assert!(
            text.contains("| 52.0 (52.0 to 52.0) | 0.906 (0.906 to 0.906) | 1.5 (1.5 to 1.5) |")
        );
        assert!(text.contains("| 0.871 (0.871 to 0.871) | - |"), "{text}");
        assert!(text.contains("exact (100 × 500 URLs)"));
        // 50 s and 40 s of CPU over 100 sites: 500 ms and 400 ms a site; each build against
        // itself.
        assert!(
            text.contains(
                "| this build | 500.0 (500.0 to 500.0) | 400.0 (400.0 to 400.0) | 1.25 (1.25 to 1.25), met |"
            ),
            "{text}"
        );
        assert!(
            text.contains(
                "| before | 600.0 (600.0 to 600.0) | 400.0 (400.0 to 400.0) | 1.50 (1.50 to 1.50), missed |"
            ),
            "{text}"
        );
        assert_eq!(text.matches("against fleet run |").count(), 1, "{text}");
        assert!(
            text.contains("| crawl, 4 at once | this build | 1 | 35.00 (35.00 to 35.00) |")
                && text.contains("| 40.0 (40.0 to 40.0) | - | exact"),
            "{text}"
        );
    }
}
