//! Sites built by JavaScript (`--render`), against a small single-page application written
//! for these tests in plain JavaScript, rendered by the installed Chromium.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use sitemapper_store::{Rendering, ServedDifference};

use crate::fixture::{Route, Server, Site};
use crate::harness::{
    chromium, crawl, crawl_recorded, listed_urls, sitemapper_command, verdict_of,
};

/// A script standing for the browser that notes each start in `marker`, then runs it.
fn recording_browser(directory: &Path, browser: &Path, marker: &Path) -> PathBuf {
    let wrapper = directory.join("browser");
    let script = format!(
        "#!/bin/sh\necho started >> '{}'\nexec '{}' \"$@\"\n",
        marker.display(),
        browser.display()
    );
    std::fs::write(&wrapper, script).expect("write the browser wrapper");
    Command::new("chmod")
        .args(["+x", wrapper.to_str().expect("utf-8 path")])
        .status()
        .expect("chmod");
    wrapper
}

pub(crate) const SHELL: &str = r#"<!doctype html>
<html><head><title>Shop</title><script src="/app.js" defer></script></head>
<body><noscript>You need to enable JavaScript to run this app.</noscript><div id="root"></div></body></html>"#;

/// The application: its menu comes from a JSON endpoint; `/products` lists products from
/// another; `/old-about` gets a canonical and `/drafts` a noindex from script; `/spinner`
/// never ends a script, `/live` polls forever, `/ticker` adds a link every 100 ms; every
/// page asks for a URL robots.txt disallows, and so does a worker the home page starts.
const APP: &str = r##"(async () => {
  const path = location.pathname;
  if (path === '/spinner') { while (true) {} }
  const root = document.getElementById('root');
  if (path === '/') {
    new Worker('/worker.js');
    if (navigator.serviceWorker) navigator.serviceWorker.register('/sw.js').catch(() => {});
  }
  const nav = await (await fetch('/api/nav.json')).json();
  fetch('/private/track?from=' + encodeURIComponent(path)).catch(() => {});
  let html = '<nav>' + nav.map((href) => `<a href="${href}">${href}</a>`).join(' ') + '</nav>';
  html += '<p><a href="#/help">Help</a> <a href="/#!/faq">FAQ</a></p>';
  if (path === '/products') {
    const ids = await (await fetch('/api/products.json')).json();
    html += ids.map((id) => `<a href="/products/${id}">Product ${id}</a>`).join(' ');
  }
  if (path === '/old-about') {
    const link = document.createElement('link');
    link.rel = 'canonical';
    link.href = '/about';
    document.head.appendChild(link);
  }
  if (path === '/drafts') {
    const meta = document.createElement('meta');
    meta.name = 'robots';
    meta.content = 'noindex';
    document.head.appendChild(meta);
  }
  if (path === '/live') { setInterval(() => fetch('/api/poll').catch(() => {}), 100); }
  if (path === '/ticker') {
    let count = 0;
    setInterval(() => {
      const link = document.createElement('a');
      link.href = '/ticker/' + (count += 1);
      document.body.appendChild(link);
    }, 100);
  }
  root.innerHTML = html;
})();"##;

fn single_page_app() -> Site {
    Site::new()
        .route(
            "/robots.txt",
            Route::new(200, "User-agent: *\nDisallow: /private/\n")
                .header("Content-Type", "text/plain"),
        )
        .route(
            "/app.js",
            Route::new(200, APP).header("Content-Type", "text/javascript"),
        )
        .route(
            "/api/nav.json",
            Route::new(
                200,
                r#"["/about", "/products", "/old-about", "/drafts", "/missing", "/spinner", "/live", "/ticker"]"#,
            )
            .header("Content-Type", "application/json"),
        )
        .route(
            "/api/products.json",
            Route::new(200, "[1, 2]").header("Content-Type", "application/json"),
        )
        .route(
            "/worker.js",
            Route::new(200, "fetch('/private/from-worker').catch(() => {});")
                .header("Content-Type", "text/javascript"),
        )
        .route(
            "/sw.js",
            Route::new(200, "self.addEventListener('install', () => fetch('/private/from-sw'));")
                .header("Content-Type", "text/javascript"),
        )
        .route(
            "/api/poll",
            Route::new(200, "{}").header("Content-Type", "application/json"),
        )
        // The server knows this route is gone, although the application would draw it.
        .route(
            "/missing",
            Route::new(404, SHELL).header("Content-Type", "text/html"),
        )
        // The server's fallback: every other path is the application.
        .generated(|target| {
            Some(
                Route::html(SHELL)
                    .header("ETag", "\"app-1\"")
                    .header("Last-Modified", "Mon, 02 Nov 2026 10:00:00 GMT")
                    .header("X-Target", target),
            )
        })
}

