//! What a page says on itself: its title, description and headings, its images' alt text,
//! what it loads over http, and whether it is an error page in disguise.

use sitemapper_store::{PageRecord, Verdict};

use crate::finding::{Finding, Thresholds, finding};
use crate::kind::FindingKind;

/// Words that, in a page's title or main heading, say the page was not found. Matched in
/// lower case; "404" only as a number of its own.
const NOT_FOUND_PHRASES: &[&str] = &[
    "not found",
    "page does not exist",
    "page doesn't exist",
    "page no longer exists",
    "page cannot be found",
    "page can't be found",
    "page could not be found",
    "no longer available",
];

/// The on-page findings of one HTML page that answered 200: mixed content on any; the
/// others on listed pages only (what is not listed does not show in search results).
pub(crate) fn check(page: &PageRecord, thresholds: &Thresholds, findings: &mut Vec<Finding>) {
    let details = page.details.as_ref();
    if let Some(details) = details
        && !details.insecure_resources.is_empty()
    {
        findings.push(finding(
            FindingKind::MixedContent,
            &page.url,
            format!("loads {}", details.insecure_resources.join(" ")),
        ));
    }
    if page.verdict != Verdict::Indexable {
        return;
    }
    let title = page.title.as_deref().map(trim_spaces).unwrap_or_default();
    let title_chars = title.chars().count();
    if title.is_empty() {
        findings.push(finding(FindingKind::MissingTitle, &page.url, String::new()));
    } else if title_chars > thresholds.title_max_chars {
        findings.push(finding(
            FindingKind::TitleTooLong,
            &page.url,
            format!("{title_chars} characters: {title:?}"),
        ));
    } else if title_chars < thresholds.title_min_chars {
        findings.push(finding(
            FindingKind::TitleTooShort,
            &page.url,
            format!("{title_chars} characters: {title:?}"),
        ));
    }
    let description = page
        .description
        .as_deref()
        .map(trim_spaces)
        .unwrap_or_default();
    let description_chars = description.chars().count();
    if description.is_empty() {
        findings.push(finding(
            FindingKind::MissingDescription,
            &page.url,
            String::new(),
        ));
    } else if description_chars > thresholds.description_max_chars {
        findings.push(finding(
            FindingKind::DescriptionTooLong,
            &page.url,
            format!("{description_chars} characters"),
        ));
    }
    if let Some(said) = says_not_found(title, details.and_then(|details| details.h1.as_deref())) {
        findings.push(finding(FindingKind::SoftNotFound, &page.url, said));
    }
    let Some(details) = details else {
        return;
    };
    match details.h1_count {
        0 => findings.push(finding(FindingKind::MissingH1, &page.url, String::new())),
        1 => {}
        count => findings.push(finding(
            FindingKind::MultipleH1,
            &page.url,
            format!("{count} <h1> elements"),
        )),
    }
    if details.images_without_alt > 0 {
        let count = details.images_without_alt;
        let examples: Vec<&str> = details
            .images_without_alt_examples
            .iter()
            .map(|source| {
                if source.is_empty() {
                    "(no src)"
                } else {
                    source
                }
            })
            .collect();
        let more = count as usize - examples.len().min(count as usize);
        let more = if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        };
        let images = if count == 1 { "image" } else { "images" };
        findings.push(finding(
            FindingKind::ImagesWithoutAlt,
            &page.url,
            format!("{count} {images}: {}{more}", examples.join(" ")),
        ));
    }
}

/// What says a page was not found: its title or its main heading, quoted.
fn says_not_found(title: &str, h1: Option<&str>) -> Option<String> {
    [("title", Some(title)), ("h1", h1)]
        .into_iter()
        .find_map(|(what, text)| {
            let text = text?;
            looks_not_found(text).then(|| format!("{what} {text:?}"))
        })
}

/// Whether a title or heading says the page was not found.
fn looks_not_found(text: &str) -> bool {
    let lower = text.to_lowercase();
    NOT_FOUND_PHRASES
        .iter()
        .any(|phrase| lower.contains(phrase))
        || lower
            .split(|character: char| !character.is_ascii_alphanumeric())
            .any(|word| word == "404")
}

/// The text without leading and trailing spaces (only U+0020, as the findings always had).
pub(crate) fn trim_spaces(text: &str) -> &str {
    text.trim_matches(' ')
}
