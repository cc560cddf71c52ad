//! The words of report.html as HTML: text escaped, cut to a length, counted.

use sitemapper_audit::thousands;

/// Text for HTML text and attribute values (quotes included).
pub(super) fn escape(text: &str) -> String {
    quick_xml::escape::escape(text).into_owned()
}

/// `text` cut to at most `limit` characters, an ellipsis ending it when cut.
pub(super) fn shortened(text: &str, limit: usize) -> std::borrow::Cow<'_, str> {
    match text.char_indices().nth(limit) {
        None => std::borrow::Cow::Borrowed(text),
        Some((end, _)) => {
            let kept = text[..end].trim_end();
            std::borrow::Cow::Owned(format!("{kept}…"))
        }
    }
}

/// `1 URL`, `1,234 URLs`.
pub(super) fn counted(count: u64, one: &str, many: &str) -> String {
    format!(
        "{} {}",
        thousands(count),
        if count == 1 { one } else { many }
    )
}
