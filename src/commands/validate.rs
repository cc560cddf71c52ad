//! `sitemapper validate FILE|URL|-`: checks a sitemap or an index (and, through an index, its
//! children, each read once however often it is listed) against the protocol, with the site
//! crate's [`check_sitemaps`]. Problems go to stdout as `WHERE:LINE: message`, warnings as
//! `WHERE:LINE: warning: message`; a problem repeated in one file is one line with its count
//! and first lines. With `--summary json`, one JSON object instead. The exit code is 1 when
//! anything is invalid.

use std::fmt;
use std::io::Write;

use sitemapper_site::{
    CheckTally, Checked, ProblemGroup, SitemapChecked, SitemapSource, ValidateJson, check_sitemaps,
    count, count_with,
};

use super::json;
use crate::cli::{SummaryFormat, ValidateArgs};
use crate::exit::{ExitStatus, Failure};
use crate::settings::{ConfigFile, summary_format};
use crate::stdout::StdoutWriter;

pub(crate) fn run(args: ValidateArgs, file: &ConfigFile) -> Result<(), Failure> {
    let format = summary_format(args.summary, file);
    let checker = check_all(&args.target, format)
        .map_err(|failure| json::failed("validate", format, failure))?;
    // An invalid sitemap is a result: its summary, JSON included, says so.
    checker.finish(&args.target)
}

/// Checks the sitemap at `target` and everything it leads to, reporting as it goes; the
/// summary is left to [`Checker::finish`].
fn check_all(target: &str, format: SummaryFormat) -> Result<Checker<StdoutWriter>, Failure> {
    let first = SitemapSource::parse(target).map_err(Failure::usage)?;
    let mut checker = Checker {
        format,
        out: crate::stdout::lock(),
        tally: CheckTally::default(),
        sitemaps: Vec::new(),
        problems: Vec::new(),
    };
    check_sitemaps(first, |checked| checker.say(checked))?;
    Ok(checker)
}

/// The summary line: `2 files, 3 entries, 0 problems, 1 warning.`
fn tally_line(tally: &CheckTally) -> String {
    let warnings = match tally.warnings {
        0 => String::new(),
        warnings => format!(", {}", count(warnings, "warning")),
    };
    format!(
        "{}, {}, {}{warnings}.",
        count(tally.files, "file"),
        entries_text(tally.entries),
        count(tally.problems, "problem")
    )
}

/// `1 entry`, `2 entries`.
fn entries_text(entries: usize) -> String {
    count_with(entries, "entry", "entries")
}

#[derive(Debug)]
struct Checker<W> {
    format: SummaryFormat,
    out: W,
    tally: CheckTally,
    /// For JSON: every sitemap read, and every problem, kept for the one object at the end.
    sitemaps: Vec<SitemapChecked>,
    problems: Vec<ProblemGroup>,
}

impl<W: Write> Checker<W> {
    /// Counts one sitemap checked, and reports its problems.
    fn say(&mut self, checked: Checked) -> Result<(), Failure> {
        self.tally.add(&checked);
        let Checked { sitemap, problems } = checked;
        let sound = sitemap.readable && sitemap.valid;
        let (kind, entries, source) = (sitemap.kind, sitemap.entries, sitemap.source.clone());
        self.note(sitemap);
        self.report(problems)?;
        if sound && self.format == SummaryFormat::Text {
            let kind = match kind {
                Some("index") => "sitemap index",
                _ => "sitemap",
            };
            self.print(format_args!(
                "{source}: valid {kind}, {}",
                entries_text(entries)
            ))?;
        }
        Ok(())
    }

    /// Keeps what was read of a sitemap, for JSON.
    fn note(&mut self, sitemap: SitemapChecked) {
        if self.format == SummaryFormat::Json {
            self.sitemaps.push(sitemap);
        }
    }

    /// Prints each group of problems (text) or keeps it (JSON).
    fn report(&mut self, groups: Vec<ProblemGroup>) -> Result<(), Failure> {
        for group in groups {
            match self.format {
                SummaryFormat::Text => self.print(format_args!("{}", group_line(&group)))?,
                SummaryFormat::Json => self.problems.push(group),
            }
        }
        Ok(())
    }

    fn print(&mut self, line: fmt::Arguments<'_>) -> Result<(), Failure> {
        writeln!(self.out, "{line}")?;
        Ok(())
    }

    /// The summary line (or the JSON object), and the exit status: 1 when anything is
    /// invalid.
    fn finish(mut self, target: &str) -> Result<(), Failure> {
        let CheckTally {
            files, problems, ..
        } = self.tally;
        let failure = (problems > 0).then(|| Failure {
            status: ExitStatus::Fatal,
            error: anyhow::anyhow!(
                "{} in {target} ({} checked)",
                count(problems, "problem"),
                count(files, "file")
            ),
        });
        match self.format {
            SummaryFormat::Text => {
                let line = tally_line(&self.tally);
                self.print(format_args!("{line}"))?;
            }
            SummaryFormat::Json => {
                let (status, error) = match &failure {
                    Some(failure) => (failure.status, Some(failure.line())),
                    None => (ExitStatus::Success, None),
                };
                let summary = ValidateJson::new(target, self.tally, &self.sitemaps, &self.problems);
                json::print("validate", status, error, &summary)?;
            }
        }
        failure.map_or(Ok(()), Err)
    }
}

/// One line: the first occurrence as `WHERE:LINE: message`, then how often and where else
/// when the problem repeats.
fn group_line(group: &ProblemGroup) -> String {
    let Some(first) = group.examples.first() else {
        return format!("{}: {}", group.source, group.kind);
    };
    let place = match first.line {
        Some(line) => format!("{}:{line}", group.source),
        None => group.source.clone(),
    };
    let warning = if group.is_warning() { "warning: " } else { "" };
    let mut text = format!("{place}: {warning}{}", first.message);
    if group.count > 1 {
        let lines: Vec<String> = group
            .examples
            .iter()
            .filter_map(|occurrence| occurrence.line)
            .map(|line| line.to_string())
            .collect();
        let rest = group.count - group.examples.len();
        let more = if rest > 0 {
            format!(" and {rest} more")
        } else {
            String::new()
        };
        text.push_str(&format!(
            " ({} times, at lines {}{more})",
            group.count,
            lines.join(", ")
        ));
    }
    text
}

#[cfg(test)]
mod tests;
