//! Staging and protected sites: basic authentication (flag, seed URL, environment), headers,
//! cookies, `--map-host`, and the secrets that go to the site's origins and nowhere else: no
//! other host, no file, no log line. Proxies and certificates are in `network`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use sitemapper_store::Verdict;

use crate::fixture::{Route, Seen, Server, Site};
use crate::harness::{
    Run, assert_one_line_error, chromium, crawl_recorded, listed_urls, locs, previous_output,
    read_sitemap, sitemapper_command,
};
use crate::render::library_on_another_host;

const USER: &str = "u-reviewer-4471";
const PASSWORD: &str = "pa55-word-7f3a";
/// `Basic ` and base64 of `USER:PASSWORD`.
const AUTHORIZATION: &str = "Basic dS1yZXZpZXdlci00NDcxOnBhNTUtd29yZC03ZjNh";
const TOKEN: &str = "tok-91c2e6d4";
const USER_COOKIE: &str = "sess-5b8e0a17";
const SITE_COOKIE: &str = "consent-3d9f20";

/// Every secret a test gives or a site sets, as it could leak.
const SECRETS: &[&str] = &[
    USER,
    PASSWORD,
    "dS1yZXZpZXdlci00NDcxOnBhNTUtd29yZC03ZjNh",
    TOKEN,
    USER_COOKIE,
    SITE_COOKIE,
];

/// `sitemapper ARGS` with nothing in the environment that could choose a proxy or
/// credentials behind the test's back.
pub(crate) fn command(args: &[&str]) -> Command {
    let mut command = sitemapper_command(args);
    command
        .env_remove("NO_PROXY")
        .env_remove("no_proxy")
        .env_remove("SITEMAPPER_BASIC_AUTH");
    command
}

pub(crate) fn run(command: &mut Command) -> Run {
    command.output().expect("run sitemapper").into()
}

/// `crawl SEED --out OUT --retries 0 EXTRA`.
pub(crate) fn crawl_args<'a>(seed: &'a str, out: &'a Path, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        "crawl",
        seed,
        "--out",
        out.to_str().expect("utf-8 path"),
        "--retries",
        "0",
        "--render",
        "never",
    ];
    args.extend_from_slice(extra);
    args
}

pub(crate) fn crawl(seed: &str, out: &Path, extra: &[&str]) -> Run {
    run(&mut command(&crawl_args(seed, out, extra)))
}

/// A home page linking to three pages.
pub(crate) fn small_site() -> Site {
    Site::new()
        .page(
            "/",
            r#"<html><head><title>Home</title></head><body>
            <a href="/a">A</a> <a href="/b">B</a> <a href="/c">C</a></body></html>"#,
        )
        .page(
            "/a",
            "<html><head><title>A</title></head><body>a</body></html>",
        )
        .page(
            "/b",
            "<html><head><title>B</title></head><body>b</body></html>",
        )
        .page(
            "/c",
            "<html><head><title>C</title></head><body>c</body></html>",
        )
}

/// The URLs of [`small_site`] on `server`.
pub(crate) fn small_site_urls(server: &Server) -> BTreeSet<String> {
    ["/", "/a", "/b", "/c"]
        .iter()
        .map(|path| server.url(path))
        .collect()
}

pub(crate) fn header<'a>(seen: &'a Seen, name: &str) -> Option<&'a str> {
    seen.headers.get(name).map(String::as_str)
}

fn unauthorized() -> Route {
    Route::new(401, "<html><body>who are you?</body></html>")
        .header("Content-Type", "text/html")
        .header("WWW-Authenticate", "Basic realm=\"staging\"")
}

/// [`small_site`] behind basic authentication, robots.txt included.
fn basic_auth_site() -> Server {
    small_site()
        .guarded(|seen| (header(seen, "authorization") != Some(AUTHORIZATION)).then(unauthorized))
        .serve()
}

/// Where a crawl of [`basic_auth_site`] takes its credentials from.
struct CredentialCase<'a> {
    source: &'a str,
    seed: String,
    flags: Vec<&'a str>,
    /// `SITEMAPPER_BASIC_AUTH`, when set.
    environment: Option<&'a str>,
}

