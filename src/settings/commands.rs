//! The settings of the commands besides the crawl's: how much is said (every command), what
//! the audit adds to a crawl, what `runs` reads, and the summary's format.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::bail;
use sitemapper_extract::CustomExtraction;
use url::Url;

use sitemapper_audit::Severity;
use sitemapper_report::{Branding, PAGE_COLUMNS, Paper, PdfOptions, ReportOptions, read_logo};
use sitemapper_site::OutboundSettings;

use super::{ConfigFile, CrawlSettings, OutputTarget, absolute_url, list, switch};
use crate::cli::values::max_age;
use crate::cli::{
    AuditArgs, ColorName, ExplainArgs, McpArgs, PaperName, RunsArgs, SeverityName, SummaryFormat,
};

/// How much the binary says on stderr, and whether in colour.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Verbosity {
    pub(crate) quiet: bool,
    /// 0: warnings, 1: info (-v), 2: debug (-vv), 3 and more: trace.
    pub(crate) verbose: u8,
    pub(crate) color: ColorName,
}

impl Verbosity {
    /// `-q` or `quiet = true` silence all but errors; `-v` counts win over `verbose = N`.
    pub(crate) fn resolve(
        quiet: bool,
        verbose: u8,
        color: Option<ColorName>,
        file: &ConfigFile,
    ) -> Verbosity {
        let quiet = switch(quiet, file.quiet);
        Verbosity {
            quiet,
            verbose: if quiet || verbose > 0 {
                verbose
            } else {
                file.verbose.unwrap_or(0)
            },
            color: color.or(file.color).unwrap_or(ColorName::Auto),
        }
    }
}

/// What `sitemapper audit` runs: the crawl's settings as the audit needs them, and its own.
#[derive(Debug)]
pub(crate) struct AuditSettings {
    pub(crate) crawl: CrawlSettings,
    pub(crate) options: AuditOptions,
}

/// What the audit adds to the crawl's settings.
#[derive(Debug)]
pub(crate) struct AuditOptions {
    /// The report directory.
    pub(crate) report: PathBuf,
    pub(crate) thresholds: sitemapper_audit::Thresholds,
    pub(crate) fail_on: Option<Severity>,
    /// Whether the crawl database is the report's `crawl.db` (no `--state` given).
    pub(crate) database_in_report: bool,
    /// `--extract`: the names of the custom extractions, in the order given (pages.csv's
    /// columns after the fixed ones); the crawl's configuration has the extractions.
    pub(crate) extract_names: Vec<String>,
    /// `--sitemap`: the site's sitemaps to read; empty: look for them.
    pub(crate) sitemaps: Vec<Url>,
    /// `--title` and `--logo` (read and checked).
    pub(crate) branding: Branding,
    /// How the links to other sites are checked; `None`: they are not
    /// (`--check-external=false`).
    pub(crate) outbound: Option<OutboundSettings>,
    /// `--csv-bom`, `--sarif`, `--junit`, and `--pdf` on `--paper` (else the locale's) with
    /// the crawl's browser; JUnit fails at `--fail-on`, else at errors.
    pub(crate) files: ReportOptions,
}

