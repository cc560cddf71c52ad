//! `sitemapper audit URL --report DIR`: crawl like `crawl` (keeping the link graph), then
//! report what is wrong with the site and with its own sitemaps, for a consultant to hand
//! over: report.html, findings.csv, pages.csv, links.csv, report.json, and the crawl
//! database (crawl.db) for anything else, queryable with sqlite3.

mod files;
mod html;
mod site_sitemaps;
mod spreadsheet;

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;

use anyhow::Context;
use sitemapper_crawl::UrlNormalizer;
use sitemapper_sitemap::is_valid_hreflang;
use sitemapper_store::{AuditThresholds, Finding, FindingKind, Severity};
use url::Url;

use super::Output;
use super::crawl::{Crawled, crawl_and_publish};
use crate::cli::AuditArgs;
use crate::exit::{ExitStatus, Failure};
use crate::settings::CrawlSettings;

pub fn run(args: AuditArgs, output: Output) -> Result<(), Failure> {
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
    let thresholds = AuditThresholds {
        max_depth: args.deep.unwrap_or(AuditThresholds::default().max_depth),
        slow_ms: args.slow.unwrap_or(AuditThresholds::default().slow_ms),
        large_bytes: args.large.unwrap_or(AuditThresholds::default().large_bytes),
    };

    let crawled = crawl_and_publish(&settings, output)?;
    let mut findings = crawled.store.findings(crawled.run, &thresholds)?;
    findings.extend(invalid_hreflang(&crawled)?);
    let sitemaps = read_site_sitemaps(&crawled, &settings);
    findings.extend(compare_with_sitemaps(&crawled, &settings, &sitemaps)?);
    findings.sort_by(|first, second| {
        (first.kind.severity(), first.kind, &first.url).cmp(&(
            second.kind.severity(),
            second.kind,
            &second.url,
        ))
    });
    write_report(&crawled, &findings, &sitemaps, &report_directory)?;

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

/// hreflang codes Google does not accept.
fn invalid_hreflang(crawled: &Crawled) -> anyhow::Result<Vec<Finding>> {
    Ok(crawled
        .store
        .declared_alternates(crawled.run)?
        .into_iter()
        .filter(|(_, hreflang, _)| !is_valid_hreflang(hreflang))
        .map(|(page, hreflang, href)| Finding {
            kind: FindingKind::HreflangInvalid,
            url: page,
            detail: format!("hreflang {hreflang:?} (for {href}) is not a language code"),
            referrers: Vec::new(),
        })
        .collect())
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
        &crawled.summary.scope_root,
        &settings.crawl.user_agent,
        settings.crawl.request_timeout,
        &crawled.summary.addresses,
    ))
}

/// The gap between the site's own sitemaps and the crawl.
fn compare_with_sitemaps(
    crawled: &Crawled,
    settings: &CrawlSettings,
    sitemaps: &site_sitemaps::SiteSitemaps,
) -> anyhow::Result<Vec<Finding>> {
    let mut findings: Vec<Finding> = sitemaps
        .problems
        .iter()
        .map(|(url, problem)| Finding {
            kind: FindingKind::SitemapUnreadable,
            url: url.clone(),
            detail: problem.clone(),
            referrers: Vec::new(),
        })
        .collect();
    if sitemaps.files.is_empty() {
        return Ok(findings);
    }
    let normalizer = UrlNormalizer::new(&settings.crawl.strip_parameters);
    let verdicts = crawled.store.verdicts(crawled.run)?;
    let mut in_sitemaps = BTreeSet::new();
    for loc in &sitemaps.urls {
        let Some(url) = Url::parse(loc)
            .ok()
            .and_then(|url| normalizer.normalize(&url))
        else {
            findings.push(Finding {
                kind: FindingKind::SitemapNotIndexable,
                url: loc.clone(),
                detail: "not an absolute http(s) URL".to_string(),
                referrers: Vec::new(),
            });
            continue;
        };
        let url = url.to_string();
        match verdicts.get(&url) {
            None => findings.push(Finding {
                kind: FindingKind::SitemapOrphan,
                url: url.clone(),
                detail: "no link from the crawled pages leads here".to_string(),
                referrers: Vec::new(),
            }),
            Some((verdict, reason)) if verdict != "indexable" => findings.push(Finding {
                kind: FindingKind::SitemapNotIndexable,
                url: url.clone(),
                detail: match reason {
                    Some(reason) => format!("{verdict}: {reason}"),
                    None => verdict.clone(),
                },
                referrers: Vec::new(),
            }),
            Some(_) => {}
        }
        in_sitemaps.insert(url);
    }
    for (url, (verdict, _)) in &verdicts {
        if verdict == "indexable" && !in_sitemaps.contains(url) {
            findings.push(Finding {
                kind: FindingKind::NotInSitemap,
                url: url.clone(),
                detail: "indexable, but the site's sitemaps do not list it".to_string(),
                referrers: Vec::new(),
            });
        }
    }
    Ok(findings)
}

fn write_report(
    crawled: &Crawled,
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
                page.verdict.as_str().to_string(),
                page.reason.unwrap_or_default(),
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
