//! Why a site's run ended without publishing, or failed after it published: one enum, whose
//! [`SiteError::kind`] the binary maps to its exit codes. A failure on one URL is never here: it is a page recorded with its
//! reason.

use std::path::PathBuf;

use sitemapper_crawl::CrawlError;
use sitemapper_render::BrowserMissing;
use sitemapper_sitemap::SitemapError;
use sitemapper_store::{StoreError, TransientCause};

use crate::counted::{count, count_grouped};
use crate::lock::LockError;
use crate::path_problem::PathProblem;
use crate::shrink::ShrinkCause;
use crate::untouched::Untouched;

/// What kind of ending an error is, for the exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The settings cannot work: a bad seed, a missing browser, a database of another site.
    Usage,
    /// Another run holds the output directory or the crawl database.
    Locked,
    /// The run was stopped by its owner (a signal, a fleet) before it published.
    Stopped,
    /// The run could not finish: nothing published.
    Fatal,
    /// The sitemaps are published, but what follows failed (the change report, recording the
    /// run): the run is recorded as failed, so that the next run's change report holds its
    /// changes.
    AfterPublishing,
    /// The run found the site on a bad night: it would have made the sitemap worse, so it
    /// published nothing (docs/design.md, Output).
    NotPublished,
}

/// Why a run ended without publishing (or, [`SiteError::AfterPublishing`], after).
#[derive(Debug, thiserror::Error)]
pub enum SiteError {
    /// The seed is not a URL the crawl can start from.
    #[error(transparent)]
    Seed(CrawlError),
    /// The browser the render mode needs is missing.
    #[error("--render {mode}: {error}")]
    Browser {
        /// The mode, as the flag names it.
        mode: &'static str,
        /// Why no browser could be used.
        error: BrowserMissing,
    },
    /// Another run holds a path this one needs, or it cannot be locked.
    #[error(transparent)]
    Lock(#[from] LockError),
    /// The crawl database belongs to another scope (docs/design.md, Safety).
    #[error(
        "the crawl database {database} belongs to {bound}, not {scope}: give each site its own --state file"
    )]
    OtherSite {
        /// The crawl database.
        database: PathBuf,
        /// The scope it belongs to.
        bound: String,
        /// This run's scope.
        scope: String,
    },
    /// XML that takes an index and children cannot be printed as one document.
    #[error(
        "--out -: {urls} URLs need {files} sitemap files and an index, which cannot be printed as one document; give --out DIR, or --format txt"
    )]
    IndexOnStdout {
        /// The URLs listed.
        urls: u64,
        /// The sitemap files they need.
        files: usize,
    },
    /// The crawl could not go on.
    #[error("{error}{}", untouched.after("; "))]
    Crawl {
        /// Why.
        error: CrawlError,
        /// What was left as it was.
        untouched: Untouched,
    },
    /// The run was stopped before it published.
    #[error("{}", stopped_line("stopped", *.pages, *.requests, .untouched, .state))]
    Stopped {
        /// Pages visited.
        pages: u64,
        /// Requests made.
        requests: u64,
        /// What was left as it was.
        untouched: Untouched,
        /// The crawl database that keeps what was crawled, when it is the user's.
        state: Option<PathBuf>,
    },
    /// Queued URLs were lost: the crawl is incomplete.
    #[error(
        "{lost} queued URLs could not be read back from the crawl database {}: the crawl is incomplete, nothing published{}",
        database.display(),
        untouched.after(", ")
    )]
    UrlsLost {
        /// How many.
        lost: u64,
        /// The crawl database.
        database: PathBuf,
        /// What was left as it was.
        untouched: Untouched,
    },
    /// Nothing turned out listable.
    #[error("no indexable page found under {scope}{why}{}", untouched.after("; "))]
    NothingListed {
        /// The crawl's scope.
        scope: String,
        /// Why, when the run knows: ` (...)`, or empty.
        why: String,
        /// What was left as it was.
        untouched: Untouched,
    },
    /// Publishing would lose more of what the output directory publishes than `--max-shrink`
    /// allows.
    #[error(
        "not published: {} of {} would go ({}); --max-shrink 100 publishes anyway{}",
        sitemapper_audit::thousands(*.gone),
        count_grouped(*.published, "URL"),
        main_causes(.causes),
        untouched.after("; ")
    )]
    WouldShrink {
        /// Published URLs the new list lacks.
        gone: u64,
        /// URLs published now.
        published: u64,
        /// Why they would go, most first.
        causes: Vec<(ShrinkCause, u64)>,
        /// What was left as it was.
        untouched: Untouched,
    },
    /// Most requests failed in a way that may pass: the site had a bad night.
    #[error(
        "not published: {} of {} requested failed and may pass ({}): the site looks down or overloaded, so this is a failed run, not a smaller site; --max-shrink 100 publishes anyway{}",
        sitemapper_audit::thousands(*.failed),
        count_grouped(*.requested, "URL"),
        transient_causes(.causes),
        untouched.after("; ")
    )]
    MostlyFailed {
        /// Requests that failed so, after their retries.
        failed: u64,
        /// URLs requested.
        requested: u64,
        /// How they failed, most first.
        causes: Vec<(TransientCause, u64)>,
        /// What was left as it was.
        untouched: Untouched,
    },
    /// A path the run would write cannot be written, found before any request.
    #[error("cannot write {option} {}: {problem}", path.display())]
    Unwritable {
        /// The option that names the path.
        option: &'static str,
        /// The path.
        path: PathBuf,
        /// Why, said once (not again as a source).
        problem: PathProblem,
    },
    /// The sitemaps are published, but the run failed after publishing them.
    #[error(
        "the sitemaps are published, but the run is recorded as failed (the next run's change report includes its changes)"
    )]
    AfterPublishing(#[source] Box<SiteError>),
    /// A file or directory could not be read or written.
    #[error("{doing}")]
    Io {
        /// What was being done, naming the path.
        doing: String,
        /// What the system said.
        #[source]
        source: std::io::Error,
    },
    /// A CSV file could not be written.
    #[error("{doing}")]
    Csv {
        /// What was being done, naming the path.
        doing: String,
        /// What the writer said.
        #[source]
        source: csv::Error,
    },
    /// A JSON file could not be written.
    #[error("{doing}")]
    Json {
        /// What was being done, naming the path.
        doing: String,
        /// What the encoder said.
        #[source]
        source: serde_json::Error,
    },
    /// The crawl database failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// Writing or publishing the sitemaps failed.
    #[error(transparent)]
    Sitemap(#[from] SitemapError),
    /// The thread that writes the crawl database stopped.
    #[error("the crawl database writer stopped unexpectedly")]
    RecorderLost,
    /// The async runtime could not start.
    #[error("cannot start the async runtime")]
    Runtime(#[source] std::io::Error),
}

impl SiteError {
    /// What kind of ending this is.
    pub fn kind(&self) -> ErrorKind {
        match self {
            SiteError::Seed(_)
            | SiteError::Store(StoreError::Foreign { .. } | StoreError::Link { .. })
            | SiteError::Browser { .. }
            | SiteError::OtherSite { .. }
            | SiteError::IndexOnStdout { .. }
            | SiteError::Unwritable { .. } => ErrorKind::Usage,
            SiteError::Lock(LockError::Busy(_)) => ErrorKind::Locked,
            SiteError::Stopped { .. } => ErrorKind::Stopped,
            SiteError::AfterPublishing(_) => ErrorKind::AfterPublishing,
            SiteError::WouldShrink { .. } | SiteError::MostlyFailed { .. } => {
                ErrorKind::NotPublished
            }
            SiteError::Lock(LockError::Io { .. })
            | SiteError::Crawl { .. }
            | SiteError::UrlsLost { .. }
            | SiteError::NothingListed { .. }
            | SiteError::Io { .. }
            | SiteError::Csv { .. }
            | SiteError::Json { .. }
            | SiteError::Store(_)
            | SiteError::Sitemap(_)
            | SiteError::RecorderLost
            | SiteError::Runtime(_) => ErrorKind::Fatal,
        }
    }

    /// The error line of a stopped run, saying `how` it was stopped ("interrupted"); `None`
    /// for any other error.
    pub fn stopped_line(&self, how: &str) -> Option<String> {
        match self {
            SiteError::Stopped {
                pages,
                requests,
                untouched,
                state,
            } => Some(stopped_line(how, *pages, *requests, untouched, state)),
            _ => None,
        }
    }

    /// An I/O error, with what was being done.
    pub(crate) fn io(doing: impl Into<String>) -> impl FnOnce(std::io::Error) -> SiteError {
        let doing = doing.into();
        move |source| SiteError::Io { doing, source }
    }
}

/// The three main causes, `398 answered 503, 12 were not found this time`.
fn main_causes(causes: &[(ShrinkCause, u64)]) -> String {
    causes
        .iter()
        .take(3)
        .map(|(cause, count)| format!("{} {cause}", sitemapper_audit::thousands(*count)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `503: 12, timeout: 2`.
fn transient_causes(causes: &[(TransientCause, u64)]) -> String {
    causes
        .iter()
        .map(|(cause, count)| format!("{cause}: {}", sitemapper_audit::thousands(*count)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The error line of a stopped run: how, how far it went, and where its pages are kept.
fn stopped_line(
    how: &str,
    pages: u64,
    requests: u64,
    untouched: &Untouched,
    state: &Option<PathBuf>,
) -> String {
    let kept = match state {
        Some(path) => format!(
            "; what was crawled is in {} (continue with --resume)",
            path.display()
        ),
        None => String::new(),
    };
    format!(
        "{how} after {} and {}: nothing published{}{kept}",
        count(pages, "page"),
        count(requests, "request"),
        untouched.after(", ")
    )
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use sitemapper_crawl::CrawlConfig;

    use crate::lock::BusyPath;
    use crate::output_target::OutputTarget;
    use crate::settings::SiteSettings;

    use super::*;

    /// What a failed run publishing to `out` leaves as it was.
    fn untouched(out: OutputTarget) -> Untouched {
        SiteSettings::new("https://e.com/", out, CrawlConfig::default()).untouched()
    }

    fn stopped(state: Option<&str>) -> SiteError {
        SiteError::Stopped {
            pages: 12,
            requests: 15,
            untouched: Untouched::Sitemap(Path::new("/srv/www").join("sitemap.xml")),
            state: state.map(PathBuf::from),
        }
    }

    #[test]
    fn each_error_is_the_kind_of_ending_its_exit_code_reports() {
        let cases = [
            (
                SiteError::Seed(CrawlError::InvalidSeed {
                    url: "e com".to_string(),
                }),
                ErrorKind::Usage,
            ),
            (
                SiteError::Browser {
                    mode: "always",
                    error: BrowserMissing::NotFound,
                },
                ErrorKind::Usage,
            ),
            (
                SiteError::OtherSite {
                    database: "/var/lib/crawl.db".into(),
                    bound: "https://e.com/".to_string(),
                    scope: "https://other.example/".to_string(),
                },
                ErrorKind::Usage,
            ),
            (
                SiteError::IndexOnStdout { urls: 3, files: 3 },
                ErrorKind::Usage,
            ),
            (
                SiteError::Lock(LockError::Busy(BusyPath {
                    path: "/srv/www".to_string(),
                    holder: None,
                })),
                ErrorKind::Locked,
            ),
            // A path that cannot be locked at all is not another run holding it.
            (
                SiteError::Lock(LockError::Io {
                    path: "/srv/www".to_string(),
                    source: std::io::Error::other("permission denied"),
                }),
                ErrorKind::Fatal,
            ),
            (stopped(None), ErrorKind::Stopped),
            (
                SiteError::Crawl {
                    error: CrawlError::SeedUnreachable {
                        url: "https://e.com/".to_string(),
                        reason: "connection refused".to_string(),
                    },
                    untouched: untouched(OutputTarget::Stdout),
                },
                ErrorKind::Fatal,
            ),
            (
                SiteError::NothingListed {
                    scope: "https://e.com/".to_string(),
                    why: String::new(),
                    untouched: untouched(OutputTarget::Stdout),
                },
                ErrorKind::Fatal,
            ),
            (
                SiteError::UrlsLost {
                    lost: 4,
                    database: "/var/lib/crawl.db".into(),
                    untouched: untouched(OutputTarget::Stdout),
                },
                ErrorKind::Fatal,
            ),
            (SiteError::RecorderLost, ErrorKind::Fatal),
            (
                SiteError::Unwritable {
                    option: "--report-changes",
                    path: "/srv/file/changes.json".into(),
                    problem: PathProblem::NotADirectory("/srv/file".into()),
                },
                ErrorKind::Usage,
            ),
            (
                SiteError::AfterPublishing(Box::new(SiteError::io(
                    "cannot write the change report /srv/changes.json",
                )(std::io::Error::other(
                    "no space left on device",
                )))),
                ErrorKind::AfterPublishing,
            ),
            (
                SiteError::io("cannot create output directory /srv/www")(std::io::Error::other(
                    "read-only file system",
                )),
                ErrorKind::Fatal,
            ),
        ];
        for (error, kind) in cases {
            assert_eq!(error.kind(), kind, "{error:?}");
        }
    }

    #[test]
    fn a_stopped_run_says_how_far_it_went_what_it_left_and_where_to_resume_from() {
        let error = stopped(Some("/var/lib/crawl.db"));
        let sitemap = Path::new("/srv/www").join("sitemap.xml");
        let database = Path::new("/var/lib/crawl.db");
        assert_eq!(
            error.stopped_line("interrupted").as_deref(),
            Some(
                format!(
                    "interrupted after 12 pages and 15 requests: nothing published, {} left as it was; what was crawled is in {} (continue with --resume)",
                    sitemap.display(),
                    database.display()
                )
                .as_str()
            )
        );
        assert_eq!(
            error.to_string(),
            format!(
                "stopped after 12 pages and 15 requests: nothing published, {} left as it was; what was crawled is in {} (continue with --resume)",
                sitemap.display(),
                database.display()
            ),
            "displayed, the error says it was stopped"
        );
    }

    #[test]
    fn a_stopped_run_on_a_temporary_database_names_no_database_to_resume_from() {
        let error = SiteError::Stopped {
            pages: 1,
            requests: 2,
            untouched: untouched(OutputTarget::Stdout),
            state: None,
        };
        assert_eq!(
            error.stopped_line("interrupted").as_deref(),
            Some("interrupted after 1 page and 2 requests: nothing published, nothing printed")
        );
    }

    #[test]
    fn a_failed_run_says_it_left_the_sitemap_as_it_was_only_when_there_is_one() {
        let out = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
        let unreachable = || CrawlError::SeedUnreachable {
            url: "https://e.com/".to_string(),
            reason: "cannot resolve e.com: check the host name".to_string(),
        };
        let first = SiteError::Crawl {
            error: unreachable(),
            untouched: untouched(OutputTarget::Path(out.path().to_path_buf())),
        };
        assert_eq!(
            first.to_string(),
            "cannot reach https://e.com/: cannot resolve e.com: check the host name",
            "a first run has nothing to leave as it was"
        );
        let sitemap = out.path().join("sitemap.xml");
        std::fs::write(&sitemap, "<urlset/>").unwrap_or_else(|error| panic!("{error}"));
        let again = SiteError::Crawl {
            error: unreachable(),
            untouched: untouched(OutputTarget::Path(out.path().to_path_buf())),
        };
        assert_eq!(
            again.to_string(),
            format!(
                "cannot reach https://e.com/: cannot resolve e.com: check the host name; {} left as it was",
                sitemap.display()
            )
        );
        let stopped = SiteError::Stopped {
            pages: 1,
            requests: 2,
            untouched: Untouched::Nothing,
            state: None,
        };
        assert_eq!(
            stopped.to_string(),
            "stopped after 1 page and 2 requests: nothing published"
        );
    }

    #[test]
    fn a_text_only_run_keeps_its_text_sitemap() {
        let out = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
        let text = out.path().join("sitemap.txt");
        std::fs::write(&text, "https://e.com/\n").unwrap_or_else(|error| panic!("{error}"));
        let mut settings = SiteSettings::new(
            "https://e.com/",
            OutputTarget::Path(out.path().to_path_buf()),
            CrawlConfig::default(),
        );
        assert_eq!(settings.untouched(), Untouched::Nothing, "XML is written");
        settings.formats = vec![sitemapper_sitemap::Format::Text];
        assert_eq!(settings.untouched(), Untouched::Sitemap(text));
    }

    #[test]
    fn an_unwritable_path_says_why_once() {
        let error = SiteError::Unwritable {
            option: "--state",
            path: "/srv/missing/crawl.db".into(),
            problem: PathProblem::MissingDirectory("/srv/missing".into()),
        };
        assert_eq!(
            error.to_string(),
            "cannot write --state /srv/missing/crawl.db: the directory /srv/missing does not exist: create it first"
        );
        assert!(
            std::error::Error::source(&error).is_none(),
            "no source repeats it"
        );
    }

    #[test]
    fn only_a_stopped_run_has_a_stopped_line() {
        assert_eq!(SiteError::RecorderLost.stopped_line("interrupted"), None);
        assert_eq!(
            SiteError::Lock(LockError::Busy(BusyPath {
                path: "/srv/www".to_string(),
                holder: None,
            }))
            .stopped_line("interrupted"),
            None
        );
    }
}