impl AuditSettings {
    pub(crate) fn resolve(args: AuditArgs, mut file: ConfigFile) -> anyhow::Result<AuditSettings> {
        let Some(report) = args.report.or(file.report.take()) else {
            bail!("no report directory: give --report DIR (or `report` in the config file)");
        };
        let defaults = sitemapper_audit::Thresholds::default();
        let mut thresholds = sitemapper_audit::Thresholds {
            max_depth: args.deep.or(file.deep).unwrap_or(defaults.max_depth),
            slow_ms: args.slow.or(file.slow).unwrap_or(defaults.slow_ms),
            large_bytes: args.large.or(file.large).unwrap_or(defaults.large_bytes),
            ..defaults
        };
        // The file's thresholds, then the flags': a flag wins over the file.
        let file_thresholds = file.threshold.take().unwrap_or_default();
        thresholds
            .set_all(file_thresholds.iter().chain(&args.threshold))
            .map_err(anyhow::Error::msg)?;
        let fail_on = args.fail_on.or(file.fail_on);
        let out_chosen = args.crawl.out.is_some() || file.out.is_some();
        let extractions =
            custom_extractions(&list(args.extract, file.extract.take()).unwrap_or_default())?;
        let sitemaps = list(args.sitemap, file.sitemap.take())
            .unwrap_or_default()
            .iter()
            .map(|text| absolute_url("--sitemap", text))
            .collect::<anyhow::Result<Vec<Url>>>()?;
        let title = args.title.or(file.title.take());
        if title.as_ref().is_some_and(|title| title.trim().is_empty()) {
            bail!("--title must not be empty");
        }
        let logo = args
            .logo
            .or(file.logo.take())
            .map(|path| {
                read_logo(&path).map_err(|error| {
                    anyhow::anyhow!("cannot use --logo {}: {error}", path.display())
                })
            })
            .transpose()?;
        let pdf = switch(args.pdf, file.pdf);
        let sarif = args.sarif.or(file.sarif.take());
        let junit = args.junit.or(file.junit.take());
        let csv_bom = args.csv_bom.or(file.csv_bom).unwrap_or(true);
        let outbound = outbound_settings(
            OutboundArgs {
                check_external: args.check_external,
                timeout: args.external_timeout,
                max_age: args.external_max_age,
                max_links: args.external_max_links,
                max_time: args.external_max_time,
            },
            &mut file,
        )?;
        let paper = args.paper.or(file.paper).map_or_else(
            || Paper::of_locale(|name| std::env::var(name).ok()),
            PaperName::paper,
        );
        let fail_on = fail_on.map(SeverityName::severity);
        // An audit compares the crawl with the site's sitemaps, and checks the pages only
        // they lead to as well: it seeds from them unless told not to.
        let seed_sitemaps = args.crawl.seed_sitemaps.or(file.seed_sitemaps);
        // The audit keeps its crawl database beside the report unless --state names one:
        // an interrupted audit's `--resume` continues from there.
        let database_in_report = args.crawl.state.is_none() && file.state.is_none();
        let mut crawl_args = args.crawl;
        if database_in_report {
            crawl_args.state = Some(report.join("crawl.db"));
        }
        let mut crawl = CrawlSettings::resolve(crawl_args, file)?;
        let site = &mut crawl.site;
        site.crawl.seed_sitemaps = seed_sitemaps.unwrap_or(true);
        let extract_names = extractions
            .iter()
            .map(|extraction| extraction.name().to_string())
            .collect();
        site.crawl.extractions = extractions;
        // The audit keeps its database and the sitemap it would write beside the report, and
        // records everything the findings need.
        if !out_chosen {
            site.out = OutputTarget::Path(report.clone());
        }
        // A sitemap written beside the report is not published: whatever the site serves,
        // even at the URL the sitemap would name, is the site's own, to seed from and compare.
        site.publishes_sitemaps = out_chosen;
        sitemapper_report::crawl_for_audit(&mut site.crawl, &sitemaps);
        let files = ReportOptions {
            csv_bom,
            sarif,
            junit,
            failing: fail_on.unwrap_or(Severity::Error),
            pdf: pdf.then(|| PdfOptions {
                chrome: site.render.chrome.clone(),
                paper,
            }),
        };
        let options = AuditOptions {
            report,
            thresholds,
            fail_on,
            database_in_report,
            extract_names,
            sitemaps,
            branding: Branding { title, logo },
            outbound,
            files,
        };
        Ok(AuditSettings { crawl, options })
    }
}

/// The flags of the checks of links to other sites.
#[derive(Debug)]
struct OutboundArgs {
    check_external: Option<bool>,
    timeout: Option<f64>,
    max_age: Option<Duration>,
    max_links: Option<usize>,
    max_time: Option<f64>,
}

/// `--check-external`, `--external-timeout`, `--external-max-age`, `--external-max-links`
/// and `--external-max-time` (flags, then the config file, then the defaults): `None` when
/// the links to other sites are not checked.
fn outbound_settings(
    args: OutboundArgs,
    file: &mut ConfigFile,
) -> anyhow::Result<Option<OutboundSettings>> {
    if !args.check_external.or(file.check_external).unwrap_or(true) {
        return Ok(None);
    }
    let defaults = OutboundSettings::default();
    let timeout = match args.timeout.or(file.external_timeout) {
        Some(seconds) => super::seconds_option("external-timeout", seconds)?,
        None => defaults.timeout,
    };
    let max_age = match (args.max_age, file.external_max_age.take()) {
        (Some(max_age), _) => max_age,
        (None, Some(text)) => {
            max_age(&text).map_err(|error| anyhow::anyhow!("external-max-age: {error}"))?
        }
        (None, None) => defaults.max_age,
    };
    let max_time = match args.max_time.or(file.external_max_time) {
        Some(seconds) => super::seconds_option("external-max-time", seconds)?,
        None => defaults.max_time,
    };
    Ok(Some(OutboundSettings {
        timeout,
        max_age,
        max_links: args
            .max_links
            .or(file.external_max_links)
            .unwrap_or(defaults.max_links),
        max_time,
        ..defaults
    }))
}

