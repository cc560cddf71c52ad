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

/// The children the index in `out` lists, by file name, in the index's order.
fn children(out: &std::path::Path) -> Vec<String> {
    locs(&read_sitemap(&out.join("sitemap.xml")))
        .iter()
        .map(|loc| loc.rsplit('/').next().unwrap().to_string())
        .collect()
}

fn is_numbered(name: &str, extension: &str) -> bool {
    name.strip_prefix("sitemap-")
        .and_then(|rest| rest.strip_suffix(extension))
        .is_some_and(|number| number.len() == 5 && number.bytes().all(|b| b.is_ascii_digit()))
}

#[test]
fn a_url_limit_splits_into_children_under_an_index() {
    let server = flat_site(10);
    let out = tempfile::tempdir().unwrap();
    crawl(&server.url("/"), out.path(), &["--max-urls-per-file", "4"]).assert_success();
    let index = read_sitemap(&out.path().join("sitemap.xml"));
    assert!(index.contains("<sitemapindex"), "{index}");
    let children = children(out.path());
    assert!(children.len() >= 3, "11 URLs, 4 a file: {children:?}");
    assert!(
        children.iter().all(|name| is_numbered(name, ".xml")),
        "{children:?}"
    );
    assert_eq!(
        locs(&index),
        children
            .iter()
            .map(|name| server.url(&format!("/{name}")))
            .collect::<Vec<_>>()
    );
    let mut expected_names = children.clone();
    expected_names.push("sitemap.xml".to_string());
    assert_eq!(
        names(out.path()),
        expected_names,
        "nothing but the index and its children"
    );
    let counts: Vec<usize> = children
        .iter()
        .map(|name| locs(&read_sitemap(&out.path().join(name))).len())
        .collect();
    assert!(
        counts.iter().all(|&count| (1..=4).contains(&count)),
        "{counts:?}"
    );
    assert_eq!(counts.iter().sum::<usize>(), 11);
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
    let plain_children = children(plain.path());
    let zipped_children = children(zipped.path());
    assert!(plain_children.len() >= 3);
    assert_eq!(
        zipped_children,
        plain_children
            .iter()
            .map(|name| format!("{name}.gz"))
            .collect::<Vec<_>>(),
        "the same files, compressed"
    );
    for name in &plain_children {
        assert_eq!(
            read_sitemap(&zipped.path().join(format!("{name}.gz"))),
            read_sitemap(&plain.path().join(name))
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
    let children = children(out.path());
    assert!(children.len() >= 2, "{children:?}");
    assert_eq!(
        locs(&index),
        children
            .iter()
            .map(|name| format!("https://cdn.example.com/maps/{name}"))
            .collect::<Vec<_>>()
    );
}

#[test]
fn a_smaller_run_removes_stale_children_and_keeps_other_files() {
    let big = flat_site(10);
    let out = tempfile::tempdir().unwrap();
    crawl(&big.url("/"), out.path(), &["--max-urls-per-file", "2"]).assert_success();
    let before = children(out.path());
    assert!(before.len() >= 6, "{before:?}");
    std::fs::write(out.path().join("robots.txt"), "User-agent: *\n").unwrap();

    // Another, smaller site published over the first: every URL goes, which the shrink guard
    // allows only when told to.
    let small = flat_site(2);
    crawl(
        &small.url("/"),
        out.path(),
        &["--max-urls-per-file", "2", "--max-shrink", "100"],
    )
    .assert_success();
    let mut after = children(out.path());
    assert!(after.len() < before.len(), "{after:?}");
    after.push("sitemap.xml".to_string());
    assert_eq!(
        names(out.path()),
        after,
        "the children of the bigger run are gone"
    );
    assert_eq!(listed_urls(out.path()).len(), 3);
    assert!(
        out.path().join("robots.txt").exists(),
        "unrelated files stay"
    );
    let leftovers: Vec<_> = std::fs::read_dir(out.path())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with(".sitemapper-staging"))
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
    let children: String = children(out.path())
        .iter()
        .map(|name| format!("--- {name}\n{}", stable(name)))
        .collect();
    insta::assert_snapshot!("children", children);
}
