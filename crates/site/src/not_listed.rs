//! The URLs a run does not list, with why and how the crawl came to them: a few examples of
//! each reason for the summary, and every one for `--list-not-listed` (CSV). Both come from
//! one pass over the crawl database, ordered by URL, so that memory holds the examples only.

use std::collections::HashMap;
use std::io::Write;

use sitemapper_store::{NotListedPage, Reason, RunId, Store, StoreError, Verdict};

use crate::error::SiteError;
use crate::output_target::OutputTarget;
use crate::spreadsheet::SpreadsheetCsv;
use crate::stdout::Stdout;

/// URLs shown for each reason, the first ones by URL.
pub const EXAMPLES: usize = 5;

/// The header of the `--list-not-listed` CSV.
const CSV_HEADER: [&str; 4] = ["url", "reason", "status", "referrer"];

/// The URLs a run does not list, grouped by why, largest group first.
#[derive(Debug, Default)]
pub struct NotListed {
    /// The groups, largest first.
    pub groups: Vec<NotListedGroup>,
}

/// The URLs not listed for one reason.
#[derive(Debug)]
pub struct NotListedGroup {
    /// The verdict of its URLs.
    pub verdict: Verdict,
    /// Why, when the verdict needs a reason.
    pub reason: Option<Reason>,
    /// How many URLs.
    pub count: u64,
    /// The first [`EXAMPLES`] URLs of the group, by URL.
    pub examples: Vec<Example>,
}

/// One URL not listed, and the page that linked to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Example {
    /// The URL.
    pub url: String,
    /// The first page that linked to it, or the URL that redirected to it; `None` for the
    /// seed.
    pub referrer: Option<String>,
}

impl NotListedGroup {
    /// The reason's code (`http-404`), or the verdict's (`redirect`, `canonicalised`) when the
    /// verdict says it all.
    pub fn code(&self) -> String {
        code(self.verdict, self.reason)
    }
}

impl NotListed {
    /// URLs not listed, over all reasons.
    pub fn total(&self) -> u64 {
        self.groups.iter().map(|group| group.count).sum()
    }
}

fn code(verdict: Verdict, reason: Option<Reason>) -> String {
    match reason {
        Some(reason) => reason.code().into_owned(),
        None => verdict.code().to_string(),
    }
}

/// Reads the pages `run` does not list once: the examples of each reason, and every page
/// into the CSV at `list` when there is one.
pub(crate) fn gather(
    store: &Store,
    run: RunId,
    list: Option<&OutputTarget>,
    stdout: &dyn Stdout,
) -> Result<NotListed, SiteError> {
    let mut examples = Examples::default();
    match list {
        None => store.for_each_not_listed(run, |page| -> Result<(), StoreError> {
            examples.add(&page);
            Ok(())
        })?,
        Some(OutputTarget::Stdout) => {
            let stdout = stdout.beside();
            let doing = "cannot write the URLs not listed to stdout";
            write_list(
                store,
                run,
                SpreadsheetCsv::new(stdout),
                &mut examples,
                doing,
            )?;
        }
        // Written beside the file and renamed over it: never through a link at its name,
        // and never seen half-written.
        Some(OutputTarget::Path(path)) => {
            let doing = format!("cannot write {}", path.display());
            let directory = path
                .parent()
                .filter(|parent| !parent.as_os_str().is_empty())
                .unwrap_or(std::path::Path::new("."));
            let file =
                tempfile::NamedTempFile::new_in(directory).map_err(SiteError::io(doing.clone()))?;
            write_list(
                store,
                run,
                SpreadsheetCsv::new(file.as_file()),
                &mut examples,
                &doing,
            )?;
            file.persist(path)
                .map_err(|error| SiteError::io(doing.clone())(error.error))?;
        }
    }
    Ok(examples.finish())
}

/// Writes every page `run` does not list into `csv`, ordered by URL, gathering the examples
/// on the way.
fn write_list<W: Write>(
    store: &Store,
    run: RunId,
    mut csv: SpreadsheetCsv<W>,
    examples: &mut Examples,
    doing: &str,
) -> Result<(), SiteError> {
    let failed = |source: csv::Error| SiteError::Csv {
        doing: doing.to_string(),
        source,
    };
    csv.write_row(CSV_HEADER).map_err(failed)?;
    store.for_each_not_listed(run, |page| -> Result<(), SiteError> {
        examples.add(&page);
        write_row(&mut csv, &page).map_err(failed)
    })?;
    csv.finish().map_err(SiteError::io(doing))
}

