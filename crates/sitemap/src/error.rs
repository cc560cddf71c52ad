//! [`SitemapError`]: why writing or publishing a sitemap cannot go on. A leaf: it names nothing
//! else of the crate.

use std::path::PathBuf;

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
