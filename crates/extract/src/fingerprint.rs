//! The content fingerprint: what a reader would notice changing. Visible text (whitespace
//! collapsed) and link targets count; scripts, styles, attributes (CSRF tokens, nonces,
//! tracking ids), comments and layout whitespace do not, and neither do link query values
//! that look like random tokens. Used to tell a changed page from a re-rendered one.

use crate::Link;

/// A 64-bit fingerprint as 16 hex digits: XXH3 of the page's visible text (words separated
/// by single spaces, as `tokens` collects it) and its links. XXH3's output is specified, so
/// values stay comparable across releases and platforms, as a crawl database kept for years
/// needs (the standard library's hasher promises neither).
pub(crate) fn fingerprint(text: &[u8], links: &[Link]) -> String {
    let mut normalized: Vec<u8> = Vec::with_capacity(text.len() + links.len() * 64);
    normalized.extend_from_slice(text);
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

/// Whether a URL parameter value looks like a random token (a session id, a nonce, a cache
/// buster): sixteen or more letters and digits, mixed.
pub fn looks_like_a_token(value: &str) -> bool {
    value.len() >= 16
        && value
            .bytes()
            .all(|byte| byte.is_ascii_alphanumeric() || byte == b'-' || byte == b'_')
        && value.bytes().any(|byte| byte.is_ascii_digit())
        && value.bytes().any(|byte| byte.is_ascii_alphabetic())
}
