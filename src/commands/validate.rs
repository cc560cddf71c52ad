//! `sitemapper validate FILE|URL`: checks a sitemap or an index (and, through an index, its
//! children, each read once however often it is listed) against the protocol. Problems go to
//! stdout as `WHERE:LINE: message`, warnings as `WHERE:LINE: warning: message`; the exit code
//! is 1 when anything is invalid.

use std::fmt;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Context;
use sitemapper_crawl::AddressPolicy;
use sitemapper_sitemap::{
    DocumentKind, IndexProblem, IndexProblemKind, IndexWalk, Listed, MAX_BYTES_PER_FILE, Severity,
    SitemapKey, Visit, validate,
};
use url::Url;

use super::sitemap_source::{SitemapClient, gunzip_if_gzip};
use crate::cli::ValidateArgs;
use crate::exit::{ExitStatus, Failure};

/// Where one sitemap is.
#[derive(Debug, Clone)]
enum Source {
    File(PathBuf),
    Remote(Url),
}

impl fmt::Display for Source {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::File(path) => write!(formatter, "{}", path.display()),
            Source::Remote(url) => write!(formatter, "{url}"),
        }
    }
}

impl Source {
    /// The sitemap on the command line.
    fn parse(target: &str) -> Result<Source, Failure> {
        match Url::parse(target) {
            Ok(url) if matches!(url.scheme(), "http" | "https") => Ok(Source::Remote(url)),
            _ if Path::new(target).is_file() => Ok(Source::File(PathBuf::from(target))),
            _ => Err(Failure::usage(anyhow::anyhow!(
                "{target} is neither a file nor an http(s) URL"
            ))),
        }
    }

    /// What makes two listings the same sitemap: the canonical path, or the normalized URL.
    fn key(&self) -> SitemapKey {
        match self {
            Source::File(path) => SitemapKey::file(path),
            Source::Remote(url) => SitemapKey::url(url),
        }
    }
}

/// Where the children of an index may be fetched from: a sitemap on a private network (or a
/// local file, the user's own) may list private addresses; one on a public site may not.
fn addresses_for(runtime: &tokio::runtime::Runtime, first: &Source) -> AddressPolicy {
    match first {
        Source::Remote(url) => runtime.block_on(AddressPolicy::default().for_seed(url)),
        Source::File(_) => AddressPolicy {
            allow_private: true,
            ..AddressPolicy::default()
        },
    }
}

pub(crate) fn run(args: ValidateArgs) -> Result<(), Failure> {
    let first = Source::parse(&args.target)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let mut checker = Checker {
        client: SitemapClient::new(
            &sitemapper_crawl::default_user_agent(),
            Duration::from_secs(60),
            addresses_for(&runtime, &first),
        )
        .context("cannot build the HTTP client")?,
        runtime,
        out: std::io::stdout().lock(),
        tally: Tally::default(),
    };
    let mut walk = IndexWalk::new([(first.key(), first)]);
    while let Some(visit) = walk.next_to_read() {
        checker.check(&mut walk, visit)?;
    }
    checker.finish(&args.target)
}

/// What was checked, for the summary line.
#[derive(Debug, Default)]
struct Tally {
    files: usize,
    entries: usize,
    problems: usize,
    warnings: usize,
}

#[derive(Debug)]
struct Checker<W> {
    runtime: tokio::runtime::Runtime,
    client: SitemapClient,
    out: W,
    tally: Tally,
}

impl<W: Write> Checker<W> {
    /// Checks one sitemap, prints its problems, and hands an index's children to `walk`.
    fn check(&mut self, walk: &mut IndexWalk<Source>, visit: Visit<Source>) -> Result<(), Failure> {
        self.tally.files += 1;
        let source = &visit.source;
        let (bytes, location) = match self.runtime.block_on(load(&self.client, source)) {
            Ok(loaded) => loaded,
            Err(reason) => {
                self.tally.problems += 1;
                return self.print(format_args!("{source}: cannot be read: {reason}"));
            }
        };
        let validation = validate(&bytes, location.as_ref());
        self.tally.entries += validation.entries;
        self.tally.problems += validation.problems.len();
        for problem in &validation.problems {
            self.print(format_args!(
                "{source}:{}: {}",
                problem.line, problem.message
            ))?;
        }
        let mut sound = validation.is_valid();
        let kind = match validation.kind {
            Some(DocumentKind::Index) => "sitemap index",
            _ => "sitemap",
        };
        if validation.kind == Some(DocumentKind::Index) {
            let listed = validation.children.iter().map(|child| {
                let source = child_source(source, &child.loc);
                Listed {
                    key: source.key(),
                    source,
                    line: child.line,
                }
            });
            for problem in walk.follow(visit.id, listed) {
                // A nested index is reported where it is listed, against the parent index.
                let here = !matches!(problem.kind, IndexProblemKind::NestedIndex { .. });
                sound &= !(here && problem.kind.severity() == Severity::Error);
                self.report(&problem)?;
            }
        }
        if sound {
            let entries = validation.entries;
            self.print(format_args!("{source}: valid {kind}, {entries} entries"))?;
        }
        Ok(())
    }

    fn report(&mut self, problem: &IndexProblem<Source>) -> Result<(), Failure> {
        let IndexProblem { index, line, kind } = problem;
        match kind.severity() {
            Severity::Error => {
                self.tally.problems += 1;
                self.print(format_args!("{index}:{line}: {kind}"))
            }
            Severity::Warning => {
                self.tally.warnings += 1;
                self.print(format_args!("{index}:{line}: warning: {kind}"))
            }
        }
    }

    fn print(&mut self, line: fmt::Arguments<'_>) -> Result<(), Failure> {
        writeln!(self.out, "{line}")?;
        Ok(())
    }

    /// The summary line, and the exit status: 1 when anything is invalid.
    fn finish(mut self, target: &str) -> Result<(), Failure> {
        let Tally {
            files,
            entries,
            problems,
            warnings,
        } = self.tally;
        let warnings = match warnings {
            0 => String::new(),
            count => format!(", {count} warnings"),
        };
        self.print(format_args!(
            "{files} files, {entries} entries, {problems} problems{warnings}."
        ))?;
        if problems > 0 {
            return Err(Failure {
                status: ExitStatus::Fatal,
                error: anyhow::anyhow!("{problems} problems in {target} ({files} files checked)"),
            });
        }
        Ok(())
    }
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
async fn load(client: &SitemapClient, source: &Source) -> Result<(Vec<u8>, Option<Url>), String> {
    match source {
        Source::File(path) => Ok((gunzip_if_gzip(read_file(path)?)?, None)),
        Source::Remote(url) => match client.fetch(url).await? {
            Some(bytes) => Ok((bytes, Some(url.clone()))),
            None => Err("not found".to_string()),
        },
    }
}

/// A local sitemap, read up to the protocol's 52,428,800 bytes (sitemaps.org), the cap a
/// fetched one has: a larger file, or one that grows while read, costs no more memory.
fn read_file(path: &Path) -> Result<Vec<u8>, String> {
    let file = std::fs::File::open(path).map_err(|error| error.to_string())?;
    let mut bytes = Vec::new();
    file.take(MAX_BYTES_PER_FILE + 1)
        .read_to_end(&mut bytes)
        .map_err(|error| error.to_string())?;
    if bytes.len() as u64 > MAX_BYTES_PER_FILE {
        return Err(format!("larger than {MAX_BYTES_PER_FILE} bytes"));
    }
    Ok(bytes)
}
