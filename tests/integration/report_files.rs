//! The report's files for spreadsheets and for CI: the CSV files' byte order mark and
//! pages.csv's link, title and word counts; report.xlsx read back (its sheets, frozen
//! headers, filters, links, numbers, and hostile page text stored as strings); the SARIF log
//! validated against the official schema (schemas/sarif/) and the JUnit report parsed back,
//! both written when `--fail-on` fails the run.

mod workbook;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde_json::Value;
use sitemapper_audit::{FindingKind, Severity};

use crate::audit::{HOSTILE, audit, csv_rows, hostile_site, report_json, troubled_site};
use crate::fixture::{Server, Site};
use crate::harness::repository_file;

use self::workbook::{XML, attribute, elements, read_workbook};

const BOM: &[u8] = b"\xEF\xBB\xBF";

const CSV_FILES: [&str; 3] = ["findings.csv", "pages.csv", "links.csv"];

/// Two pages whose words, titles and links are known.
fn counted_site() -> Server {
    Site::new()
        .page(
            "/",
            "<html><head><title>Café crème — the menu</title></head><body>\
             <h1>Café crème</h1><p>One two three. 你好</p><a href=\"/about\">About us</a>\
             <script>var notWords = 'not words either';</script></body></html>",
        )
        .page(
            "/about",
            "<html><head><title>About</title></head><body><p>We <i>bake</i> bread - daily.</p>\
             <a href=\"/\">Home</a><a href=\"/about\">Us</a></body></html>",
        )
        .serve()
}

#[test]
fn csv_files_start_with_a_byte_order_mark_unless_turned_off() {
    let server = counted_site();
    let report = tempfile::tempdir().unwrap();
    audit(&server, report.path(), &[]).assert_success();
    for name in CSV_FILES {
        let bytes = std::fs::read(report.path().join(name)).unwrap();
        assert!(bytes.starts_with(BOM), "{name} starts with a BOM");
        assert!(!bytes[3..].starts_with(BOM), "{name} has one BOM");
    }

    let rows = csv_rows(&report.path().join("pages.csv"));
    let row = |path: &str| {
        rows.iter()
            .find(|row| row["url"] == server.url(path))
            .unwrap_or_else(|| panic!("{path} in {rows:?}"))
    };
    let counts = |path: &str| {
        let row = row(path);
        ["inlinks", "outlinks", "title_length", "word_count"].map(|column| row[column].as_str())
    };
    // Café crème, One, two, three, 你, 好, About, us: the script is no text.
    assert_eq!(counts("/"), ["1", "1", "21", "9"]);
    // We, bake, bread, daily, Home, Us: a lone "-" is no word.
    assert_eq!(counts("/about"), ["2", "2", "5", "6"]);

    let off = tempfile::tempdir().unwrap();
    audit(&server, off.path(), &["--csv-bom=false"]).assert_success();
    let from_config = tempfile::tempdir().unwrap();
    let config = from_config.path().join("sitemapper.toml");
    std::fs::write(&config, "csv-bom = false\n").unwrap();
    audit(
        &server,
        from_config.path(),
        &["--config", config.to_str().unwrap()],
    )
    .assert_success();
    for directory in [off.path(), from_config.path()] {
        for name in CSV_FILES {
            let bytes = std::fs::read(directory.join(name)).unwrap();
            assert!(!bytes.starts_with(BOM), "{name} without a BOM");
        }
        let pages = std::fs::read_to_string(directory.join("pages.csv")).unwrap();
        assert!(pages.starts_with("url,status,"), "{pages}");
    }
}

