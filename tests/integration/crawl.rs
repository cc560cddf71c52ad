//! End to end: a fixture site of a few dozen pages gives exactly the expected sitemap.

use std::collections::BTreeSet;

use sitemapper_store::{Store, Verdict};

use crate::fixture::{Route, Server, Site};
use crate::harness::{crawl, crawl_recorded, listed_urls, other_warnings, read_sitemap};
use crate::schema::assert_all_valid;

const LAST_MODIFIED: &str = "Tue, 02 Jan 2024 03:04:05 GMT";

/// A small company site with every common kind of page a crawler meets.
fn company_site() -> Server {
    let mut site = Site::new()
        .route("/robots.txt", Route::new(200, "User-agent: *\nDisallow: /private/\n").header("Content-Type", "text/plain"))
        .page(
            "/",
            r##"<!doctype html><html><head><title>Home</title></head><body>
            <a href="/about">About</a> <a href="/about?utm_source=newsletter&utm_medium=mail">About again</a>
            <a href="/blog/">Blog</a> <a href="products/">Products</a> <a href="/contact#form">Contact</a>
            <a href="{origin}/./about#top">About, spelt oddly</a>
            <a href="https://other.example/">Elsewhere</a> <a href="mailto:info@example.com">Mail</a>
            <a href="javascript:void(0)">JS</a> <a href="/files/report.pdf">Report</a>
            <a href="/missing">Broken</a> <a href="/old">Old</a> <a href="/noindex">Hidden</a>
            <a href="/duplicate">Duplicate</a> <a href="/gone">Gone</a> <a href="/error">Error</a>
            <a href="/private/secret">Private</a> <a href="/nofollow">Nofollow</a>
            <a href="/leaves">Leaves</a>
            <!-- <a href="/commented-out">no</a> -->
            <script>var link = '<a href="/in-script">no</a>';</script>
            </body></html>"##,
        )
        .page("/about", "<title>About</title><a href='/'>Home</a>")
        .page("/contact", "<title>Contact</title><a href='/'>Home</a>")
        .route("/files/report.pdf", Route::new(200, "%PDF-1.4").header("Content-Type", "application/pdf"))
        .route("/old", Route::redirect(301, "/new"))
        .route("/new", Route::html("<title>New</title>").header("Last-Modified", LAST_MODIFIED))
        .page("/noindex", r#"<meta name="robots" content="noindex"><a href="/via-noindex">followed</a>"#)
        .page("/via-noindex", "<title>Reached through a noindex page</title>")
        .page("/duplicate", r#"<link rel="canonical" href="/about">"#)
        .route("/gone", Route::new(410, "gone").header("Content-Type", "text/html"))
        .route("/error", Route::new(500, "oops").header("Content-Type", "text/html"))
        .page("/private/secret", "<title>secret</title>")
        .page("/nofollow", r#"<meta name="robots" content="nofollow"><a href="/only-from-nofollow">x</a>"#)
        .page("/only-from-nofollow", "never reached")
        .page("/leaves", r#"<a href="/leaves/a">a</a><a href="/leaves/b">b</a><a href="/leaves/c">c</a>"#);
    for leaf in ["a", "b", "c"] {
        site = site.page(&format!("/leaves/{leaf}"), "<a href='/leaves'>up</a>");
    }
    let mut blog = String::from("<title>Blog</title>");
    for number in 1..=10 {
        blog.push_str(&format!("<a href=\"post-{number}\">Post {number}</a>"));
        let next = number % 10 + 1;
        site = site.page(
            &format!("/blog/post-{number}"),
            &format!("<title>Post {number}</title><a href=\"/blog/\">Blog</a><a href=\"post-{next}\">next</a>"),
        );
    }
    site = site.page("/blog/", &blog);
    let mut products = String::from("<base href=\"/products/\"><title>Products</title>");
    for product in ["a", "b", "c", "d", "e"] {
        products.push_str(&format!("<a href=\"{product}\">{product}</a>"));
        site = site.page(
            &format!("/products/{product}"),
            "<a href='../'>All products</a>",
        );
    }
    site.page("/products/", &products).serve()
}

fn expected(server: &Server) -> BTreeSet<String> {
    let mut paths = vec![
        "/",
        "/about",
        "/contact",
        "/new",
        "/via-noindex",
        "/nofollow",
        "/leaves",
        "/leaves/a",
        "/leaves/b",
        "/leaves/c",
        "/blog/",
        "/products/",
    ];
    let posts: Vec<String> = (1..=10)
        .map(|number| format!("/blog/post-{number}"))
        .collect();
    paths.extend(posts.iter().map(String::as_str));
    let products: Vec<String> = ["a", "b", "c", "d", "e"]
        .iter()
        .map(|product| format!("/products/{product}"))
        .collect();
    paths.extend(products.iter().map(String::as_str));
    paths.into_iter().map(|path| server.url(path)).collect()
}

#[test]
fn a_site_crawl_lists_exactly_its_indexable_pages() {
    let server = company_site();
    let out = tempfile::tempdir().unwrap();
    let run = crawl(&server.url("/"), out.path(), &[]);
    run.assert_success();

    assert_eq!(listed_urls(out.path()), expected(&server));
    assert_all_valid(out.path());

    let targets = server.targets();
    assert_eq!(
        targets.first().map(String::as_str),
        Some("/robots.txt"),
        "robots.txt comes first"
    );
    for never in [
        "/private/secret",
        "/only-from-nofollow",
        "/commented-out",
        "/in-script",
    ] {
        assert!(
            !targets.iter().any(|target| target == never),
            "{never} was requested"
        );
    }
    let mut distinct = targets.clone();
    distinct.sort();
    distinct.dedup();
    assert_eq!(
        distinct.len(),
        targets.len(),
        "a URL was requested twice: {targets:?}"
    );
    assert!(
        server.requests().iter().all(|seen| seen.method == "GET"),
        "only GET requests"
    );
    assert!(
        server.requests().iter().all(|seen| seen
            .headers
            .get("user-agent")
            .is_some_and(|agent| agent.starts_with("sitemapper/"))),
        "every request carries the sitemapper User-Agent"
    );
    assert!(
        run.stderr.contains("Listed: 27 URLs.")
            && run
                .stderr
                .contains(&format!("Crawled {} in ", server.url("/"))),
        "summary:\n{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("noindex"),
        "summary names exclusion reasons:\n{}",
        run.stderr
    );
}

#[test]
fn lastmod_comes_from_last_modified_only() {
    let server = company_site();
    let out = tempfile::tempdir().unwrap();
    crawl(&server.url("/"), out.path(), &[]).assert_success();
    let xml = read_sitemap(&out.path().join("sitemap.xml"));
    let new_entry = format!(
        "<loc>{}</loc>\n    <lastmod>2024-01-02T03:04:05+00:00</lastmod>",
        server.url("/new")
    );
    assert!(xml.contains(&new_entry), "{xml}");
    assert_eq!(
        xml.matches("<lastmod>").count(),
        1,
        "only /new has a Last-Modified header:\n{xml}"
    );
}

#[test]
fn the_crawl_database_keeps_every_url_with_its_reason() {
    let server = company_site();
    let out = tempfile::tempdir().unwrap();
    let state = out.path().join("state.db");
    crawl(
        &server.url("/"),
        out.path(),
        &["--state", state.to_str().unwrap()],
    )
    .assert_success();
    let store = Store::open(&state).unwrap();
    let reason_of = |path: &str| {
        let page = store
            .page(&server.url(path))
            .unwrap()
            .unwrap_or_else(|| panic!("{path} not recorded"));
        (
            page.verdict,
            page.reason.map(|reason| reason.to_string()),
            page.status,
        )
    };
    assert_eq!(reason_of("/"), (Verdict::Indexable, None, Some(200)));
    assert_eq!(
        reason_of("/missing"),
        (Verdict::Excluded, Some("http-404".into()), Some(404))
    );
    assert_eq!(
        reason_of("/gone"),
        (Verdict::Excluded, Some("http-410".into()), Some(410))
    );
    assert_eq!(
        reason_of("/error"),
        (Verdict::Excluded, Some("http-500".into()), Some(500))
    );
    assert_eq!(
        reason_of("/noindex"),
        (Verdict::Excluded, Some("noindex".into()), Some(200))
    );
    assert_eq!(
        reason_of("/files/report.pdf"),
        (Verdict::Excluded, Some("not-html".into()), Some(200))
    );
    assert_eq!(
        reason_of("/private/secret"),
        (Verdict::Excluded, Some("robots-disallowed".into()), None)
    );
    assert_eq!(reason_of("/old"), (Verdict::Redirect, None, Some(301)));
    assert_eq!(
        reason_of("/duplicate"),
        (Verdict::Canonicalised, None, Some(200))
    );
    let duplicate = store.page(&server.url("/duplicate")).unwrap().unwrap();
    assert_eq!(duplicate.target, Some(server.url("/about")));
    let new = store.page(&server.url("/new")).unwrap().unwrap();
    assert_eq!(new.referrer, Some(server.url("/old")));
    assert_eq!(
        new.last_modified.map(|time| time.to_string()),
        Some("2024-01-02T03:04:05Z".to_string())
    );
    let blog_post = store.page(&server.url("/blog/post-3")).unwrap().unwrap();
    assert_eq!(
        (blog_post.depth, blog_post.referrer),
        (2, Some(server.url("/blog/")))
    );
}

#[test]
fn a_seed_with_a_path_limits_the_crawl_to_its_directory() {
    let server = company_site();
    let out = tempfile::tempdir().unwrap();
    crawl(&server.url("/blog/"), out.path(), &[]).assert_success();
    let expected: BTreeSet<String> = std::iter::once(server.url("/blog/"))
        .chain((1..=10).map(|number| server.url(&format!("/blog/post-{number}"))))
        .collect();
    assert_eq!(listed_urls(out.path()), expected);
    assert!(
        !server
            .targets()
            .iter()
            .any(|target| target == "/" || target == "/about")
    );
}

/// A book under `/book/` on a site with other pages, some of which the book links to;
/// `/book` answers as `book` says.
fn site_with_a_book(book: Route) -> Server {
    Site::new()
        .page("/", "<a href='/book'>Book</a><a href='/about'>About</a>")
        .route("/book", book)
        .page(
            "/book/",
            "<a href='/book/one'>One</a><a href='/about'>About</a>",
        )
        .page(
            "/book/one",
            "<a href='/book/two'>Two</a><a href='/shop/'>Shop</a>",
        )
        .page(
            "/book/two",
            "<a href='/book/'>Contents</a><a href='/'>Home</a>",
        )
        .page("/about", "<a href='/'>Home</a>")
        .page("/shop/", "<a href='/'>Home</a>")
        .serve()
}

fn urls(server: &Server, paths: &[&str]) -> BTreeSet<String> {
    paths.iter().map(|path| server.url(path)).collect()
}

#[test]
fn a_seed_typed_without_its_slash_is_scoped_to_the_directory_it_redirects_to() {
    let server = site_with_a_book(Route::redirect(301, "/book/"));
    let out = tempfile::tempdir().unwrap();
    let run = crawl(&server.url("/book"), out.path(), &[]);
    run.assert_success();
    assert_eq!(
        listed_urls(out.path()),
        urls(&server, &["/book/", "/book/one", "/book/two"])
    );
    let outside: Vec<String> = server
        .targets()
        .into_iter()
        .filter(|target| target != "/robots.txt" && !target.starts_with("/book"))
        .collect();
    assert!(outside.is_empty(), "fetched out of scope: {outside:?}");
    let scope_line = format!("Scope: {} and below", server.url("/book/"));
    assert_eq!(
        run.stderr.lines().next(),
        Some(format!("{scope_line}.").as_str()),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains(&format!(
            "The seed redirected: crawled {} instead of {}.",
            server.url("/book/"),
            server.url("/book")
        )),
        "{}",
        run.stderr
    );
    assert!(other_warnings(&run.stderr).is_empty(), "{}", run.stderr);

    // The log begins with the scope too, before the requests that settled it.
    let run = crawl(&server.url("/book"), out.path(), &["-v"]);
    run.assert_success();
    let first = run.stderr.lines().next().unwrap_or_default();
    assert!(
        first.contains(" INFO ") && first.ends_with(&scope_line),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr
            .contains(&format!("GET {} 301", server.url("/book"))),
        "{}",
        run.stderr
    );
}

#[test]
fn a_seed_answered_without_its_slash_maps_the_directory_above_and_says_how_to_narrow_it() {
    let server = site_with_a_book(Route::html(
        "<a href='/book/one'>One</a><a href='/about'>About</a>",
    ));
    let out = tempfile::tempdir().unwrap();
    let run = crawl(&server.url("/book"), out.path(), &["--summary", "json"]);
    run.assert_success();
    let lines: Vec<&str> = run.stderr.lines().collect();
    assert_eq!(lines.len(), 1, "one warning line:\n{}", run.stderr);
    assert!(
        lines[0].starts_with("Warning: ")
            && lines[0].contains(&format!(
                "the scope is {}, wider than the seed {}",
                server.url("/"),
                server.url("/book")
            )),
        "{}",
        run.stderr
    );
    let summary = crate::output::parse_json(&run);
    assert_eq!(summary["scope_root"], server.url("/"));
    assert_eq!(summary["scope_wider_than_seed"], true);
    assert_eq!(
        listed_urls(out.path()),
        urls(
            &server,
            &[
                "/",
                "/about",
                "/book",
                "/book/",
                "/book/one",
                "/book/two",
                "/shop/"
            ]
        ),
        "the host is mapped"
    );

    // The pattern the warning gives keeps the crawl to the path typed.
    let include = lines[0]
        .split("--include '")
        .nth(1)
        .and_then(|rest| rest.strip_suffix('\''))
        .unwrap_or_else(|| panic!("no pattern to copy: {}", lines[0]));
    assert_eq!(
        include,
        format!("^{}([/?]|$)", regex::escape(&server.url("/book")))
    );
    let narrowed = crawl(&server.url("/book"), out.path(), &["--include", include]);
    narrowed.assert_success();
    assert_eq!(
        listed_urls(out.path()),
        urls(&server, &["/book", "/book/", "/book/one", "/book/two"])
    );
    assert_eq!(
        narrowed.stderr.lines().next(),
        Some(
            format!(
                "Scope: {} and below, narrowed by --include.",
                server.url("/")
            )
            .as_str()
        ),
        "no warning once narrowed:\n{}",
        narrowed.stderr
    );
}

#[test]
fn the_scope_line_names_the_subdomains_crawled_too() {
    let server = Site::new().page("/", "home").serve();
    let out = tempfile::tempdir().unwrap();
    let seed = server.url("/").replace("127.0.0.1", "localhost");
    let run = crawl(&seed, out.path(), &["--allow-subdomains"]);
    run.assert_success();
    assert_eq!(
        run.stderr.lines().next(),
        Some(format!("Scope: {seed} and below, on localhost and its subdomains.").as_str()),
        "{}",
        run.stderr
    );
}

#[test]
fn max_depth_and_max_pages_bound_the_crawl() {
    let server = company_site();
    let out = tempfile::tempdir().unwrap();
    crawl(&server.url("/"), out.path(), &["--max-depth", "1"]).assert_success();
    let listed = listed_urls(out.path());
    assert!(listed.contains(&server.url("/blog/")));
    assert!(
        !listed.contains(&server.url("/blog/post-1")),
        "depth 2 is beyond --max-depth 1"
    );

    let out = tempfile::tempdir().unwrap();
    let before = server.targets().len();
    crawl(&server.url("/"), out.path(), &["--max-pages", "5"]).assert_success();
    let page_requests = server.targets()[before..]
        .iter()
        .filter(|target| *target != "/robots.txt")
        .count();
    assert!(
        page_requests <= 5 + 1,
        "--max-pages 5 made {page_requests} page requests"
    );
}

#[test]
fn output_is_deterministic() {
    let server = company_site();
    let first = tempfile::tempdir().unwrap();
    let second = tempfile::tempdir().unwrap();
    crawl(&server.url("/"), first.path(), &["--concurrency", "1"]).assert_success();
    crawl(&server.url("/"), second.path(), &["--concurrency", "8"]).assert_success();
    assert_eq!(
        std::fs::read(first.path().join("sitemap.xml")).unwrap(),
        std::fs::read(second.path().join("sitemap.xml")).unwrap()
    );
}

/// A site where the shortest path to `/deep` runs through the slow `/a`, and a longer one
/// through the fast `/b` and `/b1`; `/shared` is linked from both `/a` and `/b`.
fn site_with_a_slow_page() -> Site {
    Site::new()
        .page("/", r#"<a href="/b">B</a> <a href="/a">A</a>"#)
        .route(
            "/a",
            Route::html(r#"<a href="/deep">Deep</a> <a href="/shared">Shared</a>"#)
                .delay(std::time::Duration::from_millis(1500)),
        )
        .page("/b", r#"<a href="/b1">B1</a> <a href="/shared">Shared</a>"#)
        .page("/b1", r#"<a href="/deep">Deep</a>"#)
        .page("/deep", r#"<a href="/">Home</a>"#)
        .page("/shared", r#"<a href="/">Home</a>"#)
}

#[test]
fn depth_is_the_shortest_click_path_whatever_answers_first() {
    let server = site_with_a_slow_page().serve();
    for concurrency in ["1", "8"] {
        let out = tempfile::tempdir().unwrap();
        let (run, store) = crawl_recorded(
            &server.url("/"),
            out.path(),
            &["--concurrency", concurrency],
        );
        run.assert_success();
        let depth_and_referrer = |path: &str| {
            let page = store.page(&server.url(path)).unwrap().unwrap();
            (page.depth, page.referrer)
        };
        assert_eq!(
            depth_and_referrer("/deep"),
            (2, Some(server.url("/a"))),
            "through the slow /a, not /b and /b1 (--concurrency {concurrency})"
        );
        assert_eq!(depth_and_referrer("/b1"), (2, Some(server.url("/b"))));
        assert_eq!(
            depth_and_referrer("/shared"),
            (2, Some(server.url("/a"))),
            "of two parents as near, the first in URL order (--concurrency {concurrency})"
        );
    }
}
