//! Sitemaps for big sites: files per section, pattern or language under one index, and
//! children that stay put between runs (unchanged files keep their bytes and mtime; the
//! index's `<lastmod>` of a file moves only when its content changed).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::time::SystemTime;

use crate::fixture::{Route, Server, Site};
use crate::harness::{crawl, listed_urls, locs, read_sitemap, sitemap_files};
use crate::schema::assert_all_valid;

fn links_to(paths: &[String]) -> String {
    paths
        .iter()
        .map(|path| format!("<a href=\"{path}\">{path}</a>"))
        .collect()
}

/// A site with a blog of `posts` posts, a shop of `products` products, and top-level pages.
/// Every page has a Last-Modified date; `changed` pages are edited, and get a later one.
fn sectioned_site(posts: usize, products: usize, changed: &[&str]) -> Site {
    let mut paths = vec!["/about".to_string(), "/contact.html".to_string()];
    paths.extend((0..posts).map(|index| format!("/blog/post-{index:03}")));
    paths.extend((0..products).map(|index| format!("/products/item-{index:03}")));
    let mut site = Site::new().page("/", &links_to(&paths));
    for path in &paths {
        // An edited page shows it, and carries the date of the edit.
        let (modified, text) = if changed.contains(&path.as_str()) {
            ("Wed, 05 Jun 2024 10:00:00 GMT", "edited")
        } else {
            ("Mon, 01 Jan 2024 00:00:00 GMT", "")
        };
        site = site.route(
            path,
            Route::html(&format!("<title>{path}</title><p>{text}</p>"))
                .header("Last-Modified", modified),
        );
    }
    site
}

/// File name -> the URLs it lists (paths), for every file but the index.
fn children(out: &Path, server: &Server) -> BTreeMap<String, BTreeSet<String>> {
    sitemap_files(out)
        .into_iter()
        .filter(|path| path.file_name().is_some_and(|name| name != "sitemap.xml"))
        .map(|path| {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let urls = locs(&read_sitemap(&path))
                .into_iter()
                .map(|url| url.replace(&server.origin(), ""))
                .collect();
            (name, urls)
        })
        .collect()
}

/// The index's `<lastmod>` of each child, by file name.
fn index_lastmods(out: &Path) -> BTreeMap<String, String> {
    let index = read_sitemap(&out.join("sitemap.xml"));
    index
        .split("<sitemap>")
        .skip(1)
        .map(|entry| {
            let loc = entry
                .split("<loc>")
                .nth(1)
                .unwrap()
                .split("</loc>")
                .next()
                .unwrap();
            let lastmod = entry
                .split("<lastmod>")
                .nth(1)
                .map(|rest| rest.split("</lastmod>").next().unwrap().to_string())
                .expect("every child has a lastmod");
            (loc.rsplit('/').next().unwrap().to_string(), lastmod)
        })
        .collect()
}

fn snapshot(out: &Path) -> BTreeMap<String, (Vec<u8>, SystemTime)> {
    sitemap_files(out)
        .into_iter()
        .map(|path| {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let bytes = std::fs::read(&path).unwrap();
            let mtime = std::fs::metadata(&path).unwrap().modified().unwrap();
            (name, (bytes, mtime))
        })
        .collect()
}

