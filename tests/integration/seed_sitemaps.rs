//! `--seed-sitemaps`: the site's own sitemaps seed discovery once links run out, under the
//! rules links follow; the crawl's own published sitemaps are never read back.

use serde_json::Value;

use crate::audit::{audit, findings};
use crate::fixture::{Route, Site};
use crate::harness::{crawl, listed_urls, other_warnings};
use crate::site_sitemaps::{gzip, urlset, xml};

fn robots_naming(sitemap: &str) -> Route {
    Route::new(
        200,
        &format!("User-agent: *\nDisallow: /private/\nSitemap: {sitemap}\n"),
    )
}

/// A home page linking to /about, and an orphan page no link leads to.
fn site() -> Site {
    Site::new()
        .page("/", "<a href=\"/about\">about</a>")
        .page("/about", "about")
        .page("/orphan", "only the sitemap knows me")
}

fn paths(listed: &std::collections::BTreeSet<String>, origin: &str) -> Vec<String> {
    listed
        .iter()
        .map(|url| url.trim_start_matches(origin).to_string())
        .collect()
}

#[test]
fn an_orphan_only_the_sitemap_lists_is_listed_with_seeding_and_not_without() {
    let server = site()
        .route("/robots.txt", robots_naming("{origin}/site-map.xml"))
        .route(
            "/site-map.xml",
            xml(&urlset(&["{origin}/", "{origin}/about", "{origin}/orphan"])),
        )
        .serve();
    let plain = tempfile::tempdir().unwrap();
    crawl(&server.url("/"), plain.path(), &[]).assert_success();
    assert_eq!(
        paths(&listed_urls(plain.path()), &server.origin()),
        ["/", "/about"]
    );
    assert!(
        !server
            .targets()
            .iter()
            .any(|target| target == "/site-map.xml"),
        "off by default for crawl"
    );

    let seeded = tempfile::tempdir().unwrap();
    let run = crawl(&server.url("/"), seeded.path(), &["--seed-sitemaps"]);
    run.assert_success();
    assert_eq!(
        paths(&listed_urls(seeded.path()), &server.origin()),
        ["/", "/about", "/orphan"]
    );
    assert!(
        run.stderr.contains(
            "The site's sitemaps: 1 read, 0 skipped, 0 unreadable; they added 1 URL no link had led to."
        ),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains(
            "Listed only from the site's sitemaps (no link of a crawled page leads there): 1."
        ),
        "{}",
        run.stderr
    );

    let json_out = tempfile::tempdir().unwrap();
    let run = crawl(
        &server.url("/"),
        json_out.path(),
        &["--seed-sitemaps=true", "--summary", "json"],
    );
    run.assert_success();
    let summary: Value = serde_json::from_str(&run.stdout).unwrap();
    let seeds = &summary["sitemap_seeds"];
    assert_eq!(seeds["read"], 1, "{seeds}");
    assert_eq!(seeds["skipped"], 0);
    assert_eq!(seeds["urls_queued"], 1);
    assert_eq!(seeds["listed_only_from_sitemaps"], 1);
    let run = crawl(&server.url("/"), json_out.path(), &["--summary", "json"]);
    let summary: Value = serde_json::from_str(&run.stdout).unwrap();
    assert!(
        summary["sitemap_seeds"].is_null(),
        "only when seeding is on"
    );
}

#[test]
fn sitemap_urls_out_of_scope_disallowed_or_excluded_are_not_crawled() {
    let elsewhere = Site::new().page("/page", "another site").serve();
    let elsewhere_page = elsewhere.url("/page");
    let server = site()
        .page("/private/secret", "disallowed by robots.txt")
        .page("/excluded/page", "excluded by --exclude")
        .page("/private/sitemap-page", "listed by a disallowed sitemap")
        .route(
            "/robots.txt",
            Route::new(
                200,
                "User-agent: *\nDisallow: /private/\nSitemap: {origin}/site-map.xml\nSitemap: {origin}/private/sitemap.xml\n",
            ),
        )
        .route(
            "/site-map.xml",
            xml(&urlset(&[
                "{origin}/orphan",
                "{origin}/private/secret",
                "{origin}/excluded/page",
                &elsewhere_page,
                "not a url",
            ])),
        )
        .route(
            "/private/sitemap.xml",
            xml(&urlset(&["{origin}/private/sitemap-page"])),
        )
        .serve();
    let out = tempfile::tempdir().unwrap();
    let run = crawl(
        &server.url("/"),
        out.path(),
        &["--seed-sitemaps", "--exclude", "/excluded/"],
    );
    run.assert_success();
    assert_eq!(
        paths(&listed_urls(out.path()), &server.origin()),
        ["/", "/about", "/orphan"]
    );
    let targets = server.targets();
    for path in [
        "/private/secret",
        "/excluded/page",
        "/private/sitemap.xml",
        "/private/sitemap-page",
    ] {
        assert!(
            !targets.iter().any(|target| target == path),
            "{path} requested"
        );
    }
    assert!(
        elsewhere.targets().is_empty(),
        "another origin is out of scope"
    );
    assert!(
        run.stderr
            .contains("The site's sitemaps: 1 read, 1 skipped, 0 unreadable"),
        "{}",
        run.stderr
    );
}

