//! The results: medians (with min and max) per case, the machine they were measured on, as
//! Markdown for BENCHMARKS.md and stdout.

use std::fmt::Write;
use std::time::Duration;

/// The measures of one case over its runs.
#[derive(Debug, Clone)]
pub(crate) struct CaseResult {
    /// The kind of site and how it is served (`plain`, `web, gzip`, ...).
    pub case: String,
    /// Which sitemapper binary crawled (`this build`, `before`).
    pub binary: String,
    pub pages: u64,
    pub fetched: usize,
    pub runs: usize,
    pub crawl_wall: Vec<Duration>,
    pub baseline_wall: Vec<Duration>,
    /// The baseline's own CPU time (its client and runtime threads), per run.
    pub baseline_cpu_seconds: Vec<f64>,
    pub cpu_seconds: Vec<f64>,
    pub peak_rss_mib: Vec<f64>,
    /// `None` when the listed URLs equal the expected set; otherwise what differs.
    pub mismatch: Option<String>,
}

/// The median of `values` (the mean of the middle two for an even count).
/// How the URLs a crawl listed differ from those expected, with a few of each kind, or `None`
/// when they are the same.
pub(crate) fn listing_mismatch(
    expected: &std::collections::BTreeSet<String>,
    listed: &std::collections::BTreeSet<String>,
) -> Option<String> {
    if listed == expected {
        return None;
    }
    let missing: Vec<&String> = expected.difference(listed).take(3).collect();
    let extra: Vec<&String> = listed.difference(expected).take(3).collect();
    Some(format!(
        "{} URLs listed, {} expected; missing e.g. {missing:?}, extra e.g. {extra:?}",
        listed.len(),
        expected.len()
    ))
}

/// The sentence that says how many runs a figure is the median of.
pub(crate) fn runs_sentence(runs: usize, what: &str, taking_turns: &str) -> String {
    match runs.max(1) {
        1 => format!("One run of each {what}"),
        runs => format!(
            "Medians of {runs} runs, with the range in brackets; the {taking_turns} ran in turn, \
             each taking the lead in turn"
        ),
    }
}

pub(crate) fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    match sorted.len() {
        0 => 0.0,
        length if length % 2 == 1 => sorted[length / 2],
        length => (sorted[length / 2 - 1] + sorted[length / 2]) / 2.0,
    }
}

/// `count` things done in each of `walls`, per second.
pub(crate) fn per_second(count: usize, walls: &[Duration]) -> Vec<f64> {
    walls
        .iter()
        .map(|wall| count as f64 / wall.as_secs_f64().max(1e-9))
        .collect()
}

/// Each of `seconds` spent on `count` things (at least one), in milliseconds per thing.
pub(crate) fn milliseconds_each(seconds: &[f64], count: usize) -> Vec<f64> {
    seconds
        .iter()
        .map(|seconds| seconds * 1000.0 / count.max(1) as f64)
        .collect()
}

pub(crate) fn spread(values: &[f64], digits: usize) -> String {
    let min = values.iter().copied().fold(f64::INFINITY, f64::min);
    let max = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    format!(
        "{:.digits$} ({:.digits$} to {:.digits$})",
        median(values),
        min,
        max
    )
}

impl CaseResult {
    fn pages_per_second(&self, walls: &[Duration]) -> Vec<f64> {
        per_second(self.fetched, walls)
    }

    fn cpu_ms_per_page(&self) -> Vec<f64> {
        milliseconds_each(&self.cpu_seconds, self.fetched)
    }

    pub(crate) fn row(&self) -> String {
        let crawl = self.pages_per_second(&self.crawl_wall);
        let baseline = self.pages_per_second(&self.baseline_wall);
        let walls: Vec<f64> = self.crawl_wall.iter().map(Duration::as_secs_f64).collect();
        let baseline_walls: Vec<f64> = self
            .baseline_wall
            .iter()
            .map(Duration::as_secs_f64)
            .collect();
        let over_baseline = if baseline.is_empty() {
            "-".to_string()
        } else {
            format!("{:.2}", median(&walls) / median(&baseline_walls).max(1e-9))
        };
        let or_dash = |values: &[f64], digits: usize| {
            if values.is_empty() {
                "-".to_string()
            } else {
                spread(values, digits)
            }
        };
        format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            self.case,
            self.pages,
            self.fetched,
            self.binary,
            self.runs,
            spread(&walls, 2),
            spread(&crawl, 0),
            or_dash(&baseline, 0),
            over_baseline,
            spread(&self.cpu_ms_per_page(), 3),
            or_dash(
                &milliseconds_each(&self.baseline_cpu_seconds, self.fetched),
                3
            ),
            spread(&self.peak_rss_mib, 1),
            match &self.mismatch {
                None => "exact".to_string(),
                Some(difference) => format!("MISMATCH: {difference}"),
            }
        )
    }
}

