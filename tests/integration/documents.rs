//! `--documents`: the PDF and office files a site links to, listed under their own URLs.
//! A link ending in a selected extension is asked with HEAD (a GET for its headers when HEAD
//! is refused or answers a page), listed by its headers' rules, revalidated with conditional
//! HEADs, and reported broken by the audit like a page.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

use crate::audit::findings;
use crate::fixture::{Route, Seen, Server, Site};
use crate::harness::{crawl, crawl_recorded, lastmods, sitemapper, summary_json};
use crate::schema::assert_all_valid;

const PDF: &str = "application/pdf";
const DOCX: &str = "application/vnd.openxmlformats-officedocument.wordprocessingml.document";
const XLSX: &str = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet";

/// A one-page PDF (ISO 32000-1 section 7.5: header, objects, cross-reference table, trailer),
/// its offsets counted.
fn tiny_pdf() -> Vec<u8> {
    let objects = [
        "<< /Type /Catalog /Pages 2 0 R >>",
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >>",
    ];
    let mut pdf = b"%PDF-1.4\n".to_vec();
    let mut offsets = Vec::new();
    for (number, object) in objects.iter().enumerate() {
        offsets.push(pdf.len());
        pdf.extend_from_slice(format!("{} 0 obj\n{object}\nendobj\n", number + 1).as_bytes());
    }
    let xref = pdf.len();
    pdf.extend_from_slice(
        format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).as_bytes(),
    );
    for offset in offsets {
        pdf.extend_from_slice(format!("{offset:010} 00000 n \n").as_bytes());
    }
    pdf.extend_from_slice(
        format!(
            "trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n",
            objects.len() + 1
        )
        .as_bytes(),
    );
    pdf
}

/// A one-paragraph Word document: the three parts ECMA-376 requires, zipped.
fn tiny_docx() -> Vec<u8> {
    let parts = [
        (
            "[Content_Types].xml",
            r#"<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>"#,
        ),
        (
            "_rels/.rels",
            r#"<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>"#,
        ),
        (
            "word/document.xml",
            r#"<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>A letter</w:t></w:r></w:p></w:body></w:document>"#,
        ),
    ];
    let mut archive = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for (name, text) in parts {
        archive
            .start_file(name, zip::write::SimpleFileOptions::default())
            .unwrap();
        archive.write_all(text.as_bytes()).unwrap();
    }
    archive.finish().unwrap().into_inner()
}

fn document(content_type: &str, body: Vec<u8>) -> Route {
    Route::new(200, "")
        .bytes(body)
        .header("Content-Type", content_type)
}

/// A site that links to documents of every kind of fate.
fn site() -> Server {
    let links = [
        "/files/report.pdf",
        "/files/letter.docx",
        "/files/private.pdf",
        "/files/moved.pdf",
        "/blocked/secret.pdf",
        "/files/missing.pdf",
        "/files/copy.pdf",
        "/files/fake.pdf",
        "/files/nohead.pdf",
        "/files/sheet.xlsx",
        "/download?id=7",
    ]
    .map(|link| format!("<a href=\"{link}\">{link}</a>"))
    .concat();
    Site::new()
        .route(
            "/robots.txt",
            Route::new(200, "User-agent: *\nDisallow: /blocked/\n")
                .header("Content-Type", "text/plain"),
        )
        .page("/", &format!("<title>Home</title>{links}"))
        .route(
            "/files/report.pdf",
            document(PDF, tiny_pdf())
                .header("Last-Modified", "Tue, 02 Jan 2024 03:04:05 GMT")
                .header("ETag", "\"report-1\""),
        )
        .route(
            "/files/letter.docx",
            document(DOCX, tiny_docx())
                .header("Last-Modified", "Wed, 03 Jan 2024 00:00:00 GMT")
                // Addressed to another crawler: not ours to obey.
                .header("X-Robots-Tag", "otherbot: noindex"),
        )
        .route(
            "/files/private.pdf",
            document(PDF, tiny_pdf()).header("X-Robots-Tag", "sitemapper: noindex"),
        )
        .route("/files/moved.pdf", Route::redirect(301, "/moved.html"))
        .page("/moved.html", "<title>Moved</title>")
        .route("/blocked/secret.pdf", document(PDF, tiny_pdf()))
        .route(
            "/files/copy.pdf",
            document(PDF, tiny_pdf())
                .header("Link", "<{origin}/files/report.pdf>; rel=\"canonical\""),
        )
        .page("/files/fake.pdf", "<title>Not a PDF</title>")
        .route(
            "/files/nohead.pdf",
            document(PDF, tiny_pdf())
                // In the future: no lastmod is invented from it.
                .header("Last-Modified", "Sun, 06 Nov 2094 08:49:37 GMT")
                .header("ETag", "\"nohead-1\""),
        )
        .route("/files/sheet.xlsx", document(XLSX, Vec::new()))
        .route(
            "/download?id=7",
            document(PDF, tiny_pdf()).header("Last-Modified", "Thu, 04 Jan 2024 12:00:00 GMT"),
        )
        .guarded(|seen| {
            (seen.method == "HEAD" && seen.target == "/files/nohead.pdf")
                .then(|| Route::new(405, ""))
        })
        .serve()
}

