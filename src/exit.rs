//! How a run ends: the documented exit codes, and `Failure`, the error that carries one.
//!
//! The common case, an error that means the run cannot go on, converts with `?` and ends the
//! run with `ExitStatus::Fatal`. Every other status is chosen where the error is raised
//! (`Failure::usage`, or a `Failure` built with its status), so that no error type carries one
//! by accident: there is no conversion from `CrawlError`, whose status depends on where it
//! happens (a bad seed is a usage error, a failed crawl a fatal one).

use sitemapper_report::ReportError;
use sitemapper_site::{CheckError, LockError};
use sitemapper_sitemap::SitemapError;
use sitemapper_store::StoreError;

/// The documented exit codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ExitStatus {
    /// The run did what was asked, or stdout's reader stopped reading (`crate::stdout`).
    Success = 0,
    /// The run could not finish: seed unreachable, nothing to list, a write failing before
    /// the sitemaps are published. The previous sitemap is left as it was. `explain`: the
    /// URL is not listed. `fleet status --check`: a site failed or is overdue (as a monitor
    /// reads a status of 1).
    Fatal = 1,
    /// The command line or the config file is wrong: a bad value, a path that cannot be
    /// written (found before any request).
    Usage = 2,
    /// Another run holds the output directory or the crawl database.
    Locked = 3,
    /// `audit --fail-on`: findings at that level exist.
    Findings = 4,
    /// `fleet run`, `worker --once`: some sites failed (the others ran).
    SitesFailed = 5,
    /// The sitemaps were published, but what follows failed (the change report could not be
    /// written): the run is recorded as failed, so that the next run's report holds its
    /// changes.
    AfterPublishing = 6,
    /// The run found the site on a bad night and published nothing, so as not to make the
    /// sitemap worse: it would have lost more than `--max-shrink` of the published URLs, or
    /// most of its requests failed in a way that may pass. The previous sitemap is left as it
    /// was.
    NotPublished = 7,
    /// Stopped by Ctrl-C (128 + SIGINT, as shells report it).
    Interrupted = 130,
    /// Stopped by SIGTERM (128 + 15).
    Terminated = 143,
}

impl ExitStatus {
    /// Every status, in the order of their codes.
    pub(crate) const ALL: [ExitStatus; 10] = [
        ExitStatus::Success,
        ExitStatus::Fatal,
        ExitStatus::Usage,
        ExitStatus::Locked,
        ExitStatus::Findings,
        ExitStatus::SitesFailed,
        ExitStatus::AfterPublishing,
        ExitStatus::NotPublished,
        ExitStatus::Interrupted,
        ExitStatus::Terminated,
    ];

    /// What the status tells a user or a script, as the manual's EXIT STATUS says it.
    pub(crate) fn meaning(self) -> &'static str {
        match self {
            ExitStatus::Success => "The sitemaps were written (validate: the sitemap is valid).",
            ExitStatus::Fatal => {
                "The run could not finish: the seed unreachable or disallowed, no indexable page, \
                 a write failing before the sitemaps are published; the previous sitemap is left \
                 as it was. validate: the sitemap is invalid. explain: the URL is not listed. \
                 fleet status --check: a site failed or is overdue."
            }
            ExitStatus::Usage => {
                "A usage or configuration error, found before any request: an unknown option, a \
                 value out of its range, an invalid seed, a path that cannot be written, a crawl \
                 database of another site."
            }
            ExitStatus::Locked => {
                "Another run holds the output directory or the crawl database: nothing was done."
            }
            ExitStatus::Findings => {
                "audit --fail-on: findings at that level or worse exist (the report is written)."
            }
            ExitStatus::SitesFailed => {
                "fleet run, worker --once or --max-sites: some sites failed; the others ran."
            }
            ExitStatus::AfterPublishing => {
                "The sitemaps were published, but the change report could not be written: the run \
                 is recorded as failed, so that the next report holds its changes."
            }
            ExitStatus::NotPublished => {
                "Not published: the run would have lost more than --max-shrink of the published \
                 URLs, or most of its requests failed in a way that may pass (5xx, 429, timeouts); \
                 the previous sitemap is left as it was. --max-shrink 100 publishes anyway."
            }
            ExitStatus::Interrupted => {
                "Interrupted by Ctrl-C: nothing published, the previous sitemap left as it was."
            }
            ExitStatus::Terminated => "Stopped by SIGTERM: as for Ctrl-C.",
        }
    }
}

/// An error that ends the run with its exit status.
#[derive(Debug)]
pub(crate) struct Failure {
    pub(crate) status: ExitStatus,
    pub(crate) error: anyhow::Error,
}

impl Failure {
    /// The error and its causes on one line, each said once: a cause whose words the line
    /// holds already (an SQLite message its error repeats) is left out.
    pub(crate) fn line(&self) -> String {
        sitemapper_crawl::error_chain(self.error.as_ref())
    }

    pub(crate) fn fatal(error: impl Into<anyhow::Error>) -> Failure {
        Failure {
            status: ExitStatus::Fatal,
            error: error.into(),
        }
    }

    pub(crate) fn usage(error: impl Into<anyhow::Error>) -> Failure {
        Failure {
            status: ExitStatus::Usage,
            error: error.into(),
        }
    }
}

/// Errors that end a run as fatal, whatever their kind.
macro_rules! fatal_from {
    ($($error:ty),+) => {$(
        impl From<$error> for Failure {
            fn from(error: $error) -> Failure {
                Failure::fatal(error)
            }
        }
    )+};
}

fatal_from!(
    anyhow::Error,
    ReportError,
    StoreError,
    SitemapError,
    CheckError,
    std::io::Error
);

/// Busy is its own exit status (another run has it, nothing was done); an I/O error is fatal.
impl From<LockError> for Failure {
    fn from(error: LockError) -> Failure {
        let status = match error {
            LockError::Busy(_) => ExitStatus::Locked,
            LockError::Io { .. } => ExitStatus::Fatal,
        };
        Failure {
            status,
            error: error.into(),
        }
    }
}

/// A failure the command has said on stdout already, where its reader looks for it: `fleet
/// status --check`'s verdict, which a monitor reads there. The run ends with its status and
/// no error line, which would say it a second time.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub(crate) struct SaidOnStdout(pub(crate) String);
