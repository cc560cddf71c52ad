//! What `explain` says of one URL, as data: the binary prints it as text or JSON, and the
//! MCP server hands it to an assistant. Every field is what the crawl database recorded;
//! nothing is asked of the site.

use serde::Serialize;

/// Whether the published sitemap lists the URL.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Standing {
    /// The sitemap the last complete run published lists it.
    Listed,
    /// The crawl met it and left it out: the reason says why.
    NotListed,
    /// The crawl never met it.
    NeverMet,
}

/// Why the URL is listed or not, and what shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Explanation {
    /// The URL as asked.
    pub url: String,
    /// The URL as the crawl keys it: normalized, tracking parameters dropped.
    pub normalized: String,
    /// Listed, not listed, or never met.
    pub standing: Standing,
    /// The reason's code as docs/rules.md names it (`http-404`, `robots-disallowed`,
    /// `canonicalised`, `not-reached`, `out-of-scope`, `never-met`); `None` when listed.
    pub reason: Option<String>,
    /// The verdict in one sentence.
    pub why: String,
    /// What shows the reason: the robots.txt rule, where a canonical or noindex was found,
    /// the status, ...
    pub evidence: Vec<Evidence>,
    /// The redirects from the URL, hop by hop.
    pub redirects: Vec<Hop>,
    /// How the crawl reached it; `None` when it never did.
    pub reached: Option<Reached>,
    /// Its `<lastmod>` and where it comes from, for a listed URL.
    pub lastmod: Option<LastmodStory>,
    /// Its runs: first seen, statuses, listings.
    pub history: Option<History>,
    /// For a URL never met, the nearest one the crawl did meet.
    pub nearest: Option<Nearest>,
    /// The scope the database belongs to (`https://example.com/blog/` and below).
    pub scope: Option<String>,
    /// The run the answer is of: the last complete one, else the last one.
    pub run: Option<RunRef>,
}

/// One fact that shows the reason.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Evidence {
    /// What it is about: `robots.txt`, `canonical`, `noindex`, `response`, `trap`, `scope`,
    /// `rendering`, `run`.
    pub topic: &'static str,
    /// What was found, in words.
    pub found: String,
}

/// One hop of a redirect chain.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Hop {
    /// The URL that redirected.
    pub url: String,
    /// Its status (`None` for an instant meta refresh read from a page that answered 200,
    /// or a hop never requested).
    pub status: Option<u16>,
    /// Where it led.
    pub to: String,
}

/// How the crawl reached the URL.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Reached {
    /// Clicks from the seed (0 for the seed).
    pub depth: u32,
    /// The shortest click path from the seed, the seed first and the URL last; each step
    /// says how the one before led to it.
    pub path: Vec<Step>,
    /// How many pages of the run link to it for visitors (anchors, frames, refreshes, links
    /// scripts draw).
    pub linked_from: u64,
    /// The first of them, by URL.
    pub linked_from_examples: Vec<String>,
    /// The site's sitemaps that list it.
    pub sitemaps: Vec<String>,
}

/// One step of a click path.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Step {
    /// The URL.
    pub url: String,
    /// How the step before led here: `seed`, `link`, `redirect`, `canonical`, `refresh`,
    /// `frame`, `alternate`, `sitemap`, `script` (a link a template's scripts draw),
    /// `rendered` (a link of the rendered page only).
    pub via: &'static str,
}

/// A listed URL's `<lastmod>`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LastmodStory {
    /// As written in the sitemap; `None` when it has none.
    pub value: Option<String>,
    /// `last-modified` (the header of the last response), `content-change` (the time the
    /// crawl first saw the content change), `kept` (the content did not change, though the
    /// header moved), `none`.
    pub source: &'static str,
    /// The last response's valid `Last-Modified`.
    pub last_modified: Option<String>,
    /// The times the recorded lastmod changed, newest first (at most 10).
    pub changes: Vec<String>,
    /// The published sitemap file that lists it, when the files are where they were
    /// published.
    pub file: Option<String>,
    /// Where the file was looked for, when it was not found there.
    pub file_not_found: Option<String>,
}

/// The URL's runs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct History {
    /// The run that first recorded it.
    pub first_seen: RunRef,
    /// The last run that recorded it.
    pub last_seen: RunRef,
    /// When its content was last seen to change (its recorded `<lastmod>` moved), when the
    /// database has seen it change.
    pub last_changed: Option<String>,
    /// Its statuses, oldest first (the last few).
    pub statuses: Vec<StatusSpan>,
    /// The runs whose listings are kept (the last 30) that list it, newest first.
    pub listed_in_runs: Vec<i64>,
    /// How many runs' listings are kept.
    pub listings_kept: usize,
}

/// A status the URL answered over a span of runs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StatusSpan {
    /// The status (`200`), or the kind of failure of a request without a response
    /// (`timeout`).
    pub status: String,
    /// The first run of the span.
    pub from_run: i64,
    /// The last run of the span.
    pub to_run: i64,
}

/// A run, by number and start.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RunRef {
    /// The run's number (`sitemapper runs`).
    pub run: i64,
    /// When it started (RFC 3339, UTC).
    pub started_at: String,
    /// How it ended: `complete`, `failed`, `interrupted`, `running`...
    pub status: String,
}

/// The nearest URL the crawl met, for one it never met.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Nearest {
    /// The URL.
    pub url: String,
    /// How it differs: `without the query`, `with a trailing slash`, `over https`, ...
    pub differs: &'static str,
    /// Whether the published sitemap lists it.
    pub listed: bool,
}
