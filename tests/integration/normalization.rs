//! URL normalization and link extraction end to end: every spelling of one page is fetched
//! and listed once, every link a browser would follow is found, and nothing else.

use std::collections::BTreeSet;

use crate::fixture::{Route, Server, Site};
use crate::harness::{crawl, listed_urls};

fn urls(server: &Server, paths: &[&str]) -> BTreeSet<String> {
    paths.iter().map(|path| server.url(path)).collect()
}

fn assert_each_requested_once(server: &Server) {
    let targets = server.targets();
    let distinct: BTreeSet<&String> = targets.iter().collect();
    assert_eq!(
        distinct.len(),
        targets.len(),
        "a URL was fetched twice: {targets:?}"
    );
}

#[test]
fn every_spelling_of_a_page_is_listed_once() {
    let other_port = Site::new().page("/n/page", "another origin").serve();
    let long_query = "x".repeat(2100);
    let home = format!(
        r#"<a href="/n/page#fragment">1</a>
        <a href="//{{host}}/n/page">2</a>
        <a href="/n/x/../y/./../page">3</a>
        <a href="HTTP://{{host}}/n/page">4</a>
        <a href="/n/%7Euser">5</a> <a href="/n/~user">6</a> <a href="/n/%7euser">7</a>
        <a href="/n/caf%c3%a9">8</a> <a href="/n/caf%C3%A9">9</a> <a href="/n/café">10</a>
        <a href="/n/A">11</a> <a href="/n/a">12</a>
        <a href="/n/page?utm_source=mail&amp;id=3&amp;gclid=abc">13</a>
        <a href="/n/page?id=3">14</a>
        <a href="/n/session;jsessionid=0123ABC">15</a>
        <a href="/n/long?q={long_query}">16</a>
        <a href="{other}/n/page">17</a>
        <a href="https://{{host}}/n/page">18</a>"#,
        other = other_port.origin(),
    );
    let server = Site::new()
        .page("/", &home)
        .page("/n/page", "page")
        .page("/n/~user", "tilde")
        .page("/n/caf%C3%A9", "café")
        .page("/n/A", "upper")
        .page("/n/a", "lower")
        .page("/n/page?id=3", "query")
        .page("/n/session", "session")
        .page(&format!("/n/long?q={long_query}"), "long")
        .serve();
    let out = tempfile::tempdir().unwrap();
    crawl(&server.url("/"), out.path(), &[]).assert_success();
    assert_eq!(
        listed_urls(out.path()),
        urls(
            &server,
            &[
                "/",
                "/n/page",
                "/n/~user",
                "/n/caf%C3%A9",
                "/n/A",
                "/n/a",
                "/n/page?id=3",
                "/n/session"
            ]
        )
    );
    assert_each_requested_once(&server);
    // Exactly these were fetched: no other spelling, no tracking parameter, no URL over 2,048
    // characters.
    let targets: BTreeSet<String> = server.targets().into_iter().collect();
    let expected: BTreeSet<String> = [
        "/robots.txt",
        "/",
        "/n/page",
        "/n/~user",
        "/n/caf%C3%A9",
        "/n/A",
        "/n/a",
        "/n/page?id=3",
        "/n/session",
    ]
    .map(String::from)
    .into();
    assert_eq!(targets, expected);
    assert!(
        other_port.targets().is_empty(),
        "another port is another origin"
    );
}

#[test]
fn the_host_is_compared_case_insensitively() {
    let server = Site::new()
        .page(
            "/",
            r#"<a href="http://LOCALHOST:{port}/page">upper-case host</a><a href="/page">page</a>"#,
        )
        .page("/page", "page")
        .serve();
    let seed = server.url("/").replace("127.0.0.1", "localhost");
    let out = tempfile::tempdir().unwrap();
    crawl(&seed, out.path(), &[]).assert_success();
    let listed: Vec<String> = listed_urls(out.path()).into_iter().collect();
    assert_eq!(listed, [seed.clone(), format!("{seed}page")]);
    assert_each_requested_once(&server);
}