#[test]
fn the_workbook_has_its_sheets_with_links_numbers_and_hostile_text_as_strings() {
    let server = hostile_site();
    let report = tempfile::tempdir().unwrap();
    audit(&server, report.path(), &[]).assert_success();
    let workbook = read_workbook(report.path());
    let names: Vec<&str> = workbook
        .sheets
        .iter()
        .map(|(name, _)| name.as_str())
        .collect();
    assert_eq!(
        names,
        ["Overview", "Findings", "Pages", "Links", "Outbound"]
    );

    for (name, sheet) in &workbook.sheets {
        assert_eq!(
            sheet.frozen_rows.as_deref(),
            Some("1"),
            "{name}: header frozen"
        );
        assert!(sheet.filter.is_some(), "{name}: a filter on the header");
        assert_eq!(sheet.formulas, 0, "{name}: no formula anywhere");
    }

    let pages = workbook.sheet("Pages");
    assert_eq!(
        pages.header()[..12],
        [
            "url",
            "status",
            "verdict",
            "reason",
            "depth",
            "title",
            "title_length",
            "word_count",
            "inlinks",
            "outlinks",
            "bytes",
            "elapsed_ms"
        ]
    );
    assert!(pages.filter.as_deref().unwrap().starts_with("A1:L"));
    let hostile_url = server.url("/hostile/0/first");
    let row = pages.row_of(&hostile_url);
    assert_eq!(
        pages.links.get(&format!("A{row}")),
        Some(&hostile_url),
        "the URL is a link"
    );
    // A number: no type attribute, the value itself.
    assert_eq!(pages.cells[&format!("B{row}")], (None, "200".to_string()));
    assert_eq!(pages.cells[&format!("E{row}")], (None, "1".to_string()));
    // The hostile title, a formula in a spreadsheet's eyes, is a string as written.
    assert_eq!(
        pages.cells[&format!("F{row}")],
        (
            Some("inlineStr".to_string()),
            HOSTILE[0].recorded.to_string()
        )
    );
    for (index, hostile) in HOSTILE.iter().enumerate() {
        let row = pages.row_of(&server.url(&format!("/hostile/{index}/first")));
        assert_eq!(pages.text(&format!("F{row}")), hostile.recorded);
    }

    let findings = workbook.sheet("Findings");
    assert_eq!(
        findings.header(),
        [
            "severity",
            "priority",
            "kind",
            "title",
            "change",
            "url",
            "detail",
            "referrers"
        ]
    );
    assert!(!findings.links.is_empty(), "finding URLs are links");

    let links = workbook.sheet("Links");
    assert_eq!(
        links.header(),
        ["source", "target", "kind", "anchor", "nofollow"]
    );
    assert!(
        links
            .cells
            .values()
            .any(|(kind, _)| kind.as_deref() == Some("b"))
    );

    let overview = workbook.sheet("Overview");
    let value = |item: &str| {
        let row = overview.row_of(item);
        overview.cells[&format!("B{row}")].clone()
    };
    assert_eq!(value("site"), (Some("s".to_string()), server.url("/")));
    assert_eq!(value("pages crawled").0, None, "a number");
    assert!(value("score").1.parse::<u32>().is_ok());
    // The report's first page: what to fix first, and how the audit was made.
    assert!(
        value("fix first 1").1.contains(" points, "),
        "{:?}",
        value("fix first 1")
    );
    assert!(value("user agent").1.contains("sitemapper"));
    assert!(!value("limits").1.is_empty());
    assert_eq!(
        overview.header()[2..],
        [
            "code", "title", "severity", "priority", "count", "new", "fixed"
        ]
    );
    assert!(
        overview
            .cells
            .values()
            .any(|(_, text)| text == "duplicate-title")
    );
}

