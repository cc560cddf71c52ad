//! The generated sites: deterministic pages rendered on request (nothing is held in memory
//! or written to disk), and the exact set of URLs a correct crawl lists. A [`ChangingSite`]
//! is the same site in editions a test switches between, its pages carrying validators, for
//! the recrawls of a scheduled job: from one night to the next, the revised pages change and
//! every other page stays byte for byte the same.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use bytes::Bytes;

use crate::server::{Reply, Routes, Validators};

/// Words for the filler text.
pub(crate) const WORDS: &[&str] = &[
    "lorem",
    "ipsum",
    "dolor",
    "sit",
    "amet",
    "consectetur",
    "adipiscing",
    "elit",
    "sed",
    "do",
    "eiusmod",
    "tempor",
    "incididunt",
    "ut",
    "labore",
    "et",
    "dolore",
    "magna",
    "aliqua",
    "enim",
    "minim",
    "veniam",
    "quis",
    "nostrud",
    "exercitation",
    "ullamco",
    "laboris",
    "nisi",
    "aliquip",
    "commodo",
    "consequat",
    "duis",
    "aute",
    "irure",
    "reprehenderit",
    "voluptate",
    "velit",
    "esse",
];

/// How big the pages are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PageSize {
    /// About 15 to 40 KB of HTML, 40 to 100 links.
    Full,
    /// About 1 KB, a handful of links (the million-page case).
    Small,
}

/// A site of `pages` pages: `/` and `/p/1` ... `/p/{pages-1}`, plus canonical duplicates
/// (`/dup/N`, canonical to `/p/N`) for every tenth page and noindex pages (`/hidden/N`) for
/// every twentieth, linked from their pages.
#[derive(Debug, Clone, Copy)]
pub(crate) struct GeneratedSite {
    pub pages: u64,
    pub size: PageSize,
}

/// A response body, or none (404).
pub(crate) type Body = Option<String>;

/// Pages numbered `REVISED_EVERY * k + REVISED_AT` change from one generation to the next:
/// one page in a hundred, all of them listed pages (no duplicate or noindex page has such a
/// number), spread over the whole site.
const REVISED_EVERY: u64 = 100;
const REVISED_AT: u64 = 42;

/// When the pages of generation 0 were published (2026-01-01T00:00:00Z); each page's
/// `Last-Modified` is up to thirty days before, and a revised page's a day later per
/// generation.
const FIRST_PUBLISHED: i64 = 1_767_225_600;
const DAY: i64 = 86_400;

/// The generation a [`ChangingSite`] serves, shared between the server and whoever switches
/// it.
#[derive(Debug, Clone, Default)]
pub(crate) struct Generation(Arc<AtomicU64>);

impl Generation {
    pub(crate) fn get(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }

    pub(crate) fn set(&self, generation: u64) {
        self.0.store(generation, Ordering::Relaxed);
    }
}

/// A [`GeneratedSite`] served in its current generation, with validators: generation 0 is the
/// site as first generated; in each later one the revised pages
/// ([`GeneratedSite::revised_paths`]) read differently and carry a new `ETag` and a later
/// `Last-Modified`.
#[derive(Debug, Clone)]
pub(crate) struct ChangingSite {
    pub site: GeneratedSite,
    pub generation: Generation,
}

impl Routes for ChangingSite {
    fn reply(&self, path: &str, query: Option<&str>) -> Option<Reply> {
        let html = self
            .site
            .render_in(path, self.generation.get())
            .filter(|_| query.is_none())?;
        Some(Reply::new("text/html; charset=utf-8", Bytes::from(html)))
    }

    fn validators(&self, path: &str, query: Option<&str>, _: &str) -> Option<Validators> {
        let (kind, number) = parse(path).filter(|_| query.is_none())?;
        self.site
            .exists(kind, number)
            .then(|| validators(kind, number, revision(kind, number, self.generation.get())))
    }
}

/// When the document of `seed` was first published, in seconds since the Unix epoch: up to
/// thirty days before [`FIRST_PUBLISHED`].
pub(crate) fn published(seed: u64) -> i64 {
    FIRST_PUBLISHED - SplitMix(seed).below(30 * DAY as u64) as i64
}

