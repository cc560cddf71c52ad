//! The site's own sitemaps as seeds of discovery (DESIGN.md, robots.txt: "`Sitemap:` lines
//! ... seed discovery"): what the crawl needs from a reader of the sitemaps protocol, which
//! it does not know (the binary implements [`SitemapReader`] over its sitemap crate), what
//! it reports, and which sitemaps it never reads: the ones this crawl publishes itself.

use url::Url;

/// Reads the sitemaps protocol for the crawl: the crawl fetches each sitemap (its own HTTP
/// client, pace, robots.txt and address policy), the reader says what the body holds.
pub trait SitemapReader: Send + Sync + std::fmt::Debug {
    /// A walk from `roots` (robots.txt's `Sitemap:` lines, or `/sitemap.xml`): which sitemap
    /// to fetch next, each once, through indexes to a bounded depth and count.
    fn walk(&self, roots: Vec<Url>) -> Box<dyn SitemapWalk>;
}

/// One walk through a site's sitemaps and the indexes that list them.
pub trait SitemapWalk: Send + std::fmt::Debug {
    /// The next sitemap to fetch, or `None` when every one was handed out.
    fn next_to_read(&mut self) -> Option<Url>;

    /// The body `sitemap` (the URL [`SitemapWalk::next_to_read`] handed out last) was served
    /// with, gzip or not: the `<loc>`s of a urlset as written, or none for an index, whose
    /// sitemaps the walk hands out next; or why it is not a sitemap.
    fn take_in(&mut self, sitemap: &Url, body: Vec<u8>) -> Result<Vec<String>, String>;
}

/// The most bytes of one sitemap read, compressed or not: sitemaps.org allows 50 MiB
/// uncompressed, and a larger file is not a sitemap search engines read either.
pub(crate) const MAX_SITEMAP_BYTES: usize = 50 * 1024 * 1024;

/// What seeding from the site's own sitemaps did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SitemapSeeding {
    /// Sitemap files read (indexes included).
    pub read: u64,
    /// Sitemap URLs not requested: this crawl's own output, another site's, or disallowed by
    /// robots.txt.
    pub skipped: u64,
    /// Sitemaps requested that could not be read (no answer, an error status, not a sitemap).
    pub unreadable: u64,
    /// URLs the sitemaps led the crawl to that no link had led it to before.
    pub urls_queued: u64,
    /// Whether the sitemaps were left unread because a limit (`max_pages`, `max_requests`)
    /// or a stop ended the crawl first.
    pub not_reached: bool,
}

/// Where this crawl's own sitemaps are published: read as a seed, last night's output would
/// keep every page it listed alive after the site removed its links.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct OwnSitemaps {
    /// The published directory, ending in `/`.
    base: String,
}

impl OwnSitemaps {
    /// The sitemaps published under `base` (the `--base-url`, or the scope's root as
    /// published).
    pub(crate) fn under(base: &Url) -> OwnSitemaps {
        let mut base = base.as_str().to_string();
        if !base.ends_with('/') {
            base.push('/');
        }
        OwnSitemaps { base }
    }

    /// Whether `url` (as published) names one of the files the writer publishes: the root
    /// `sitemap.xml` or `sitemap.txt`, or a child `sitemap-*.xml`, `sitemap-*.xml.gz`,
    /// `sitemap-*.txt`.
    pub(crate) fn contains(&self, url: &Url) -> bool {
        if url.query().is_some() {
            return false;
        }
        let mut url = url.clone();
        url.set_fragment(None);
        let Some(name) = url.as_str().strip_prefix(&self.base) else {
            return false;
        };
        if name.contains('/') {
            return false;
        }
        if matches!(name, "sitemap.xml" | "sitemap.txt") {
            return true;
        }
        let Some(rest) = name.strip_prefix("sitemap-") else {
            return false;
        };
        [".xml", ".xml.gz", ".txt"].iter().any(|extension| {
            rest.strip_suffix(extension)
                .is_some_and(|stem| !stem.is_empty())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(text: &str) -> Url {
        Url::parse(text).unwrap_or_else(|error| panic!("{text}: {error}"))
    }

    #[test]
    fn the_files_the_writer_publishes_are_its_own() {
        let own = OwnSitemaps::under(&url("https://example.com/blog/"));
        for name in [
            "sitemap.xml",
            "sitemap.txt",
            "sitemap-00001.xml",
            "sitemap-00002.xml.gz",
            "sitemap-00003.txt",
            "sitemap.xml#top",
        ] {
            let candidate = url(&format!("https://example.com/blog/{name}"));
            assert!(own.contains(&candidate), "{name}");
        }
    }

    #[test]
    fn other_sitemaps_are_the_site_s() {
        let own = OwnSitemaps::under(&url("https://example.com/blog/"));
        for text in [
            "https://example.com/sitemap.xml",
            "https://example.com/blog/news/sitemap.xml",
            "https://example.com/blog/sitemap_index.xml",
            "https://example.com/blog/sitemap-.xml",
            "https://example.com/blog/sitemap-1.json",
            "https://example.com/blog/sitemap.xml?page=2",
            "https://example.com/blog/sitemap.xml.gz",
            "http://example.com/blog/sitemap.xml",
            "https://www.example.com/blog/sitemap.xml",
        ] {
            assert!(!own.contains(&url(text)), "{text}");
        }
    }

    #[test]
    fn a_base_url_without_its_slash_is_a_directory() {
        let own = OwnSitemaps::under(&url("https://cdn.example.com/maps"));
        assert!(own.contains(&url("https://cdn.example.com/maps/sitemap.xml")));
        assert!(!own.contains(&url("https://cdn.example.com/mapssitemap.xml")));
    }
}
