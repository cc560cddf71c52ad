//! One sitemap entry and the XML text of sitemaps and indexes (sitemaps.org protocol 0.9), one
//! piece at a time so that the writer can measure each entry before it commits to a file.

use jiff::Timestamp;
use quick_xml::escape::escape;

use crate::lastmod::format_lastmod;
use crate::options::WriteOptions;
use crate::video::{VIDEO_NAMESPACE, VideoEntry, push_video};

pub(crate) const URLSET_FOOTER: &str = "</urlset>\n";
pub(crate) const INDEX_HEADER: &str = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!-- written by sitemapper -->\n<sitemapindex xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n";

/// The comment every XML file the writer produces carries after its declaration, by which a
/// crawl that seeds from a site's sitemaps knows its own output (`--seed-sitemaps`).
const MARK: &str = "<!-- written by sitemapper -->";

/// Whether `xml` (uncompressed) is a sitemap or index this writer produced: the mark in its
/// first lines, where the writer puts it.
pub fn is_written_by_sitemapper(xml: &[u8]) -> bool {
    let head = &xml[..xml.len().min(256)];
    head.windows(MARK.len())
        .any(|window| window == MARK.as_bytes())
}
pub(crate) const INDEX_FOOTER: &str = "</sitemapindex>\n";

const IMAGE_NAMESPACE: &str = "http://www.google.com/schemas/sitemap-image/1.1";
const XHTML_NAMESPACE: &str = "http://www.w3.org/1999/xhtml";

/// The `<urlset>` opening, declaring the extension namespaces the entries use.
pub(crate) fn urlset_header(options: &WriteOptions) -> String {
    let mut header = String::from(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!-- written by sitemapper -->\n<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\"",
    );
    if options.images {
        header.push_str(&format!("\n        xmlns:image=\"{IMAGE_NAMESPACE}\""));
    }
    if options.videos {
        header.push_str(&format!("\n        xmlns:video=\"{VIDEO_NAMESPACE}\""));
    }
    if options.alternates {
        header.push_str(&format!("\n        xmlns:xhtml=\"{XHTML_NAMESPACE}\""));
    }
    header.push_str(">\n");
    header
}

/// How often a page is likely to change (sitemaps.org, changefreq).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum ChangeFreq {
    /// Changes at every access.
    Always,
    /// About once an hour.
    Hourly,
    /// About once a day.
    Daily,
    /// About once a week.
    Weekly,
    /// About once a month.
    Monthly,
    /// About once a year.
    Yearly,
    /// Archived: not expected to change again.
    Never,
}

impl ChangeFreq {
    /// The value as the protocol writes it: `daily`.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            ChangeFreq::Always => "always",
            ChangeFreq::Hourly => "hourly",
            ChangeFreq::Daily => "daily",
            ChangeFreq::Weekly => "weekly",
            ChangeFreq::Monthly => "monthly",
            ChangeFreq::Yearly => "yearly",
            ChangeFreq::Never => "never",
        }
    }
}

/// One `<xhtml:link rel="alternate" hreflang=".." href=".."/>`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Alternate {
    /// The language (and region) of the alternate page, or `x-default`.
    pub hreflang: String,
    /// The alternate page's absolute URL.
    pub href: String,
}

/// One sitemap entry: an absolute, normalized URL, its last modification, and the optional
/// parts (written in the XML format only).
#[derive(Debug, Clone, Copy)]
pub struct Entry<'a> {
    /// The page's URL, absolute and normalized.
    pub loc: &'a str,
    /// When the page last changed, if known.
    pub lastmod: Option<Timestamp>,
    /// How often the page is likely to change, if said.
    pub changefreq: Option<ChangeFreq>,
    /// 0.0 to 1.0, written with two decimals.
    pub priority: Option<f64>,
    /// The URLs of the images the page shows (`<image:image>`).
    pub images: &'a [String],
    /// The videos the page shows (`<video:video>`).
    pub videos: &'a [VideoEntry],
    /// The page in other languages (`<xhtml:link rel="alternate">`).
    pub alternates: &'a [Alternate],
}

impl<'a> Entry<'a> {
    /// An entry of a URL and its last modification, without the optional parts.
    pub fn new(loc: &'a str, lastmod: Option<Timestamp>) -> Entry<'a> {
        Entry {
            loc,
            lastmod,
            changefreq: None,
            priority: None,
            images: &[],
            videos: &[],
            alternates: &[],
        }
    }
}

/// Appends one `<url>` entry to `buffer`, its elements in the order the schema requires
/// (loc, lastmod, changefreq, priority, then extensions). `&`, `<`, `>`, `'` and `"` are
/// escaped as entities (sitemaps.org, "Entity escaping").
pub(crate) fn push_url(buffer: &mut String, entry: &Entry<'_>) {
    buffer.push_str("  <url>\n    <loc>");
    buffer.push_str(&escape(entry.loc));
    buffer.push_str("</loc>\n");
    if let Some(lastmod) = entry.lastmod {
        buffer.push_str("    <lastmod>");
        buffer.push_str(&format_lastmod(lastmod));
        buffer.push_str("</lastmod>\n");
    }
    if let Some(changefreq) = entry.changefreq {
        buffer.push_str("    <changefreq>");
        buffer.push_str(changefreq.as_str());
        buffer.push_str("</changefreq>\n");
    }
    if let Some(priority) = entry.priority {
        buffer.push_str(&format!(
            "    <priority>{:.2}</priority>\n",
            priority.clamp(0.0, 1.0)
        ));
    }
    for image in entry.images {
        buffer.push_str("    <image:image>\n      <image:loc>");
        buffer.push_str(&escape(image.as_str()));
        buffer.push_str("</image:loc>\n    </image:image>\n");
    }
    for video in entry.videos {
        push_video(buffer, video);
    }
    for alternate in entry.alternates {
        buffer.push_str("    <xhtml:link rel=\"alternate\" hreflang=\"");
        buffer.push_str(&escape(alternate.hreflang.as_str()));
        buffer.push_str("\" href=\"");
        buffer.push_str(&escape(alternate.href.as_str()));
        buffer.push_str("\"/>\n");
    }
    buffer.push_str("  </url>\n");
}

/// Appends one `<sitemap>` entry of an index to `buffer`.
pub(crate) fn push_sitemap(buffer: &mut String, loc: &str, lastmod: Option<Timestamp>) {
    buffer.push_str("  <sitemap>\n    <loc>");
    buffer.push_str(&escape(loc));
    buffer.push_str("</loc>\n");
    if let Some(lastmod) = lastmod {
        buffer.push_str("    <lastmod>");
        buffer.push_str(&format_lastmod(lastmod));
        buffer.push_str("</lastmod>\n");
    }
    buffer.push_str("  </sitemap>\n");
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
        push_url(
            &mut buffer,
            &Entry::new("https://e.com/?a=1&b='2'&c=\"3\"&d=<4>", None),
        );
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
