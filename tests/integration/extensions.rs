//! Sitemap extensions and formats: image entries, hreflang alternates, text sitemaps, and the
//! opt-in priority and changefreq; every XML file validates against the official schemas.

use crate::fixture::{Route, Server, Site};
use crate::harness::{crawl, listed_urls, read_sitemap, sitemap_files};
use crate::schema::{assert_all_valid, assert_valid};

fn stable(server: &Server, text: &str) -> String {
    text.replace(&server.origin(), "http://127.0.0.1:PORT")
}

/// The `<url>` entry of `path` in the single sitemap of `out`.
fn entry_of(server: &Server, out: &std::path::Path, path: &str) -> String {
    let xml = read_sitemap(&out.join("sitemap.xml"));
    let start = xml
        .find(&format!("<loc>{}</loc>", server.url(path)))
        .unwrap_or_else(|| panic!("{path} is not listed:\n{xml}"));
    let end = start + xml[start..].find("</url>").unwrap();
    xml[start..end].to_string()
}

fn gallery() -> Server {
    Site::new()
        .page(
            "/",
            r#"<html><head><link rel="icon" href="/favicon.ico"></head><body>
            <img src="/logo.png" alt="logo">
            <img src="/photos/1-small.jpg" srcset="/photos/1-small.jpg 400w, /photos/1-large.jpg 1600w">
            <picture><source srcset="/photos/2.avif" type="image/avif"><img src="/photos/2.jpg"></picture>
            <img src="https://cdn.example.net/photos/3.jpg?w=800&amp;q=80">
            <img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=">
            <img src="/track.gif" width="1" height="1">
            <img src="/logo.png">
            <a href="/about">About</a></body></html>"#,
        )
        .page("/about", "<body><p>No images here.</p></body>")
        .serve()
}

#[test]
fn image_entries_list_the_images_each_page_shows() {
    let server = gallery();
    let out = tempfile::tempdir().unwrap();
    crawl(&server.url("/"), out.path(), &["--images"]).assert_success();
    let xml = read_sitemap(&out.path().join("sitemap.xml"));
    insta::assert_snapshot!("images", stable(&server, &xml));
    assert_all_valid(out.path());
    assert!(
        !entry_of(&server, out.path(), "/about").contains("image:"),
        "a page without images has no image entries"
    );

    let plain = tempfile::tempdir().unwrap();
    crawl(&server.url("/"), plain.path(), &[]).assert_success();
    let xml = read_sitemap(&plain.path().join("sitemap.xml"));
    assert!(
        !xml.contains("image"),
        "no image namespace or entries without --images"
    );
}

#[test]
fn image_entries_count_against_the_byte_limit() {
    let mut site = Site::new();
    let mut home = String::new();
    for page in 0..30 {
        home.push_str(&format!("<a href=\"/p/{page}\">{page}</a>"));
        let images: String = (0..15)
            .map(|image| format!("<img src=\"/images/{page}/{image}.jpg\">"))
            .collect();
        site = site.page(&format!("/p/{page}"), &format!("<body>{images}</body>"));
    }
    let server = site.page("/", &home).serve();
    let out = tempfile::tempdir().unwrap();
    crawl(
        &server.url("/"),
        out.path(),
        &["--images", "--max-bytes-per-file", "4096"],
    )
    .assert_success();
    let files = sitemap_files(out.path());
    assert!(files.len() > 5, "{files:?}");
    for file in &files {
        let size = std::fs::metadata(file).unwrap().len();
        assert!(size <= 4096, "{} has {size} bytes", file.display());
        assert_valid(file);
    }
    assert_eq!(listed_urls(out.path()).len(), 31);
}

#[test]
fn hreflang_alternates_link_the_listed_pages_of_a_cluster() {
    let alternates = r#"<link rel="alternate" hreflang="en" href="/en/">
        <link rel="alternate" hreflang="de-DE" href="/de/">
        <link rel="alternate" hreflang="fr" href="/fr/">
        <link rel="alternate" hreflang="english" href="/en/">
        <link rel="alternate" hreflang="x-default" href="/en/">"#;
    let page = |text: &str| format!("<html><head>{alternates}</head><body>{text}</body></html>");
    let server = Site::new()
        .page("/", &page("<a href=\"/en/\">en</a>"))
        .page("/en/", &page("English"))
        .page("/de/", &page("Deutsch"))
        .page(
            "/fr/",
            &format!(
                r#"<html><head><meta name="robots" content="noindex">{alternates}</head></html>"#
            ),
        )
        .route(
            "/es/",
            Route::html("Español").header(
                "Link",
                r#"</en/>; rel="alternate"; hreflang="en", </es/>; rel="alternate"; hreflang="es""#,
            ),
        )
        .serve();
    let out = tempfile::tempdir().unwrap();
    crawl(&server.url("/"), out.path(), &["--hreflang"]).assert_success();
    assert_all_valid(out.path());
    let expected =
        [("de-DE", "/de/"), ("en", "/en/"), ("x-default", "/en/")].map(|(hreflang, path)| {
            format!(
                "<xhtml:link rel=\"alternate\" hreflang=\"{hreflang}\" href=\"{}\"/>",
                server.url(path)
            )
        });
    for path in ["/en/", "/de/"] {
        let entry = entry_of(&server, out.path(), path);
        let links: Vec<&str> = entry
            .lines()
            .map(str::trim)
            .filter(|line| line.starts_with("<xhtml:link"))
            .collect();
        assert_eq!(
            links, expected,
            "{path}: only listed alternates, valid codes"
        );
    }
    assert!(!listed_urls(out.path()).contains(&server.url("/fr/")));
    insta::assert_snapshot!(
        "hreflang",
        stable(&server, &entry_of(&server, out.path(), "/de/"))
    );
}