pub(crate) fn expected(server: &Server, paths: &[&str]) -> BTreeSet<String> {
    paths.iter().map(|path| server.url(path)).collect()
}

const LISTED: &[&str] = &[
    "/",
    "/about",
    "/products",
    "/products/1",
    "/products/2",
    "/spinner",
    "/live",
    "/ticker",
];

#[test]
fn a_single_page_app_is_mapped_completely_and_the_browser_obeys_robots_txt() {
    let Some(browser) = chromium() else { return };
    let server = single_page_app().serve();
    let out = tempfile::tempdir().expect("tempdir");
    let marker = out.path().join("browser-started");
    let wrapper = recording_browser(out.path(), &browser, &marker);
    let (run, store) = crawl_recorded(
        &server.url("/"),
        out.path(),
        &[
            "--chrome",
            wrapper.to_str().expect("utf-8"),
            "--render-timeout",
            "10",
        ],
    );
    run.assert_success();

    assert_eq!(
        listed_urls(out.path()),
        expected(&server, LISTED),
        "{}",
        run.stderr
    );
    let (_, reason) = verdict_of(&store, &server.url("/drafts"));
    assert_eq!(
        reason.as_deref(),
        Some("noindex"),
        "a noindex set by script counts"
    );
    let (verdict, _) = verdict_of(&store, &server.url("/old-about"));
    assert_eq!(verdict, sitemapper_store::Verdict::Canonicalised);
    let old_about = store.page(&server.url("/old-about")).unwrap().unwrap();
    assert_eq!(old_about.rendering, Some(Rendering::Rendered));
    assert_eq!(
        old_about.served_differences,
        [ServedDifference::Canonical(None)],
        "the canonical came from script: the HTML as served had none"
    );
    let spinner = store.page(&server.url("/spinner")).unwrap().unwrap();
    assert_eq!(spinner.rendering, Some(Rendering::TimedOut));
    let (_, reason) = verdict_of(&store, &server.url("/missing"));
    assert_eq!(
        reason.as_deref(),
        Some("http-404"),
        "the server's status decides"
    );

    let targets = server.targets();
    assert!(
        !targets.iter().any(|target| target.starts_with("/private/")),
        "a disallowed URL reached the server: {targets:?}"
    );
    assert!(
        targets.contains(&"/worker.js".to_string()) && !targets.contains(&"/sw.js".to_string()),
        "workers obey the gate; service workers, which would not, are not registered: {targets:?}"
    );
    assert!(
        !targets.iter().any(|target| target.starts_with("/ticker/")),
        "links of a page that never settles were followed: {targets:?}"
    );
    for page in ["/", "/about", "/products/1"] {
        let requests = targets.iter().filter(|target| *target == page).count();
        assert_eq!(
            requests, 1,
            "{page} requested {requests} times: {targets:?}"
        );
    }
    assert!(targets.iter().any(|target| target == "/api/products.json"));

    let stderr = &run.stderr;
    assert!(
        stderr.contains(
            "Rendered 10 of 10 HTML pages: 1 of 1 kind of page (pages that load the same scripts) builds links in JavaScript."
        ),
        "{stderr}"
    );
    assert!(
        stderr.contains("Rendering found 10 URLs that the HTML did not link to."),
        "{stderr}"
    );
    assert!(
        stderr.contains("3 pages did not settle within --render-timeout 10s"),
        "{stderr}"
    );
    assert!(
        stderr.contains("robots.txt disallows (never sent)"),
        "{stderr}"
    );
    assert!(
        stderr.contains("Hash routes not listed: 2 (#!/faq, #/help)"),
        "{stderr}"
    );
    assert!(stderr.contains("for the browser's processes"), "{stderr}");
    assert!(stderr.contains(" s for the browser."), "{stderr}");
    let starts = std::fs::read_to_string(&marker).unwrap_or_default();
    assert_eq!(starts.lines().count(), 1, "one browser for the whole crawl");
}

