//! Why a report could not be written: the one error type of the crate.

use std::path::PathBuf;

use sitemapper_render::BrowserMissing;
use sitemapper_store::StoreError;

/// What went wrong beneath a file of the report: the filesystem, the CSV, JSON or xlsx
/// writer, or the crawl database read while the file was written. Its words are its own,
/// and they follow the file's name.
pub type WriteCause = Box<dyn std::error::Error + Send + Sync + 'static>;

/// Why the report, or one of its files, was not written.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// A file of the report could not be written; the file at its name, if any, is the old
    /// one still.
    #[error("cannot write {}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        cause: WriteCause,
    },
    /// The crawl database could not be read.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The data embedded in report.html could not be written as JSON.
    #[error(transparent)]
    Data(#[from] serde_json::Error),
    /// report.pdf could not be printed.
    #[error(transparent)]
    Pdf(#[from] PdfError),
}

impl ReportError {
    /// The failure to write `path`, for `cause`.
    pub(crate) fn write(path: impl Into<PathBuf>, cause: impl Into<WriteCause>) -> ReportError {
        ReportError::Write {
            path: path.into(),
            cause: cause.into(),
        }
    }
}

/// Why the browser printed no report.pdf.
#[derive(Debug, thiserror::Error)]
pub enum PdfError {
    /// No browser was named, and none was found.
    #[error("cannot write report.pdf: no Chromium found; install chromium or give --chrome PATH")]
    NoBrowser,
    /// The browser named cannot be used.
    #[error("cannot write report.pdf: {0}")]
    Browser(BrowserMissing),
    /// No private directory for the copy the browser reads.
    #[error("cannot write report.pdf: no temporary directory for the page to print")]
    NoTemporaryDirectory(#[source] std::io::Error),
    /// The copy of report.html has no `file:` URL the browser could open.
    #[error("cannot write report.pdf: {} cannot be opened", .0.display())]
    Unopenable(PathBuf),
    /// The browser did not start.
    #[error("cannot write report.pdf: cannot start {}: {reason}", browser.display())]
    Launch {
        /// The browser's executable.
        browser: PathBuf,
        /// What went wrong.
        reason: String,
    },
    /// The browser took longer than allowed, and was ended.
    #[error("cannot write report.pdf: {} did not finish printing within {seconds} seconds", browser.display())]
    TimedOut {
        /// The browser's executable.
        browser: PathBuf,
        /// The time it was allowed.
        seconds: u64,
    },
    /// The browser refused to open the page or to print it.
    #[error("cannot write report.pdf: {} printed no PDF: {reason}", browser.display())]
    Failed {
        /// The browser's executable.
        browser: PathBuf,
        /// What it said.
        reason: String,
    },
}
