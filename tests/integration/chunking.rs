//! Chunking: tiny limits give a valid index of valid children; gzip; stale children go.

use crate::fixture::{Route, Server, Site};
use crate::harness::{crawl, listed_urls, locs, read_sitemap, sitemap_files};
use crate::schema::assert_all_valid;

/// A root page linking to `count` leaf pages.
fn flat_site(count: usize) -> Server {
    let mut site = Site::new();
    let mut links = String::new();
    for index in 0..count {
        links.push_str(&format!("<a href=\"/item/{index:03}\">item</a>"));
        site = site.route(
            &format!("/item/{index:03}"),
            Route::html("<title>item</title>").header(
                "Last-Modified",
                &format!("Mon, 01 Jan 2024 00:00:{:02} GMT", index % 60),
            ),
        );
    }
    site.page("/", &links).serve()
}

fn names(out: &std::path::Path) -> Vec<String> {
    sitemap_files(out)
        .iter()
        .map(|path| path.file_name().unwrap().to_string_lossy().into_owned())
        .collect()
}

#[test]
fn a_url_limit_splits_into_children_under_an_index() {
    let server = flat_site(10);
    let out = tempfile::tempdir().unwrap();
    crawl(&server.url("/"), out.path(), &["--max-urls-per-file", "4"]).assert_success();
    assert_eq!(
        names(out.path()),
        [
            "sitemap-00001.xml",
            "sitemap-00002.xml",
            "sitemap-00003.xml",
            "sitemap.xml"
        ]
    );
    let index = read_sitemap(&out.path().join("sitemap.xml"));
    assert!(index.contains("<sitemapindex"), "{index}");
    assert_eq!(
        locs(&index),
        [
            "sitemap-00001.xml",
            "sitemap-00002.xml",
            "sitemap-00003.xml"
        ]
        .map(|name| server.url(&format!("/{name}")))
    );
    let counts: Vec<usize> = (1..=3)
        .map(|number| {
            locs(&read_sitemap(
                &out.path().join(format!("sitemap-{number:05}.xml")),
            ))
            .len()
        })
        .collect();
    assert_eq!(counts, [4, 4, 3]);
    assert_eq!(listed_urls(out.path()).len(), 11);
    assert_all_valid(out.path());
}

#[test]
fn a_byte_limit_keeps_every_file_under_it() {
    let server = flat_site(100);
    let out = tempfile::tempdir().unwrap();
    let limit: u64 = 4096;
    crawl(
        &server.url("/"),
        out.path(),
        &["--max-bytes-per-file", &limit.to_string()],
    )
    .assert_success();
    let files = sitemap_files(out.path());
    assert!(files.len() > 2, "a 4 KiB limit splits 101 URLs: {files:?}");
    for file in &files {
        let size = std::fs::metadata(file).unwrap().len();
        assert!(size <= limit, "{} has {size} bytes", file.display());
    }
    assert_eq!(listed_urls(out.path()).len(), 101);
    assert_all_valid(out.path());
}

#[test]
fn gzip_children_hold_the_same_entries() {
    let server = flat_site(10);
    let plain = tempfile::tempdir().unwrap();
    let zipped = tempfile::tempdir().unwrap();
    crawl(
        &server.url("/"),
        plain.path(),
        &["--max-urls-per-file", "4"],
    )
    .assert_success();
    crawl(
        &server.url("/"),
        zipped.path(),
        &["--max-urls-per-file", "4", "--gzip"],
    )
    .assert_success();
    assert_eq!(
        names(zipped.path()),
        [
            "sitemap-00001.xml.gz",
            "sitemap-00002.xml.gz",
            "sitemap-00003.xml.gz",
            "sitemap.xml"
        ]
    );
    for number in 1..=3 {
        assert_eq!(
            read_sitemap(&zipped.path().join(format!("sitemap-{number:05}.xml.gz"))),
            read_sitemap(&plain.path().join(format!("sitemap-{number:05}.xml")))
        );
    }
    assert_all_valid(zipped.path());
}

#[test]
fn base_url_sets_the_index_locations() {
    let server = flat_site(5);
    let out = tempfile::tempdir().unwrap();
    crawl(
        &server.url("/"),
        out.path(),
        &[
            "--max-urls-per-file",
            "3",
            "--base-url",
            "https://cdn.example.com/maps",
        ],
    )
    .assert_success();
    let index = read_sitemap(&out.path().join("sitemap.xml"));
    assert_eq!(
        locs(&index),
        [
            "https://cdn.example.com/maps/sitemap-00001.xml",
            "https://cdn.example.com/maps/sitemap-00002.xml"
        ]
    );
}

#[test]
fn a_smaller_run_removes_stale_children_and_keeps_other_files() {
    let big = flat_site(10);
    let out = tempfile::tempdir().unwrap();
    crawl(&big.url("/"), out.path(), &["--max-urls-per-file", "2"]).assert_success();
    assert_eq!(names(out.path()).len(), 7);
    std::fs::write(out.path().join("robots.txt"), "User-agent: *\n").unwrap();

    let small = flat_site(2);
    crawl(&small.url("/"), out.path(), &["--max-urls-per-file", "2"]).assert_success();
    assert_eq!(
        names(out.path()),
        ["sitemap-00001.xml", "sitemap-00002.xml", "sitemap.xml"]
    );
    assert!(
        out.path().join("robots.txt").exists(),
        "unrelated files stay"
    );
    let leftovers: Vec<_> = std::fs::read_dir(out.path())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with(".sitemapper"))
        .collect();
    assert!(
        leftovers.is_empty(),
        "staging directories left behind: {leftovers:?}"
    );
}

#[test]
fn snapshot_of_a_small_index_and_its_children() {
    let server = Site::new()
        .page("/", r#"<a href="/a?x=1&amp;y=2">a</a><a href="/b">b</a>"#)
        .route(
            "/a?x=1&y=2",
            Route::html("a").header("Last-Modified", "Wed, 03 Jan 2024 10:00:00 GMT"),
        )
        .route(
            "/b",
            Route::html("b").header("Last-Modified", "Thu, 04 Jan 2024 11:30:00 GMT"),
        )
        .serve();
    let out = tempfile::tempdir().unwrap();
    crawl(&server.url("/"), out.path(), &["--max-urls-per-file", "2"]).assert_success();
    let stable = |name: &str| {
        read_sitemap(&out.path().join(name)).replace(&server.origin(), "http://127.0.0.1:PORT")
    };
    insta::assert_snapshot!("index", stable("sitemap.xml"));
    insta::assert_snapshot!("first_child", stable("sitemap-00001.xml"));
    insta::assert_snapshot!("second_child", stable("sitemap-00002.xml"));
}
