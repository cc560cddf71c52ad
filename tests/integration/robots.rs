//! robots.txt is fetched before anything else on an origin and obeyed.

use crate::fixture::{Route, Site};
use crate::harness::{crawl, listed_urls};

#[test]
fn disallowed_urls_are_never_requested_and_our_group_is_chosen() {
    let robots = "User-agent: *\nDisallow: /\n\nUser-agent: sitemapper\nDisallow: /drafts/\nAllow: /drafts/published\n";
    let server = Site::new()
        .route(
            "/robots.txt",
            Route::new(200, robots).header("Content-Type", "text/plain"),
        )
        .page(
            "/",
            r#"<a href="/drafts/one">1</a><a href="/drafts/published">2</a><a href="/ok">3</a>"#,
        )
        .page("/drafts/one", "draft")
        .page("/drafts/published", "published")
        .page("/ok", "ok")
        .serve();
    let out = tempfile::tempdir().unwrap();
    crawl(&server.url("/"), out.path(), &[]).assert_success();
    let listed: Vec<String> = listed_urls(out.path()).into_iter().collect();
    assert_eq!(
        listed,
        ["/", "/drafts/published", "/ok"].map(|path| server.url(path))
    );
    let targets = server.targets();
    assert_eq!(targets[0], "/robots.txt");
    assert!(!targets.contains(&"/drafts/one".to_string()));
}

#[test]
fn a_missing_robots_txt_allows_everything() {
    let server = Site::new()
        .page("/", r#"<a href="/a">a</a>"#)
        .page("/a", "a")
        .serve();
    let out = tempfile::tempdir().unwrap();
    crawl(&server.url("/"), out.path(), &[]).assert_success();
    assert_eq!(listed_urls(out.path()).len(), 2);
}

#[test]
fn an_unreachable_robots_txt_disallows_everything() {
    let server = Site::new()
        .route("/robots.txt", Route::new(503, "busy"))
        .page("/", r#"<a href="/a">a</a>"#)
        .serve();
    let out = tempfile::tempdir().unwrap();
    let run = crawl(&server.url("/"), out.path(), &[]);
    assert_eq!(run.code, 1, "the seed itself is disallowed: {}", run.stderr);
    assert!(run.stderr.contains("disallowed"), "{}", run.stderr);
    assert_eq!(
        server.targets(),
        ["/robots.txt"],
        "nothing but robots.txt is requested"
    );
}

#[test]
fn ignore_robots_crawls_disallowed_pages_and_says_so() {
    let server = Site::new()
        .route(
            "/robots.txt",
            Route::new(200, "User-agent: *\nDisallow: /\n"),
        )
        .page("/", r#"<a href="/a">a</a>"#)
        .page("/a", "a")
        .serve();
    let out = tempfile::tempdir().unwrap();
    let run = crawl(&server.url("/"), out.path(), &["--ignore-robots"]);
    run.assert_success();
    assert_eq!(listed_urls(out.path()).len(), 2);
    assert!(run.stderr.contains("IGNORED"), "{}", run.stderr);
    assert!(!server.targets().contains(&"/robots.txt".to_string()));
}
