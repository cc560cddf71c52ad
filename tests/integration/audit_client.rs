//! The audit's first page for the client (what to fix first, how the audit was made, the
//! score's rule) and the one story of the site's sitemaps, told alike by the crawl's summary,
//! the audit's and the report.

use crate::audit::{audit, findings, report_json};
use crate::fixture::{Route, Site};
use crate::harness::{crawl, summary_json};
use crate::site_sitemaps::{urlset, xml};

fn page(title: &str, body: &str) -> String {
    format!(
        "<html><head><title>{title}</title><meta name=\"description\" content=\"About {title}\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"></head><body><h1>{title}</h1>{body}</body></html>"
    )
}

fn text(content: &str) -> Route {
    Route::new(200, content).header("Content-Type", "text/plain")
}

#[test]
fn a_sitemap_on_another_host_is_one_story_and_a_notice_not_an_error() {
    let other = Site::new()
        .route(
            "/sitemap.xml",
            xml(&urlset(&["https://elsewhere.example/"])),
        )
        .serve();
    let sitemap = other.url("/sitemap.xml");
    let site = Site::new()
        .page(
            "/",
            &page(
                "A documentation site's first page",
                "<a href=\"/guide\">guide</a> <img src=\"/a.png\"><img src=\"/b.png\"><img src=\"/c.png\" alt=\"\">",
            ),
        )
        .page("/guide", &page("The guide of the documentation site", "guide"))
        .route(
            "/robots.txt",
            text(&format!("User-agent: *\nAllow: /\nSitemap: {sitemap}\n")),
        )
        .serve_on("127.0.0.2");
    let out = tempfile::tempdir().unwrap();
    let crawled = crawl(&site.url("/"), out.path(), &["--seed-sitemaps"]);
    crawled.assert_success();
    let report = tempfile::tempdir().unwrap();
    let audited = audit(&site, report.path(), &[]);
    audited.assert_success();
    let skipped = format!(
        "The site's sitemaps: 0 read, 1 skipped, 0 unreadable.\n  Looked for where robots.txt's Sitemap: lines say.\n  Skipped: {sitemap}: on another site ({}).",
        other.origin()
    );
    // The crawl (seeded by them) and the audit say the same.
    assert!(
        crawled.stderr.contains(&skipped.replace(
            "0 unreadable.",
            "0 unreadable; they added 0 URLs no link had led to."
        )),
        "{}",
        crawled.stderr
    );
    assert!(audited.stderr.contains(&skipped), "{}", audited.stderr);
    assert!(!audited.stderr.contains("none found"), "{}", audited.stderr);
    // And so does the report.
    let json = report_json(report.path());
    let said = json["methodology"]["sitemaps"].as_str().unwrap();
    assert!(
        said.starts_with("0 read, 1 skipped, 0 unreadable."),
        "{said}"
    );
    assert!(said.contains(&sitemap), "{said}");
    let kinds: Vec<String> = findings(report.path(), &site)
        .into_iter()
        .map(|(kind, _, _)| kind)
        .collect();
    assert!(
        kinds.contains(&"sitemap-on-other-site".to_string()),
        "{kinds:?}"
    );
    for never in ["sitemap-unreadable", "no-sitemap", "sitemap-not-fetched"] {
        assert!(!kinds.contains(&never.to_string()), "{never}: {kinds:?}");
    }
    // The JSON summaries name it too.
    let json_out = tempfile::tempdir().unwrap();
    let crawled_json = crawl(
        &site.url("/"),
        json_out.path(),
        &["--seed-sitemaps", "--summary", "json"],
    );
    let summary = summary_json(&crawled_json);
    let not_read = &summary["sitemap_seeds"]["not_read"][0];
    assert_eq!(not_read["url"], sitemap.as_str(), "{summary}");
    assert_eq!(not_read["verdict"], "skipped");
    assert!(other.requests().is_empty(), "{:?}", other.targets());
    // Two images without alt on one page are one finding; the decorative one is none.
    let without_alt = kinds
        .iter()
        .filter(|kind| *kind == "images-without-alt")
        .count();
    assert_eq!(without_alt, 1, "{kinds:?}");
    // A notice and a warning on two pages: the score stays high.
    let score = json["score"]["value"].as_u64().unwrap();
    assert!(score >= 80, "{score}: {kinds:?}");
}

