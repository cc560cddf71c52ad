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
mod error;
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

pub use directory::{Directory, NewFile, Occupant};
pub use error::SitemapError;
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

#[cfg(test)]
mod news_tests;
#[cfg(test)]
mod publish_tests;
#[cfg(test)]
mod tests;