/// This build against `before` on the same case: the ratios of the medians.
fn comparison_row(after: &CaseResult, before: &CaseResult) -> String {
    let ratio = |after: f64, before: f64| after / before.max(1e-12);
    let cpu = ratio(
        median(&after.cpu_ms_per_page()),
        median(&before.cpu_ms_per_page()),
    );
    let rate = ratio(
        median(&after.pages_per_second(&after.crawl_wall)),
        median(&before.pages_per_second(&before.crawl_wall)),
    );
    let memory = ratio(median(&after.peak_rss_mib), median(&before.peak_rss_mib));
    format!(
        "| {} | {} | {:.3} → {:.3} ({:.2}×) | {:.0} → {:.0} ({:.2}×) | {:.1} → {:.1} ({:.2}×) |",
        after.case,
        after.pages,
        median(&before.cpu_ms_per_page()),
        median(&after.cpu_ms_per_page()),
        cpu,
        median(&before.pages_per_second(&before.crawl_wall)),
        median(&after.pages_per_second(&after.crawl_wall)),
        rate,
        median(&before.peak_rss_mib),
        median(&after.peak_rss_mib),
        memory,
    )
}

/// The machine, as far as /proc and rustc tell.
pub(crate) fn machine() -> String {
    let read = |path: &str| std::fs::read_to_string(path).unwrap_or_default();
    let cpuinfo = read("/proc/cpuinfo");
    let model = cpuinfo
        .lines()
        .find_map(|line| line.strip_prefix("model name"))
        .map(|rest| rest.trim_start_matches([' ', '\t', ':']).to_string())
        .unwrap_or_else(|| "unknown CPU".to_string());
    let cores = std::thread::available_parallelism().map_or(0, std::num::NonZeroUsize::get);
    let memory = read("/proc/meminfo")
        .lines()
        .find_map(|line| line.strip_prefix("MemTotal:"))
        .map(|rest| rest.trim().to_string())
        .unwrap_or_default();
    let kernel = read("/proc/version")
        .split_whitespace()
        .nth(2)
        .unwrap_or_default()
        .to_string();
    let rustc = std::process::Command::new("rustc")
        .arg("--version")
        .output()
        .map(|output| String::from_utf8_lossy(&output.stdout).trim().to_string())
        .unwrap_or_default();
    format!("{model}, {cores} cores usable, {memory} memory, Linux {kernel}, {rustc}")
}

pub(crate) fn markdown(
    results: &[CaseResult],
    machine: &str,
    date: &str,
    concurrency: usize,
) -> String {
    let mut text = String::new();
    let _ = writeln!(text, "# sitemapper benchmark\n");
    let _ = writeln!(
        text,
        "Measured {date} on: {machine}. Server and crawler share the machine. \
         Concurrency {concurrency}. Medians, with the range over the runs in brackets.\n"
    );
    let _ = writeln!(
        text,
        "Pages per second count every URL fetched (pages, query variants, canonical duplicates, \
         noindex pages). The baseline is the same HTTP client at the same concurrency fetching \
         those URLs (decompressing the bodies) without parsing; \"over baseline\" is the \
         crawl's median wall time over the baseline's. CPU is the crawler process's user and \
         system time per URL fetched, baseline CPU that of the baseline's threads (the floor \
         of what this HTTP client spends on the same requests); peak memory the crawler's \
         peak RSS. \"Correct\" compares the URLs \
         listed with the generator's expected set.\n"
    );
    let _ = writeln!(
        text,
        "| case | pages | URLs fetched | binary | runs | crawl wall (s) | crawl pages/s | baseline pages/s | over baseline | CPU ms/page | baseline CPU ms/page | peak RSS (MiB) | correct |"
    );
    let _ = writeln!(
        text,
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
    );
    for result in results {
        let _ = writeln!(text, "{}", result.row());
    }
    let pairs: Vec<(&CaseResult, &CaseResult)> = results
        .iter()
        .filter(|result| result.binary != "before")
        .filter_map(|after| {
            let before = results.iter().find(|before| {
                before.binary == "before"
                    && before.case == after.case
                    && before.pages == after.pages
            })?;
            Some((after, before))
        })
        .collect();
    if !pairs.is_empty() {
        let _ = writeln!(
            text,
            "\nThis build against the one before, crawling the same served site in turn in \
             this run (medians):\n"
        );
        let _ = writeln!(
            text,
            "| case | pages | CPU ms/page | pages/s | peak RSS (MiB) |"
        );
        let _ = writeln!(text, "| --- | --- | --- | --- | --- |");
        for (after, before) in pairs {
            let _ = writeln!(text, "{}", comparison_row(after, before));
        }
    }
    text
}
