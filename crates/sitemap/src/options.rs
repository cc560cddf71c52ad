//! How a sitemap is written: [`WriteOptions`] (format, limits, compression, the extensions
//! declared), [`Format`], and the `--split-by` group that would take the news sitemap's name.
//! It names only the crate's limits.

use crate::limits::Limits;

/// The `--split-by` group whose file would take the news sitemap's name.
pub(crate) const NEWS_GROUP: &str = "news";

/// Which sitemap format a writer produces.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Format {
    /// sitemaps.org XML, with an index over several files.
    #[default]
    Xml,
    /// One URL per line, UTF-8; several files are not indexed.
    Text,
}

/// How a [`SitemapWriter`](crate::SitemapWriter) writes: format, limits, compression, and the extensions declared.
#[derive(Debug, Clone)]
pub struct WriteOptions {
    /// How much one file holds at most.
    pub limits: Limits,
    /// Write `.xml.gz` children; the index `sitemap.xml` stays uncompressed.
    pub gzip: bool,
    /// Absolute URL ending in `/` under which the files are published.
    pub base_url: String,
    /// XML or text.
    pub format: Format,
    /// Entries carry `<image:image>` elements: declare the namespace.
    pub images: bool,
    /// Entries carry `<xhtml:link>` alternates: declare the namespace.
    pub alternates: bool,
    /// Entries carry `<video:video>` elements: declare the namespace.
    pub videos: bool,
    /// A news sitemap ([`crate::NEWS_FILE_STEM`]) may be written beside the pages: a group
    /// named `news` is then written as `sitemap-news-pages`, so that the two never share a
    /// name.
    pub news: bool,
}
