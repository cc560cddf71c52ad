//! URL normalization (RFC 3986 section 6): the dedup key and the form written in `<loc>`.
//!
//! The `url` crate already applies the WHATWG URL parser, which lower-cases scheme and host,
//! converts IDNs to punycode, removes the default port and dot-segments, and percent-encodes
//! non-ASCII characters as UTF-8. What it leaves as written, this module completes: upper-case hex
//! in percent-encodings (RFC 3986 section 6.2.2.1), decoding of percent-encoded unreserved
//! characters (section 6.2.2.2), dropping the fragment, and stripping tracking and session
//! parameters. Path case is kept, and trailing slashes are never invented.

use std::borrow::Cow;

use url::Url;

use crate::host_map::HostMap;

/// Query parameters (and `;jsessionid=` path parameters) that identify a visit, not a page.
/// A trailing `*` matches any suffix. Compared case-insensitively.
pub const DEFAULT_STRIP_PARAMETERS: &[&str] = &[
    "utm_*",
    "gclid",
    "fbclid",
    "msclkid",
    "PHPSESSID",
    "jsessionid",
    "sid",
    "sessionid",
];

/// Normalizes URLs and strips a configurable list of tracking and session parameters; with a
/// [`HostMap`], URLs on a production host become their staging copy's.
#[derive(Debug, Clone)]
pub struct UrlNormalizer {
    strip: Vec<ParameterPattern>,
    host_map: HostMap,
}

#[derive(Debug, Clone)]
enum ParameterPattern {
    Exact(String),
    Prefix(String),
}

impl ParameterPattern {
    fn parse(pattern: &str) -> ParameterPattern {
        let lower = pattern.to_ascii_lowercase();
        match lower.strip_suffix('*') {
            Some(prefix) => ParameterPattern::Prefix(prefix.to_string()),
            None => ParameterPattern::Exact(lower),
        }
    }

    fn matches(&self, lower_name: &str) -> bool {
        match self {
            ParameterPattern::Exact(name) => lower_name == name,
            ParameterPattern::Prefix(prefix) => lower_name.starts_with(prefix.as_str()),
        }
    }
}

impl UrlNormalizer {
    /// `strip_parameters` are parameter names, compared case-insensitively; a trailing `*`
    /// matches any suffix (`utm_*`).
    pub fn new<S: AsRef<str>>(strip_parameters: &[S]) -> UrlNormalizer {
        UrlNormalizer {
            strip: strip_parameters
                .iter()
                .map(|pattern| ParameterPattern::parse(pattern.as_ref()))
                .collect(),
            host_map: HostMap::default(),
        }
    }

    /// Maps the production hosts of `host_map` onto their staging copies after normalizing.
    pub fn with_host_map(mut self, host_map: HostMap) -> UrlNormalizer {
        self.host_map = host_map;
        self
    }

    /// The normalized form of `url`, or `None` when it is not an http(s) URL with a host.
    pub fn normalize(&self, url: &Url) -> Option<Url> {
        if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none_or(str::is_empty) {
            return None;
        }
        let mut normalized = url.clone();
        // Each setter rewrites the URL's text: only what is there is taken off.
        if normalized.fragment().is_some() {
            normalized.set_fragment(None);
        }
        // Credentials identify a visitor, never a page.
        if !normalized.username().is_empty() {
            let _ = normalized.set_username("");
        }
        if normalized.password().is_some() {
            let _ = normalized.set_password(None);
        }

        let path = self.strip_path_parameters(url.path());
        let path = normalize_percent_encoding(&path);
        if path != url.path() {
            normalized.set_path(&path);
        }

        if let Some(query) = url.query() {
            let query = self.strip_query_parameters(query);
            match query {
                Some(query) => {
                    let query = normalize_percent_encoding(&query);
                    normalized.set_query(Some(&query));
                }
                None => normalized.set_query(None),
            }
        }
        // Setting a path made of decoded characters can itself need normalizing again (a
        // decoded `%2E` forming a dot-segment); one more round of the parser settles it.
        if normalized.path() != path {
            normalized = Url::parse(normalized.as_str()).ok()?;
        }
        if !self.host_map.is_empty()
            && let Some(mapped) = self.host_map.to_crawled(&normalized)
        {
            return Some(mapped);
        }
        Some(normalized)
    }

    /// Parses `text` (absolute) and normalizes it.
    pub fn parse(&self, text: &str) -> Option<Url> {
        Url::parse(text.trim())
            .ok()
            .and_then(|url| self.normalize(&url))
    }

    fn is_stripped(&self, name: &str) -> bool {
        let decoded = percent_decode_lossy(name).to_ascii_lowercase();
        self.strip.iter().any(|pattern| pattern.matches(&decoded))
    }

