//! What one site's run needs, resolved: the crawl's configuration and where and how the run
//! publishes. The binary fills it from flags, the environment and the config file; a program
//! that embeds the run fills it itself, from [`SiteSettings::new`].

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use sitemapper_crawl::CrawlConfig;
use sitemapper_sitemap::{Format, Limits, SplitRule};

use crate::error::SiteError;
use crate::indexnow::IndexNow;
use crate::output_target::OutputTarget;
use crate::path_problem::PathProblem;
use crate::shrink::{DEFAULT_KEEP_FAILED, DEFAULT_MAX_SHRINK};
use crate::untouched::Untouched;

/// How `<priority>` is derived (opt-in).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PriorityRule {
    /// 1.0 for the seed, 0.8 per click below.
    Depth,
}

/// How `<changefreq>` is derived (opt-in).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChangefreqRule {
    /// From the median interval between changes observed across runs.
    Observed,
}

/// How pages are rendered; the mode itself is in the crawl's configuration.
#[derive(Debug, Clone)]
pub struct RenderSettings {
    /// The browser named by the user; `None`: found on the machine.
    pub chrome: Option<PathBuf>,
    /// Pages rendered at once.
    pub tabs: usize,
    /// The longest one page may take to render.
    pub timeout: Duration,
}

impl Default for RenderSettings {
    fn default() -> RenderSettings {
        RenderSettings {
            chrome: None,
            tabs: sitemapper_render::DEFAULT_TABS,
            timeout: sitemapper_render::DEFAULT_TIMEOUT,
        }
    }
}

/// The news sitemap of a site.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewsSettings {
    /// The publication's name, as Google News knows it (`<news:name>`).
    pub publication: String,
    /// The language of pages that do not say theirs, in the news sitemap's form (`en`,
    /// `zh-cn`); `None`: such pages are left out.
    pub language: Option<String>,
}

/// Everything one site's run needs, resolved and checked.
#[derive(Debug)]
pub struct SiteSettings {
    /// The URL the crawl starts from, as given.
    pub seed: String,
    /// The directory the sitemaps are published in, or stdout.
    pub out: OutputTarget,
    /// The crawl database; `None`: a temporary one, removed at the end.
    pub state: Option<PathBuf>,
    /// The crawl's own configuration.
    pub crawl: CrawlConfig,
    /// Write `.xml.gz` files.
    pub gzip: bool,
    /// `None`: the scope's directory once the crawl knows it (after a seed redirect).
    pub base_url: Option<String>,
    /// The largest file, in URLs and bytes.
    pub limits: Limits,
    /// Continue the crawl database's interrupted run.
    pub resume: bool,
    /// Where the JSON report of what changed goes.
    pub report_changes: Option<OutputTarget>,
    /// Where the CSV of every URL not listed goes.
    pub list_not_listed: Option<OutputTarget>,
    /// Whom to tell of what changed, when the run publishes its sitemaps.
    pub indexnow: Option<IndexNow>,
    /// The formats to write, without repeats, XML first.
    pub formats: Vec<Format>,
    /// The groups of files.
    pub split: SplitRule,
    /// Whether the output directory is where the site serves its sitemaps (a crawl; not an
    /// audit's report directory): then what earlier runs published there is not a seed.
    pub publishes_sitemaps: bool,
    /// `<image:image>` entries.
    pub images: bool,
    /// `<xhtml:link rel="alternate" hreflang>` entries.
    pub hreflang: bool,
    /// `<video:video>` entries, from each page's structured data (which the run has the crawl
    /// read).
    pub video: bool,
    /// The news sitemap, when one is written (the run has the crawl read structured data, and
    /// each page's language).
    pub news: Option<NewsSettings>,
    /// How `<priority>` is derived, if at all.
    pub priority: Option<PriorityRule>,
    /// How `<changefreq>` is derived, if at all.
    pub changefreq: Option<ChangefreqRule>,
    /// How pages are rendered.
    pub render: RenderSettings,
    /// The runs in a row a URL the last complete run listed may fail in a way that may pass
    /// (5xx, 429, a timeout, a connection) and stay listed with its previous entry; the next
    /// failing run drops it. 0: such a URL is dropped at once. Needs a crawl database.
    pub keep_failed: u32,
    /// The most of what the output directory publishes now that a run may lose, in percent:
    /// a run that would lose more (and at least [`crate::MIN_SHRINK_URLS`]) publishes
    /// nothing. 100: whatever it loses, the run publishes.
    pub max_shrink: u8,
}

