//! `sitemapper audit URL --report DIR`: crawl like `crawl` (keeping the link graph), then
//! report what is wrong with the site and with its own sitemaps, for a consultant to hand
//! over: report.html, findings.csv, pages.csv, links.csv, report.json, and the crawl
//! database (crawl.db) for anything else, queryable with sqlite3.

mod files;
mod html;
mod site_sitemaps;
mod spreadsheet;

use std::collections::BTreeMap;
use std::io::Write;

use anyhow::Context;
use sitemapper_audit::{Finding, FindingKind, Severity, SiteSitemaps, Thresholds};
use sitemapper_crawl::UrlNormalizer;
use url::Url;

use super::Output;
use super::crawl::{Crawled, crawl_and_publish};
use crate::cli::AuditArgs;
use crate::exit::{ExitStatus, Failure};
use crate::settings::CrawlSettings;

pub(crate) fn run(args: AuditArgs, output: Output) -> Result<(), Failure> {
    let report_directory = args.report.clone();
    let user_chose_out = args.crawl.out.is_some();
    let mut settings = CrawlSettings::resolve(args.crawl).map_err(Failure::usage)?;
    std::fs::create_dir_all(&report_directory).with_context(|| {
        format!(
            "cannot create report directory {}",
            report_directory.display()
        )
    })?;
    // The audit keeps its database and the sitemap it would write beside the report, and
    // records everything the findings need.
    if !user_chose_out {
        settings.out = report_directory.clone();
    }
    settings
        .state
        .get_or_insert_with(|| report_directory.join("crawl.db"));
    settings.crawl.record_links = true;
    settings.crawl.collect_alternates = true;
    let defaults = Thresholds::default();
    let thresholds = Thresholds {
        max_depth: args.deep.unwrap_or(defaults.max_depth),
        slow_ms: args.slow.unwrap_or(defaults.slow_ms),
        large_bytes: args.large.unwrap_or(defaults.large_bytes),
    };

    let crawled = crawl_and_publish(&settings, output)?;
    let sitemaps = read_site_sitemaps(&crawled, &settings);
    // The site's sitemaps name the production host of a staging copy: compared as the crawl
    // knows them (`--map-host`).
    let normalizer = UrlNormalizer::new(&settings.crawl.strip_parameters)
        .with_host_map(settings.crawl.host_map.clone());
    let normalize = |loc: &str| {
        Url::parse(loc)
            .ok()
            .and_then(|url| normalizer.normalize(&url))
            .map(String::from)
    };
    let site_sitemaps = SiteSitemaps {
        files_read: sitemaps.files.len(),
        urls: &sitemaps.urls,
        problems: &sitemaps.problems,
    };
    let findings = sitemapper_audit::findings(
        &crawled.store,
        crawled.run,
        &thresholds,
        &site_sitemaps,
        &normalize,
    )?;
    write_report(&crawled, &settings, &findings, &sitemaps, &report_directory)?;

    if !output.quiet {
        crawled.report(&settings).print()?;
        print_summary(&findings, &sitemaps, &report_directory)?;
    }
    if let Some(level) = args.fail_on {
        let level = level.severity();
        let failing = findings
            .iter()
            .filter(|finding| finding.kind.severity() <= level)
            .count();
        if failing > 0 {
            return Err(Failure {
                status: ExitStatus::Findings,
                error: anyhow::anyhow!(
                    "{failing} findings at {} level or worse (--fail-on {})",
                    level.as_str(),
                    level.as_str()
                ),
            });
        }
    }
    Ok(())
}

fn read_site_sitemaps(crawled: &Crawled, settings: &CrawlSettings) -> site_sitemaps::SiteSitemaps {
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            let mut found = site_sitemaps::SiteSitemaps::default();
            found
                .problems
                .push((crawled.summary.scope_root.to_string(), error.to_string()));
            return found;
        }
    };
    runtime.block_on(site_sitemaps::read(
        &crawled.notes.sitemaps,
        &crawled.summary,
        &settings.crawl,
    ))
}

fn write_report(
    crawled: &Crawled,
    settings: &CrawlSettings,
    findings: &[Finding],
    sitemaps: &site_sitemaps::SiteSitemaps,
    directory: &std::path::Path,
) -> anyhow::Result<()> {
    let counts = files::write_pages(&crawled.store, crawled.run, &directory.join("pages.csv"))?;
    files::write_links(&crawled.store, crawled.run, &directory.join("links.csv"))?;
    files::write_findings(findings, &directory.join("findings.csv"))?;
    let mut severities: BTreeMap<&'static str, u64> = BTreeMap::new();
    for severity in [Severity::Error, Severity::Warning, Severity::Notice] {
        severities.insert(severity.as_str(), 0);
    }
    for finding in findings {
        *severities
            .entry(finding.kind.severity().as_str())
            .or_default() += 1;
    }
    let site = crawled.summary.scope_root.to_string();
    let report = files::ReportJson {
        site: &site,
        run: crawled.run.0,
        generated_at: jiff::Timestamp::now()
            .strftime("%Y-%m-%d %H:%M UTC")
            .to_string(),
        counts: &counts,
        severities,
        site_sitemaps: sitemaps.files.iter().map(ToString::to_string).collect(),
        site_sitemap_urls: sitemaps.urls.len(),
        host_map: settings.crawl.host_map.describe(),
        findings: findings.iter().map(files::FindingJson::of).collect(),
    };
    files::write_json(&report, &directory.join("report.json"))?;
    let mut pages = Vec::new();
    crawled
        .store
        .for_each_page(crawled.run, |page, _| -> anyhow::Result<()> {
            pages.push([
                page.url,
                page.status
                    .map_or_else(String::new, |status| status.to_string()),
                page.verdict.to_string(),
                page.reason
                    .map(|reason| reason.to_string())
                    .unwrap_or_default(),
                page.depth.to_string(),
                page.title.unwrap_or_default(),
            ]);
            Ok(())
        })?;
    let html = html::render(&report, &pages)?;
    let path = directory.join("report.html");
    std::fs::write(&path, html).with_context(|| format!("cannot write {}", path.display()))
}

fn print_summary(
    findings: &[Finding],
    sitemaps: &site_sitemaps::SiteSitemaps,
    directory: &std::path::Path,
) -> std::io::Result<()> {
    let mut out = std::io::stderr().lock();
    match sitemaps.files.len() {
        0 => writeln!(out, "The site's sitemaps: none found.")?,
        files => writeln!(
            out,
            "The site's sitemaps: {files} files, {} URLs.",
            sitemaps.urls.len()
        )?,
    }
    let mut by_kind: BTreeMap<(Severity, FindingKind), usize> = BTreeMap::new();
    for finding in findings {
        *by_kind
            .entry((finding.kind.severity(), finding.kind))
            .or_default() += 1;
    }
    writeln!(out, "Findings: {}", findings.len())?;
    for ((severity, kind), count) in by_kind {
        writeln!(
            out,
            "  {:>7}  {:<8} {}",
            count,
            severity.as_str(),
            kind.title()
        )?;
    }
    writeln!(out, "Report: {}", directory.join("report.html").display())
}
