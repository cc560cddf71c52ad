//! The settings of the commands besides the crawl's: how much is said (every command), what
//! the audit adds to a crawl, what `runs` reads, and the summary's format.

use std::path::PathBuf;

use anyhow::bail;

use super::{ConfigFile, CrawlSettings, switch};
use crate::cli::{AuditArgs, ColorName, RunsArgs, SeverityName, SummaryFormat};
use crate::commands::audit::{Logo, read_logo};

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

/// What `sitemapper audit` adds to a crawl's settings.
#[derive(Debug)]
pub(crate) struct AuditSettings {
    pub(crate) crawl: CrawlSettings,
    pub(crate) report: PathBuf,
    /// Whether the user chose where the sitemap goes (else: beside the report).
    pub(crate) out_chosen: bool,
    pub(crate) fail_on: Option<SeverityName>,
    pub(crate) thresholds: sitemapper_audit::Thresholds,
    /// `--title`: the report's heading, when not the default.
    pub(crate) title: Option<String>,
    /// `--logo`: read and checked.
    pub(crate) logo: Option<Logo>,
    /// `--pdf`: also print the report into report.pdf.
    pub(crate) pdf: bool,
}

impl AuditSettings {
    pub(crate) fn resolve(args: AuditArgs, mut file: ConfigFile) -> anyhow::Result<AuditSettings> {
        let Some(report) = args.report.or(file.report.take()) else {
            bail!("no report directory: give --report DIR (or `report` in the config file)");
        };
        let defaults = sitemapper_audit::Thresholds::default();
        let thresholds = sitemapper_audit::Thresholds {
            max_depth: args.deep.or(file.deep).unwrap_or(defaults.max_depth),
            slow_ms: args.slow.or(file.slow).unwrap_or(defaults.slow_ms),
            large_bytes: args.large.or(file.large).unwrap_or(defaults.large_bytes),
        };
        let fail_on = args.fail_on.or(file.fail_on);
        let out_chosen = args.crawl.out.is_some() || file.out.is_some();
        let title = args.title.or(file.title.take());
        if title.as_ref().is_some_and(|title| title.trim().is_empty()) {
            bail!("--title must not be empty");
        }
        let logo = args
            .logo
            .or(file.logo.take())
            .map(|path| read_logo(&path))
            .transpose()?;
        let pdf = switch(args.pdf, file.pdf);
        Ok(AuditSettings {
            crawl: CrawlSettings::resolve(args.crawl, file)?,
            report,
            out_chosen,
            fail_on,
            thresholds,
            title,
            logo,
            pdf,
        })
    }
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

/// How a command prints its summary: the flag, else the config file, else text.
pub(crate) fn summary_format(flag: Option<SummaryFormat>, file: &ConfigFile) -> SummaryFormat {
    flag.or(file.summary).unwrap_or_default()
}
