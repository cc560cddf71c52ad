use super::*;
use crate::methodology::Methodology;
use crate::model::{ActionRow, Logo, PageCounts, PreviousAudit, Score, TrendPoint};
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

const HOSTILE: &str = "</script><script>alert(1)</script><b>\"x\"</b> & more";

fn kind(code: &'static str, severity: &'static str, count: u64, fixed: u64) -> KindSummary {
    KindSummary {
        code,
        title: "A <title> of its own",
        severity,
        priority: match severity {
            "error" => "high",
            "warning" => "medium",
            _ => "low",
        },
        why: "Because <it> matters.",
        fix: "Fix it & move on.",
        count,
        new: count.min(1),
        fixed,
    }
}

fn finding(code: &'static str, url: &str, change: Option<&'static str>) -> FindingRow {
    FindingRow {
        code,
        url: url.to_string(),
        detail: HOSTILE.to_string(),
        referrers: vec!["https://e.com/".to_string()],
        change,
    }
}

fn page(url: &str) -> PageRow {
    PageRow {
        url: url.to_string(),
        status: Some(200),
        verdict: "indexable".to_string(),
        reason: None,
        depth: 1,
        title: Some(HOSTILE.to_string()),
        title_length: Some(HOSTILE.chars().count() as u64),
        word_count: Some(12),
        bytes: Some(2048),
        elapsed_ms: Some(120),
        inlinks: 1,
        outlinks: 0,
        extracted: vec![HOSTILE.to_string()],
    }
}

/// A report of a second audit: two errors, a warning all fixed, two notices.
fn report() -> Report {
    Report {
        site: "https://e.com/".to_string(),
        title: "Audit of <e.com>".to_string(),
        logo: Some(Logo {
            data_url: "data:image/png;base64,iVBORw0KGgo=".to_string(),
        }),
        generated_at: "2025-05-02 10:00 UTC".to_string(),
        run: 7,
        host_map: vec!["staging.e.com -> e.com".to_string()],
        score: Score {
            value: 82,
            previous: Some(76),
            rule: sitemapper_audit::SCORE_RULE,
        },
        actions: vec![ActionRow {
            code: "broken-link",
            title: "Broken internal link target",
            severity: "error",
            count: 2,
            gain: 12.5,
            with_those_before: false,
            fix: "Fix the links.",
        }],
        methodology: Methodology {
            user_agent: HOSTILE.to_string(),
            sitemaps: HOSTILE.to_string(),
            ..Methodology::default()
        },
        trend: vec![
            TrendPoint {
                run: 3,
                date: "2025-04-01".to_string(),
                score: 76,
            },
            TrendPoint {
                run: 7,
                date: "2025-05-02".to_string(),
                score: 82,
            },
        ],
        compared_with: Some(PreviousAudit {
            run: 3,
            generated_at: "2025-04-01 10:00 UTC".to_string(),
        }),
        counts: PageCounts {
            pages: 1234,
            listed: 1000,
            status_codes: BTreeMap::from([("200".to_string(), 1200), ("404".to_string(), 34)]),
            depths: BTreeMap::from([(0, 1), (1, 999)]),
        },
        severities: BTreeMap::from([("error", 2), ("warning", 0), ("notice", 2)]),
        site_sitemaps: vec!["https://e.com/sitemap.xml".to_string()],
        site_sitemap_urls: 990,
        kinds: vec![
            kind("broken-link", "error", 1, 0),
            kind("redirect-loop", "error", 1, 0),
            kind("slow", "warning", 0, 3),
            kind("too-deep", "notice", 1, 0),
            kind("large", "notice", 1, 0),
        ],
        findings: vec![
            finding("broken-link", "https://e.com/broken", Some("new")),
            finding("redirect-loop", "https://e.com/loop", Some("persisting")),
            finding("too-deep", "https://e.com/deep", Some("persisting")),
            finding("large", "https://e.com/big", Some("persisting")),
        ],
        fixed: vec![finding("slow", "https://e.com/slow", Some("fixed"))],
        extract_names: vec!["price <EUR>".to_string()],
        pages: vec![page("https://e.com/"), page("https://e.com/deep")],
        links: vec![LinkRow {
            source: 0,
            target: 1,
            kind: "a",
            anchor: HOSTILE.to_string(),
            nofollow: false,
        }],
        outbound: Vec::new(),
    }
}