/// `(method, target) -> how many times`, of `requests`.
fn asked(requests: &[Seen]) -> BTreeMap<(String, String), usize> {
    let mut asked = BTreeMap::new();
    for seen in requests {
        *asked
            .entry((seen.method.clone(), seen.target.clone()))
            .or_default() += 1;
    }
    asked
}

fn expected_requests() -> BTreeMap<(String, String), usize> {
    [
        ("GET", "/robots.txt"),
        ("GET", "/"),
        ("HEAD", "/files/report.pdf"),
        ("HEAD", "/files/letter.docx"),
        ("HEAD", "/files/private.pdf"),
        ("HEAD", "/files/moved.pdf"),
        ("GET", "/moved.html"),
        ("HEAD", "/files/missing.pdf"),
        ("HEAD", "/files/copy.pdf"),
        // Answered HTML to HEAD: read as the page it is.
        ("HEAD", "/files/fake.pdf"),
        ("GET", "/files/fake.pdf"),
        // HEAD refused: asked with GET, whose body is not read.
        ("HEAD", "/files/nohead.pdf"),
        ("GET", "/files/nohead.pdf"),
        // Not a selected type: crawled as any link is.
        ("GET", "/files/sheet.xlsx"),
        // No extension: crawled as any link is, and a PDF all the same.
        ("GET", "/download?id=7"),
    ]
    .into_iter()
    .map(|(method, target)| ((method.to_string(), target.to_string()), 1))
    .collect()
}

/// `path -> lastmod` of the sitemap in `out`.
fn listed(out: &Path, server: &Server) -> BTreeMap<String, Option<String>> {
    lastmods(out)
        .into_iter()
        .map(|(loc, lastmod)| (loc.replace(&server.origin(), ""), lastmod))
        .collect()
}

fn expected_listing() -> BTreeMap<String, Option<String>> {
    [
        ("/", None),
        ("/download?id=7", Some("2024-01-04T12:00:00+00:00")),
        ("/files/fake.pdf", None),
        ("/files/letter.docx", Some("2024-01-03T00:00:00+00:00")),
        ("/files/nohead.pdf", None),
        ("/files/report.pdf", Some("2024-01-02T03:04:05+00:00")),
        ("/moved.html", None),
    ]
    .into_iter()
    .map(|(path, lastmod)| (path.to_string(), lastmod.map(str::to_string)))
    .collect()
}

