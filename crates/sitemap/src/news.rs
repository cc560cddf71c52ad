//! Google's news sitemap (`http://www.google.com/schemas/sitemap-news/0.9`): the articles
//! published in the last two days, in a file of their own (`sitemap-news.xml`, or
//! `sitemap-news.xml.gz` when the children are gzipped) that the index lists beside the
//! pages' files. Google reads at most 1,000 entries of a news sitemap: the newest are kept.
//! The file holds no more than the limits of any other file either.

use std::path::Path;

use jiff::Timestamp;
use quick_xml::escape::escape;
use xxhash_rust::xxh3::Xxh3;

use crate::directory::Directory;
use crate::error::SitemapError;
use crate::lastmod::format_lastmod;
use crate::options::{NEWS_GROUP, WriteOptions};
use crate::writer::{Sink, WrittenChild, open_sink};
use crate::xml::URLSET_FOOTER;

/// The news sitemap's name without its extension.
pub const NEWS_FILE_STEM: &str = "sitemap-news";

/// The most entries a news sitemap holds (Google: "no more than 1,000 news:news tags").
pub const MAX_NEWS_ENTRIES: usize = 1_000;

const NEWS_HEADER: &str = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!-- written by sitemapper -->\n<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\"\n        xmlns:news=\"http://www.google.com/schemas/sitemap-news/0.9\">\n";

/// One article of the news sitemap.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewsEntry {
    /// The article's URL, absolute.
    pub loc: String,
    /// Its title.
    pub title: String,
    /// Its language as Google writes it: an ISO 639 code in lower case, or `zh-cn`, `zh-tw`.
    pub language: String,
    /// When it was published.
    pub publication_date: Timestamp,
}

/// Writes the news sitemap of `publication` (its name as Google News knows it) into
/// `directory`: the newest `entries` first (then by URL), as many as [`MAX_NEWS_ENTRIES`] and
/// the file limits of `options` allow. `None`, and no file, when there is no entry: an
/// empty `<urlset>` is not valid.
pub fn write_news(
    directory: &Path,
    options: &WriteOptions,
    publication: &str,
    mut entries: Vec<NewsEntry>,
) -> Result<Option<WrittenChild>, SitemapError> {
    if entries.is_empty() {
        return Ok(None);
    }
    entries.sort_by(|left, right| {
        right
            .publication_date
            .cmp(&left.publication_date)
            .then_with(|| left.loc.cmp(&right.loc))
    });
    let most = MAX_NEWS_ENTRIES.min(options.limits.max_urls);
    let mut body = String::new();
    let mut entry = String::new();
    let mut urls = 0;
    let mut newest = None;
    let room = options
        .limits
        .max_bytes
        .saturating_sub((NEWS_HEADER.len() + URLSET_FOOTER.len()) as u64);
    for article in entries.iter().take(most) {
        entry.clear();
        push_news(&mut entry, publication, article);
        if (body.len() + entry.len()) as u64 > room {
            break;
        }
        body.push_str(&entry);
        urls += 1;
        newest = newest.max(Some(article.publication_date));
    }
    if urls == 0 {
        return Err(SitemapError::EntryTooLarge {
            loc: entries[0].loc.clone(),
            needed: (NEWS_HEADER.len() + entry.len() + URLSET_FOOTER.len()) as u64,
            limit: options.limits.max_bytes,
        });
    }
    let extension = if options.gzip { "xml.gz" } else { "xml" };
    let name = format!("{NEWS_FILE_STEM}.{extension}");
    let path = directory.join(&name);
    // Not through a link at the directory's own name: it is the staging directory.
    let directory =
        Directory::open_not_through_link(directory).map_err(|source| SitemapError::Write {
            path: directory.to_path_buf(),
            source,
        })?;
    let mut sink = open_sink(&directory, &name, options.gzip)?;
    let mut digest = Xxh3::new();
    for part in [NEWS_HEADER, body.as_str(), URLSET_FOOTER] {
        digest.update(part.as_bytes());
        write(&mut sink, &path, part)?;
    }
    sink.close()
        .map_err(|source| SitemapError::Write { path, source })?;
    Ok(Some(WrittenChild {
        name,
        group: NEWS_GROUP.to_string(),
        urls,
        newest,
        digest: digest.digest(),
    }))
}

fn write(sink: &mut Sink, path: &Path, text: &str) -> Result<(), SitemapError> {
    sink.write_all(text.as_bytes())
        .map_err(|source| SitemapError::Write {
            path: path.to_path_buf(),
            source,
        })
}

/// Appends one `<url>` with its `<news:news>`, in the order `schemas/sitemap-news.xsd`
/// requires.
fn push_news(buffer: &mut String, publication: &str, article: &NewsEntry) {
    buffer.push_str("  <url>\n    <loc>");
    buffer.push_str(&escape(article.loc.as_str()));
    buffer.push_str("</loc>\n    <news:news>\n      <news:publication>\n        <news:name>");
    buffer.push_str(&escape(publication));
    buffer.push_str("</news:name>\n        <news:language>");
    buffer.push_str(&escape(article.language.as_str()));
    buffer.push_str("</news:language>\n      </news:publication>\n      <news:publication_date>");
    buffer.push_str(&format_lastmod(article.publication_date));
    buffer.push_str("</news:publication_date>\n      <news:title>");
    buffer.push_str(&escape(article.title.as_str()));
    buffer.push_str("</news:title>\n    </news:news>\n  </url>\n");
}
