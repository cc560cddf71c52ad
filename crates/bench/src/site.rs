//! The generated sites: deterministic pages rendered on request (nothing is held in memory
//! or written to disk), and the exact set of URLs a correct crawl lists.

use std::collections::BTreeSet;

use bytes::Bytes;

use crate::server::{Reply, Routes};

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

    /// The HTML at `path`.
    pub(crate) fn render(&self, path: &str) -> Body {
        if path == "/robots.txt" {
            return None;
        }
        let (kind, number) = parse(path)?;
        if number >= self.pages
            || (kind == Kind::Duplicate && !has_duplicate(number, self.size))
            || (kind == Kind::Hidden && !has_hidden(number, self.size))
        {
            return None;
        }
        Some(match self.size {
            PageSize::Full => self.full_page(kind, number),
            PageSize::Small => self.small_page(kind, number),
        })
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

    fn full_page(&self, kind: Kind, number: u64) -> String {
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

    fn small_page(&self, kind: Kind, number: u64) -> String {
        let mut random = SplitMix(number ^ 0xB0B);
        let mut html = self.head(kind, number);
        html.push_str("<body><p>");
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
    fn next(&mut self) -> u64 {
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

    #[test]
    fn a_million_small_pages_stay_small() {
        let site = GeneratedSite::new(1_000_000);
        assert!(site.render("/p/999999").unwrap_or_default().len() < 2_000);
    }
}
