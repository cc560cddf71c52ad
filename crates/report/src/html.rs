//! report.html: one self-contained file an agency hands to its client. No network: styles,
//! script, data and charts (inline SVG) are all inside. What reads on paper is plain HTML
//! written here (the score, the summary, the charts, every kind of issue with why it matters
//! and how to fix it); what a site of 100,000 findings would make too large to write out
//! (the URLs of each kind, the pages table, a page's drill-down) is built by the script from
//! the embedded data, when it is asked for.

mod charts;
mod client;
mod contents;
mod text;

use std::collections::BTreeMap;
use std::fmt::Write;

use serde::Serialize;
use sitemapper_audit::thousands;

use self::contents::Entry;
use self::text::{counted, escape, shortened};
use crate::model::{FindingRow, KindSummary, LinkRow, PageRow, Report};

const STYLE: &str = include_str!("html/style.css");
const SCRIPT: &str = include_str!("html/script.js");

/// Where the score's rule is explained in full.
const SCORE_DOCS: &str = concat!(env!("CARGO_PKG_REPOSITORY"), "/blob/main/docs/audit.md");

/// URLs of each kind printed (the screen shows them all, on demand).
const PRINTED_EXAMPLES: usize = 10;

/// Characters of a finding's detail printed: a detail that lists every other page sharing a
/// title would fill pages of its own; findings.csv and the screen have it whole.
const PRINTED_DETAIL: usize = 160;

/// The HTML report.
pub(crate) fn render(report: &Report) -> serde_json::Result<String> {
    let data = script_json(&EmbeddedData::of(report))?;
    let mut html = String::with_capacity(data.len() + 64 * 1024);
    // Writing into a `String` cannot fail.
    let _ = write!(
        html,
        r#"<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="sitemapper">
<title>{title}</title><style>{STYLE}</style></head>
<body>
{header}
<main>
{contents}
{score}
{actions}
{methodology}
{cards}
{charts}
{issues}
{pages}
</main>
{drill}
<script type="application/json" id="report-data">{data}</script>
<script>{SCRIPT}</script>
</body></html>
"#,
        title = escape(&report.title),
        header = header(report),
        contents = contents::render(&contents_entries(report)),
        score = score_section(report),
        actions = client::actions_section(report),
        methodology = client::methodology_section(report),
        cards = cards(report),
        charts = charts_section(report),
        issues = issues_section(report),
        pages = pages_section(report),
        drill = DRILL_DOWN,
    );
    Ok(html)
}

/// The table of contents, in the order `render` writes the sections: a new section adds
/// its line here, linking to its heading's element.
fn contents_entries(report: &Report) -> Vec<Entry> {
    let (others, notices) = issue_groups(report);
    let kinds = |kinds: &[&KindSummary]| -> Vec<Entry> {
        kinds
            .iter()
            .map(|kind| {
                let note = if kind.count == 0 && kind.fixed > 0 {
                    "all fixed".to_string()
                } else {
                    counted(kind.count, "URL", "URLs")
                };
                Entry::new(format!("kind-{}", kind.code), kind.title).note(note)
            })
            .collect()
    };
    let mut groups = Vec::new();
    if !others.is_empty() {
        groups.push(
            Entry::new("errors-and-warnings", "Errors and warnings").children(kinds(&others)),
        );
    }
    if !notices.is_empty() {
        groups.push(Entry::new("notices", notices_name(&notices)).children(kinds(&notices)));
    }
    vec![
        Entry::new("score", "Site health score"),
        Entry::new("actions", "What to fix first"),
        Entry::new("methodology", "How this audit was made"),
        Entry::new("summary", "Summary"),
        Entry::new("charts", "Status codes and depth"),
        Entry::new("issues", "Issues by kind").children(groups),
        Entry::new("pages-section", "Pages"),
    ]
}

/// The kinds of issue in report order, split into errors and warnings, and notices.
fn issue_groups(report: &Report) -> (Vec<&KindSummary>, Vec<&KindSummary>) {
    let (notices, others): (Vec<&KindSummary>, Vec<&KindSummary>) = report
        .kinds
        .iter()
        .partition(|kind| kind.severity == "notice" || kind.severity == "info");
    (others, notices)
}

