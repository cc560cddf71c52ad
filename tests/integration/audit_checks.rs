//! `sitemapper audit`: each on-page check on a fixture page that has the problem and on one
//! that has not (over https, where mixed content means something), and the comparison of two
//! audits of a site that changed in between.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde_json::Value;

use crate::fixture::{Route, Server, Site, tls_config, tls_file};
use crate::harness::{Run, sitemapper};

/// The codes of the on-page checks.
const ON_PAGE: &[&str] = &[
    "missing-title",
    "title-too-long",
    "title-too-short",
    "missing-description",
    "description-too-long",
    "missing-h1",
    "multiple-h1",
    "images-without-alt",
    "mixed-content",
    "soft-404",
    "hreflang-to-non-indexable",
];

/// A page with `head` and `body`, and unless they have their own, a good title, description
/// and heading.
fn page(head: &str, body: &str) -> String {
    let title = if head.contains("<title>") {
        String::new()
    } else {
        "<title>A page of a good length for its title</title>".to_string()
    };
    let description = if head.contains("name=\"description\"") {
        String::new()
    } else {
        "<meta name=\"description\" content=\"What the page is about.\">".to_string()
    };
    let heading = if body.contains("<h") {
        String::new()
    } else {
        "<h1>The page</h1>".to_string()
    };
    format!(
        "<!DOCTYPE html><html lang=\"en\"><head>{title}{description}{head}</head><body>{heading}{body}</body></html>"
    )
}

/// Paths of the fixture site whose pages have one problem each, with the codes expected.
fn on_page_site() -> (Site, Vec<(&'static str, Vec<&'static str>)>) {
    let cases: Vec<(&str, String, Vec<&str>)> = vec![
        (
            "/clean",
            page(
                "",
                "<img src=\"/a.png\" alt=\"A\"><img src=\"/d.png\" alt=\"\">",
            ),
            vec![],
        ),
        (
            "/long-title",
            page(&format!("<title>{}</title>", "Long ".repeat(14)), ""),
            vec!["title-too-long"],
        ),
        (
            "/short-title",
            page("<title>Hi</title>", ""),
            vec!["title-too-short"],
        ),
        (
            "/no-title",
            page("<title> </title>", ""),
            vec!["missing-title"],
        ),
        (
            "/long-description",
            page(
                &format!(
                    "<meta name=\"description\" content=\"{}\">",
                    "word ".repeat(40)
                ),
                "",
            ),
            vec!["description-too-long"],
        ),
        (
            "/no-description",
            page("<meta name=\"description\" content=\"\">", ""),
            vec!["missing-description"],
        ),
        (
            "/no-h1",
            page("", "<h2>Only a subheading</h2>"),
            vec!["missing-h1"],
        ),
        (
            "/two-h1",
            page("", "<h1>One</h1><h1>Two</h1>"),
            vec!["multiple-h1"],
        ),
        (
            "/no-alt",
            page(
                "",
                "<img src=\"/photo.jpg\"><img src=\"/spacer.gif\" alt=\"\">",
            ),
            vec!["images-without-alt"],
        ),
        (
            "/mixed",
            page(
                "<script src=\"http://cdn.example.invalid/app.js\"></script>",
                "<img src=\"http://cdn.example.invalid/i.png\" alt=\"i\"><a href=\"http://example.invalid/\">a link is no resource</a>",
            ),
            vec!["mixed-content"],
        ),
        (
            "/soft",
            page("<title>Sorry - page not found on our shop</title>", ""),
            vec!["soft-404"],
        ),
        (
            "/en/",
            page(
                "<link rel=\"alternate\" hreflang=\"en\" href=\"/en/\"><link rel=\"alternate\" hreflang=\"de\" href=\"/de/\">",
                "",
            ),
            vec!["hreflang-to-non-indexable"],
        ),
        (
            "/de/",
            page(
                "<meta name=\"robots\" content=\"noindex\"><link rel=\"alternate\" hreflang=\"en\" href=\"/en/\"><link rel=\"alternate\" hreflang=\"de\" href=\"/de/\">",
                "",
            ),
            vec![],
        ),
    ];
    let links: String = cases
        .iter()
        .map(|(path, _, _)| format!("<a href=\"{path}\">{path}</a>"))
        .collect();
    let mut site = Site::new()
        .route(
            "/robots.txt",
            Route::new(
                200,
                "User-agent: *\nAllow: /\nSitemap: {origin}/sitemap.xml\n",
            ),
        )
        .page("/", &page("", &links));
    let mut locs = String::from("<url><loc>{origin}/</loc></url>");
    let mut expected = vec![("/", Vec::new())];
    for (path, html, codes) in cases {
        site = site.page(path, &html);
        if path != "/de/" {
            locs.push_str(&format!("<url><loc>{{origin}}{path}</loc></url>"));
        }
        expected.push((path, codes));
    }
    let site = site.route(
        "/sitemap.xml",
        Route::new(
            200,
            &format!(
                "<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">{locs}</urlset>"
            ),
        )
        .header("Content-Type", "application/xml"),
    );
    (site, expected)
}

