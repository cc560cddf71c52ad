//! `sitemapper audit --extract NAME=SELECTOR[@attr]`: values picked out of every HTML page
//! into pages.csv, one column per name, in the order given; bad extractions are usage errors
//! before any request.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::audit::{audit, csv_rows};
use crate::fixture::{Route, Server, Site};
use crate::harness::assert_one_line_error;

/// A shop: two product pages (a price, a SKU in an attribute, tags), a page without any of
/// them, one whose price is hostile text, and a PDF.
fn shop() -> Server {
    let product = |name: &str, price: &str, sku: &str, tags: &[&str]| {
        let tags: String = tags.iter().map(|tag| format!("<li>{tag}</li>")).collect();
        format!(
            "<html><head><title>{name}</title></head><body>\
             <div class=\"product\" data-sku=\"{sku}\"><h1>{name}</h1>\
             <p class=\"price\"><span>EUR</span>\n {price}</p><ul class=\"tags\">{tags}</ul></div>\
             </body></html>"
        )
    };
    Site::new()
        .page(
            "/",
            "<html><head><title>Shop</title></head><body>\
             <a href=\"/kettle\">kettle</a> <a href=\"/mug\">mug</a> <a href=\"/about\">about</a>\
             <a href=\"/hostile\">hostile</a> <a href=\"/catalogue.pdf\">catalogue</a></body></html>",
        )
        .page("/kettle", &product("Kettle", "39.90", "KT-100", &["steel", "kitchen"]))
        .page("/mug", &product("Mug", "7.50", "MG-7", &["gift"]))
        .page(
            "/about",
            "<html><head><title>About</title></head><body><p>No products here.</p></body></html>",
        )
        .page(
            "/hostile",
            "<html><head><title>Hostile</title></head><body>\
             <p class=\"price\">=HYPERLINK(\"http://evil.example/\",\"click\")</p></body></html>",
        )
        .route(
            "/catalogue.pdf",
            Route::new(200, "%PDF-1.4").header("Content-Type", "application/pdf"),
        )
        .serve()
}

const EXTRACTIONS: [&str; 6] = [
    "--extract",
    "price=.product .price, .price",
    "--extract",
    "sku=[data-sku]@data-sku",
    "--extract",
    "tags=.tags li",
];

/// `path -> (price, sku, tags)` of pages.csv.
fn extracted(rows: &[BTreeMap<String, String>], server: &Server) -> BTreeMap<String, [String; 3]> {
    rows.iter()
        .map(|row| {
            let path = row["url"].trim_start_matches(&server.origin()).to_string();
            (
                path,
                [
                    row["price"].clone(),
                    row["sku"].clone(),
                    row["tags"].clone(),
                ],
            )
        })
        .collect()
}

#[test]
fn extracted_values_are_columns_of_pages_csv_in_the_order_given() {
    let server = shop();
    let report = tempfile::tempdir().unwrap();
    audit(&server, report.path(), &EXTRACTIONS).assert_success();

    let pages_csv = std::fs::read_to_string(report.path().join("pages.csv")).unwrap();
    assert_eq!(
        pages_csv.lines().next(),
        Some(
            "\u{feff}url,status,verdict,reason,depth,referrer,title,description,canonical,target,\
             lastmod,elapsed_ms,bytes,rendering,h1_count,h1,lang,images_without_alt,inlinks,\
             outlinks,title_length,word_count,price,sku,tags"
        )
    );
    let rows = csv_rows(&report.path().join("pages.csv"));
    let cells = |price: &str, sku: &str, tags: &str| [price, sku, tags].map(str::to_string);
    let expected: BTreeMap<String, [String; 3]> = [
        ("/", cells("", "", "")),
        ("/about", cells("", "", "")),
        ("/catalogue.pdf", cells("", "", "")),
        // A spreadsheet reads the cell as text, not as a formula.
        (
            "/hostile",
            cells("'=HYPERLINK(\"http://evil.example/\",\"click\")", "", ""),
        ),
        ("/kettle", cells("EUR 39.90", "KT-100", "steel | kitchen")),
        ("/mug", cells("EUR 7.50", "MG-7", "gift")),
    ]
    .into_iter()
    .map(|(path, cells)| (path.to_string(), cells))
    .collect();
    assert_eq!(extracted(&rows, &server), expected);

    let json: Value =
        serde_json::from_str(&std::fs::read_to_string(report.path().join("report.json")).unwrap())
            .unwrap();
    assert_eq!(json["extract"], serde_json::json!(["price", "sku", "tags"]));
}

