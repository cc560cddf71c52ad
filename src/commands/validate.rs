//! `sitemapper validate FILE|URL|-`: checks a sitemap or an index (and, through an index, its
//! children, each read once however often it is listed) against the protocol. Problems go to
//! stdout as `WHERE:LINE: message`, warnings as `WHERE:LINE: warning: message`; a problem
//! repeated in one file is one line with its count and first lines. With `--summary json`,
//! one JSON object instead. The exit code is 1 when anything is invalid.

use std::collections::HashMap;
use std::fmt;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Context;
use serde::Serialize;
use sitemapper_crawl::{AddressPolicy, FetchError, FetchSettings, Fetcher, NetworkOptions};
use sitemapper_sitemap::{
    ChildSitemap, DocumentKind, IndexProblem, IndexProblemKind, IndexWalk, Listed,
    MAX_BYTES_PER_FILE, Severity, SitemapKey, Visit, validate,
};
use url::Url;

use super::json;
use crate::cli::{SummaryFormat, ValidateArgs};
use crate::exit::{ExitStatus, Failure};
use crate::settings::{ConfigFile, summary_format};
use crate::stdout::StdoutWriter;
use sitemapper_site::{count, count_with, gunzip_if_gzip};

/// Lines shown for a problem repeated in one file (and examples in JSON).
const EXAMPLES: usize = 5;

/// Where one sitemap is.
#[derive(Debug, Clone)]
enum Source {
    File(PathBuf),
    Remote(Url),
    /// `-`: read from stdin, once.
    Stdin,
}

impl fmt::Display for Source {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::File(path) => write!(formatter, "{}", path.display()),
            Source::Remote(url) => write!(formatter, "{url}"),
            Source::Stdin => formatter.write_str("stdin"),
        }
    }
}

impl Source {
    /// The sitemap on the command line.
    fn parse(target: &str) -> Result<Source, Failure> {
        if target == "-" {
            return Ok(Source::Stdin);
        }
        match Url::parse(target) {
            Ok(url) if matches!(url.scheme(), "http" | "https") => Ok(Source::Remote(url)),
            _ if Path::new(target).is_file() => Ok(Source::File(PathBuf::from(target))),
            _ => Err(Failure::usage(anyhow::anyhow!(
                "{target} is neither a file nor an http(s) URL (- reads stdin)"
            ))),
        }
    }

    /// What makes two listings the same sitemap: the canonical path, or the normalized URL.
    fn key(&self) -> SitemapKey {
        match self {
            Source::File(path) => SitemapKey::file(path),
            Source::Remote(url) => SitemapKey::url(url),
            // No file is named by an empty path: stdin is never listed by an index.
            Source::Stdin => SitemapKey::File(PathBuf::new()),
        }
    }
}

/// Where the children of an index may be fetched from: a sitemap on a private network (or a
/// local file or stdin, the user's own) may list private addresses; one on a public site may
/// not.
fn addresses_for(runtime: &tokio::runtime::Runtime, first: &Source) -> AddressPolicy {
    match first {
        Source::Remote(url) => {
            let policy = runtime.block_on(AddressPolicy::default().for_seed(url));
            if policy.allow_private {
                tracing::info!(%url, "the sitemap is on a private network: private addresses allowed");
            }
            policy
        }
        Source::File(_) | Source::Stdin => AddressPolicy {
            allow_private: true,
            ..AddressPolicy::default()
        },
    }
}

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
    let first = Source::parse(target)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let settings = FetchSettings {
        request_timeout: Duration::from_secs(60),
        ..FetchSettings::default()
    };
    // No session: the sitemap may be anyone's, and gets none of a site's secrets.
    let fetcher = Fetcher::new(
        &settings,
        addresses_for(&runtime, &first),
        &NetworkOptions::default(),
        None,
    )
    .context("cannot build the HTTP client")?;
    let mut checker = Checker {
        fetcher,
        runtime,
        format,
        out: crate::stdout::lock(),
        tally: Tally::default(),
        sitemaps: Vec::new(),
        problems: Vec::new(),
    };
    let mut walk = IndexWalk::new([(first.key(), first)]);
    while let Some(visit) = walk.next_to_read() {
        checker.check(&mut walk, visit)?;
    }
    Ok(checker)
}