#[test]
fn split_by_section_writes_one_file_per_section_under_an_index() {
    let server = sectioned_site(3, 12, &[]).serve();
    let out = tempfile::tempdir().unwrap();
    let run = crawl(
        &server.url("/"),
        out.path(),
        &["--split-by", "section", "--max-urls-per-file", "5"],
    );
    run.assert_success();
    let files = children(out.path(), &server);
    let names: Vec<&String> = files.keys().collect();
    assert_eq!(names[0], "sitemap-blog.xml");
    assert_eq!(
        files["sitemap-blog.xml"],
        ["/blog/post-000", "/blog/post-001", "/blog/post-002"]
            .map(String::from)
            .into()
    );
    assert_eq!(
        files["sitemap-other.xml"],
        ["/", "/about", "/contact.html"].map(String::from).into(),
        "pages in no section"
    );
    let products: Vec<&String> = names
        .iter()
        .copied()
        .filter(|name| name.starts_with("sitemap-products-"))
        .collect();
    assert!(products.len() >= 3, "12 products, 5 a file: {names:?}");
    for name in &products {
        let number = name
            .strip_prefix("sitemap-products-")
            .and_then(|rest| rest.strip_suffix(".xml"))
            .unwrap();
        assert!(
            number.len() == 5 && number.bytes().all(|b| b.is_ascii_digit()),
            "{name}"
        );
        assert!(files[*name].len() <= 5);
        assert!(files[*name].iter().all(|url| url.starts_with("/products/")));
    }
    assert_eq!(names.len(), products.len() + 2);
    let all: BTreeSet<String> = files.values().flatten().cloned().collect();
    assert_eq!(all.len(), 18, "each URL in exactly one file");
    assert_eq!(
        files.values().map(BTreeSet::len).sum::<usize>(),
        18,
        "no URL in two files"
    );
    assert_eq!(listed_urls(out.path()).len(), 18);
    assert_eq!(
        locs(&read_sitemap(&out.path().join("sitemap.xml"))),
        names
            .iter()
            .map(|name| server.url(&format!("/{name}")))
            .collect::<Vec<_>>()
    );
    assert_all_valid(out.path());
    let stderr = &run.stderr;
    assert!(stderr.contains("sitemap-blog.xml"), "{stderr}");
    assert!(
        stderr.contains("3 URLs"),
        "the summary counts each file: {stderr}"
    );
}

#[test]
fn split_by_patterns_first_match_wins_and_the_rest_is_other() {
    let server = sectioned_site(2, 3, &[]).serve();
    let out = tempfile::tempdir().unwrap();
    crawl(
        &server.url("/"),
        out.path(),
        &[
            "--split-by",
            "shop=/products/item-00[01]",
            "--split-by",
            "content=/(blog|products)/",
        ],
    )
    .assert_success();
    let files = children(out.path(), &server);
    assert_eq!(
        files.keys().collect::<Vec<_>>(),
        [
            "sitemap-content.xml",
            "sitemap-other.xml",
            "sitemap-shop.xml"
        ]
    );
    assert_eq!(
        files["sitemap-shop.xml"],
        ["/products/item-000", "/products/item-001"]
            .map(String::from)
            .into()
    );
    assert_eq!(
        files["sitemap-content.xml"],
        ["/blog/post-000", "/blog/post-001", "/products/item-002"]
            .map(String::from)
            .into()
    );
    assert_all_valid(out.path());

    let bad = crawl(&server.url("/"), out.path(), &["--split-by", "Shop=("]);
    assert_eq!(bad.code, 2, "a usage error");
    assert!(bad.stderr.contains("--split-by"), "{}", bad.stderr);
}

#[test]
fn split_by_language_uses_the_page_own_hreflang_then_html_lang() {
    let server = Site::new()
        .page(
            "/",
            "<a href=\"/de/\">de</a><a href=\"/fr/\">fr</a><a href=\"/en/about\">about</a>",
        )
        .route(
            "/de/",
            Route::html(
                "<html lang=\"de\"><head><link rel=\"alternate\" hreflang=\"de-AT\" href=\"/de/\">\
                 </head><body><a href=\"/de/kontakt\">k</a></body></html>",
            ),
        )
        .route(
            "/de/kontakt",
            Route::html("<html lang=\"de\"><body>kontakt</body></html>"),
        )
        .route(
            "/fr/",
            Route::html("<html lang=\"FR\"><body>fr</body></html>"),
        )
        .route(
            "/en/about",
            Route::html("<html><body>no language</body></html>"),
        )
        .serve();
    let out = tempfile::tempdir().unwrap();
    crawl(&server.url("/"), out.path(), &["--split-by", "language"]).assert_success();
    let files = children(out.path(), &server);
    assert_eq!(
        files,
        BTreeMap::from([
            (
                "sitemap-de-at.xml".to_string(),
                ["/de/"].map(String::from).into()
            ),
            (
                "sitemap-de.xml".to_string(),
                ["/de/kontakt"].map(String::from).into()
            ),
            (
                "sitemap-fr.xml".to_string(),
                ["/fr/"].map(String::from).into()
            ),
            (
                "sitemap-other.xml".to_string(),
                ["/", "/en/about"].map(String::from).into()
            ),
        ])
    );
    assert_all_valid(out.path());
}

