//! `sitemapper validate FILE|URL`: checks a sitemap or an index (and, through an index, its
//! children) against the protocol. Problems go to stdout as `WHERE:LINE: message`; the exit
//! code is 1 when anything is invalid.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Context;
use sitemapper_crawl::AddressPolicy;
use sitemapper_sitemap::{DocumentKind, validate};
use url::Url;

use super::sitemap_source::{fetch, gunzip_if_gzip};
use crate::cli::ValidateArgs;
use crate::{ExitStatus, Failure};

/// Files checked at most through indexes (an index holds at most 50,000 children).
const MAX_FILES: usize = 50_001;

/// Where one sitemap is.
#[derive(Debug, Clone)]
enum Source {
    File(PathBuf),
    Remote(Url),
}

impl std::fmt::Display for Source {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Source::File(path) => write!(formatter, "{}", path.display()),
            Source::Remote(url) => write!(formatter, "{url}"),
        }
    }
}

pub fn run(args: ValidateArgs) -> Result<(), Failure> {
    let first = match Url::parse(&args.target) {
        Ok(url) if matches!(url.scheme(), "http" | "https") => Source::Remote(url),
        _ => Source::File(PathBuf::from(&args.target)),
    };
    if let Source::File(path) = &first
        && !path.is_file()
    {
        return Err(Failure::usage(anyhow::anyhow!(
            "{} is neither a file nor an http(s) URL",
            args.target
        )));
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")
        .map_err(Failure::fatal)?;
    let addresses = addresses_for(&runtime, &first);
    let client = sitemapper_crawl::client_builder(&addresses)
        .user_agent(sitemapper_crawl::default_user_agent())
        .timeout(Duration::from_secs(60))
        .build()
        .context("cannot build the HTTP client")
        .map_err(Failure::fatal)?;

    let mut out = std::io::stdout().lock();
    let mut queue = vec![first];
    let (mut files, mut entries, mut problems) = (0usize, 0usize, 0usize);
    while let Some(source) = queue.pop() {
        files += 1;
        let (bytes, location) = match runtime.block_on(load(&client, &addresses, &source)) {
            Ok(loaded) => loaded,
            Err(reason) => {
                problems += 1;
                writeln!(out, "{source}: cannot be read: {reason}").map_err(Failure::fatal)?;
                continue;
            }
        };
        let validation = validate(&bytes, location.as_ref());
        entries += validation.entries;
        problems += validation.problems.len();
        for problem in &validation.problems {
            writeln!(out, "{source}:{}: {}", problem.line, problem.message)
                .map_err(Failure::fatal)?;
        }
        let kind = match validation.kind {
            Some(DocumentKind::Index) => "sitemap index",
            _ => "sitemap",
        };
        if validation.is_valid() {
            writeln!(
                out,
                "{source}: valid {kind}, {} entries",
                validation.entries
            )
            .map_err(Failure::fatal)?;
        }
        for child in validation.children.iter().rev() {
            if files + queue.len() < MAX_FILES {
                queue.push(child_source(&source, child));
            }
        }
    }
    writeln!(
        out,
        "{files} files, {entries} entries, {problems} problems."
    )
    .map_err(Failure::fatal)?;
    if problems > 0 {
        return Err(Failure {
            status: ExitStatus::Fatal,
            error: anyhow::anyhow!(
                "{problems} problems in {} ({files} files checked)",
                args.target
            ),
        });
    }
    Ok(())
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

/// The sitemap's bytes, decompressed, and where it lives on the web if known.
async fn load(
    client: &reqwest::Client,
    addresses: &AddressPolicy,
    source: &Source,
) -> Result<(Vec<u8>, Option<Url>), String> {
    match source {
        Source::File(path) => {
            let bytes = std::fs::read(path).map_err(|error| error.to_string())?;
            Ok((gunzip_if_gzip(bytes)?, None))
        }
        Source::Remote(url) => match fetch(client, addresses, url).await? {
            Some(bytes) => Ok((bytes, Some(url.clone()))),
            None => Err("not found".to_string()),
        },
    }
}