#[test]
fn a_named_sitemap_that_answers_404_cannot_be_fetched_and_is_not_unreadable() {
    let site = Site::new()
        .page("/", &page("A small site with a missing sitemap", "home"))
        .route(
            "/robots.txt",
            text("User-agent: *\nAllow: /\nSitemap: /gone.xml\n"),
        )
        .route("/not-a-sitemap.xml", Route::html("<p>a page</p>"))
        .serve();
    // robots.txt's Sitemap: lines are absolute URLs; the server's port is known only now.
    site.change(
        Site::new()
            .page("/", &page("A small site with a missing sitemap", "home"))
            .route(
                "/robots.txt",
                text(&format!(
                    "User-agent: *\nAllow: /\nSitemap: {}\nSitemap: {}\n",
                    site.url("/gone.xml"),
                    site.url("/not-a-sitemap.xml")
                )),
            )
            .route("/not-a-sitemap.xml", Route::html("<p>a page</p>")),
    );
    let report = tempfile::tempdir().unwrap();
    let audited = audit(&site, report.path(), &[]);
    audited.assert_success();
    let gone = site.url("/gone.xml");
    assert!(
        audited.stderr.contains(&format!(
            "The site's sitemaps: 0 read, 0 skipped, 2 unreadable.\n  Looked for where robots.txt's Sitemap: lines say.\n  Unreadable: {gone}: cannot be fetched: it answers 404."
        )),
        "{}",
        audited.stderr
    );
    let found: Vec<(String, String)> = findings(report.path(), &site)
        .into_iter()
        .filter(|(kind, _, _)| kind.starts_with("sitemap-") || kind == "no-sitemap")
        .map(|(kind, path, _)| (kind, path))
        .collect();
    assert_eq!(
        found,
        [
            (
                "sitemap-unreadable".to_string(),
                "/not-a-sitemap.xml".to_string()
            ),
            ("sitemap-not-fetched".to_string(), "/gone.xml".to_string()),
        ]
    );
    // Read once, by the crawl's seeding: the audit does not ask again.
    let asked = site
        .targets()
        .iter()
        .filter(|target| target.as_str() == "/gone.xml")
        .count();
    assert_eq!(asked, 1, "{:?}", site.targets());
}

#[test]
fn the_first_page_says_what_to_fix_first_and_how_the_audit_was_made() {
    let mut site = Site::new().page(
        "/",
        &page(
            "The home page of a site with a few problems",
            "<a href=\"/missing\">missing</a> <a href=\"/a\">a</a> <a href=\"/b\">b</a>",
        ),
    );
    for path in ["/a", "/b"] {
        // Pages without <h1>: a warning each.
        site = site.page(
            path,
            &format!("<html><head><title>Page {path} of the site with problems</title><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"></head><body>the text of {path}</body></html>"),
        );
    }
    let site = site.route("/missing", Route::new(404, "gone")).serve();
    let report = tempfile::tempdir().unwrap();
    audit(&site, report.path(), &["--max-pages", "50"]).assert_success();
    let json = report_json(report.path());
    let actions = json["actions"].as_array().unwrap();
    let first: Vec<(&str, u64)> = actions
        .iter()
        .map(|action| {
            (
                action["code"].as_str().unwrap(),
                action["count"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(first[0], ("broken-link", 1), "{first:?}");
    assert!(first.contains(&("missing-h1", 2)), "{first:?}");
    for action in actions {
        assert!(action["gain"].as_f64().unwrap() > 0.0, "{action}");
        assert!(!action["fix"].as_str().unwrap().is_empty());
    }
    let methodology = &json["methodology"];
    assert_eq!(methodology["site"], site.url("/"));
    assert!(
        methodology["version"]
            .as_str()
            .unwrap()
            .starts_with("sitemapper "),
        "{methodology}"
    );
    assert!(
        methodology["user_agent"]
            .as_str()
            .unwrap()
            .contains("sitemapper")
    );
    assert!(
        methodology["limits"]
            .as_str()
            .unwrap()
            .contains("at most 50 pages"),
        "{methodology}"
    );
    for field in [
        "scope",
        "rendering",
        "robots_txt",
        "sitemaps",
        "out_of_scope",
        "date",
    ] {
        assert!(
            !methodology[field].as_str().unwrap_or_default().is_empty(),
            "{field}: {methodology}"
        );
    }
    let html = std::fs::read_to_string(report.path().join("report.html")).unwrap();
    for shown in [
        "What to fix first",
        "How this audit was made",
        "at most 50 pages",
        "docs/audit.md#health-score",
        "Notices do not lower it.",
    ] {
        assert!(html.contains(shown), "{shown}");
    }
    // The actions come right after the score, the methodology right after them.
    let at = |text: &str| html.find(text).unwrap();
    assert!(at("id=\"score\"") < at("id=\"actions\""));
    assert!(at("id=\"actions\"") < at("id=\"methodology\""));
}
