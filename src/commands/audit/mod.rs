//! `sitemapper audit URL --report DIR`: crawl like `crawl` (keeping the link graph), then
//! report what is wrong with the site and with its own sitemaps, for a consultant to hand
//! over: report.html, report.xlsx, findings.csv, pages.csv, links.csv, outbound.csv,
//! report.json, and the crawl database (crawl.db) for anything else, queryable with sqlite3;
//! with `--pdf`, report.pdf; with `--sarif` and `--junit`, the findings for CI. Between the
//! crawl and the findings, the links to other sites are checked
//! (`sitemapper_site::check_outbound`) unless `--check-external=false`.

mod summary;

use std::path::PathBuf;

use sitemapper_audit::Finding;
use sitemapper_report::{
    AuditError, AuditJson, AuditPlan, Audited, database_not_through_link, failing, writable_ci_file,
};
use sitemapper_site::{ReadSitemaps, count};

use super::Output;
use super::crawl::{Signals, Stopper, crawl_and_publish, stopped_after_crawl};
use super::json;
use crate::cli::{AuditArgs, SummaryFormat};
use crate::exit::{ExitStatus, Failure};
use crate::settings::{AuditOptions, AuditSettings, ConfigFile, CrawlSettings, summary_format};

pub(crate) fn run(args: AuditArgs, file: ConfigFile, output: Output) -> Result<(), Failure> {
    // Until the options are checked, the flag or the config file says whether to print JSON.
    let asked = summary_format(args.crawl.summary, &file);
    let AuditSettings {
        crawl: settings,
        options,
    } = AuditSettings::resolve(args, file)
        .map_err(|error| json::failed("audit", asked, Failure::usage(error)))?;
    // Checked before any request, as the run checks the paths it writes.
    sitemapper_site::writable_directory("--report", &options.report)
        .map_err(|error| json::failed("audit", settings.summary, Failure::usage(error)))?;
    if options.database_in_report {
        database_not_through_link(&options.report)
            .map_err(|error| json::failed("audit", settings.summary, Failure::usage(error)))?;
    }
    let ci_files = [
        ("--sarif", &options.files.sarif),
        ("--junit", &options.files.junit),
    ];
    for (option, path) in ci_files {
        if let Some(path) = path {
            writable_ci_file(option, path)
                .map_err(|error| json::failed("audit", settings.summary, Failure::usage(error)))?;
        }
    }
    let audited = audit(&settings, &options, output)
        .map_err(|failure| json::failed("audit", settings.summary, failure))?;
    // A PDF that could not be written fails the run, once the summary is out.
    let printed = match &audited.pdf {
        Some(Err(error)) => Err(Failure::fatal(anyhow::anyhow!(
            "{}",
            sitemapper_crawl::error_chain(error)
        ))),
        _ => Ok(()),
    };
    let verdict = printed.and_then(|()| options.verdict(&audited.findings));
    match settings.summary {
        SummaryFormat::Text if output.quiet => {}
        SummaryFormat::Text => {
            let pdf = match &audited.pdf {
                Some(Ok(path)) => Some(path.as_path()),
                Some(Err(_)) | None => None,
            };
            summary::print(&audited, &settings, &options.report, pdf)?;
        }
        SummaryFormat::Json => {
            let (status, error) = match &verdict {
                Ok(()) => (ExitStatus::Success, None),
                Err(failure) => (failure.status, Some(failure.line())),
            };
            let summary = AuditJson::new(
                &audited,
                &settings.site,
                &options.report,
                &options.report_files(),
                options.fail_on,
            )?;
            if verdict.is_err() {
                // `--fail-on`'s verdict is the audit's, whether its summary finds a reader.
                crate::stdout::note_failure();
            }
            let written = json::print("audit", status, error, &summary);
            if verdict.is_ok() || !crate::stdout::closed() {
                written?;
            }
        }
    }
    verdict
}

impl AuditOptions {
    /// `--fail-on`: a failure when findings at that level or worse exist.
    fn verdict(&self, findings: &[Finding]) -> Result<(), Failure> {
        let Some(level) = self.fail_on else {
            return Ok(());
        };
        let failing = failing(findings, level);
        if failing > 0 {
            return Err(Failure {
                status: ExitStatus::Findings,
                error: anyhow::anyhow!(
                    "{} at {} level or worse (--fail-on {})",
                    count(failing, "finding"),
                    level.as_str(),
                    level.as_str()
                ),
            });
        }
        Ok(())
    }

    /// The files of the report directory, as written.
    fn report_files(&self) -> Vec<PathBuf> {
        sitemapper_report::report_files(
            &self.report,
            self.database_in_report,
            self.files.pdf.is_some(),
        )
    }
}

/// Crawls, computes the findings and writes the report.
fn audit(
    settings: &CrawlSettings,
    options: &AuditOptions,
    output: Output,
) -> Result<Audited, Failure> {
    let read_as_seeds = ReadSitemaps::default();
    // Ctrl-C and SIGTERM stop every phase of the audit, not the crawl alone.
    let signals = Signals::listen();
    let crawled = crawl_and_publish(
        settings,
        output,
        Some(read_as_seeds.clone()),
        Stopper::Signals(&signals),
    )?;
    let plan = AuditPlan {
        directory: &options.report,
        thresholds: &options.thresholds,
        extract_names: &options.extract_names,
        sitemaps: &options.sitemaps,
        branding: &options.branding,
        outbound: options.outbound.as_ref(),
    };
    sitemapper_report::audit(
        crawled,
        &settings.site,
        plan,
        &options.files,
        &read_as_seeds,
        &signals.stop,
    )
    .map_err(|error| match error {
        AuditError::Stopped { doing } => stopped_after_crawl(signals.received(), doing),
        error => Failure::fatal(error),
    })
}
