//! `sitemapper audit`: the checks agencies run besides indexing (docs/audit.md, "The checks
//! agencies run besides indexing", "Resources", "Crawlers of AI assistants"), each on a
//! fixture page that has exactly that problem, over https, next to clean pages that must stay
//! clean of every one of them.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use crate::audit_checks::codes_by_path;
use crate::fixture::{Route, Site, tls_config, tls_file};
use crate::harness::sitemapper;

/// Whether `code` is one of the checks this file tests: the other audit tests, about indexing,
/// leave them aside.
pub(crate) fn is_breadth(code: &str) -> bool {
    CODES.contains(&code)
}

/// The codes of the checks this file tests.
const CODES: &[&str] = &[
    "broken-image",
    "broken-script",
    "broken-stylesheet",
    "broken-frame",
    "nofollow-internal-link",
    "dead-end-page",
    "heavy-page",
    "large-image",
    "image-larger-than-shown",
    "images-without-dimensions",
    "render-blocking-scripts",
    "no-viewport",
    "zoom-disabled",
    "no-lang",
    "invalid-lang",
    "links-without-text",
    "inputs-without-label",
    "skipped-heading-level",
    "buttons-without-name",
    "frames-without-title",
    "positive-tabindex",
    "open-graph-missing",
    "open-graph-incomplete",
    "twitter-card-missing",
    "twitter-card-incomplete",
    "url-uppercase",
    "url-underscores",
    "url-spaces",
    "url-non-ascii",
    "url-too-long",
    "url-many-parameters",
    "url-multiple-slashes",
    "thin-page",
    "near-duplicate",
    "description-too-short",
    "h1-too-long",
    "multiple-titles",
    "multiple-descriptions",
    "no-doctype",
    "deprecated-html",
    "meta-refresh",
    "missing-canonical",
    "relative-canonical",
    "no-hsts",
    "http-links",
    "form-on-http",
    "no-content-type-options",
    "no-frame-options",
    "no-content-security-policy",
    "protocol-relative-resources",
    "ai-crawlers",
    "llms-txt",
];

/// `count` words of a text of its own for `seed`: pages of different seeds share no
/// three-word run, so that no two are near duplicates.
fn words(seed: u64, count: usize) -> Vec<String> {
    let mut state = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
    (0..count)
        .map(|_| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            format!("w{}", (state >> 33) % 100_000)
        })
        .collect()
}

/// A page that none of [`CODES`] flags, but for what a case changes.
struct Page {
    path: &'static str,
    doctype: bool,
    lang: Option<&'static str>,
    viewport: bool,
    open_graph: bool,
    twitter: bool,
    canonical: bool,
    description: &'static str,
    h1: String,
    text: Vec<String>,
    home_link: bool,
    head: String,
    body: String,
}

impl Page {
    fn clean(path: &'static str, seed: u64) -> Page {
        Page {
            path,
            doctype: true,
            lang: Some("en"),
            viewport: true,
            open_graph: true,
            twitter: true,
            canonical: true,
            description: "A description of this page that is long enough to say what the page holds.",
            h1: "The page".to_string(),
            text: words(seed, 250),
            home_link: true,
            head: String::new(),
            body: String::new(),
        }
    }

