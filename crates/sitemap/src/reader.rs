//! Reading a sitemap or a sitemap index: the `<loc>` and `<lastmod>` of each entry, streamed
//! with quick-xml. Lenient about what it cannot use (unknown elements, extensions, comments),
//! strict about what makes the document unreadable; never panics on any input.

use quick_xml::events::Event;

use crate::lines::LineCounter;
use crate::references::resolve_reference;

/// What a sitemap document holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SitemapDocument {
    /// A `<urlset>`: page entries.
    UrlSet(Vec<SitemapEntry>),
    /// A `<sitemapindex>`: entries naming child sitemaps.
    Index(Vec<SitemapEntry>),
}

/// One `<url>` or `<sitemap>` entry.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SitemapEntry {
    /// The `<loc>` text, entities resolved, trimmed (not validated here).
    pub loc: String,
    /// The `<lastmod>` text as written (not validated here).
    pub lastmod: Option<String>,
    /// The 1-based line of the entry's opening tag.
    pub line: usize,
}

/// Why a document cannot be read as a sitemap.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReadError {
    /// Not well-formed XML, or an entity that is not predefined.
    #[error("line {line}: {message}")]
    Malformed {
        /// The 1-based line where reading stopped.
        line: usize,
        /// What is wrong there.
        message: String,
    },
    /// The root element, named here, is neither of the protocol's.
    #[error("the root element is <{0}>, not <urlset> or <sitemapindex>")]
    UnknownRoot(String),
    /// The document has no element at all.
    #[error("no root element")]
    Empty,
}

/// Reads a whole sitemap or index (already decompressed).
pub fn read_sitemap(xml: &[u8]) -> Result<SitemapDocument, ReadError> {
    let mut reader = quick_xml::Reader::from_reader(xml);
    // Text is kept whole (an entity splits it into several events) and trimmed per entry.
    reader.config_mut().check_end_names = true;
    let mut buffer = Vec::new();
    let mut root: Option<String> = None;
    let mut entries = Vec::new();
    let mut entry: Option<SitemapEntry> = None;
    // The local name of the element whose text is being read (`loc` or `lastmod`).
    let mut field: Option<&'static str> = None;
    let mut lines = LineCounter::default();
    loop {
        let event = reader
            .read_event_into(&mut buffer)
            .map_err(|error| ReadError::Malformed {
                line: lines.line_at(xml, reader.error_position()),
                message: error.to_string(),
            })?;
        // The end of the event just read: the line its tag (or text) ends on.
        let position = lines.line_at(xml, reader.buffer_position());
        match event {
            Event::Start(start) => {
                let name = start.local_name().as_ref().to_string();
                match (&root, name.as_str()) {
                    (None, "urlset" | "sitemapindex") => root = Some(name),
                    (None, _) => return Err(ReadError::UnknownRoot(name)),
                    (Some(root), "url") if root == "urlset" => {
                        entry = Some(SitemapEntry {
                            line: position,
                            ..SitemapEntry::default()
                        });
                    }
                    (Some(root), "sitemap") if root == "sitemapindex" => {
                        entry = Some(SitemapEntry {
                            line: position,
                            ..SitemapEntry::default()
                        });
                    }
                    // Only the protocol's own `loc` and `lastmod`, not an extension's
                    // (`image:loc` has the local name `loc` too).
                    (Some(_), "loc") if entry.is_some() && start.name().prefix().is_none() => {
                        field = Some("loc");
                    }
                    (Some(_), "lastmod") if entry.is_some() => field = Some("lastmod"),
                    _ => field = None,
                }
            }
            Event::Text(text) => {
                if let (Some(field), Some(entry)) = (field, entry.as_mut()) {
                    // Entities arrive as their own events: the text holds none.
                    push_text(entry, field, &text.into_inner());
                }
            }
            Event::GeneralRef(reference) => {
                if let (Some(field), Some(entry)) = (field, entry.as_mut()) {
                    let name = reference.into_inner().into_owned();
                    let resolved =
                        resolve_reference(&name).ok_or_else(|| ReadError::Malformed {
                            line: position,
                            message: format!("unknown entity &{name};"),
                        })?;
                    push_text(entry, field, resolved.encode_utf8(&mut [0; 4]));
                }
            }
            Event::CData(data) => {
                if let (Some(field), Some(entry)) = (field, entry.as_mut()) {
                    push_text(entry, field, &data.into_inner());
                }
            }
            Event::End(end) => match end.local_name().as_ref() {
                "url" | "sitemap" => entries.extend(entry.take().map(trimmed)),
                _ => field = None,
            },
            Event::Eof => break,
            _ => {}
        }
        buffer.clear();
    }
    match root.as_deref() {
        Some("urlset") => Ok(SitemapDocument::UrlSet(entries)),
        Some(_) => Ok(SitemapDocument::Index(entries)),
        None => Err(ReadError::Empty),
    }
}