/// The name of the group of notices: with what the site does (`info`) when it holds any.
fn notices_name(notices: &[&KindSummary]) -> &'static str {
    if notices.iter().any(|kind| kind.severity == "info") {
        "Notices and information"
    } else {
        "Notices"
    }
}

/// The heading: logo, title, what was audited when, and the `--map-host` mappings.
fn header(report: &Report) -> String {
    let logo = report.logo.as_ref().map_or(String::new(), |logo| {
        format!(
            r#"<img class="logo" src="{}" alt="Logo">"#,
            escape(&logo.data_url)
        )
    });
    format!(
        r#"<header class="top"><div class="inner"><div class="brand">{logo}<h1>{title}</h1></div>
<p>Site <span class="url">{site}</span> · <span class="nowrap">audited {generated}</span> · <span class="nowrap">run #{run}</span></p>{host_map}</div></header>"#,
        title = escape(&report.title),
        site = escape(&report.site),
        generated = escape(&report.generated_at),
        run = report.run,
        host_map = host_map_note(&report.host_map),
    )
}

/// The `--map-host` mappings, stated: the findings name the URLs crawled.
fn host_map_note(host_map: &[String]) -> String {
    if host_map.is_empty() {
        return String::new();
    }
    let mappings: Vec<String> = host_map.iter().map(|mapping| escape(mapping)).collect();
    format!(
        "<p>Hosts mapped (--map-host): {}. The findings name the URLs crawled; the sitemap names the production URLs.</p>",
        mappings.join("; ")
    )
}

