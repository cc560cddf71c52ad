//! The report as data: what report.html shows and report.json carries. The audit fills it
//! from the findings, the crawl database and the previous audit; `html` renders it.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::methodology::Methodology;

/// Everything the report shows, built by [`Report::build`] and written by
/// [`write_report`](crate::write_report).
#[derive(Debug, Clone, Default, Serialize)]
pub struct Report {
    /// The site audited: the crawl's scope root.
    pub(crate) site: String,
    /// The report's heading: `--title`, or "Site audit: SITE".
    pub(crate) title: String,
    /// The agency's logo (`--logo FILE`), embedded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) logo: Option<Logo>,
    /// When the audit ran, `YYYY-MM-DD HH:MM UTC`.
    pub(crate) generated_at: String,
    /// The crawl database's run number.
    pub(crate) run: i64,
    /// `--map-host` mappings (`staging -> production`): the findings name the URLs crawled.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) host_map: Vec<String>,
    /// The site health score, and how it moved.
    pub(crate) score: Score,
    /// The three to five kinds of finding whose fixing would raise the score most.
    pub(crate) actions: Vec<ActionRow>,
    /// How the audit was made.
    pub(crate) methodology: Methodology,
    /// The score of every audit the crawl database keeps, oldest first (this one last).
    pub(crate) trend: Vec<TrendPoint>,
    /// The audit this one is compared with; `None` for a site's first audit.
    pub(crate) compared_with: Option<PreviousAudit>,
    /// Pages crawled, listed, by status and by depth.
    pub(crate) counts: PageCounts,
    /// Findings per severity: `error`, `warning`, `notice` (all three keys present).
    pub(crate) severities: BTreeMap<&'static str, u64>,
    /// The site's own sitemap files read.
    pub(crate) site_sitemaps: Vec<String>,
    /// URLs those sitemaps list.
    pub(crate) site_sitemap_urls: usize,
    /// One row per kind of finding present now or fixed since the previous audit, in report
    /// order: priority, then severity, then count (largest first).
    pub(crate) kinds: Vec<KindSummary>,
    /// Every finding of this audit, grouped by kind in the order of `kinds`, then by URL.
    pub(crate) findings: Vec<FindingRow>,
    /// The findings of the previous audit that this one no longer has (`change` = fixed).
    pub(crate) fixed: Vec<FindingRow>,
    /// The names of the custom extractions (`--extract NAME=...`), in the order given: the
    /// columns of [`PageRow::extracted`].
    pub(crate) extract_names: Vec<String>,
    /// Every URL the crawl recorded, by URL.
    pub(crate) pages: Vec<PageRow>,
    /// Links between pages of `pages` (indices into it), for the drill-down. At most
    /// [`LINKS_PER_PAGE`] outlinks and as many inlinks per page are kept; links.csv has all.
    pub(crate) links: Vec<LinkRow>,
    /// The links to other sites and what their check found, by URL (outbound.csv); empty
    /// when they were not checked.
    pub(crate) outbound: Vec<OutboundRow>,
}

/// One URL of another site that pages of the crawl link to, and its check
/// (docs/audit.md, Outbound links).
#[derive(Debug, Clone, Serialize)]
pub struct OutboundRow {
    /// The URL linked to.
    pub url: String,
    /// The status it answered (at the end of its redirects); `None` without an answer.
    pub status: Option<u16>,
    /// Where its redirects led, when they led elsewhere.
    pub final_url: Option<String>,
    /// `ok`, `redirected`, `broken`, `blocked`, `disallowed by robots.txt` or `not checked`.
    pub result: &'static str,
    /// The same, as the audit decided it.
    #[serde(skip)]
    pub outcome: sitemapper_audit::OutboundResult,
    /// Why it is broken or not checked, in words (a failure's cause); empty otherwise.
    pub detail: String,
    /// Pages of the crawl that link to it.
    pub referrers: usize,
    /// When it was checked, `YYYY-MM-DD HH:MM UTC`; `None` when it was not.
    pub checked_at: Option<String>,
    /// Whether the check was an earlier audit's, reused.
    pub cached: bool,
}

/// A page title's length as search engines count it: in characters, not bytes.
pub(crate) fn title_length(title: Option<&str>) -> Option<u64> {
    title.map(|title| title.chars().count() as u64)
}

/// At most this many inlinks and outlinks of a page are embedded in the report.
pub(crate) const LINKS_PER_PAGE: usize = 100;

/// An image embedded in the report as a data: URL.
#[derive(Debug, Clone, Serialize)]
pub struct Logo {
    /// `data:image/png;base64,...`
    pub data_url: String,
}

