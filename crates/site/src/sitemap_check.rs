//! The check of a sitemap or an index against the protocol (`sitemapper validate`): the file,
//! URL or stdin named, then, through an index, its children, each read once however often it
//! is listed. Each sitemap read is handed to the caller with its problems grouped by kind, in
//! the order each kind was first found; the caller says them (lines, or JSON).

use std::collections::HashMap;
use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Serialize;
use sitemapper_crawl::{
    AddressPolicy, CrawlError, FetchError, FetchSettings, Fetcher, NetworkOptions,
};
use sitemapper_sitemap::{
    ChildSitemap, DocumentKind, IndexProblem, IndexProblemKind, IndexWalk, Listed,
    MAX_BYTES_PER_FILE, Severity, SitemapKey, Visit, validate,
};
use url::Url;

use crate::sitemap_source::gunzip_if_gzip;

/// Occurrences kept of a problem repeated in one file.
pub const CHECK_EXAMPLES: usize = 5;

/// Where one sitemap is.
#[derive(Debug, Clone)]
pub enum SitemapSource {
    /// A local file.
    File(PathBuf),
    /// An http(s) URL.
    Remote(Url),
    /// `-`: read from stdin, once.
    Stdin,
}

impl fmt::Display for SitemapSource {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SitemapSource::File(path) => write!(formatter, "{}", path.display()),
            SitemapSource::Remote(url) => write!(formatter, "{url}"),
            SitemapSource::Stdin => formatter.write_str("stdin"),
        }
    }
}

/// A target that is no sitemap sitemapper can read.
#[derive(Debug, thiserror::Error)]
#[error("{0} is neither a file nor an http(s) URL (- reads stdin)")]
pub struct NotASource(pub String);

impl SitemapSource {
    /// The sitemap a user named: `-`, an http(s) URL, or a file that exists.
    pub fn parse(target: &str) -> Result<SitemapSource, NotASource> {
        if target == "-" {
            return Ok(SitemapSource::Stdin);
        }
        match Url::parse(target) {
            Ok(url) if matches!(url.scheme(), "http" | "https") => Ok(SitemapSource::Remote(url)),
            _ if Path::new(target).is_file() => Ok(SitemapSource::File(PathBuf::from(target))),
            _ => Err(NotASource(target.to_string())),
        }
    }

    /// What makes two listings the same sitemap: the canonical path, or the normalized URL.
    fn key(&self) -> SitemapKey {
        match self {
            SitemapSource::File(path) => SitemapKey::file(path),
            SitemapSource::Remote(url) => SitemapKey::url(url),
            // No file is named by an empty path: stdin is never listed by an index.
            SitemapSource::Stdin => SitemapKey::File(PathBuf::new()),
        }
    }
}

/// One kind of problem in one file: how often, and where first.
#[derive(Debug, Serialize)]
pub struct ProblemGroup {
    /// The file or URL.
    pub source: String,
    /// A stable code: a sitemap problem's (`lastmod`), an index's (`index-cycle`), or
    /// `unreadable`.
    pub kind: &'static str,
    /// An error, or a warning that leaves the file valid.
    #[serde(serialize_with = "severity_text")]
    pub severity: Severity,
    /// Occurrences in the file.
    pub count: usize,
    /// The first [`CHECK_EXAMPLES`] occurrences, in the order found.
    pub examples: Vec<Occurrence>,
}

impl ProblemGroup {
    /// Whether the problem is a warning, which leaves the file valid.
    pub fn is_warning(&self) -> bool {
        self.severity == Severity::Warning
    }
}

/// Where a problem was found, and what it says there.
#[derive(Debug, Serialize)]
pub struct Occurrence {
    /// `null` when the file could not be read at all.
    pub line: Option<usize>,
    /// What is wrong there.
    pub message: String,
}

/// One sitemap read, and what it was.
#[derive(Debug, Serialize)]
pub struct SitemapChecked {
    /// The file or URL.
    pub source: String,
    /// `sitemap`, `index`, or `null` when it is neither (or could not be read).
    pub kind: Option<&'static str>,
    /// Its entries (`<url>`s, or an index's `<sitemap>`s).
    pub entries: usize,
    /// Whether it could be read.
    pub readable: bool,
    /// Whether it is valid: no error in it, nor in how it lists its children.
    pub valid: bool,
}

/// A sitemap checked: what it was, and the problems found in it or (an index's) in how it
/// lists its children, grouped by file and kind.
#[derive(Debug)]
pub struct Checked {
    /// The sitemap.
    pub sitemap: SitemapChecked,
    /// Its problems, and those of the indexes that list it.
    pub problems: Vec<ProblemGroup>,
}

