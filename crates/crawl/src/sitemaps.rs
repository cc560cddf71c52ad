//! The site's own sitemaps as seeds of discovery (docs/design.md, robots.txt: "`Sitemap:` lines
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
    /// sitemaps the walk hands out next; or why it gives no seeds.
    fn take_in(&mut self, sitemap: &Url, body: Vec<u8>) -> Result<Vec<String>, NoSeeds>;
}

/// Why a sitemap fetched gives no seeds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NoSeeds {
    /// sitemapper wrote it (a run's output, this one's or another's): what it lists came from
    /// a crawl, not from the site, and read as seeds it would keep alive every page an earlier
    /// run listed. An index of this kind is not followed either.
    WrittenBySitemapper,
    /// Not a sitemap: why.
    Unreadable(String),
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

/// The files this crawl's output directory holds from earlier runs, where they are published:
/// read as a seed, last night's output would keep every page it listed alive after the site
/// removed its links. They are not even requested. (Output published elsewhere, or copied
/// from a fresh directory each night, is known by its content: [`NoSeeds::WrittenBySitemapper`].)
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct OwnSitemaps {
    /// The published directory, ending in `/`.
    base: String,
    /// The names of the files published there.
    names: Vec<String>,
}

impl OwnSitemaps {
    /// The files `names` published under `base` (the `--base-url`, or the scope's root as
    /// published).
    pub(crate) fn under(base: &Url, names: &[String]) -> OwnSitemaps {
        let mut base = base.as_str().to_string();
        if !base.ends_with('/') {
            base.push('/');
        }
        OwnSitemaps {
            base,
            names: names.to_vec(),
        }
    }

    /// Whether `url` (as published) names one of the files published.
    pub(crate) fn contains(&self, url: &Url) -> bool {
        if url.query().is_some() {
            return false;
        }
        let mut url = url.clone();
        url.set_fragment(None);
        let Some(name) = url.as_str().strip_prefix(&self.base) else {
            return false;
        };
        !name.contains('/') && self.names.iter().any(|own| own == name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(text: &str) -> Url {
        Url::parse(text).unwrap_or_else(|error| panic!("{text}: {error}"))
    }

    fn names(names: &[&str]) -> Vec<String> {
        names.iter().map(|name| name.to_string()).collect()
    }

    #[test]
    fn the_files_published_are_its_own() {
        let published = names(&["sitemap.xml", "sitemap-blog.xml", "sitemap-00002.xml.gz"]);
        let own = OwnSitemaps::under(&url("https://example.com/blog/"), &published);
        for name in [
            "sitemap.xml",
            "sitemap-blog.xml",
            "sitemap-00002.xml.gz",
            "sitemap.xml#top",
        ] {
            let candidate = url(&format!("https://example.com/blog/{name}"));
            assert!(own.contains(&candidate), "{name}");
        }
    }

    #[test]
    fn other_sitemaps_are_the_site_s() {
        let published = names(&["sitemap.xml", "sitemap-00001.xml"]);
        let own = OwnSitemaps::under(&url("https://example.com/blog/"), &published);
        for text in [
            "https://example.com/sitemap.xml",
            "https://example.com/blog/news/sitemap.xml",
            "https://example.com/blog/sitemap_index.xml",
            "https://example.com/blog/sitemap-00002.xml",
            "https://example.com/blog/sitemap.xml?page=2",
            "https://example.com/blog/sitemap.xml.gz",
            "http://example.com/blog/sitemap.xml",
            "https://www.example.com/blog/sitemap.xml",
        ] {
            assert!(!own.contains(&url(text)), "{text}");
        }
        let nothing_published = OwnSitemaps::under(&url("https://example.com/"), &[]);
        assert!(
            !nothing_published.contains(&url("https://example.com/sitemap.xml")),
            "a site's sitemap.xml is its own until this output was published there"
        );
    }

    #[test]
    fn a_base_url_without_its_slash_is_a_directory() {
        let own = OwnSitemaps::under(
            &url("https://cdn.example.com/maps"),
            &names(&["sitemap.xml"]),
        );
        assert!(own.contains(&url("https://cdn.example.com/maps/sitemap.xml")));
        assert!(!own.contains(&url("https://cdn.example.com/mapssitemap.xml")));
    }
}
