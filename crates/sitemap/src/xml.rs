//! The XML text of sitemaps and indexes (sitemaps.org protocol 0.9), one piece at a time so
//! that the writer can measure each entry before it commits to a file.

use jiff::Timestamp;
use quick_xml::escape::escape;

pub(crate) const URLSET_HEADER: &str = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n";
pub(crate) const URLSET_FOOTER: &str = "</urlset>\n";
pub(crate) const INDEX_HEADER: &str = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<sitemapindex xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n";
pub(crate) const INDEX_FOOTER: &str = "</sitemapindex>\n";

/// W3C Datetime with seconds and a zone, in UTC: `2024-01-02T03:04:05+00:00`
/// (sitemaps.org, "XML tag definitions", lastmod).
pub fn format_lastmod(timestamp: Timestamp) -> String {
    timestamp.strftime("%Y-%m-%dT%H:%M:%S+00:00").to_string()
}

/// Appends one `<url>` entry to `buffer`. `&`, `<`, `>`, `'` and `"` are escaped as entities
/// (sitemaps.org, "Entity escaping").
pub(crate) fn push_url(buffer: &mut String, loc: &str, lastmod: Option<Timestamp>) {
    push_entry(buffer, "url", loc, lastmod);
}

/// Appends one `<sitemap>` entry of an index to `buffer`.
pub(crate) fn push_sitemap(buffer: &mut String, loc: &str, lastmod: Option<Timestamp>) {
    push_entry(buffer, "sitemap", loc, lastmod);
}

fn push_entry(buffer: &mut String, element: &str, loc: &str, lastmod: Option<Timestamp>) {
    buffer.push_str("  <");
    buffer.push_str(element);
    buffer.push_str(">\n    <loc>");
    buffer.push_str(&escape(loc));
    buffer.push_str("</loc>\n");
    if let Some(lastmod) = lastmod {
        buffer.push_str("    <lastmod>");
        buffer.push_str(&format_lastmod(lastmod));
        buffer.push_str("</lastmod>\n");
    }
    buffer.push_str("  </");
    buffer.push_str(element);
    buffer.push_str(">\n");
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn lastmod_is_w3c_datetime_in_utc() {
        let timestamp: Timestamp = "2024-01-02T03:04:05.678-05:00"
            .parse()
            .unwrap_or_else(|error| panic!("{error}"));
        assert_eq!(format_lastmod(timestamp), "2024-01-02T08:04:05+00:00");
    }

    #[test]
    fn all_five_special_characters_are_escaped() {
        let mut buffer = String::new();
        push_url(&mut buffer, "https://e.com/?a=1&b='2'&c=\"3\"&d=<4>", None);
        insta::assert_snapshot!(buffer, @r#"
          <url>
            <loc>https://e.com/?a=1&amp;b=&apos;2&apos;&amp;c=&quot;3&quot;&amp;d=&lt;4&gt;</loc>
          </url>
        "#);
    }

    proptest! {
        #[test]
        fn escaping_round_trips(loc in "\\PC{0,64}") {
            let escaped = escape(loc.as_str());
            let unescaped = quick_xml::escape::unescape(&escaped);
            prop_assert_eq!(unescaped.ok().map(|text| text.into_owned()), Some(loc));
        }
    }
}