    fn html(&self) -> String {
        let path = self.path;
        let mut head = String::from("<title>A page of a good length for its title</title>");
        head.push_str(&format!(
            "<meta name=\"description\" content=\"{}\">",
            self.description
        ));
        if self.viewport {
            head.push_str(
                "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">",
            );
        }
        if self.open_graph {
            head.push_str(&format!(
                "<meta property=\"og:title\" content=\"A page\"><meta property=\"og:type\" content=\"article\"><meta property=\"og:image\" content=\"{{origin}}/ok.png\"><meta property=\"og:url\" content=\"{{origin}}{path}\">"
            ));
        }
        if self.twitter {
            head.push_str("<meta name=\"twitter:card\" content=\"summary\"><meta name=\"twitter:title\" content=\"A page\"><meta name=\"twitter:image\" content=\"{origin}/ok.png\">");
        }
        if self.canonical {
            head.push_str(&format!(
                "<link rel=\"canonical\" href=\"{{origin}}{path}\">"
            ));
        }
        head.push_str(
            "<link rel=\"stylesheet\" href=\"/ok.css\"><script src=\"/ok.js\" defer></script>",
        );
        head.push_str(&self.head);
        let home = if self.home_link {
            "<a href=\"/\">Home</a>"
        } else {
            ""
        };
        let lang = self
            .lang
            .map(|lang| format!(" lang=\"{lang}\""))
            .unwrap_or_default();
        format!(
            "{}<html{lang}><head>{head}</head><body><h1>{}</h1><p>{}</p><img src=\"/ok.png\" alt=\"ok\" width=\"1\" height=\"1\"><label for=\"e\">Email</label><input id=\"e\" name=\"e\"><label>Name <input name=\"n\"></label><button>Send</button>{home}{}</body></html>",
            if self.doctype { "<!DOCTYPE html>" } else { "" },
            self.h1,
            self.text.join(" "),
            self.body
        )
    }
}

/// A PNG of `width` by 10 pixels as far as its header says, `bytes` long.
fn png(width: u32, bytes: usize) -> Vec<u8> {
    let mut png = b"\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR".to_vec();
    png.extend_from_slice(&width.to_be_bytes());
    png.extend_from_slice(&10u32.to_be_bytes());
    png.extend_from_slice(&[8, 6, 0, 0, 0, 0, 0, 0, 0]);
    png.resize(bytes.max(png.len()), 0);
    png
}

/// The headers of a well-protected https host.
fn protected(route: Route) -> Route {
    route
        .header("Strict-Transport-Security", "max-age=31536000")
        .header("X-Content-Type-Options", "nosniff")
        .header(
            "Content-Security-Policy",
            "default-src 'self'; frame-ancestors 'self'",
        )
}

