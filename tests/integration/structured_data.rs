//! Structured data: an audit reads each page's JSON-LD, microdata and videos and records
//! them in the crawl database; a page revalidated with 304 keeps what was recorded, and so
//! does a plain crawl, which reads none.

use std::path::Path;

use sitemapper_extract::{Source, StructuredData};
use sitemapper_store::Store;

use crate::audit::audit;
use crate::fixture::{Route, Server, Site};
use crate::harness::crawl;

const HOME: &str = r#"<!doctype html><html><head><title>Home</title>
<script type="application/ld+json">
{"@context": "https://schema.org", "@graph": [
  {"@type": "Organization", "name": "Acme", "url": "https://acme.example/"},
  {"@type": "WebSite", "name": "Acme shop"}]}
</script>
<script type="application/ld+json">
{"@type": "BreadcrumbList",
 "itemListElement": [}
</script>
</head><body><a href="/product">Shoe</a> <a href="/plain">Plain</a></body></html>"#;

const PRODUCT: &str = r#"<!doctype html><html><head><title>Shoe</title>
<meta property="article:published_time" content="2024-05-01T08:00:00Z"></head><body>
<div itemscope itemtype="https://schema.org/Product" itemref="price">
  <h1 itemprop="name">Red shoe</h1>
  <img itemprop="image" src="/shoe.jpg" alt="A red shoe">
  <div itemprop="offers" itemscope itemtype="https://schema.org/Offer">
    <meta itemprop="priceCurrency" content="EUR">
  </div>
</div>
<p id="price" itemprop="price">9.99</p>
<video poster="/poster.jpg" title="The shoe"><source src="/shoe.mp4"></video>
<a href="/">Home</a></body></html>"#;

fn site() -> Site {
    Site::new()
        .page("/", HOME)
        .route("/product", Route::html(PRODUCT).header("ETag", "\"p1\""))
        .page(
            "/plain",
            "<html><head><title>Plain</title></head><body>Text</body></html>",
        )
}

/// The structured data the crawl database at `state` holds for `path`.
fn recorded(state: &Path, server: &Server, path: &str) -> Option<StructuredData> {
    let store = Store::open(state).unwrap();
    store
        .structured_of(&server.url(path))
        .unwrap()
        .map(|json| StructuredData::from_json(&json).expect("the extractor's JSON"))
}

#[test]
fn an_audit_records_each_pages_structured_data_and_a_304_keeps_it() {
    let server = site().serve();
    let report = tempfile::tempdir().unwrap();
    let state = report.path().join("crawl.db");
    audit(&server, report.path(), &[]).assert_success();
    assert!(state.exists(), "the audit keeps its crawl database");

    let home = recorded(&state, &server, "/").expect("the home page declares some");
    let types: Vec<&str> = home.items.iter().map(|item| &*item.types[0]).collect();
    assert_eq!(types, ["Organization", "WebSite"]);
    assert_eq!(home.items[0].text("name"), Some("Acme"));
    assert_eq!(home.errors.len(), 1);
    assert_eq!(
        (home.errors[0].block, home.errors[0].line),
        (2, 3),
        "{:?}",
        home.errors
    );

    let product = recorded(&state, &server, "/product").expect("microdata");
    assert_eq!(product.items.len(), 1);
    let item = &product.items[0];
    assert_eq!(item.source, Source::Microdata);
    assert!(item.is_a("Product"));
    assert_eq!(item.text("name"), Some("Red shoe"));
    assert_eq!(item.text("price"), Some("9.99"), "through itemref");
    assert_eq!(item.text("image"), Some(&*server.url("/shoe.jpg")));
    let offer = item.item("offers").expect("a nested item");
    assert_eq!(offer.text("priceCurrency"), Some("EUR"));
    assert_eq!(product.videos.len(), 1);
    assert_eq!(product.videos[0].poster, server.url("/poster.jpg"));
    assert_eq!(product.videos[0].src, Some(server.url("/shoe.mp4")));
    assert_eq!(product.videos[0].title.as_deref(), Some("The shoe"));
    assert_eq!(
        product.published_time.as_deref(),
        Some("2024-05-01T08:00:00Z")
    );

    assert_eq!(recorded(&state, &server, "/plain"), None, "declares none");

    // The next audit revalidates /product: 304, nothing read, the data recorded stands.
    let before = server.requests().len();
    audit(&server, report.path(), &[]).assert_success();
    let revalidated = server.requests()[before..]
        .iter()
        .any(|seen| seen.target == "/product" && seen.headers.contains_key("if-none-match"));
    assert!(revalidated, "the second audit asks with the ETag");
    assert_eq!(recorded(&state, &server, "/product"), Some(product));
    assert_eq!(recorded(&state, &server, "/"), Some(home));
}

#[test]
fn markup_nested_past_the_tree_s_depth_is_read_up_to_there_and_reported() {
    // A template that leaves a <div> open per item: 100,000 levels (half a megabyte) that
    // used to take the tree builder minutes of CPU. Its first item stands before them.
    let levels = 100_000;
    let deep = format!(
        r#"<!doctype html><html><head><title>Deep</title></head><body>
<div itemscope itemtype="https://schema.org/Product"><span itemprop="name">First</span></div>
{}<div itemscope itemtype="https://schema.org/Product"><span itemprop="name">Last</span></div>
{}<a href="/">Home</a></body></html>"#,
        r#"<div itemscope itemprop="isRelatedTo">"#.repeat(levels),
        "</div>".repeat(levels)
    );
    let server = Site::new()
        .page(
            "/",
            r#"<html><head><title>Home</title></head><body><a href="/deep">Deep</a></body></html>"#,
        )
        .page("/deep", &deep)
        .serve();
    let report = tempfile::tempdir().unwrap();
    audit(&server, report.path(), &[]).assert_success();

    let recorded = recorded(&report.path().join("crawl.db"), &server, "/deep").expect("some");
    let names: Vec<&str> = recorded
        .items
        .iter()
        .filter_map(|item| item.text("name"))
        .collect();
    assert_eq!(names, ["First"], "read up to the cut");
    let cut = recorded.tree_cut.expect("the cut is recorded");
    assert_eq!(cut.reason, sitemapper_extract::CutReason::Deep);

    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(report.path().join("report.json")).unwrap())
            .unwrap();
    let findings: Vec<&serde_json::Value> = json["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|finding| finding["kind"] == "structured-data-cut")
        .collect();
    assert_eq!(findings.len(), 1, "{findings:#?}");
    assert_eq!(findings[0]["url"], server.url("/deep"));
    assert_eq!(
        findings[0]["detail"],
        format!(
            "elements nest more than 512 deep: microdata after the first {} bytes is not read",
            cut.at_byte
        )
    );
}

#[test]
fn a_plain_crawl_reads_none_and_leaves_what_an_audit_recorded() {
    let server = site().serve();
    let report = tempfile::tempdir().unwrap();
    let state = report.path().join("crawl.db");
    audit(&server, report.path(), &[]).assert_success();
    let home = recorded(&state, &server, "/");
    assert!(home.is_some(), "the audit recorded the home page's");

    // The home page changes its JSON-LD; it has no validators: the crawl reads it again,
    // but not its structured data, and what the audit recorded stands.
    server.change(site().page("/", &HOME.replace("Acme", "Other")));
    let out = tempfile::tempdir().unwrap();
    let before = server.requests().len();
    crawl(
        &server.url("/"),
        out.path(),
        &["--state", state.to_str().unwrap()],
    )
    .assert_success();
    assert!(
        server.requests()[before..]
            .iter()
            .any(|seen| seen.target == "/")
    );
    assert_eq!(recorded(&state, &server, "/"), home);
}

#[test]
fn a_rendered_page_s_structured_data_is_its_rendered_dom_s() {
    let Some(browser) = crate::harness::chromium() else {
        return;
    };
    let server = Site::new()
        .page(
            "/",
            "<html><head><title>Event</title>\
             <script type=\"application/ld+json\">{\"@type\": \"Event\", \"name\": \"As served\"}</script>\
             <script>document.querySelector('script[type]').textContent = \
             JSON.stringify({'@type': 'Event', name: 'Rendered'});</script>\
             </head><body><p>Soon</p></body></html>",
        )
        .serve();
    let report = tempfile::tempdir().unwrap();
    let chrome = browser.to_str().unwrap();
    audit(
        &server,
        report.path(),
        &["--render", "always", "--chrome", chrome],
    )
    .assert_success();
    let data = recorded(&report.path().join("crawl.db"), &server, "/").expect("read");
    assert_eq!(data.items.len(), 1, "{data:?}");
    assert_eq!(data.items[0].text("name"), Some("Rendered"));
}