#[test]
fn text_sitemaps_alone_or_beside_the_xml() {
    let server = gallery();
    let out = tempfile::tempdir().unwrap();
    crawl(&server.url("/"), out.path(), &["--format", "txt"]).assert_success();
    assert_eq!(
        std::fs::read_to_string(out.path().join("sitemap.txt")).unwrap(),
        format!("{}\n{}\n", server.url("/"), server.url("/about"))
    );
    assert!(!out.path().join("sitemap.xml").exists());

    let both = tempfile::tempdir().unwrap();
    let run = crawl(
        &server.url("/"),
        both.path(),
        &["--format", "xml,txt", "--max-urls-per-file", "1"],
    );
    run.assert_success();
    let mut text_files: Vec<String> = std::fs::read_dir(both.path())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with("sitemap-") && name.ends_with(".txt"))
        .collect();
    text_files.sort();
    assert_eq!(text_files.len(), 2, "one URL a file: {text_files:?}");
    for name in text_files.iter().map(String::as_str).chain(["sitemap.xml"]) {
        assert!(
            run.stderr.contains(&format!("  {name} ")),
            "{name} is in the summary:\n{}",
            run.stderr
        );
    }
    assert!(!both.path().join("sitemap.txt").exists(), "no text index");
    let mut lines: Vec<String> = text_files
        .iter()
        .map(|name| std::fs::read_to_string(both.path().join(name)).unwrap())
        .collect();
    lines.sort();
    let mut expected = vec![
        format!("{}\n", server.url("/")),
        format!("{}\n", server.url("/about")),
    ];
    expected.sort();
    assert_eq!(lines, expected);
    assert_all_valid(both.path());
}

#[test]
fn priority_by_depth_when_asked() {
    let server = Site::new()
        .page("/", "<a href=\"/one\">1</a>")
        .page("/one", "<a href=\"/two\">2</a>")
        .page("/two", "<a href=\"/three\">3</a>")
        .page("/three", "end")
        .serve();
    let out = tempfile::tempdir().unwrap();
    crawl(&server.url("/"), out.path(), &["--priority", "depth"]).assert_success();
    for (path, priority) in [
        ("/", "1.00"),
        ("/one", "0.80"),
        ("/two", "0.64"),
        ("/three", "0.51"),
    ] {
        assert!(
            entry_of(&server, out.path(), path)
                .contains(&format!("<priority>{priority}</priority>")),
            "{path}"
        );
    }
    assert_all_valid(out.path());

    let plain = tempfile::tempdir().unwrap();
    crawl(&server.url("/"), plain.path(), &[]).assert_success();
    let xml = read_sitemap(&plain.path().join("sitemap.xml"));
    assert!(
        !xml.contains("<priority>") && !xml.contains("<changefreq>"),
        "off by default"
    );
}

#[test]
fn changefreq_from_changes_observed_across_runs() {
    // Each night /news says it was modified a day later: three observed changes a day apart.
    let version = |day: usize| {
        Site::new()
            .page(
                "/",
                "<a href=\"/news\">news</a><a href=\"/static\">static</a>",
            )
            .route(
                "/news",
                Route::html(&format!("<p>edition {day}</p>")).header(
                    "Last-Modified",
                    &format!("{} Jan 2024 06:00:00 GMT", DAYS[day]),
                ),
            )
            .page("/static", "<p>never changes</p>")
    };
    const DAYS: [&str; 3] = ["Tue, 02", "Wed, 03", "Thu, 04"];
    let server = version(0).serve();
    let out = tempfile::tempdir().unwrap();
    let state = out.path().join("state.db");
    let flags = [
        "--state",
        state.to_str().unwrap(),
        "--changefreq",
        "observed",
    ];
    for day in 0..3 {
        server.change(version(day));
        crawl(&server.url("/"), out.path(), &flags).assert_success();
    }
    let news = entry_of(&server, out.path(), "/news");
    assert!(
        news.contains("<changefreq>daily</changefreq>"),
        "three changes a day apart: {news}"
    );
    assert!(!entry_of(&server, out.path(), "/static").contains("changefreq"));
    assert_all_valid(out.path());

    let without_state = crawl(&server.url("/"), out.path(), &["--changefreq", "observed"]);
    assert_eq!(without_state.code, 2, "{}", without_state.stderr);
}
