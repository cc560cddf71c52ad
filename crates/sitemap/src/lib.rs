//! The sitemaps.org protocol 0.9: a chunked, streaming writer of `<urlset>` files, the sitemap
//! index over them, gzip, and atomic publishing into the output directory; a reader and a
//! validator of sitemaps and indexes, and a walk that follows indexes into their sitemaps.

mod extensions;
mod index_walk;
mod limits;
mod lines;
mod publish;
mod reader;
mod references;
mod validate;
mod writer;
mod xml;

use std::path::PathBuf;

pub use extensions::{depth_priority, is_valid_hreflang, observed_changefreq};
pub use index_walk::{
    IndexProblem, IndexProblemKind, IndexWalk, Listed, MAX_INDEX_DEPTH, MAX_LISTED_SITEMAPS,
    Severity, SitemapId, SitemapKey, Visit,
};
pub use limits::{
    Limits, MAX_BYTES_PER_FILE, MAX_URL_LENGTH, MAX_URLS_PER_FILE, MIN_BYTES_PER_FILE,
};
pub use publish::{Published, StagingDir};
pub use reader::{ReadError, SitemapDocument, SitemapEntry, read_sitemap};
pub use validate::{ChildSitemap, DocumentKind, Problem, Validation, validate};
pub use writer::{
    ChunkedWriter, Format, ROOT_FILE_NAME, TEXT_ROOT_FILE_NAME, WriteOptions, Written,
};
pub use xml::{Alternate, ChangeFreq, Entry, format_lastmod};

#[derive(Debug, thiserror::Error)]
pub enum SitemapError {
    #[error("invalid sitemap limits: {0}")]
    InvalidLimits(String),
    #[error("no URL to write: an empty sitemap is not valid")]
    NoEntries,
    #[error(
        "one entry needs {needed} bytes, more than a file of at most {limit} bytes can hold: {loc}"
    )]
    EntryTooLarge {
        loc: String,
        needed: u64,
        limit: u64,
    },
    #[error("more than {max} sitemap files would be needed; an index may list at most {max}")]
    TooManyFiles { max: usize },
    #[error("cannot create output directory {path}: {source}")]
    CreateOutput {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot create staging directory in {path}: {source}")]
    Staging {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot write {path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot publish {path}: {source}")]
    Publish {
        path: PathBuf,
        source: std::io::Error,
    },
}

#[cfg(test)]
mod tests;