#[test]
fn basic_auth_from_the_flag_the_seed_url_or_the_environment_opens_every_page() {
    let server = basic_auth_site();
    let credentials = format!("{USER}:{PASSWORD}");
    let seed = server.url("/");
    let seed_with = |user_info: &str| seed.replacen("http://", &format!("http://{user_info}@"), 1);
    let cases = [
        CredentialCase {
            source: "the flag",
            seed: seed.clone(),
            flags: vec!["--basic-auth", credentials.as_str()],
            environment: None,
        },
        CredentialCase {
            source: "the seed URL",
            seed: seed_with(&credentials),
            flags: vec![],
            environment: None,
        },
        CredentialCase {
            source: "the environment",
            seed: seed.clone(),
            flags: vec![],
            environment: Some(credentials.as_str()),
        },
        CredentialCase {
            source: "the flag over the environment",
            seed: seed.clone(),
            flags: vec!["--basic-auth", credentials.as_str()],
            environment: Some("someone:wrong"),
        },
        CredentialCase {
            source: "the environment over the seed URL",
            seed: seed_with("someone:wrong"),
            flags: vec![],
            environment: Some(credentials.as_str()),
        },
    ];
    for case in cases {
        let out = tempfile::tempdir().unwrap();
        let mut crawl = command(&crawl_args(&case.seed, out.path(), &case.flags));
        if let Some(value) = case.environment {
            crawl.env("SITEMAPPER_BASIC_AUTH", value);
        }
        let result = run(&mut crawl);
        let source = case.source;
        assert_eq!(result.code, 0, "{source}: {}", result.stderr);
        assert_eq!(
            listed_urls(out.path()),
            small_site_urls(&server),
            "{source}"
        );
        assert!(
            result
                .stderr
                .contains("Sent to the site's origins only: basic authentication."),
            "{source}: {}",
            result.stderr
        );
    }
}

#[test]
fn wrong_or_missing_credentials_end_the_run_and_keep_the_sitemap() {
    let server = basic_auth_site();
    let (out, previous) = previous_output();
    let wrong = crawl(
        &server.url("/"),
        out.path(),
        &["--basic-auth", "someone:wrong"],
    );
    assert_eq!(wrong.code, 1, "{}", wrong.stderr);
    assert_one_line_error(&wrong.stderr);
    assert!(
        wrong
            .stderr
            .contains("answered 401 Unauthorized: the site refused the credentials given"),
        "{}",
        wrong.stderr
    );
    let none = crawl(&server.url("/"), out.path(), &[]);
    assert_eq!(none.code, 1, "{}", none.stderr);
    assert!(
        none.stderr.contains("the site asks for credentials"),
        "{}",
        none.stderr
    );
    assert_eq!(
        std::fs::read(out.path().join("sitemap.xml")).unwrap(),
        previous
    );
}

#[test]
fn a_header_goes_to_the_site_and_never_to_another_host() {
    let other = Site::new()
        .route(
            "/sitemap.xml",
            Route::new(
                200,
                r#"<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>{origin}/</loc></url></urlset>"#,
            )
            .header("Content-Type", "application/xml"),
        )
        .page("/elsewhere", "<html><body>another site</body></html>")
        .serve_on("127.0.0.2");
    let robots = format!(
        "User-agent: *\nAllow: /\nSitemap: {}\n",
        other.url("/sitemap.xml")
    );
    let site = small_site()
        .route(
            "/robots.txt",
            Route::new(200, &robots).header("Content-Type", "text/plain"),
        )
        // A link to the other host: the audit checks it.
        .page(
            "/c",
            &format!(
                "<html><head><title>C</title></head><body><a href=\"{}\">elsewhere</a></body></html>",
                other.url("/elsewhere")
            ),
        )
        .guarded(|seen| {
            (header(seen, "x-staging-token") != Some(TOKEN))
                .then(|| Route::new(403, "no token").header("Content-Type", "text/plain"))
        })
        .serve();
    let report = tempfile::tempdir().unwrap();
    let token = format!("X-Staging-Token: {TOKEN}");
    let audit = run(&mut command(&[
        "audit",
        &site.url("/"),
        "--report",
        report.path().to_str().unwrap(),
        "--retries",
        "0",
        "--render",
        "never",
        "--header",
        token.as_str(),
        "--check-external",
    ]));
    assert_eq!(audit.code, 0, "{}", audit.stderr);
    assert_eq!(listed_urls(report.path()), small_site_urls(&site));
    assert!(
        site.targets().contains(&"/robots.txt".to_string()),
        "robots.txt is read with the header too"
    );
    // The other host is asked for its robots.txt and the link's target, never for the
    // sitemap robots.txt names there, which is not the site's.
    let other_requests = other.requests();
    let asked: Vec<&str> = other_requests
        .iter()
        .map(|seen| seen.target.as_str())
        .collect();
    assert!(
        asked.contains(&"/elsewhere"),
        "the link is checked: {asked:?}"
    );
    assert!(!asked.contains(&"/sitemap.xml"), "{asked:?}");
    for seen in other_requests {
        for name in ["x-staging-token", "authorization", "cookie"] {
            assert!(
                header(&seen, name).is_none(),
                "another host got {name}: {seen:?}"
            );
        }
    }
}

