//! The inclusion rules (docs/design.md, Inclusion): redirects, canonicals, robots directives,
//! content types and status codes decide exactly which URLs are listed, and every URL left
//! out keeps its reason.

use std::collections::BTreeSet;

use sitemapper_store::{IgnoredHint, Verdict};

use crate::fixture::{Route, Server, Site};
use crate::harness::{crawl_recorded, listed_urls, verdict_of};

fn links_to(paths: &[&str]) -> String {
    paths
        .iter()
        .map(|path| format!("<a href=\"{path}\">{path}</a>"))
        .collect()
}

fn urls(server: &Server, paths: &[&str]) -> BTreeSet<String> {
    paths.iter().map(|path| server.url(path)).collect()
}

fn times_requested(server: &Server, target: &str) -> usize {
    server
        .targets()
        .iter()
        .filter(|seen| *seen == target)
        .count()
}

#[test]
fn redirects_are_followed_hop_by_hop_and_only_the_final_page_is_listed() {
    let elsewhere = Site::new().page("/", "another origin").serve();
    let mut site = Site::new();
    for status in [301, 302, 303, 307, 308] {
        site = site
            .route(
                &format!("/{status}"),
                Route::redirect(status, &format!("/t{status}")),
            )
            .page(&format!("/t{status}"), "target");
    }
    for hop in 0..12 {
        site = site.route(
            &format!("/chain{hop}"),
            Route::redirect(301, &format!("/chain{}", hop + 1)),
        );
    }
    let out_of_scope = format!("{}/", elsewhere.origin());
    let server = site
        .page(
            "/",
            &links_to(&[
                "/301",
                "/302",
                "/303",
                "/307",
                "/308",
                "/rel/start",
                "/frag",
                "/nolocation",
                "/loop1",
                "/chain0",
                "/out",
                "/refresh",
                "/delayed-refresh",
            ]),
        )
        .route("/rel/start", Route::redirect(302, "../rel-target"))
        .page("/rel-target", "relative Location")
        .route("/frag", Route::redirect(301, "/frag-target#section"))
        .page("/frag-target", "Location with a fragment")
        .route("/nolocation", Route::new(301, "no Location"))
        .route("/loop1", Route::redirect(301, "/loop2"))
        .route("/loop2", Route::redirect(301, "/loop1"))
        .page("/chain12", "too far")
        .route("/out", Route::redirect(301, &out_of_scope))
        .page(
            "/refresh",
            r#"<meta http-equiv="Refresh" content="0; url='/refresh-target'">"#,
        )
        .page("/refresh-target", "reached by an instant refresh")
        .page(
            "/delayed-refresh",
            r#"<meta http-equiv="refresh" content="30; url=/refresh-later">"#,
        )
        .serve();
    let out = tempfile::tempdir().unwrap();
    let (run, store) = crawl_recorded(&server.url("/"), out.path(), &[]);
    run.assert_success();

    assert_eq!(
        listed_urls(out.path()),
        urls(
            &server,
            &[
                "/",
                "/t301",
                "/t302",
                "/t303",
                "/t307",
                "/t308",
                "/rel-target",
                "/frag-target",
                "/refresh-target",
                "/delayed-refresh",
            ]
        )
    );
    let reason = |path: &str| verdict_of(&store, &server.url(path));
    for source in [
        "/301",
        "/308",
        "/rel/start",
        "/frag",
        "/loop1",
        "/loop2",
        "/refresh",
    ] {
        assert_eq!(reason(source), (Verdict::Redirect, None), "{source}");
    }
    assert_eq!(reason("/nolocation").1.as_deref(), Some("invalid-redirect"));
    assert_eq!(reason("/chain10").1.as_deref(), Some("too-many-redirects"));
    assert_eq!(reason("/out").1.as_deref(), Some("redirect-out-of-scope"));

    let chain_requests = server
        .targets()
        .iter()
        .filter(|target| target.starts_with("/chain"))
        .count();
    assert!(
        chain_requests <= 11,
        "at most 10 hops: {chain_requests} requests"
    );
    assert_eq!(times_requested(&server, "/chain12"), 0);
    assert_eq!(
        times_requested(&server, "/loop1"),
        1,
        "a loop is requested once"
    );
    assert!(
        elsewhere.targets().is_empty(),
        "nothing out of scope is requested"
    );
}