#[test]
fn over_three_runs_only_the_files_that_changed_move() {
    let server = sectioned_site(4, 40, &[]).serve();
    let out = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    let database = state.path().join("crawl.db");
    let database = database.to_str().unwrap();
    let nightly = || {
        crawl(
            &server.url("/"),
            out.path(),
            &[
                "--split-by",
                "section",
                "--max-urls-per-file",
                "8",
                "--state",
                database,
            ],
        )
        .assert_success();
    };
    nightly();
    let first = snapshot(out.path());
    let first_files = children(out.path(), &server);
    let first_lastmods = index_lastmods(out.path());
    assert!(first_files.len() >= 7, "{:?}", first_files.keys());
    assert_eq!(
        first_lastmods["sitemap-blog.xml"], "2024-01-01T00:00:00+00:00",
        "a new file's lastmod is its newest entry's"
    );
    assert_all_valid(out.path());

    // Second night: one product edited (and a new Last-Modified), one post added.
    std::thread::sleep(std::time::Duration::from_millis(1100));
    server.change(sectioned_site(5, 40, &["/products/item-007"]));
    nightly();
    let second = snapshot(out.path());
    let second_files = children(out.path(), &server);
    let second_lastmods = index_lastmods(out.path());
    let product_file = |files: &BTreeMap<String, BTreeSet<String>>| {
        files
            .iter()
            .find(|(_, urls)| urls.contains("/products/item-007"))
            .map(|(name, _)| name.clone())
            .unwrap()
    };
    let changed_product = product_file(&second_files);
    assert_eq!(
        changed_product,
        product_file(&first_files),
        "the product stayed in its file"
    );
    let moved: BTreeSet<&String> = second
        .iter()
        .filter(|(name, file)| first.get(*name) != Some(file))
        .map(|(name, _)| name)
        .collect();
    // The blog gained a post, the home page (in other) a link to it, and one product a date.
    let changed: BTreeSet<String> = [
        "sitemap-blog.xml".to_string(),
        "sitemap-other.xml".to_string(),
        changed_product.clone(),
    ]
    .into();
    let mut expected: BTreeSet<&String> = changed.iter().collect();
    let index_name = "sitemap.xml".to_string();
    expected.insert(&index_name);
    assert_eq!(
        moved, expected,
        "only the changed children and the index are rewritten"
    );
    assert!(second.len() - moved.len() >= 5, "most product files stay");
    for (name, lastmod) in &first_lastmods {
        if changed.contains(name) {
            assert_ne!(
                &second_lastmods[name], lastmod,
                "{name} changed: its lastmod moves"
            );
        } else {
            assert_eq!(&second_lastmods[name], lastmod, "{name} did not change");
        }
    }
    assert_eq!(second_files.values().map(BTreeSet::len).sum::<usize>(), 48);

    // Third night: nothing changed at all: not one byte, not one mtime moves.
    nightly();
    assert_eq!(
        snapshot(out.path()),
        second,
        "an unchanged site rewrites nothing"
    );

    // Fourth night, the site shrinks: a removed product changes only its file.
    let removed = "/products/item-020";
    let mut site = sectioned_site(5, 40, &["/products/item-007"]);
    site = site.route(removed, Route::new(404, "gone"));
    server.change(site);
    nightly();
    let fourth = snapshot(out.path());
    let removed_from = second_files
        .iter()
        .find(|(_, urls)| urls.contains(removed))
        .map(|(name, _)| name.clone())
        .unwrap();
    let moved: BTreeSet<String> = fourth
        .iter()
        .filter(|(name, file)| second.get(*name) != Some(file))
        .map(|(name, _)| name.clone())
        .collect();
    assert!(moved.contains(&removed_from), "{moved:?}");
    assert!(moved.contains("sitemap.xml"));
    assert!(
        moved.len() <= 3,
        "the file that lost a URL (or the pair that merged) and the index: {moved:?}"
    );
    assert_all_valid(out.path());
}