#[test]
fn cookies_the_site_sets_are_sent_back_with_the_users() {
    let server = small_site()
        .route(
            "/",
            Route::html(r#"<html><body><a href="/a">A</a> <a href="/b">B</a> <a href="/c">C</a></body></html>"#)
                .header("Set-Cookie", &format!("consent={SITE_COOKIE}; Path=/; HttpOnly")),
        )
        .guarded(|seen| {
            let cookies = header(seen, "cookie").unwrap_or_default();
            let has = |pair: &str| cookies.split("; ").any(|cookie| cookie == pair);
            let user = has(&format!("session={USER_COOKIE}")) && has("theme=dark");
            let site = has(&format!("consent={SITE_COOKIE}"));
            let allowed = match seen.target.as_str() {
                "/robots.txt" => true,
                "/" => user,
                _ => user && site,
            };
            (!allowed).then(|| Route::new(403, "no cookie").header("Content-Type", "text/plain"))
        })
        .serve();
    let out = tempfile::tempdir().unwrap();
    let cookies = format!("session={USER_COOKIE}; theme=dark");
    let result = crawl(
        &server.url("/"),
        out.path(),
        &["--cookie", cookies.as_str()],
    );
    assert_eq!(result.code, 0, "{}", result.stderr);
    assert_eq!(listed_urls(out.path()), small_site_urls(&server));
    assert!(result.stderr.contains("2 cookies"), "{}", result.stderr);
}

#[test]
fn bad_site_options_are_one_line_usage_errors_that_keep_the_sitemap() {
    let server = small_site().serve();
    let (out, previous) = previous_output();
    let wrong_secret = format!("X-Token {TOKEN}");
    for (flags, says) in [
        (vec!["--header", wrong_secret.as_str()], "invalid --header"),
        (vec!["--header", "Host: example.com"], "invalid --header"),
        (vec!["--basic-auth", PASSWORD], "invalid --basic-auth"),
        (vec!["--cookie", "a b"], "invalid --cookie"),
        (vec!["--proxy", "ftp://proxy.example"], "invalid --proxy"),
        (
            vec!["--map-host", "staging.example.com"],
            "invalid --map-host",
        ),
        (
            vec![
                "--map-host",
                "a.example=b.example",
                "--map-host",
                "a.example=c.example",
            ],
            "invalid --map-host",
        ),
    ] {
        let result = crawl(&server.url("/"), out.path(), &flags);
        assert_eq!(result.code, 2, "{flags:?}: {}", result.stderr);
        assert_one_line_error(&result.stderr);
        assert!(result.stderr.contains(says), "{flags:?}: {}", result.stderr);
        for secret in SECRETS {
            assert!(
                !result.stderr.contains(secret),
                "{flags:?}: {}",
                result.stderr
            );
        }
    }
    assert_eq!(
        std::fs::read(out.path().join("sitemap.xml")).unwrap(),
        previous
    );
    assert!(server.requests().is_empty(), "nothing was requested");
}

/// A staging copy of https://www.example.com: canonicals, links and hreflang alternates name
/// the production host; `/contact` has no canonical.
fn staging_copy() -> Site {
    let page = |canonical: &str, body: &str| {
        format!(
            r#"<html><head><title>{canonical}</title>
            <link rel="canonical" href="https://www.example.com{canonical}">
            <link rel="alternate" hreflang="en" href="https://www.example.com/">
            <link rel="alternate" hreflang="de" href="https://www.example.com/de/">
            </head><body>{body}</body></html>"#
        )
    };
    Site::new()
        .page(
            "/",
            &page(
                "/",
                r#"<a href="https://www.example.com/about">About</a> <a href="/products">Products</a>
                <a href="/contact">Contact</a> <a href="https://www.example.com/de/">Deutsch</a>"#,
            ),
        )
        .page("/about", &page("/about", "about"))
        .page(
            "/products",
            &page(
                "/products",
                r#"<a href="https://www.example.com/products/1">One</a>"#,
            ),
        )
        .page("/products/1", &page("/products/1", "one"))
        .page("/de/", &page("/de/", "Hallo"))
        .page(
            "/contact",
            "<html><head><title>Contact</title></head><body>write</body></html>",
        )
}

#[test]
fn map_host_crawls_a_staging_copy_and_publishes_production_urls() {
    let server = staging_copy().serve();
    let production: BTreeSet<String> = [
        "/",
        "/about",
        "/contact",
        "/de/",
        "/products",
        "/products/1",
    ]
    .iter()
    .map(|path| format!("https://www.example.com{path}"))
    .collect();

    // Without a mapping, only the page without a canonical is listed, and the summary says
    // why the others are not.
    let unmapped = tempfile::tempdir().unwrap();
    let result = crawl(&server.url("/"), unmapped.path(), &[]);
    assert_eq!(result.code, 0, "{}", result.stderr);
    assert_eq!(
        listed_urls(unmapped.path()),
        BTreeSet::from([server.url("/contact")])
    );
    let hint = format!(
        "2 pages declare a canonical on www.example.com, another host: not listed; if this is a copy of www.example.com, use --map-host http://{}=https://www.example.com.",
        server.host()
    );
    assert!(result.stderr.contains(&hint), "{}", result.stderr);

    let out = tempfile::tempdir().unwrap();
    let mapping = format!("http://{}=https://www.example.com", server.host());
    let (result, store) = crawl_recorded(
        &server.url("/"),
        out.path(),
        &[
            "--render",
            "never",
            "--map-host",
            mapping.as_str(),
            "--hreflang",
            "--format",
            "xml,txt",
        ],
    );
    assert_eq!(result.code, 0, "{}", result.stderr);
    assert_eq!(listed_urls(out.path()), production);
    let text: BTreeSet<String> = std::fs::read_to_string(out.path().join("sitemap.txt"))
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    assert_eq!(text, production);
    let xml = read_sitemap(&out.path().join("sitemap.xml"));
    assert!(
        xml.contains(r#"hreflang="de" href="https://www.example.com/de/""#),
        "{xml}"
    );
    assert!(!xml.contains("127.0.0.1"), "{xml}");
    assert!(
        result.stderr.contains(&format!(
            "Host mapped (--map-host): http://{} -> https://www.example.com: crawled on the first, the sitemaps name the second.",
            server.host()
        )),
        "{}",
        result.stderr
    );
    assert!(!result.stderr.contains("another host"), "{}", result.stderr);
    // The crawl database keeps the URLs crawled.
    let page = store.page(&server.url("/about")).unwrap().unwrap();
    assert_eq!(page.verdict, Verdict::Indexable);
    assert!(
        store
            .page("https://www.example.com/about")
            .unwrap()
            .is_none()
    );
    assert!(
        server
            .targets()
            .iter()
            .any(|target| target == "/products/1"),
        "a link naming production was followed on staging"
    );

    // An index names its children under the production directory too.
    let chunked = tempfile::tempdir().unwrap();
    let result = crawl(
        &server.url("/"),
        chunked.path(),
        &["--map-host", mapping.as_str(), "--max-urls-per-file", "2"],
    );
    assert_eq!(result.code, 0, "{}", result.stderr);
    let index = locs(&read_sitemap(&chunked.path().join("sitemap.xml")));
    assert!(index.len() >= 3, "{index:?}");
    assert!(
        index
            .iter()
            .all(|child| child.starts_with("https://www.example.com/sitemap-000")),
        "{index:?}"
    );
    assert_eq!(listed_urls(chunked.path()), production);
}

#[test]
fn a_sitemap_of_a_host_search_engines_cannot_reach_is_said_once_unless_mapped_to_a_public_one() {
    let server = small_site().serve();
    let origin = format!("http://{}", server.host());
    let warnings = |result: &Run| -> Vec<String> {
        result
            .stderr
            .lines()
            .filter(|line| line.starts_with("Warning: "))
            .map(str::to_string)
            .collect()
    };

    let out = tempfile::tempdir().unwrap();
    let result = crawl(&server.url("/"), out.path(), &[]);
    assert_eq!(result.code, 0, "{}", result.stderr);
    assert_eq!(
        warnings(&result),
        [format!(
            "Warning: the sitemap lists URLs of {origin}, which search engines cannot reach; \
             to publish the site's public URLs, add --map-host {origin}=https://www.example.com \
             (with the site's own origin)."
        )],
        "{}",
        result.stderr
    );

    // The mapping the warning names publishes the public URLs, and nothing is said.
    let mapping = format!("{origin}=https://www.example.com");
    let result = crawl(&server.url("/"), out.path(), &["--map-host", &mapping]);
    assert_eq!(result.code, 0, "{}", result.stderr);
    assert_eq!(warnings(&result), Vec::<String>::new(), "{}", result.stderr);
    assert!(
        listed_urls(out.path())
            .iter()
            .all(|url| url.starts_with("https://www.example.com/")),
        "{:?}",
        listed_urls(out.path())
    );

    // Mapped onto another host of this machine, the sitemap is no more reachable.
    let mapping = format!("{origin}=http://localhost:8000");
    let result = crawl(&server.url("/"), out.path(), &["--map-host", &mapping]);
    assert_eq!(result.code, 0, "{}", result.stderr);
    let said = warnings(&result);
    assert!(
        said.len() == 1 && said[0].contains("URLs of http://localhost:8000,"),
        "{}",
        result.stderr
    );

    // A site the tests play as public is not warned of.
    let played = run(command(&crawl_args(&server.url("/"), out.path(), &[]))
        .env("SITEMAPPER_TEST_PUBLIC_ADDRESSES", "127.0.0.1"));
    assert_eq!(warnings(&played), Vec::<String>::new(), "{}", played.stderr);
}

/// Every regular file under `directory`, recursively.
fn files_under(directory: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(directory).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(files_under(&path));
        } else {
            files.push(path);
        }
    }
    files
}

