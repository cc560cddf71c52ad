//! `sitemapper explain URL`: why a URL is in the sitemap or not, with the evidence, the click
//! path, the `<lastmod>`'s source and the history, read from the crawl database of real
//! crawls of a site served on 127.0.0.1 (docs/design.md, Explaining a URL).

use std::path::Path;

use crate::fixture::{Route, Server, Site};
use crate::harness::{Run, assert_one_line_error, sitemapper};

const MODIFIED: &str = "Tue, 02 Jan 2024 03:04:05 GMT";

/// A site served at `origin` with a page for every reason the tests ask about; its second
/// answer to /docs/page is `docs_page`.
fn site(origin: &str, docs_page: Route) -> Site {
    Site::new()
        .route(
            "/robots.txt",
            Route::new(
                200,
                &format!("User-agent: *\nDisallow: /private/\n\nSitemap: {origin}/site-map.xml\n"),
            )
            .header("Content-Type", "text/plain"),
        )
        .page(
            "/",
            r#"<a href="/about">About</a> <a href="/docs/">Docs</a>
               <a href="/private/secret">Secret</a> <a href="/old">Old</a>
               <a href="/gone">Gone</a> <a href="/noindex-header">H</a>
               <a href="/noindex-meta">M</a> <a href="/copy">Copy</a>
               <a href="x/loop/loop/loop/">Loop</a>"#,
        )
        .route(
            "/about",
            Route::html("<p>About us</p>").header("Last-Modified", MODIFIED),
        )
        .page("/docs/", r#"<a href="/docs/page">Page</a>"#)
        .sequence("/docs/page", vec![Route::html("<p>The page</p>"), docs_page])
        .route("/old", Route::redirect(301, "/moved"))
        .route("/moved", Route::redirect(302, "/new"))
        .page("/new", "<p>new</p>")
        .route("/gone", Route::new(404, "<p>gone</p>"))
        .route(
            "/noindex-header",
            Route::html("<p>h</p>").header("X-Robots-Tag", "noindex"),
        )
        .page(
            "/noindex-meta",
            r#"<head><meta name="robots" content="noindex"></head><p>m</p>"#,
        )
        .route(
            "/copy",
            Route::html("<p>copy</p>").header("Link", "</about>; rel=\"canonical\""),
        )
        .route(
            "/site-map.xml",
            Route::new(
                200,
                &format!(
                    r#"<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>{origin}/orphan</loc></url></urlset>"#
                ),
            )
            .header("Content-Type", "application/xml"),
        )
        .page("/orphan", "<p>only the sitemap knows me</p>")
}

/// Two nights over one crawl database; on the second, /docs/page answers 503.
fn two_nights() -> (Server, tempfile::TempDir) {
    let server = Site::new().serve();
    server.change(site(&server.origin(), Route::new(503, "busy")));
    let directory = tempfile::tempdir().unwrap();
    let out = directory.path().join("out");
    let state = directory.path().join("crawl.db");
    for _ in 0..2 {
        sitemapper(&[
            "crawl",
            &server.url("/"),
            "--out",
            out.to_str().unwrap(),
            "--state",
            state.to_str().unwrap(),
            "--seed-sitemaps",
            "--retries",
            "0",
        ])
        .assert_success();
    }
    (server, directory)
}

fn explain(state: &Path, url: &str, extra: &[&str]) -> Run {
    let mut args = vec!["explain", url, "--state", state.to_str().unwrap()];
    args.extend_from_slice(extra);
    sitemapper(&args)
}

fn assert_says(run: &Run, expected: &[&str]) {
    for words in expected {
        assert!(
            run.stdout.contains(words),
            "{words:?} is not said:\n{}\nstderr:\n{}",
            run.stdout,
            run.stderr
        );
    }
}

#[test]
fn each_reason_is_named_with_its_evidence() {
    let (server, directory) = two_nights();
    let state = directory.path().join("crawl.db");
    let url = |path: &str| server.url(path);

    let about = explain(&state, &url("/about"), &[]);
    assert_eq!(about.code, 0, "{}{}", about.stdout, about.stderr);
    assert_says(
        &about,
        &[
            "Listed\n",
            "Reached: 1 click from the seed",
            &format!("  {}  (seed)\n  {}  (link)", url("/"), url("/about")),
            "Linked from 1 page: ",
            "<lastmod> 2024-01-02T03:04:05+00:00, from the Last-Modified header",
            "  In sitemap.xml",
            "History: first seen in run 1",
            "200 in runs 1-2",
            "Listed by 2 of the last 2 runs (2-1)",
            "Answered from run 2 (complete",
        ],
    );
    assert!(about.stderr.is_empty(), "{}", about.stderr);

    let cases: [(&str, &[&str]); 7] = [
        (
            "/private/secret",
            &[
                "Not listed: robots-disallowed",
                "robots.txt  line 2: Disallow: /private/, in the group for \"*\"",
                "never requested",
            ],
        ),
        (
            "/copy",
            &[
                "Not listed: canonicalised",
                &format!("canonical  {}, in a Link header", url("/about")),
            ],
        ),
        (
            "/noindex-header",
            &["Not listed: noindex", "noindex in the X-Robots-Tag header"],
        ),
        (
            "/noindex-meta",
            &["Not listed: noindex", "noindex in <meta name=robots>"],
        ),
        (
            "/old",
            &[
                "Not listed: redirect",
                &format!("  {}  301 -> {}", url("/old"), url("/moved")),
                &format!("  {}  302 -> {}", url("/moved"), url("/new")),
            ],
        ),
        (
            "/gone",
            &[
                "Not listed: http-404",
                "It answered 404 Not Found.",
                "404 in runs 1-2",
            ],
        ),
        (
            "/x/loop/loop/loop/",
            &[
                "Not listed: trap-repeated-segments",
                "the segment \"loop\" repeats in the path",
            ],
        ),
    ];
    for (path, expected) in cases {
        let run = explain(&state, &url(path), &[]);
        assert_eq!(run.code, 1, "{path}: {}{}", run.stdout, run.stderr);
        assert!(run.stderr.is_empty(), "{path}: {}", run.stderr);
        assert_says(&run, expected);
    }

    let orphan = explain(&state, &url("/orphan"), &[]);
    assert_eq!(orphan.code, 0, "{}", orphan.stdout);
    assert_says(
        &orphan,
        &[
            &format!("  {}  (site-sitemap)", url("/site-map.xml")),
            &format!("  {}  (sitemap)", url("/orphan")),
            &format!("Listed by the site's sitemap {}", url("/site-map.xml")),
            "No page of its last run links to it.",
            "<lastmod> none",
        ],
    );

    // The second night's 503 kept the page listed: the history and the evidence say so.
    let kept = explain(&state, &url("/docs/page"), &[]);
    assert_eq!(kept.code, 0, "{}", kept.stdout);
    assert_says(
        &kept,
        &[
            "kept",
            "the last run got 503 Service Unavailable, a failure that may pass",
            "200 in run 1, 503 in run 2",
            &format!(
                "  {}  (link)\n  {}  (link)",
                url("/docs/"),
                url("/docs/page")
            ),
        ],
    );
}

#[test]
fn a_url_never_met_names_the_nearest_one_and_the_scope() {
    let (server, directory) = two_nights();
    let state = directory.path().join("crawl.db");

    let slash = explain(&state, &server.url("/about/?utm_source=mail"), &[]);
    assert_eq!(slash.code, 1, "{}", slash.stdout);
    assert_says(
        &slash,
        &[
            &format!("  read as {}, as the crawl keys it", server.url("/about/")),
            "Not listed: never-met",
            &format!(
                "The nearest URL it met: {} (without the trailing slash), listed.",
                server.url("/about")
            ),
        ],
    );
    let deep = explain(&state, &server.url("/docs/a/b"), &[]);
    assert_says(
        &deep,
        &[&format!(
            "The nearest URL it met: {} (the nearest page above it), not listed.",
            server.url("/docs/")
        )
        .replace("not listed", "listed")],
    );
    let outside = explain(&state, "https://elsewhere.example/page", &[]);
    assert_eq!(outside.code, 1);
    assert_says(
        &outside,
        &[
            "Not listed: out-of-scope",
            &format!("scope  the database maps {} and below", server.url("/")),
        ],
    );
}

#[test]
fn the_json_answer_carries_the_same_and_the_exit_code_says_listed_or_not() {
    let (server, directory) = two_nights();
    let state = directory.path().join("crawl.db");
    let run = explain(&state, &server.url("/old"), &["--summary", "json"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(run.stderr.is_empty(), "{}", run.stderr);
    let json: serde_json::Value = serde_json::from_str(run.stdout.trim()).unwrap();
    assert_eq!(json["command"], "explain");
    assert_eq!(json["ok"], false);
    assert_eq!(json["exit_code"], 1);
    assert_eq!(json["standing"], "not-listed");
    assert_eq!(json["reason"], "redirect");
    assert_eq!(json["state"], state.to_str().unwrap());
    assert_eq!(json["redirects"][0]["status"], 301);
    assert_eq!(json["redirects"][1]["to"], server.url("/new"));
    assert_eq!(json["reached"]["depth"], 1);
    assert_eq!(json["reached"]["path"][0]["via"], "seed");
    assert_eq!(json["history"]["first_seen"]["run"], 1);

    let listed = explain(&state, &server.url("/about"), &["--summary", "json"]);
    assert_eq!(listed.code, 0);
    let json: serde_json::Value = serde_json::from_str(listed.stdout.trim()).unwrap();
    assert_eq!(json["ok"], true);
    assert_eq!(json["standing"], "listed");
    assert_eq!(json["reason"], serde_json::Value::Null);
    assert_eq!(json["lastmod"]["source"], "last-modified");
    assert_eq!(json["lastmod"]["file"], "sitemap.xml");
}

#[test]
fn bad_input_is_one_line_and_exit_code_2() {
    let (_server, directory) = two_nights();
    let state = directory.path().join("crawl.db");
    let not_a_url = explain(&state, "example.com/page", &[]);
    assert_eq!(not_a_url.code, 2);
    assert_one_line_error(&not_a_url.stderr);
    assert!(
        not_a_url.stderr.contains("is not an http(s) URL"),
        "{}",
        not_a_url.stderr
    );

    let missing = explain(&directory.path().join("none.db"), "https://e.com/", &[]);
    assert_eq!(missing.code, 2);
    assert_one_line_error(&missing.stderr);
    assert!(
        missing.stderr.contains("no crawl database at"),
        "{}",
        missing.stderr
    );
    assert!(
        !directory.path().join("none.db").exists(),
        "nothing is created"
    );

    let neither = sitemapper(&["explain", "https://e.com/"]);
    assert_eq!(neither.code, 2);
    assert!(
        neither.stderr.contains("give --state FILE"),
        "{}",
        neither.stderr
    );

    let json = explain(&state, "ftp://e.com/", &["--summary", "json"]);
    assert_eq!(json.code, 2);
    let value: serde_json::Value = serde_json::from_str(json.stdout.trim()).unwrap();
    assert_eq!(value["exit_code"], 2);
}

#[test]
fn a_fleet_finds_the_site_that_maps_the_url() {
    let shop = Site::new()
        .page("/", r#"<a href="/cart">Cart</a>"#)
        .page("/cart", "cart")
        .serve();
    let blog = Site::new()
        .page("/", r#"<a href="/blog/">Blog</a>"#)
        .page("/blog/", r#"<a href="/blog/post">Post</a>"#)
        .route("/blog/post", Route::new(404, "no"))
        .serve();
    let directory = tempfile::tempdir().unwrap();
    let fleet = directory.path().join("fleet.toml");
    std::fs::write(
        &fleet,
        format!(
            "[defaults]\nout = \"{}/{{name}}\"\nevery = \"24h\"\nretries = 0\n\n\
             [[site]]\nname = \"shop\"\nurl = \"{}\"\n\n\
             [[site]]\nname = \"blog\"\nurl = \"{}\"\n",
            directory.path().display(),
            shop.url("/"),
            blog.url("/blog/")
        ),
    )
    .unwrap();
    let fleet = fleet.to_str().unwrap();
    sitemapper(&["fleet", "run", fleet]).assert_success();

    let post = sitemapper(&["explain", &blog.url("/blog/post"), "--fleet", fleet]);
    assert_eq!(post.code, 1, "{}{}", post.stdout, post.stderr);
    assert_says(&post, &["Not listed: http-404", ", the site blog."]);
    let cart = sitemapper(&["explain", &shop.url("/cart"), "--fleet", fleet]);
    assert_eq!(cart.code, 0, "{}{}", cart.stdout, cart.stderr);
    assert_says(&cart, &["Listed", ", the site shop."]);

    let nobody = sitemapper(&["explain", "https://nobody.example/", "--fleet", fleet]);
    assert_eq!(nobody.code, 2);
    assert_one_line_error(&nobody.stderr);
    assert!(nobody.stderr.contains("no site of"), "{}", nobody.stderr);
}
