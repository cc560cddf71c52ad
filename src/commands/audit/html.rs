//! report.html: one self-contained file a consultant can hand over. No network: styles,
//! script, data and charts (inline SVG) are all inside. The summary and charts are plain HTML;
//! the tables are built from the embedded JSON by a small script that sorts and filters them.

use std::collections::BTreeMap;
use std::fmt::Write;

use serde::Serialize;

use super::files::ReportJson;
use super::model::Report;

const STYLE: &str = r#"
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;color:#1d2330;background:#f6f7f9}
header{background:#1d2330;color:#fff;padding:24px 32px}header h1{margin:0 0 4px;font-size:22px}
header p{margin:0;opacity:.8}main{padding:24px 32px;max-width:1400px}
.cards{display:flex;flex-wrap:wrap;gap:16px;margin-bottom:24px}
.card{background:#fff;border-radius:8px;padding:16px 20px;min-width:150px;box-shadow:0 1px 3px rgba(0,0,0,.08)}
.card .value{font-size:28px;font-weight:600}.card .label{color:#5b6475}
.error .value{color:#c62828}.warning .value{color:#ef6c00}.notice .value{color:#1565c0}
.charts{display:flex;flex-wrap:wrap;gap:16px;margin-bottom:24px}
.chart{background:#fff;border-radius:8px;padding:16px;box-shadow:0 1px 3px rgba(0,0,0,.08)}
.chart h2,section h2{font-size:17px;margin:0 0 12px}
section{background:#fff;border-radius:8px;padding:16px;margin-bottom:24px;box-shadow:0 1px 3px rgba(0,0,0,.08)}
.controls{display:flex;gap:12px;margin-bottom:12px;flex-wrap:wrap}
input,select{font:inherit;padding:6px 8px;border:1px solid #c9ced8;border-radius:6px}
table{border-collapse:collapse;width:100%;font-size:14px}
th{position:sticky;top:0;background:#eef0f4;text-align:left;cursor:pointer;user-select:none;padding:6px 8px}
td{border-top:1px solid #eceef2;padding:6px 8px;vertical-align:top;word-break:break-all}
th.sorted-asc::after{content:" \25B2"}th.sorted-desc::after{content:" \25BC"}
.badge{display:inline-block;border-radius:4px;padding:1px 6px;font-size:12px;font-weight:600;color:#fff}
.badge.error{background:#c62828}.badge.warning{background:#ef6c00}.badge.notice{background:#1565c0}
details{margin-top:4px}summary{cursor:pointer;color:#5b6475}
.count{color:#5b6475;margin-left:8px}
"#;

/// Sorting and filtering of the tables built from the embedded data.
const SCRIPT: &str = r#"
const data = JSON.parse(document.getElementById('report-data').textContent);
const severityRank = {error: 0, warning: 1, notice: 2};
function cell(text) { const td = document.createElement('td'); td.textContent = text; return td; }
function buildFindings() {
  const body = document.querySelector('#findings tbody');
  body.replaceChildren();
  const query = document.getElementById('finding-filter').value.toLowerCase();
  const severity = document.getElementById('severity-filter').value;
  let shown = 0;
  for (const finding of data.rows.findings) {
    const text = [finding.title, finding.url, finding.detail, finding.referrers.join(' ')].join(' ').toLowerCase();
    if ((severity && finding.severity !== severity) || (query && !text.includes(query))) continue;
    const row = document.createElement('tr');
    row.className = 'finding ' + finding.severity;
    const badge = document.createElement('td');
    badge.innerHTML = '<span class="badge ' + finding.severity + '">' + finding.severity + '</span>';
    badge.dataset.sort = severityRank[finding.severity];
    row.append(badge, cell(finding.title), cell(finding.url), cell(finding.detail));
    const referrers = document.createElement('td');
    referrers.dataset.sort = finding.referrers.length;
    if (finding.referrers.length) {
      const details = document.createElement('details');
      const summary = document.createElement('summary');
      summary.textContent = finding.referrers.length + (finding.referrers.length === 1 ? ' page' : ' pages');
      details.append(summary);
      for (const referrer of finding.referrers) { const line = document.createElement('div'); line.textContent = referrer; details.append(line); }
      referrers.append(details);
    }
    row.append(referrers);
    body.append(row);
    shown++;
  }
  document.getElementById('finding-count').textContent = shown + ' of ' + data.rows.findings.length;
}
function buildPages() {
  const body = document.querySelector('#pages tbody');
  body.replaceChildren();
  const query = document.getElementById('page-filter').value.toLowerCase();
  let shown = 0;
  for (const page of data.rows.pages) {
    if (query && !page.join(' ').toLowerCase().includes(query)) continue;
    const row = document.createElement('tr');
    row.className = 'page';
    for (const value of page) row.append(cell(value));
    body.append(row);
    shown++;
  }
  document.getElementById('page-count').textContent = shown + ' of ' + data.rows.pages.length;
}
function sortable(table) {
  table.querySelectorAll('th').forEach((header, column) => header.addEventListener('click', () => {
    const ascending = !header.classList.contains('sorted-asc');
    table.querySelectorAll('th').forEach(other => other.classList.remove('sorted-asc', 'sorted-desc'));
    header.classList.add(ascending ? 'sorted-asc' : 'sorted-desc');
    const rows = Array.from(table.tBodies[0].rows);
    const key = row => { const td = row.cells[column]; return td.dataset.sort !== undefined ? Number(td.dataset.sort) : td.textContent; };
    rows.sort((a, b) => { const x = key(a), y = key(b); const order = typeof x === 'number' ? x - y : String(x).localeCompare(String(y), undefined, {numeric: true}); return ascending ? order : -order; });
    table.tBodies[0].append(...rows);
  }));
}
document.getElementById('finding-filter').addEventListener('input', buildFindings);
document.getElementById('severity-filter').addEventListener('change', buildFindings);
document.getElementById('page-filter').addEventListener('input', buildPages);
buildFindings();
buildPages();
sortable(document.getElementById('findings'));
sortable(document.getElementById('pages'));
"#;

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

/// The HTML report.
pub(super) fn render(full: &Report) -> anyhow::Result<String> {
    let report = &ReportJson::of(full);
    let pages: Vec<[String; 6]> = full
        .pages
        .iter()
        .map(|page| {
            [
                page.url.clone(),
                page.status
                    .map(|status| status.to_string())
                    .unwrap_or_default(),
                page.verdict.clone(),
                page.reason.clone().unwrap_or_default(),
                page.depth.to_string(),
                page.title.clone().unwrap_or_default(),
            ]
        })
        .collect();
    let data = serde_json::json!({
        "rows": {
            "findings": report.findings,
            "pages": pages,
        }
    });
    let data = script_json(&data)?;
    let mut html = String::with_capacity(data.len() + 16 * 1024);
    let severity = |name: &str| report.severities.get(name).copied().unwrap_or(0);
    write!(
        html,
        r#"<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Site audit: {site}</title><style>{STYLE}</style></head>
<body><header><h1>Site audit: {site}</h1><p>Crawled by sitemapper on {generated}, run #{run}.</p>{host_map}</header>
<main>
<div class="cards" id="summary">
<div class="card"><div class="value">{pages}</div><div class="label">URLs crawled</div></div>
<div class="card"><div class="value">{listed}</div><div class="label">indexable pages</div></div>
<div class="card error"><div class="value">{errors}</div><div class="label">errors</div></div>
<div class="card warning"><div class="value">{warnings}</div><div class="label">warnings</div></div>
<div class="card notice"><div class="value">{notices}</div><div class="label">notices</div></div>
<div class="card"><div class="value">{sitemap_urls}</div><div class="label">URLs in the site's sitemaps</div></div>
</div>
<div class="charts">
<div class="chart"><h2>Status codes</h2>{status_chart}</div>
<div class="chart"><h2>Indexable pages by clicks from the start page</h2>{depth_chart}</div>
</div>
<section><h2>Findings <span class="count" id="finding-count"></span></h2>
<div class="controls"><input id="finding-filter" type="search" placeholder="Filter findings" aria-label="Filter findings">
<select id="severity-filter" aria-label="Severity"><option value="">All severities</option><option value="error">Errors</option><option value="warning">Warnings</option><option value="notice">Notices</option></select></div>
<table id="findings"><thead><tr><th>Severity</th><th>Finding</th><th>URL</th><th>Detail</th><th>Linked from</th></tr></thead><tbody></tbody></table>
<noscript><p>The tables need JavaScript; findings.csv and pages.csv hold the same rows.</p></noscript>
</section>
<section><h2>Pages <span class="count" id="page-count"></span></h2>
<div class="controls"><input id="page-filter" type="search" placeholder="Filter pages" aria-label="Filter pages"></div>
<table id="pages"><thead><tr><th>URL</th><th>Status</th><th>Verdict</th><th>Reason</th><th>Depth</th><th>Title</th></tr></thead><tbody></tbody></table>
</section>
</main>
<script type="application/json" id="report-data">{data}</script>
<script>{SCRIPT}</script>
</body></html>
"#,
        site = escape(report.site),
        generated = escape(report.generated_at),
        host_map = host_map_note(report.host_map),
        run = report.run,
        pages = report.counts.pages,
        listed = report.counts.listed,
        errors = severity("error"),
        warnings = severity("warning"),
        notices = severity("notice"),
        sitemap_urls = report.site_sitemap_urls,
        status_chart = bar_chart(&report.counts.status_codes, "status"),
        depth_chart = bar_chart(
            &report
                .counts
                .depths
                .iter()
                .map(|(depth, count)| (depth.to_string(), *count))
                .collect(),
            "depth"
        ),
    )?;
    Ok(html)
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

/// A horizontal bar chart as inline SVG, one bar per key.
fn bar_chart(values: &BTreeMap<String, u64>, name: &str) -> String {
    const BAR: usize = 22;
    const LABEL: usize = 60;
    const WIDTH: usize = 360;
    if values.is_empty() {
        return "<p>No data.</p>".to_string();
    }
    let largest = values.values().copied().max().unwrap_or(1).max(1);
    let height = values.len() * BAR + 4;
    let mut svg = format!(
        r#"<svg class="{name}-chart" width="{}" height="{height}" role="img" aria-label="{name} chart" xmlns="http://www.w3.org/2000/svg">"#,
        LABEL + WIDTH + 60
    );
    for (index, (label, count)) in values.iter().enumerate() {
        let y = index * BAR;
        let width = ((*count as f64 / largest as f64) * WIDTH as f64)
            .round()
            .max(1.0);
        let color = match label.chars().next() {
            Some('2') | None => "#2e7d32",
            Some('3') => "#1565c0",
            Some('4') => "#ef6c00",
            Some('5') => "#c62828",
            _ if name == "depth" => "#455a64",
            _ => "#757575",
        };
        let _ = write!(
            svg,
            r#"<text x="0" y="{text_y}" font-size="13">{label}</text><rect x="{LABEL}" y="{rect_y}" width="{width}" height="{bar}" fill="{color}"><title>{label}: {count}</title></rect><text x="{count_x}" y="{text_y}" font-size="13">{count}</text>"#,
            text_y = y + 16,
            rect_y = y + 3,
            bar = BAR - 6,
            label = escape(label),
            count_x = LABEL as f64 + width + 6.0,
        );
    }
    svg.push_str("</svg>");
    svg
}

fn escape(text: &str) -> String {
    quick_xml::escape::escape(text).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::{Value, json};

    /// The characters that must not appear raw in JSON inside a `<script>` element.
    const UNSAFE_IN_SCRIPT: [char; 5] = ['<', '>', '&', '\u{2028}', '\u{2029}'];

    #[test]
    fn markup_in_strings_is_escaped_and_the_rest_is_untouched() {
        for (text, written) in [
            ("<!--<script>", r#""\u003c!--\u003cscript\u003e""#),
            (
                "</script><script>alert(1)</script>",
                r#""\u003c/script\u003e\u003cscript\u003ealert(1)\u003c/script\u003e""#,
            ),
            ("]]>", r#""]]\u003e""#),
            ("Tom & \"Jerry\"", r#""Tom \u0026 \"Jerry\"""#),
            (
                "line\u{2028}paragraph\u{2029}",
                r#""line\u2028paragraph\u2029""#,
            ),
            // A backslash before `<` stays a backslash of its own.
            ("\\<", r#""\\\u003c""#),
            ("plain text, é, 42", r#""plain text, é, 42""#),
        ] {
            let escaped = script_json(&text).unwrap();
            assert_eq!(escaped, written, "{text:?}");
            assert_eq!(
                serde_json::from_str::<Value>(&escaped).unwrap(),
                json!(text)
            );
        }
    }

    #[test]
    fn keys_and_structure_are_escaped_the_same_way() {
        let value = json!({"<!--": ["</script>", 1, null, {"a&b": true}]});
        let escaped = script_json(&value).unwrap();
        assert_eq!(
            escaped,
            r#"{"\u003c!--":["\u003c/script\u003e",1,null,{"a\u0026b":true}]}"#
        );
        assert_eq!(serde_json::from_str::<Value>(&escaped).unwrap(), value);
    }

    /// Text rich in what HTML and JavaScript treat specially, and anything else.
    fn hostile_text() -> impl Strategy<Value = String> {
        prop_oneof![
            any::<String>(),
            proptest::collection::vec(
                prop_oneof![
                    Just("<!--".to_string()),
                    Just("</script>".to_string()),
                    Just("<script>".to_string()),
                    Just("-->".to_string()),
                    Just("\\".to_string()),
                    Just("\"".to_string()),
                    Just("&amp;".to_string()),
                    Just("\u{2028}\u{2029}".to_string()),
                    any::<char>().prop_map(String::from),
                ],
                0..12
            )
            .prop_map(|parts| parts.concat()),
        ]
    }

    proptest! {
        #[test]
        fn escaped_json_reads_back_to_the_same_value_with_no_markup_left(
            texts in proptest::collection::vec(hostile_text(), 0..6),
        ) {
            let value = json!({ "rows": { "pages": [texts.clone()] }, "text": texts.concat() });
            let escaped = script_json(&value).unwrap();
            prop_assert!(!escaped.contains(UNSAFE_IN_SCRIPT), "{}", escaped);
            prop_assert_eq!(serde_json::from_str::<Value>(&escaped).unwrap(), value);
        }
    }
}
