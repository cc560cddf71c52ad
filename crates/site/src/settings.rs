//! What one site's run needs, resolved: the crawl's configuration and where and how the run
//! publishes. The binary fills it from flags, the environment and the config file; a program
//! that embeds the run fills it itself, from [`SiteSettings::new`].

use std::path::{Path, PathBuf};
use std::time::Duration;

use sitemapper_crawl::CrawlConfig;
use sitemapper_sitemap::{Format, Limits, SplitRule};

use crate::changes::IndexNow;

/// Where a run writes something asked of it: a path, or stdout (`-`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OutputTarget {
    /// A file or directory.
    Path(PathBuf),
    /// The process's standard output.
    Stdout,
}

impl OutputTarget {
    /// `-` is stdout; anything else a path.
    pub fn from_path(path: PathBuf) -> OutputTarget {
        if path.as_os_str() == "-" {
            OutputTarget::Stdout
        } else {
            OutputTarget::Path(path)
        }
    }

    /// The path, unless stdout.
    pub fn path(&self) -> Option<&Path> {
        match self {
            OutputTarget::Path(path) => Some(path),
            OutputTarget::Stdout => None,
        }
    }
}

impl std::fmt::Display for OutputTarget {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OutputTarget::Path(path) => write!(formatter, "{}", path.display()),
            OutputTarget::Stdout => formatter.write_str("stdout"),
        }
    }
}

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
    /// Whom to tell of what changed.
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
    /// How `<priority>` is derived, if at all.
    pub priority: Option<PriorityRule>,
    /// How `<changefreq>` is derived, if at all.
    pub changefreq: Option<ChangefreqRule>,
    /// How pages are rendered.
    pub render: RenderSettings,
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
            priority: None,
            changefreq: None,
            render: RenderSettings::default(),
        }
    }

    /// What a failed run did not touch, for its error line.
    pub fn untouched(&self) -> Untouched {
        Untouched(self.out.clone())
    }
}

/// What a run that failed left as it was: the published sitemap, or (with stdout) nothing
/// printed. Displayed as the end of an error line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Untouched(OutputTarget);

impl std::fmt::Display for Untouched {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.0 {
            OutputTarget::Path(directory) => write!(
                formatter,
                "{} left as it was",
                directory.join(sitemapper_sitemap::ROOT_FILE_NAME).display()
            ),
            OutputTarget::Stdout => formatter.write_str("nothing printed"),
        }
    }
}