/// The fixture site, and `path -> codes` expected of it.
fn site() -> (Site, BTreeMap<String, BTreeSet<String>>) {
    let mut seed = 0;
    let mut next = |path: &'static str| {
        seed += 1;
        Page::clean(path, seed)
    };
    let long_path: &'static str = Box::leak(format!("/{}", "long-".repeat(24)).into_boxed_str());
    let near_text = words(9_999, 250);
    let mut near_b_text = near_text.clone();
    near_b_text[125] = "different".to_string();
    let mut cases: Vec<(Page, Vec<&str>)> = vec![
        (next("/clean"), vec![]),
        (next("/frame"), vec![]),
        (Page { viewport: false, ..next("/no-viewport") }, vec!["no-viewport"]),
        (
            Page {
                viewport: false,
                head: "<meta name=\"viewport\" content=\"width=device-width, user-scalable=no\">".into(),
                ..next("/zoom")
            },
            vec!["zoom-disabled"],
        ),
        (Page { lang: None, ..next("/no-lang") }, vec!["no-lang"]),
        (Page { lang: Some("english"), ..next("/bad-lang") }, vec!["invalid-lang"]),
        (
            Page { body: "<a href=\"/clean\"><i class=\"icon\"></i></a>".into(), ..next("/textless-link") },
            vec!["links-without-text"],
        ),
        (
            Page { body: "<input type=\"text\" name=\"q\" placeholder=\"Search\">".into(), ..next("/unlabelled") },
            vec!["inputs-without-label"],
        ),
        (
            Page { body: "<button><svg viewBox=\"0 0 1 1\"></svg></button>".into(), ..next("/nameless-button") },
            vec!["buttons-without-name"],
        ),
        (
            Page { body: "<h2>A part</h2><h4>A detail</h4>".into(), ..next("/skipped-heading") },
            vec!["skipped-heading-level"],
        ),
        (
            Page { body: "<iframe src=\"/frame\"></iframe>".into(), ..next("/untitled-frame") },
            vec!["frames-without-title"],
        ),
        (
            Page { body: "<div tabindex=\"3\">first</div>".into(), ..next("/tabindex") },
            vec!["positive-tabindex"],
        ),
        (Page { open_graph: false, ..next("/no-open-graph") }, vec!["open-graph-missing"]),
        (
            Page {
                open_graph: false,
                head: "<meta property=\"og:title\" content=\"Only a title\">".into(),
                ..next("/partial-open-graph")
            },
            vec!["open-graph-incomplete"],
        ),
        (Page { twitter: false, ..next("/no-twitter") }, vec!["twitter-card-missing"]),
        // A card lacks its title or image only where Open Graph lacks them too: two findings.
        (
            Page {
                open_graph: false,
                twitter: false,
                head: "<meta name=\"twitter:card\" content=\"summary\">".into(),
                ..next("/bare-twitter-card")
            },
            vec!["open-graph-missing", "twitter-card-incomplete"],
        ),
        (next("/Upper-Case"), vec!["url-uppercase"]),
        (next("/under_score"), vec!["url-underscores"]),
        (next("/with%20space"), vec!["url-spaces"]),
        (next("/caf%C3%A9"), vec!["url-non-ascii"]),
        (next(long_path), vec!["url-too-long"]),
        (next("/params?a=1&b=2&c=3&d=4"), vec!["url-many-parameters"]),
        (next("/double//slash"), vec!["url-multiple-slashes"]),
        (Page { text: words(77, 50), ..next("/thin") }, vec!["thin-page"]),
        (Page { text: near_text, ..next("/near-a") }, vec!["near-duplicate"]),
        (Page { text: near_b_text, ..next("/near-b") }, vec!["near-duplicate"]),
        (
            Page { description: "Too short a description.", ..next("/short-description") },
            vec!["description-too-short"],
        ),
        (Page { h1: "A heading ".repeat(8), ..next("/long-h1") }, vec!["h1-too-long"]),
        (
            Page { head: "<title>A second title, as long as the first</title>".into(), ..next("/two-titles") },
            vec!["multiple-titles"],
        ),
        (
            Page {
                head: "<meta name=\"description\" content=\"Another description of this page, long enough to count as one.\">".into(),
                ..next("/two-descriptions")
            },
            vec!["multiple-descriptions"],
        ),
        (Page { doctype: false, ..next("/no-doctype") }, vec!["no-doctype"]),
        (Page { body: "<center>Centred</center>".into(), ..next("/obsolete") }, vec!["deprecated-html"]),
        (
            Page { head: "<meta http-equiv=\"refresh\" content=\"30\">".into(), ..next("/timed-refresh") },
            vec!["meta-refresh"],
        ),
        (Page { canonical: false, ..next("/no-canonical") }, vec!["missing-canonical"]),
        (
            Page {
                canonical: false,
                head: "<link rel=\"canonical\" href=\"/relative-canonical\">".into(),
                ..next("/relative-canonical")
            },
            vec!["relative-canonical"],
        ),
        (
            Page { body: "<a href=\"/clean\" rel=\"nofollow\">Clean</a>".into(), ..next("/nofollow") },
            vec!["nofollow-internal-link"],
        ),
        (Page { home_link: false, ..next("/dead-end") }, vec!["dead-end-page"]),
        (
            Page { body: "<img src=\"/ok.png\" alt=\"ok\">".into(), ..next("/unsized-image") },
            vec!["images-without-dimensions"],
        ),
        (
            Page { head: "<script src=\"/ok.js\"></script>".into(), ..next("/blocking-script") },
            vec!["render-blocking-scripts"],
        ),
        (
            Page { body: "<a href=\"http://{host}/clean\">The clean page</a>".into(), ..next("/http-link") },
            vec!["http-links"],
        ),
        (
            Page {
                body: "<form action=\"http://{host}/submit\"><label>Query <input name=\"q\"></label></form>".into(),
                ..next("/http-form")
            },
            vec!["form-on-http"],
        ),
        (
            Page {
                body: "<img src=\"//{host}/ok.png\" alt=\"ok\" width=\"1\" height=\"1\">".into(),
                ..next("/protocol-relative")
            },
            vec!["protocol-relative-resources"],
        ),
        (
            next("/no-security-headers"),
            vec!["no-hsts", "no-content-type-options", "no-frame-options", "no-content-security-policy"],
        ),
        (
            Page { body: "<img src=\"/missing.png\" alt=\"m\" width=\"5\" height=\"5\">".into(), ..next("/broken-image") },
            vec![],
        ),
        (
            Page { head: "<script src=\"/missing.js\" defer></script>".into(), ..next("/broken-script") },
            vec![],
        ),
        (
            Page { head: "<link rel=\"stylesheet\" href=\"/missing.css\">".into(), ..next("/broken-stylesheet") },
            vec![],
        ),
        (
            Page { body: "<iframe src=\"/missing-frame\" title=\"Gone\"></iframe>".into(), ..next("/broken-frame") },
            vec![],
        ),
        (
            Page { body: "<img src=\"/large.png\" alt=\"l\" width=\"100\" height=\"10\">".into(), ..next("/large-image") },
            vec![],
        ),
        (
            Page { body: "<img src=\"/wide.png\" alt=\"w\" width=\"300\" height=\"10\">".into(), ..next("/wide-image") },
            vec!["image-larger-than-shown"],
        ),
        (
            Page { head: "<script src=\"/heavy.js\" defer></script>".into(), ..next("/heavy") },
            vec!["heavy-page"],
        ),
    ];
    let links: String = cases
        .iter()
        .map(|(page, _)| format!("<a href=\"{}\">{}</a> ", page.path, page.path))
        .collect();
    let home = Page {
        body: links,
        ..next("/")
    };
    cases.push((home, vec![]));
    let mut expected: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut site = Site::new();
    for (page, codes) in cases {
        let route = Route::html(&page.html());
        let route = if page.path == "/no-security-headers" {
            route
        } else {
            protected(route).header("X-Frame-Options", "SAMEORIGIN")
        };
        site = site.route(page.path, route);
        expected.insert(
            page.path.to_string(),
            codes.iter().map(ToString::to_string).collect(),
        );
    }
    for (path, codes) in [
        ("/missing.png", vec!["broken-image"]),
        ("/missing.js", vec!["broken-script"]),
        ("/missing.css", vec!["broken-stylesheet"]),
        ("/missing-frame", vec!["broken-frame"]),
        ("/large.png", vec!["large-image"]),
        ("/robots.txt", vec!["ai-crawlers"]),
        ("/llms.txt", vec!["llms-txt"]),
    ] {
        expected.insert(
            path.to_string(),
            codes.iter().map(ToString::to_string).collect(),
        );
    }
    let image = |bytes: Vec<u8>| {
        Route::new(200, "")
            .bytes(bytes)
            .header("Content-Type", "image/png")
    };
    let site = site
        .route(
            "/robots.txt",
            Route::new(
                200,
                "User-agent: GPTBot\nDisallow: /\n\nUser-agent: *\nAllow: /\n",
            ),
        )
        .route(
            "/llms.txt",
            Route::new(200, "# The site\n\n> What it holds.\n")
                .header("Content-Type", "text/plain"),
        )
        .route("/ok.png", image(png(1, 100)))
        .route("/large.png", image(png(100, 300 * 1024)))
        .route("/wide.png", image(png(2000, 2048)))
        .route(
            "/ok.js",
            Route::new(200, "let ok = 1;").header("Content-Type", "text/javascript"),
        )
        .route(
            "/heavy.js",
            Route::new(200, &"x".repeat(600_000)).header("Content-Type", "text/javascript"),
        )
        .route(
            "/ok.css",
            Route::new(200, "p { margin: 0 }").header("Content-Type", "text/css"),
        );
    (site, expected)
}