/// What was checked, for the summary line.
#[derive(Debug, Default)]
struct Tally {
    files: usize,
    entries: usize,
    problems: usize,
    warnings: usize,
}

impl Tally {
    /// The summary line: `2 files, 3 entries, 0 problems, 1 warning.`
    fn line(&self) -> String {
        let warnings = match self.warnings {
            0 => String::new(),
            warnings => format!(", {}", count(warnings, "warning")),
        };
        format!(
            "{}, {}, {}{warnings}.",
            count(self.files, "file"),
            entries_text(self.entries),
            count(self.problems, "problem")
        )
    }
}

/// `1 entry`, `2 entries`.
fn entries_text(entries: usize) -> String {
    count_with(entries, "entry", "entries")
}

/// One kind of problem in one file: how often, and where first.
#[derive(Debug, Serialize)]
struct ProblemGroup {
    /// The file or URL.
    source: String,
    /// A stable code: a sitemap problem's (`lastmod`), an index's (`index-cycle`), or
    /// `unreadable`.
    kind: &'static str,
    #[serde(serialize_with = "severity_text")]
    severity: Severity,
    count: usize,
    /// The first [`EXAMPLES`] occurrences, in the order found.
    examples: Vec<Occurrence>,
}

/// Where a problem was found, and what it says there.
#[derive(Debug, Serialize)]
struct Occurrence {
    /// `null` when the file could not be read at all.
    line: Option<usize>,
    message: String,
}

impl ProblemGroup {
    fn is_warning(&self) -> bool {
        self.severity == Severity::Warning
    }

    /// One line: the first occurrence as `WHERE:LINE: message`, then how often and where
    /// else when the problem repeats.
    fn text(&self) -> String {
        let Some(first) = self.examples.first() else {
            return format!("{}: {}", self.source, self.kind);
        };
        let place = match first.line {
            Some(line) => format!("{}:{line}", self.source),
            None => self.source.clone(),
        };
        let warning = if self.is_warning() { "warning: " } else { "" };
        let mut text = format!("{place}: {warning}{}", first.message);
        if self.count > 1 {
            let lines: Vec<String> = self
                .examples
                .iter()
                .filter_map(|occurrence| occurrence.line)
                .map(|line| line.to_string())
                .collect();
            let rest = self.count - self.examples.len();
            let more = if rest > 0 {
                format!(" and {rest} more")
            } else {
                String::new()
            };
            text.push_str(&format!(
                " ({} times, at lines {}{more})",
                self.count,
                lines.join(", ")
            ));
        }
        text
    }
}

/// Groups the problems of one file by kind, in the order each kind was first found.
fn group(
    source: &Source,
    problems: impl IntoIterator<Item = (&'static str, Severity, Occurrence)>,
) -> Vec<ProblemGroup> {
    let mut groups: Vec<ProblemGroup> = Vec::new();
    let mut positions: HashMap<&'static str, usize> = HashMap::new();
    for (kind, severity, occurrence) in problems {
        let position = *positions.entry(kind).or_insert_with(|| {
            groups.push(ProblemGroup {
                source: source.to_string(),
                kind,
                severity,
                count: 0,
                examples: Vec::new(),
            });
            groups.len() - 1
        });
        let group = &mut groups[position];
        group.count += 1;
        if group.examples.len() < EXAMPLES {
            group.examples.push(occurrence);
        }
    }
    groups
}

/// The stable code of a problem in how an index lists sitemaps.
fn index_problem_code<T>(kind: &IndexProblemKind<T>) -> &'static str {
    match kind {
        IndexProblemKind::Cycle(_) => "index-cycle",
        IndexProblemKind::Repeated { .. } => "listed-again",
        IndexProblemKind::NestedIndex { .. } => "nested-index",
        IndexProblemKind::TooMany => "too-many-sitemaps",
    }
}

/// A severity as JSON writes it.
fn severity_text<S: serde::Serializer>(
    severity: &Severity,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
    })
}

