//! A bad night never makes a worse sitemap (docs/design.md, Output): before anything is
//! published, a run in which most requests failed in a way that may pass is a failed run, and
//! a new list that would lose more than `--max-shrink` of what the output directory publishes
//! now is not published. The files published are the memory: the check holds without a crawl
//! database, and whoever wrote them.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasher, RandomState};
use std::path::Path;

use sitemapper_crawl::HostMap;
use sitemapper_sitemap::{NEWS_FILE_STEM, ROOT_FILE_NAME, SitemapDocument, read_sitemap};
use sitemapper_store::{FailureKind, Reason, RunId, Store, Verdict};
use url::Url;

use crate::error::SiteError;
use crate::settings::SiteSettings;
use crate::shrink::{MIN_SHRINK_URLS, ShrinkCause};
use crate::sitemap_source::gunzip_if_gzip;

/// Fails the run when most of its requests failed in a way that may pass: what it found is
/// the site on a bad night, not a smaller site. `--max-shrink 100` publishes anyway.
pub(crate) fn check_failures(
    store: &Store,
    run: RunId,
    settings: &SiteSettings,
) -> Result<(), SiteError> {
    if settings.max_shrink >= 100 {
        return Ok(());
    }
    let failures = store.transient_failures(run)?;
    if failures.failed * 2 <= failures.requested {
        return Ok(());
    }
    Err(SiteError::MostlyFailed {
        failed: failures.failed,
        requested: failures.requested,
        causes: failures.causes,
        untouched: settings.untouched(),
    })
}

/// Refuses to publish a list that would lose more than `--max-shrink` percent (and at least
/// [`MIN_SHRINK_URLS`]) of the URLs the output directory's sitemaps list now, saying how many
/// and why. Memory: a 64-bit hash per URL published, not the URLs.
pub(crate) fn check_shrink(
    store: &Store,
    run: RunId,
    settings: &SiteSettings,
) -> Result<(), SiteError> {
    let Some(directory) = settings.out.path() else {
        return Ok(());
    };
    if !settings.publishes_sitemaps || settings.max_shrink >= 100 {
        return Ok(());
    }
    let hasher = RandomState::new();
    let mut published = HashSet::new();
    let readable = for_each_published(directory, |url| {
        published.insert(hasher.hash_one(url));
    });
    if !readable || published.is_empty() {
        return Ok(());
    }
    let total = published.len() as u64;
    let host_map = &settings.crawl.host_map;
    store.for_each_listed(run, |page| -> Result<(), SiteError> {
        published.remove(&hasher.hash_one(host_map.publish_text(page.url).as_ref()));
        Ok(())
    })?;
    let gone = published.len() as u64;
    if gone < MIN_SHRINK_URLS || gone * 100 <= total * u64::from(settings.max_shrink) {
        return Ok(());
    }
    let mut causes: HashMap<ShrinkCause, u64> = HashMap::new();
    let mut lookup = Ok(());
    for_each_published(directory, |url| {
        if lookup.is_ok() && published.remove(&hasher.hash_one(url)) {
            match cause_of(store, run, host_map, url) {
                Ok(cause) => *causes.entry(cause).or_default() += 1,
                Err(error) => lookup = Err(error),
            }
        }
    });
    lookup?;
    let mut causes: Vec<(ShrinkCause, u64)> = causes.into_iter().collect();
    causes.sort_by(|left, right| right.1.cmp(&left.1).then(left.0.cmp(&right.0)));
    Err(SiteError::WouldShrink {
        gone,
        published: total,
        causes,
        untouched: settings.untouched(),
    })
}

/// Why the published `url` is not in this run's list.
fn cause_of(
    store: &Store,
    run: RunId,
    host_map: &HostMap,
    url: &str,
) -> Result<ShrinkCause, SiteError> {
    let crawled = Url::parse(url)
        .ok()
        .map(|published| host_map.to_crawled(&published).unwrap_or(published));
    let Some(crawled) = crawled else {
        return Ok(ShrinkCause::NotFound);
    };
    let Some(page) = store.page_seen_in(run, crawled.as_str())? else {
        return Ok(ShrinkCause::NotFound);
    };
    Ok(match (page.verdict, page.reason) {
        (_, Some(Reason::HttpStatus(status))) => ShrinkCause::Answered(status),
        (_, Some(Reason::FetchError)) => {
            ShrinkCause::Failed(page.failure.unwrap_or(FailureKind::Other))
        }
        (Verdict::Redirect, _) => ShrinkCause::Redirects,
        (Verdict::Canonicalised, _) => ShrinkCause::Canonicalised,
        (_, Some(reason)) => ShrinkCause::Excluded(reason),
        // Listed under another form of its URL: not found as published.
        (Verdict::Indexable | Verdict::Excluded, None) => ShrinkCause::NotFound,
    })
}

