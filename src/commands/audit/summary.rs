//! The audit's summary on stderr: the crawl's summary, without what only a crawl that
//! publishes its sitemap would say, then what the audit found (the site's own sitemaps
//! compared, the health score, the findings by kind, where the report is), then what the run
//! cost.

use std::io::Write;
use std::path::Path;

use sitemapper_audit::{Assessment, Change, Finding};
use sitemapper_site::{CrawlReport, RunFacts, count, write_resources};

use crate::settings::CrawlSettings;
use sitemapper_report::{Audited, OutboundTally, summary_kinds};

/// Prints the summary of `audited`, whose report is in `directory` (and `pdf`, when printed).
pub(super) fn print(
    audited: &Audited,
    settings: &CrawlSettings,
    directory: &Path,
    pdf: Option<&Path>,
) -> anyhow::Result<()> {
    let crawled = &audited.crawled;
    let mut out = std::io::stderr().lock();
    CrawlReport::new(RunFacts::of(crawled)?, &settings.site)
        .with_audit_sitemaps(audited.sitemaps.story().to_string())
        .write_run(&mut out)?;
    let found = Found {
        sitemap_files: audited.sitemaps.files.len(),
        sitemap_urls: audited.sitemaps.urls.len(),
        findings: &audited.findings,
        assessment: &audited.assessment,
        outbound: audited.outbound_tally(),
    };
    found.write(&mut out, directory, pdf)?;
    write_resources(&mut out, crawled.summary.render.browser.as_ref())?;
    Ok(())
}

/// What the audit found, as its summary tells it.
#[derive(Debug)]
struct Found<'a> {
    /// The site's own sitemap files read, and the URLs they list.
    sitemap_files: usize,
    sitemap_urls: usize,
    findings: &'a [Finding],
    assessment: &'a Assessment,
    /// The links to other sites counted; `None` when they were not checked.
    outbound: Option<OutboundTally>,
}

/// `Links to other sites: 12 URLs, 9 checked, 3 from cache; 2 broken, 1 blocked, 1
/// redirected.`, and how many were not checked when some were not.
fn write_tally(tally: &OutboundTally, out: &mut impl Write) -> std::io::Result<()> {
    if tally.network_unavailable {
        return writeln!(
            out,
            "Links to other sites: {}, not checked: the network looks unavailable (most hosts could not be reached; nothing was kept as broken); {} from earlier checks.",
            count(tally.urls, "URL"),
            tally.from_cache
        );
    }
    write!(
        out,
        "Links to other sites: {}, {} checked, {} from cache; {} broken, {} blocked, {} redirected",
        count(tally.urls, "URL"),
        tally.checked,
        tally.from_cache,
        tally.broken,
        tally.blocked,
        tally.redirected
    )?;
    if tally.unchecked > 0 {
        let refused = tally.unchecked.saturating_sub(tally.over_budget);
        let mut why = Vec::new();
        if tally.over_budget > 0 {
            why.push(format!(
                "{} beyond the checks' budget: --external-max-links, --external-max-time",
                tally.over_budget
            ));
        }
        if refused > 0 {
            why.push(format!("{refused} by robots.txt, or private addresses"));
        }
        write!(
            out,
            ", {} not checked ({})",
            tally.unchecked,
            why.join("; ")
        )?;
    }
    writeln!(out, ".")
}

impl Found<'_> {
    /// The site's sitemaps compared, the score, the findings by kind, and the report's files.
    fn write(
        &self,
        out: &mut impl Write,
        directory: &Path,
        pdf: Option<&Path>,
    ) -> std::io::Result<()> {
        // None found is said by the story of the site's sitemaps, and by the finding.
        match self.sitemap_files {
            0 => {}
            files => writeln!(
                out,
                "Compared with the site's sitemaps: {}, {}.",
                count(files, "file"),
                count(self.sitemap_urls, "URL")
            )?,
        }
        // A site that links nowhere else has nothing to say here.
        if let Some(outbound) = self.outbound.filter(|outbound| outbound.urls > 0) {
            write_tally(&outbound, out)?;
        }
        let assessment = self.assessment;
        match assessment.previous {
            Some(previous) => {
                let new = assessment
                    .comparison
                    .changes
                    .iter()
                    .filter(|change| **change == Change::New)
                    .count();
                writeln!(
                    out,
                    "Health score: {} (was {} at run #{}). Findings: {}, {new} new, {} fixed.",
                    assessment.score,
                    previous.score,
                    previous.run.0,
                    self.findings.len(),
                    assessment.comparison.fixed.len()
                )?;
            }
            None => writeln!(
                out,
                "Health score: {}. Findings: {}.",
                assessment.score,
                self.findings.len()
            )?,
        }
        let kinds = summary_kinds(self.findings);
        for (severity, kind, found) in &kinds.shown {
            writeln!(
                out,
                "  {found:>7}  {:<8} {}",
                severity.as_str(),
                kind.title()
            )?;
        }
        if let Some(more) = kinds.more() {
            writeln!(out, "{more}")?;
        }
        writeln!(out, "Report: {}", directory.join("report.html").display())?;
        if let Some(pdf) = pdf {
            writeln!(out, "PDF: {}", pdf.display())?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