/// One sitemap read, as `--summary json` lists it.
#[derive(Debug, Serialize)]
struct SitemapJson {
    source: String,
    /// `sitemap`, `index`, or `null` when it is neither (or could not be read).
    kind: Option<&'static str>,
    entries: usize,
    readable: bool,
    valid: bool,
}

/// The fields of `sitemapper validate --summary json` after the envelope.
#[derive(Debug, Serialize)]
struct ValidateJson<'a> {
    target: &'a str,
    valid: bool,
    files: usize,
    entries: usize,
    /// Problems found, each occurrence counted.
    problem_count: usize,
    /// Warnings found, each occurrence counted.
    warning_count: usize,
    sitemaps: &'a [SitemapJson],
    /// Each kind of problem once per file, errors and warnings.
    problems: &'a [ProblemGroup],
}

#[derive(Debug)]
struct Checker<W> {
    runtime: tokio::runtime::Runtime,
    fetcher: Fetcher,
    format: SummaryFormat,
    out: W,
    tally: Tally,
    /// For JSON: every sitemap read, and every problem, kept for the one object at the end.
    sitemaps: Vec<SitemapJson>,
    problems: Vec<ProblemGroup>,
}

impl<W: Write> Checker<W> {
    /// Checks one sitemap, reports its problems, and hands an index's children to `walk`.
    fn check(&mut self, walk: &mut IndexWalk<Source>, visit: Visit<Source>) -> Result<(), Failure> {
        self.tally.files += 1;
        let source = &visit.source;
        let (bytes, location) = match self.runtime.block_on(load(&self.fetcher, source)) {
            Ok(loaded) => loaded,
            Err(reason) => {
                let occurrence = Occurrence {
                    line: None,
                    message: format!("cannot be read: {reason}"),
                };
                let groups = group(source, [("unreadable", Severity::Error, occurrence)]);
                self.note(SitemapJson {
                    source: source.to_string(),
                    kind: None,
                    entries: 0,
                    readable: false,
                    valid: false,
                });
                return self.report(groups);
            }
        };
        let validation = validate(&bytes, location.as_ref());
        self.tally.entries += validation.entries;
        let mut problems: Vec<(&'static str, Severity, Occurrence)> = validation
            .problems
            .iter()
            .map(|problem| {
                let occurrence = Occurrence {
                    line: Some(problem.line),
                    message: problem.message.clone(),
                };
                (problem.kind.code(), Severity::Error, occurrence)
            })
            .collect();
        let index_problems = if validation.kind == Some(DocumentKind::Index) {
            follow(walk, &visit, &validation.children)
        } else {
            Vec::new()
        };
        // A nested index is reported where it is listed, against the parent index: it does
        // not make this file invalid.
        let sound = validation.is_valid()
            && !index_problems.iter().any(|problem| {
                problem.kind.severity() == Severity::Error
                    && !matches!(problem.kind, IndexProblemKind::NestedIndex { .. })
            });
        let key = source.key();
        let (here, elsewhere): (Vec<_>, Vec<_>) = index_problems
            .iter()
            .partition(|problem| problem.index.key() == key);
        problems.extend(here.into_iter().map(index_occurrence));
        let mut groups = group(source, problems);
        for problem in elsewhere {
            groups.extend(group(&problem.index, [index_occurrence(problem)]));
        }
        let kind = match validation.kind {
            Some(DocumentKind::Index) => Some("index"),
            Some(DocumentKind::UrlSet) => Some("sitemap"),
            None => None,
        };
        self.note(SitemapJson {
            source: source.to_string(),
            kind,
            entries: validation.entries,
            readable: true,
            valid: sound,
        });
        self.report(groups)?;
        if sound && self.format == SummaryFormat::Text {
            let entries = validation.entries;
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
    fn note(&mut self, sitemap: SitemapJson) {
        if self.format == SummaryFormat::Json {
            self.sitemaps.push(sitemap);
        }
    }

    /// Counts the problems, and prints each group (text) or keeps it (JSON).
    fn report(&mut self, groups: Vec<ProblemGroup>) -> Result<(), Failure> {
        for group in groups {
            if group.is_warning() {
                self.tally.warnings += group.count;
            } else {
                self.tally.problems += group.count;
            }
            match self.format {
                SummaryFormat::Text => self.print(format_args!("{}", group.text()))?,
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
        let Tally {
            files,
            entries,
            problems,
            warnings,
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
                let line = self.tally.line();
                self.print(format_args!("{line}"))?;
            }
            SummaryFormat::Json => {
                let (status, error) = match &failure {
                    Some(failure) => (failure.status, Some(failure.line())),
                    None => (ExitStatus::Success, None),
                };
                let summary = ValidateJson {
                    target,
                    valid: problems == 0,
                    files,
                    entries,
                    problem_count: problems,
                    warning_count: warnings,
                    sitemaps: &self.sitemaps,
                    problems: &self.problems,
                };
                json::print("validate", status, error, &summary)?;
            }
        }
        failure.map_or(Ok(()), Err)
    }
}

/// Hands the children of the index `visit` read to the walk; returns what is wrong in how
/// the indexes read so far list them.
fn follow(
    walk: &mut IndexWalk<Source>,
    visit: &Visit<Source>,
    children: &[ChildSitemap],
) -> Vec<IndexProblem<Source>> {
    let listed = children.iter().map(|child| {
        let source = child_source(&visit.source, &child.loc);
        Listed {
            key: source.key(),
            source,
            line: child.line,
        }
    });
    walk.follow(visit.id, listed)
}

/// A problem of how an index lists sitemaps, for grouping.
fn index_occurrence(problem: &IndexProblem<Source>) -> (&'static str, Severity, Occurrence) {
    (
        index_problem_code(&problem.kind),
        problem.kind.severity(),
        Occurrence {
            line: Some(problem.line),
            message: problem.kind.to_string(),
        },
    )
}

/// A child of an index: beside a local index, a file of the same name is read when it is
/// there (a sitemap checked before it is published); otherwise the child's URL.
fn child_source(parent: &Source, child: &str) -> Source {
    let Ok(url) = Url::parse(child) else {
        return Source::File(PathBuf::from(child));
    };
    if let Source::File(path) = parent
        && let Some(name) = url
            .path_segments()
            .and_then(|mut segments| segments.next_back())
    {
        let sibling = path.parent().unwrap_or(Path::new(".")).join(name);
        if sibling.is_file() {
            return Source::File(sibling);
        }
    }
    Source::Remote(url)
}

/// The sitemap's bytes, decompressed, and where it lives on the web if known.
async fn load(fetcher: &Fetcher, source: &Source) -> Result<(Vec<u8>, Option<Url>), String> {
    match source {
        Source::File(path) => Ok((gunzip(read_file(path)?)?, None)),
        Source::Stdin => Ok((gunzip(read_capped(std::io::stdin().lock())?)?, None)),
        Source::Remote(url) => match fetcher.get(url, MAX_BYTES_PER_FILE).await {
            Ok(fetched) => Ok((gunzip(fetched.body)?, Some(url.clone()))),
            Err(FetchError::Status(status)) if matches!(status.as_u16(), 404 | 410) => {
                Err("not found".to_string())
            }
            Err(error) => Err(error.to_string()),
        },
    }
}

/// The sitemap's bytes gunzipped when they are gzip, or the problem to report.
fn gunzip(bytes: Vec<u8>) -> Result<Vec<u8>, String> {
    gunzip_if_gzip(bytes).map_err(|error| error.to_string())
}

/// A local sitemap, read up to the protocol's 52,428,800 bytes (sitemaps.org), the cap a
/// fetched one has: a larger file, or one that grows while read, costs no more memory.
fn read_file(path: &Path) -> Result<Vec<u8>, String> {
    let file = std::fs::File::open(path).map_err(|error| error.to_string())?;
    read_capped(file)
}

/// Everything `reader` gives, up to the protocol's 52,428,800 bytes: more is an error, and
/// costs no more memory.
fn read_capped(reader: impl Read) -> Result<Vec<u8>, String> {
    let mut bytes = Vec::new();
    reader
        .take(MAX_BYTES_PER_FILE + 1)
        .read_to_end(&mut bytes)
        .map_err(|error| error.to_string())?;
    if bytes.len() as u64 > MAX_BYTES_PER_FILE {
        return Err(format!("larger than {MAX_BYTES_PER_FILE} bytes"));
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests;