fn trimmed(mut entry: SitemapEntry) -> SitemapEntry {
    entry.loc = entry.loc.trim().to_string();
    entry.lastmod = entry.lastmod.map(|lastmod| lastmod.trim().to_string());
    entry
}

fn push_text(entry: &mut SitemapEntry, field: &str, text: &str) {
    match field {
        "loc" => entry.loc.push_str(text),
        _ => entry.lastmod.get_or_insert_with(String::new).push_str(text),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn a_urlset_with_escapes_and_extensions() {
        let xml = br#"<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"
        xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">
  <url>
    <loc>https://example.com/a?x=1&amp;y=2</loc>
    <lastmod>2024-01-02T03:04:05+00:00</lastmod>
    <image:image><image:loc>https://cdn.example.com/a.png</image:loc></image:image>
  </url>
  <!-- a comment -->
  <url><loc><![CDATA[https://example.com/b]]></loc></url>
</urlset>"#;
        let SitemapDocument::UrlSet(entries) = read_sitemap(xml).unwrap() else {
            panic!("a urlset");
        };
        assert_eq!(
            entries,
            [
                SitemapEntry {
                    loc: "https://example.com/a?x=1&y=2".into(),
                    lastmod: Some("2024-01-02T03:04:05+00:00".into()),
                    line: 4,
                },
                SitemapEntry {
                    loc: "https://example.com/b".into(),
                    lastmod: None,
                    line: 10,
                },
            ]
        );
    }

    #[test]
    fn a_full_file_is_read_with_its_line_numbers() {
        let mut xml =
            String::from("<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n");
        for index in 0..50_000 {
            xml.push_str(&format!(
                "<url>\n<loc>https://e.com/{index}</loc>\n</url>\n"
            ));
        }
        xml.push_str("</urlset>\n");
        let Ok(SitemapDocument::UrlSet(entries)) = read_sitemap(xml.as_bytes()) else {
            panic!("a urlset");
        };
        assert_eq!(entries.len(), 50_000);
        assert_eq!(entries[49_999].line, 2 + 49_999 * 3);
    }

    #[test]
    fn an_index_and_bad_documents() {
        let index = b"<sitemapindex xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\"><sitemap><loc>https://e.com/s1.xml</loc></sitemap></sitemapindex>";
        assert!(
            matches!(read_sitemap(index), Ok(SitemapDocument::Index(entries)) if entries[0].loc == "https://e.com/s1.xml")
        );
        assert_eq!(
            read_sitemap(b"<html></html>"),
            Err(ReadError::UnknownRoot("html".into()))
        );
        assert_eq!(read_sitemap(b""), Err(ReadError::Empty));
        assert!(matches!(
            read_sitemap(b"<urlset>\n<url><loc>x</lo></url></urlset>"),
            Err(ReadError::Malformed { line: 2, .. })
        ));
    }

    proptest! {
        #[test]
        fn what_the_writer_writes_reads_back(
            locs in proptest::collection::vec("https://e\\.com/[a-z&'\"<>?=é ]{0,20}", 1..8),
            seconds in 0i64..4_000_000_000,
        ) {
            let lastmod = jiff::Timestamp::from_second(seconds).ok();
            let mut xml = String::from("<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n");
            for loc in &locs {
                crate::xml::push_url(&mut xml, &crate::Entry::new(loc, lastmod));
            }
            xml.push_str("</urlset>\n");
            let Ok(SitemapDocument::UrlSet(entries)) = read_sitemap(xml.as_bytes()) else {
                panic!("unreadable: {xml}");
            };
            let read: Vec<&str> = entries.iter().map(|entry| entry.loc.as_str()).collect();
            let written: Vec<&str> = locs.iter().map(|loc| loc.trim()).collect();
            prop_assert_eq!(read, written);
            for entry in &entries {
                prop_assert_eq!(entry.lastmod.clone(), lastmod.map(crate::lastmod::format_lastmod));
            }
        }

        #[test]
        fn reading_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..1024)) {
            let _ = read_sitemap(&bytes);
        }

        #[test]
        fn xml_like_input_never_panics(text in r#"(<(urlset|url|loc|lastmod|sitemap|sitemapindex)>|</(urlset|url|loc|lastmod)>|&[a-z#0-9]{0,5};?|[ -~]{0,8})*"#) {
            let _ = read_sitemap(text.as_bytes());
        }
    }
}
