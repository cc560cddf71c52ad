//! `sitemapper audit`: the site's own sitemaps found where sites put them (robots.txt's
//! `Sitemap:` lines, else `/sitemap.xml`, `/sitemap_index.xml` and `/sitemap.xml.gz`), or
//! given with `--sitemap`; and the findings about how the site offers them.

use std::io::Write;

use serde_json::Value;

use crate::audit::{audit, findings};
use crate::fixture::{Route, Server, Site};
use crate::harness::assert_one_line_error;

const DISCOVERY_KINDS: [&str; 3] = ["no-robots-txt", "no-sitemap", "sitemap-not-in-robots"];

fn page(title: &str, body: &str) -> String {
    format!(
        "<html><head><title>{title}</title><meta name=\"description\" content=\"About {title}\"></head><body>{body}</body></html>"
    )
}

/// A site of two pages, / and /about, with `routes` besides.
fn site_with(routes: Vec<(&str, Route)>) -> Site {
    routes.into_iter().fold(
        Site::new()
            .page("/", &page("Home", "<a href=\"/about\">about</a>"))
            .page("/about", &page("About", "about")),
        |site, (path, route)| site.route(path, route),
    )
}

/// A `<urlset>` of `locs`.
pub(crate) fn urlset(locs: &[&str]) -> String {
    let urls: String = locs
        .iter()
        .map(|loc| format!("<url><loc>{loc}</loc></url>"))
        .collect();
    format!("<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">{urls}</urlset>")
}

/// A 200 answer of XML.
pub(crate) fn xml(body: &str) -> Route {
    Route::new(200, body).header("Content-Type", "application/xml")
}

/// `text`, gzip-compressed.
pub(crate) fn gzip(text: &str) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    encoder.write_all(text.as_bytes()).unwrap();
    encoder.finish().unwrap()
}

const ROBOTS_WITHOUT_SITEMAP: &str = "User-agent: *\nAllow: /\n";

/// `(kind, path)` of the findings about how the site offers its sitemaps.
fn discovery_findings(report: &std::path::Path, server: &Server) -> Vec<(String, String)> {
    findings(report, server)
        .into_iter()
        .filter(|(kind, _, _)| DISCOVERY_KINDS.contains(&kind.as_str()))
        .map(|(kind, path, _)| (kind, path))
        .collect()
}

fn report_json(report: &std::path::Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(report.join("report.json")).unwrap()).unwrap()
}

/// The paths of the site's sitemaps report.json names.
fn sitemap_paths(report: &std::path::Path, server: &Server) -> Vec<String> {
    report_json(report)["site_sitemaps"]
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
}

#[test]
fn a_gzip_sitemap_at_the_usual_path_is_read_and_robots_txt_is_told_to_name_it() {
    let routes = |sitemap: Vec<u8>| {
        vec![
            ("/robots.txt", Route::new(200, ROBOTS_WITHOUT_SITEMAP)),
            ("/sitemap.xml.gz", Route::new(200, "").bytes(sitemap)),
        ]
    };
    let server = site_with(routes(Vec::new())).serve();
    // A gzip body gets no {origin} substitution: it is built once the port is known.
    let sitemap = gzip(&urlset(&[
        &server.url("/"),
        &server.url("/about"),
        &server.url("/orphan"),
    ]));
    server.change(site_with(routes(sitemap)));

    let report = tempfile::tempdir().unwrap();
    let run = audit(&server, report.path(), &[]);
    run.assert_success();
    assert!(
        run.stderr
            .contains("Compared with the site's sitemaps: 1 file, 3 URLs."),
        "{}",
        run.stderr
    );
    assert_eq!(sitemap_paths(report.path(), &server), ["/sitemap.xml.gz"]);
    let found = findings(report.path(), &server);
    assert!(
        found
            .iter()
            .any(|(kind, path, _)| kind == "sitemap-orphan" && path == "/orphan"),
        "its URLs are compared with the crawl: {found:?}"
    );
    assert_eq!(
        discovery_findings(report.path(), &server),
        [(
            "sitemap-not-in-robots".to_string(),
            "/sitemap.xml.gz".to_string()
        )]
    );
    // All three usual paths were tried; the two that are not there are no problem.
    for path in ["/sitemap.xml", "/sitemap_index.xml", "/sitemap.xml.gz"] {
        assert!(
            server.targets().iter().any(|target| target == path),
            "{path}"
        );
    }
    assert!(
        !found
            .iter()
            .any(|(kind, _, _)| kind == "sitemap-unreadable"),
        "{found:?}"
    );
}