#[test]
fn a_static_site_starts_no_browser() {
    let Some(browser) = chromium() else { return };
    let server = Site::new()
        .page("/", r#"<script>console.log(1)</script><a href="/a">A</a>"#)
        .page("/a", r#"<a href="/">Home</a> <my-widget></my-widget>"#)
        .serve();
    let out = tempfile::tempdir().expect("tempdir");
    let marker = out.path().join("browser-started");
    let wrapper = recording_browser(out.path(), &browser, &marker);
    let run = crawl(
        &server.url("/"),
        out.path(),
        &["--chrome", wrapper.to_str().expect("utf-8")],
    );
    run.assert_success();
    assert_eq!(listed_urls(out.path()), expected(&server, &["/", "/a"]));
    assert!(!marker.exists(), "a browser was started for a static site");
    assert!(!run.stderr.contains("Rendered"), "{}", run.stderr);
}

#[test]
fn without_a_browser_auto_warns_that_the_sitemap_is_incomplete() {
    let server = single_page_app().serve();
    let out = tempfile::tempdir().expect("tempdir");
    let empty = tempfile::tempdir().expect("tempdir");
    let seed = server.url("/");
    let run: crate::harness::Run =
        sitemapper_command(&["crawl", &seed, "--out", out.path().to_str().expect("utf-8")])
            .env("PATH", empty.path())
            .env_remove("CHROME")
            .output()
            .expect("run sitemapper")
            .into();
    run.assert_success();
    assert_eq!(listed_urls(out.path()), expected(&server, &["/"]));
    let warnings = crate::harness::other_warnings(&run.stderr);
    assert_eq!(warnings.len(), 1, "{}", run.stderr);
    assert!(
        warnings[0].contains("looks built by JavaScript (scripts and an empty <div id=\"root\">)"),
        "{}",
        warnings[0]
    );
    assert!(
        run.stderr.contains("because no browser was found")
            && run.stderr.contains("the sitemap may be incomplete"),
        "{}",
        run.stderr
    );
}

#[test]
fn always_without_a_browser_is_a_usage_error() {
    let out = tempfile::tempdir().expect("tempdir");
    let empty = tempfile::tempdir().expect("tempdir");
    let out_dir = out.path().to_str().expect("utf-8");
    let missing = sitemapper_command(&[
        "crawl",
        "http://127.0.0.1:9/",
        "--out",
        out_dir,
        "--render",
        "always",
        "--chrome",
        "/nonexistent/chromium",
    ])
    .output()
    .expect("run sitemapper");
    let stderr = String::from_utf8_lossy(&missing.stderr);
    assert_eq!(missing.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("the browser /nonexistent/chromium (--chrome) is not an executable file"),
        "{stderr}"
    );

    let none = sitemapper_command(&[
        "crawl",
        "http://127.0.0.1:9/",
        "--out",
        out_dir,
        "--render",
        "always",
    ])
    .env("PATH", empty.path())
    .env_remove("CHROME")
    .output()
    .expect("run sitemapper");
    let stderr = String::from_utf8_lossy(&none.stderr);
    assert_eq!(none.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("--render always: no browser found: install Chromium"),
        "{stderr}"
    );
    assert!(!out.path().join("sitemap.xml").exists());
}

#[test]
fn a_recrawl_reuses_what_rendering_found_for_unchanged_pages() {
    let Some(browser) = chromium() else { return };
    let server = single_page_app().serve();
    let out = tempfile::tempdir().expect("tempdir");
    let marker = out.path().join("browser-started");
    let wrapper = recording_browser(out.path(), &browser, &marker);
    let flags = [
        "--chrome",
        wrapper.to_str().expect("utf-8"),
        "--render-timeout",
        "10",
    ];
    crawl_recorded(&server.url("/"), out.path(), &flags)
        .0
        .assert_success();
    std::fs::remove_file(&marker).expect("the first run started a browser");

    let (run, store) = crawl_recorded(&server.url("/"), out.path(), &flags);
    run.assert_success();
    let old_about = store.page(&server.url("/old-about")).unwrap().unwrap();
    assert!(old_about.revalidated);
    assert_eq!(old_about.rendering, Some(Rendering::Rendered));
    assert_eq!(
        old_about.served_differences,
        [ServedDifference::Canonical(None)]
    );
    assert_eq!(
        listed_urls(out.path()),
        expected(&server, LISTED),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr
            .contains("Unchanged (304 Not Modified, not downloaded): 10 pages."),
        "{}",
        run.stderr
    );
    assert!(!marker.exists(), "unchanged pages were rendered again");
}

#[test]
fn the_audit_reports_what_javascript_changes_and_pages_that_did_not_settle() {
    let Some(browser) = chromium() else { return };
    let server = single_page_app().serve();
    let report = tempfile::tempdir().expect("tempdir");
    let seed = server.url("/");
    let run = crate::harness::sitemapper(&[
        "audit",
        &seed,
        "--report",
        report.path().to_str().expect("utf-8"),
        "--retries",
        "0",
        "--chrome",
        browser.to_str().expect("utf-8"),
        "--render-timeout",
        "10",
    ]);
    assert!(run.code == 0 || run.code == 4, "{}", run.stderr);
    let mut reader =
        csv::Reader::from_path(report.path().join("findings.csv")).expect("findings.csv");
    let headers = reader.headers().expect("a header row").clone();
    let column = |name: &str| {
        headers
            .iter()
            .position(|header| header == name)
            .unwrap_or_else(|| panic!("no column {name} in {headers:?}"))
    };
    let columns = [
        column("severity"),
        column("kind"),
        column("url"),
        column("detail"),
    ];
    let rows: Vec<(String, String, String, String)> = reader
        .records()
        .map(|record| {
            let record = record.expect("a row");
            let field = |index: usize| record[columns[index]].to_string();
            (field(0), field(1), field(2), field(3))
        })
        .collect();
    let has = |kind: &str, path: &str, detail: &str| {
        rows.iter().any(|(severity, code, url, text)| {
            severity == "warning" && code == kind && *url == server.url(path) && text == detail
        })
    };
    assert!(
        has(
            "rendered-differs",
            "/old-about",
            &format!(
                "no canonical in the HTML as served, canonical {} once rendered",
                server.url("/about")
            )
        ),
        "{rows:?}"
    );
    assert!(
        has(
            "rendered-differs",
            "/drafts",
            "no noindex in the HTML as served, noindex once rendered"
        ),
        "{rows:?}"
    );
    for path in ["/spinner", "/live", "/ticker"] {
        assert!(
            has(
                "render-incomplete",
                path,
                "render-timeout: the HTML as served was read"
            ),
            "{path}: {rows:?}"
        );
    }
    let pages = std::fs::read_to_string(report.path().join("pages.csv")).expect("pages.csv");
    assert!(
        pages
            .lines()
            .next()
            .is_some_and(|header| header.split(',').any(|column| column == "rendering")),
        "{pages}"
    );
}

/// Another host (127.0.0.2) serving `/lib.js`, a script that sets `window.libraryLoaded`: a
/// CDN as a page's scripts see it.
pub(crate) fn library_on_another_host() -> Server {
    Site::new()
        .route(
            "/lib.js",
            Route::new(200, "window.libraryLoaded = true;")
                .header("Content-Type", "text/javascript"),
        )
        .serve_on("127.0.0.2")
}

#[test]
fn the_browser_loads_no_images_opens_nothing_and_counts_other_hosts() {
    let Some(browser) = chromium() else { return };
    let cdn = library_on_another_host();
    let shell = format!(
        r#"<!doctype html><html><head><script src="{}"></script>
        <script src="/app.js" defer></script></head>
        <body><img src="/logo.png" alt=""><div id="app"></div></body></html>"#,
        cdn.url("/lib.js")
    );
    let app = r#"(() => {
      const app = document.getElementById('app');
      app.innerHTML = window.libraryLoaded ? '<a href="/with-library">ok</a>' : 'no library';
      if (location.pathname === '/') {
        window.open('/opened');
        alert('hello');
        setTimeout(() => location.assign('/moved'), 50);
      }
    })();"#;
    let server = Site::new()
        .route(
            "/app.js",
            Route::new(200, app).header("Content-Type", "text/javascript"),
        )
        .route(
            "/logo.png",
            Route::new(200, "png").header("Content-Type", "image/png"),
        )
        .generated(move |_| Some(Route::html(&shell)))
        .serve();
    let out = tempfile::tempdir().expect("tempdir");
    let run = crawl(
        &server.url("/"),
        out.path(),
        &[
            "--chrome",
            browser.to_str().expect("utf-8"),
            "--render-timeout",
            "10",
            "-v",
        ],
    );
    run.assert_success();
    assert_eq!(
        listed_urls(out.path()),
        expected(&server, &["/", "/with-library", "/opened", "/moved"]),
        "{}",
        run.stderr
    );
    let targets = server.targets();
    assert!(!targets.contains(&"/logo.png".to_string()), "{targets:?}");
    assert_eq!(
        targets.iter().filter(|target| *target == "/").count(),
        1,
        "the tab never reloaded the page: {targets:?}"
    );
    assert!(cdn.targets().contains(&"/lib.js".to_string()));
    assert!(
        run.stderr
            .contains("the browser fetched from another host host=127.0.0.2"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("to 1 other host (-v lists them)"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_public_site_cannot_make_the_browser_reach_a_private_network() {
    let Some(browser) = chromium() else { return };
    let private = Site::new()
        .route(
            "/lib.js",
            Route::new(200, "window.libraryLoaded = true;")
                .header("Content-Type", "text/javascript"),
        )
        .page("/admin", "secret")
        .serve();
    let shell = format!(
        r#"<!doctype html><html><head><script src="{}"></script>
        <script src="/app.js" defer></script></head><body><div id="root"></div></body></html>"#,
        private.url("/lib.js")
    );
    let app = format!(
        r#"fetch('{}').catch(() => {{}});
        document.getElementById('root').innerHTML = '<a href="/about">About</a>';"#,
        private.url("/admin")
    );
    let public = Site::new()
        .route(
            "/app.js",
            Route::new(200, &app).header("Content-Type", "text/javascript"),
        )
        .generated(move |_| Some(Route::html(&shell)))
        .serve_on("127.0.0.2");
    let out = tempfile::tempdir().expect("tempdir");
    let seed = public.url("/");
    let run: crate::harness::Run = sitemapper_command(&[
        "crawl",
        &seed,
        "--out",
        out.path().to_str().expect("utf-8"),
        "--retries",
        "0",
        "--chrome",
        browser.to_str().expect("utf-8"),
    ])
    .env("SITEMAPPER_TEST_PUBLIC_ADDRESSES", "127.0.0.2")
    .output()
    .expect("run sitemapper")
    .into();
    run.assert_success();
    assert_eq!(listed_urls(out.path()), expected(&public, &["/", "/about"]));
    assert!(private.targets().is_empty(), "{:?}", private.targets());
    assert!(
        run.stderr
            .contains("The browser was refused 4 requests to private networks (never sent)."),
        "{}",
        run.stderr
    );
}

#[test]
fn a_browser_that_keeps_crashing_is_restarted_three_times_then_given_up() {
    let Some(browser) = chromium() else { return };
    let mut site = Site::new();
    let mut home = String::from("<script>document.title = 'x'</script>");
    // Each page's script finishes 400 ms after it loaded (a short timer is waited for): the
    // 40 pages take longer than the three browsers live.
    for page in 1..=40 {
        home.push_str(&format!(r#"<a href="/p{page}">{page}</a> "#));
        site = site.page(
            &format!("/p{page}"),
            r#"<script>setTimeout(() => { document.title = 'y'; }, 400)</script><a href="/">Home</a>"#,
        );
    }
    let server = site.page("/", &home).serve();
    let out = tempfile::tempdir().expect("tempdir");
    // The browser is killed 3 s after it is ready (it writes DevToolsActivePort then).
    let wrapper = out.path().join("crashing-browser");
    let script = format!(
        r#"#!/bin/sh
for argument in "$@"; do
  case "$argument" in --user-data-dir=*) profile="${{argument#--user-data-dir=}}";; esac
done
'{}' "$@" &
browser=$!
while [ ! -f "$profile/DevToolsActivePort" ]; do sleep 0.05; done
sleep 3
kill -9 $browser
wait $browser
"#,
        browser.display()
    );
    std::fs::write(&wrapper, script).expect("write the wrapper");
    Command::new("chmod")
        .args(["+x", wrapper.to_str().expect("utf-8")])
        .status()
        .expect("chmod");
    let run = crawl(
        &server.url("/"),
        out.path(),
        &[
            "--chrome",
            wrapper.to_str().expect("utf-8"),
            "--render",
            "always",
            "--render-concurrency",
            "1",
        ],
    );
    run.assert_success();
    let mut all: Vec<String> = (1..=40).map(|page| format!("/p{page}")).collect();
    all.push("/".to_string());
    let all: Vec<&str> = all.iter().map(String::as_str).collect();
    assert_eq!(
        listed_urls(out.path()),
        expected(&server, &all),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr
            .contains("The browser crashed and was started again 3 times."),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr
            .contains("because the browser could not render (the browser crashed 4 times)"),
        "{}",
        run.stderr
    );
}