#[test]
fn canonicals_resolve_to_the_final_self_canonical_page() {
    let other_host = Site::new().page("/page", "off-site").serve();
    let off_site = format!("{}/page", other_host.origin());
    let server = Site::new()
        .route(
            "/robots.txt",
            Route::new(200, "User-agent: *\nDisallow: /private/\n"),
        )
        .page(
            "/",
            &links_to(&[
                "/c/upper", "/c/relative", "/c/header", "/c/chain-a", "/c/conflict", "/c/offsite",
                "/c/to-404", "/c/to-disallowed", "/c/loop-a", "/c/in-body", "/c/invalid",
            ]),
        )
        .page("/c/invalid", r#"<link rel="canonical" href="urn:isbn:0451450523">"#)
        .page(
            "/c/upper",
            r#"<head><LINK REL="Canonical" HREF="  /c/target#section "></head>"#,
        )
        .page(
            "/c/relative",
            r#"<head><base href="/c/sub/"><link rel="canonical" href="../target"></head>"#,
        )
        .route(
            "/c/header",
            Route::html("<p>canonical in the Link header</p>").header(
                "Link",
                r#"</c/style.css>; rel="preload"; as="style", <{origin}/c/target>; rel="canonical""#,
            ),
        )
        .page(
            "/c/target",
            r#"<head><link rel="canonical" href="/c/target"></head>"#,
        )
        .page("/c/chain-a", r#"<link rel="canonical" href="/c/chain-b">"#)
        .page("/c/chain-b", r#"<link rel="canonical" href="/c/chain-c">"#)
        .page("/c/chain-c", "<p>the end of the chain</p>")
        .page(
            "/c/conflict",
            r#"<link rel="canonical" href="/c/one"><link rel="canonical" href="/c/two">"#,
        )
        .page("/c/one", "one")
        .page("/c/two", "two")
        .page(
            "/c/offsite",
            &format!(r#"<link rel="canonical" href="{off_site}">"#),
        )
        .page("/c/to-404", r#"<link rel="canonical" href="/c/missing">"#)
        .page(
            "/c/to-disallowed",
            r#"<link rel="canonical" href="/private/page">"#,
        )
        .page("/private/page", "private")
        .page("/c/loop-a", r#"<link rel="canonical" href="/c/loop-b">"#)
        .page("/c/loop-b", r#"<link rel="canonical" href="/c/loop-a">"#)
        .page(
            "/c/in-body",
            r#"<head><title>t</title></head><body><p>x</p><link rel="canonical" href="/c/one"></body>"#,
        )
        .serve();
    let out = tempfile::tempdir().unwrap();
    let (run, store) = crawl_recorded(&server.url("/"), out.path(), &[]);
    run.assert_success();

    assert_eq!(
        listed_urls(out.path()),
        urls(
            &server,
            &[
                "/",
                "/c/target",
                "/c/chain-c",
                "/c/conflict",
                "/c/to-404",
                "/c/to-disallowed",
                "/c/loop-a",
                "/c/in-body",
                "/c/invalid",
            ]
        )
    );
    let reason = |path: &str| verdict_of(&store, &server.url(path));
    for canonicalised in [
        "/c/upper",
        "/c/relative",
        "/c/header",
        "/c/chain-a",
        "/c/chain-b",
    ] {
        assert_eq!(
            reason(canonicalised),
            (Verdict::Canonicalised, None),
            "{canonicalised}"
        );
        let page = store.page(&server.url(canonicalised)).unwrap().unwrap();
        assert!(page.target.is_some(), "{canonicalised} keeps its target");
    }
    assert_eq!(
        reason("/c/offsite").1.as_deref(),
        Some("canonical-out-of-scope")
    );
    assert_eq!(reason("/c/to-404").1.as_deref(), Some("broken-canonical"));
    assert_eq!(
        reason("/c/to-disallowed").1.as_deref(),
        Some("broken-canonical")
    );
    assert_eq!(reason("/c/loop-a").1.as_deref(), Some("canonical-loop"));
    assert_eq!(reason("/c/loop-b"), (Verdict::Canonicalised, None));
    let hints = |path: &str| {
        let page = store.page(&server.url(path)).unwrap().unwrap();
        assert_eq!(page.detail, None, "{path}: hints are not details");
        page.ignored_hints
    };
    assert_eq!(
        hints("/c/conflict"),
        [IgnoredHint::ConflictingCanonicals(vec![
            server.url("/c/one"),
            server.url("/c/two")
        ])]
    );
    assert_eq!(
        hints("/c/invalid"),
        [IgnoredHint::InvalidCanonical(vec![
            "urn:isbn:0451450523".to_string()
        ])]
    );
    assert_eq!(times_requested(&server, "/private/page"), 0);
    assert_eq!(
        times_requested(&server, "/c/one") + times_requested(&server, "/c/two"),
        0,
        "conflicting canonicals are ignored, not followed"
    );
    assert!(other_host.targets().is_empty());
    assert!(
        run.stderr.contains("canonical target is broken: 2"),
        "{}",
        run.stderr
    );
}

#[test]
fn noindex_and_nofollow_from_meta_tags_and_every_x_robots_tag_header() {
    let server = Site::new()
        .page(
            "/",
            &links_to(&[
                "/d/meta",
                "/d/header",
                "/d/second-header",
                "/d/other-bot",
                "/d/for-us",
                "/d/none",
                "/d/noindex-links",
                "/d/nofollow-header",
                "/d/meta-other-bot",
            ]),
        )
        .page(
            "/d/meta",
            r#"<META NAME="Robots" CONTENT="NoIndex, Follow">"#,
        )
        .route(
            "/d/header",
            Route::html("x").header("X-Robots-Tag", "NOINDEX"),
        )
        .route(
            "/d/second-header",
            Route::html("x")
                .header("X-Robots-Tag", "max-snippet: 20")
                .header("X-Robots-Tag", "noarchive, noindex"),
        )
        .route(
            "/d/other-bot",
            Route::html("x").header("X-Robots-Tag", "googlebot: noindex"),
        )
        .route(
            "/d/for-us",
            Route::html("x").header("X-Robots-Tag", "SiteMapper: noindex"),
        )
        .page(
            "/d/meta-other-bot",
            r#"<meta name="googlebot" content="noindex">"#,
        )
        .page(
            "/d/none",
            r#"<meta name="robots" content="none"><a href="/d/from-none">x</a>"#,
        )
        .page("/d/from-none", "never reached")
        .page(
            "/d/noindex-links",
            r#"<meta name="robots" content="noindex"><a href="/d/from-noindex">x</a>"#,
        )
        .page("/d/from-noindex", "reached through a noindex page")
        .route(
            "/d/nofollow-header",
            Route::html(r#"<a href="/d/from-nofollow">x</a>"#).header("X-Robots-Tag", "nofollow"),
        )
        .page("/d/from-nofollow", "never reached")
        .serve();
    let out = tempfile::tempdir().unwrap();
    let (run, store) = crawl_recorded(&server.url("/"), out.path(), &[]);
    run.assert_success();

    assert_eq!(
        listed_urls(out.path()),
        urls(
            &server,
            &[
                "/",
                "/d/other-bot",
                "/d/meta-other-bot",
                "/d/from-noindex",
                "/d/nofollow-header"
            ]
        )
    );
    for path in [
        "/d/meta",
        "/d/header",
        "/d/second-header",
        "/d/for-us",
        "/d/none",
    ] {
        assert_eq!(
            verdict_of(&store, &server.url(path)),
            (Verdict::Excluded, Some("noindex".into())),
            "{path}"
        );
    }
    assert_eq!(times_requested(&server, "/d/from-none"), 0);
    assert_eq!(times_requested(&server, "/d/from-nofollow"), 0);
    assert!(
        run.stderr.lines().any(|line| line.trim() == "6  noindex"),
        "the summary counts by reason:\n{}",
        run.stderr
    );
}

#[test]
fn the_content_type_and_status_decide_what_is_a_page() {
    let http_date_in_the_past = "Wed, 21 Oct 2015 07:28:00 GMT";
    let server = Site::new()
        .page(
            "/",
            &links_to(&[
                "/t/upper",
                "/t/xhtml",
                "/t/page.html",
                "/t/no-type",
                "/t/204",
                "/t/404",
                "/t/429",
                "/t/503",
                "/t/always-503",
                "/t/image",
            ]),
        )
        .route(
            "/t/upper",
            Route::new(200, "<p>x</p>").header("Content-Type", "TEXT/HTML; Charset=UTF-8"),
        )
        .route(
            "/t/xhtml",
            Route::new(
                200,
                "<html xmlns=\"http://www.w3.org/1999/xhtml\"><body>x</body></html>",
            )
            .header("Content-Type", "application/xhtml+xml"),
        )
        .route(
            "/t/page.html",
            Route::new(200, "<p>x</p>").header("Content-Type", "text/plain"),
        )
        .route("/t/no-type", Route::new(200, "<p>x</p>"))
        .route(
            "/t/204",
            Route::new(204, "").header("Content-Type", "text/html"),
        )
        .route(
            "/t/404",
            Route::new(404, "<p>x</p>").header("Content-Type", "text/html"),
        )
        .sequence(
            "/t/429",
            vec![
                Route::new(429, "slow down").header("Retry-After", "1"),
                Route::html("<p>after 429</p>"),
            ],
        )
        .sequence(
            "/t/503",
            vec![
                Route::new(503, "busy").header("Retry-After", http_date_in_the_past),
                Route::html("<p>after 503</p>"),
            ],
        )
        .route("/t/always-503", Route::new(503, "down"))
        .route(
            "/t/image",
            Route::new(200, "GIF89a").header("Content-Type", "image/gif"),
        )
        .serve();
    let out = tempfile::tempdir().unwrap();
    let (run, store) = crawl_recorded(&server.url("/"), out.path(), &["--retries", "2"]);
    run.assert_success();

    assert_eq!(
        listed_urls(out.path()),
        urls(&server, &["/", "/t/upper", "/t/xhtml", "/t/429", "/t/503"])
    );
    let reason = |path: &str| verdict_of(&store, &server.url(path)).1;
    assert_eq!(reason("/t/page.html").as_deref(), Some("not-html"));
    assert_eq!(reason("/t/no-type").as_deref(), Some("not-html"));
    assert_eq!(reason("/t/image").as_deref(), Some("not-html"));
    assert_eq!(reason("/t/204").as_deref(), Some("http-204"));
    assert_eq!(reason("/t/404").as_deref(), Some("http-404"));
    assert_eq!(reason("/t/always-503").as_deref(), Some("http-503"));
    assert_eq!(times_requested(&server, "/t/429"), 2);
    assert_eq!(times_requested(&server, "/t/503"), 2);
    assert_eq!(
        times_requested(&server, "/t/always-503"),
        3,
        "1 attempt + 2 retries"
    );
    assert_eq!(
        times_requested(&server, "/t/404"),
        1,
        "a 404 is not retried"
    );
    let page_requests = server
        .targets()
        .iter()
        .filter(|target| *target != "/robots.txt")
        .count();
    assert!(
        run.stderr.contains(&format!(" {page_requests} requests,")),
        "retries are requests too ({page_requests}): {}",
        run.stderr
    );
}

#[test]
fn lastmod_comes_from_the_final_last_modified_in_any_http_date_form() {
    let stamp = "2024-01-02T03:04:05+00:00";
    let with_last_modified =
        |value: &str| Route::html("<p>dated</p>").header("Last-Modified", value);
    let server = Site::new()
        .page(
            "/",
            &links_to(&[
                "/l/imf",
                "/l/rfc850",
                "/l/asctime",
                "/l/invalid",
                "/l/future",
                "/l/none",
                "/l/redirect",
            ]),
        )
        .route(
            "/l/imf",
            with_last_modified("Tue, 02 Jan 2024 03:04:05 GMT"),
        )
        .route(
            "/l/rfc850",
            with_last_modified("Tuesday, 02-Jan-24 03:04:05 GMT"),
        )
        .route("/l/asctime", with_last_modified("Tue Jan  2 03:04:05 2024"))
        .route("/l/invalid", with_last_modified("yesterday"))
        .route(
            "/l/future",
            with_last_modified("Fri, 01 Jan 2100 00:00:00 GMT"),
        )
        .route(
            "/l/none",
            Route::html("<p>only a Date header</p>")
                .header("Expires", "Tue, 02 Jan 2024 03:04:05 GMT"),
        )
        .route(
            "/l/redirect",
            Route::redirect(301, "/l/final")
                .header("Last-Modified", "Tue, 02 Jan 2024 03:04:05 GMT"),
        )
        .page("/l/final", "<p>no Last-Modified of its own</p>")
        .serve();
    let out = tempfile::tempdir().unwrap();
    let (run, _store) = crawl_recorded(&server.url("/"), out.path(), &[]);
    run.assert_success();
    let xml = std::fs::read_to_string(out.path().join("sitemap.xml")).unwrap();
    let lastmod_of = |path: &str| {
        let start = xml
            .find(&format!("<loc>{}</loc>", server.url(path)))
            .unwrap_or_else(|| panic!("{path} is listed"));
        let entry = &xml[start..xml[start..].find("</url>").unwrap() + start];
        entry
            .split("<lastmod>")
            .nth(1)
            .map(|rest| rest.split("</lastmod>").next().unwrap().to_string())
    };
    for path in ["/l/imf", "/l/rfc850", "/l/asctime"] {
        assert_eq!(lastmod_of(path).as_deref(), Some(stamp), "{path}");
    }
    for path in ["/l/invalid", "/l/future", "/l/none", "/l/final", "/"] {
        assert_eq!(lastmod_of(path), None, "{path} has no lastmod");
    }
}

#[test]
fn urls_longer_than_the_sitemap_limit_are_never_requested_nor_listed() {
    let server = Site::new().page("/", "<p>placeholder</p>").serve();
    // Paths that make the whole URL exactly 2,048 and 2,049 characters long.
    let path_of = |length: usize| {
        let padding = length - server.url("/l/").len();
        format!("/l/{}", "a".repeat(padding))
    };
    let (longest, too_long) = (path_of(2_048), path_of(2_049));
    assert_eq!(server.url(&too_long).len(), 2_049);
    server.change(
        Site::new()
            .page(
                "/",
                &format!("<a href=\"{longest}\">ok</a> <a href=\"{too_long}\">too long</a>"),
            )
            .page(&longest, "<p>the longest listed URL</p>")
            .page(&too_long, "<p>never requested</p>"),
    );
    let out = tempfile::tempdir().unwrap();
    let (run, store) = crawl_recorded(&server.url("/"), out.path(), &[]);
    run.assert_success();
    assert_eq!(listed_urls(out.path()), urls(&server, &["/", &longest]));
    assert_eq!(
        verdict_of(&store, &server.url(&too_long)),
        (Verdict::Excluded, Some("url-too-long".to_string()))
    );
    assert_eq!(times_requested(&server, &too_long), 0);
}