    /// Removes `;name=value` path parameters whose name is stripped (`;jsessionid=...`).
    fn strip_path_parameters<'a>(&self, path: &'a str) -> Cow<'a, str> {
        if !path.contains(';') {
            return Cow::Borrowed(path);
        }
        let segments: Vec<String> = path
            .split('/')
            .map(|segment| {
                let mut parts = segment.split(';');
                let mut kept = parts.next().unwrap_or_default().to_string();
                for parameter in parts {
                    let name = parameter.split('=').next().unwrap_or_default();
                    if !self.is_stripped(name) {
                        kept.push(';');
                        kept.push_str(parameter);
                    }
                }
                kept
            })
            .collect();
        Cow::Owned(segments.join("/"))
    }

    /// The query without stripped parameters, order and spelling otherwise kept verbatim;
    /// `None` when nothing is left.
    fn strip_query_parameters(&self, query: &str) -> Option<String> {
        if self.strip.is_empty() {
            return (!query.is_empty()).then(|| query.to_string());
        }
        let kept: Vec<&str> = query
            .split('&')
            .filter(|pair| {
                let name = pair.split('=').next().unwrap_or_default();
                !pair.is_empty() && !self.is_stripped(name)
            })
            .collect();
        (!kept.is_empty()).then(|| kept.join("&"))
    }
}

/// Upper-cases the hex digits of percent-encodings and decodes those of unreserved characters
/// (RFC 3986 sections 2.3 and 6.2.2): `%7e` and `%7E` both become `~`, `%2f` becomes `%2F`.
pub(crate) fn normalize_percent_encoding(text: &str) -> Cow<'_, str> {
    if !text.contains('%') {
        return Cow::Borrowed(text);
    }
    let bytes = text.as_bytes();
    let mut output = String::with_capacity(text.len());
    let mut index = 0;
    while index < bytes.len() {
        if bytes[index] == b'%'
            && let (Some(high), Some(low)) = (
                bytes.get(index + 1).and_then(|byte| hex_value(*byte)),
                bytes.get(index + 2).and_then(|byte| hex_value(*byte)),
            )
        {
            let decoded = high << 4 | low;
            if is_unreserved(decoded) {
                output.push(char::from(decoded));
            } else {
                output.push('%');
                output.push(char::from(HEX_UPPER[usize::from(high)]));
                output.push(char::from(HEX_UPPER[usize::from(low)]));
            }
            index += 3;
            continue;
        }
        // Multi-byte characters are copied whole; `index` only ever stops on ASCII or a
        // character boundary because every byte of a multi-byte character is >= 0x80.
        let character_length = utf8_length(bytes[index]);
        output.push_str(&text[index..index + character_length]);
        index += character_length;
    }
    Cow::Owned(output)
}

pub(crate) const HEX_UPPER: &[u8; 16] = b"0123456789ABCDEF";

fn hex_value(byte: u8) -> Option<u8> {
    match byte {
        b'0'..=b'9' => Some(byte - b'0'),
        b'a'..=b'f' => Some(byte - b'a' + 10),
        b'A'..=b'F' => Some(byte - b'A' + 10),
        _ => None,
    }
}

fn is_unreserved(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~')
}

fn utf8_length(first_byte: u8) -> usize {
    match first_byte {
        0x00..=0x7F => 1,
        0xC0..=0xDF => 2,
        0xE0..=0xEF => 3,
        _ => 4,
    }
}

