//! `sitemapper validate`: valid and broken sitemaps, files and URLs; and indexes that list
//! themselves, each other, or a child twice, as files and over HTTP: each sitemap is read
//! once, a cycle is a problem (exit 1) and a repeated child a warning. A local file is read no further than the protocol's size. `validate -` reads stdin,
//! and a repeated problem is one line (one entry in JSON) with its count.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

use crate::fixture::{Route, Server, Site};
use crate::harness::{Run, sitemapper};
use crate::output::{parse_json, sitemapper_in};

fn index(locs: &[&str]) -> String {
    let entries: String = locs
        .iter()
        .map(|loc| format!("<sitemap><loc>{loc}</loc></sitemap>\n"))
        .collect();
    format!(
        "<sitemapindex xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n{entries}</sitemapindex>\n"
    )
}

fn urlset(loc: &str) -> String {
    format!(
        "<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n<url><loc>{loc}</loc></url>\n</urlset>\n"
    )
}

fn validate(target: &str) -> Run {
    sitemapper(&["validate", target])
}

fn validate_file(path: &Path) -> Run {
    validate(path.to_str().unwrap())
}

fn assert_line(run: &Run, expected: &str) {
    assert!(
        run.stdout.lines().any(|line| line == expected),
        "no line {expected:?} in:\n{}",
        run.stdout
    );
}

/// How many times the server was asked for each path.
fn requests_per_path(server: &Server) -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    for target in server.targets() {
        *counts.entry(target).or_insert(0) += 1;
    }
    counts
}

#[test]
fn a_local_index_listing_itself_is_a_cycle_read_once() {
    let directory = tempfile::tempdir().unwrap();
    let root = directory.path().join("sitemap.xml");
    std::fs::write(&root, index(&["https://example.com/sitemap.xml"])).unwrap();
    let run = validate_file(&root);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    let shown = root.display();
    assert_line(
        &run,
        &format!("{shown}:2: a cycle of sitemap indexes: {shown} -> {shown}; not read again"),
    );
    assert_line(&run, "1 file, 1 entry, 1 problem.");
}

#[test]
fn two_local_indexes_listing_each_other_are_a_cycle_each_read_once() {
    let directory = tempfile::tempdir().unwrap();
    let first = directory.path().join("a.xml");
    let second = directory.path().join("b.xml");
    std::fs::write(&first, index(&["https://example.com/b.xml"])).unwrap();
    std::fs::write(&second, index(&["https://example.com/a.xml"])).unwrap();
    let run = validate_file(&first);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    let (a, b) = (first.display(), second.display());
    assert_line(
        &run,
        &format!("{b}:2: a cycle of sitemap indexes: {a} -> {b} -> {a}; not read again"),
    );
    assert!(
        run.stdout
            .contains(&format!("{a}:2: {b} is a sitemap index inside an index")),
        "{}",
        run.stdout
    );
    assert_line(&run, "2 files, 2 entries, 2 problems.");
}

#[test]
fn a_local_index_listing_a_child_twice_reads_it_once_with_a_warning() {
    let directory = tempfile::tempdir().unwrap();
    let root = directory.path().join("sitemap.xml");
    let child = directory.path().join("child.xml");
    std::fs::write(
        &root,
        index(&[
            "https://example.com/child.xml",
            "https://example.com/child.xml",
        ]),
    )
    .unwrap();
    std::fs::write(&child, urlset("https://example.com/")).unwrap();
    let run = validate_file(&root);
    // sitemaps.org does not forbid listing a sitemap twice: a warning, not a failure.
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let (root, child) = (root.display(), child.display());
    assert_line(
        &run,
        &format!("{root}:3: warning: {child} is listed again (first at {root}:2); read once"),
    );
    assert_line(&run, &format!("{root}: valid sitemap index, 2 entries"));
    assert_line(&run, &format!("{child}: valid sitemap, 1 entry"));
    assert_line(&run, "2 files, 3 entries, 0 problems, 1 warning.");
}