#[test]
fn linked_documents_are_checked_with_head_and_listed_by_their_headers() {
    let server = site();
    let out = tempfile::tempdir().unwrap();
    let (run, _store) = crawl_recorded(
        &server.url("/"),
        out.path(),
        &["--documents", "pdf,docx", "--concurrency", "1"],
    );
    run.assert_success();
    assert_eq!(listed(out.path(), &server), expected_listing());
    assert_eq!(asked(&server.requests()), expected_requests());
    assert!(
        run.stderr.contains(
            "Documents: 4 listed (pdf 3, docx 1), 6 not listed: 1 noindex, 1 canonical elsewhere, \
             1 redirected, 1 broken, 1 disallowed by robots.txt, 1 answered HTML (crawled as a page)."
        ),
        "{}",
        run.stderr
    );
    assert_all_valid(out.path());

    // The next run revalidates each document with a conditional HEAD (or GET, where HEAD is
    // refused); the server's 304s keep what was recorded.
    let before = server.requests().len();
    let (again, store) = crawl_recorded(
        &server.url("/"),
        out.path(),
        &[
            "--documents",
            "pdf,docx",
            "--concurrency",
            "1",
            "--summary",
            "json",
        ],
    );
    again.assert_success();
    assert_eq!(
        summary_json(&again)["documents"],
        serde_json::json!({
            "listed": {"docx": 1, "pdf": 3},
            "not_listed": {
                "broken": 1, "canonical-elsewhere": 1, "html-page": 1, "noindex": 1,
                "redirected": 1, "robots-disallowed": 1
            }
        })
    );
    assert_eq!(listed(out.path(), &server), expected_listing());
    let requests = server.requests()[before..].to_vec();
    assert_eq!(asked(&requests), expected_requests());
    let validator = |method: &str, target: &str, header: &str| {
        requests
            .iter()
            .find(|seen| seen.method == method && seen.target == target)
            .and_then(|seen| seen.headers.get(header).cloned())
    };
    assert_eq!(
        validator("HEAD", "/files/report.pdf", "if-none-match").as_deref(),
        Some("\"report-1\"")
    );
    assert_eq!(
        validator("HEAD", "/files/letter.docx", "if-modified-since").as_deref(),
        Some("Wed, 03 Jan 2024 00:00:00 GMT")
    );
    assert_eq!(
        validator("GET", "/files/nohead.pdf", "if-none-match").as_deref(),
        Some("\"nohead-1\"")
    );
    for path in [
        "/files/report.pdf",
        "/files/letter.docx",
        "/files/nohead.pdf",
    ] {
        let page = store.page(&server.url(path)).unwrap().unwrap();
        assert!(page.revalidated, "{path} answered 304 and kept its record");
    }
}

#[test]
fn without_documents_nothing_changes() {
    let server = site();
    let out = tempfile::tempdir().unwrap();
    let run = crawl(
        &server.url("/"),
        out.path(),
        &["--concurrency", "1", "--summary", "json"],
    );
    run.assert_success();
    assert_eq!(summary_json(&run)["documents"], serde_json::Value::Null);
    let listed = listed(out.path(), &server);
    assert_eq!(
        listed.keys().map(String::as_str).collect::<Vec<_>>(),
        ["/", "/files/fake.pdf", "/moved.html"]
    );
    let requests = asked(&server.requests());
    assert!(
        requests.keys().all(|(method, _)| method == "GET"),
        "{requests:?}"
    );
}

#[test]
fn the_audit_reports_a_broken_document_link_with_its_referrer() {
    let server = site();
    let report = tempfile::tempdir().unwrap();
    let report_dir = report.path().to_str().unwrap();
    let seed = server.url("/");
    let run = sitemapper(&[
        "audit",
        &seed,
        "--report",
        report_dir,
        "--retries",
        "0",
        "--documents",
        "pdf,docx",
    ]);
    run.assert_success();
    let broken: Vec<(String, Vec<String>)> = findings(report.path(), &server)
        .into_iter()
        .filter(|(kind, _, _)| kind == "broken-link")
        .map(|(_, path, referrers)| (path, referrers))
        .collect();
    assert_eq!(
        broken,
        [("/files/missing.pdf".to_string(), vec!["/".to_string()])]
    );
    assert!(
        server
            .requests()
            .iter()
            .any(|seen| seen.method == "HEAD" && seen.target == "/files/missing.pdf"),
        "the broken document was checked with HEAD"
    );
}

#[test]
fn an_unknown_document_type_is_one_line_naming_the_accepted_ones() {
    let out = tempfile::tempdir().unwrap();
    let run = crawl(
        "http://127.0.0.1:9/",
        out.path(),
        &["--documents", "pdf,exe"],
    );
    crate::harness::assert_one_line_error(&run.stderr);
    assert!(
        run.stderr.contains(
            "\"exe\" is not a document type; accepted: pdf, doc, docx, xls, xlsx, ppt, pptx, odt, ods, odp, rtf"
        ),
        "{}",
        run.stderr
    );
}
