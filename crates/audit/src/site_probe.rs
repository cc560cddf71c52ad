//! What the audit asks the site beyond its pages (docs/audit.md, "Crawlers of AI assistants"
//! and "Security"): what robots.txt says to the crawlers of AI assistants, whether
//! `/llms.txt` exists, and whether the http address of an https site redirects to https.

use crate::finding::{Finding, finding};
use crate::kind::FindingKind;

/// The crawlers of AI assistants the audit reports on, by the product token robots.txt
/// addresses them with.
pub const AI_CRAWLERS: [&str; 5] = [
    "GPTBot",
    "ClaudeBot",
    "Google-Extended",
    "CCBot",
    "PerplexityBot",
];

/// What robots.txt says to one crawler of an AI assistant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AiCrawler {
    /// Its product token.
    pub name: &'static str,
    /// Whether it may fetch the start page.
    pub allowed: bool,
    /// Whether a group of robots.txt names it (otherwise the `*` group, if any, applies).
    pub named: bool,
}

/// What the audit found asking the site.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SiteProbe {
    /// robots.txt's URL and what it says to each of [`AI_CRAWLERS`]; `None` when it was not
    /// read.
    pub ai_crawlers: Option<(String, Vec<AiCrawler>)>,
    /// `/llms.txt`'s URL, and whether the site has one; `None` when not asked.
    pub llms_txt: Option<(String, bool)>,
    /// The http address of an https site's start page, when it answers without redirecting
    /// to https, and what it answered.
    pub http_not_redirected: Option<(String, String)>,
}

/// The findings of `probe`; the one about http weighs on `site`, the start page.
pub(crate) fn probe_findings(probe: &SiteProbe, site: &str) -> Vec<Finding> {
    let mut findings = Vec::new();
    if let Some((robots_url, crawlers)) = &probe.ai_crawlers {
        let said: Vec<String> = crawlers
            .iter()
            .map(|crawler| {
                let verdict = if crawler.allowed {
                    "allowed"
                } else {
                    "disallowed"
                };
                let group = if crawler.named {
                    "its own group"
                } else {
                    "no group of its own"
                };
                format!("{}: {verdict} ({group})", crawler.name)
            })
            .collect();
        findings.push(finding(
            FindingKind::AiCrawlers,
            robots_url,
            said.join("; "),
        ));
    }
    if let Some((url, present)) = &probe.llms_txt {
        let detail = if *present {
            "the site has one".to_string()
        } else {
            "the site has none".to_string()
        };
        findings.push(finding(FindingKind::LlmsTxt, url, detail));
    }
    if let Some((http, answered)) = &probe.http_not_redirected {
        findings.push(finding(
            FindingKind::HttpNotRedirected,
            site,
            format!("{http} {answered}, without redirecting to https"),
        ));
    }
    findings
}