#[test]
fn extractions_come_from_the_config_file_too() {
    let server = shop();
    let report = tempfile::tempdir().unwrap();
    let config = report.path().join("sitemapper.toml");
    std::fs::write(&config, "extract = [\"sku=[data-sku]@data-sku\"]\n").unwrap();
    audit(
        &server,
        report.path(),
        &["--config", config.to_str().unwrap()],
    )
    .assert_success();
    let rows = csv_rows(&report.path().join("pages.csv"));
    let kettle = rows
        .iter()
        .find(|row| row["url"] == server.url("/kettle"))
        .unwrap();
    assert_eq!(kettle["sku"], "KT-100");
    assert!(!kettle.contains_key("price"));
}

#[test]
fn a_bad_extraction_is_a_one_line_usage_error_before_any_request() {
    let server = shop();
    for (extraction, expected) in [
        (
            "price=..price",
            "error: invalid --extract \"price=..price\": the selector does not parse",
        ),
        (
            ".price",
            "error: invalid --extract \".price\": expected NAME=CSS-SELECTOR",
        ),
        (
            "my price=.price",
            "error: invalid --extract \"my price=.price\": the name \"my price\" must be",
        ),
        (
            "Title=h1",
            "error: invalid --extract \"Title=h1\": \"Title\" is a column of pages.csv already",
        ),
    ] {
        let report = tempfile::tempdir().unwrap();
        let run = audit(&server, report.path(), &["--extract", extraction]);
        assert_eq!(run.code, 2, "{extraction}: {}", run.stderr);
        assert_one_line_error(&run.stderr);
        assert!(run.stderr.starts_with(expected), "{}", run.stderr);
    }
    let report = tempfile::tempdir().unwrap();
    let twice = audit(
        &server,
        report.path(),
        &[
            "--extract",
            "sku=.sku",
            "--extract",
            "SKU=[data-sku]@data-sku",
        ],
    );
    assert_eq!(twice.code, 2, "{}", twice.stderr);
    assert_one_line_error(&twice.stderr);
    assert!(
        twice.stderr.contains("the name \"SKU\" is given twice"),
        "{}",
        twice.stderr
    );
    assert!(
        server.targets().is_empty(),
        "no request before the options are checked"
    );
}

#[test]
fn a_rendered_page_is_extracted_from_its_rendered_dom() {
    let Some(browser) = crate::harness::chromium() else {
        return;
    };
    let server = Site::new()
        .page(
            "/",
            "<html><head><title>Deal</title></head><body>\
             <p class=\"price\">loading</p>\
             <script>document.querySelector('.price').textContent = '12.00';</script>\
             </body></html>",
        )
        .serve();
    let report = tempfile::tempdir().unwrap();
    audit(
        &server,
        report.path(),
        &[
            "--render",
            "always",
            "--chrome",
            browser.to_str().unwrap(),
            "--extract",
            "price=.price",
        ],
    )
    .assert_success();
    let rows = csv_rows(&report.path().join("pages.csv"));
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(
        (rows[0]["rendering"].as_str(), rows[0]["price"].as_str()),
        ("rendered", "12.00")
    );
}

#[test]
fn a_page_that_answers_304_keeps_the_values_of_its_last_fetch() {
    // The body changes, its ETag does not: the server answers the second audit's
    // conditional request with 304, and the new body is never read.
    let site = |price: &str| {
        Site::new()
            .page(
                "/",
                "<html><body><a href=\"/kettle\">kettle</a></body></html>",
            )
            .route(
                "/kettle",
                Route::html(&format!(
                    "<html><body><p class=\"price\">{price}</p></body></html>"
                ))
                .header("ETag", "\"kettle-1\""),
            )
    };
    let server = site("39.90").serve();
    let directory = tempfile::tempdir().unwrap();
    let state = directory.path().join("crawl.db");
    let state = state.to_str().unwrap();
    let price_of_kettle = |report: &std::path::Path| {
        csv_rows(&report.join("pages.csv"))
            .into_iter()
            .find(|row| row["url"] == server.url("/kettle"))
            .map(|row| row["price"].clone())
    };
    for run in ["first", "second"] {
        let report = directory.path().join(run);
        audit(
            &server,
            &report,
            &["--state", state, "--extract", "price=.price"],
        )
        .assert_success();
        assert_eq!(price_of_kettle(&report).as_deref(), Some("39.90"), "{run}");
        server.change(site("45.00"));
    }
    let revalidated = server
        .requests()
        .iter()
        .filter(|seen| seen.target == "/kettle")
        .any(|seen| seen.headers.contains_key("if-none-match"));
    assert!(
        revalidated,
        "the second audit asked whether /kettle changed"
    );
}
