//! robots.txt is fetched before anything else on an origin and obeyed.

use sitemapper_store::Verdict;

use crate::fixture::{Route, Site};
use crate::harness::{crawl, crawl_recorded, listed_urls, verdict_of};

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
    assert!(
        run.stderr
            .contains("robots.txt answered 503 for http://127.0.0.1:"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr
            .contains("which forbids crawling until it answers; try again later"),
        "{}",
        run.stderr
    );
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

fn with_robots(robots: &str) -> Site {
    Site::new().route(
        "/robots.txt",
        Route::new(200, robots).header("Content-Type", "text/plain"),
    )
}

fn requested(server: &crate::fixture::Server, target: &str) -> bool {
    server.targets().iter().any(|seen| seen == target)
}

#[test]
fn groups_are_chosen_by_product_token_and_merged() {
    let robots = "User-agent: *\nDisallow: /\n\nUser-agent: SiteMapper\nDisallow: /a\n\n\
                  User-agent: otherbot\nDisallow: /b\n\nUser-agent: sitemapper/9.9\nDisallow: /c\n";
    let server = with_robots(robots)
        .page(
            "/",
            r#"<a href="/a">a</a><a href="/b">b</a><a href="/c">c</a><a href="/d">d</a>"#,
        )
        .page("/a", "a")
        .page("/b", "b")
        .page("/c", "c")
        .page("/d", "d")
        .serve();
    let out = tempfile::tempdir().unwrap();
    // The default User-Agent is `sitemapper/<version> (+url)`: its token is `sitemapper`.
    crawl(&server.url("/"), out.path(), &[]).assert_success();
    let listed: Vec<String> = listed_urls(out.path()).into_iter().collect();
    assert_eq!(listed, ["/", "/b", "/d"].map(|path| server.url(path)));
    assert!(!requested(&server, "/a") && !requested(&server, "/c"));

    // Another token falls back to `*`, which disallows everything, the seed included.
    let other = tempfile::tempdir().unwrap();
    let run = crawl(
        &server.url("/"),
        other.path(),
        &["--user-agent", "AcmeBot/2.0 (+https://acme.example/bot)"],
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(run.stderr.contains("disallowed"), "{}", run.stderr);
}

#[test]
fn longest_match_allow_ties_wildcards_encoding_and_query() {
    let robots = "User-agent: *\n\
                  Disallow: /shop/\nAllow: /shop/public\n\
                  Disallow: /*.php$\n\
                  Allow: /tie\nDisallow: /tie\n\
                  Disallow: /*?print=\n\
                  Disallow: /caf%c3%a9\n\
                  Disallow: /%7Euser/\n\
                  Disallow: /naïve\n";
    let links = [
        "/shop/cart",
        "/shop/public/item",
        "/page.php",
        "/page.php?x=1",
        "/tie",
        "/article?print=1",
        "/article",
        "/café",
        "/~user/home",
        "/na%C3%AFve",
    ];
    let mut site = with_robots(robots);
    let mut home = String::new();
    for link in links {
        home.push_str(&format!("<a href=\"{link}\">x</a>"));
    }
    for path in [
        "/shop/public/item",
        "/page.php?x=1",
        "/tie",
        "/article",
        "/shop/cart",
        "/page.php",
        "/article?print=1",
        "/caf%C3%A9",
        "/~user/home",
        "/na%C3%AFve",
    ] {
        site = site.page(path, "page");
    }
    let server = site.page("/", &home).serve();
    let out = tempfile::tempdir().unwrap();
    crawl(&server.url("/"), out.path(), &[]).assert_success();
    let listed: Vec<String> = listed_urls(out.path()).into_iter().collect();
    let mut expected: Vec<String> = [
        "/",
        "/article",
        "/page.php?x=1",
        "/shop/public/item",
        "/tie",
    ]
    .map(|path| server.url(path))
    .to_vec();
    expected.sort();
    assert_eq!(listed, expected);
    for never in [
        "/shop/cart",
        "/page.php",
        "/article?print=1",
        "/caf%C3%A9",
        "/~user/home",
        "/%7Euser/home",
        "/na%C3%AFve",
    ] {
        assert!(!requested(&server, never), "{never} was requested");
    }
}

#[test]
fn a_large_robots_txt_with_a_bom_and_long_lines_is_read_to_its_end() {
    let mut robots = String::from("\u{feff}User-agent: *\n");
    robots.push_str(&format!("# {}\n", "é".repeat(60_000)));
    robots.push_str(&format!("Disallow: /{}\n", "x".repeat(100_000)));
    let mut filler = 0;
    while robots.len() < 500 * 1024 - 100 {
        robots.push_str(&format!("Disallow: /filler-{filler}\n"));
        filler += 1;
    }
    robots.push_str("Disallow: /late\n");
    let server = with_robots(&robots)
        .page("/", r#"<a href="/late">late</a><a href="/early">early</a>"#)
        .page("/late", "late")
        .page("/early", "early")
        .serve();
    let out = tempfile::tempdir().unwrap();
    crawl(&server.url("/"), out.path(), &[]).assert_success();
    assert!(requested(&server, "/early"));
    assert!(
        !requested(&server, "/late"),
        "the rule at 500 KiB is obeyed, after the BOM"
    );
}

#[test]
fn unauthorized_and_forbidden_robots_txt_allow_everything() {
    for status in [401, 403] {
        let server = Site::new()
            .route("/robots.txt", Route::new(status, "no"))
            .page("/", r#"<a href="/a">a</a>"#)
            .page("/a", "a")
            .serve();
        let out = tempfile::tempdir().unwrap();
        crawl(&server.url("/"), out.path(), &[]).assert_success();
        assert_eq!(listed_urls(out.path()).len(), 2, "robots.txt {status}");
    }
}

#[test]
fn a_robots_txt_that_times_out_disallows_everything() {
    let server = Site::new()
        .route(
            "/robots.txt",
            Route::new(200, "User-agent: *\nAllow: /\n").delay(std::time::Duration::from_secs(5)),
        )
        .page("/", "home")
        .serve();
    let out = tempfile::tempdir().unwrap();
    let run = crawl(&server.url("/"), out.path(), &["--timeout", "1"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    // No robots.txt came, so the seed cannot be crawled: what stands in the way is that the
    // site does not answer, which is what the error says.
    assert!(
        run.stderr.contains(&format!(
            "cannot reach {}: no complete answer from {} within 1 s (--timeout 1)",
            server.url("/"),
            server.host()
        )),
        "{}",
        run.stderr
    );
    assert!(!requested(&server, "/"));
}

#[test]
fn robots_txt_redirects_are_followed_up_to_five() {
    let mut site = Site::new().route("/robots.txt", Route::redirect(301, "/r1"));
    for hop in 1..5 {
        site = site.route(
            &format!("/r{hop}"),
            Route::redirect(302, &format!("/r{}", hop + 1)),
        );
    }
    let server = site
        .route(
            "/r5",
            Route::new(200, "User-agent: *\nDisallow: /secret\n")
                .header("Content-Type", "text/plain"),
        )
        .page("/", r#"<a href="/secret">s</a><a href="/open">o</a>"#)
        .page("/secret", "secret")
        .page("/open", "open")
        .serve();
    let out = tempfile::tempdir().unwrap();
    crawl(&server.url("/"), out.path(), &[]).assert_success();
    let targets = server.targets();
    assert_eq!(
        targets[..6],
        ["/robots.txt", "/r1", "/r2", "/r3", "/r4", "/r5"],
        "robots.txt and its redirects come first"
    );
    assert!(!requested(&server, "/secret"));
    assert!(requested(&server, "/open"));
}

#[test]
fn a_disallowed_url_is_never_requested_as_a_redirect_hop_or_canonical_target() {
    let server = with_robots("User-agent: *\nDisallow: /private/\n")
        .page("/", r#"<a href="/go">go</a><a href="/canon">canon</a>"#)
        .route("/go", Route::redirect(301, "/private/x"))
        .page("/canon", r#"<link rel="canonical" href="/private/y">"#)
        .page("/private/x", "x")
        .page("/private/y", "y")
        .serve();
    let out = tempfile::tempdir().unwrap();
    let (run, store) = crawl_recorded(&server.url("/"), out.path(), &[]);
    run.assert_success();
    assert!(!requested(&server, "/private/x") && !requested(&server, "/private/y"));
    let listed: Vec<String> = listed_urls(out.path()).into_iter().collect();
    assert_eq!(listed, ["/", "/canon"].map(|path| server.url(path)));
    assert_eq!(
        verdict_of(&store, &server.url("/private/x")),
        (Verdict::Excluded, Some("robots-disallowed".into()))
    );
    assert_eq!(
        verdict_of(&store, &server.url("/canon")),
        (Verdict::Indexable, Some("broken-canonical".into()))
    );
}

#[test]
fn crawl_delay_paces_requests_and_sitemap_lines_are_read() {
    let slow = |text: &str| Route::html(text).delay(std::time::Duration::from_millis(100));
    let server =
        with_robots("User-agent: *\nCrawl-delay: 1\nDisallow:\nSitemap: {origin}/sitemap.xml\n")
            .page(
                "/",
                r#"<a href="/a">a</a><a href="/b">b</a><a href="/c">c</a>"#,
            )
            .route("/a", slow("a"))
            .route("/b", slow("b"))
            .route("/c", slow("c"))
            .serve();
    let out = tempfile::tempdir().unwrap();
    let run = crawl(&server.url("/"), out.path(), &[]);
    run.assert_success();
    assert!(
        run.stderr.contains("Crawl-delay 1s") && run.stderr.contains("1 Sitemap line"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("Pace: robots.txt Crawl-delay"),
        "{}",
        run.stderr
    );
    // With eight fetch slots and no pacing, /a, /b and /c would be answered together.
    assert_eq!(
        server.max_in_flight(),
        1,
        "one request at a time to a paced host"
    );
    assert_eq!(listed_urls(out.path()).len(), 4);
}