/// The edition of a page in `generation`: the generation for a revised page, else 0.
fn revision(kind: Kind, number: u64, generation: u64) -> u64 {
    if kind == Kind::Page && number % REVISED_EVERY == REVISED_AT {
        generation
    } else {
        0
    }
}

/// A page's validators in `revision`, as nginx makes them from a file's modification time and
/// size: the strong tag `"MTIME-N"` in hexadecimal, N standing for the size.
fn validators(kind: Kind, number: u64, revision: u64) -> Validators {
    let salt = match kind {
        Kind::Page => 1,
        Kind::Duplicate => 2,
        Kind::Hidden => 3,
    };
    let seed = number.wrapping_mul(4) + salt;
    let last_modified = published(seed) + DAY * revision as i64;
    let size = 0x3000 + SplitMix(!seed).below(0x7000);
    Validators {
        etag: format!("\"{last_modified:x}-{size:x}\""),
        last_modified,
    }
}

impl GeneratedSite {
    pub(crate) fn new(pages: u64) -> GeneratedSite {
        let size = if pages > 200_000 {
            PageSize::Small
        } else {
            PageSize::Full
        };
        GeneratedSite { pages, size }
    }

    fn page_path(number: u64) -> String {
        if number == 0 {
            "/".to_string()
        } else {
            format!("/p/{number}")
        }
    }

    /// Every URL path a correct crawl lists, in order.
    pub(crate) fn expected_paths(&self) -> BTreeSet<String> {
        (0..self.pages).map(Self::page_path).collect()
    }

    /// Every URL path a crawl fetches: the pages, the duplicates and the noindex pages.
    pub(crate) fn fetched_paths(&self) -> Vec<String> {
        let mut paths: Vec<String> = (0..self.pages).map(Self::page_path).collect();
        for number in 1..self.pages {
            if has_duplicate(number, self.size) {
                paths.push(format!("/dup/{number}"));
            }
            if has_hidden(number, self.size) {
                paths.push(format!("/hidden/{number}"));
            }
        }
        paths
    }

    /// The paths of the pages that change from one generation to the next (all listed).
    pub(crate) fn revised_paths(&self) -> BTreeSet<String> {
        (REVISED_AT..self.pages)
            .step_by(REVISED_EVERY as usize)
            .map(Self::page_path)
            .collect()
    }

    /// The HTML at `path`.
    pub(crate) fn render(&self, path: &str) -> Body {
        self.render_in(path, 0)
    }

    /// The HTML at `path` in `generation`.
    pub(crate) fn render_in(&self, path: &str, generation: u64) -> Body {
        let (kind, number) = parse(path)?;
        if !self.exists(kind, number) {
            return None;
        }
        let revision = revision(kind, number, generation);
        Some(match self.size {
            PageSize::Full => self.full_page(kind, number, revision),
            PageSize::Small => self.small_page(kind, number, revision),
        })
    }

    fn exists(&self, kind: Kind, number: u64) -> bool {
        number < self.pages
            && match kind {
                Kind::Page => true,
                Kind::Duplicate => has_duplicate(number, self.size),
                Kind::Hidden => has_hidden(number, self.size),
            }
    }

    fn head(&self, kind: Kind, number: u64) -> String {
        let canonical = match kind {
            Kind::Duplicate => format!(
                "<link rel=\"canonical\" href=\"{}\">",
                Self::page_path(number)
            ),
            _ => String::new(),
        };
        let robots = match kind {
            Kind::Hidden => "<meta name=\"robots\" content=\"noindex\">",
            _ => "",
        };
        format!(
            "<!doctype html><html><head><meta charset=\"utf-8\"><title>Page {number}</title>\
             <meta name=\"description\" content=\"Generated page {number}\">{canonical}{robots}</head>"
        )
    }