/// `--extract NAME=SELECTOR[@attr]`, each parsed once. A name is a pages.csv column: it may
/// be neither one of the fixed columns nor given twice (ignoring case, as spreadsheets do).
fn custom_extractions(texts: &[String]) -> anyhow::Result<Vec<CustomExtraction>> {
    let mut extractions: Vec<CustomExtraction> = Vec::with_capacity(texts.len());
    for text in texts {
        let extraction = CustomExtraction::parse(text)
            .map_err(|error| anyhow::anyhow!("invalid --extract {text:?}: {error}"))?;
        let name = extraction.name();
        if PAGE_COLUMNS
            .iter()
            .any(|column| column.eq_ignore_ascii_case(name))
        {
            bail!("invalid --extract {text:?}: {name:?} is a column of pages.csv already");
        }
        if extractions
            .iter()
            .any(|earlier| earlier.name().eq_ignore_ascii_case(name))
        {
            bail!("invalid --extract {text:?}: the name {name:?} is given twice");
        }
        extractions.push(extraction);
    }
    Ok(extractions)
}

/// What `sitemapper runs` needs: the crawl database, and how to print its runs.
#[derive(Debug)]
pub(crate) struct RunsSettings {
    pub(crate) state: PathBuf,
    pub(crate) summary: SummaryFormat,
}

impl RunsSettings {
    pub(crate) fn resolve(args: RunsArgs, file: ConfigFile) -> anyhow::Result<RunsSettings> {
        let summary = summary_format(args.summary, &file);
        let state = args.state.or(file.state).ok_or_else(|| {
            anyhow::anyhow!("no crawl database: give --state FILE (or `state` in the config file)")
        })?;
        Ok(RunsSettings { state, summary })
    }
}

/// What `sitemapper explain` needs: the URL, where its crawl database is, and how to print.
#[derive(Debug)]
pub(crate) struct ExplainSettings {
    pub(crate) url: String,
    pub(crate) database: ExplainDatabase,
    pub(crate) summary: SummaryFormat,
}

/// Where `explain` reads: a crawl database, or the one of a fleet's site that maps the URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ExplainDatabase {
    State(PathBuf),
    Fleet(PathBuf),
}

impl ExplainSettings {
    pub(crate) fn resolve(args: ExplainArgs, file: ConfigFile) -> anyhow::Result<ExplainSettings> {
        let summary = summary_format(args.summary, &file);
        // A flag wins over the file, and in each, --fleet (which --state conflicts with).
        let database = match (args.fleet, args.state, file.fleet, file.state) {
            (Some(fleet), ..) => ExplainDatabase::Fleet(fleet),
            (None, Some(state), ..) => ExplainDatabase::State(state),
            (None, None, Some(fleet), _) => ExplainDatabase::Fleet(fleet),
            (None, None, None, Some(state)) => ExplainDatabase::State(state),
            (None, None, None, None) => anyhow::bail!(
                "no crawl database: give --state FILE (or `state` in the config file), or \
                 --fleet FILE"
            ),
        };
        Ok(ExplainSettings {
            url: args.url,
            database,
            summary,
        })
    }
}

/// What `sitemapper mcp` is allowed: the flags, else the config file, else the defaults.
#[derive(Debug)]
pub(crate) struct McpServerSettings {
    pub(crate) allowed_dirs: Vec<PathBuf>,
    pub(crate) allow_private: bool,
    pub(crate) max_pages: u64,
    pub(crate) max_time: std::time::Duration,
}

impl McpServerSettings {
    pub(crate) fn resolve(args: McpArgs, file: ConfigFile) -> anyhow::Result<McpServerSettings> {
        // Given on the command line, the directories replace the file's.
        let allowed_dirs = if args.allow_dir.is_empty() {
            file.allow_dir.unwrap_or_default()
        } else {
            args.allow_dir
        };
        if allowed_dirs.is_empty() {
            anyhow::bail!(
                "give --allow-dir DIR (repeatable): the directories the tools may read and write"
            );
        }
        Ok(McpServerSettings {
            allowed_dirs,
            allow_private: args.allow_private || file.allow_private.unwrap_or(false),
            max_pages: args
                .max_pages
                .or(file.max_pages)
                .unwrap_or(sitemapper_mcp::DEFAULT_MAX_PAGES),
            max_time: args.max_time.or(file.max_time).map_or(
                sitemapper_mcp::DEFAULT_MAX_TIME,
                std::time::Duration::from_secs,
            ),
        })
    }
}

/// How a command prints its summary: the flag, else the config file, else text.
pub(crate) fn summary_format(flag: Option<SummaryFormat>, file: &ConfigFile) -> SummaryFormat {
    flag.or(file.summary).unwrap_or_default()
}

#[cfg(test)]
mod tests;