/// Why the check could not begin.
#[derive(Debug, thiserror::Error)]
pub enum CheckError {
    /// The async runtime could not start.
    #[error("cannot start the async runtime")]
    Runtime(#[source] std::io::Error),
    /// The HTTP client could not be built.
    #[error("cannot build the HTTP client")]
    Client(#[source] CrawlError),
}

/// Checks the sitemap at `first` and everything it leads to, handing each sitemap read to
/// `each` as it is checked; an error of `each` ends the check.
pub fn check_sitemaps<E>(
    first: SitemapSource,
    mut each: impl FnMut(Checked) -> Result<(), E>,
) -> Result<(), E>
where
    E: From<CheckError>,
{
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(CheckError::Runtime)?;
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
    .map_err(CheckError::Client)?;
    let mut walk = IndexWalk::new([(first.key(), first)]);
    while let Some(visit) = walk.next_to_read() {
        each(runtime.block_on(check_one(&fetcher, &mut walk, visit)))?;
    }
    Ok(())
}

/// Where the children of an index may be fetched from: a sitemap on a private network (or a
/// local file or stdin, the user's own) may list private addresses; one on a public site may
/// not.
fn addresses_for(runtime: &tokio::runtime::Runtime, first: &SitemapSource) -> AddressPolicy {
    match first {
        SitemapSource::Remote(url) => {
            let policy = runtime.block_on(AddressPolicy::default().for_seed(url));
            if policy.allow_private {
                tracing::info!(%url, "the sitemap is on a private network: private addresses allowed");
            }
            policy
        }
        SitemapSource::File(_) | SitemapSource::Stdin => AddressPolicy {
            allow_private: true,
            ..AddressPolicy::default()
        },
    }
}

/// Checks one sitemap, and hands an index's children to `walk`.
async fn check_one(
    fetcher: &Fetcher,
    walk: &mut IndexWalk<SitemapSource>,
    visit: Visit<SitemapSource>,
) -> Checked {
    let source = &visit.source;
    let (bytes, location) = match load(fetcher, source).await {
        Ok(loaded) => loaded,
        Err(reason) => {
            let occurrence = Occurrence {
                line: None,
                message: format!("cannot be read: {reason}"),
            };
            return Checked {
                sitemap: SitemapChecked {
                    source: source.to_string(),
                    kind: None,
                    entries: 0,
                    readable: false,
                    valid: false,
                },
                problems: group(source, [("unreadable", Severity::Error, occurrence)]),
            };
        }
    };
    let validation = validate(&bytes, location.as_ref());
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
    // A nested index is reported where it is listed, against the parent index: it does not
    // make this file invalid.
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
    Checked {
        sitemap: SitemapChecked {
            source: source.to_string(),
            kind,
            entries: validation.entries,
            readable: true,
            valid: sound,
        },
        problems: groups,
    }
}

/// Groups the problems of one file by kind, in the order each kind was first found.
fn group(
    source: &SitemapSource,
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
        if group.examples.len() < CHECK_EXAMPLES {
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

/// Hands the children of the index `visit` read to the walk; returns what is wrong in how
/// the indexes read so far list them.
fn follow(
    walk: &mut IndexWalk<SitemapSource>,
    visit: &Visit<SitemapSource>,
    children: &[ChildSitemap],
) -> Vec<IndexProblem<SitemapSource>> {
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
fn index_occurrence(problem: &IndexProblem<SitemapSource>) -> (&'static str, Severity, Occurrence) {
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
fn child_source(parent: &SitemapSource, child: &str) -> SitemapSource {
    let Ok(url) = Url::parse(child) else {
        return SitemapSource::File(PathBuf::from(child));
    };
    if let SitemapSource::File(path) = parent
        && let Some(name) = url
            .path_segments()
            .and_then(|mut segments| segments.next_back())
    {
        let sibling = path.parent().unwrap_or(Path::new(".")).join(name);
        if sibling.is_file() {
            return SitemapSource::File(sibling);
        }
    }
    SitemapSource::Remote(url)
}

/// The sitemap's bytes, decompressed, and where it lives on the web if known.
async fn load(fetcher: &Fetcher, source: &SitemapSource) -> Result<(Vec<u8>, Option<Url>), String> {
    match source {
        SitemapSource::File(path) => Ok((gunzip(read_file(path)?)?, None)),
        SitemapSource::Stdin => Ok((gunzip(read_capped(std::io::stdin().lock())?)?, None)),
        SitemapSource::Remote(url) => match fetcher.get(url, MAX_BYTES_PER_FILE).await {
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
mod tests {
    use super::*;

    #[test]
    fn problems_are_grouped_by_kind_in_the_order_found_with_the_first_examples() {
        let source = SitemapSource::File(PathBuf::from("sitemap.xml"));
        let at = |line: usize| Occurrence {
            line: Some(line),
            message: format!("at {line}"),
        };
        let problems = (1..=7)
            .map(|line| ("lastmod", Severity::Error, at(line)))
            .chain([("loc", Severity::Warning, at(3))]);
        let groups = group(&source, problems);
        let shown: Vec<(&str, usize, usize)> = groups
            .iter()
            .map(|group| (group.kind, group.count, group.examples.len()))
            .collect();
        assert_eq!(shown, [("lastmod", 7, CHECK_EXAMPLES), ("loc", 1, 1)]);
        assert_eq!(groups[0].examples[0].line, Some(1));
        assert!(groups[1].is_warning() && !groups[0].is_warning());
    }

    #[test]
    fn a_child_beside_a_local_index_is_read_from_disk_else_from_its_url() {
        let directory = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
        std::fs::write(directory.path().join("a.xml"), "<urlset/>")
            .unwrap_or_else(|error| panic!("{error}"));
        let index = SitemapSource::File(directory.path().join("index.xml"));
        let beside = child_source(&index, "https://e.com/a.xml");
        assert!(matches!(beside, SitemapSource::File(path) if path.ends_with("a.xml")));
        let remote = child_source(&index, "https://e.com/b.xml");
        assert!(matches!(remote, SitemapSource::Remote(url) if url.path() == "/b.xml"));
    }
}