    fn full_page(&self, kind: Kind, number: u64, revision: u64) -> String {
        let mut random = SplitMix(number.wrapping_mul(0x9E37_79B9) ^ 0x5EED);
        let mut html = self.head(kind, number);
        html.push_str("<body><nav>");
        // Navigation: twenty section pages, the same on every page.
        for section in 0..20 {
            let target = section * self.pages / 20;
            html.push_str(&format!(
                "<a href=\"{}\">Section {section}</a> ",
                Self::page_path(target)
            ));
        }
        html.push_str("</nav><main><h1>Page ");
        html.push_str(&number.to_string());
        html.push_str("</h1>");
        revised(&mut html, revision);
        let links = 20 + random.below(61);
        let paragraphs = 6 + random.below(14);
        for paragraph in 0..paragraphs {
            html.push_str("<p>");
            for _ in 0..(150 + random.below(150)) {
                html.push_str(WORDS[random.below(WORDS.len() as u64) as usize]);
                html.push(' ');
            }
            html.push_str("</p>");
            // Spread the links through the text.
            for index in 0..links / paragraphs + u64::from(paragraph == 0) * (links % paragraphs) {
                let target = random.below(self.pages);
                let link = match (index + paragraph) % 4 {
                    // Relative to /p/, where pages other than / live (duplicates and noindex
                    // pages live elsewhere and link absolutely).
                    0 if target > 0 && number > 0 && kind == Kind::Page => format!("{target}"),
                    1 => format!("{}#section-{index}", Self::page_path(target)),
                    2 => format!(
                        "{}?utm_source=bench&amp;utm_medium=link",
                        Self::page_path(target)
                    ),
                    _ => Self::page_path(target),
                };
                html.push_str(&format!("<a href=\"{link}\">link {index}</a> "));
            }
        }
        self.tail(&mut html, number);
        html
    }

    fn small_page(&self, kind: Kind, number: u64, revision: u64) -> String {
        let mut random = SplitMix(number ^ 0xB0B);
        let mut html = self.head(kind, number);
        html.push_str("<body>");
        revised(&mut html, revision);
        html.push_str("<p>");
        for _ in 0..30 {
            html.push_str(WORDS[random.below(WORDS.len() as u64) as usize]);
            html.push(' ');
        }
        html.push_str("</p>");
        for _ in 0..3 {
            let target = random.below(self.pages);
            html.push_str(&format!(
                "<a href=\"{}\">more</a> ",
                Self::page_path(target)
            ));
        }
        self.tail(&mut html, number);
        html
    }

    /// The links that make every page reachable (the next pages in a chain that fans out,
    /// so the site is shallow) and the duplicate and noindex pages.
    fn tail(&self, html: &mut String, number: u64) {
        for child in [number * 2 + 1, number * 2 + 2] {
            if child < self.pages {
                html.push_str(&format!(
                    "<a href=\"{}\">child</a> ",
                    Self::page_path(child)
                ));
            }
        }
        if number > 0 && has_duplicate(number, self.size) {
            html.push_str(&format!("<a href=\"/dup/{number}\">printable</a> "));
        }
        if number > 0 && has_hidden(number, self.size) {
            html.push_str(&format!("<a href=\"/hidden/{number}\">draft</a> "));
        }
        html.push_str("</main></body></html>");
    }
}

impl Routes for GeneratedSite {
    fn reply(&self, path: &str, query: Option<&str>) -> Option<Reply> {
        let html = self.render(path).filter(|_| query.is_none())?;
        Some(Reply::new("text/html; charset=utf-8", Bytes::from(html)))
    }
}