#[test]
fn an_index_with_a_gzip_child_is_followed_and_a_broken_sitemap_is_a_warning() {
    let routes = |child: Vec<u8>| {
        site()
            .page("/deeper", "listed by the gzip child")
            .route("/robots.txt", robots_naming("{origin}/sitemap_index.xml"))
            .route(
                "/sitemap_index.xml",
                xml("<sitemapindex xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\"><sitemap><loc>{origin}/pages.xml.gz</loc></sitemap><sitemap><loc>{origin}/broken.xml</loc></sitemap><sitemap><loc>{origin}/missing.xml</loc></sitemap></sitemapindex>"),
            )
            .route("/pages.xml.gz", Route::new(200, "").bytes(child))
            .route("/broken.xml", xml("<urlset><url><loc>x</lo></url>"))
    };
    let server = routes(Vec::new()).serve();
    // A gzip body gets no {origin} substitution: it is built once the port is known.
    let child = gzip(&urlset(&[&server.url("/orphan"), &server.url("/deeper")]));
    server.change(routes(child));
    let out = tempfile::tempdir().unwrap();
    let run = crawl(&server.url("/"), out.path(), &["--seed-sitemaps"]);
    run.assert_success();
    assert_eq!(
        paths(&listed_urls(out.path()), &server.origin()),
        ["/", "/about", "/deeper", "/orphan"]
    );
    assert!(
        run.stderr
            .contains("The site's sitemaps: 2 read, 0 skipped, 2 unreadable; they added 2 URLs"),
        "{}",
        run.stderr
    );
    assert!(!other_warnings(&run.stderr).is_empty(), "{}", run.stderr);
    for path in ["/sitemap_index.xml", "/pages.xml.gz", "/broken.xml"] {
        let requests = server
            .targets()
            .iter()
            .filter(|target| *target == path)
            .count();
        assert_eq!(requests, 1, "{path} is fetched once");
    }
}

#[test]
fn sitemap_xml_is_read_when_robots_txt_names_none() {
    let server = site()
        .route("/robots.txt", Route::new(200, "User-agent: *\nAllow: /\n"))
        .route("/sitemap.xml", xml(&urlset(&["{origin}/orphan"])))
        .serve();
    // At the root, /sitemap.xml is where the crawl publishes by default: it publishes
    // elsewhere here.
    let out = tempfile::tempdir().unwrap();
    let published_elsewhere = ["--seed-sitemaps", "--base-url", "https://cdn.example/maps/"];
    crawl(&server.url("/"), out.path(), &published_elsewhere).assert_success();
    assert_eq!(
        paths(&listed_urls(out.path()), &server.origin()),
        ["/", "/about", "/orphan"]
    );
    // A crawl of a directory publishes there: the site's /sitemap.xml is the site's.
    let blog = site()
        .page("/blog/", "<a href=\"/blog/post\">post</a>")
        .page("/blog/post", "post")
        .page("/blog/orphan", "only the sitemap knows me")
        .route("/robots.txt", Route::new(200, "User-agent: *\nAllow: /\n"))
        .route(
            "/sitemap.xml",
            xml(&urlset(&["{origin}/blog/orphan", "{origin}/orphan"])),
        )
        .serve();
    let out = tempfile::tempdir().unwrap();
    crawl(&blog.url("/blog/"), out.path(), &["--seed-sitemaps"]).assert_success();
    assert_eq!(
        paths(&listed_urls(out.path()), &blog.origin()),
        ["/blog/", "/blog/orphan", "/blog/post"],
        "/orphan is out of scope"
    );
    // No sitemap at all is no problem either.
    let bare = Site::new().page("/", "home").serve();
    let out = tempfile::tempdir().unwrap();
    let run = crawl(&bare.url("/"), out.path(), &["--seed-sitemaps"]);
    run.assert_success();
    assert!(other_warnings(&run.stderr).is_empty(), "{}", run.stderr);
}

