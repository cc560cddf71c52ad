//! The content fingerprint: what a reader would notice changing. Visible text (whitespace
//! collapsed) and link targets count; scripts, styles, attributes (CSRF tokens, nonces,
//! tracking ids), comments and layout whitespace do not, and neither do link query values
//! that look like random tokens. Used to tell a changed page from a re-rendered one.

use scraper::{Html, Node};

use crate::Link;

/// Elements whose text a reader never sees.
const INVISIBLE: &[&str] = &["script", "style", "noscript", "template"];

/// A stable 64-bit fingerprint as 16 hex digits. FNV-1a: stable across releases and
/// platforms, which a database kept for years needs (the standard library's hasher is not).
pub(crate) fn fingerprint(html: &Html, links: &[Link]) -> String {
    let mut hash = Fnv1a::default();
    for node in html.root_element().descendants() {
        let Node::Text(text) = node.value() else {
            continue;
        };
        let hidden = node.ancestors().any(|ancestor| {
            ancestor
                .value()
                .as_element()
                .is_some_and(|element| INVISIBLE.contains(&element.name()))
        });
        if hidden {
            continue;
        }
        for word in text.split_whitespace() {
            hash.write(word.as_bytes());
            hash.write(b" ");
        }
    }
    hash.write(b"\0links\0");
    for link in links {
        let url = &link.url;
        hash.write(url[..url::Position::AfterPath].as_bytes());
        for (name, value) in url.query_pairs() {
            hash.write(name.as_bytes());
            if !looks_like_a_token(&value) {
                hash.write(value.as_bytes());
            }
        }
        hash.write(b"\n");
    }
    format!("{:016x}", hash.0)
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

struct Fnv1a(u64);

impl Default for Fnv1a {
    fn default() -> Self {
        Fnv1a(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv1a {
    fn write(&mut self, bytes: &[u8]) {
        for byte in bytes {
            self.0 ^= u64::from(*byte);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }
}