/// The site health score: 0 to 100 (docs/audit.md says how it is computed).
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub(crate) struct Score {
    pub value: u32,
    /// The previous audit's score, when there is one.
    pub previous: Option<u32>,
    /// How it is computed, in one sentence.
    pub rule: &'static str,
}

/// Fixing every finding of one kind: one of the actions the report puts first.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct ActionRow {
    /// The kind's code.
    pub code: &'static str,
    pub title: &'static str,
    /// `error`, `warning` or `notice`.
    pub severity: &'static str,
    /// Its findings now.
    pub count: u64,
    /// Points the score would gain, to a tenth.
    pub gain: f64,
    /// No kind raises the score alone: `gain` is this kind's and those before it's, fixed
    /// together.
    pub with_those_before: bool,
    /// How to fix it.
    pub fix: &'static str,
}

impl ActionRow {
    /// The points it gives, in words: a kind fixed together with others that raises nothing
    /// until those below it are fixed too says so, instead of "+0.0 points".
    pub(crate) fn gain_text(&self) -> String {
        match (self.with_those_before, self.gain < 0.05) {
            (true, true) => "with those below".to_string(),
            (true, false) => format!("+{:.1} points with those above", self.gain),
            (false, _) => format!("+{:.1} points", self.gain),
        }
    }
}

/// One audit in the score's trend.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct TrendPoint {
    pub run: i64,
    /// `YYYY-MM-DD`.
    pub date: String,
    pub score: u32,
}

/// The audit a report is compared with.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct PreviousAudit {
    pub run: i64,
    /// `YYYY-MM-DD HH:MM UTC`.
    pub generated_at: String,
}

/// Counts for the summary and the charts.
#[derive(Debug, Clone, Default, Serialize)]
pub(crate) struct PageCounts {
    pub pages: u64,
    pub listed: u64,
    /// HTTP status (or "none" for URLs never fetched) -> pages.
    pub status_codes: BTreeMap<String, u64>,
    /// Clicks from the start page -> listed pages.
    pub depths: BTreeMap<u32, u64>,
}

/// One kind of finding, summed up and explained for a site owner.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct KindSummary {
    /// Stable code (`broken-link`): the key of [`FindingRow::code`].
    pub code: &'static str,
    pub title: &'static str,
    /// `error`, `warning` or `notice`.
    pub severity: &'static str,
    /// `high`, `medium` or `low`.
    pub priority: &'static str,
    /// Why it matters, a sentence or two.
    pub why: &'static str,
    /// How to fix it, a sentence or two.
    pub fix: &'static str,
    /// Findings of this kind now.
    pub count: u64,
    /// Of those, new since the previous audit (0 when there is none).
    pub new: u64,
    /// Findings of this kind the previous audit had and this one has not.
    pub fixed: u64,
}

/// One finding.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct FindingRow {
    /// The kind's code.
    pub code: &'static str,
    pub url: String,
    /// The particulars: a status, a chain of redirects, the other pages.
    pub detail: String,
    /// Pages that link to `url` (for findings about link targets), sorted.
    pub referrers: Vec<String>,
    /// `new`, `persisting` or `fixed` against the previous audit; `None` for a first audit.
    pub change: Option<&'static str>,
}

/// One URL of the crawl.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct PageRow {
    pub url: String,
    pub status: Option<u16>,
    /// `indexable`, `canonicalised`, `redirect`, `excluded`.
    pub verdict: String,
    /// Why it is not listed, as a stable code.
    pub reason: Option<String>,
    pub depth: u32,
    pub title: Option<String>,
    /// The title's length in characters (Unicode scalar values); `None` without a title.
    pub title_length: Option<u64>,
    /// Words of the visible text (`None` when the page's details were not read: not HTML,
    /// or a row of a release that did not count them).
    pub word_count: Option<u32>,
    /// Body size after decompression.
    pub bytes: Option<u64>,
    /// Response time, body included.
    pub elapsed_ms: Option<u64>,
    /// Links to it from pages of the crawl (all of them, not only those embedded).
    pub inlinks: u64,
    /// Links from it (all of them).
    pub outlinks: u64,
    /// One value per [`Report::extract_names`]: the matches joined by " | ", "" for none.
    pub extracted: Vec<String>,
}

/// A link between two pages of the report.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct LinkRow {
    /// Index of the linking page in [`Report::pages`].
    pub source: usize,
    /// Index of the page linked to.
    pub target: usize,
    /// `a`, `canonical`, `redirect`, `hreflang`, `image`, `iframe`, `refresh`.
    pub kind: &'static str,
    /// The link's text (`<a>` content, or the `alt` of an image in it); "" when none.
    pub anchor: String,
    pub nofollow: bool,
}