fn audit(server: &Server, report: &Path, extra: &[&str]) -> Run {
    let seed = server.url("/");
    let mut args = vec!["audit", &seed, "--report", report.to_str().unwrap()];
    args.extend_from_slice(extra);
    sitemapper(&args)
}

fn report_json(report: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(report.join("report.json")).unwrap()).unwrap()
}

/// `path -> codes` of the findings of report.json among `codes`.
pub(crate) fn codes_by_path(
    report: &Value,
    key: &str,
    server: &Server,
    codes: &[&str],
) -> BTreeMap<String, BTreeSet<String>> {
    let mut found: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for finding in report[key].as_array().unwrap() {
        let code = finding["kind"].as_str().unwrap();
        if codes.contains(&code) {
            let path = finding["url"]
                .as_str()
                .unwrap()
                .trim_start_matches(&server.origin())
                .to_string();
            found.entry(path).or_default().insert(code.to_string());
        }
    }
    found
}

#[test]
fn each_on_page_check_flags_the_page_that_has_the_problem_and_no_other() {
    let (site, expected) = on_page_site();
    let server = site.serve_tls(tls_config());
    let report = tempfile::tempdir().unwrap();
    let ca = tls_file("ca.pem");
    // The pages link to example.invalid: not checked, so that the test asks nothing of a
    // resolver.
    let run = audit(
        &server,
        report.path(),
        &["--cacert", ca.to_str().unwrap(), "--check-external=false"],
    );
    run.assert_success();
    let json = report_json(report.path());
    let found = codes_by_path(&json, "findings", &server, ON_PAGE);
    for (path, codes) in expected {
        let codes: BTreeSet<String> = codes.iter().map(ToString::to_string).collect();
        assert_eq!(
            found.get(path).cloned().unwrap_or_default(),
            codes,
            "{path}: {found:#?}"
        );
    }
    let detail = |code: &str| -> String {
        json["findings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|finding| finding["kind"] == code)
            .map(|finding| finding["detail"].as_str().unwrap().to_string())
            .unwrap()
    };
    assert_eq!(
        detail("mixed-content"),
        "loads http://cdn.example.invalid/app.js http://cdn.example.invalid/i.png"
    );
    assert_eq!(
        detail("images-without-alt"),
        format!("1 image: {}", server.url("/photo.jpg"))
    );
    assert_eq!(
        detail("soft-404"),
        "title \"Sorry - page not found on our shop\""
    );

    // pages.csv has the headings and language; links.csv the anchor texts and images.
    let pages = std::fs::read_to_string(report.path().join("pages.csv")).unwrap();
    assert!(
        pages.lines().next().unwrap().ends_with(
            "h1_count,h1,lang,images_without_alt,inlinks,outlinks,title_length,word_count"
        ),
        "{pages}"
    );
    assert!(pages.contains(",2,One,en,0"), "{pages}");
    let links = std::fs::read_to_string(report.path().join("links.csv")).unwrap();
    assert!(
        links.contains(&format!(
            "{},{},a,/no-alt,false",
            server.url("/"),
            server.url("/no-alt")
        )),
        "{links}"
    );
    assert!(
        links.contains(&format!(
            "{},{},image,,false",
            server.url("/no-alt"),
            server.url("/photo.jpg")
        )),
        "{links}"
    );
}

/// The site of the comparison: version 1, then version 2 with one problem fixed, one
/// persisting and two new.
fn changing_site(version: u32) -> Site {
    // Titles and descriptions of their own, so that no page duplicates another.
    let own = |name: &str, description: &str| {
        format!(
            "<title>The {name} page of the changing fixture site</title><meta name=\"description\" content=\"{description}\">"
        )
    };
    let long_title = "<title>A home page title that goes on and on well past sixty characters</title><meta name=\"description\" content=\"Home.\">";
    let (home_links, a, b, extra) = match version {
        1 => (
            "<a href=\"/a\">A</a><a href=\"/b\">B</a><a href=\"/missing\">gone</a>",
            page(&own("A", "About A."), "<h2>no main heading</h2>"),
            page(&own("B", "About B."), "fine"),
            None,
        ),
        _ => (
            "<a href=\"/a\">A</a><a href=\"/b\">B</a><a href=\"/c\">C</a>",
            page(&own("A", "About A."), "<h1>A heading now</h1>"),
            page(&own("B", ""), "fine"),
            Some(page(
                "<title>C</title><meta name=\"description\" content=\"About C.\">",
                "new page",
            )),
        ),
    };
    let mut locs = String::from(
        "<url><loc>{origin}/</loc></url><url><loc>{origin}/a</loc></url><url><loc>{origin}/b</loc></url>",
    );
    let mut site = Site::new()
        .route(
            "/robots.txt",
            Route::new(
                200,
                "User-agent: *\nAllow: /\nSitemap: {origin}/sitemap.xml\n",
            ),
        )
        .page("/", &page(long_title, home_links))
        .page("/a", &a)
        .page("/b", &b);
    if let Some(c) = extra {
        site = site.page("/c", &c);
        locs.push_str("<url><loc>{origin}/c</loc></url>");
    }
    site.route(
        "/sitemap.xml",
        Route::new(
            200,
            &format!(
                "<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">{locs}</urlset>"
            ),
        )
        .header("Content-Type", "application/xml"),
    )
}

/// `(code, path, change)` of report.json's `key` list.
fn marks(report: &Value, key: &str, server: &Server) -> BTreeSet<(String, String, String)> {
    report[key]
        .as_array()
        .unwrap()
        .iter()
        .filter(|finding| !crate::audit_breadth::is_breadth(finding["kind"].as_str().unwrap()))
        .map(|finding| {
            (
                finding["kind"].as_str().unwrap().to_string(),
                finding["url"]
                    .as_str()
                    .unwrap()
                    .trim_start_matches(&server.origin())
                    .to_string(),
                finding["change"].as_str().unwrap_or("none").to_string(),
            )
        })
        .collect()
}

fn mark(code: &str, path: &str, change: &str) -> (String, String, String) {
    (code.to_string(), path.to_string(), change.to_string())
}

#[test]
fn a_second_audit_marks_findings_new_persisting_and_fixed() {
    let server = changing_site(1).serve();
    let report = tempfile::tempdir().unwrap();
    let first = audit(&server, report.path(), &["--retries", "0"]);
    first.assert_success();
    let json = report_json(report.path());
    assert_eq!(
        marks(&json, "findings", &server),
        BTreeSet::from([
            mark("broken-link", "/missing", "none"),
            mark("missing-h1", "/a", "none"),
            mark("title-too-long", "/", "none"),
        ]),
        "a first audit has nothing to compare with"
    );
    assert!(json["compared_with"].is_null());
    let first_score = json["score"]["value"].as_u64().unwrap();
    assert!(json["score"]["previous"].is_null());
    assert!(
        first
            .stderr
            .contains(&format!("Health score: {first_score}.")),
        "{}",
        first.stderr
    );

    server.change(changing_site(2));
    let second = audit(&server, report.path(), &["--retries", "0"]);
    second.assert_success();
    let json = report_json(report.path());
    assert_eq!(
        marks(&json, "findings", &server),
        BTreeSet::from([
            mark("title-too-long", "/", "persisting"),
            mark("missing-description", "/b", "new"),
            mark("title-too-short", "/c", "new"),
        ])
    );
    assert_eq!(
        marks(&json, "fixed", &server),
        BTreeSet::from([
            mark("broken-link", "/missing", "fixed"),
            mark("missing-h1", "/a", "fixed"),
        ])
    );
    assert_eq!(json["compared_with"]["run"], 1);
    assert_eq!(json["score"]["previous"].as_u64(), Some(first_score));
    let trend: Vec<u64> = json["trend"]
        .as_array()
        .unwrap()
        .iter()
        .map(|point| point["score"].as_u64().unwrap())
        .collect();
    assert_eq!(
        trend,
        [first_score, json["score"]["value"].as_u64().unwrap()]
    );
    let kind = |code: &str| -> Value {
        json["kinds"]
            .as_array()
            .unwrap()
            .iter()
            .find(|kind| kind["code"] == code)
            .cloned()
            .unwrap_or_else(|| panic!("no kind {code}"))
    };
    assert_eq!(
        (
            kind("broken-link")["count"].as_u64(),
            kind("broken-link")["fixed"].as_u64()
        ),
        (Some(0), Some(1))
    );
    assert_eq!(
        (
            kind("title-too-short")["count"].as_u64(),
            kind("title-too-short")["new"].as_u64()
        ),
        (Some(1), Some(1))
    );
    assert_eq!(kind("broken-link")["priority"], "high");
    assert!(
        kind("missing-h1")["why"]
            .as_str()
            .unwrap()
            .contains("heading")
    );
    // The summary counts every finding, those of the checks beside indexing included.
    let findings = json["findings"].as_array().unwrap();
    let new = findings
        .iter()
        .filter(|finding| finding["change"] == "new")
        .count();
    let fixed = json["fixed"].as_array().unwrap().len();
    assert!(
        second.stderr.contains(&format!(
            "(was {first_score} at run #1). Findings: {}, {new} new, {fixed} fixed.",
            findings.len()
        )),
        "{}",
        second.stderr
    );

    // findings.csv carries the same marks, the fixed findings after the others.
    let csv = std::fs::read_to_string(report.path().join("findings.csv")).unwrap();
    let mut rows = csv.lines();
    assert_eq!(
        rows.next().unwrap(),
        "\u{feff}severity,priority,kind,title,change,url,detail,referrers"
    );
    let changes: Vec<(String, String)> = rows
        .map(|row| {
            let fields: Vec<&str> = row.split(',').collect();
            (fields[2].to_string(), fields[4].to_string())
        })
        .collect();
    assert_eq!(changes.len(), findings.len() + fixed, "{csv}");
    let fixed_rows: Vec<&str> = changes[findings.len()..]
        .iter()
        .map(|(_, change)| change.as_str())
        .collect();
    assert_eq!(fixed_rows, vec!["fixed"; fixed], "{csv}");
    assert!(
        changes[..findings.len()]
            .iter()
            .all(|(_, change)| change != "fixed"),
        "{csv}"
    );
}

/// A site whose shortest path to `/deep` runs through the slow `/slow`, and a longer one
/// through a chain of fast pages.
fn site_with_a_slow_shortcut() -> Server {
    let page = |links: &[&str]| {
        let anchors: Vec<String> = links
            .iter()
            .map(|link| format!(r#"<a href="{link}">{link}</a>"#))
            .collect();
        format!(
            "<html lang=en><head><title>A page of the site with a slow shortcut</title>\
             <meta name=description content=\"A page of a site with a slow shortcut.\"></head>\
             <body><h1>Page</h1>{}</body></html>",
            anchors.join(" ")
        )
    };
    Site::new()
        .page("/", &page(&["/fast", "/slow"]))
        .route(
            "/slow",
            Route::html(&page(&["/deep"])).delay(std::time::Duration::from_millis(1000)),
        )
        .page("/fast", &page(&["/f1"]))
        .page("/f1", &page(&["/f2"]))
        .page("/f2", &page(&["/f3"]))
        .page("/f3", &page(&["/deep"]))
        .page("/deep", &page(&["/"]))
        .serve()
}

#[test]
fn a_slow_page_changes_no_depth_and_a_second_audit_finds_nothing_new_or_fixed() {
    let server = site_with_a_slow_shortcut();
    let report = tempfile::tempdir().unwrap();
    let too_deep = |json: &Value| -> BTreeSet<String> {
        marks(json, "findings", &server)
            .into_iter()
            .filter(|(kind, _, _)| kind == "too-deep")
            .map(|(_, path, _)| path)
            .collect()
    };
    audit(&server, report.path(), &["--deep", "2"]).assert_success();
    let first = report_json(report.path());
    assert_eq!(
        too_deep(&first),
        BTreeSet::from(["/f2".to_string(), "/f3".to_string()]),
        "/deep is 2 clicks away through /slow, however long /slow takes"
    );
    audit(&server, report.path(), &["--deep", "2"]).assert_success();
    let second = report_json(report.path());
    let changes: BTreeSet<String> = marks(&second, "findings", &server)
        .into_iter()
        .map(|(_, _, change)| change)
        .collect();
    assert_eq!(changes, BTreeSet::from(["persisting".to_string()]));
    assert_eq!(marks(&second, "fixed", &server), BTreeSet::new());
}
