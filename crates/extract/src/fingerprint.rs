//! The content fingerprint: what a reader would notice changing. Visible text (whitespace
//! collapsed) and link targets count; scripts, styles, attributes (CSRF tokens, nonces,
//! tracking ids), comments and layout whitespace do not, and neither do link query values
//! that look like random tokens. Used to tell a changed page from a re-rendered one.

use ego_tree::iter::Edge;
use scraper::{Html, Node};

use crate::Link;

/// Elements whose text a reader never sees.
const INVISIBLE: &[&str] = &["script", "style", "noscript", "template"];

/// A 64-bit fingerprint as 16 hex digits: XXH3 of the page's normalized text and links.
/// XXH3's output is specified, so values stay comparable across releases and platforms, as
/// a crawl database kept for years needs (the standard library's hasher promises neither).
pub(crate) fn fingerprint(html: &Html, links: &[Link]) -> String {
    let mut normalized: Vec<u8> = Vec::with_capacity(16 * 1024);
    // One pass over the tree; text under an invisible element is skipped by depth.
    let mut hidden_depth = 0usize;
    for edge in html.root_element().traverse() {
        match edge {
            Edge::Open(node) => match node.value() {
                Node::Element(element)
                    if hidden_depth > 0 || INVISIBLE.contains(&element.name()) =>
                {
                    hidden_depth += 1;
                }
                Node::Text(text) if hidden_depth == 0 => {
                    push_words(&mut normalized, text.as_bytes())
                }
                _ => {}
            },
            Edge::Close(node) => {
                if hidden_depth > 0 && node.value().is_element() {
                    hidden_depth -= 1;
                }
            }
        }
    }
    normalized.extend_from_slice(b"\0links\0");
    for link in links {
        let url = &link.url;
        normalized.extend_from_slice(url[..url::Position::AfterPath].as_bytes());
        for (name, value) in url.query_pairs() {
            normalized.extend_from_slice(name.as_bytes());
            if !looks_like_a_token(&value) {
                normalized.extend_from_slice(value.as_bytes());
            }
        }
        normalized.push(b'\n');
    }
    format!("{:016x}", xxhash_rust::xxh3::xxh3_64(&normalized))
}

/// Appends the words of `text`, each followed by one space: runs of ASCII whitespace
/// collapse, so re-indented markup fingerprints the same.
fn push_words(normalized: &mut Vec<u8>, text: &[u8]) {
    for word in text
        .split(u8::is_ascii_whitespace)
        .filter(|word| !word.is_empty())
    {
        normalized.extend_from_slice(word);
        normalized.push(b' ');
    }
}

/// Long runs of letters and digits mixed: session ids, nonces, cache busters.
fn looks_like_a_token(value: &str) -> bool {
    value.len() >= 16
        && value
            .bytes()
            .all(|byte| byte.is_ascii_alphanumeric() || byte == b'-' || byte == b'_')
        && value.bytes().any(|byte| byte.is_ascii_digit())
        && value.bytes().any(|byte| byte.is_ascii_alphabetic())
}

#[cfg(test)]
mod tests {
    #[test]
    fn words_collapse_whitespace() {
        let mut normalized = Vec::new();
        super::push_words(&mut normalized, b"  Hello \n\t world  ");
        assert_eq!(normalized, b"Hello world ");
    }
}
