//! What a fleet says: the table of a run's sites (stderr) and its JSON report, the table of
//! `fleet status`, and the line each site gets when its run ends.

use std::fmt::Write as _;

use jiff::Timestamp;
use sitemapper_fleet::{
    FleetCheck, FleetReport, RunRecord, RunResult, SiteStatus, Standing, one_line,
};
use sitemapper_site::count;

/// Whether a site's line is printed when its run ends: always but with `--quiet`, which
/// prints errors only, and a failed run is one (its line says why).
pub(crate) fn says_site_line(quiet: bool, run: &RunRecord) -> bool {
    !quiet || run.result == RunResult::Failed
}

/// The line a site gets when its run ends.
pub(crate) fn site_line(name: &str, run: &RunRecord) -> String {
    let took = seconds(run);
    match run.result {
        RunResult::Succeeded => format!(
            "{name}: ok, {} listed (+{} -{} ~{}), {}, {took}",
            run.listed,
            run.added,
            run.removed,
            run.changed,
            count(run.requests, "request")
        ),
        result => format!(
            "{name}: {result} after {took}: {}",
            run.error.as_deref().unwrap_or("")
        ),
    }
}

/// The table of a run's sites and its last line; a sentence alone when no site ran (nothing
/// was due), rather than a table's header over no row.
pub(crate) fn run_table(report: &FleetReport) -> String {
    if report.sites.is_empty() {
        return match report.not_due {
            0 => "No site run.".to_string(),
            not_due => format!(
                "No site run: {} not due yet (fleet status shows when each is due).",
                count(not_due, "site")
            ),
        };
    }
    let rows = report
        .sites
        .iter()
        .map(|site| {
            vec![
                site.name.clone(),
                site.run.result.to_string(),
                site.run.listed.to_string(),
                format!(
                    "+{} -{} ~{}",
                    site.run.added, site.run.removed, site.run.changed
                ),
                site.run.requests.to_string(),
                seconds(&site.run),
                site.run.error.clone().unwrap_or_default(),
            ]
        })
        .collect();
    let mut text = table(
        &[
            "site", "result", "listed", "changes", "requests", "duration", "error",
        ],
        rows,
    );
    let _ = write!(
        text,
        "{} run: {} ok, {} failed, {} interrupted; {} not due.",
        count(report.sites.len(), "site"),
        report.succeeded,
        report.failed,
        report.interrupted,
        report.not_due
    );
    text
}

/// The error a run with failed sites ends with: how many, and which (their lines say why).
pub(crate) fn failed_sites(report: &FleetReport) -> String {
    let failed = report
        .sites
        .iter()
        .filter(|site| site.run.result == RunResult::Failed)
        .map(|site| site.name.clone());
    format!(
        "{} of {} failed: {}",
        report.failed,
        count(report.sites.len(), "site"),
        some_named(failed.collect())
    )
}

/// The table of `fleet status`; a sentence when there is no site (a fleet file has one at
/// least, a queue none until it is synced).
pub(crate) fn status_table(sites: &[SiteStatus], now: Timestamp) -> String {
    if sites.is_empty() {
        return "No site in the queue: fleet sync adds a fleet file's sites.\n".to_string();
    }
    let rows = sites
        .iter()
        .map(|site| {
            let (started, result, listed, error) = match &site.last {
                Some(run) => (
                    when(run.started, now),
                    run.result.to_string(),
                    run.listed.to_string(),
                    run.error.clone().unwrap_or_default(),
                ),
                None => ("never".into(), "-".into(), "-".into(), String::new()),
            };
            let next = match &site.running_on {
                Some(worker) => format!("running on {worker}"),
                None if site.next_due <= now => "now".to_string(),
                None => when(site.next_due, now),
            };
            vec![site.name.clone(), started, result, listed, next, error]
        })
        .collect();
    table(
        &["site", "last run", "result", "listed", "next due", "error"],
        rows,
    )
}

