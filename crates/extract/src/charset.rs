//! Character encoding of a document, as a browser determines it (HTML Living Standard,
//! "Determining the character encoding"): BOM, then the Content-Type charset, then a prescan of
//! the first 1024 bytes for `<meta charset>`, then UTF-8.

use std::borrow::Cow;

use encoding_rs::Encoding;

/// The prescan looks at this many bytes at most (HTML: "prescan a byte stream").
const PRESCAN_BYTES: usize = 1024;

/// Decodes `body`, replacing invalid sequences; returns the text and the encoding used.
pub(crate) fn decode<'a>(
    body: &'a [u8],
    content_type: Option<&str>,
) -> (Cow<'a, str>, &'static Encoding) {
    if let Some((encoding, bom_length)) = Encoding::for_bom(body) {
        return (
            encoding.decode_without_bom_handling(&body[bom_length..]).0,
            encoding,
        );
    }
    let encoding = content_type
        .and_then(charset_parameter)
        .and_then(|label| Encoding::for_label(label.as_bytes()))
        .or_else(|| prescan(&body[..body.len().min(PRESCAN_BYTES)]))
        .unwrap_or(encoding_rs::UTF_8);
    (encoding.decode_without_bom_handling(body).0, encoding)
}

/// The `charset` parameter of a Content-Type value, unquoted.
fn charset_parameter(content_type: &str) -> Option<&str> {
    content_type.split(';').skip(1).find_map(|parameter| {
        let (name, value) = parameter.split_once('=')?;
        name.trim().eq_ignore_ascii_case("charset").then(|| {
            value
                .trim()
                .trim_matches(|character| character == '"' || character == '\'')
        })
    })
}

/// Finds a charset declared in a `<meta>` tag in the first bytes of the document.
fn prescan(head: &[u8]) -> Option<&'static Encoding> {
    // Latin-1 view of the bytes: every byte is one char, and tags are ASCII.
    let text: String = head
        .iter()
        .map(|byte| char::from(byte.to_ascii_lowercase()))
        .collect();
    let mut rest = text.as_str();
    while let Some(start) = rest.find("<meta") {
        let tag_and_rest = &rest[start + 5..];
        let end = tag_and_rest.find('>').unwrap_or(tag_and_rest.len());
        let tag = &tag_and_rest[..end];
        if let Some(label) = charset_in_tag(tag) {
            let encoding = Encoding::for_label(label.as_bytes())?;
            // A UTF-16 label found by the prescan means UTF-8; x-user-defined means
            // windows-1252 (HTML, "prescan a byte stream" step 2.11).
            if encoding == encoding_rs::UTF_16BE || encoding == encoding_rs::UTF_16LE {
                return Some(encoding_rs::UTF_8);
            }
            if encoding == encoding_rs::X_USER_DEFINED {
                return Some(encoding_rs::WINDOWS_1252);
            }
            return Some(encoding);
        }
        rest = &tag_and_rest[end..];
    }
    None
}

/// `charset=LABEL` anywhere in a meta tag: the `charset` attribute, or inside the `content`
/// attribute of `http-equiv="Content-Type"`.
fn charset_in_tag(tag: &str) -> Option<&str> {
    let position = tag.find("charset")?;
    let after = tag[position + 7..].trim_start();
    let value = after.strip_prefix('=')?.trim_start();
    let value = value.trim_start_matches(['"', '\'']);
    let end = value
        .find(|character: char| {
            character.is_ascii_whitespace() || matches!(character, '"' | '\'' | ';' | '/' | '>')
        })
        .unwrap_or(value.len());
    let label = &value[..end];
    (!label.is_empty()).then_some(label)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn encoding_of(body: &[u8], content_type: Option<&str>) -> &'static str {
        decode(body, content_type).1.name()
    }

    #[test]
    fn the_order_is_bom_header_meta_default() {
        let meta = b"<html><head><meta charset=\"iso-8859-2\"></head></html>";
        assert_eq!(encoding_of(meta, None), "ISO-8859-2");
        assert_eq!(
            encoding_of(meta, Some("text/html; charset=Shift_JIS")),
            "Shift_JIS"
        );
        assert_eq!(
            encoding_of(b"\xEF\xBB\xBFhello", Some("text/html; charset=Shift_JIS")),
            "UTF-8"
        );
        assert_eq!(encoding_of(b"<p>plain", Some("text/html")), "UTF-8");
        assert_eq!(encoding_of(b"<p>plain", None), "UTF-8");
    }

    #[test]
    fn meta_forms() {
        let cases: [(&[u8], &str); 6] = [
            (b"<META CHARSET=windows-1251>", "windows-1251"),
            (
                b"<meta http-equiv=\"Content-Type\" content=\"text/html; charset=ISO-8859-1\">",
                "windows-1252",
            ),
            (
                b"<meta content='text/html;charset=euc-jp' http-equiv='content-type'>",
                "EUC-JP",
            ),
            (b"<meta charset=\"utf-16\">", "UTF-8"),
            (b"<meta charset=\"nonsense-label\">", "UTF-8"),
            (b"<meta name=viewport content=width=device-width>", "UTF-8"),
        ];
        for (body, expected) in cases {
            assert_eq!(
                encoding_of(body, None),
                expected,
                "{}",
                String::from_utf8_lossy(body)
            );
        }
    }

    #[test]
    fn header_charset_parameter_forms() {
        assert_eq!(
            charset_parameter("text/html; charset=\"UTF-8\""),
            Some("UTF-8")
        );
        assert_eq!(
            charset_parameter("text/html;CHARSET=latin1"),
            Some("latin1")
        );
        assert_eq!(charset_parameter("text/html"), None);
    }

    #[test]
    fn invalid_bytes_are_replaced_not_fatal() {
        let (text, encoding) = decode(b"<a href=\"/ok\">\xFF\xFE\x00</a>", None);
        assert_eq!(encoding.name(), "UTF-8");
        assert!(text.contains("/ok") && text.contains('\u{FFFD}'));
    }
}