/// Calls `each` with every URL the sitemaps in `directory` list now: `sitemap.xml` and the
/// children its index names that are there, or, where only text is written, the text files.
/// The news sitemap, whose articles leave it as they age, is not read. Returns false when
/// what is there cannot be read (a damaged file protects nothing: it is replaced).
fn for_each_published(directory: &Path, mut each: impl FnMut(&str)) -> bool {
    let root = directory.join(ROOT_FILE_NAME);
    if regular_file(&root) {
        let Some(document) = read_xml(&root) else {
            return false;
        };
        match document {
            SitemapDocument::UrlSet(entries) => entries.iter().for_each(|entry| each(&entry.loc)),
            SitemapDocument::Index(children) => {
                for child in children {
                    let Some(name) = child_name(&child.loc) else {
                        continue;
                    };
                    if name.starts_with(NEWS_FILE_STEM) {
                        continue;
                    }
                    if let Some(SitemapDocument::UrlSet(entries)) = read_xml(&directory.join(name))
                    {
                        entries.iter().for_each(|entry| each(&entry.loc));
                    }
                }
            }
        }
        return true;
    }
    let Ok(entries) = std::fs::read_dir(directory) else {
        return false;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else {
            continue;
        };
        if !(name.starts_with("sitemap") && name.ends_with(".txt")) {
            continue;
        }
        let path = entry.path();
        if let Some(text) = read_regular(&path) {
            String::from_utf8_lossy(&text)
                .lines()
                .map(str::trim)
                .filter(|line| !line.is_empty())
                .for_each(&mut each);
        }
    }
    true
}

/// The file name a child's `<loc>` ends with: the children are published beside the index.
fn child_name(loc: &str) -> Option<&str> {
    let name = loc.rsplit('/').next()?;
    (!name.is_empty() && !name.contains(['?', '#', '\\'])).then_some(name)
}

/// A sitemap or index at `path`, gunzipped; `None` when it is missing, not a regular file,
/// or not a sitemap.
fn read_xml(path: &Path) -> Option<SitemapDocument> {
    let bytes = read_regular(path)?;
    let xml = gunzip_if_gzip(bytes).ok()?;
    read_sitemap(&xml).ok()
}

/// The bytes of `path` when it is a regular file (never through a link someone planted).
fn read_regular(path: &Path) -> Option<Vec<u8>> {
    regular_file(path).then(|| std::fs::read(path).ok())?
}

fn regular_file(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|metadata| metadata.file_type().is_file())
}

#[cfg(test)]
mod tests {
    use sitemapper_store::TransientCause;

    use super::*;

    #[test]
    fn a_childs_name_is_the_last_segment_of_its_loc() {
        assert_eq!(
            child_name("https://e.com/sitemap-00001.xml.gz"),
            Some("sitemap-00001.xml.gz")
        );
        assert_eq!(child_name("https://e.com/dir/"), None);
        assert_eq!(child_name("https://e.com/sitemap.xml?x=1"), None);
    }

    #[test]
    fn causes_read_as_the_error_line_counts_them() {
        assert_eq!(ShrinkCause::Answered(503).to_string(), "answered 503");
        assert_eq!(
            ShrinkCause::Failed(FailureKind::Timeout).to_string(),
            "timed out"
        );
        assert_eq!(
            ShrinkCause::Excluded(Reason::NoIndex).to_string(),
            "are noindex now"
        );
        assert_eq!(
            ShrinkCause::NotFound.to_string(),
            "were not found this time"
        );
    }

    #[test]
    fn a_transient_cause_reads_as_the_summary_counts_it() {
        assert_eq!(TransientCause::Status(503).to_string(), "503");
        assert_eq!(
            TransientCause::Failure(FailureKind::Timeout).to_string(),
            "timeout"
        );
    }
}