/// One row: the URL, the reason's code, the status (empty when there was no response) and
/// the referrer (empty for the seed). Every cell goes through the spreadsheet's
/// neutralization: URLs and referrers are crawled text.
fn write_row<W: Write>(
    csv: &mut SpreadsheetCsv<W>,
    page: &NotListedPage<'_>,
) -> Result<(), csv::Error> {
    let reason = code(page.verdict, page.reason);
    let status = page
        .status
        .map_or_else(String::new, |status| status.to_string());
    csv.write_row([
        page.url,
        reason.as_str(),
        status.as_str(),
        page.referrer.unwrap_or_default(),
    ])
}

/// The groups as the pages go by: their counts and first examples.
#[derive(Debug, Default)]
struct Examples {
    groups: HashMap<(Verdict, Option<Reason>), NotListedGroup>,
}

impl Examples {
    fn add(&mut self, page: &NotListedPage<'_>) {
        let group = self
            .groups
            .entry((page.verdict, page.reason))
            .or_insert_with(|| NotListedGroup {
                verdict: page.verdict,
                reason: page.reason,
                count: 0,
                examples: Vec::new(),
            });
        group.count += 1;
        if group.examples.len() < EXAMPLES {
            group.examples.push(Example {
                url: page.url.to_string(),
                referrer: page.referrer.map(str::to_string),
            });
        }
    }

    /// The groups, largest first, then by code: the same order every time.
    fn finish(self) -> NotListed {
        let mut groups: Vec<NotListedGroup> = self.groups.into_values().collect();
        groups.sort_by_cached_key(|group| (std::cmp::Reverse(group.count), group.code()));
        NotListed { groups }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page<'a>(url: &'a str, reason: Reason, referrer: Option<&'a str>) -> NotListedPage<'a> {
        NotListedPage {
            url,
            verdict: Verdict::Excluded,
            reason: Some(reason),
            status: match reason {
                Reason::HttpStatus(status) => Some(status),
                _ => None,
            },
            referrer,
        }
    }

    #[test]
    fn each_reason_keeps_its_count_and_first_examples_largest_group_first() {
        let mut examples = Examples::default();
        let urls: Vec<String> = (0..7)
            .map(|number| format!("https://e.com/{number}"))
            .collect();
        for url in &urls {
            examples.add(&page(url, Reason::HttpStatus(404), Some("https://e.com/")));
        }
        examples.add(&page("https://e.com/a", Reason::NoIndex, None));
        examples.add(&NotListedPage {
            url: "https://e.com/b",
            verdict: Verdict::Redirect,
            reason: None,
            status: Some(301),
            referrer: Some("https://e.com/"),
        });
        let not_listed = examples.finish();
        let summary: Vec<(String, u64, usize)> = not_listed
            .groups
            .iter()
            .map(|group| (group.code(), group.count, group.examples.len()))
            .collect();
        assert_eq!(
            summary,
            [
                ("http-404".to_string(), 7, EXAMPLES),
                ("noindex".to_string(), 1, 1),
                ("redirect".to_string(), 1, 1),
            ]
        );
        assert_eq!(not_listed.total(), 9);
        assert_eq!(
            not_listed.groups[0].examples[4],
            Example {
                url: "https://e.com/4".to_string(),
                referrer: Some("https://e.com/".to_string())
            }
        );
    }

    #[test]
    fn a_row_starting_with_a_formula_trigger_is_written_as_text() {
        let mut bytes = Vec::new();
        let mut csv = SpreadsheetCsv::new(&mut bytes);
        csv.write_row(CSV_HEADER).unwrap();
        write_row(
            &mut csv,
            &page(
                "=HYPERLINK(\"http://evil.example\")",
                Reason::HttpStatus(404),
                Some("@SUM(1)"),
            ),
        )
        .unwrap();
        write_row(&mut csv, &page("https://e.com/a=b", Reason::NoIndex, None)).unwrap();
        csv.finish().unwrap();
        assert_eq!(
            String::from_utf8(bytes).unwrap(),
            "url,reason,status,referrer\n\
             \"'=HYPERLINK(\"\"http://evil.example\"\")\",http-404,404,'@SUM(1)\n\
             https://e.com/a=b,noindex,,\n"
        );
    }
}