#[test]
fn without_a_database_the_published_index_keeps_the_lastmods() {
    let server = sectioned_site(2, 3, &[]).serve();
    let out = tempfile::tempdir().unwrap();
    let args = ["--split-by", "section"];
    crawl(&server.url("/"), out.path(), &args).assert_success();
    let first = snapshot(out.path());
    std::thread::sleep(std::time::Duration::from_millis(1100));
    let run = crawl(
        &server.url("/"),
        out.path(),
        &["--split-by", "section", "--summary", "json"],
    );
    run.assert_success();
    assert_eq!(
        snapshot(out.path()),
        first,
        "the same site, the same files, untouched"
    );
    let summary: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let files = &summary["files"];
    assert_eq!(files["written"], serde_json::json!([]), "{files}");
    assert_eq!(
        files["unchanged"].as_array().map(Vec::len),
        Some(first.len()),
        "{files}"
    );
    let children = files["children"].as_array().unwrap();
    let blog = children
        .iter()
        .find(|child| child["name"] == "sitemap-blog.xml")
        .unwrap();
    assert_eq!(
        (&blog["group"], &blog["urls"], &blog["format"]),
        (
            &serde_json::json!("blog"),
            &serde_json::json!(2),
            &serde_json::json!("xml")
        )
    );
    assert!(
        !out.path().join(".sitemapper-files").exists(),
        "the index says which files are published"
    );
}

#[test]
fn a_file_of_an_earlier_split_no_longer_written_is_removed() {
    let server = sectioned_site(2, 3, &[]).serve();
    let out = tempfile::tempdir().unwrap();
    crawl(&server.url("/"), out.path(), &["--split-by", "section"]).assert_success();
    std::fs::write(out.path().join("sitemap-news.xml"), "the user's own file").unwrap();
    assert!(out.path().join("sitemap-blog.xml").exists());
    crawl(&server.url("/"), out.path(), &[]).assert_success();
    assert!(
        !out.path().join("sitemap-blog.xml").exists(),
        "ours, and stale"
    );
    assert!(!out.path().join("sitemap-other.xml").exists());
    assert_eq!(
        std::fs::read_to_string(out.path().join("sitemap-news.xml")).unwrap(),
        "the user's own file",
        "a file sitemapper did not write is never removed"
    );
    assert_eq!(listed_urls(out.path()).len(), 8);
}

#[test]
fn the_summary_names_the_first_files_and_counts_the_rest() {
    let server = sectioned_site(0, 45, &[]).serve();
    let out = tempfile::tempdir().unwrap();
    let run = crawl(&server.url("/"), out.path(), &["--max-urls-per-file", "1"]);
    run.assert_success();
    let files = children(out.path(), &server).len();
    assert_eq!(files, 48, "one URL a file");
    let named = run
        .stderr
        .lines()
        .filter(|line| line.starts_with("  sitemap"))
        .count();
    assert_eq!(named, 40, "39 children and the index: {}", run.stderr);
    assert!(
        run.stderr.contains(&format!(
            "  ... and {} more files (0 unchanged in all; --summary json lists each)",
            files - 39
        )),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("  sitemap.xml "), "{}", run.stderr);
}
