//! The site's own sitemaps as seeds of discovery (docs/design.md, robots.txt: "`Sitemap:` lines
//! ... seed discovery"): where a site's sitemaps are looked for ([`site_sitemaps`], the one
//! rule the crawl's seeding and the audit share), what the crawl needs from a reader of the
//! sitemaps protocol, whose documents it does not read itself (the binary implements
//! [`SitemapReader`] over the sitemap crate), what it reports, and which sitemaps it never
//! reads: the ones this crawl publishes itself.

use url::Url;

/// How a sitemap of the site was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SitemapFoundBy {
    /// The user named it.
    Given,
    /// A `Sitemap:` line of robots.txt names it.
    RobotsTxt,
    /// It was looked for at a usual path: not being there is no problem.
    UsualPath,
}

/// A sitemap of the site to start from, and how it was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SiteSitemap {
    /// Where it is (as given, or as robots.txt names it: on the production host, with
    /// `--map-host`).
    pub url: Url,
    /// How it was found.
    pub found_by: SitemapFoundBy,
}

/// Where sites put their sitemaps when robots.txt names none: the protocol's example name
/// (sitemaps.org), the name of the index most CMS plugins write, and its gzip form.
pub const USUAL_SITEMAP_PATHS: [&str; 3] =
    ["/sitemap.xml", "/sitemap_index.xml", "/sitemap.xml.gz"];

/// The sitemaps of the site whose scope starts at `root`, found where search engines look
/// for them: those the user `given`; else those `declared` by robots.txt of the root's
/// origin (its `Sitemap:` lines, RFC 9309 section 2.2.4); else those at the
/// [`USUAL_SITEMAP_PATHS`] of the root's origin.
pub fn site_sitemaps(given: &[Url], declared: &[String], root: &Url) -> Vec<SiteSitemap> {
    let found = |url: Url, found_by: SitemapFoundBy| SiteSitemap { url, found_by };
    if !given.is_empty() {
        return given
            .iter()
            .map(|url| found(url.clone(), SitemapFoundBy::Given))
            .collect();
    }
    let named: Vec<SiteSitemap> = declared
        .iter()
        .filter_map(|text| Url::parse(text.trim()).ok())
        .map(|url| found(url, SitemapFoundBy::RobotsTxt))
        .collect();
    if !named.is_empty() {
        return named;
    }
    USUAL_SITEMAP_PATHS
        .iter()
        .filter_map(|path| root.join(path).ok())
        .map(|url| found(url, SitemapFoundBy::UsualPath))
        .collect()
}

/// Reads the sitemaps protocol for the crawl: the crawl fetches each sitemap (its own HTTP
/// client, pace, robots.txt and address policy), the reader says what the body holds.
pub trait SitemapReader: Send + Sync + std::fmt::Debug {
    /// A walk from `roots` (the sitemaps [`site_sitemaps`] found): which sitemap
    /// to fetch next, each once, through indexes to a bounded depth and count.
    fn walk(&self, roots: Vec<Url>) -> Box<dyn SitemapWalk>;

    /// The most bytes of one sitemap read, compressed or not: the protocol's limit on a file
    /// uncompressed (sitemaps.org); a larger file is not a sitemap search engines read
    /// either, and is not fetched past it.
    fn max_bytes(&self) -> usize;
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

/// Why a sitemap of the site was not read: the one list of reasons the crawl's summary, the
/// audit's and the report give.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotRead {
    /// On another site than the one crawled (its origin): not requested. Search engines
    /// take a sitemap on another host only when the site's robots.txt names it or both
    /// hosts are verified together in their webmaster tools.
    OtherSite(String),
    /// Written by sitemapper (this crawl's own output, or another run's): what it lists came
    /// from a crawl, not from the site.
    OwnOutput,
    /// robots.txt of its origin disallows it.
    Disallowed,
    /// Not a URL the crawl can request.
    NotRequestable,
    /// No answer, or an error status: why.
    NotFetched(String),
    /// It answered, and is not a sitemap: why.
    NotASitemap(String),
}

impl NotRead {
    /// Not requested at all (another site's, sitemapper's own, disallowed, not requestable),
    /// rather than requested and found unreadable.
    pub fn is_skipped(&self) -> bool {
        matches!(
            self,
            NotRead::OtherSite(_)
                | NotRead::OwnOutput
                | NotRead::Disallowed
                | NotRead::NotRequestable
        )
    }
}

impl std::fmt::Display for NotRead {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NotRead::OtherSite(origin) => write!(formatter, "on another site ({origin})"),
            NotRead::OwnOutput => formatter.write_str("written by sitemapper, not by the site"),
            NotRead::Disallowed => formatter.write_str("disallowed by robots.txt"),
            NotRead::NotRequestable => formatter.write_str("not a URL that can be requested"),
            NotRead::NotFetched(why) => write!(formatter, "cannot be fetched: {why}"),
            NotRead::NotASitemap(why) => write!(formatter, "not a sitemap: {why}"),
        }
    }
}

/// At most this many sitemaps not read are named, each with its reason.
pub const NOT_READ_KEPT: usize = 100;

/// What seeding from the site's own sitemaps did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SitemapSeeding {
    /// Where they were looked for: how the sitemaps started from were found (`None` when
    /// seeding did not begin).
    pub looked: Option<SitemapFoundBy>,
    /// The sitemaps requested or skipped that gave no seeds, with why (at most
    /// [`NOT_READ_KEPT`]; the counts below count them all).
    pub not_read: Vec<(Url, NotRead)>,
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

impl SitemapSeeding {
    /// Notes `sitemap` as not read, for `why`.
    pub(crate) fn note(&mut self, sitemap: &Url, why: NotRead) {
        if self.not_read.len() < NOT_READ_KEPT {
            self.not_read.push((sitemap.clone(), why));
        }
    }
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

    #[test]
    fn the_users_sitemaps_else_robots_txt_s_else_the_usual_paths() {
        let root = url("https://e.com/blog/");
        let given = [url("https://e.com/mine.xml")];
        let declared = [
            " https://e.com/declared.xml ".to_string(),
            "not a url".to_string(),
        ];
        let found = |sitemaps: Vec<SiteSitemap>| -> Vec<(String, SitemapFoundBy)> {
            sitemaps
                .into_iter()
                .map(|sitemap| (sitemap.url.to_string(), sitemap.found_by))
                .collect()
        };
        assert_eq!(
            found(site_sitemaps(&given, &declared, &root)),
            [("https://e.com/mine.xml".to_string(), SitemapFoundBy::Given)]
        );
        assert_eq!(
            found(site_sitemaps(&[], &declared, &root)),
            [(
                "https://e.com/declared.xml".to_string(),
                SitemapFoundBy::RobotsTxt
            )]
        );
        assert_eq!(
            found(site_sitemaps(&[], &["not a url".to_string()], &root)),
            [
                "https://e.com/sitemap.xml",
                "https://e.com/sitemap_index.xml",
                "https://e.com/sitemap.xml.gz"
            ]
            .map(|text| (text.to_string(), SitemapFoundBy::UsualPath)),
            "at the origin's root, whatever the scope's directory"
        );
    }

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