#[test]
fn the_sitemap_the_previous_run_published_does_not_keep_a_removed_page_alive() {
    let with_home = |home: &str, published: &str| {
        Site::new()
            .page("/", home)
            .page("/a", "a")
            .page("/b", "b, still served, no longer linked")
            .route("/robots.txt", robots_naming("{origin}/sitemap.xml"))
            .route("/sitemap.xml", xml(published))
    };
    let server = with_home("<a href=\"/a\">a</a> <a href=\"/b\">b</a>", "").serve();
    let out = tempfile::tempdir().unwrap();
    let state = out.path().join("crawl.db");
    let state = state.to_str().unwrap();
    crawl(&server.url("/"), out.path(), &["--state", state]).assert_success();
    // The site serves what the crawl published, as robots.txt says, and drops its link to /b.
    let published = std::fs::read_to_string(out.path().join("sitemap.xml")).unwrap();
    assert!(published.contains("/b</loc>"));
    server.change(with_home("<a href=\"/a\">a</a>", &published));

    let run = crawl(
        &server.url("/"),
        out.path(),
        &["--state", state, "--seed-sitemaps"],
    );
    run.assert_success();
    assert_eq!(
        paths(&listed_urls(out.path()), &server.origin()),
        ["/", "/a"]
    );
    assert!(
        !server
            .targets()
            .iter()
            .any(|target| target == "/sitemap.xml"),
        "its own output is not requested"
    );
    assert!(
        run.stderr
            .contains("The site's sitemaps: 0 read, 1 skipped, 0 unreadable"),
        "{}",
        run.stderr
    );

    // Published elsewhere (--base-url), its children are known by their names too.
    let base = server.url("/maps/");
    let child = server.url("/maps/sitemap-00001.xml");
    server.change(
        with_home("<a href=\"/a\">a</a>", "")
            .route("/robots.txt", robots_naming(&child))
            .route("/maps/sitemap-00001.xml", xml(&published)),
    );
    let elsewhere = tempfile::tempdir().unwrap();
    let run = crawl(
        &server.url("/"),
        elsewhere.path(),
        &["--seed-sitemaps", "--base-url", &base],
    );
    run.assert_success();
    assert_eq!(
        paths(&listed_urls(elsewhere.path()), &server.origin()),
        ["/", "/a"],
        "an output copied from a fresh directory is known by the mark sitemapper writes in it"
    );
    assert!(
        run.stderr
            .contains("The site's sitemaps: 0 read, 1 skipped, 0 unreadable"),
        "{}",
        run.stderr
    );
}

#[test]
fn the_site_s_own_sitemap_xml_where_nothing_was_published_yet_is_read() {
    // A site whose CMS serves /sitemap.xml, crawled into a new directory with the default
    // --base-url (the site's root): the sitemap is the site's, not an earlier output.
    let server = Site::new()
        .page("/", "<a href=\"/a\">a</a>")
        .page("/a", "a")
        .page("/b", "only the CMS sitemap knows me")
        .route("/robots.txt", robots_naming("{origin}/sitemap.xml"))
        .route(
            "/sitemap.xml",
            xml(&urlset(&["{origin}/", "{origin}/a", "{origin}/b"])),
        )
        .serve();
    let out = tempfile::tempdir().unwrap();
    crawl(&server.url("/"), out.path(), &["--seed-sitemaps"]).assert_success();
    assert_eq!(
        paths(&listed_urls(out.path()), &server.origin()),
        ["/", "/a", "/b"]
    );
    // Once this directory holds what the crawl published there, that file is its own.
    let run = crawl(&server.url("/"), out.path(), &["--seed-sitemaps"]);
    run.assert_success();
    assert!(
        run.stderr
            .contains("The site's sitemaps: 0 read, 1 skipped, 0 unreadable"),
        "{}",
        run.stderr
    );
}

#[test]
fn an_audit_seeds_from_the_sitemaps_and_still_reports_the_orphan_with_its_checks() {
    let server = Site::new()
        .page(
            "/",
            "<html lang=\"en\"><head><title>The home page of the site</title></head><body><h1>Home</h1><a href=\"/about\">about</a></body></html>",
        )
        .page(
            "/about",
            "<html lang=\"en\"><head><title>About the site and its people</title></head><body><h1>About</h1></body></html>",
        )
        .page("/orphan", "<html><body>no title, no heading</body></html>")
        .route("/robots.txt", robots_naming("{origin}/sitemap.xml"))
        .route(
            "/sitemap.xml",
            xml(&urlset(&["{origin}/", "{origin}/about", "{origin}/orphan"])),
        )
        .serve();
    let on_orphan = |report: &std::path::Path| -> Vec<String> {
        findings(report, &server)
            .into_iter()
            .filter(|(_, path, _)| path == "/orphan")
            .map(|(kind, _, _)| kind)
            .collect()
    };

    let report = tempfile::tempdir().unwrap();
    audit(&server, report.path(), &[]).assert_success();
    let kinds = on_orphan(report.path());
    assert!(kinds.contains(&"sitemap-orphan".to_string()), "{kinds:?}");
    assert!(
        kinds.contains(&"missing-title".to_string()),
        "the orphan is crawled and checked: {kinds:?}"
    );
    let linked: Vec<(String, String, Vec<String>)> = findings(report.path(), &server)
        .into_iter()
        .filter(|(kind, path, _)| kind == "sitemap-orphan" && path != "/orphan")
        .collect();
    assert!(linked.is_empty(), "linked pages are no orphans: {linked:?}");

    let unseeded = tempfile::tempdir().unwrap();
    audit(&server, unseeded.path(), &["--seed-sitemaps=false"]).assert_success();
    assert_eq!(on_orphan(unseeded.path()), ["sitemap-orphan"]);
}