/// The HTML before the embedded data: what Rust wrote.
fn markup(html: &str) -> &str {
    html.split(r#"<script type="application/json""#)
        .next()
        .unwrap()
}

#[test]
fn every_kind_has_its_row_with_badges_counts_and_texts() {
    let html = render(&report()).unwrap();
    assert_eq!(html.matches(r#"<article class="kind "#).count(), 5);
    for code in ["broken-link", "redirect-loop", "slow", "too-deep", "large"] {
        assert!(
            html.contains(&format!(r#"id="kind-{code}" data-code="{code}""#)),
            "{code}"
        );
    }
    let broken = html.split(r#"id="kind-broken-link""#).nth(1).unwrap();
    let broken = broken.split("</article>").next().unwrap();
    for text in [
        r#"<span class="badge priority high">high priority</span>"#,
        r#"<span class="badge error">error</span>"#,
        "<h4>A &lt;title&gt; of its own</h4>",
        r#"<span class="kind-count">1 URL</span>"#,
        r#"<span class="badge change-new">1 new</span>"#,
        "Why it matters:</span> Because &lt;it&gt; matters.",
        "How to fix:</span> Fix it &amp; move on.",
        r#"aria-expanded="false" aria-controls="urls-broken-link""#,
    ] {
        assert!(broken.contains(text), "{text} in {broken}");
    }
    // A kind whose findings are all fixed still shows, marked so.
    let slow = html.split(r#"id="kind-slow""#).nth(1).unwrap();
    let slow = slow.split("</article>").next().unwrap();
    assert!(slow.contains(r#"<span class="badge all-fixed">all fixed</span>"#));
    assert!(slow.contains(r#"<span class="badge change-fixed">3 fixed</span>"#));
    assert!(slow.contains("Show the 3 fixed URLs"));
}

#[test]
fn notices_are_folded_in_their_own_group_and_the_rest_are_not() {
    let html = render(&report()).unwrap();
    let (before, notices) = html
        .split_once(r#"<div class="group notices" id="notices">"#)
        .unwrap();
    let notices = notices.split("</section>").next().unwrap();
    assert!(notices.contains(
        r#"<button type="button" class="group-toggle" aria-expanded="false" aria-controls="notice-kinds">Notices: 2 kinds, 2 findings</button>"#
    ));
    assert!(notices.contains(r#"<div class="group-body" id="notice-kinds" hidden>"#));
    for code in ["too-deep", "large"] {
        assert!(notices.contains(&format!("id=\"kind-{code}\"")), "{code}");
        assert!(!before.contains(&format!("id=\"kind-{code}\"")), "{code}");
    }
    for code in ["broken-link", "redirect-loop", "slow"] {
        assert!(before.contains(&format!("id=\"kind-{code}\"")), "{code}");
        assert!(!notices.contains(&format!("id=\"kind-{code}\"")), "{code}");
    }
    assert!(before.contains("<h3>Errors and warnings: 3 kinds, 2 findings</h3>"));
}

#[test]
fn the_summary_tells_the_score_its_change_and_what_is_new_or_fixed() {
    let html = render(&report()).unwrap();
    assert!(html.contains(r#"<div class="score-number">82<span class="of"> / 100</span></div>"#));
    assert!(html.contains(r#"<p class="score-change up">+6 since the last audit</p>"#));
    assert!(html.contains("Notices do not lower it."));
    assert!(html.contains("/blob/main/docs/audit.md#health-score\">How the score is computed</a>"));
    assert!(html.contains(
        r##"<a href="#kind-broken-link">Broken internal link target</a></div>
<p class="action-gain"><strong>+12.5 points</strong> · 2 findings</p>"##
    ));
    assert!(html.contains(r#"class="trend-chart" viewBox="#));
    assert!(html.contains(
        r#"<div class="value">4</div><div class="label">new issues since run #3 (2025-04-01 10:00 UTC)</div>"#
    ));
    assert!(html.contains(
        r#"<div class="value">3</div><div class="label">fixed issues since run #3 (2025-04-01 10:00 UTC)</div>"#
    ));
    assert!(
        html.contains(r#"<div class="value">1,234</div><div class="label">URLs crawled</div>"#)
    );
    assert!(html.contains(r#"<title>Audit of &lt;e.com&gt;</title>"#));
    assert!(html.contains(r#"<h1>Audit of &lt;e.com&gt;</h1>"#));
    assert!(
        html.contains(r#"<img class="logo" src="data:image/png;base64,iVBORw0KGgo=" alt="Logo">"#)
    );
    assert!(html.contains("staging.e.com -&gt; e.com"));

    // A first audit: no change, no trend, no new and fixed cards.
    let mut first = report();
    first.score.previous = None;
    first.trend.truncate(1);
    first.compared_with = None;
    let html = render(&first).unwrap();
    let written = markup(&html);
    assert!(!written.contains("<p class=\"score-change"));
    assert!(!written.contains("<svg class=\"trend-chart\""));
    assert!(!html.contains("new issues"));
    assert!(!html.contains("change-new\">1 new"));
}

#[test]
fn crawled_text_reaches_the_page_as_text_only() {
    let html = render(&report()).unwrap();
    let written = markup(&html);
    assert!(!written.contains("<script>alert"), "{written}");
    assert!(written.contains("&lt;/script&gt;&lt;script&gt;alert(1)"));
    // The methodology block names the user agent and the site's sitemaps as text.
    let methodology = written
        .split("id=\"methodology\"")
        .nth(1)
        .unwrap()
        .split("</section>")
        .next()
        .unwrap();
    assert_eq!(
        methodology
            .matches("&lt;/script&gt;&lt;script&gt;alert(1)")
            .count(),
        2,
        "{methodology}"
    );
    assert_eq!(
        html.matches("<script").count(),
        2,
        "the report's own scripts"
    );
    // The embedded data reads back exact.
    let data = html
        .split(r#"<script type="application/json" id="report-data">"#)
        .nth(1)
        .unwrap()
        .split("</script>")
        .next()
        .unwrap();
    let data: Value = serde_json::from_str(data).unwrap();
    assert_eq!(data["findings"][0][2], HOSTILE);
    assert_eq!(data["pages"][0][5], HOSTILE);
    assert_eq!(data["links"][0], json!([0, 1, "a", HOSTILE, false]));
    assert_eq!(data["extract"][0], "price <EUR>");
    // The script builds nodes, never markup from strings.
    assert!(!SCRIPT.contains("innerHTML") && !SCRIPT.contains("insertAdjacentHTML"));
}

#[test]
fn the_style_never_breaks_words_and_keeps_badges_on_one_line() {
    assert!(!STYLE.contains("break-all"));
    assert!(!STYLE.contains("word-break"));
    let badge = STYLE
        .lines()
        .find(|line| line.starts_with(".badge{"))
        .unwrap();
    assert!(badge.contains("white-space:nowrap"), "{badge}");
    assert!(STYLE.contains("@media print"));
    assert!(STYLE.contains("@media (max-width:"));
    let charts = render(&report()).unwrap();
    for class in ["status-chart", "depth-chart", "trend-chart"] {
        let svg = charts
            .split(&format!(r#"<svg class="{class}""#))
            .nth(1)
            .unwrap();
        let svg = svg.split('>').next().unwrap();
        assert!(
            svg.contains(" viewBox=\"0 0 ") && svg.contains(r#"width="100%""#),
            "{svg}"
        );
    }
}

#[test]
fn a_report_without_findings_says_so() {
    let mut clean = report();
    clean.kinds.clear();
    clean.findings.clear();
    clean.fixed.clear();
    let html = render(&clean).unwrap();
    assert!(html.contains("No issues found."));
    assert!(!html.contains("group notices"));
}

#[test]
fn numbers_are_grouped_by_thousands() {
    for (value, written) in [
        (0, "0"),
        (999, "999"),
        (1000, "1,000"),
        (1234567, "1,234,567"),
    ] {
        assert_eq!(thousands(value), written);
    }
    assert_eq!(counted(1, "URL", "URLs"), "1 URL");
    assert_eq!(counted(2000, "URL", "URLs"), "2,000 URLs");
}

#[test]
fn printed_details_are_cut_at_a_character_with_an_ellipsis() {
    assert_eq!(shortened("short", 10), "short");
    assert_eq!(shortened("exactly10!", 10), "exactly10!");
    assert_eq!(shortened("one two three", 8), "one two…");
    assert_eq!(shortened("ééééé", 3), "ééé…");
}

#[test]
fn the_contents_link_to_every_section_group_and_kind_of_the_report() {
    let html = render(&report()).unwrap();
    let markup = markup(&html);
    let nav = markup
        .split(r#"<nav class="panel contents""#)
        .nth(1)
        .unwrap()
        .split("</nav>")
        .next()
        .unwrap();
    let anchors: Vec<&str> = nav
        .split(r##"href="#"##)
        .skip(1)
        .map(|rest| rest.split('"').next().unwrap())
        .collect();
    assert_eq!(
        anchors,
        [
            "score",
            "actions",
            "methodology",
            "summary",
            "charts",
            "issues",
            "errors-and-warnings",
            "kind-broken-link",
            "kind-redirect-loop",
            "kind-slow",
            "notices",
            "kind-too-deep",
            "kind-large",
            "pages-section",
        ]
    );
    for anchor in anchors {
        assert_eq!(
            markup.matches(&format!(r#" id="{anchor}""#)).count(),
            1,
            "one element is #{anchor}"
        );
    }
    assert!(nav.contains(r##"<a href="#kind-slow">"##));
    assert!(nav.contains(r#"<span class="muted">all fixed</span>"#));
    assert!(nav.contains(r#"<span class="muted">1 URL</span>"#));
}

#[test]
fn kinds_fixed_together_say_what_they_give_with_those_above_never_plus_nothing() {
    let mut together = report();
    let action = |code, gain| ActionRow {
        code,
        title: "A kind",
        severity: "warning",
        count: 3,
        gain,
        with_those_before: true,
        fix: "Fix it.",
    };
    together.actions = vec![action("no-viewport", 0.0), action("missing-h1", 18.75)];
    let html = render(&together).unwrap();
    assert!(html.contains("Fixed together, in this order, these kinds raise the score"));
    assert!(
        html.contains(
            r#"<p class="action-gain"><strong>with those below</strong> · 3 findings</p>"#
        )
    );
    assert!(html.contains(
        r#"<p class="action-gain"><strong>+18.8 points with those above</strong> · 3 findings</p>"#
    ));
    assert!(!html.contains("+0.0 points"));
}

#[test]
fn findings_too_few_to_move_the_score_are_not_said_to_lower_nothing() {
    let mut few = report();
    few.actions.clear();
    let html = render(&few).unwrap();
    assert!(html.contains("raises the score by less than a hundredth of a point"));
    assert!(!html.contains("No finding lowers the score"));
    few.score.value = 100;
    let html = render(&few).unwrap();
    assert!(html.contains("No finding lowers the score: there is nothing to fix first."));
}