/// The findings of report.json as `(kind, url)`.
fn findings_of(report: &Path) -> BTreeSet<(String, String)> {
    let json = report_json(report);
    json["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|finding| {
            (
                finding["kind"].as_str().unwrap().to_string(),
                finding["url"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// `log` checked against the official SARIF 2.1.0 schema (draft-07), formats asserted.
fn sarif_validation(log: &Value) -> Result<(), String> {
    let path = repository_file("schemas/sarif/sarif-schema-2.1.0.json");
    let schema: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let mut schemas = boon::Schemas::new();
    let mut compiler = boon::Compiler::new();
    compiler.enable_format_assertions();
    compiler
        .add_resource("sarif-schema-2.1.0.json", schema)
        .unwrap();
    let index = compiler
        .compile("sarif-schema-2.1.0.json", &mut schemas)
        .unwrap();
    schemas
        .validate(log, index)
        .map_err(|error| format!("{error:#}"))
}

fn assert_valid_sarif(log: &Value) {
    if let Err(error) = sarif_validation(log) {
        panic!("the SARIF log is not valid: {error}");
    }
}

#[test]
fn the_schema_refuses_a_log_that_is_not_sarif() {
    let valid = serde_json::json!({
        "version": "2.1.0",
        "runs": [{
            "tool": { "driver": { "name": "sitemapper" } },
            "results": [{
                "ruleId": "broken-link",
                "level": "error",
                "message": { "text": "Broken" },
                "locations": [{ "physicalLocation": { "artifactLocation": { "uri": "https://e.com/a" } } }],
            }],
        }],
    });
    assert_valid_sarif(&valid);
    for (pointer, wrong) in [
        ("/runs/0/results/0/level", serde_json::json!("fatal")),
        (
            "/runs/0/results/0/locations/0/physicalLocation/artifactLocation/uri",
            serde_json::json!("<not a uri>"),
        ),
        ("/version", serde_json::json!("2.0.0")),
    ] {
        let mut log = valid.clone();
        *log.pointer_mut(pointer).unwrap() = wrong;
        assert!(sarif_validation(&log).is_err(), "{pointer} is checked");
    }
}

fn severity_level(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Notice | Severity::Info => "note",
    }
}

#[test]
fn sarif_is_valid_with_a_rule_per_kind_and_a_result_per_finding_even_when_the_run_fails() {
    let server = troubled_site();
    let report = tempfile::tempdir().unwrap();
    let sarif_path = report.path().join("audit.sarif");
    let sarif = sarif_path.to_str().unwrap();
    let run = audit(
        &server,
        report.path(),
        &["--sarif", sarif, "--fail-on", "error"],
    );
    assert_eq!(run.code, 4, "{}", run.stderr);
    let log: Value = serde_json::from_str(&std::fs::read_to_string(&sarif_path).unwrap()).unwrap();
    assert_valid_sarif(&log);

    let driver = &log["runs"][0]["tool"]["driver"];
    assert_eq!(driver["name"], "sitemapper");
    assert!(driver["version"].is_string());
    let rules = driver["rules"].as_array().unwrap();
    assert_eq!(
        rules.len(),
        FindingKind::ALL.len(),
        "every kind, findings or not"
    );
    for (rule, kind) in rules.iter().zip(FindingKind::ALL) {
        assert_eq!(rule["id"], kind.code());
        assert_eq!(rule["shortDescription"]["text"], kind.title());
        assert_eq!(
            rule["defaultConfiguration"]["level"],
            severity_level(kind.severity())
        );
        let help = rule["help"]["text"].as_str().unwrap();
        assert!(
            help.contains(kind.why()) && help.contains(kind.fix()),
            "{help}"
        );
    }

    let results = log["runs"][0]["results"].as_array().unwrap();
    let found: BTreeSet<(String, String)> = results
        .iter()
        .map(|result| {
            (
                result["ruleId"].as_str().unwrap().to_string(),
                result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                    .as_str()
                    .unwrap()
                    .to_string(),
            )
        })
        .collect();
    assert_eq!(found, findings_of(report.path()), "a result per finding");
    assert_eq!(results.len(), findings_of(report.path()).len());
    let broken = results
        .iter()
        .find(|result| {
            result["ruleId"] == "broken-link"
                && result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                    == server.url("/broken")
        })
        .expect("the broken link");
    assert_eq!(broken["level"], "error");
    let text = broken["message"]["text"].as_str().unwrap();
    assert!(text.starts_with(FindingKind::BrokenLink.title()), "{text}");
    let related: BTreeSet<&str> = broken["relatedLocations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|location| {
            location["physicalLocation"]["artifactLocation"]["uri"]
                .as_str()
                .unwrap()
        })
        .collect();
    assert_eq!(
        related,
        BTreeSet::from([server.url("/").as_str(), server.url("/about").as_str()])
    );
    let fingerprints = |log: &Value| -> BTreeMap<String, String> {
        log["runs"][0]["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|result| {
                (
                    format!(
                        "{} {}",
                        result["ruleId"].as_str().unwrap(),
                        result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                    ),
                    result["partialFingerprints"]["sitemapperFinding/v1"]
                        .as_str()
                        .unwrap()
                        .to_string(),
                )
            })
            .collect()
    };

    // The next run's results keep their fingerprints, so code scanning tracks them.
    let run = audit(&server, report.path(), &["--sarif", sarif]);
    run.assert_success();
    let again: Value =
        serde_json::from_str(&std::fs::read_to_string(&sarif_path).unwrap()).unwrap();
    let (first, second) = (fingerprints(&log), fingerprints(&again));
    let shared: Vec<&String> = first
        .keys()
        .filter(|key| second.contains_key(*key))
        .collect();
    assert!(shared.len() > 10, "{first:?}");
    for key in shared {
        assert_eq!(first[key], second[key], "{key}");
    }
}

#[test]
fn sarif_of_hostile_text_is_valid_and_exact() {
    let server = hostile_site();
    let report = tempfile::tempdir().unwrap();
    let sarif_path = report.path().join("audit.sarif");
    audit(
        &server,
        report.path(),
        &["--sarif", sarif_path.to_str().unwrap()],
    )
    .assert_success();
    let log: Value = serde_json::from_str(&std::fs::read_to_string(&sarif_path).unwrap()).unwrap();
    assert_valid_sarif(&log);
    let messages: Vec<&str> = log["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|result| result["message"]["text"].as_str().unwrap())
        .collect();
    for hostile in &HOSTILE {
        assert!(
            messages.iter().any(|text| text.contains(hostile.recorded)),
            "{:?} in {messages:?}",
            hostile.recorded
        );
    }
}

/// A test case of the JUnit report: its name, class, and failure or output.
#[derive(Debug, Default)]
struct TestCase {
    name: String,
    class: String,
    failure: Option<(String, String)>,
    output: Option<String>,
}

/// The `testsuite` element's attributes and its test cases.
fn read_junit(path: &Path) -> (BTreeMap<String, String>, Vec<TestCase>) {
    let xml = std::fs::read_to_string(path).unwrap();
    let found = elements(&xml);
    assert_eq!(found[0].0, "testsuites", "{xml}");
    let suites: Vec<_> = found
        .iter()
        .filter(|(name, _, _)| name == "testsuite")
        .collect();
    assert_eq!(suites.len(), 1, "one test suite");
    let suite: BTreeMap<String, String> = suites[0]
        .1
        .attributes()
        .map(|attribute| {
            let attribute = attribute.unwrap();
            (
                attribute.key.as_ref().to_string(),
                attribute.normalized_value(XML).unwrap().into_owned(),
            )
        })
        .collect();
    let mut cases: Vec<TestCase> = Vec::new();
    for (name, element, text) in &found {
        match name.as_str() {
            "testcase" => cases.push(TestCase {
                name: attribute(element, "name").unwrap(),
                class: attribute(element, "classname").unwrap(),
                ..TestCase::default()
            }),
            "failure" => {
                cases.last_mut().unwrap().failure =
                    Some((attribute(element, "message").unwrap(), text.clone()));
            }
            "system-out" => cases.last_mut().unwrap().output = Some(text.clone()),
            _ => {}
        }
    }
    (suite, cases)
}

/// kind -> its URLs, sorted, of report.json's findings.
fn urls_by_kind(report: &Path) -> BTreeMap<String, Vec<String>> {
    let mut by_kind: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (kind, url) in findings_of(report) {
        by_kind.entry(kind).or_default().push(url);
    }
    by_kind
}

#[test]
fn junit_has_a_test_case_per_kind_failed_at_the_fail_on_level() {
    let server = troubled_site();
    let report = tempfile::tempdir().unwrap();
    let junit_path = report.path().join("junit.xml");
    let junit = junit_path.to_str().unwrap();
    let run = audit(
        &server,
        report.path(),
        &["--junit", junit, "--fail-on", "warning"],
    );
    assert_eq!(run.code, 4, "{}", run.stderr);
    let found = urls_by_kind(report.path());
    let severity_of = |code: &str| {
        FindingKind::ALL
            .into_iter()
            .find(|kind| kind.code() == code)
            .unwrap()
            .severity()
    };

    let check = |failing: Severity| {
        let (suite, cases) = read_junit(&junit_path);
        let names: Vec<&str> = cases.iter().map(|case| case.name.as_str()).collect();
        let codes: Vec<&str> = FindingKind::ALL.iter().map(|kind| kind.code()).collect();
        assert_eq!(names, codes, "a test case per kind");
        let failed: BTreeSet<&str> = cases
            .iter()
            .filter(|case| case.failure.is_some())
            .map(|case| case.name.as_str())
            .collect();
        let expected: BTreeSet<&str> = found
            .keys()
            .filter(|code| severity_of(code) <= failing)
            .map(String::as_str)
            .collect();
        assert!(!expected.is_empty());
        assert_eq!(failed, expected);
        assert_eq!(suite["tests"], codes.len().to_string());
        assert_eq!(suite["failures"], expected.len().to_string());
        for case in &cases {
            let urls = found.get(&case.name);
            let listed = urls.map(|urls| urls.join("\n"));
            assert!(case.class.starts_with("sitemapper.audit."), "{case:?}");
            match (&case.failure, &case.output) {
                (Some((message, text)), None) => {
                    let count = urls.unwrap().len();
                    let noun = if count == 1 { "URL" } else { "URLs" };
                    assert!(
                        message.contains(&format!("{count} {noun} at {}", failing.as_str())),
                        "{message}"
                    );
                    assert_eq!(Some(text), listed.as_ref());
                }
                (None, Some(output)) => assert_eq!(Some(output), listed.as_ref()),
                (None, None) => assert!(urls.is_none(), "{case:?}"),
                (Some(_), Some(_)) => panic!("{case:?}"),
            }
        }
    };
    check(Severity::Warning);

    // Without --fail-on, errors fail and the others pass with their URLs.
    audit(&server, report.path(), &["--junit", junit]).assert_success();
    check(Severity::Error);
}

#[test]
fn junit_of_hostile_urls_parses_back_to_them() {
    let server = hostile_site();
    let report = tempfile::tempdir().unwrap();
    let junit_path = report.path().join("junit.xml");
    audit(
        &server,
        report.path(),
        &[
            "--junit",
            junit_path.to_str().unwrap(),
            "--fail-on",
            "notice",
        ],
    );
    let (_, cases) = read_junit(&junit_path);
    let found = urls_by_kind(report.path());
    let hostile_urls: Vec<&String> = found
        .values()
        .flatten()
        .filter(|url| {
            HOSTILE
                .iter()
                .any(|hostile| hostile.recorded == url.as_str())
        })
        .collect();
    assert!(!hostile_urls.is_empty(), "{found:?}");
    for case in cases {
        if let Some((_, text)) = case.failure {
            assert_eq!(text, found[&case.name].join("\n"));
        }
    }
}

#[test]
fn a_sarif_or_junit_file_that_cannot_be_written_stops_the_audit_before_any_request() {
    let server = counted_site();
    let report = tempfile::tempdir().unwrap();
    for option in ["--sarif", "--junit"] {
        let missing = report.path().join("missing").join("findings.out");
        let run = audit(&server, report.path(), &[option, missing.to_str().unwrap()]);
        assert_eq!(run.code, 2, "{}", run.stderr);
        assert!(
            run.stderr.contains(option) && run.stderr.contains("missing"),
            "{}",
            run.stderr
        );
    }
    assert!(server.requests().is_empty(), "{:?}", server.requests());
}