#[test]
fn a_sitemap_index_at_the_usual_path_is_followed_into_its_children() {
    let server = site_with(vec![
        ("/robots.txt", Route::new(200, ROBOTS_WITHOUT_SITEMAP)),
        (
            "/sitemap_index.xml",
            xml("<sitemapindex xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\"><sitemap><loc>{origin}/pages.xml</loc></sitemap></sitemapindex>"),
        ),
        ("/pages.xml", xml(&urlset(&["{origin}/", "{origin}/about"]))),
        // A site that answers every path with a page: not a sitemap, and no problem.
        ("/sitemap.xml", Route::html(&page("Not found", "nothing here"))),
    ])
    .serve();
    let report = tempfile::tempdir().unwrap();
    let run = audit(&server, report.path(), &[]);
    run.assert_success();
    assert!(
        run.stderr
            .contains("Compared with the site's sitemaps: 2 files, 2 URLs."),
        "{}",
        run.stderr
    );
    assert_eq!(
        sitemap_paths(report.path(), &server),
        ["/pages.xml", "/sitemap_index.xml"]
    );
    // Only the index was found at a usual path; its child is listed by it.
    assert_eq!(
        discovery_findings(report.path(), &server),
        [(
            "sitemap-not-in-robots".to_string(),
            "/sitemap_index.xml".to_string()
        )]
    );
    let found = findings(report.path(), &server);
    assert!(
        !found
            .iter()
            .any(|(kind, _, _)| kind == "sitemap-unreadable" || kind == "not-in-sitemap"),
        "{found:?}"
    );
}

#[test]
fn sitemaps_given_with_the_flag_are_read_and_nothing_else_is_looked_for() {
    let server = site_with(vec![
        (
            "/robots.txt",
            Route::new(
                200,
                "User-agent: *\nAllow: /\nSitemap: {origin}/sitemap.xml\n",
            ),
        ),
        ("/sitemap.xml", xml(&urlset(&["{origin}/"]))),
        (
            "/feeds/all-pages.xml",
            xml(&urlset(&["{origin}/", "{origin}/about"])),
        ),
    ])
    .serve();
    let report = tempfile::tempdir().unwrap();
    let given = server.url("/feeds/all-pages.xml");
    let run = audit(&server, report.path(), &["--sitemap", &given]);
    run.assert_success();
    assert!(
        run.stderr
            .contains("Compared with the site's sitemaps: 1 file, 2 URLs."),
        "{}",
        run.stderr
    );
    assert_eq!(
        sitemap_paths(report.path(), &server),
        ["/feeds/all-pages.xml"]
    );
    let targets = server.targets();
    for path in ["/sitemap.xml", "/sitemap_index.xml", "/sitemap.xml.gz"] {
        assert!(
            !targets.iter().any(|target| target == path),
            "{path} requested: {targets:?}"
        );
    }
    assert!(discovery_findings(report.path(), &server).is_empty());
    let found = findings(report.path(), &server);
    assert!(
        !found.iter().any(|(kind, _, _)| kind == "not-in-sitemap"),
        "the given sitemap lists /about: {found:?}"
    );
}

#[test]
fn a_sitemap_flag_that_is_not_an_absolute_url_is_a_usage_error() {
    let server = site_with(Vec::new()).serve();
    for given in ["/sitemap.xml", "ftp://example.com/sitemap.xml", "not a url"] {
        let report = tempfile::tempdir().unwrap();
        let run = audit(&server, report.path(), &["--sitemap", given]);
        assert_eq!(run.code, 2, "{given}: {}", run.stderr);
        assert_one_line_error(&run.stderr);
        assert!(
            run.stderr
                .starts_with(&format!("error: invalid --sitemap {given:?}")),
            "{}",
            run.stderr
        );
    }
    assert!(server.targets().is_empty());
}

#[test]
fn a_site_without_robots_txt_and_sitemaps_is_told_of_both() {
    let server = site_with(Vec::new()).serve();
    let report = tempfile::tempdir().unwrap();
    let run = audit(&server, report.path(), &[]);
    run.assert_success();
    assert!(
        run.stderr.contains("The site's sitemaps: none found."),
        "{}",
        run.stderr
    );
    let mut found = discovery_findings(report.path(), &server);
    found.sort();
    assert_eq!(
        found,
        [
            ("no-robots-txt".to_string(), "/robots.txt".to_string()),
            ("no-sitemap".to_string(), "/".to_string()),
        ]
    );
    let json = report_json(report.path());
    let severity = |kind: &str| {
        json["findings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|finding| finding["kind"] == kind)
            .map(|finding| finding["severity"].as_str().unwrap().to_string())
    };
    assert_eq!(severity("no-sitemap").as_deref(), Some("warning"));
    assert_eq!(severity("no-robots-txt").as_deref(), Some("notice"));
}

#[test]
fn a_site_with_robots_txt_naming_its_sitemap_gets_no_such_finding() {
    let server = site_with(vec![
        (
            "/robots.txt",
            Route::new(
                200,
                "User-agent: *\nAllow: /\nSitemap: {origin}/sitemap.xml\n",
            ),
        ),
        (
            "/sitemap.xml",
            xml(&urlset(&["{origin}/", "{origin}/about"])),
        ),
    ])
    .serve();
    let report = tempfile::tempdir().unwrap();
    let run = audit(&server, report.path(), &[]);
    run.assert_success();
    assert!(
        run.stderr
            .contains("Compared with the site's sitemaps: 1 file, 2 URLs."),
        "{}",
        run.stderr
    );
    assert!(discovery_findings(report.path(), &server).is_empty());
    // robots.txt names one: the usual paths are not tried.
    let targets = server.targets();
    assert!(
        !targets
            .iter()
            .any(|target| target == "/sitemap_index.xml" || target == "/sitemap.xml.gz"),
        "{targets:?}"
    );
}
