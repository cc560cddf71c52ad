//! `--junit FILE`: the findings as a JUnit XML test report, which CI services show as test
//! results. One test suite, the audit; one test case per kind of finding, every kind, named
//! by its code so that a CI's history of a test follows the kind from run to run. A kind
//! with findings at the failing level or worse (`--fail-on`, else errors) fails, its
//! message the count and its text the URLs; a kind with findings below that level passes,
//! its URLs in `system-out`.
//!
//! The form is the one Ant's JUnit task writes and CI services read (`testsuites`,
//! `testsuite`, `testcase`, `failure`, `system-out`). Every attribute and text goes through
//! quick-xml's escaping, and characters XML 1.0 does not allow (section 2.2, `Char`) become
//! U+FFFD: URLs and details come from the site.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::path::Path;

use quick_xml::Writer;
use quick_xml::events::{BytesDecl, BytesEnd, BytesStart, BytesText, Event};
use sitemapper_audit::{Finding, FindingKind, Severity};

use crate::error::ReportError;

/// The name of the test suite and the prefix of its test cases' class names.
const SUITE: &str = "sitemapper audit";

/// Writes the JUnit report of `findings` for `site` to `path`: a kind with findings at
/// `failing` or worse fails.
pub(crate) fn write_junit(
    findings: &[Finding],
    site: &str,
    failing: Severity,
    path: &Path,
) -> Result<(), ReportError> {
    let xml =
        junit_xml(findings, site, failing).map_err(|error| ReportError::write(path, error))?;
    super::new_file::write_bytes(path, &xml)
}

/// One kind's URLs, sorted and each once.
type UrlsByKind<'a> = BTreeMap<FindingKind, Vec<&'a str>>;

/// The JUnit XML document of `findings`.
pub(crate) fn junit_xml(
    findings: &[Finding],
    site: &str,
    failing: Severity,
) -> Result<Vec<u8>, std::io::Error> {
    let mut urls: UrlsByKind<'_> = BTreeMap::new();
    for finding in findings {
        urls.entry(finding.kind).or_default().push(&finding.url);
    }
    for list in urls.values_mut() {
        list.sort_unstable();
        list.dedup();
    }
    let fails = |kind: FindingKind| kind.severity() <= failing && urls.contains_key(&kind);
    let tests = FindingKind::ALL.len().to_string();
    let failures = FindingKind::ALL
        .iter()
        .filter(|kind| fails(**kind))
        .count()
        .to_string();
    let suite_name = format!("{SUITE} of {site}");
    let counts = [
        ("tests", tests.as_str()),
        ("failures", failures.as_str()),
        ("errors", "0"),
        ("time", "0"),
    ];

    let mut writer = Writer::new_with_indent(Vec::new(), b' ', 2);
    writer.write_event(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)))?;
    let mut suites = BytesStart::new("testsuites");
    suites.push_attribute(("name", SUITE));
    suites.extend_attributes(counts);
    writer.write_event(Event::Start(suites))?;
    let mut suite = BytesStart::new("testsuite");
    suite.push_attribute(("name", xml_text(&suite_name).as_ref()));
    suite.extend_attributes(counts);
    suite.push_attribute(("skipped", "0"));
    writer.write_event(Event::Start(suite))?;
    for kind in FindingKind::ALL {
        let listed = urls.get(&kind).map(Vec::as_slice).unwrap_or_default();
        test_case(&mut writer, kind, listed, fails(kind).then_some(failing))?;
    }
    writer.write_event(Event::End(BytesEnd::new("testsuite")))?;
    writer.write_event(Event::End(BytesEnd::new("testsuites")))?;
    let mut xml = writer.into_inner();
    xml.push(b'\n');
    Ok(xml)
}

/// One kind's test case: failed (at the `failing` level) with its URLs, passed with them in
/// `system-out`, or passed empty.
fn test_case(
    writer: &mut Writer<Vec<u8>>,
    kind: FindingKind,
    urls: &[&str],
    failing: Option<Severity>,
) -> Result<(), std::io::Error> {
    let class = format!("sitemapper.audit.{}", kind.severity().as_str());
    let mut case = BytesStart::new("testcase");
    case.push_attribute(("name", kind.code()));
    case.push_attribute(("classname", class.as_str()));
    case.push_attribute(("time", "0"));
    if urls.is_empty() {
        writer.write_event(Event::Empty(case))?;
        return Ok(());
    }
    writer.write_event(Event::Start(case))?;
    let listed = xml_text(&urls.join("\n")).into_owned();
    match failing {
        Some(level) => {
            let message = format!(
                "{}: {} at {} level or worse",
                kind.title(),
                sitemapper_site::count(urls.len(), "URL"),
                level.as_str()
            );
            let mut failure = BytesStart::new("failure");
            failure.push_attribute(("message", message.as_str()));
            failure.push_attribute(("type", kind.code()));
            writer.write_event(Event::Start(failure))?;
            writer.write_event(Event::Text(BytesText::new(&listed)))?;
            writer.write_event(Event::End(BytesEnd::new("failure")))?;
        }
        None => {
            writer.write_event(Event::Start(BytesStart::new("system-out")))?;
            writer.write_event(Event::Text(BytesText::new(&listed)))?;
            writer.write_event(Event::End(BytesEnd::new("system-out")))?;
        }
    }
    writer.write_event(Event::End(BytesEnd::new("testcase")))?;
    Ok(())
}

/// `text` with the characters XML 1.0 does not allow replaced by U+FFFD.
fn xml_text(text: &str) -> Cow<'_, str> {
    let allowed = |character: char| {
        matches!(character, '\t' | '\n' | '\r')
            || matches!(character, '\u{20}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..)
    };
    if text.chars().all(allowed) {
        Cow::Borrowed(text)
    } else {
        Cow::Owned(
            text.chars()
                .map(|character| {
                    if allowed(character) {
                        character
                    } else {
                        '\u{FFFD}'
                    }
                })
                .collect(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn characters_xml_does_not_allow_are_replaced() {
        assert_eq!(xml_text("a\tb\nc"), "a\tb\nc");
        assert_eq!(xml_text("a\u{1}b\u{FFFE}c"), "a\u{FFFD}b\u{FFFD}c");
    }
}