/// The site health score, how it moved, and its trend.
fn score_section(report: &Report) -> String {
    let score = report.score.value.min(100);
    let (band, word) = match score {
        90.. => ("good", "Good"),
        70..90 => ("fair", "Needs work"),
        _ => ("poor", "Poor"),
    };
    let change = report.score.previous.map_or(String::new(), |previous| {
        let difference = i64::from(score) - i64::from(previous.min(100));
        let (class, text) = match difference {
            0 => ("same", "Unchanged since the last audit".to_string()),
            1.. => ("up", format!("+{difference} since the last audit")),
            _ => ("down", format!("−{} since the last audit", -difference)),
        };
        format!(r#"<p class="score-change {class}">{text}</p>"#)
    });
    let trend = if report.trend.len() >= 2 {
        format!(
            r#"<div class="trend"><h3>Score of the last {} audits</h3>{}</div>"#,
            report.trend.len(),
            charts::trend_chart(&report.trend)
        )
    } else {
        String::new()
    };
    format!(
        r#"<section class="panel" id="score" aria-labelledby="score-heading"><h2 id="score-heading">Site health score</h2>
<div class="score {band}"><div><div class="score-number">{score}<span class="of"> / 100</span></div>
<div class="score-word">{word}</div>{change}
<p class="score-note">{rule} <a href="{docs}#health-score">How the score is computed</a></p></div>{trend}</div></section>"#,
        rule = escape(report.score.rule),
        docs = SCORE_DOCS,
    )
}

/// The summary cards; with a previous audit, the issues new and fixed since.
fn cards(report: &Report) -> String {
    let severity = |name: &str| report.severities.get(name).copied().unwrap_or(0);
    let card = |class: &str, value: u64, label: &str| {
        format!(
            r#"<div class="card {class}"><div class="value">{}</div><div class="label">{label}</div></div>"#,
            thousands(value)
        )
    };
    let mut cards = [
        card("", report.counts.pages, "URLs crawled"),
        card("", report.counts.listed, "indexable pages"),
        card("error", severity("error"), "errors"),
        card("warning", severity("warning"), "warnings"),
        card("notice", severity("notice"), "notices"),
        card(
            "",
            report.site_sitemap_urls as u64,
            "URLs in the site's sitemaps",
        ),
    ]
    .concat();
    if let Some(previous) = &report.compared_with {
        let since = format!(
            "since run #{} ({})",
            previous.run,
            escape(&previous.generated_at)
        );
        let new = report.kinds.iter().map(|kind| kind.new).sum();
        let fixed = report.kinds.iter().map(|kind| kind.fixed).sum();
        cards.push_str(&card("new", new, &format!("new issues {since}")));
        cards.push_str(&card("fixed", fixed, &format!("fixed issues {since}")));
    }
    format!(r#"<div class="cards" id="summary">{cards}</div>"#)
}

fn charts_section(report: &Report) -> String {
    let depths: BTreeMap<String, u64> = report
        .counts
        .depths
        .iter()
        .map(|(depth, count)| (depth.to_string(), *count))
        .collect();
    format!(
        r#"<div class="charts" id="charts"><section class="panel chart"><h2>Status codes</h2>{}</section>
<section class="panel chart"><h2>Indexable pages by clicks from the start page</h2>{}</section></div>"#,
        charts::bar_chart(
            &report.counts.status_codes,
            "status",
            "URLs by HTTP status code"
        ),
        charts::bar_chart(
            &depths,
            "depth",
            "Indexable pages by clicks from the start page"
        ),
    )
}

/// Every kind of issue, errors and warnings first; the notices in a group that opens on
/// demand (and in print).
fn issues_section(report: &Report) -> String {
    let mut examples: BTreeMap<&str, Vec<&FindingRow>> = BTreeMap::new();
    for finding in report.findings.iter().chain(&report.fixed) {
        let kind = examples.entry(finding.code).or_default();
        if kind.len() < PRINTED_EXAMPLES {
            kind.push(finding);
        }
    }
    let (others, notices) = issue_groups(report);
    let compared = report.compared_with.is_some();
    let kinds_html = |kinds: &[&KindSummary]| -> String {
        kinds
            .iter()
            .map(|kind| {
                let examples = examples.get(kind.code).map_or(&[][..], Vec::as_slice);
                kind_row(kind, examples, compared)
            })
            .collect()
    };
    let findings = |kinds: &[&KindSummary]| kinds.iter().map(|kind| kind.count).sum::<u64>();
    let mut html = String::from(
        r#"<section class="panel" id="issues" aria-labelledby="issues-heading"><h2 id="issues-heading">Issues by kind</h2>"#,
    );
    if report.kinds.is_empty() {
        html.push_str(r#"<p class="empty">No issues found.</p>"#);
    }
    if !others.is_empty() {
        let _ = write!(
            html,
            r#"<div class="group" id="errors-and-warnings"><h3>Errors and warnings: {}, {}</h3><div class="group-body">{}</div></div>"#,
            counted(others.len() as u64, "kind", "kinds"),
            counted(findings(&others), "finding", "findings"),
            kinds_html(&others),
        );
    }
    if !notices.is_empty() {
        let _ = write!(
            html,
            r#"<div class="group notices" id="notices"><h3><button type="button" class="group-toggle" aria-expanded="false" aria-controls="notice-kinds">{}: {}, {}</button></h3><div class="group-body" id="notice-kinds" hidden>{}</div></div>"#,
            notices_name(&notices),
            counted(notices.len() as u64, "kind", "kinds"),
            counted(findings(&notices), "finding", "findings"),
            kinds_html(&notices),
        );
    }
    html.push_str("</section>");
    html
}

/// One kind: its badges, counts and texts; its URLs are built by the script when the row
/// is expanded, and the first few are printed.
fn kind_row(kind: &KindSummary, examples: &[&FindingRow], compared: bool) -> String {
    let code = escape(kind.code);
    let all_fixed = kind.count == 0 && kind.fixed > 0;
    let mut changes = String::new();
    if all_fixed {
        changes.push_str(r#"<span class="badge all-fixed">all fixed</span>"#);
    }
    if compared && kind.new > 0 {
        let _ = write!(
            changes,
            r#"<span class="badge change-new">{} new</span>"#,
            thousands(kind.new)
        );
    }
    if compared && kind.fixed > 0 {
        let _ = write!(
            changes,
            r#"<span class="badge change-fixed">{} fixed</span>"#,
            thousands(kind.fixed)
        );
    }
    let mut texts = String::new();
    if !kind.why.is_empty() {
        let _ = write!(
            texts,
            r#"<p class="why"><span class="label">Why it matters:</span> {}</p>"#,
            escape(kind.why)
        );
    }
    if !kind.fix.is_empty() {
        let _ = write!(
            texts,
            r#"<p class="fix"><span class="label">How to fix:</span> {}</p>"#,
            escape(kind.fix)
        );
    }
    let urls = kind.count + kind.fixed;
    let (open, close) = if all_fixed {
        (
            format!(
                "Show the {} fixed {}",
                thousands(kind.fixed),
                if kind.fixed == 1 { "URL" } else { "URLs" }
            ),
            "Hide the fixed URLs".to_string(),
        )
    } else {
        (
            format!("Show the {}", counted(kind.count, "URL", "URLs")),
            "Hide the URLs".to_string(),
        )
    };
    let printed: String = examples
        .iter()
        .map(|finding| {
            let detail = if finding.detail.is_empty() {
                String::new()
            } else {
                format!(" — {}", escape(&shortened(&finding.detail, PRINTED_DETAIL)))
            };
            let fixed = if finding.change == Some("fixed") {
                r#" <span class="badge change-fixed">fixed</span>"#
            } else {
                ""
            };
            format!(
                r#"<li><span class="url">{}</span>{fixed}{detail}</li>"#,
                escape(&finding.url)
            )
        })
        .collect();
    let more = urls.saturating_sub(examples.len() as u64);
    let printed_more = if more > 0 {
        format!(
            r#"<p class="examples-more">and {} more in findings.csv and report.html.</p>"#,
            thousands(more)
        )
    } else {
        String::new()
    };
    format!(
        r#"<article class="kind {severity}" id="kind-{code}" data-code="{code}"><div class="kind-head"><span class="badge priority {priority}">{priority} priority</span><span class="badge {severity}">{severity}</span><h4>{title}</h4><span class="kind-count">{count}</span><span class="kind-changes">{changes}</span></div>{texts}<ul class="examples">{printed}</ul>{printed_more}<button type="button" class="toggle" aria-expanded="false" aria-controls="urls-{code}" data-open="{open}" data-close="{close}">{open}</button><div class="urls" id="urls-{code}" hidden></div></article>"#,
        severity = escape(kind.severity),
        priority = escape(kind.priority),
        title = escape(kind.title),
        count = counted(kind.count, "URL", "URLs"),
        open = escape(&open),
        close = escape(&close),
    )
}

/// The pages table's frame; its rows come from the script.
fn pages_section(report: &Report) -> String {
    let mut columns: Vec<String> = [
        "URL", "Status", "Verdict", "Reason", "Depth", "Title", "Size", "Time", "Inlinks",
        "Outlinks",
    ]
    .iter()
    .map(|name| (*name).to_string())
    .collect();
    columns.extend(report.extract_names.iter().map(|name| escape(name)));
    let headers: String = columns
        .iter()
        .map(|name| format!(r#"<th scope="col"><button type="button">{name}</button></th>"#))
        .collect();
    format!(
        r#"<section class="panel" id="pages-section" aria-labelledby="pages-heading"><h2 id="pages-heading">Pages <span class="muted" id="page-count"></span></h2>
<p class="print-only">All {pages} crawled URLs are in report.html and pages.csv.</p>
<div class="controls"><input id="page-filter" type="search" placeholder="Filter pages" aria-label="Filter pages by URL, status, verdict, reason or title"><span class="muted">Click a URL for its details and links; click a column to sort.</span></div>
<div class="table-wrap" id="pages-table-wrap"><table id="pages"><thead><tr>{headers}</tr></thead><tbody></tbody></table></div>
<button type="button" class="more" id="pages-more" hidden></button>
<noscript><p>The URL lists, the pages table and the page details need JavaScript; findings.csv, pages.csv and links.csv hold the same data.</p></noscript>
</section>"#,
        pages = thousands(report.counts.pages),
    )
}

/// The drill-down of one page, filled by the script.
const DRILL_DOWN: &str = r#"<dialog id="drill" class="drill" aria-labelledby="drill-title"><div class="drill-head"><h2 id="drill-title" class="url"></h2><button type="button" id="drill-close">Close</button></div><div class="drill-body" id="drill-body"></div></dialog>"#;

/// What the script needs, its long lists as arrays (see the top of script.js).
#[derive(Serialize)]
struct EmbeddedData<'a> {
    kinds: &'a [KindSummary],
    extract: &'a [String],
    findings: Vec<EmbeddedFinding<'a>>,
    fixed: Vec<EmbeddedFinding<'a>>,
    pages: Vec<EmbeddedPage<'a>>,
    links: Vec<EmbeddedLink<'a>>,
}

/// `[code, url, detail, referrers, change]`
type EmbeddedFinding<'a> = (&'a str, &'a str, &'a str, &'a [String], Option<&'a str>);

/// `[url, status, verdict, reason, depth, title, bytes, elapsed_ms, inlinks, outlinks, extracted]`
type EmbeddedPage<'a> = (
    &'a str,
    Option<u16>,
    &'a str,
    Option<&'a str>,
    u32,
    Option<&'a str>,
    Option<u64>,
    Option<u64>,
    u64,
    u64,
    &'a [String],
);

/// `[source, target, kind, anchor, nofollow]`
type EmbeddedLink<'a> = (usize, usize, &'a str, &'a str, bool);

impl<'a> EmbeddedData<'a> {
    fn of(report: &'a Report) -> EmbeddedData<'a> {
        let finding = |row: &'a FindingRow| -> EmbeddedFinding<'a> {
            (row.code, &row.url, &row.detail, &row.referrers, row.change)
        };
        let page = |row: &'a PageRow| -> EmbeddedPage<'a> {
            (
                &row.url,
                row.status,
                &row.verdict,
                row.reason.as_deref(),
                row.depth,
                row.title.as_deref(),
                row.bytes,
                row.elapsed_ms,
                row.inlinks,
                row.outlinks,
                &row.extracted,
            )
        };
        let link = |row: &'a LinkRow| -> EmbeddedLink<'a> {
            (row.source, row.target, row.kind, &row.anchor, row.nofollow)
        };
        EmbeddedData {
            kinds: &report.kinds,
            extract: &report.extract_names,
            findings: report.findings.iter().map(finding).collect(),
            fixed: report.fixed.iter().map(finding).collect(),
            pages: report.pages.iter().map(page).collect(),
            // A link to a page the report does not hold would break the drill-down.
            links: report
                .links
                .iter()
                .filter(|row| row.source < report.pages.len() && row.target < report.pages.len())
                .map(link)
                .collect(),
        }
    }
}

/// `value` as JSON that can sit inside a `<script>` element. `<`, `>` and `&` become
/// `\u003c`, `\u003e` and `\u0026`, so that no `</script>` ends the element and no `<!--` puts
/// the HTML parser into the escaped states that swallow the rest of the page (HTML,
/// "Restrictions for contents of script elements":
/// <https://html.spec.whatwg.org/multipage/scripting.html#restrictions-for-contents-of-script-elements>).
/// U+2028 and U+2029 are escaped too: JavaScript before ES2019 ends a string at them, should
/// the text ever be read as a script. serde_json writes these characters only inside strings,
/// where the escape stands for the same character (RFC 8259 section 7), so the value is intact.
fn script_json(value: &impl Serialize) -> serde_json::Result<String> {
    let json = serde_json::to_string(value)?;
    let mut escaped = String::with_capacity(json.len());
    for character in json.chars() {
        match character {
            '<' => escaped.push_str("\\u003c"),
            '>' => escaped.push_str("\\u003e"),
            '&' => escaped.push_str("\\u0026"),
            '\u{2028}' => escaped.push_str("\\u2028"),
            '\u{2029}' => escaped.push_str("\\u2029"),
            other => escaped.push(other),
        }
    }
    Ok(escaped)
}

#[cfg(test)]
mod tests;
