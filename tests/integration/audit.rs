//! `sitemapper audit`: a fixture site seeded with every kind of finding; each is found with
//! the right URLs and referrers, nothing clean is flagged; hostile page text stays inert in
//! the data files (report.rs checks report.html in a browser).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::time::Duration;

use serde_json::Value;

use crate::fixture::{Route, Server, Site};
use crate::harness::{Run, sitemapper};

/// A page with a title of a good length, a description and a heading: clean.
fn page(title: &str, body: &str) -> String {
    format!(
        "<html><head><title>{title} | the fixture site of the audit</title><meta name=\"description\" content=\"About {title}\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"></head><body><h1>{title}</h1>{body}</body></html>"
    )
}

fn with_canonical(target: &str, text: &str) -> String {
    format!(
        "<html><head><title>{text}</title><meta name=\"description\" content=\"{text}\"><link rel=\"canonical\" href=\"{target}\"></head><body>{text}</body></html>"
    )
}

/// A site with one of every problem the audit looks for, and one clean page (/about).
pub(crate) fn troubled_site() -> Server {
    let home_links: String = [
        "/about",
        "/broken",
        "/gone",
        "/old",
        "/moved",
        "/loop-a",
        "/noindex",
        "/private/secret",
        "/canon-404",
        "/canon-redirect",
        "/canon-noindex",
        "/canon-disallowed",
        "/conflict",
        "/offsite",
        "/dup-a",
        "/dup-b",
        "/no-title",
        "/same-1",
        "/same-2",
        "/level1",
        "/slow",
        "/big",
        "/sub/",
        "/en/",
        "/de/",
    ]
    .iter()
    .map(|path| format!("<a href=\"{path}\">{path}</a>"))
    .collect();
    let mut site = Site::new()
        .route(
            "/robots.txt",
            Route::new(200, "User-agent: *\nDisallow: /private/\nSitemap: {origin}/sitemap.xml\n"),
        )
        .route(
            "/sitemap.xml",
            Route::new(
                200,
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n\
                 <url><loc>{origin}/</loc></url>\n<url><loc>{origin}/about</loc></url>\n\
                 <url><loc>{origin}/orphan</loc></url>\n<url><loc>{origin}/old</loc></url>\n\
                 <url><loc>{origin}/noindex</loc></url>\n</urlset>\n",
            )
            .header("Content-Type", "application/xml"),
        )
        .page("/", &page("Home", &home_links))
        .page("/about", &page("About", "<a href=\"/broken\">broken again</a>"))
        .route("/gone", Route::new(500, "oops").header("Content-Type", "text/html"))
        .route("/old", Route::redirect(301, "/older"))
        .route("/older", Route::redirect(301, "/final"))
        .route("/moved", Route::redirect(301, "/final"))
        .page("/final", &page("Final", "final"))
        .route("/loop-a", Route::redirect(301, "/loop-b"))
        .route("/loop-b", Route::redirect(301, "/loop-a"))
        .page("/noindex", "<html><head><title>Hidden</title><meta name=\"robots\" content=\"noindex\"></head></html>")
        .page("/canon-404", &with_canonical("/missing-canonical", "canon 404"))
        .page("/canon-redirect", &with_canonical("/moved", "canon redirect"))
        .page("/canon-noindex", &with_canonical("/noindex", "canon noindex"))
        .page("/canon-disallowed", &with_canonical("/private/other", "canon disallowed"))
        .page(
            "/conflict",
            "<html><head><title>Conflict</title><link rel=\"canonical\" href=\"/a\"><link rel=\"canonical\" href=\"/b\"></head></html>",
        )
        .page("/offsite", &with_canonical("http://other.example/", "offsite"))
        .page("/dup-a", &page("Copy A", "<p>the very same words</p>").replace("Copy A", "Copy"))
        .page("/dup-b", &page("Copy B", "<p>the very same words</p>").replace("Copy B", "Copy"))
        .page("/no-title", "<html><head><meta name=\"description\" content=\"x\"></head><body>untitled</body></html>")
        .page("/same-1", &page("Same", "one"))
        .page("/same-2", &page("Same", "two"))
        .route("/slow", Route::html(&page("Slow", "slow")).delay(Duration::from_millis(400)))
        .page("/big", &page("Big", &"<p>padding</p>".repeat(2000)))
        .page("/sub/", &page("Sub", "<a href=\"sub/\">deeper</a>"))
        .page("/sub/sub/", &page("Sub sub", "<a href=\"sub/\">deeper</a>"))
        .page(
            "/en/",
            "<html><head><title>English</title><meta name=\"description\" content=\"en\">\
             <link rel=\"alternate\" hreflang=\"en\" href=\"/en/\"><link rel=\"alternate\" hreflang=\"de\" href=\"/de/\">\
             <link rel=\"alternate\" hreflang=\"english\" href=\"/en/\"></head><body>en</body></html>",
        )
        .page("/de/", &page("Deutsch", "de"))
        .page("/orphan", &page("Orphan", "nobody links here"));
    for level in 1..=6 {
        site = site.page(
            &format!("/level{level}"),
            &page(
                &format!("Level {level}"),
                &format!("<a href=\"/level{}\">down</a>", level + 1),
            ),
        );
    }
    site.serve()
}

