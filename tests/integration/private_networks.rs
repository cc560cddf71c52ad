//! A public site cannot point the crawler at private, loopback or link-local addresses: not by
//! a seed redirect, a robots.txt redirect or a name that resolves there, and not for IndexNow
//! either (docs/design.md, Safety). Only loopback exists here, so the tests play the public site on
//! 127.0.0.2, which the binary is told to treat as public, and the private target on
//! 127.0.0.1.

use std::path::Path;

use crate::fixture::{Route, Server, Site};
use crate::harness::{Run, listed_urls, sitemapper_command};

/// The address the tests' "public" site is served on.
const PUBLIC: &str = "127.0.0.2";

/// `sitemapper crawl SEED` with 127.0.0.2 taken for a public address.
fn crawl_as_public(seed: &str, out: &Path, extra: &[&str]) -> Run {
    let mut args = vec![
        "crawl",
        seed,
        "--out",
        out.to_str().unwrap(),
        "--retries",
        "0",
    ];
    args.extend_from_slice(extra);
    run_as_public(&args)
}

/// `sitemapper ARGS` with 127.0.0.2 taken for a public address.
fn run_as_public(args: &[&str]) -> Run {
    sitemapper_command(args)
        .env("SITEMAPPER_TEST_PUBLIC_ADDRESSES", PUBLIC)
        .output()
        .unwrap()
        .into()
}

/// A site on 127.0.0.1 that must never be asked anything.
fn private_site() -> Server {
    Site::new()
        .page("/", "<title>internal</title><a href=\"/admin\">admin</a>")
        .page("/admin", "secret")
        .page("/robots.txt", "")
        .serve()
}

/// The "public" site on 127.0.0.2, whose seed redirects to `location`.
fn redirecting_site(location: &str) -> Server {
    Site::new()
        .route("/", Route::redirect(302, location))
        .serve_on(PUBLIC)
}

#[test]
fn a_seed_redirect_to_a_private_address_is_refused_before_any_connection() {
    let internal = private_site();
    let private_port = internal.url("/").split(':').nth(2).unwrap().to_string();
    for target in [
        internal.url("/"),
        // A name that resolves to loopback: refused at resolution, by the resolved address.
        format!("http://localhost:{private_port}"),
    ] {
        let public = redirecting_site(&target);
        let out = tempfile::tempdir().unwrap();
        let run = crawl_as_public(&public.url("/"), out.path(), &[]);
        assert_eq!(run.code, 1, "{target}: {}", run.stderr);
        assert!(
            run.stderr.contains("private network"),
            "{target}: the error says why: {}",
            run.stderr
        );
        assert_eq!(
            run.stderr.lines().count(),
            1,
            "{target}: one line: {}",
            run.stderr
        );
        assert!(!out.path().join("sitemap.xml").exists());
    }
    assert!(
        internal.requests().is_empty(),
        "the private site was asked: {:?}",
        internal.targets()
    );
}

#[test]
fn allow_private_lets_the_crawl_follow_the_redirect() {
    let internal = private_site();
    let public = redirecting_site(&internal.url("/"));
    let out = tempfile::tempdir().unwrap();
    let run = crawl_as_public(&public.url("/"), out.path(), &["--allow-private"]);
    run.assert_success();
    assert_eq!(
        listed_urls(out.path()),
        [internal.url("/"), internal.url("/admin")]
            .into_iter()
            .collect()
    );
}

#[test]
fn a_robots_txt_redirect_to_a_private_address_is_not_followed() {
    let internal = private_site();
    let public = Site::new()
        .page("/", "home")
        .route(
            "/robots.txt",
            Route::redirect(301, &internal.url("/robots.txt")),
        )
        .serve_on(PUBLIC);
    let out = tempfile::tempdir().unwrap();
    let run = crawl_as_public(&public.url("/"), out.path(), &[]);
    // robots.txt that cannot be fetched disallows everything (RFC 9309 section 2.3.1.4).
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(run.stderr.contains("private network"), "{}", run.stderr);
    assert!(internal.requests().is_empty(), "{:?}", internal.targets());
}

#[test]
fn indexnow_is_not_sent_to_a_private_address_from_a_public_site() {
    let endpoint = Site::new().route("/indexnow", Route::new(202, "")).serve();
    let pages = |paths: &[&str]| {
        let links: String = paths
            .iter()
            .map(|path| format!("<a href=\"{path}\">{path}</a>"))
            .collect();
        let mut site = Site::new().page("/", &links);
        for path in paths {
            site = site.page(path, path);
        }
        site
    };
    let public = pages(&["/a"]).serve_on(PUBLIC);
    let out = tempfile::tempdir().unwrap();
    let state = out.path().join("state.db");
    let endpoint_url = endpoint.url("/indexnow");
    let flags = [
        "--state",
        state.to_str().unwrap(),
        "--indexnow-key",
        "0123456789abcdef",
        "--indexnow-endpoint",
        &endpoint_url,
    ];
    crawl_as_public(&public.url("/"), out.path(), &flags).assert_success();
    public.change(pages(&["/a", "/b"]));
    let run = crawl_as_public(&public.url("/"), out.path(), &flags);
    run.assert_success();
    assert!(run.stderr.contains("private network"), "{}", run.stderr);
    assert!(!run.stderr.contains("IndexNow: notified"), "{}", run.stderr);
    assert!(endpoint.requests().is_empty());
}

#[test]
fn the_audit_does_not_read_a_sitemap_on_a_private_address() {
    let internal = Site::new()
        .page("/sitemap.xml", "<urlset></urlset>")
        .serve();
    let robots = format!("Sitemap: {}\n", internal.url("/sitemap.xml"));
    let public = Site::new()
        .page("/", "home")
        .route(
            "/robots.txt",
            Route::new(200, &robots).header("Content-Type", "text/plain"),
        )
        .serve_on(PUBLIC);
    let report = tempfile::tempdir().unwrap();
    let run = run_as_public(&[
        "audit",
        &public.url("/"),
        "--report",
        report.path().to_str().unwrap(),
    ]);
    run.assert_success();
    // On another host than the site's, it is not even requested: the crawl and the audit
    // read only the site's own sitemaps.
    let findings = std::fs::read_to_string(report.path().join("findings.csv")).unwrap();
    assert!(
        findings.contains("sitemap-on-other-site") && !findings.contains("sitemap-unreadable"),
        "{findings}"
    );
    assert!(internal.requests().is_empty(), "{:?}", internal.targets());
}
