//! `sitemapper explain URL --state FILE`: why a URL is in the sitemap or not, its click path,
//! its `<lastmod>` and its history, told from the crawl database (the site crate's
//! [`explain`]) without a request. Exit 0 when listed, 1 when not, 2 on bad input.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use anyhow::Context;
use serde::Serialize;
use sitemapper_crawl::Crawler;
use sitemapper_fleet::{Fleet, site_database_in};
use sitemapper_site::{Explanation, Standing, count, explain, path_text};
use sitemapper_store::Store;
use url::Url;

use super::json;
use crate::cli::{ExplainArgs, SummaryFormat};
use crate::exit::{ExitStatus, Failure, SaidOnStdout};
use crate::logging::escaped;
use crate::settings::{ConfigFile, ExplainDatabase, ExplainSettings};

/// The fields of `explain --summary json` after the envelope.
#[derive(Serialize)]
struct ExplainJson<'a> {
    /// The crawl database read.
    state: String,
    /// The fleet's site it belongs to, with `--fleet`.
    site: Option<&'a str>,
    #[serde(flatten)]
    explanation: &'a Explanation,
}

pub(crate) fn run(args: ExplainArgs, file: ConfigFile) -> Result<(), Failure> {
    let format = args.summary.unwrap_or_default();
    let failed = |failure| json::failed("explain", format, failure);
    let settings =
        ExplainSettings::resolve(args, file).map_err(|error| failed(Failure::usage(error)))?;
    let format = settings.summary;
    let failed = |failure| json::failed("explain", format, failure);
    let (state, site) = database(&settings).map_err(failed)?;
    let store = Store::open(&state).map_err(|error| failed(Failure::fatal(error)))?;
    let explanation = explain(&store, &settings.url).map_err(|error| match error {
        sitemapper_site::ExplainError::NotAUrl(_) => failed(Failure::usage(error)),
        sitemapper_site::ExplainError::Store(error) => failed(Failure::fatal(error)),
    })?;
    let status = match explanation.standing {
        Standing::Listed => ExitStatus::Success,
        Standing::NotListed | Standing::NeverMet => ExitStatus::Fatal,
    };
    match format {
        SummaryFormat::Text => {
            let text = text(&explanation, &state, site.as_deref());
            let mut out = crate::stdout::lock();
            out.write_all(text.as_bytes())
                .and_then(|()| out.flush())
                .context("cannot write to stdout")?;
        }
        SummaryFormat::Json => {
            let body = ExplainJson {
                state: path_text(&state),
                site: site.as_deref(),
                explanation: &explanation,
            };
            json::print("explain", status, None, &body)?;
        }
    }
    match status {
        ExitStatus::Success => Ok(()),
        status => Err(Failure {
            status,
            error: SaidOnStdout("not listed".to_string()).into(),
        }),
    }
}

/// The crawl database to read, and with `--fleet` the name of the site it is of.
fn database(settings: &ExplainSettings) -> Result<(PathBuf, Option<String>), Failure> {
    let state = match &settings.database {
        ExplainDatabase::State(state) => (state.clone(), None),
        ExplainDatabase::Fleet(path) => {
            let fleet = Fleet::load(path).map_err(Failure::usage)?;
            let (name, state) = fleet_site(&fleet, &settings.url)?;
            (state, Some(name))
        }
    };
    if !state.0.is_file() {
        let whose = state
            .1
            .as_deref()
            .map(|site| format!(" for the site {site} (has it run yet?)"))
            .unwrap_or_default();
        return Err(Failure::usage(anyhow::anyhow!(
            "no crawl database at {}{whose}",
            state.0.display()
        )));
    }
    Ok(state)
}

