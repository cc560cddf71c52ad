//! `--sarif FILE`: the findings as a SARIF 2.1.0 log (OASIS, "Static Analysis Results
//! Interchange Format Version 2.1.0"), for GitHub code scanning and other SARIF viewers.
//!
//! Every kind of finding is a rule, present or not, so that a rule's index and id (the
//! kind's code) stay the same from run to run; its level follows the kind's severity
//! (section 3.27.10: error, warning, note). Each finding is a result located at its page's
//! URL, with the pages linking to it as related locations, and a partial fingerprint of its
//! kind and URL (section 3.27.17) by which a viewer knows it again in the next run.

use std::path::Path;

use serde_json::{Value, json};
use sitemapper_audit::{Finding, FindingKind, Severity};

use crate::error::ReportError;

/// The schema a SARIF 2.1.0 log names (section 3.13.3).
const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

/// The partial fingerprint's name: ours, versioned, so that another way of computing it
/// would take another name (section 3.27.17).
const FINGERPRINT: &str = "sitemapperFinding/v1";

/// A SARIF level: `error`, `warning` or `note` (section 3.27.10).
fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Notice | Severity::Info => "note",
    }
}

/// The SARIF log of `findings`, by kind in the order of [`FindingKind::ALL`], then by URL.
pub(crate) fn sarif_log(findings: &[Finding]) -> Value {
    let rules: Vec<Value> = FindingKind::ALL.iter().map(|kind| rule(*kind)).collect();
    let mut ordered: Vec<&Finding> = findings.iter().collect();
    ordered.sort_by_key(|finding| (rule_index(finding.kind), &finding.url, &finding.detail));
    let results: Vec<Value> = ordered.into_iter().map(result).collect();
    json!({
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {
                "driver": {
                    "name": "sitemapper",
                    "version": env!("CARGO_PKG_VERSION"),
                    "rules": rules,
                }
            },
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    })
}

/// A kind of finding as a rule: its code, title, advice and level.
fn rule(kind: FindingKind) -> Value {
    let help = format!("{}\n\nHow to fix it: {}", kind.why(), kind.fix());
    json!({
        "id": kind.code(),
        "shortDescription": { "text": kind.title() },
        "fullDescription": { "text": kind.why() },
        "help": { "text": help },
        "defaultConfiguration": { "level": level(kind.severity()) },
        "properties": { "tags": ["seo", kind.severity().as_str()] },
    })
}

/// Where `kind` stands in the rules.
fn rule_index(kind: FindingKind) -> usize {
    FindingKind::ALL
        .iter()
        .position(|each| *each == kind)
        .unwrap_or(usize::MAX)
}

fn location(url: &str) -> Value {
    json!({ "physicalLocation": { "artifactLocation": { "uri": artifact_uri(url) } } })
}

/// A finding's URL as an artifact's URI, which must be a valid URI reference (section
/// 3.4.3): a URL as the URL parser writes it; text that is not one (a sitemap's `<loc>` can
/// hold anything) percent-encoded whole, so that it stays what it was and can break nothing.
fn artifact_uri(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(parsed) => parsed.to_string(),
        Err(_) => percent_encoding::utf8_percent_encode(url, percent_encoding::NON_ALPHANUMERIC)
            .to_string(),
    }
}

/// One finding as a result.
fn result(finding: &Finding) -> Value {
    let kind = finding.kind;
    let text = if finding.detail.is_empty() {
        format!("{}: {}", kind.title(), finding.url)
    } else {
        format!("{}: {} ({})", kind.title(), finding.url, finding.detail)
    };
    let mut result = json!({
        "ruleId": kind.code(),
        "ruleIndex": rule_index(kind),
        "level": level(kind.severity()),
        "message": { "text": text },
        "locations": [location(&finding.url)],
        "partialFingerprints": { FINGERPRINT: fingerprint(kind, &finding.url) },
    });
    if !finding.referrers.is_empty() {
        let related: Vec<Value> = (0u64..)
            .zip(&finding.referrers)
            .map(|(id, referrer)| {
                let mut related = location(referrer);
                related["id"] = json!(id);
                related["message"] = json!({ "text": "links to it" });
                related
            })
            .collect();
        result["relatedLocations"] = Value::Array(related);
    }
    result
}

/// A stable hash of the finding's kind and URL, in hex: the same in every run and release
/// (XXH3, whose output its specification fixes).
fn fingerprint(kind: FindingKind, url: &str) -> String {
    let key = format!("{}\n{url}", kind.code());
    format!("{:016x}", xxhash_rust::xxh3::xxh3_64(key.as_bytes()))
}

/// Writes the SARIF log of `findings` to `path`.
pub(crate) fn write_sarif(findings: &[Finding], path: &Path) -> Result<(), ReportError> {
    super::new_file::write_new(path, |file| {
        let mut writer = std::io::BufWriter::new(file);
        serde_json::to_writer_pretty(&mut writer, &sarif_log(findings))?;
        Ok(std::io::Write::flush(&mut writer)?)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fingerprint_depends_on_the_kind_and_url_only() {
        let first = fingerprint(FindingKind::BrokenLink, "https://e.com/a");
        assert_eq!(
            first,
            fingerprint(FindingKind::BrokenLink, "https://e.com/a")
        );
        assert_eq!(first.len(), 16);
        // Pinned: code scanning matches this run's results with earlier runs' by it.
        assert_eq!(first, "5eb3ec03e3ac126c");
        assert_ne!(
            first,
            fingerprint(FindingKind::BrokenLink, "https://e.com/b")
        );
        assert_ne!(
            first,
            fingerprint(FindingKind::RedirectChain, "https://e.com/a")
        );
    }

    #[test]
    fn text_that_is_no_url_is_percent_encoded_into_a_uri() {
        assert_eq!(artifact_uri("https://e.com/a b?c"), "https://e.com/a%20b?c");
        assert_eq!(artifact_uri("]]> <b>"), "%5D%5D%3E%20%3Cb%3E");
    }

    #[test]
    fn every_kind_is_a_rule_in_the_order_of_the_kinds() {
        let log = sarif_log(&[]);
        let rules = log["runs"][0]["tool"]["driver"]["rules"]
            .as_array()
            .unwrap();
        assert_eq!(rules.len(), FindingKind::ALL.len());
        for (rule, kind) in rules.iter().zip(FindingKind::ALL) {
            assert_eq!(rule["id"], kind.code());
            assert_eq!(rule["shortDescription"]["text"], kind.title());
        }
        assert_eq!(log["runs"][0]["results"], json!([]));
    }
}