#[test]
fn each_check_flags_the_page_that_has_its_problem_and_clean_pages_stay_clean() {
    let (site, expected) = site();
    let server = site.serve_tls(tls_config());
    let report = tempfile::tempdir().unwrap();
    let ca = tls_file("ca.pem");
    let seed = server.url("/");
    let run = sitemapper(&[
        "audit",
        &seed,
        "--report",
        report.path().to_str().unwrap(),
        "--cacert",
        ca.to_str().unwrap(),
        "--check-external=false",
        "--threshold",
        "heavy-page-bytes=500000",
    ]);
    run.assert_success();
    let json: Value =
        serde_json::from_str(&std::fs::read_to_string(report.path().join("report.json")).unwrap())
            .unwrap();
    let found = codes_by_path(&json, "findings", &server, CODES);
    let mut differences = Vec::new();
    for (path, codes) in &expected {
        let got = found.get(path).cloned().unwrap_or_default();
        if &got != codes {
            differences.push(format!("{path}: expected {codes:?}, found {got:?}"));
        }
    }
    for (path, codes) in &found {
        if !expected.contains_key(path) {
            differences.push(format!("{path}: unexpected {codes:?}"));
        }
    }
    assert!(differences.is_empty(), "{}", differences.join("\n"));
    // Every code of this file is exercised by a page.
    let exercised: BTreeSet<&str> = expected.values().flatten().map(String::as_str).collect();
    let untested: Vec<&&str> = CODES
        .iter()
        .filter(|code| !exercised.contains(**code))
        .collect();
    assert!(untested.is_empty(), "no fixture page for {untested:?}");

    let finding = |code: &str| -> Value {
        json["findings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|finding| finding["kind"] == code)
            .cloned()
            .unwrap_or_else(|| panic!("no {code}"))
    };
    let referrers = |code: &str| -> Vec<String> {
        finding(code)["referrers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|url| {
                url.as_str()
                    .unwrap()
                    .trim_start_matches(&server.origin())
                    .to_string()
            })
            .collect()
    };
    assert_eq!(referrers("broken-image"), ["/broken-image"]);
    assert_eq!(referrers("broken-script"), ["/broken-script"]);
    assert_eq!(referrers("broken-stylesheet"), ["/broken-stylesheet"]);
    assert_eq!(referrers("broken-frame"), ["/broken-frame"]);
    assert_eq!(finding("broken-image")["detail"], "answers 404");
    assert_eq!(
        finding("image-larger-than-shown")["detail"],
        format!("{} is 2000 px wide, shown at 300", server.url("/wide.png"))
    );
    assert_eq!(
        finding("ai-crawlers")["detail"],
        "GPTBot: disallowed (its own group); ClaudeBot: allowed (no group of its own); Google-Extended: allowed (no group of its own); CCBot: allowed (no group of its own); PerplexityBot: allowed (no group of its own)"
    );
    assert_eq!(finding("ai-crawlers")["severity"], "info");
    assert!(
        finding("no-hsts")["detail"]
            .as_str()
            .unwrap()
            .starts_with("no Strict-Transport-Security, on 1 of "),
        "{}",
        finding("no-hsts")["detail"]
    );
    assert!(
        finding("near-duplicate")["detail"]
            .as_str()
            .unwrap()
            .contains("nearly the same as"),
    );
    // How the audit was made says what the check of the resources covered.
    let resources = json["methodology"]["resources"].as_str().unwrap();
    let total = resources.split(' ').next().unwrap();
    assert!(total.parse::<usize>().unwrap() >= 9, "{resources}");
    assert_eq!(
        resources,
        format!(
            "{total} resources of the site that the pages load, {total} checked once each with a GET (an image's first 64 KiB, a script or style sheet whole): 3 broken"
        )
    );
    // The missing frame is a broken frame, not also a broken link.
    let broken_links: Vec<&Value> = json["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|finding| finding["kind"] == "broken-link")
        .collect();
    assert!(broken_links.is_empty(), "{broken_links:?}");
}

#[test]
fn a_threshold_that_does_not_exist_is_refused_in_one_line() {
    let report = tempfile::tempdir().unwrap();
    let run = sitemapper(&[
        "audit",
        "https://127.0.0.1:9/",
        "--report",
        report.path().to_str().unwrap(),
        "--threshold",
        "thin=3",
    ]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert_eq!(run.stderr.trim().lines().count(), 1, "{}", run.stderr);
    assert!(
        run.stderr.contains("no threshold \"thin\""),
        "{}",
        run.stderr
    );
}
