//! The documentation benchmark: the Rust toolchain's own documentation (the `rust-docs`
//! component, `share/doc/rust/html` under `rustc --print sysroot`, or `--docs-dir`), served by
//! nginx from where it lies and crawled as a user would, seeded at a site's directory: three
//! mdBook books (`book/`, `cargo/`, `reference/`), whose sidebar a script draws into an empty
//! custom element, and a crate's API documentation by rustdoc (`alloc/`), whose toolbar and
//! module sidebar scripts fill. Each with `--render auto` (the default) and `--render never`.
//! These are generated static sites whose pages link to each other: rendering has nothing to
//! add, so both modes should list the same URLs and `auto` should cost little more than
//! `never`. Modes and binaries take turns, each leading in turn, run by run; a crawl still
//! running at the time limit is stopped and counted as stopped.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use anyhow::Context;

use crate::binary::{Binary, say};
use crate::crawl_run::{self, CrawlEnd, Stopped};
use crate::nginx::Nginx;
use crate::render::{RenderSettings, render_arguments};

/// A site of the documentation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct DocsSite {
    /// Its directory under the html directory: the seed is `/DIRECTORY/`, and its scope.
    pub directory: &'static str,
    /// What generated it.
    pub generator: &'static str,
}

/// The sites crawled, in order.
pub(crate) const SITES: [DocsSite; 4] = [
    DocsSite {
        directory: "book",
        generator: "mdBook",
    },
    DocsSite {
        directory: "cargo",
        generator: "mdBook",
    },
    DocsSite {
        directory: "reference",
        generator: "mdBook",
    },
    DocsSite {
        directory: "alloc",
        generator: "rustdoc",
    },
];

/// How the documentation is crawled.
#[derive(Debug, Clone)]
pub(crate) struct DocsSettings {
    pub render: RenderSettings,
    /// How long one crawl may run before it is stopped.
    pub limit: Duration,
    /// The html directory, when given; else the toolchain's.
    pub directory: Option<PathBuf>,
}

/// The `--render` modes compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    Auto,
    Never,
}

impl Mode {
    fn argument(self) -> &'static str {
        match self {
            Mode::Auto => "auto",
            Mode::Never => "never",
        }
    }
}

/// One mode's runs of one site by one binary.
#[derive(Debug, Clone, Default)]
pub(crate) struct ModeRuns {
    /// The wall time of each run that finished.
    pub walls: Vec<Duration>,
    /// The runs stopped at the time limit.
    pub stopped: Vec<Stopped>,
    /// The URLs each finished run listed.
    pub listed: Vec<BTreeSet<String>>,
    /// Pages visited, per run where known (a stopped run's, as far as it got).
    pub visited: Vec<u64>,
    /// Pages rendered, per finished run.
    pub rendered: Vec<u64>,
    /// The browser's peak memory, per finished run that started one.
    pub browser_peak_mib: Vec<f64>,
}

impl ModeRuns {
    fn record(&mut self, end: CrawlEnd) {
        match end {
            CrawlEnd::Finished(measure) => {
                let summary = &measure.summary;
                self.walls.push(measure.wall);
                self.visited.extend(summary.pages_visited);
                self.rendered.push(summary.rendered_pages());
                self.browser_peak_mib.extend(summary.browser_peak_mib);
                self.listed.push(measure.listed);
            }
            CrawlEnd::Stopped(stopped) => {
                self.visited.extend(stopped.pages);
                self.stopped.push(stopped);
            }
        }
    }
}

/// One site crawled by one binary in both modes.
#[derive(Debug, Clone)]
pub(crate) struct SiteResult {
    pub site: DocsSite,
    /// HTML files under the site's directory.
    pub html_files: usize,
    /// Which sitemapper binary crawled (`this build`, `before`).
    pub binary: String,
    pub auto: ModeRuns,
    pub never: ModeRuns,
}

/// The benchmark's results.
#[derive(Debug, Clone)]
pub(crate) struct DocsResult {
    /// The html directory served.
    pub directory: PathBuf,
    pub settings: DocsSettings,
    pub sites: Vec<SiteResult>,
}

/// Crawls every site of the documentation with each of `binaries`; `None`, said why, when
/// the documentation or nginx is missing.
pub(crate) fn run(
    binaries: &[Binary],
    settings: &DocsSettings,
) -> anyhow::Result<Option<DocsResult>> {
    let Some(directory) = docs_directory(settings.directory.as_deref())? else {
        return Ok(None);
    };
    let Some(nginx_binary) = Nginx::binary() else {
        say("docs: skipped, nginx is not installed (Debian: apt-get install nginx-light)");
        return Ok(None);
    };
    let nginx = Nginx::serve(&nginx_binary, &directory)?;
    say(&format!(
        "docs: serving {} at {}",
        directory.display(),
        nginx.url("/")
    ));
    let mut sites = Vec::new();
    for site in SITES {
        let root = directory.join(site.directory);
        if !root.join("index.html").is_file() {
            say(&format!(
                "docs, {}: skipped, {} has no index.html",
                site.directory,
                root.display()
            ));
            continue;
        }
        let html_files = count_html_files(&root)?;
        sites.extend(crawl_site(
            binaries,
            settings,
            site,
            html_files,
            &nginx.url(&format!("/{}/", site.directory)),
        )?);
    }
    Ok(Some(DocsResult {
        directory,
        settings: settings.clone(),
        sites,
    }))
}

