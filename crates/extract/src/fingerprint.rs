//! The content fingerprint: what a reader would notice changing. Visible text (whitespace
//! collapsed) and link targets count; scripts, styles, attributes (CSRF tokens, nonces,
//! tracking ids), comments and layout whitespace do not, and neither do link query values
//! that look like random tokens. Used to tell a changed page from a re-rendered one.
//!
//! A crawl database keeps fingerprints for years, so how the text is read is versioned.
//! Version 2 ([`FINGERPRINT_VERSION`], [`VisibleText`]) reads the text whole, whatever pieces
//! a tokenizer hands it in: both tokenizers give it, and every page is read by html5gum's.
//! Version 1 ([`LEGACY_FINGERPRINT_VERSION`], [`push_legacy_words`]) ended a word wherever
//! html5ever's tokenizer cut text into pieces (a character reference is a piece of its own:
//! `caf&eacute;` read `caf é`); it is kept only to compare with fingerprints stored by earlier
//! releases, and a page whose legacy fingerprint is asked for is read by html5ever.

use crate::facts::Link;

/// The version of [`crate::PageFacts::fingerprint`]: a crawl database records it beside a
/// stored fingerprint, since fingerprints of different versions are not comparable.
pub const FINGERPRINT_VERSION: u32 = 2;

/// The version of [`crate::PageFacts::legacy_fingerprint`], the one releases stored before
/// [`FINGERPRINT_VERSION`].
pub const LEGACY_FINGERPRINT_VERSION: u32 = 1;

/// A 64-bit fingerprint as 16 hex digits: XXH3 of the page's visible text (each word followed
/// by one space, as [`VisibleText`] or [`push_legacy_words`] collects it) and its links. XXH3's
/// output is specified, so values stay comparable across releases and platforms, as a crawl
/// database kept for years needs (the standard library's hasher promises neither).
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

/// The visible text as version 2 reads it: character references decoded (the tokenizer does
/// that), the pieces joined, each word followed by one space. A word is a run of anything but
/// HTML's ASCII whitespace (space, tab, line feed, form feed, carriage return: a no-break
/// space is part of a word), and it also ends at markup: a tag, a comment or a doctype
/// between two texts separates them as whitespace would. So `<p>one</p><p>two</p>` reads
/// `one two ` whether or not the source breaks the line between the paragraphs, and
/// reformatting markup does not move the fingerprint; `split<b>word</b>s` reads as three
/// words where a browser shows one, which costs nothing, since the same markup gives the same
/// words. Both tokenizers see the same markup and decode the same references; only where
/// they cut the text in between differs, and that no longer shows.
///
/// Where html5ever cut text only at markup (no character reference, NUL or stray `<` in the
/// visible text), these are the bytes version 1 read, and the fingerprint is the same.
#[derive(Debug, Default)]
pub(crate) struct VisibleText {
    normalized: Vec<u8>,
    /// The last byte pushed belongs to a word that has not ended yet.
    in_word: bool,
}

impl VisibleText {
    /// A piece of text, continuing the word the piece before left open. Text between two
    /// words is mostly one space, which the normalized form keeps as it is: the piece is
    /// copied in runs, broken only where whitespace is not that (a run of it, a line break,
    /// a tab, whitespace that does not follow a word), found eight bytes at a time.
    pub(crate) fn push(&mut self, piece: &str) {
        let bytes = piece.as_bytes();
        let mut verbatim_from = 0;
        for (chunk_index, chunk) in bytes.chunks(8).enumerate() {
            let offset = chunk_index * 8;
            let (mut candidates, spaces) = spaces_or_controls(chunk);
            // Most chunks of text hold only single spaces between word characters.
            let after_word = offset > 0 && !bytes[offset - 1].is_ascii_whitespace();
            if candidates == spaces
                && spaces & (spaces << 8) == 0
                && (spaces & 0x80 == 0 || after_word)
            {
                continue;
            }
            while candidates != 0 {
                let position = offset + (candidates.trailing_zeros() / 8) as usize;
                candidates &= candidates - 1;
                let byte = bytes[position];
                if !byte.is_ascii_whitespace() {
                    // A control character: part of a word.
                    continue;
                }
                let ends_word = match position.checked_sub(1) {
                    Some(before) => !bytes[before].is_ascii_whitespace(),
                    None => self.in_word,
                };
                if byte == b' ' && ends_word && position > 0 {
                    // One space after a word, within the piece: kept as it is.
                    continue;
                }
                self.normalized
                    .extend_from_slice(&bytes[verbatim_from..position]);
                if ends_word {
                    self.normalized.push(b' ');
                }
                verbatim_from = position + 1;
            }
        }
        self.normalized.extend_from_slice(&bytes[verbatim_from..]);
        if let Some(last) = bytes.last() {
            self.in_word = !last.is_ascii_whitespace();
        }
    }

    /// Whitespace or markup: the word being read, if any, ends.
    pub(crate) fn end_word(&mut self) {
        if self.in_word {
            self.normalized.push(b' ');
            self.in_word = false;
        }
    }