fn assert_no_secret(what: &str, bytes: &[u8]) {
    let text = String::from_utf8_lossy(bytes);
    for secret in SECRETS {
        assert!(!text.contains(secret), "{what} holds the secret {secret:?}");
    }
}

#[test]
fn no_secret_reaches_a_file_the_database_or_a_log_line() {
    let server = small_site()
        .route(
            "/",
            Route::html(r#"<html><body><a href="/a">A</a> <a href="/b">B</a> <a href="/c">C</a></body></html>"#)
                .header("Set-Cookie", &format!("consent={SITE_COOKIE}; Path=/")),
        )
        .guarded(|seen| {
            let cookies = header(seen, "cookie").unwrap_or_default();
            let allowed = header(seen, "authorization") == Some(AUTHORIZATION)
                && header(seen, "x-staging-token") == Some(TOKEN)
                && cookies.contains(&format!("session={USER_COOKIE}"));
            (!allowed).then(unauthorized)
        })
        .serve();
    let seed = server
        .url("/")
        .replacen("http://", &format!("http://{USER}:{PASSWORD}@"), 1);
    let work = tempfile::tempdir().unwrap();
    let out = work.path().join("out");
    let report = work.path().join("report");
    let state = work.path().join("crawl.db");
    let changes = work.path().join("changes.json");
    let token = format!("X-Staging-Token: {TOKEN}");
    let cookie = format!("session={USER_COOKIE}");
    let secrets = [
        "--header",
        token.as_str(),
        "--cookie",
        cookie.as_str(),
        "-vv",
        "--format",
        "xml,txt",
    ];
    let mut runs = Vec::new();
    for _ in 0..2 {
        let mut args = crawl_args(&seed, &out, &secrets);
        args.extend([
            "--state",
            state.to_str().unwrap(),
            "--report-changes",
            changes.to_str().unwrap(),
        ]);
        runs.push(run(command(&args).env("RUST_LOG", "trace")));
    }
    // The outputs for scripts: the JSON summary on stdout, the list of URLs not listed.
    let not_listed = work.path().join("not-listed.csv");
    let mut args = crawl_args(&seed, &out, &secrets);
    args.extend([
        "--summary",
        "json",
        "--list-not-listed",
        not_listed.to_str().unwrap(),
    ]);
    let json = run(command(&args).env("RUST_LOG", "trace"));
    assert!(json.stdout.starts_with("{\"version\":1"), "{}", json.stdout);
    assert!(not_listed.is_file());
    runs.push(json);
    let audit_args = [
        "audit",
        seed.as_str(),
        "--report",
        report.to_str().unwrap(),
        "--retries",
        "0",
        "--render",
        "never",
    ];
    let mut args = audit_args.to_vec();
    args.extend_from_slice(&secrets);
    runs.push(run(command(&args).env("RUST_LOG", "trace")));
    for (index, result) in runs.iter().enumerate() {
        assert_eq!(result.code, 0, "run {index}: {}", result.stderr);
        assert!(
            result.stderr.lines().count() > 20,
            "run {index} logged at trace level"
        );
        assert_no_secret(
            &format!("the stderr of run {index}"),
            result.stderr.as_bytes(),
        );
        assert_no_secret(
            &format!("the stdout of run {index}"),
            result.stdout.as_bytes(),
        );
    }
    assert_eq!(listed_urls(&out), small_site_urls(&server));
    assert_eq!(listed_urls(&report), small_site_urls(&server));
    let files = files_under(work.path());
    for expected in [
        "crawl.db",
        "changes.json",
        "sitemap.txt",
        "report.html",
        "pages.csv",
    ] {
        assert!(
            files
                .iter()
                .any(|file| file.file_name().is_some_and(|name| name == expected)),
            "{expected} was written: {files:?}"
        );
    }
    for file in files {
        assert_no_secret(&file.display().to_string(), &std::fs::read(&file).unwrap());
    }
}

#[test]
fn the_browser_reaches_a_protected_site_and_gives_other_hosts_nothing() {
    let Some(chrome) = chromium() else {
        return;
    };
    let other = library_on_another_host();
    let shell = format!(
        r#"<!doctype html><html><head><title>App</title>
        <script src="{}"></script><script src="/app.js" defer></script></head>
        <body><div id="root"></div></body></html>"#,
        other.url("/lib.js")
    );
    let app = r#"(async () => {
      const nav = await (await fetch('/api/nav.json')).json();
      document.getElementById('root').innerHTML =
        nav.map((href) => `<a href="${href}">${href}</a>`).join(' ');
    })();"#;
    let server = Site::new()
        .page("/", &shell)
        .page("/one", &shell)
        .page("/two", &shell)
        .route(
            "/app.js",
            Route::new(200, app).header("Content-Type", "text/javascript"),
        )
        .route(
            "/api/nav.json",
            Route::new(200, r#"["/one", "/two"]"#).header("Content-Type", "application/json"),
        )
        .guarded(|seen| {
            let allowed = header(seen, "authorization") == Some(AUTHORIZATION)
                && header(seen, "x-staging-token") == Some(TOKEN);
            (!allowed).then(unauthorized)
        })
        .serve();
    let out = tempfile::tempdir().unwrap();
    let credentials = format!("{USER}:{PASSWORD}");
    let token = format!("X-Staging-Token: {TOKEN}");
    let result = crawl(
        &server.url("/"),
        out.path(),
        &[
            "--render",
            "always",
            "--chrome",
            chrome.to_str().unwrap(),
            "--basic-auth",
            credentials.as_str(),
            "--header",
            token.as_str(),
        ],
    );
    assert_eq!(result.code, 0, "{}", result.stderr);
    let expected: BTreeSet<String> = ["/", "/one", "/two"]
        .iter()
        .map(|path| server.url(path))
        .collect();
    assert_eq!(listed_urls(out.path()), expected, "{}", result.stderr);
    assert!(
        server
            .requests()
            .iter()
            .any(|seen| seen.target == "/api/nav.json"),
        "the page's script fetched from the site"
    );
    let other_requests = other.requests();
    assert!(!other_requests.is_empty(), "the page loaded its library");
    for seen in other_requests {
        for name in ["authorization", "x-staging-token", "cookie"] {
            assert!(header(&seen, name).is_none(), "another host got {name}");
        }
    }
}