fn percent_decode_lossy(text: &str) -> String {
    if !text.contains('%') {
        return text.to_string();
    }
    let bytes = text.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut index = 0;
    while index < bytes.len() {
        if bytes[index] == b'%'
            && let (Some(high), Some(low)) = (
                bytes.get(index + 1).and_then(|byte| hex_value(*byte)),
                bytes.get(index + 2).and_then(|byte| hex_value(*byte)),
            )
        {
            decoded.push(high << 4 | low);
            index += 3;
        } else {
            decoded.push(bytes[index]);
            index += 1;
        }
    }
    String::from_utf8_lossy(&decoded).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn normalizer() -> UrlNormalizer {
        UrlNormalizer::new(DEFAULT_STRIP_PARAMETERS)
    }

    fn normalized(text: &str) -> String {
        normalizer()
            .parse(text)
            .map(String::from)
            .unwrap_or_else(|| "<none>".to_string())
    }

    #[test]
    fn a_host_map_puts_production_urls_on_the_staging_host() {
        let mut map = HostMap::default();
        map.add("staging.example.com=www.example.com")
            .unwrap_or_else(|error| panic!("{error}"));
        let normalizer = normalizer().with_host_map(map);
        let normalized = |text: &str| normalizer.parse(text).map(String::from);
        assert_eq!(
            normalized("https://WWW.example.com/a/../b?utm_source=x#top").as_deref(),
            Some("https://staging.example.com/b")
        );
        assert_eq!(
            normalized("https://staging.example.com/b").as_deref(),
            Some("https://staging.example.com/b")
        );
        assert_eq!(
            normalized("https://example.com/b").as_deref(),
            Some("https://example.com/b")
        );
    }

    #[test]
    fn equivalent_spellings_normalize_to_one_form() {
        let cases = [
            ("HTTP://Example.COM/a", "http://example.com/a"),
            ("http://example.com:80/a", "http://example.com/a"),
            ("https://example.com:443/a", "https://example.com/a"),
            ("http://example.com:8080/a", "http://example.com:8080/a"),
            ("http://example.com/a/./b/../c", "http://example.com/a/c"),
            ("http://example.com/a#section", "http://example.com/a"),
            ("http://example.com/%7Euser", "http://example.com/~user"),
            ("http://example.com/%7euser", "http://example.com/~user"),
            ("http://example.com/a%2fb", "http://example.com/a%2Fb"),
            (
                "http://example.com/caf%c3%a9",
                "http://example.com/caf%C3%A9",
            ),
            ("http://example.com/café", "http://example.com/caf%C3%A9"),
            ("http://bücher.example/", "http://xn--bcher-kva.example/"),
            ("http://example.com", "http://example.com/"),
            ("http://user:secret@example.com/", "http://example.com/"),
            ("http://example.com/%41%42c", "http://example.com/ABc"),
            ("http://example.com/a/%2E%2E/b", "http://example.com/b"),
        ];
        for (input, expected) in cases {
            assert_eq!(normalized(input), expected, "input {input}");
        }
    }

    #[test]
    fn path_case_and_trailing_slashes_are_kept() {
        assert_eq!(normalized("http://example.com/A"), "http://example.com/A");
        assert_ne!(
            normalized("http://example.com/A"),
            normalized("http://example.com/a")
        );
        assert_eq!(
            normalized("http://example.com/dir"),
            "http://example.com/dir"
        );
        assert_eq!(
            normalized("http://example.com/dir/"),
            "http://example.com/dir/"
        );
    }

    #[test]
    fn tracking_and_session_parameters_are_stripped() {
        let cases = [
            ("http://e.com/p?utm_source=x&utm_medium=y", "http://e.com/p"),
            ("http://e.com/p?id=3&utm_source=x", "http://e.com/p?id=3"),
            (
                "http://e.com/p?UTM_Source=x&b=2&gclid=1",
                "http://e.com/p?b=2",
            ),
            (
                "http://e.com/p?fbclid=1&a=1&msclkid=2",
                "http://e.com/p?a=1",
            ),
            (
                "http://e.com/p?PHPSESSID=abc&page=2",
                "http://e.com/p?page=2",
            ),
            (
                "http://e.com/p?sid=1&sessionid=2&jsessionid=3",
                "http://e.com/p",
            ),
            ("http://e.com/p;jsessionid=ABC123", "http://e.com/p"),
            ("http://e.com/p;JSESSIONID=ABC?x=1", "http://e.com/p?x=1"),
            ("http://e.com/p;v=1", "http://e.com/p;v=1"),
            ("http://e.com/p?b=2&a=1", "http://e.com/p?b=2&a=1"),
            ("http://e.com/p?sidebar=1", "http://e.com/p?sidebar=1"),
            ("http://e.com/p?", "http://e.com/p"),
            ("http://e.com/p?q=%7e%2f", "http://e.com/p?q=~%2F"),
        ];
        for (input, expected) in cases {
            assert_eq!(normalized(input), expected, "input {input}");
        }
    }

    #[test]
    fn the_strip_list_is_configurable() {
        let normalizer = UrlNormalizer::new(&["ref", "session_*"]);
        let url = normalizer.parse("http://e.com/p?ref=a&session_x=1&utm_source=k");
        assert_eq!(
            url.map(String::from).as_deref(),
            Some("http://e.com/p?utm_source=k")
        );
    }

    #[test]
    fn other_schemes_are_refused() {
        for input in [
            "mailto:a@b.c",
            "ftp://e.com/",
            "javascript:void(0)",
            "file:///etc",
        ] {
            assert_eq!(normalized(input), "<none>", "input {input}");
        }
    }

    proptest! {
        #[test]
        fn normalization_is_idempotent(path in "[a-zA-Z0-9%/._~é;=&?-]{0,40}", host in "[a-z]{1,8}") {
            let normalizer = normalizer();
            if let Some(once) = normalizer.parse(&format!("http://{host}.example/{path}")) {
                let twice = normalizer.normalize(&once);
                prop_assert_eq!(Some(once.clone()), twice);
            }
        }
    }
}
