//! `explain`'s answer in words, as `sitemapper explain` prints it in a terminal.

use std::fmt::Write as _;
use std::path::Path;

use super::explanation::{Explanation, Standing};
use crate::counted::count;
use crate::terminal::escape_controls;

/// The explanation as a person reads it in a terminal. Every text from the site passes
/// through [`escape_controls`]: a control character cannot move the cursor or colour the
/// screen.
pub fn explanation_text(explanation: &Explanation, state: &Path, site: Option<&str>) -> String {
    let mut text = String::new();
    let mut line = |content: String| {
        text.push_str(&escape_controls(&content));
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
    for wrapped in wrap(&explanation.why, WIDTH - 2) {
        line(format!("  {wrapped}"));
    }
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
        if let Some(changed) = &history.last_changed {
            line(format!("  Its content last changed on {}.", day(changed)));
        }
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
        line(
            match (history.listed_in_runs.len(), history.listings_kept) {
                (0, 1) => "  Not listed by the last run.".to_string(),
                (1, 1) => "  Listed by the last run.".to_string(),
                (0, kept) => format!("  Listed by none of the last {kept} runs."),
                (listed, kept) => format!(
                    "  Listed by {listed} of the last {kept} runs ({}).",
                    runs_text(&history.listed_in_runs)
                ),
            },
        );
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
    line(format!("{from}."));
    if let Some(scope) = &explanation.scope {
        line(format!("Scope: {scope} and below."));
    }
    text
}

/// The width prose is wrapped to, as the help is.
const WIDTH: usize = 90;

/// `text` in lines of at most `width` characters, broken between words (a word longer than
/// that, a URL, stands alone on its line).
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut current = String::new();
    for word in text.split_whitespace() {
        if !current.is_empty() && current.chars().count() + 1 + word.chars().count() > width {
            lines.push(std::mem::take(&mut current));
        }
        if !current.is_empty() {
            current.push(' ');
        }
        current.push_str(word);
    }
    if !current.is_empty() {
        lines.push(current);
    }
    lines
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
    fn prose_is_wrapped_between_words() {
        assert_eq!(
            wrap("It answered 200 with HTML, and names no canonical.", 20),
            ["It answered 200 with", "HTML, and names no", "canonical."]
        );
        assert_eq!(
            wrap("a https://e.com/a-very-long-url b", 8),
            ["a", "https://e.com/a-very-long-url", "b"]
        );
        assert!(wrap("", 8).is_empty());
    }

    #[test]
    fn runs_are_told_as_ranges_newest_first() {
        assert_eq!(runs_text(&[9, 8, 7, 5, 3, 2, 1]), "9-7, 5, 3-1");
        assert_eq!(runs_text(&[4]), "4");
        assert_eq!(runs_text(&[]), "");
    }
}
