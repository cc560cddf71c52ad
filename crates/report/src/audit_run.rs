//! What an audit does after its crawl: the site's own sitemaps read and compared, the links to
//! other sites checked, the findings computed and scored against the previous audit, and the
//! report written. Each phase ends early when the audit is stopped.

use std::path::Path;

use sitemapper_audit::{Assessment, Thresholds};
use sitemapper_crawl::{CrawlConfig, NotRead};
use sitemapper_site::{
    OutboundError, OutboundSettings, ReadSitemaps, ResourcesError, SiteRun, SiteSettings,
    SitemapsFound, audit_findings, check_outbound, check_resources,
};
use sitemapper_store::StoreError;
use tokio::sync::watch;
use url::Url;

use crate::audited::Audited;
use crate::build::{Branding, Pages, ReportInput};
use crate::deliverables::{ReportOptions, write_report};
use crate::error::ReportError;
use crate::methodology::{CrawlDescription, external_checks, methodology};
use crate::model::Report;

/// What an audit adds to its crawl: what it reads and checks, and where its report goes.
#[derive(Debug, Clone, Copy)]
pub struct AuditPlan<'a> {
    /// The report directory.
    pub directory: &'a Path,
    /// What counts as too deep, too slow, too large.
    pub thresholds: &'a Thresholds,
    /// The names of the custom extractions, in order (pages.csv's columns after the fixed
    /// ones); the crawl's configuration has the extractions.
    pub extract_names: &'a [String],
    /// The site's sitemaps to read; empty: look for them (robots.txt, `/sitemap.xml`).
    pub sitemaps: &'a [Url],
    /// The report's title and logo.
    pub branding: &'a Branding,
    /// How the links to other sites are checked; `None`: they are not.
    pub outbound: Option<&'a OutboundSettings>,
}

/// Why an audit ended without its report.
#[derive(Debug, thiserror::Error)]
pub enum AuditError {
    /// The audit was stopped while `doing` (reading the site's sitemaps, checking the links to
    /// other sites); nothing was written.
    #[error("stopped while {doing}")]
    Stopped {
        /// What the audit was doing, in words: `checking the links to other sites`.
        doing: &'static str,
    },
    /// The links to other sites could not be checked.
    #[error("cannot check the outbound links: {0}")]
    Outbound(#[from] OutboundError),
    /// The resources of the site could not be checked.
    #[error("cannot check the site's resources: {0}")]
    Resources(#[from] ResourcesError),
    /// The crawl database could not be read or written.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The report could not be written.
    #[error(transparent)]
    Report(#[from] ReportError),
}

/// Makes `crawl` record what an audit reads (every link with its kind, each page's details,
/// structured data and alternates), and seed from the site's own `sitemaps` when given (and
/// from no others).
pub fn crawl_for_audit(crawl: &mut CrawlConfig, sitemaps: &[Url]) {
    crawl.sitemap_roots = sitemaps.to_vec();
    crawl.record_links = true;
    crawl.page_details = true;
    crawl.structured_data = true;
    crawl.collect_alternates = true;
}

/// Audits `crawled`, crawled with `settings` (its sitemaps read as seeds in `read_as_seeds`),
/// as `plan` says, writing the report as `options` says; `stop` becoming `true` stops it
/// between phases.
pub fn audit(
    mut crawled: SiteRun,
    settings: &SiteSettings,
    plan: AuditPlan<'_>,
    options: &ReportOptions,
    read_as_seeds: &ReadSitemaps,
    stop: &watch::Receiver<bool>,
) -> Result<Audited, AuditError> {
    let stopped = |doing: &'static str| match *stop.borrow() {
        true => Err(AuditError::Stopped { doing }),
        false => Ok(()),
    };
    let sitemaps = read_site_sitemaps(&crawled, settings, plan.sitemaps, read_as_seeds);
    stopped("reading the site's sitemaps")?;
    let outbound = plan
        .outbound
        .map(|outbound| {
            check_outbound(
                &mut crawled.store,
                crawled.run,
                &crawled.summary,
                &settings.crawl,
                outbound,
                Some(stop.clone()),
            )
        })
        .transpose()?;
    stopped("checking the links to other sites")?;
    let (resources, probe) = check_resources(
        &mut crawled.store,
        crawled.run,
        &crawled.summary,
        &settings.crawl,
        Some(stop.clone()),
    )?;
    stopped("checking the site's images, scripts and style sheets")?;
    let findings = audit_findings(
        &crawled,
        &settings.crawl,
        &sitemaps,
        &probe,
        plan.thresholds,
    )?;
    let site = crawled.summary.scope.root.to_string();
    let pages = Pages::read(&crawled.store, crawled.run, plan.extract_names.to_vec())?;
    let assessment = Assessment::record(&mut crawled.store, crawled.run, &findings, &pages.urls())?;
    let generated_at = jiff::Timestamp::now()
        .strftime("%Y-%m-%d %H:%M UTC")
        .to_string();
    let methodology = methodology(
        &CrawlDescription::of(settings),
        &crawled,
        &generated_at,
        &sitemaps.story(),
        external_checks(plan.outbound, outbound.as_ref()),
        &resources,
    );
    let report = Report::build(ReportInput {
        store: &crawled.store,
        run: crawled.run,
        site,
        branding: plan.branding,
        generated_at,
        host_map: settings.crawl.host_map.describe(),
        methodology,
        findings: &findings,
        assessment: &assessment,
        site_sitemaps: sitemaps.files.iter().map(ToString::to_string).collect(),
        site_sitemap_urls: sitemaps.urls.len(),
        pages,
    })?;
    let written = write_report(&report, &crawled.store, &findings, plan.directory, options)?;
    Ok(Audited {
        crawled,
        findings,
        sitemaps,
        assessment,
        outbound,
        resources,
        outbound_rows: report.into_outbound(),
        pdf: written.pdf,
    })
}

/// The site's own sitemaps: those `given`, else those robots.txt declares and
/// `/sitemap.xml`, each read once (those the crawl read as seeds are not read again).
fn read_site_sitemaps(
    crawled: &SiteRun,
    settings: &SiteSettings,
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
        &settings.crawl,
        read_as_seeds,
    ))
}
