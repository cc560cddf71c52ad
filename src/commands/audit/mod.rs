//! `sitemapper audit URL --report DIR`: crawl like `crawl` (keeping the link graph), then
//! report what is wrong with the site and with its own sitemaps, for a consultant to hand
//! over: report.html, report.xlsx, findings.csv, pages.csv, links.csv, outbound.csv,
//! report.json, and the crawl database (crawl.db) for anything else, queryable with sqlite3;
//! with `--pdf`, report.pdf; with `--sarif` and `--junit`, the findings for CI. Between the
//! crawl and the findings, the links to other sites are checked
//! (`sitemapper_site::check_outbound`) unless `--check-external=false`.

mod audited;
mod summary;
mod summary_json;

use std::path::{Path, PathBuf};

use sitemapper_audit::{Assessment, Finding, Severity};
use sitemapper_crawl::NotRead;
use sitemapper_report::{
    CrawlDescription, Pages, PdfOptions, Report, ReportInput, ReportOptions,
    database_not_through_link, writable_ci_file,
};
use sitemapper_site::{
    ReadSitemaps, SiteRun, SitemapsFound, audit_findings, check_outbound, count,
};
use url::Url;

use self::audited::{Audited, failing};
use self::summary_json::AuditJson;
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
    for (option, path) in [("--sarif", &options.sarif), ("--junit", &options.junit)] {
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
            let summary = AuditJson::new(&audited, &settings, &options)?;
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

    /// What the report writes besides its own files, and how; `chrome` prints the PDF.
    fn report_options(&self, chrome: Option<&Path>) -> ReportOptions {
        ReportOptions {
            csv_bom: self.csv_bom,
            sarif: self.sarif.clone(),
            junit: self.junit.clone(),
            failing: self.fail_on.unwrap_or(Severity::Error),
            pdf: self.pdf.then(|| PdfOptions {
                chrome: chrome.map(Path::to_path_buf),
                paper: self.paper,
            }),
        }
    }

    /// The files of the report directory, as written.
    fn report_files(&self) -> Vec<PathBuf> {
        let mut names = sitemapper_report::REPORT_FILES.to_vec();
        if self.database_in_report {
            names.push("crawl.db");
        }
        if self.pdf {
            names.push("report.pdf");
        }
        names.iter().map(|name| self.report.join(name)).collect()
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
    let stopped = |doing: &str| -> Result<(), Failure> {
        if *signals.stop.borrow() {
            return Err(stopped_after_crawl(signals.received(), doing));
        }
        Ok(())
    };
    let mut crawled = crawl_and_publish(
        settings,
        output,
        Some(read_as_seeds.clone()),
        Stopper::Signals(&signals),
    )?;
    let sitemaps = read_site_sitemaps(&crawled, settings, &options.sitemaps, &read_as_seeds);
    stopped("reading the site's sitemaps")?;
    let outbound = options
        .outbound
        .as_ref()
        .map(|outbound| {
            check_outbound(
                &mut crawled.store,
                crawled.run,
                &crawled.summary,
                &settings.site.crawl,
                outbound,
                Some(signals.stop.clone()),
            )
        })
        .transpose()
        .map_err(|error| {
            Failure::fatal(anyhow::anyhow!("cannot check the outbound links: {error}"))
        })?;
    stopped("checking the links to other sites")?;
    let findings = audit_findings(
        &crawled,
        &settings.site.crawl,
        &sitemaps,
        &options.thresholds,
    )?;
    let site = crawled.summary.scope.root.to_string();
    let pages = Pages::read(&crawled.store, crawled.run, options.extract_names.clone())?;
    let assessment = Assessment::record(&mut crawled.store, crawled.run, &findings, &pages.urls())?;
    let generated_at = jiff::Timestamp::now()
        .strftime("%Y-%m-%d %H:%M UTC")
        .to_string();
    let methodology = sitemapper_report::methodology(
        &CrawlDescription::of(&settings.site),
        &crawled,
        &generated_at,
        &sitemaps.story(),
        sitemapper_report::external_checks(options.outbound.as_ref(), outbound.as_ref()),
    );
    let report = Report::build(ReportInput {
        store: &crawled.store,
        run: crawled.run,
        site,
        branding: &options.branding,
        generated_at,
        host_map: settings.site.crawl.host_map.describe(),
        methodology,
        findings: &findings,
        assessment: &assessment,
        site_sitemaps: sitemaps.files.iter().map(ToString::to_string).collect(),
        site_sitemap_urls: sitemaps.urls.len(),
        pages,
    })?;
    let written = sitemapper_report::write_report(
        &report,
        &crawled.store,
        &findings,
        &options.report,
        &options.report_options(settings.site.render.chrome.as_deref()),
    )?;
    Ok(Audited {
        crawled,
        findings,
        sitemaps,
        assessment,
        outbound,
        outbound_rows: report.into_outbound(),
        pdf: written.pdf,
    })
}

fn read_site_sitemaps(
    crawled: &SiteRun,
    settings: &CrawlSettings,
    given: &[Url],
    read_as_seeds: &ReadSitemaps,
) -> SitemapsFound {
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            let mut found = SitemapsFound::default();
            found.not_read.push((
                crawled.summary.scope.root.clone(),
                NotRead::NotFetched(error.to_string()),
            ));
            return found;
        }
    };
    runtime.block_on(sitemapper_site::read_site_sitemaps(
        given,
        &crawled.notes.sitemaps,
        &crawled.summary,
        &settings.site.crawl,
        read_as_seeds,
    ))
}