#[test]
fn over_http_every_sitemap_is_requested_once() {
    // The index lists itself (in another spelling of its scheme), a child twice, and a
    // second index that lists the first: one request each, and the cycles are named.
    let server = Site::new()
        .route(
            "/sitemap.xml",
            Route::new(
                200,
                &index(&[
                    "{origin}/child.xml",
                    "HTTP://{host}/sitemap.xml",
                    "{origin}/child.xml",
                    "{origin}/other.xml",
                ]),
            ),
        )
        .route(
            "/other.xml",
            Route::new(200, &index(&["{origin}/sitemap.xml#again"])),
        )
        .route("/child.xml", Route::new(200, &urlset("{origin}/")))
        .serve();
    let root = server.url("/sitemap.xml");
    let run = validate(&root);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    assert_eq!(
        requests_per_path(&server),
        BTreeMap::from([
            ("/child.xml".to_string(), 1),
            ("/other.xml".to_string(), 1),
            ("/sitemap.xml".to_string(), 1),
        ])
    );
    let other = server.url("/other.xml");
    let child = server.url("/child.xml");
    assert_line(
        &run,
        &format!("{root}:3: a cycle of sitemap indexes: {root} -> {root}; not read again"),
    );
    assert_line(
        &run,
        &format!(
            "{other}:2: a cycle of sitemap indexes: {root} -> {other} -> {root}; not read again"
        ),
    );
    assert_line(
        &run,
        &format!("{root}:4: warning: {child} is listed again (first at {root}:2); read once"),
    );
    assert_line(&run, "3 files, 6 entries, 3 problems, 1 warning.");
}

#[test]
fn over_http_two_indexes_listing_each_other_are_requested_once_each() {
    let server = Site::new()
        .route("/a.xml", Route::new(200, &index(&["{origin}/b.xml"])))
        .route("/b.xml", Route::new(200, &index(&["{origin}/a.xml"])))
        .serve();
    let (a, b) = (server.url("/a.xml"), server.url("/b.xml"));
    let run = validate(&a);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    assert_eq!(server.targets(), ["/a.xml", "/b.xml"]);
    assert_line(
        &run,
        &format!("{b}:2: a cycle of sitemap indexes: {a} -> {b} -> {a}; not read again"),
    );
}

#[test]
fn a_local_file_larger_than_the_protocol_allows_is_read_no_further() {
    let directory = tempfile::tempdir().unwrap();
    let large = directory.path().join("sitemap.xml");
    // Sparse: one byte over 52,428,800 without writing them.
    std::fs::File::create(&large)
        .unwrap()
        .set_len(52_428_801)
        .unwrap();
    let run = validate_file(&large);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    assert_line(
        &run,
        &format!(
            "{}: cannot be read: larger than 52428800 bytes",
            large.display()
        ),
    );
}