/// The html directory to serve: `explicit` (which must be a directory), else the toolchain's;
/// `None`, said why, when the toolchain has none.
fn docs_directory(explicit: Option<&Path>) -> anyhow::Result<Option<PathBuf>> {
    if let Some(directory) = explicit {
        anyhow::ensure!(
            directory.is_dir(),
            "--docs-dir {}: not a directory",
            directory.display()
        );
        return Ok(Some(directory.to_path_buf()));
    }
    let output = match Command::new("rustc").args(["--print", "sysroot"]).output() {
        Ok(output) if output.status.success() => output,
        _ => {
            say(
                "docs: skipped, `rustc --print sysroot` failed: give the html directory with --docs-dir",
            );
            return Ok(None);
        }
    };
    let sysroot = String::from_utf8_lossy(&output.stdout).trim().to_string();
    let directory = Path::new(&sysroot).join("share/doc/rust/html");
    if directory.is_dir() {
        Ok(Some(directory))
    } else {
        say(&format!(
            "docs: skipped, {} is absent: install it with `rustup component add rust-docs`, or give an html directory with --docs-dir",
            directory.display()
        ));
        Ok(None)
    }
}

/// Crawls one site from `seed` in both modes with each binary, `settings.render.runs` times.
fn crawl_site(
    binaries: &[Binary],
    settings: &DocsSettings,
    site: DocsSite,
    html_files: usize,
    seed: &str,
) -> anyhow::Result<Vec<SiteResult>> {
    let what = format!("docs, {}", site.directory);
    let runs = crawl_modes(binaries, settings, &what, seed, &[])?;
    Ok(runs
        .into_iter()
        .map(|runs| SiteResult {
            site,
            html_files,
            binary: runs.binary,
            auto: runs.auto,
            never: runs.never,
        })
        .collect())
}

/// One binary's runs of a site in both modes.
#[derive(Debug, Clone)]
pub(crate) struct BinaryRuns {
    /// Which sitemapper binary crawled (`this build`, `before`).
    pub binary: String,
    pub auto: ModeRuns,
    pub never: ModeRuns,
}

impl BinaryRuns {
    fn runs_mut(&mut self, mode: Mode) -> &mut ModeRuns {
        match mode {
            Mode::Auto => &mut self.auto,
            Mode::Never => &mut self.never,
        }
    }
}

/// Crawls `seed` in both modes with each binary, `settings.render.runs` times, with `extra`
/// arguments; `what` names the site in the lines said as it goes.
pub(crate) fn crawl_modes(
    binaries: &[Binary],
    settings: &DocsSettings,
    what: &str,
    seed: &str,
    extra: &[String],
) -> anyhow::Result<Vec<BinaryRuns>> {
    let mut results: Vec<BinaryRuns> = binaries
        .iter()
        .map(|binary| BinaryRuns {
            binary: binary.label.clone(),
            auto: ModeRuns::default(),
            never: ModeRuns::default(),
        })
        .collect();
    let turns: Vec<(usize, Mode)> = (0..binaries.len())
        .flat_map(|index| [(index, Mode::Auto), (index, Mode::Never)])
        .collect();
    for run in 0..settings.render.runs.max(1) {
        // Every binary and mode in turn, the lead moving on by one each run, so that drift
        // in the machine's load hits all of them.
        for turn in 0..turns.len() {
            let (index, mode) = turns[(run + turn) % turns.len()];
            let binary = &binaries[index];
            let mut arguments = render_arguments(mode.argument(), settings.render).to_vec();
            arguments.extend_from_slice(extra);
            let end = crawl_run::crawl_within(
                &binary.path,
                seed,
                settings.render.concurrency,
                &arguments,
                settings.limit,
            )
            .with_context(|| format!("crawl {seed} with --render {}", mode.argument()))?;
            say_run(what, run, mode, binary, &end);
            results[index].runs_mut(mode).record(end);
        }
    }
    Ok(results)
}

fn say_run(what: &str, run: usize, mode: Mode, binary: &Binary, end: &CrawlEnd) {
    let what = format!(
        "{what}, run {}, --render {}, {}",
        run + 1,
        mode.argument(),
        binary.label
    );
    match end {
        CrawlEnd::Finished(measure) => {
            let summary = &measure.summary;
            let browser = summary
                .browser_peak_mib
                .map_or("no browser".to_string(), |peak| {
                    format!(
                        "{} pages rendered, browser {peak:.1} MiB",
                        summary.rendered_pages()
                    )
                });
            say(&format!(
                "{what}: {:.2} s, {} pages visited, {} listed; {browser}",
                measure.wall.as_secs_f64(),
                summary
                    .pages_visited
                    .map_or("?".to_string(), |pages| pages.to_string()),
                measure.listed.len(),
            ));
        }
        CrawlEnd::Stopped(stopped) => say(&format!(
            "{what}: stopped after {:.0} s, {} pages visited",
            stopped.after.as_secs_f64(),
            stopped
                .pages
                .map_or("?".to_string(), |pages| pages.to_string())
        )),
    }
}

/// The `.html` files under `root`.
pub(crate) fn count_html_files(root: &Path) -> anyhow::Result<usize> {
    let mut count = 0;
    let mut directories = vec![root.to_path_buf()];
    while let Some(directory) = directories.pop() {
        for entry in std::fs::read_dir(&directory)
            .with_context(|| format!("read {}", directory.display()))?
        {
            let entry = entry?;
            let kind = entry.file_type()?;
            if kind.is_dir() {
                directories.push(entry.path());
            } else if entry
                .path()
                .extension()
                .is_some_and(|extension| extension == "html")
            {
                count += 1;
            }
        }
    }
    Ok(count)
}