/// The site of `fleet` whose scope holds `url` (the deepest scope, when several do), and its
/// crawl database.
fn fleet_site(fleet: &Fleet, url: &str) -> Result<(String, PathBuf), Failure> {
    let asked = Url::parse(url.trim()).map_err(|_| {
        Failure::usage(anyhow::anyhow!(
            "{url:?} is not an http(s) URL: give the page's full address, as https://example.com/page"
        ))
    })?;
    let chosen = fleet
        .sites
        .iter()
        .filter_map(|site| {
            let root = Crawler::scope_root(&Url::parse(&site.url).ok()?);
            let holds = root.origin() == asked.origin() && asked.path().starts_with(root.path());
            holds.then(|| (root.path().len(), site))
        })
        .max_by_key(|&(depth, _)| depth)
        .map(|(_, site)| site);
    match chosen {
        Some(site) => Ok((
            site.name.clone(),
            site_database_in(&fleet.state_dir(), &site.name),
        )),
        None => Err(Failure::usage(anyhow::anyhow!(
            "no site of {} maps {url} (its sites: {})",
            fleet.path.display(),
            fleet
                .sites
                .iter()
                .map(|site| format!("{} {}", site.name, site.url))
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}

/// The explanation as a person reads it in a terminal. Every text from the site passes
/// through [`escaped`]: a control character cannot move the cursor or colour the screen.
fn text(explanation: &Explanation, state: &Path, site: Option<&str>) -> String {
    let mut text = String::new();
    let mut line = |content: String| {
        text.push_str(&escaped(&content));
        text.push('\n');
    };
    line(explanation.url.clone());
    if explanation.normalized != explanation.url.trim() {
        line(format!(
            "  read as {}, as the crawl keys it",
            explanation.normalized
        ));
    }
    let standing = match explanation.standing {
        Standing::Listed => "Listed".to_string(),
        Standing::NotListed => format!(
            "Not listed: {}",
            explanation.reason.as_deref().unwrap_or("excluded")
        ),
        Standing::NeverMet => format!(
            "Not listed: {}",
            explanation.reason.as_deref().unwrap_or("never-met")
        ),
    };
    line(standing);
    line(format!("  {}", explanation.why));
    if let Some(nearest) = &explanation.nearest {
        line(format!(
            "  The nearest URL it met: {} ({}), {}.",
            nearest.url,
            nearest.differs,
            if nearest.listed {
                "listed"
            } else {
                "not listed"
            }
        ));
    }
    if !explanation.evidence.is_empty() {
        line(String::new());
        line("Evidence".to_string());
        let width = explanation
            .evidence
            .iter()
            .map(|evidence| evidence.topic.len())
            .max()
            .unwrap_or(0);
        for evidence in &explanation.evidence {
            line(format!("  {:<width$}  {}", evidence.topic, evidence.found));
        }
    }
    if !explanation.redirects.is_empty() {
        line(String::new());
        line("Redirects".to_string());
        for hop in &explanation.redirects {
            let status = hop
                .status
                .map_or_else(|| "refresh".to_string(), |status| status.to_string());
            line(format!("  {}  {status} -> {}", hop.url, hop.to));
        }
    }
    if let Some(reached) = &explanation.reached {
        line(String::new());
        line(match reached.depth {
            0 => "Reached: it is the seed".to_string(),
            depth => format!("Reached: {} from the seed", count(depth as usize, "click")),
        });
        for step in &reached.path {
            line(format!("  {}  ({})", step.url, step.via));
        }
        if reached.linked_from > 0 {
            let more = reached.linked_from as usize - reached.linked_from_examples.len();
            let more = if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            };
            line(format!(
                "  Linked from {}: {}{more}",
                count(reached.linked_from as usize, "page"),
                reached.linked_from_examples.join(", ")
            ));
        } else if reached.depth > 0 {
            line("  No page of its last run links to it.".to_string());
        }
        for sitemap in &reached.sitemaps {
            line(format!("  Listed by the site's sitemap {sitemap}"));
        }
    }
    if let Some(lastmod) = &explanation.lastmod {
        line(String::new());
        let source = match lastmod.source {
            "last-modified" => "the Last-Modified header of its last response".to_string(),
            "kept" => format!(
                "kept: the content has not changed since, though Last-Modified says {}",
                lastmod.last_modified.as_deref().unwrap_or("later")
            ),
            "content-change" => "the time the crawl first saw its content change".to_string(),
            _ => "none: its last response had no valid Last-Modified header".to_string(),
        };
        match &lastmod.value {
            Some(value) => line(format!("<lastmod> {value}, from {source}")),
            None => line(format!("<lastmod> {source}")),
        }
        if lastmod.changes.len() > 1 {
            line(format!("  Changed at {}", lastmod.changes.join(", ")));
        }
        match (&lastmod.file, &lastmod.file_not_found) {
            (Some(file), _) => line(format!("  In {file}")),
            (None, Some(directory)) => line(format!(
                "  The sitemap files are no longer in {directory}, where they were published"
            )),
            (None, None) => {}
        }
    }
    if let Some(history) = &explanation.history {
        line(String::new());
        line(format!(
            "History: first seen in run {} ({}), last in run {} ({})",
            history.first_seen.run,
            day(&history.first_seen.started_at),
            history.last_seen.run,
            day(&history.last_seen.started_at)
        ));
        let statuses: Vec<String> = history
            .statuses
            .iter()
            .map(|span| {
                let runs = if span.from_run == span.to_run {
                    format!("run {}", span.from_run)
                } else {
                    format!("runs {}-{}", span.from_run, span.to_run)
                };
                format!("{} in {runs}", span.status)
            })
            .collect();
        line(format!("  {}", statuses.join(", ")));
        let last = match history.listings_kept {
            1 => "the last run".to_string(),
            kept => format!("the last {kept} runs"),
        };
        line(match history.listed_in_runs.len() {
            0 => format!("  Listed by none of {last}"),
            listed => format!(
                "  Listed by {listed} of {last} ({})",
                runs_text(&history.listed_in_runs)
            ),
        });
    }
    line(String::new());
    let mut from = String::from("Answered from ");
    match &explanation.run {
        Some(run) => {
            let _ = write!(
                from,
                "run {} ({}, started {})",
                run.run,
                run.status,
                run.started_at.replace('T', " ").replace('Z', " UTC")
            );
        }
        None => from.push_str("no complete run"),
    }
    let _ = write!(from, " of {}", state.display());
    if let Some(site) = site {
        let _ = write!(from, ", the site {site}");
    }
    if let Some(scope) = &explanation.scope {
        let _ = write!(from, "; scope {scope} and below");
    }
    line(format!("{from}."));
    text
}

/// The day of an RFC 3339 time: `2026-11-29`.
fn day(time: &str) -> &str {
    time.get(..10).unwrap_or(time)
}

/// Run numbers, newest first, as ranges: `9-7, 5, 3-1`.
fn runs_text(runs: &[i64]) -> String {
    let mut ranges: Vec<(i64, i64)> = Vec::new();
    for &run in runs {
        match ranges.last_mut() {
            Some((_, low)) if *low == run + 1 => *low = run,
            _ => ranges.push((run, run)),
        }
    }
    ranges
        .into_iter()
        .map(|(high, low)| {
            if high == low {
                high.to_string()
            } else {
                format!("{high}-{low}")
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_are_told_as_ranges_newest_first() {
        assert_eq!(runs_text(&[9, 8, 7, 5, 3, 2, 1]), "9-7, 5, 3-1");
        assert_eq!(runs_text(&[4]), "4");
        assert_eq!(runs_text(&[]), "");
    }
}