#[test]
fn validate_checks_files_and_urls_and_follows_indexes() {
    let directory = tempfile::tempdir().unwrap();
    let good = directory.path().join("sitemap.xml");
    std::fs::write(
        &good,
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<sitemapindex xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n\
         <sitemap><loc>https://example.com/sitemap-00001.xml</loc></sitemap>\n</sitemapindex>\n",
    )
    .unwrap();
    std::fs::write(
        directory.path().join("sitemap-00001.xml"),
        "<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n<url><loc>https://example.com/</loc><lastmod>2024-01-02</lastmod></url>\n</urlset>\n",
    )
    .unwrap();
    let run = sitemapper(&["validate", good.to_str().unwrap()]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout
            .contains("sitemap-00001.xml: valid sitemap, 1 entry"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("2 files, 2 entries, 0 problems."),
        "{}",
        run.stdout
    );

    let bad = directory.path().join("bad.xml");
    std::fs::write(
        &bad,
        "<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n<url><loc>https://example.com/</loc></url>\n<url><loc>relative</loc><changefreq>often</changefreq></url>\n</urlset>\n",
    )
    .unwrap();
    let run = sitemapper(&["validate", bad.to_str().unwrap()]);
    assert_eq!(run.code, 1);
    assert!(
        run.stdout
            .contains("bad.xml:3: <loc> \"relative\" is not an absolute http(s) URL"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("bad.xml:3: <changefreq> \"often\""),
        "{}",
        run.stdout
    );

    let server = Site::new()
        .route(
            "/sitemap.xml",
            Route::new(200, "<sitemapindex xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\"><sitemap><loc>{origin}/child.xml</loc></sitemap></sitemapindex>"),
        )
        .route(
            "/child.xml",
            Route::new(200, "<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n<url><loc>https://elsewhere.example/</loc></url></urlset>"),
        )
        .serve();
    let run = sitemapper(&["validate", &server.url("/sitemap.xml")]);
    assert_eq!(run.code, 1);
    assert!(
        run.stdout.contains(&format!(
            "{}:2: <loc> https://elsewhere.example/ is not under the sitemap's directory",
            server.url("/child.xml")
        )),
        "{}",
        run.stdout
    );
    let missing = sitemapper(&["validate", "/no/such/file.xml"]);
    assert_eq!(missing.code, 2);
}

/// A sitemap whose `<lastmod>` is wrong on eight URLs and whose one `<loc>` is relative.
fn sitemap_with_repeated_problems() -> String {
    let mut xml = String::from("<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n");
    for number in 1..=8 {
        xml.push_str(&format!(
            "<url><loc>https://example.com/{number}</loc><lastmod>day {number}</lastmod></url>\n"
        ));
    }
    xml.push_str("<url><loc>relative</loc></url>\n</urlset>\n");
    xml
}

#[test]
fn validate_groups_a_repeated_problem_into_one_line() {
    let directory = tempfile::tempdir().unwrap();
    let path = directory.path().join("sitemap.xml");
    std::fs::write(&path, sitemap_with_repeated_problems()).unwrap();
    let run = sitemapper(&["validate", path.to_str().unwrap()]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let shown = path.display();
    assert_eq!(
        run.stdout,
        format!(
            "{shown}:2: <lastmod> \"day 1\" is not a W3C Datetime (2024-01-02T03:04:05+00:00) (8 times, at lines 2, 3, 4, 5, 6 and 3 more)\n\
             {shown}:10: <loc> \"relative\" is not an absolute http(s) URL\n\
             1 file, 9 entries, 9 problems.\n"
        )
    );
}

#[test]
fn validate_as_json_lists_each_kind_of_problem_once_with_its_count() {
    let directory = tempfile::tempdir().unwrap();
    let path = directory.path().join("sitemap.xml");
    std::fs::write(&path, sitemap_with_repeated_problems()).unwrap();
    let target = path.to_str().unwrap();
    let run = sitemapper(&["validate", target, "--summary", "json"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let summary = parse_json(&run);
    assert_eq!(summary["command"], "validate");
    assert_eq!(summary["ok"], false);
    assert_eq!(summary["exit_code"], 1);
    assert_eq!(summary["target"], target);
    assert_eq!(summary["valid"], false);
    assert_eq!(summary["files"], 1);
    assert_eq!(summary["entries"], 9);
    assert_eq!(summary["problem_count"], 9);
    assert_eq!(summary["warning_count"], 0);
    assert_eq!(
        summary["sitemaps"],
        serde_json::json!([{"source": target, "kind": "sitemap", "entries": 9, "readable": true, "valid": false}])
    );
    let problems = summary["problems"].as_array().unwrap();
    assert_eq!(problems.len(), 2, "{problems:?}");
    assert_eq!(problems[0]["kind"], "lastmod");
    assert_eq!(problems[0]["severity"], "error");
    assert_eq!(problems[0]["count"], 8);
    let lines: Vec<u64> = problems[0]["examples"]
        .as_array()
        .unwrap()
        .iter()
        .map(|example| example["line"].as_u64().unwrap())
        .collect();
    assert_eq!(lines, [2, 3, 4, 5, 6]);
    assert_eq!(
        problems[0]["examples"][0]["message"],
        "<lastmod> \"day 1\" is not a W3C Datetime (2024-01-02T03:04:05+00:00)"
    );
    assert_eq!(problems[1]["kind"], "loc-not-absolute");
    assert_eq!(problems[1]["count"], 1);
}

#[test]
fn validate_reads_stdin_plain_or_gzip() {
    let xml = "<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n\
               <url><loc>https://example.com/</loc></url>\n\
               <url><loc>https://example.com/a</loc></url>\n</urlset>\n";
    let mut gzip = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gzip.write_all(xml.as_bytes()).unwrap();
    let gzip = gzip.finish().unwrap();
    let directory = tempfile::tempdir().unwrap();
    for input in [xml.as_bytes(), gzip.as_slice()] {
        let run = sitemapper_in(directory.path(), &["validate", "-"], Some(input));
        run.assert_success();
        assert_eq!(
            run.stdout,
            "stdin: valid sitemap, 2 entries\n1 file, 2 entries, 0 problems.\n"
        );
    }
    let broken = sitemap_with_repeated_problems();
    let run = sitemapper_in(
        directory.path(),
        &["validate", "-", "--summary", "json"],
        Some(broken.as_bytes()),
    );
    assert_eq!(run.code, 1);
    let summary = parse_json(&run);
    assert_eq!(summary["target"], "-");
    assert_eq!(summary["problems"][0]["source"], "stdin");
    assert_eq!(summary["problems"][0]["count"], 8);
}

#[test]
fn validate_caps_stdin_like_a_file() {
    let directory = tempfile::tempdir().unwrap();
    let input = vec![b' '; 52_428_801];
    let run = sitemapper_in(directory.path(), &["validate", "-"], Some(&input));
    assert_eq!(run.code, 1);
    assert!(
        run.stdout
            .contains("stdin: cannot be read: larger than 52428800 bytes"),
        "{}",
        run.stdout
    );
}
