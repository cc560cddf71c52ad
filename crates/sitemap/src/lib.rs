//! The sitemaps.org protocol 0.9: a streaming writer of `<urlset>` files split by group and
//! by a stable hash of each URL, the sitemap index over them, gzip, and atomic publishing into
//! the output directory that leaves unchanged files alone; a reader and a validator of
//! sitemaps and indexes, and a walk that follows indexes into their sitemaps.
//!
//! # Example
//!
//! Three pages into a directory: the [`Planner`] decides the files (here one, which becomes
//! `sitemap.xml` itself), the [`SitemapWriter`] fills them with the entries in URL order, and
//! the index is written only when there is more than one file. URLs are escaped as XML
//! requires, and `<lastmod>` is in W3C Datetime.
//!
//! ```
//! use sitemapper_sitemap::{Entry, Format, Limits, Planner, SitemapWriter, WriteOptions};
//!
//! let options = WriteOptions {
//!     limits: Limits::default(),
//!     gzip: false,
//!     base_url: "https://example.com/".to_string(),
//!     format: Format::Xml,
//!     images: false,
//!     alternates: false,
//!     videos: false,
//!     news: false,
//! };
//! let changed: jiff::Timestamp = "2024-05-01T12:00:00Z".parse()?;
//! let entries = [
//!     Entry::new("https://example.com/", Some(changed)),
//!     Entry::new("https://example.com/about", Some(changed)),
//!     Entry::new("https://example.com/blog/?page=2&sort=new", None),
//! ];
//! let mut planner = Planner::new(&options);
//! for entry in &entries {
//!     planner.add("", entry)?; // no group: the site is not split
//! }
//! let plan = planner.plan()?;
//! let directory = tempfile::tempdir()?;
//! let mut writer = SitemapWriter::new(directory.path(), options, &plan);
//! for (entry, &file) in entries.iter().zip(plan.placement()) {
//!     writer.push(file, entry)?;
//! }
//! let written = writer.finish()?.write_index(|child| child.newest)?;
//! assert_eq!(written.files, ["sitemap.xml"]);
//! assert_eq!(written.urls, 3);
//!
//! let xml = std::fs::read_to_string(directory.path().join("sitemap.xml"))?;
//! assert_eq!(xml, r#"<?xml version="1.0" encoding="UTF-8"?>
//! <!-- written by sitemapper -->
//! <urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
//!   <url>
//!     <loc>https://example.com/</loc>
//!     <lastmod>2024-05-01T12:00:00+00:00</lastmod>
//!   </url>
//!   <url>
//!     <loc>https://example.com/about</loc>
//!     <lastmod>2024-05-01T12:00:00+00:00</lastmod>
//!   </url>
//!   <url>
//!     <loc>https://example.com/blog/?page=2&amp;sort=new</loc>
//!   </url>
//! </urlset>
//! "#);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod directory;
mod extensions;
mod index_walk;
mod lastmod;
mod limits;
mod lines;
mod news;
mod options;
mod plan;
mod publish;
mod reader;
mod references;
mod split;
mod validate;
mod video;
mod writer;
mod xml;

use std::path::PathBuf;

pub use directory::{Directory, NewFile, Occupant};
pub use extensions::{depth_priority, is_valid_hreflang, observed_changefreq};
pub use index_walk::{
    IndexProblem, IndexProblemKind, IndexWalk, Listed, MAX_INDEX_DEPTH, MAX_LISTED_SITEMAPS,
    Severity, SitemapId, SitemapKey, Visit,
};
pub use lastmod::format_lastmod;
pub use limits::{
    Limits, MAX_BYTES_PER_FILE, MAX_URL_LENGTH, MAX_URLS_PER_FILE, MIN_BYTES_PER_FILE,
};
pub use news::{MAX_NEWS_ENTRIES, NEWS_FILE_STEM, NewsEntry, write_news};
pub use options::{Format, WriteOptions};
pub use plan::{Plan, PlannedFile, Planner, file_safe_name};
pub use publish::{Published, StagingDir, published_names};
pub use reader::{ReadError, SitemapDocument, SitemapEntry, read_sitemap};
pub use split::{Grouping, OTHER, SplitRule, SplitRuleError, page_language};
pub use validate::{ChildSitemap, DocumentKind, Problem, ProblemKind, Validation, validate};
pub use video::{MAX_VIDEO_DESCRIPTION, MAX_VIDEO_DURATION, MAX_VIDEO_TITLE, VideoEntry};
pub use writer::{
    ROOT_FILE_NAME, SitemapWriter, Staged, TEXT_ROOT_FILE_NAME, Written, WrittenChild,
};
pub use xml::{Alternate, ChangeFreq, Entry, is_written_by_sitemapper};

/// Why writing or publishing a sitemap cannot go on.
#[derive(Debug, thiserror::Error)]
pub enum SitemapError {
    /// Limits outside what the protocol allows; the text says which and why.
    #[error("invalid sitemap limits: {0}")]
    InvalidLimits(String),
    /// Nothing was pushed: a `<urlset>` needs at least one `<url>`.
    #[error("no URL to write: an empty sitemap is not valid")]
    NoEntries,
    /// One entry does not fit in a file of the configured byte limit, even alone.
    #[error(
        "one entry needs {needed} bytes, more than a file of at most {limit} bytes can hold: {loc}"
    )]
    EntryTooLarge {
        /// The entry's URL.
        loc: String,
        /// The bytes a file holding only this entry would take.
        needed: u64,
        /// The byte limit of one file.
        limit: u64,
    },
    /// The entries need more files than one index may list.
    #[error("more than {max} sitemap files would be needed; an index may list at most {max}")]
    TooManyFiles {
        /// The most files an index may list.
        max: usize,
    },
    /// An entry pushed into a file the plan did not put it in, or files pushed out of the
    /// plan's order: a defect of the caller, refused rather than written past the limits.
    #[error("the entry {loc} does not belong in sitemap file {file} as planned")]
    OffPlan {
        /// The entry's URL.
        loc: String,
        /// The file it was pushed into.
        file: String,
    },
    /// The output directory does not exist and cannot be created.
    #[error("cannot create output directory {path}: {source}")]
    CreateOutput {
        /// The output directory.
        path: PathBuf,
        /// What the filesystem said.
        source: std::io::Error,
    },
    /// No staging directory can be made inside the output directory.
    #[error("cannot create staging directory in {path}: {source}")]
    Staging {
        /// The output directory.
        path: PathBuf,
        /// What the filesystem said.
        source: std::io::Error,
    },
    /// A sitemap file cannot be written in the staging directory.
    #[error("cannot write {path}: {source}")]
    Write {
        /// The file being written.
        path: PathBuf,
        /// What the filesystem said.
        source: std::io::Error,
    },
    /// A directory stands where a file is to be published: a rename cannot replace it
    /// atomically, and sitemapper removes nothing it did not write.
    #[error("cannot publish {path}: a directory stands there, and sitemapper replaces only files")]
    DirectoryInTheWay {
        /// Where the file was to go.
        path: PathBuf,
    },
    /// A written file cannot be moved into place, or a stale one removed.
    #[error("cannot publish {path}: {source}")]
    Publish {
        /// Where a file was being moved to, the stale file being removed, or the output
        /// directory that could not be listed.
        path: PathBuf,
        /// What the filesystem said.
        source: std::io::Error,
    },
}

#[cfg(test)]
mod news_tests;
#[cfg(test)]
mod publish_tests;
#[cfg(test)]
mod tests;