impl SiteSettings {
    /// A run of `seed` that publishes into `out` with every default: one XML sitemap (and an
    /// index when it needs several files), a temporary crawl database, no rendering browser
    /// unless the crawl configuration asks for one.
    pub fn new(seed: impl Into<String>, out: OutputTarget, crawl: CrawlConfig) -> SiteSettings {
        SiteSettings {
            seed: seed.into(),
            out,
            state: None,
            crawl,
            gzip: false,
            base_url: None,
            limits: Limits::default(),
            resume: false,
            report_changes: None,
            list_not_listed: None,
            indexnow: None,
            formats: vec![Format::Xml],
            split: SplitRule::None,
            publishes_sitemaps: true,
            images: false,
            hreflang: false,
            video: false,
            news: None,
            priority: None,
            changefreq: None,
            render: RenderSettings::default(),
            keep_failed: DEFAULT_KEEP_FAILED,
            max_shrink: DEFAULT_MAX_SHRINK,
        }
    }

    /// What a failed run did not touch, for its error line: the root file of the first
    /// format an earlier run published into the output directory, if any.
    pub fn untouched(&self) -> Untouched {
        let Some(directory) = self.out.path() else {
            return Untouched::NothingPrinted;
        };
        self.formats
            .iter()
            .map(|format| match format {
                Format::Xml => directory.join(sitemapper_sitemap::ROOT_FILE_NAME),
                Format::Text => directory.join(sitemapper_sitemap::TEXT_ROOT_FILE_NAME),
            })
            .find(|path| path.is_file())
            .map_or(Untouched::Nothing, Untouched::Sitemap)
    }

    /// Finds, before any request, a path the run could not write: the output directory
    /// (created when missing), the crawl database, the change report, the list of URLs not
    /// listed. A path under a regular file, in a missing directory or in one the user cannot
    /// write is refused now, rather than after the crawl (the change report, after the
    /// sitemaps are published). Nothing is left behind: each directory takes a probe file,
    /// removed at once, so that the run touches nothing another run might be using.
    pub(crate) fn check_outputs(&self) -> Result<(), SiteError> {
        if let Some(directory) = self.out.path() {
            writable_directory("--out", directory)?;
        }
        if let Some(database) = &self.state {
            writable_file("--state", database, Writing::InPlace)?;
        }
        if let Some(OutputTarget::Path(path)) = &self.report_changes {
            writable_file("--report-changes", path, Writing::RenamedIntoPlace)?;
        }
        if let Some(OutputTarget::Path(path)) = &self.list_not_listed {
            writable_file("--list-not-listed", path, Writing::RenamedIntoPlace)?;
        }
        Ok(())
    }
}

/// Creates `directory` when missing, and checks that a file can be written in it: for the
/// output directory, and for other directories a program writes besides the run's (an
/// audit's report). `option` names the path in the error.
pub fn writable_directory(option: &'static str, directory: &Path) -> Result<(), SiteError> {
    let unwritable = |error: std::io::Error| SiteError::Unwritable {
        option,
        path: directory.to_path_buf(),
        problem: PathProblem::of(&error, directory),
    };
    std::fs::create_dir_all(directory).map_err(unwritable)?;
    probe(directory).map_err(unwritable)
}