/// The most sites a verdict line names (`--check`'s first, the error of a run with failed
/// sites): the sites' own lines name them all.
const NAMES_SHOWN: usize = 5;

/// `names` joined, the first [`NAMES_SHOWN`] of them and how many more.
fn some_named(mut names: Vec<String>) -> String {
    if names.len() > NAMES_SHOWN {
        let more = names.len() - NAMES_SHOWN;
        names.truncate(NAMES_SHOWN);
        names.push(format!("and {more} more"));
    }
    names.join(", ")
}

/// What `fleet status --check` prints: first the line a monitor reads (Nagios takes the first
/// line as the service's state), then one line for each site not well.
pub(crate) fn check_text(check: &FleetCheck<'_>) -> String {
    if check.is_well() {
        let never = match check.not_run_yet {
            0 => String::new(),
            waiting => format!(", {waiting} not run yet (not due)"),
        };
        return format!(
            "OK: {} on schedule, none failed{never}\n",
            count(check.sites, "site")
        );
    }
    let named: Vec<String> = check
        .problems
        .iter()
        .map(|(site, standing)| match standing {
            Standing::Failed => format!("{} (failed)", site.name),
            Standing::Overdue { .. } | Standing::Well => format!("{} (overdue)", site.name),
        })
        .collect();
    let mut text = format!(
        "CRITICAL: {} of {} failed or overdue: {}\n",
        check.problems.len(),
        count(check.sites, "site"),
        some_named(named)
    );
    for (site, standing) in &check.problems {
        let _ = writeln!(text, "{}", problem_line(site, *standing));
    }
    text
}

/// A site not well: when it failed and why, or since when it is overdue.
fn problem_line(site: &SiteStatus, standing: Standing) -> String {
    let last = site.last.as_ref();
    match standing {
        Standing::Failed | Standing::Well => format!(
            "{}: failed at {}: {}",
            site.name,
            last.map_or_else(String::new, |run| utc(run.finished)),
            one_line(
                last.and_then(|run| run.error.as_deref())
                    .unwrap_or("no reason recorded")
            )
        ),
        Standing::Overdue { due, since } => format!(
            "{}: overdue since {} (due {}, {}; last run {})",
            site.name,
            utc(since),
            utc(due),
            site.schedule,
            last.map_or_else(
                || "never".to_string(),
                |run| format!("{} {}", utc(run.started), run.result)
            )
        ),
    }
}

/// UTC to the minute.
fn utc(time: Timestamp) -> String {
    time.strftime("%Y-%m-%d %H:%M UTC").to_string()
}

/// A time as the table shows it: UTC to the minute, and how far from now.
fn when(time: Timestamp, now: Timestamp) -> String {
    let minutes = time.duration_since(now).as_secs() / 60;
    let relative = match minutes {
        0 => "now".to_string(),
        m if m < 0 && m > -120 => format!("{} min ago", -m),
        m if m < 0 => format!("{} h ago", -m / 60),
        m if m < 120 => format!("in {m} min"),
        m => format!("in {} h", m / 60),
    };
    format!("{} ({relative})", time.strftime("%Y-%m-%d %H:%M"))
}

fn seconds(run: &RunRecord) -> String {
    format!("{:.1} s", run.duration().as_secs_f64())
}

/// Columns padded to their widest cell; the last column is not padded.
fn table(header: &[&str], rows: Vec<Vec<String>>) -> String {
    let mut widths: Vec<usize> = header.iter().map(|name| name.chars().count()).collect();
    for row in &rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let mut text = String::new();
    let header: Vec<String> = header.iter().map(|name| (*name).to_string()).collect();
    for row in std::iter::once(&header).chain(&rows) {
        let last = row.len().saturating_sub(1);
        for (index, (cell, width)) in row.iter().zip(&widths).enumerate() {
            if index == last {
                text.push_str(cell);
            } else {
                let _ = write!(text, "{cell:<width$}  ");
            }
        }
        while text.ends_with(' ') {
            text.pop();
        }
        text.push('\n');
    }
    text
}

#[cfg(test)]
mod tests;