pub(crate) fn audit(server: &Server, report: &Path, extra: &[&str]) -> Run {
    let report = report.to_str().unwrap();
    let seed = server.url("/");
    let mut args = vec![
        "audit",
        &seed,
        "--report",
        report,
        "--retries",
        "0",
        "--slow",
        "200",
        "--large",
        "10000",
    ];
    args.extend_from_slice(extra);
    sitemapper(&args)
}

/// The report's report.json, read.
pub(crate) fn report_json(report: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(report.join("report.json")).unwrap()).unwrap()
}

/// `(kind, path) -> referrer paths` of every finding in report.json.
pub(crate) fn findings(report: &Path, server: &Server) -> Vec<(String, String, Vec<String>)> {
    let json = report_json(report);
    let path = |url: &str| url.trim_start_matches(&server.origin()).to_string();
    json["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|finding| !crate::audit_breadth::is_breadth(finding["kind"].as_str().unwrap()))
        .map(|finding| {
            (
                finding["kind"].as_str().unwrap().to_string(),
                path(finding["url"].as_str().unwrap()),
                finding["referrers"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|referrer| path(referrer.as_str().unwrap()))
                    .collect(),
            )
        })
        .collect()
}

#[test]
fn every_kind_of_finding_is_found_with_its_urls_and_referrers() {
    let server = troubled_site();
    let report = tempfile::tempdir().unwrap();
    let run = audit(&server, report.path(), &[]);
    run.assert_success();
    let found = findings(report.path(), &server);
    let has = |kind: &str, path: &str| {
        found
            .iter()
            .find(|(found_kind, found_path, _)| found_kind == kind && found_path == path)
            .map(|(_, _, referrers)| referrers.clone())
            .unwrap_or_else(|| panic!("no {kind} finding for {path} in {found:#?}"))
    };
    assert_eq!(has("broken-link", "/broken"), ["/", "/about"]);
    assert_eq!(has("broken-link", "/gone"), ["/"]);
    // A canonical is not a link: its broken target is the canonical's finding only.
    assert!(
        !found
            .iter()
            .any(|(_, path, _)| path == "/missing-canonical"),
        "{found:#?}"
    );
    assert_eq!(has("redirect-chain", "/old"), ["/"]);
    assert_eq!(has("redirect-loop", "/loop-a"), ["/"]);
    assert_eq!(has("link-to-redirect", "/moved"), ["/"]);
    has("canonical-to-broken", "/canon-404");
    has("canonical-to-redirect", "/canon-redirect");
    has("canonical-to-noindex", "/canon-noindex");
    has("canonical-to-disallowed", "/canon-disallowed");
    has("conflicting-canonicals", "/conflict");
    has("off-site-canonical", "/offsite");
    assert_eq!(has("noindex-linked", "/noindex"), ["/"]);
    assert_eq!(has("robots-blocked-linked", "/private/secret"), ["/"]);
    assert_eq!(has("too-deep", "/level5"), ["/level4"]);
    has("too-deep", "/level6");
    has("slow", "/slow");
    has("large", "/big");
    has("missing-title", "/no-title");
    has("duplicate-title", "/same-1");
    has("duplicate-title", "/same-2");
    has("duplicate-content", "/dup-a");
    has("duplicate-content", "/dup-b");
    has("trap-cut-short", "/sub/sub/sub/");
    has("hreflang-no-return", "/en/");
    has("hreflang-invalid", "/en/");
    has("sitemap-orphan", "/orphan");
    has("sitemap-not-indexable", "/old");
    has("sitemap-not-indexable", "/noindex");
    has("not-in-sitemap", "/final");

    // Nothing clean is flagged.
    let clean: Vec<_> = found
        .iter()
        .filter(|(_, path, _)| path == "/about")
        .collect();
    assert!(clean.is_empty(), "/about is clean: {clean:?}");
    assert!(
        !found
            .iter()
            .any(|(kind, path, _)| kind == "too-deep" && path == "/level4")
    );
    assert!(
        !found
            .iter()
            .any(|(kind, path, _)| kind == "not-in-sitemap" && path == "/about")
    );

    for file in [
        "report.html",
        "findings.csv",
        "pages.csv",
        "links.csv",
        "report.json",
        "crawl.db",
        "sitemap.xml",
    ] {
        assert!(report.path().join(file).is_file(), "{file}");
    }
    let pages_csv = std::fs::read_to_string(report.path().join("pages.csv")).unwrap();
    // Each CSV file starts with a UTF-8 byte order mark, for Excel (--csv-bom).
    assert!(pages_csv.starts_with("\u{feff}url,status,verdict,reason,depth"));
    assert!(pages_csv.contains(&format!("{},404,excluded,http-404", server.url("/broken"))));
    let links_csv = std::fs::read_to_string(report.path().join("links.csv")).unwrap();
    assert!(links_csv.starts_with("\u{feff}source,target,kind,anchor,nofollow\n"));
    for line in [
        format!(
            "{},{},a,broken again,false",
            server.url("/about"),
            server.url("/broken")
        ),
        format!(
            "{},{},canonical,,false",
            server.url("/canon-404"),
            server.url("/missing-canonical")
        ),
        format!(
            "{},{},redirect,,false",
            server.url("/old"),
            server.url("/older")
        ),
        format!(
            "{},{},hreflang,,false",
            server.url("/en/"),
            server.url("/de/")
        ),
    ] {
        assert!(links_csv.contains(&line), "{line} in {links_csv}");
    }
    assert!(
        run.stderr
            .contains("Compared with the site's sitemaps: 1 file, 5 URLs."),
        "{}",
        run.stderr
    );
}

#[test]
fn fail_on_makes_findings_an_exit_code() {
    let server = troubled_site();
    let report = tempfile::tempdir().unwrap();
    let run = audit(&server, report.path(), &["--fail-on", "error"]);
    assert_eq!(run.code, 4, "{}", run.stderr);
    assert!(
        run.stderr.contains("findings at error level or worse"),
        "{}",
        run.stderr
    );

    // Clean: robots.txt names a sitemap that lists both pages.
    let clean = Site::new()
        .page("/", &page("Home", "<a href=\"/about\">about</a>"))
        .page("/about", &page("About", "about"))
        .route(
            "/robots.txt",
            Route::new(200, "User-agent: *\nAllow: /\nSitemap: {origin}/sitemap.xml\n"),
        )
        .route(
            "/sitemap.xml",
            Route::new(
                200,
                "<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\"><url><loc>{origin}/</loc></url><url><loc>{origin}/about</loc></url></urlset>",
            ),
        )
        .serve();
    let report = tempfile::tempdir().unwrap();
    let run = audit(&clean, report.path(), &["--fail-on", "warning"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
}

/// Text a hostile site puts in its titles, descriptions and sitemap `<loc>`s: spreadsheet
/// formulas, and markup that would end or derail the report's embedded JSON if left raw.
pub(crate) struct Hostile {
    /// As the site writes it (HTML-escaped into the page, XML-escaped into the sitemap).
    pub(crate) text: &'static str,
    /// As the crawl records it: the extractor collapses whitespace, the sitemap reader trims.
    pub(crate) recorded: &'static str,
    /// As a spreadsheet must receive it in a CSV cell: formulas behind a leading `'`.
    pub(crate) in_csv: &'static str,
}

pub(crate) const HOSTILE: [Hostile; 11] = [
    Hostile {
        text: "=HYPERLINK(\"http://evil.example\",\"x\")",
        recorded: "=HYPERLINK(\"http://evil.example\",\"x\")",
        in_csv: "'=HYPERLINK(\"http://evil.example\",\"x\")",
    },
    Hostile {
        text: "+1+2",
        recorded: "+1+2",
        in_csv: "'+1+2",
    },
    Hostile {
        text: "-2+3",
        recorded: "-2+3",
        in_csv: "'-2+3",
    },
    Hostile {
        text: "@SUM(1)",
        recorded: "@SUM(1)",
        in_csv: "'@SUM(1)",
    },
    Hostile {
        text: "\t=1+1",
        recorded: "=1+1",
        in_csv: "'=1+1",
    },
    Hostile {
        text: "\r=2+2",
        recorded: "=2+2",
        in_csv: "'=2+2",
    },
    Hostile {
        text: "<!--<script>",
        recorded: "<!--<script>",
        in_csv: "<!--<script>",
    },
    Hostile {
        text: "</script><script>alert(1)</script>",
        recorded: "</script><script>alert(1)</script>",
        in_csv: "</script><script>alert(1)</script>",
    },
    Hostile {
        text: "</script><script>document.body.dataset.injected='yes'</script>",
        recorded: "</script><script>document.body.dataset.injected='yes'</script>",
        in_csv: "</script><script>document.body.dataset.injected='yes'</script>",
    },
    Hostile {
        text: "]]>",
        recorded: "]]>",
        in_csv: "]]>",
    },
    Hostile {
        text: "Tom & Jerry's \"best\" <b>deals</b> &amp; more",
        recorded: "Tom & Jerry's \"best\" <b>deals</b> &amp; more",
        in_csv: "Tom & Jerry's \"best\" <b>deals</b> &amp; more",
    },
];

/// `text` escaped for HTML and XML text and attribute values.
fn markup_escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Two pages for each hostile text, with it as title and description (a duplicate title
/// puts the text into report.json too), and a sitemap whose `<loc>`s are the texts.
pub(crate) fn hostile_site() -> Server {
    let mut site = Site::new();
    let mut links = String::new();
    let mut locs = String::new();
    for (index, hostile) in HOSTILE.iter().enumerate() {
        let text = markup_escape(hostile.text);
        for copy in ["first", "second"] {
            let path = format!("/hostile/{index}/{copy}");
            links.push_str(&format!("<a href=\"{path}\">{index} {copy}</a>"));
            site = site.page(
                &path,
                &format!(
                    "<html><head><title>{text}</title><meta name=\"description\" content=\"{text}\"></head><body><p>{index} {copy}</p></body></html>"
                ),
            );
        }
        locs.push_str(&format!("<url><loc>{text}</loc></url>"));
    }
    site.page("/", &page("Home", &links))
        .route(
            "/sitemap.xml",
            Route::new(
                200,
                &format!(
                    "<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\"><url><loc>{{origin}}/</loc></url>{locs}</urlset>"
                ),
            ),
        )
        .serve()
}

/// The rows of a CSV file of the report, each as column name -> cell.
pub(crate) fn csv_rows(path: &Path) -> Vec<BTreeMap<String, String>> {
    csv::Reader::from_path(path)
        .unwrap()
        .deserialize()
        .collect::<Result<_, _>>()
        .unwrap()
}

fn hostile_for(path: &str) -> &'static Hostile {
    let index: usize = path.split('/').nth(2).unwrap().parse().unwrap();
    &HOSTILE[index]
}

#[test]
fn hostile_text_is_inert_in_the_csv_files_and_exact_in_report_json() {
    let server = hostile_site();
    let report = tempfile::tempdir().unwrap();
    audit(&server, report.path(), &[]).assert_success();

    let pages = csv_rows(&report.path().join("pages.csv"));
    let hostile_pages: Vec<_> = pages
        .iter()
        .filter(|row| row["url"].starts_with(&server.url("/hostile/")))
        .collect();
    assert_eq!(hostile_pages.len(), 2 * HOSTILE.len());
    for row in hostile_pages {
        let hostile = hostile_for(row["url"].trim_start_matches(&server.origin()));
        assert_eq!(row["title"], hostile.in_csv, "{row:?}");
        assert_eq!(row["description"], hostile.in_csv, "{row:?}");
        // The cells the site does not control are as before, numbers still numbers.
        assert_eq!(
            (&*row["status"], &*row["verdict"], &*row["depth"]),
            ("200", "indexable", "1")
        );
        assert!(row["bytes"].parse::<u64>().is_ok(), "{row:?}");
        assert!(row["elapsed_ms"].parse::<u64>().is_ok(), "{row:?}");
        assert_eq!(row["referrer"], server.url("/"));
    }

    let findings_csv = csv_rows(&report.path().join("findings.csv"));
    let loc_cells: BTreeSet<&str> = findings_csv
        .iter()
        .filter(|row| row["kind"] == "sitemap-not-indexable")
        .inspect(|row| assert_eq!(row["detail"], "not an absolute http(s) URL"))
        .map(|row| row["url"].as_str())
        .collect();
    let expected: BTreeSet<&str> = HOSTILE.iter().map(|hostile| hostile.in_csv).collect();
    assert_eq!(loc_cells, expected);
    let duplicate_title = findings_csv
        .iter()
        .find(|row| row["kind"] == "duplicate-title" && row["url"].ends_with("/hostile/0/first"))
        .unwrap();
    assert_eq!(duplicate_title["severity"], "notice");
    assert!(duplicate_title["detail"].starts_with("title \"=HYPERLINK("));

    let links = csv_rows(&report.path().join("links.csv"));
    assert!(links.iter().any(|row| {
        row["source"] == server.url("/") && row["target"] == server.url("/hostile/0/first")
    }));

    // report.json is data for programs: the texts exactly as recorded, no quote added.
    let found = findings(report.path(), &server);
    let locs: BTreeSet<&str> = found
        .iter()
        .filter(|(kind, _, _)| kind == "sitemap-not-indexable")
        .map(|(_, url, _)| url.as_str())
        .collect();
    let recorded: BTreeSet<&str> = HOSTILE.iter().map(|hostile| hostile.recorded).collect();
    assert_eq!(locs, recorded);
    let json = std::fs::read_to_string(report.path().join("report.json")).unwrap();
    let json: Value = serde_json::from_str(&json).unwrap();
    let details: Vec<&str> = json["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|finding| finding["kind"] == "duplicate-title")
        .map(|finding| finding["detail"].as_str().unwrap())
        .collect();
    for hostile in &HOSTILE {
        // The store quotes the duplicated title Rust-style in the detail.
        let quoted = format!("title {:?} also on ", hostile.recorded);
        assert!(
            details.iter().any(|detail| detail.starts_with(&quoted)),
            "{quoted} in {details:#?}"
        );
    }
}

#[test]
fn the_sites_sitemaps_are_read_through_indexes_and_gzip() {
    use std::io::Write;
    let site = |gzipped_child: Vec<u8>| {
        Site::new()
            .page("/", &page("Home", "<a href=\"/about\">about</a>"))
            .page("/about", &page("About", "about"))
            .page("/orphan", &page("Orphan", "alone"))
            .route(
                "/robots.txt",
                Route::new(200, "User-agent: *\nAllow: /\nSitemap: {origin}/sitemap_index.xml\n"),
            )
            .route(
                "/sitemap_index.xml",
                Route::new(200, "<sitemapindex xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\"><sitemap><loc>{origin}/s1.xml.gz</loc></sitemap><sitemap><loc>{origin}/s2.xml</loc></sitemap></sitemapindex>"),
            )
            .route("/s1.xml.gz", Route::new(200, "").bytes(gzipped_child))
            .route(
                "/s2.xml",
                Route::new(200, "<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\"><url><loc>{origin}/orphan</loc></url></urlset>"),
            )
    };
    let server = site(Vec::new()).serve();
    // A gzip body gets no {origin} substitution: it is built once the port is known.
    let child = format!(
        "<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\"><url><loc>{0}/</loc></url><url><loc>{0}/about</loc></url></urlset>",
        server.origin()
    );
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    encoder.write_all(child.as_bytes()).unwrap();
    server.change(site(encoder.finish().unwrap()));

    let report = tempfile::tempdir().unwrap();
    let run = audit(&server, report.path(), &[]);
    run.assert_success();
    assert!(
        run.stderr
            .contains("Compared with the site's sitemaps: 3 files, 3 URLs."),
        "{}",
        run.stderr
    );
    let found = findings(report.path(), &server);
    let kinds_for = |path: &str| -> Vec<String> {
        found
            .iter()
            .filter(|(_, found_path, _)| found_path == path)
            .map(|(kind, _, _)| kind.clone())
            .collect()
    };
    assert_eq!(kinds_for("/orphan"), ["sitemap-orphan"]);
    assert!(kinds_for("/about").is_empty(), "{found:?}");
}

#[test]
fn the_sites_self_listing_sitemap_indexes_are_fetched_once_and_reported() {
    let sitemap_index = |locs: &[&str]| {
        let entries: String = locs
            .iter()
            .map(|loc| format!("<sitemap><loc>{loc}</loc></sitemap>"))
            .collect();
        format!(
            "<sitemapindex xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n{entries}\n</sitemapindex>"
        )
    };
    // robots.txt names the index twice; it lists itself, a child twice, and a second index
    // that lists it back.
    let server = Site::new()
        .page("/", &page("Home", "home"))
        .route(
            "/robots.txt",
            Route::new(
                200,
                "User-agent: *\nAllow: /\nSitemap: {origin}/sitemap_index.xml\nSitemap: {origin}/sitemap_index.xml\n",
            ),
        )
        .route(
            "/sitemap_index.xml",
            Route::new(
                200,
                &sitemap_index(&[
                    "{origin}/sitemap_index.xml",
                    "{origin}/s.xml",
                    "{origin}/s.xml",
                    "{origin}/other.xml",
                ]),
            ),
        )
        .route(
            "/other.xml",
            Route::new(200, &sitemap_index(&["{origin}/sitemap_index.xml"])),
        )
        .route(
            "/s.xml",
            Route::new(200, "<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\"><url><loc>{origin}/</loc></url></urlset>"),
        )
        .serve();
    let report = tempfile::tempdir().unwrap();
    audit(&server, report.path(), &[]).assert_success();
    for path in ["/sitemap_index.xml", "/other.xml", "/s.xml"] {
        let requests = server
            .targets()
            .iter()
            .filter(|target| *target == path)
            .count();
        assert_eq!(requests, 1, "{path} is fetched once");
    }
    let json: Value =
        serde_json::from_str(&std::fs::read_to_string(report.path().join("report.json")).unwrap())
            .unwrap();
    let unreadable: Vec<(String, String)> = json["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|finding| finding["kind"] == "sitemap-unreadable")
        .map(|finding| {
            let url = finding["url"].as_str().unwrap().to_string();
            (url, finding["detail"].as_str().unwrap().to_string())
        })
        .collect();
    let (index, other) = (server.url("/sitemap_index.xml"), server.url("/other.xml"));
    assert!(
        unreadable.contains(&(
            index.clone(),
            format!("line 2: a cycle of sitemap indexes: {index} -> {index}; not read again")
        )),
        "{unreadable:#?}"
    );
    assert!(
        unreadable.contains(&(
            other.clone(),
            format!(
                "line 2: a cycle of sitemap indexes: {index} -> {other} -> {index}; not read again"
            )
        )),
        "{unreadable:#?}"
    );
    assert!(
        !unreadable
            .iter()
            .any(|(_, detail)| detail.contains("listed again")),
        "a repeat is no error: {unreadable:#?}"
    );
}

#[test]
fn a_sitemap_the_site_serves_is_its_sitemap_whoever_wrote_it() {
    let pages = |site: Site| {
        site.page(
            "/",
            &page("Home of the site", "<h1>Home</h1><a href=\"/a\">a</a>"),
        )
        .page(
            "/a",
            &page("Page a of the site", "<h1>A</h1><a href=\"/\">home</a>"),
        )
    };
    // The site publishes what `sitemapper crawl` wrote for it.
    let first = pages(Site::new()).serve();
    let out = tempfile::tempdir().unwrap();
    crate::harness::crawl(&first.url("/"), out.path(), &[]).assert_success();
    let published = crate::harness::read_sitemap(&out.path().join("sitemap.xml"))
        .replace(&first.origin(), "{origin}");
    assert!(published.contains("<!-- written by sitemapper -->"));
    let site = pages(Site::new())
        .route(
            "/sitemap.xml",
            Route::new(200, &published).header("Content-Type", "application/xml"),
        )
        .serve();
    let report = tempfile::tempdir().unwrap();
    let run = audit(&site, report.path(), &[]);
    run.assert_success();
    assert!(
        run.stderr
            .contains("Compared with the site's sitemaps: 1 file, 2 URLs."),
        "{}",
        run.stderr
    );
    let kinds: BTreeSet<String> = findings(report.path(), &site)
        .into_iter()
        .map(|(kind, _, _)| kind)
        .collect();
    assert!(!kinds.contains("no-sitemap"), "{kinds:?}");
    assert!(kinds.contains("sitemap-not-in-robots"), "{kinds:?}");
}
