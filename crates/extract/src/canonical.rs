//! Canonical hints: `Link: <...>; rel="canonical"` headers (RFC 8288 syntax) and
//! `<link rel=canonical>` elements (RFC 6596).

use url::Url;

use crate::facts::PageFacts;

/// Records one canonical hint: a valid http(s) URL becomes a candidate (fragment removed,
/// duplicates dropped), anything else an invalid hint.
pub(crate) fn add_candidate(facts: &mut PageFacts, resolved: Option<Url>, written: &str) {
    match resolved {
        Some(mut url)
            if matches!(url.scheme(), "http" | "https")
                && url.host_str().is_some_and(|host| !host.is_empty()) =>
        {
            url.set_fragment(None);
            if !facts.canonicals.contains(&url) {
                facts.canonicals.push(url);
            }
        }
        _ => facts.invalid_canonicals.push(written.to_string()),
    }
}

/// The targets of the `rel=canonical` links in one `Link` header value, which may hold a
/// comma-separated list: `<a>; rel="canonical", <b>; rel=alternate; hreflang=de`.
pub(crate) fn canonical_targets_in_link_header(value: &str) -> Vec<String> {
    parse_link_header(value)
        .into_iter()
        .filter(|link| {
            link.relations
                .iter()
                .any(|relation| relation == "canonical")
        })
        .map(|link| link.target)
        .collect()
}

#[derive(Debug, PartialEq, Eq)]
struct HeaderLink {
    target: String,
    /// Lower-cased relation types.
    relations: Vec<String>,
    hreflang: Option<String>,
}

/// The `(hreflang, target)` of the `rel=alternate` links with an `hreflang` in one `Link`
/// header value (Google's hreflang in HTTP headers).
pub(crate) fn alternates_in_link_header(value: &str) -> Vec<(String, String)> {
    parse_link_header(value)
        .into_iter()
        .filter(|link| {
            link.relations
                .iter()
                .any(|relation| relation == "alternate")
        })
        .filter_map(|link| Some((link.hreflang?, link.target)))
        .collect()
}

/// RFC 8288 section 3: `link-value = "<" URI-Reference ">" *( OWS ";" OWS link-param )`,
/// values separated by commas; commas inside `<...>` or quoted strings do not separate.
fn parse_link_header(value: &str) -> Vec<HeaderLink> {
    let mut links = Vec::new();
    let mut rest = value;
    loop {
        rest = rest.trim_start_matches(|character: char| {
            character.is_ascii_whitespace() || character == ','
        });
        let Some(after_open) = rest.strip_prefix('<') else {
            // Not a link-value: skip to the next comma outside quotes, if any.
            match skip_past_separator(rest) {
                Some(next) => {
                    rest = next;
                    continue;
                }
                None => return links,
            }
        };
        let Some(close) = after_open.find('>') else {
            return links;
        };
        let target = after_open[..close].trim().to_string();
        rest = &after_open[close + 1..];
        let mut relations = Vec::new();
        let mut hreflang = None;
        loop {
            rest = rest.trim_start_matches(|character: char| character.is_ascii_whitespace());
            let Some(after_semicolon) = rest.strip_prefix(';') else {
                break;
            };
            let (name, value, next) = parse_parameter(after_semicolon);
            if name.eq_ignore_ascii_case("rel") && relations.is_empty() {
                relations = value
                    .split_ascii_whitespace()
                    .map(str::to_ascii_lowercase)
                    .collect();
            }
            if name.eq_ignore_ascii_case("hreflang") && hreflang.is_none() {
                hreflang = Some(value.trim().to_string());
            }
            rest = next;
        }
        links.push(HeaderLink {
            target,
            relations,
            hreflang,
        });
        match rest.find(',') {
            Some(comma) if rest[..comma].trim().is_empty() => rest = &rest[comma + 1..],
            _ => match skip_past_separator(rest) {
                Some(next) => rest = next,
                None => return links,
            },
        }
    }
}

/// One `name[=value]` parameter; the value may be a token or a quoted string with `\` escapes.
/// Returns the name, the value and the text after it.
fn parse_parameter(text: &str) -> (&str, String, &str) {
    let text = text.trim_start_matches(|character: char| character.is_ascii_whitespace());
    let name_end = text.find(['=', ';', ',']).unwrap_or(text.len());
    let name = text[..name_end].trim();
    let Some(after_equals) = text[name_end..].strip_prefix('=') else {
        return (name, String::new(), &text[name_end..]);
    };
    let after_equals =
        after_equals.trim_start_matches(|character: char| character.is_ascii_whitespace());
    if let Some(quoted) = after_equals.strip_prefix('"') {
        let mut value = String::new();
        let mut characters = quoted.char_indices();
        while let Some((index, character)) = characters.next() {
            match character {
                '\\' => {
                    if let Some((_, escaped)) = characters.next() {
                        value.push(escaped);
                    }
                }
                '"' => return (name, value, &quoted[index + 1..]),
                _ => value.push(character),
            }
        }
        return (name, value, "");
    }
    let value_end = after_equals.find([';', ',']).unwrap_or(after_equals.len());
    (
        name,
        after_equals[..value_end].trim().to_string(),
        &after_equals[value_end..],
    )
}

/// The text after the next comma that is outside a quoted string.
fn skip_past_separator(text: &str) -> Option<&str> {
    let mut quoted = false;
    let mut escaped = false;
    for (index, character) in text.char_indices() {
        match character {
            _ if escaped => escaped = false,
            '\\' if quoted => escaped = true,
            '"' => quoted = !quoted,
            ',' if !quoted => return Some(&text[index + 1..]),
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn link_header_lists() {
        let cases: [(&str, &[&str]); 9] = [
            ("<https://e.com/a>; rel=\"canonical\"", &["https://e.com/a"]),
            ("<https://e.com/a>; rel=canonical", &["https://e.com/a"]),
            (
                "<https://e.com/x>; rel=\"alternate\"; hreflang=de, <https://e.com/a>; rel=\"canonical\"",
                &["https://e.com/a"],
            ),
            (
                "<https://e.com/a?x=1,2>; REL=\"Canonical\"",
                &["https://e.com/a?x=1,2"],
            ),
            (
                "<https://e.com/a>; title=\"a, b; c\"; rel=\"canonical alternate\"",
                &["https://e.com/a"],
            ),
            ("<https://e.com/a>; rel=\"alternate\"", &[]),
            (
                "<https://e.com/a>; rel=\"canonical\", <https://e.com/b>; rel=\"canonical\"",
                &["https://e.com/a", "https://e.com/b"],
            ),
            (
                "garbage, <https://e.com/a>; rel=canonical",
                &["https://e.com/a"],
            ),
            ("<https://e.com/a", &[]),
        ];
        for (value, expected) in cases {
            assert_eq!(canonical_targets_in_link_header(value), expected, "{value}");
        }
    }
}