/// Creates the directory a program keeps its crawl databases in (a fleet's `--state-dir`)
/// when missing, readable by this user alone (0700), and refuses one that another user owns
/// or may write in (docs/design.md, Safety): whoever made a predictable name in a shared temp
/// directory first would get every site's database, or could swap them. `option` names the
/// path in the error.
pub fn private_directory(option: &'static str, directory: &Path) -> Result<(), SiteError> {
    use std::os::unix::fs::{DirBuilderExt, MetadataExt};
    let refused = |problem| SiteError::Unwritable {
        option,
        path: directory.to_path_buf(),
        problem,
    };
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(directory)
        .map_err(|error| refused(PathProblem::of(&error, directory)))?;
    let metadata = std::fs::metadata(directory)
        .map_err(|error| refused(PathProblem::of(&error, directory)))?;
    if metadata.uid() != rustix::process::geteuid().as_raw() || metadata.mode() & 0o022 != 0 {
        return Err(refused(PathProblem::NotPrivate));
    }
    probe(directory).map_err(|error| refused(PathProblem::of(&error, directory)))
}

/// Checks that a file a program writes besides the run's (an audit's `--sarif`) can be
/// written at `path`: its directory exists and takes a file, and a file already there opens
/// for writing. `option` names the path in the error.
pub fn writable_output_file(option: &'static str, path: &Path) -> Result<(), SiteError> {
    writable_file(option, path, Writing::InPlace)
}

/// How a file is written, which says what must be writable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Writing {
    /// A new file renamed over the old one: only the directory must take a file.
    RenamedIntoPlace,
    /// The file itself opened for writing (SQLite, a CSV written as it goes), and its
    /// directory too (SQLite's journal).
    InPlace,
}

/// Checks that the file `path` can be written as `writing` says.
fn writable_file(option: &'static str, path: &Path, writing: Writing) -> Result<(), SiteError> {
    let directory = path
        .parent()
        .filter(|parent| !parent.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let unwritable = |problem| SiteError::Unwritable {
        option,
        path: path.to_path_buf(),
        problem,
    };
    if path.is_dir() {
        return Err(unwritable(PathProblem::IsADirectory));
    }
    probe(directory).map_err(|error| unwritable(PathProblem::of(&error, directory)))?;
    if writing == Writing::InPlace && path.exists() {
        // Opened without truncating: nothing in it changes.
        std::fs::OpenOptions::new()
            .write(true)
            .open(path)
            .map_err(|error| unwritable(PathProblem::of(&error, directory)))?;
    }
    Ok(())
}

/// The probes this process has made: each one's name is new.
static PROBES: AtomicU64 = AtomicU64::new(0);

/// Creates a file in `directory` and removes it: the directory exists, is one, and takes
/// new files. The name is this process's and this probe's own, and the file is created only
/// if it does not exist (never through a link someone left there); a name taken (a link
/// planted at a name a PID makes easy to guess) is passed over for the next. The error is
/// the system's alone, without the probe's name.
fn probe(directory: &Path) -> std::io::Result<()> {
    let mut attempts = 0;
    loop {
        let name = format!(
            ".sitemapper-probe-{}-{}",
            std::process::id(),
            PROBES.fetch_add(1, Ordering::Relaxed)
        );
        let path = directory.join(name);
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
        {
            Ok(_) => return std::fs::remove_file(&path),
            Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists && attempts < 8 => {
                attempts += 1;
            }
            Err(error) => return Err(error),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::symlink;

    use super::*;

    #[test]
    fn the_probe_passes_over_links_planted_at_its_names_and_writes_through_none() {
        let directory = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
        let elsewhere = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
        let victim = elsewhere.path().join("victim");
        std::fs::write(&victim, "the victim's").unwrap_or_else(|error| panic!("{error}"));
        let next = PROBES.load(Ordering::Relaxed);
        for number in next..next + 3 {
            let name = format!(".sitemapper-probe-{}-{number}", std::process::id());
            symlink(&victim, directory.path().join(name)).unwrap_or_else(|error| panic!("{error}"));
        }
        probe(directory.path()).unwrap_or_else(|error| panic!("{error}"));
        assert_eq!(
            std::fs::read(&victim).unwrap_or_else(|error| panic!("{error}")),
            b"the victim's"
        );
        assert_eq!(
            std::fs::read_dir(directory.path())
                .unwrap_or_else(|error| panic!("{error}"))
                .count(),
            3,
            "the links stay, the probe's file is gone"
        );
    }
}