/// The visible note of a revised page: text, no link, so that only the page's text changes.
fn revised(html: &mut String, revision: u64) {
    if revision > 0 {
        html.push_str(&format!(
            "<p>Revised in edition {revision}: the figures below were checked again.</p>"
        ));
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Page,
    Duplicate,
    Hidden,
}

fn parse(path: &str) -> Option<(Kind, u64)> {
    if path == "/" {
        return Some((Kind::Page, 0));
    }
    let (kind, number) = if let Some(number) = path.strip_prefix("/p/") {
        (Kind::Page, number)
    } else if let Some(number) = path.strip_prefix("/dup/") {
        (Kind::Duplicate, number)
    } else {
        (Kind::Hidden, path.strip_prefix("/hidden/")?)
    };
    let text = number;
    let number: u64 = text.parse().ok()?;
    // `/p/007` is not `/p/7`: one page, one URL.
    (number > 0 && number.to_string() == text).then_some((kind, number))
}

fn has_duplicate(number: u64, size: PageSize) -> bool {
    size == PageSize::Full && number.is_multiple_of(10)
}

fn has_hidden(number: u64, size: PageSize) -> bool {
    size == PageSize::Full && number % 20 == 5
}

/// SplitMix64: a tiny, well-known deterministic generator; the same site on every machine.
pub(crate) struct SplitMix(pub u64);

impl SplitMix {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut value = self.0;
        value = (value ^ (value >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        value = (value ^ (value >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        value ^ (value >> 31)
    }

    pub(crate) fn below(&mut self, bound: u64) -> u64 {
        if bound == 0 { 0 } else { self.next() % bound }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_are_deterministic_and_sized() {
        let site = GeneratedSite::new(10_000);
        let first = site.render("/p/1234").unwrap_or_default();
        assert_eq!(first, site.render("/p/1234").unwrap_or_default());
        assert!(
            (15_000..=45_000).contains(&first.len()),
            "{} bytes",
            first.len()
        );
        let links = first.matches("<a href=").count();
        assert!((40..=110).contains(&links), "{links} links");
        assert!(first.contains("utm_source=bench") && first.contains("#section-"));
    }

    #[test]
    fn the_url_space_is_exact() {
        let site = GeneratedSite::new(50);
        assert!(site.render("/p/49").is_some());
        assert!(site.render("/p/50").is_none());
        assert!(site.render("/p/049").is_none());
        assert!(
            site.render("/dup/10")
                .unwrap_or_default()
                .contains("rel=\"canonical\" href=\"/p/10\"")
        );
        assert!(site.render("/dup/11").is_none());
        assert!(
            site.render("/hidden/25")
                .unwrap_or_default()
                .contains("noindex")
        );
        assert_eq!(site.expected_paths().len(), 50);
        assert_eq!(site.fetched_paths().len(), 50 + 4 + 3);
    }

    #[test]
    fn relative_links_appear_only_where_they_resolve_to_pages() {
        let site = GeneratedSite::new(1000);
        for path in ["/dup/10", "/hidden/5", "/"] {
            let html = site.render(path).unwrap_or_default();
            let relative = html
                .split("<a href=\"")
                .skip(1)
                .filter(|link| !link.starts_with('/'))
                .count();
            assert_eq!(relative, 0, "{path}");
        }
        assert!(
            site.render("/p/7")
                .unwrap_or_default()
                .contains("<a href=\"1")
        );
    }

    /// The `href`s of `html`, in order.
    fn links(html: &str) -> Vec<&str> {
        html.split("<a href=\"")
            .skip(1)
            .map(|link| link.split('"').next().unwrap_or_default())
            .collect()
    }

    #[test]
    fn one_page_in_a_hundred_changes_in_the_next_generation() {
        let site = GeneratedSite::new(1000);
        let revised = site.revised_paths();
        let expected: BTreeSet<String> = (0..10).map(|k| format!("/p/{}", k * 100 + 42)).collect();
        assert_eq!(revised, expected);
        assert!(revised.is_subset(&site.expected_paths()));
        let changing = ChangingSite {
            site,
            generation: Generation::default(),
        };
        let validators_in = |path: &str, generation: u64| {
            changing.generation.set(generation);
            changing
                .validators(path, None, "")
                .unwrap_or_else(|| panic!("{path}"))
        };
        for path in site.fetched_paths() {
            let (before, after) = (
                site.render_in(&path, 0).unwrap_or_default(),
                site.render_in(&path, 1).unwrap_or_default(),
            );
            assert_eq!(before, site.render(&path).unwrap_or_default(), "{path}");
            let (old, new) = (validators_in(&path, 0), validators_in(&path, 1));
            assert!(
                old.etag.starts_with('"') && old.etag.ends_with('"'),
                "{old:?}"
            );
            if revised.contains(&path) {
                assert!(after.contains("Revised in edition 1"), "{path}");
                assert_ne!(before, after, "{path}");
                assert_eq!(links(&before), links(&after), "{path}: the same links");
                assert_ne!(old.etag, new.etag, "{path}");
                assert!(new.last_modified > old.last_modified, "{path}");
            } else {
                assert_eq!(before, after, "{path}");
                assert_eq!(old, new, "{path}");
            }
        }
        changing.generation.set(1);
        assert!(changing.validators("/p/42", Some("a=b"), "").is_none());
        assert!(changing.validators("/p/1000", None, "").is_none());
        assert!(changing.validators("/dup/11", None, "").is_none());
    }

    #[test]
    fn a_million_small_pages_stay_small() {
        let site = GeneratedSite::new(1_000_000);
        assert!(site.render("/p/999999").unwrap_or_default().len() < 2_000);
    }
}