    /// The text read, its last word ended.
    pub(crate) fn finish(mut self) -> Vec<u8> {
        self.end_word();
        self.normalized
    }
}

/// The bytes of `chunk` (at most eight) below `!` (the space and the control characters),
/// and of them the spaces, as masks with the high bit of each such byte set, byte `i` in
/// bits `8i..8i+8`. Bytes of 0x80 and above (UTF-8 beyond ASCII) are never flagged; no
/// byte's sum carries into the next, so the flags are exact.
fn spaces_or_controls(chunk: &[u8]) -> (u64, u64) {
    let mut padded = [b'a'; 8];
    padded[..chunk.len()].copy_from_slice(chunk);
    let word = u64::from_le_bytes(padded);
    let high_bits = 0x8080_8080_8080_8080_u64;
    let low_bits = !high_bits;
    // Each byte's low seven bits plus 0x5f reach 0x80 exactly when they are 0x21 or more.
    let at_least_bang = (word & low_bits) + 0x5f5f_5f5f_5f5f_5f5f;
    let below_bang = !(at_least_bang | word) & high_bits;
    // A byte is a space when it is zero once XORed with spaces; plus 0x7f, a byte's low
    // seven bits reach 0x80 exactly when they are not zero.
    let other = word ^ 0x2020_2020_2020_2020;
    let spaces = !(((other & low_bits) + low_bits) | other) & high_bits;
    (below_bang, spaces)
}