#[test]
fn the_strip_list_is_configurable() {
    let server = Site::new()
        .page(
            "/",
            r#"<a href="/p?ref=home">a</a><a href="/p?utm_source=x">b</a>"#,
        )
        .page("/p", "p")
        .page("/p?utm_source=x", "p with utm")
        .serve();
    let out = tempfile::tempdir().unwrap();
    crawl(&server.url("/"), out.path(), &["--strip-param", "ref"]).assert_success();
    assert_eq!(
        listed_urls(out.path()),
        urls(&server, &["/", "/p", "/p?utm_source=x"])
    );
}

#[test]
fn links_come_from_every_element_a_browser_follows() {
    let server = Site::new()
        .page(
            "/",
            r##"<html><head>
            <link rel="alternate" hreflang="de" href="/de/">
            <link rel="stylesheet" href="/style.css">
            <link rel="alternate" type="application/rss+xml" href="/feed">
            </head><body>
            <a href="  /trimmed
            ">t</a>
            <map><area href="/area" alt="area"></map>
            <iframe src="/frame"></iframe>
            <a href="javascript:location='/js'">j</a> <a href="mailto:a@example.com">m</a>
            <a href="tel:+100">t</a> <a href="data:text/html,<a href=/data>">d</a>
            <a href="ftp://{host}/ftp">f</a>
            <!-- <a href="/commented">c</a> -->
            <script>document.write('<a href="/scripted">s</a>');</script>
            <a href=unquoted>u</a> <a href='single'>s</a>
            <a href="/base-test/">base</a>
            </body></html>"##,
        )
        .page("/de/", "de")
        .page("/trimmed", "trimmed")
        .page("/area", "area")
        .page("/frame", "frame")
        .page("/unquoted", "unquoted")
        .page("/single", "single")
        .page(
            "/base-test/",
            r#"<head><base href="../based/"></head><a href="rel">relative base</a>
            <a href="/base-test/absolute-base">next</a>"#,
        )
        .page("/based/rel", "relative base")
        .page(
            "/base-test/absolute-base",
            r#"<head><base href="{origin}/elsewhere/"></head><a href="x">absolute base</a>"#,
        )
        .page("/elsewhere/x", "absolute base")
        .serve();
    let out = tempfile::tempdir().unwrap();
    crawl(&server.url("/"), out.path(), &[]).assert_success();
    assert_eq!(
        listed_urls(out.path()),
        urls(
            &server,
            &[
                "/",
                "/de/",
                "/trimmed",
                "/area",
                "/frame",
                "/unquoted",
                "/single",
                "/base-test/",
                "/based/rel",
                "/base-test/absolute-base",
                "/elsewhere/x",
            ]
        )
    );
    let targets = server.targets();
    for never in [
        "/style.css",
        "/feed",
        "/js",
        "/data",
        "/ftp",
        "/commented",
        "/scripted",
    ] {
        assert!(
            !targets.iter().any(|target| target == never),
            "{never} was requested"
        );
    }
}

#[test]
fn pages_in_legacy_encodings_have_their_links_decoded() {
    let (shift_jis, _, _) = encoding_rs::SHIFT_JIS
        .encode(r#"<html><body><a href="/日本語">日本語のページ</a></body></html>"#);
    let (latin, _, _) = encoding_rs::WINDOWS_1252.encode(
        r#"<html><head><meta charset="ISO-8859-1"></head><body><a href="/café-crème">Café</a></body></html>"#,
    );
    let server = Site::new()
        .page("/", r#"<a href="/sjis">sjis</a><a href="/latin">latin</a>"#)
        .route(
            "/sjis",
            Route::new(200, "")
                .header("Content-Type", "text/html; charset=Shift_JIS")
                .bytes(shift_jis.into_owned()),
        )
        .route(
            "/latin",
            Route::new(200, "")
                .header("Content-Type", "text/html")
                .bytes(latin.into_owned()),
        )
        .page("/%E6%97%A5%E6%9C%AC%E8%AA%9E", "Japanese")
        .page("/caf%C3%A9-cr%C3%A8me", "French")
        .serve();
    let out = tempfile::tempdir().unwrap();
    crawl(&server.url("/"), out.path(), &[]).assert_success();
    assert_eq!(
        listed_urls(out.path()),
        urls(
            &server,
            &[
                "/",
                "/sjis",
                "/latin",
                "/%E6%97%A5%E6%9C%AC%E8%AA%9E",
                "/caf%C3%A9-cr%C3%A8me"
            ]
        )
    );
}
