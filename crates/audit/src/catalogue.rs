//! The catalogue of kinds in docs/audit.md, made from [`FindingKind::ALL`]: a test keeps the
//! document equal to it (`SITEMAPPER_WRITE_CATALOGUE=1` writes it).

use crate::finding::{THRESHOLD_OPTIONS, Thresholds};
use crate::kind::{Category, FindingKind};

/// The line the catalogue starts after in docs/audit.md.
pub const CATALOGUE_START: &str =
    "<!-- The catalogue is made from the code's list of kinds: do not edit it by hand. -->";
/// The line the catalogue ends before in docs/audit.md.
pub const CATALOGUE_END: &str = "<!-- End of the catalogue. -->";

/// The line the table of thresholds starts after in docs/audit.md.
pub const THRESHOLDS_START: &str =
    "<!-- The thresholds are made from the code's list: do not edit them by hand. -->";
/// The line the table of thresholds ends before in docs/audit.md.
pub const THRESHOLDS_END: &str = "<!-- End of the thresholds. -->";

/// The thresholds `--threshold NAME=VALUE` sets, with their defaults and ranges, in Markdown.
pub fn thresholds_table() -> String {
    let defaults = Thresholds::default();
    let mut text =
        String::from("| name | default | range | what it limits |\n| --- | --- | --- | --- |\n");
    for option in &THRESHOLD_OPTIONS {
        text.push_str(&format!(
            "| `{}` | {} | {} to {} | {} |\n",
            option.name,
            option.value(&defaults),
            option.min,
            option.max,
            option.meaning
        ));
    }
    text
}

/// The catalogue, in Markdown: the number of kinds, then a table per category with each
/// kind's code, severity, title, why it matters and how to fix it.
pub fn catalogue() -> String {
    let mut text = format!(
        "{} kinds of finding in {} categories.\n",
        FindingKind::ALL.len(),
        Category::ALL.len()
    );
    for category in Category::ALL {
        let kinds: Vec<FindingKind> = FindingKind::ALL
            .into_iter()
            .filter(|kind| kind.category() == category)
            .collect();
        if kinds.is_empty() {
            continue;
        }
        text.push_str(&format!(
            "\n### {} ({})\n\n| code | severity | title | why it matters | how to fix it |\n| --- | --- | --- | --- | --- |\n",
            category.title(),
            kinds.len()
        ));
        for kind in kinds {
            text.push_str(&format!(
                "| `{}` | {} | {} | {} | {} |\n",
                kind.code(),
                kind.severity().as_str(),
                markdown(kind.title()),
                markdown(kind.why()),
                markdown(kind.fix()),
            ));
        }
    }
    text
}

/// `text` for a Markdown table cell: an element name such as `<title>` in code, so that it
/// shows, and `|` escaped.
fn markdown(text: &str) -> String {
    let mut cell = String::with_capacity(text.len());
    let mut in_code = false;
    let mut rest = text;
    while let Some(character) = rest.chars().next() {
        if character == '`' {
            in_code = !in_code;
        }
        if character == '<'
            && !in_code
            && let Some(end) = rest.find('>')
            && rest[1..]
                .starts_with(|next: char| next.is_ascii_alphabetic() || next == '!' || next == '/')
            && !rest[1..end].contains('<')
        {
            cell.push('`');
            cell.push_str(&rest[..=end]);
            cell.push('`');
            rest = &rest[end + 1..];
            continue;
        }
        if character == '|' {
            cell.push('\\');
        }
        cell.push(character);
        rest = &rest[character.len_utf8()..];
    }
    cell
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn element_names_show_as_code_and_bars_are_escaped() {
        assert_eq!(markdown("Missing <title>"), "Missing `<title>`");
        assert_eq!(
            markdown("`<meta name=\"x\">` a|b"),
            "`<meta name=\"x\">` a\\|b"
        );
        assert_eq!(markdown("less < more"), "less < more");
        assert_eq!(
            markdown("Add <meta name=\"viewport\" content=\"x\"> to it"),
            "Add `<meta name=\"viewport\" content=\"x\">` to it"
        );
    }

    /// Asserts that docs/audit.md holds `made` between `start` and `end` (or writes it there
    /// with `SITEMAPPER_WRITE_CATALOGUE=1`).
    fn assert_generated(start: &str, end: &str, made: &str) {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/audit.md");
        let document = std::fs::read_to_string(path).expect("docs/audit.md");
        let from = document.find(start).expect("the start line") + start.len();
        let to = document.find(end).expect("the end line");
        let written = document[from..to].trim();
        if written != made.trim() && std::env::var_os("SITEMAPPER_WRITE_CATALOGUE").is_some() {
            let updated = format!(
                "{}\n\n{}\n{}",
                &document[..from],
                made.trim(),
                &document[to..]
            );
            std::fs::write(path, updated).expect("docs/audit.md written");
            return;
        }
        assert_eq!(
            written,
            made.trim(),
            "docs/audit.md differs from the code: run this test with SITEMAPPER_WRITE_CATALOGUE=1"
        );
    }

    #[test]
    fn docs_audit_md_holds_the_catalogue_of_the_code() {
        assert_generated(CATALOGUE_START, CATALOGUE_END, &catalogue());
    }

    #[test]
    fn docs_audit_md_holds_the_thresholds_of_the_code() {
        assert_generated(THRESHOLDS_START, THRESHOLDS_END, &thresholds_table());
    }

    #[test]
    fn there_are_at_least_ninety_kinds_each_with_a_code_of_its_own() {
        let codes: std::collections::BTreeSet<&str> =
            FindingKind::ALL.iter().map(|kind| kind.code()).collect();
        assert_eq!(codes.len(), FindingKind::ALL.len());
        assert!(
            FindingKind::ALL.len() >= 90,
            "{} kinds",
            FindingKind::ALL.len()
        );
    }
}