/// Version 1's reading of a piece of text, as html5ever's tokenizer cuts it: its words, each
/// followed by one space, as if the piece ended with whitespace.
pub(crate) fn push_legacy_words(normalized: &mut Vec<u8>, piece: &str) {
    for word in piece
        .as_bytes()
        .split(u8::is_ascii_whitespace)
        .filter(|word| !word.is_empty())
    {
        normalized.extend_from_slice(word);
        normalized.push(b' ');
    }
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

#[cfg(test)]
mod tests {
    use url::Url;

    use super::{VisibleText, push_legacy_words};
    use crate::facts::{Document, ExtractOptions, ResponseHeaders};
    use crate::{extract_by, tokens};

    /// The fingerprints of `html` at `url`: version 2 as html5gum's tokenizer reads it, as
    /// html5ever's does, and version 1.
    fn fingerprints_at(url: &str, html: &[u8]) -> (String, String, String) {
        let url = Url::parse(url).unwrap();
        let headers = ResponseHeaders {
            content_type: Some("text/html".to_string()),
            ..ResponseHeaders::default()
        };
        let document = Document {
            url: &url,
            body: html,
            headers: &headers,
        };
        let options = ExtractOptions {
            legacy_fingerprint: true,
            ..ExtractOptions::default()
        };
        let html5gum = extract_by(&document, &options, tokens::read_by_gum);
        let html5ever = extract_by(&document, &options, tokens::read_by_reference);
        assert_eq!(
            html5gum.legacy_fingerprint, None,
            "html5gum reads no version 1"
        );
        (
            html5gum.fingerprint.unwrap(),
            html5ever.fingerprint.unwrap(),
            html5ever.legacy_fingerprint.unwrap(),
        )
    }

    /// Version 2 of `html` (the same by both tokenizers) and version 1.
    fn fingerprints(html: &str) -> (String, String) {
        let (html5gum, html5ever, legacy) =
            fingerprints_at("https://example.com/", html.as_bytes());
        assert_eq!(
            html5gum, html5ever,
            "version 2 of {html:?} by both tokenizers"
        );
        (html5gum, legacy)
    }

    /// The site of `tests/fixtures/upgrade/` as served when `crawl-schema-12.db` was written:
    /// the URL, the page, the fingerprint that release stored, and version 2's. Version 2's
    /// values are pinned too: a change to them is a new version.
    const UPGRADE_SITE: &[(&str, &[u8], &str, &str)] = &[
        (
            "http://127.0.0.1:47561/",
            include_bytes!("../../../tests/fixtures/upgrade/site/index.html"),
            "c8e81e076e91547f",
            "569b4754706e4a9a",
        ),
        (
            "http://127.0.0.1:47561/index.html",
            include_bytes!("../../../tests/fixtures/upgrade/site/index.html"),
            "c8e81e076e91547f",
            "569b4754706e4a9a",
        ),
        (
            "http://127.0.0.1:47561/menu.html",
            include_bytes!("../../../tests/fixtures/upgrade/site/menu.html"),
            "3ff50e20ca132e30",
            "b1ed51f8dc69b7a1",
        ),
        (
            "http://127.0.0.1:47561/notes.html",
            include_bytes!("../../../tests/fixtures/upgrade/site/notes.html"),
            "eda8478264f02f57",
            "c74299f0ee9d5c61",
        ),
        (
            "http://127.0.0.1:47561/split.html",
            include_bytes!("../../../tests/fixtures/upgrade/site/split.html"),
            "31eb66b7c14bf008",
            "504d511140892bc5",
        ),
        // No character reference in its visible text: html5ever cut it only at markup, and
        // both versions read the same words.
        (
            "http://127.0.0.1:47561/spaces.html",
            include_bytes!("../../../tests/fixtures/upgrade/site/spaces.html"),
            "06e2065e897565af",
            "06e2065e897565af",
        ),
    ];

    #[test]
    fn the_legacy_fingerprint_is_the_one_an_earlier_release_stored() {
        for &(url, html, stored, version_2) in UPGRADE_SITE {
            let (html5gum, html5ever, legacy) = fingerprints_at(url, html);
            assert_eq!(legacy, stored, "version 1 of {url}");
            assert_eq!(html5gum, html5ever, "version 2 of {url} by both tokenizers");
            assert_eq!(html5gum, version_2, "version 2 of {url}");
            let has_references = html.windows(6).any(|window| window == b"&nbsp;")
                || html.windows(5).any(|window| window == b"&amp;");
            if has_references {
                assert_ne!(version_2, stored, "{url} holds references version 1 cut at");
            }
        }
    }

    #[test]
    fn version_2_reads_text_the_same_however_it_is_cut() {
        // The same text, cut into other pieces by html5ever, and whether version 1 saw a
        // difference.
        for (one, other, version_1_differed) in [
            ("<p>caf&eacute;</p>", "<p>caf\u{e9}</p>", true),
            ("<p>x&nbsp; y</p>", "<p>x\u{a0}\t\n y</p>", true),
            ("<p>x&nbsp;&nbsp;y</p>", "<p>x&#xa0;\u{a0}y</p>", true),
            ("<p>wo&#114;ds</p>", "<p>words</p>", true),
            ("<p>a\0b</p>", "<p>ab</p>", true),
            ("<p>a&amp;b</p>", "<p>a&b</p>", false),
            ("<p>x &nbsp; y</p>", "<p>x\n&nbsp;\t\ty</p>", false),
        ] {
            let (one_2, one_1) = fingerprints(one);
            let (other_2, other_1) = fingerprints(other);
            assert_eq!(one_2, other_2, "{one:?} and {other:?}");
            assert_eq!(
                one_1 != other_1,
                version_1_differed,
                "{one:?} and {other:?}"
            );
        }
    }

    #[test]
    fn markup_ends_a_word_and_a_no_break_space_does_not() {
        let version_2 = |html: &str| fingerprints(html).0;
        assert_eq!(
            version_2("<p>one</p><p>two</p>"),
            version_2("<p>one</p>\n  <p>two</p>"),
            "markup between texts separates them as whitespace does"
        );
        assert_eq!(version_2("foo<!-- c -->bar"), version_2("foo bar"));
        assert_eq!(version_2("<p>a  \t\r\n\x0c b</p>"), version_2("<p>a b</p>"));
        assert_ne!(
            version_2("<p>a\u{a0}b</p>"),
            version_2("<p>a b</p>"),
            "a no-break space is no whitespace"
        );
        assert_ne!(version_2("<p>ab</p>"), version_2("<p>a b</p>"));
    }

    #[test]
    fn the_text_is_words_each_followed_by_one_space() {
        let mut visible = VisibleText::default();
        let mut legacy = Vec::new();
        for piece in ["  caf", "\u{e9}", " au", "\u{a0}", "lait\n\t", "x"] {
            visible.push(piece);
            push_legacy_words(&mut legacy, piece);
        }
        visible.end_word();
        visible.push("y");
        assert_eq!(
            String::from_utf8(visible.finish()).unwrap(),
            "caf\u{e9} au\u{a0}lait x y "
        );
        assert_eq!(
            String::from_utf8(legacy).unwrap(),
            "caf \u{e9} au \u{a0} lait x "
        );
    }
    /// Version 2's text as its definition reads: the words of the pieces joined, each
    /// followed by one space, a word ending at whitespace or at a cut marked as markup.
    fn words_of(pieces: &[(String, bool)]) -> Vec<u8> {
        let mut joined = String::new();
        for (piece, markup_after) in pieces {
            joined.push_str(piece);
            if *markup_after {
                joined.push(' ');
            }
        }
        let mut normalized = Vec::new();
        for word in joined
            .split(|character: char| character.is_ascii_whitespace())
            .filter(|word| !word.is_empty())
        {
            normalized.extend_from_slice(word.as_bytes());
            normalized.push(b' ');
        }
        normalized
    }

    proptest::proptest! {
        /// The runs copied as they are, and the chunks skipped whole, give what the
        /// definition gives, wherever pieces and chunks begin and end.
        #[test]
        fn the_fast_reading_is_the_definition(
            pieces in proptest::collection::vec(
                ("[ a\\t\\n\\r\\x0c\\x0b\\x01\u{e9}\u{a0}]{0,40}", proptest::bool::ANY),
                0..8,
            )
        ) {
            let mut text = VisibleText::default();
            for (piece, markup_after) in &pieces {
                text.push(piece);
                if *markup_after {
                    text.end_word();
                }
            }
            proptest::prop_assert_eq!(text.finish(), words_of(&pieces));
        }
    }
}
