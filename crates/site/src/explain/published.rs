//! Which published sitemap file lists a URL: read from the files themselves, where the last
//! run published them, so that the answer is what a search engine reads.

use std::path::Path;

use sitemapper_sitemap::{SitemapDocument, read_sitemap};
use url::Url;

use crate::sitemap_source::gunzip_if_gzip;

/// The first of the files `names` in `directory` (sitemaps, gzipped or not; indexes and
/// text files are skipped) that lists `url`, by its `<loc>`, or under another host with
/// the same path and query (`--base-url`, a staging host's mapping). `Err` with the
/// directory's path when none of the files can be read there.
pub(crate) fn file_listing<'a>(
    directory: &Path,
    names: impl IntoIterator<Item = &'a str>,
    url: &Url,
) -> Result<Option<String>, String> {
    let mut read_any = false;
    let mut names: Vec<&str> = names
        .into_iter()
        .filter(|name| name.ends_with(".xml") || name.ends_with(".xml.gz"))
        .collect();
    names.sort_unstable();
    for name in names {
        let Ok(bytes) = std::fs::read(directory.join(name)) else {
            continue;
        };
        let Ok(xml) = gunzip_if_gzip(bytes) else {
            continue;
        };
        read_any = true;
        let Ok(SitemapDocument::UrlSet(entries)) = read_sitemap(&xml) else {
            continue;
        };
        if entries.iter().any(|entry| names_the_page(&entry.loc, url)) {
            return Ok(Some(name.to_string()));
        }
    }
    if read_any {
        Ok(None)
    } else {
        Err(directory.display().to_string())
    }
}

/// Whether a `<loc>` names `url`: the same URL, or the same path and query elsewhere.
fn names_the_page(loc: &str, url: &Url) -> bool {
    if loc == url.as_str() {
        return true;
    }
    Url::parse(loc).is_ok_and(|loc| loc.path() == url.path() && loc.query() == url.query())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_file_that_lists_the_url_is_found_gzipped_or_not() {
        let directory = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
        let urlset = |locs: &[&str]| {
            let entries: String = locs
                .iter()
                .map(|loc| format!("<url><loc>{loc}</loc></url>"))
                .collect();
            format!(
                r#"<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{entries}</urlset>"#
            )
        };
        let write = |name: &str, bytes: &[u8]| {
            std::fs::write(directory.path().join(name), bytes)
                .unwrap_or_else(|error| panic!("{error}"));
        };
        write("sitemap-1.xml", urlset(&["https://e.com/a"]).as_bytes());
        let mut gzipped = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(
            &mut gzipped,
            urlset(&["https://e.com/b?x=1&amp;y=2"]).as_bytes(),
        )
        .unwrap_or_else(|error| panic!("{error}"));
        write(
            "sitemap-2.xml.gz",
            &gzipped.finish().unwrap_or_else(|error| panic!("{error}")),
        );
        let names = ["sitemap-2.xml.gz", "sitemap-1.xml", "sitemap.txt"];
        let find = |url: &str| {
            file_listing(
                directory.path(),
                names,
                &Url::parse(url).unwrap_or_else(|error| panic!("{error}")),
            )
        };
        assert_eq!(
            find("https://e.com/a"),
            Ok(Some("sitemap-1.xml".to_string()))
        );
        assert_eq!(
            find("https://e.com/b?x=1&y=2"),
            Ok(Some("sitemap-2.xml.gz".to_string()))
        );
        assert_eq!(
            find("https://staging.e.com/a"),
            Ok(Some("sitemap-1.xml".to_string())),
            "published under another host"
        );
        assert_eq!(find("https://e.com/c"), Ok(None));
        let elsewhere = directory.path().join("gone");
        assert_eq!(
            file_listing(
                &elsewhere,
                names,
                &Url::parse("https://e.com/a").unwrap_or_else(|error| panic!("{error}"))
            ),
            Err(elsewhere.display().to_string())
        );
    }
}
