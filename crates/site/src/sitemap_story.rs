//! The one story of the site's own sitemaps, told alike by the crawl's summary, the audit's
//! and the report: where they were looked for, how many were read, and each one not read
//! with why (skipped: another site's, sitemapper's own, disallowed; unreadable: no answer, an
//! error status, not a sitemap).

use std::fmt;

use sitemapper_crawl::{NotRead, SitemapFoundBy, USUAL_SITEMAP_PATHS};
use url::Url;

use crate::counted::count;

/// Sitemaps not read named one by one; the others are counted.
const NAMED: usize = 3;

/// What became of the site's sitemaps.
#[derive(Debug, Clone, Copy)]
pub struct SitemapStory<'a> {
    /// How the sitemaps started from were found; `None`: there were none to look for.
    pub looked: Option<SitemapFoundBy>,
    /// Sitemap files read (indexes included).
    pub read: u64,
    /// Sitemaps not requested: another site's, sitemapper's own, disallowed.
    pub skipped: u64,
    /// Sitemaps requested that gave no sitemap: no answer, an error status, not a sitemap.
    pub unreadable: u64,
    /// Those not read, with why (the first of them, when there are many).
    pub not_read: &'a [(Url, NotRead)],
    /// For a crawl seeded by them: the URLs they led to that no link had.
    pub added: Option<u64>,
}

impl SitemapStory<'_> {
    /// Where the sitemaps were looked for, as a sentence.
    fn where_looked(&self) -> String {
        match self.looked {
            Some(SitemapFoundBy::Given) => "Looked for where --sitemap says.".to_string(),
            Some(SitemapFoundBy::RobotsTxt) => {
                "Looked for where robots.txt's Sitemap: lines say.".to_string()
            }
            Some(SitemapFoundBy::UsualPath) | None => format!(
                "robots.txt names none; looked for at {}.",
                or_list(&USUAL_SITEMAP_PATHS)
            ),
        }
    }
}

/// `a, b or c`.
fn or_list(items: &[&str]) -> String {
    match items {
        [] => String::new(),
        [one] => (*one).to_string(),
        [rest @ .., last] => format!("{} or {last}", rest.join(", ")),
    }
}

impl fmt::Display for SitemapStory<'_> {
    /// `The site's sitemaps: 1 read, 1 skipped, 0 unreadable.` then, indented, where they
    /// were looked for and each one not read; or `none found` and where they were looked
    /// for. No line ends the text.
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (skipped, unreadable) = (self.skipped, self.unreadable);
        if self.read + skipped + unreadable == 0 {
            return write!(
                formatter,
                "The site's sitemaps: none found.\n  {}",
                self.where_looked()
            );
        }
        write!(
            formatter,
            "The site's sitemaps: {} read, {skipped} skipped, {unreadable} unreadable",
            self.read
        )?;
        match self.added {
            Some(added) => write!(
                formatter,
                "; they added {} no link had led to.",
                count(added, "URL")
            )?,
            None => formatter.write_str(".")?,
        }
        write!(formatter, "\n  {}", self.where_looked())?;
        for (url, why) in self.not_read.iter().take(NAMED) {
            let verdict = if why.is_skipped() {
                "Skipped"
            } else {
                "Unreadable"
            };
            write!(formatter, "\n  {verdict}: {url}: {why}.")?;
        }
        let named = self.not_read.len().min(NAMED) as u64;
        let more = (skipped + unreadable).saturating_sub(named);
        if more > 0 {
            write!(formatter, "\n  And {more} more not read.")?;
        }
        Ok(())
    }
}

impl SitemapStory<'_> {
    /// The counts of `not_read`: skipped, unreadable.
    pub fn counts(not_read: &[(Url, NotRead)]) -> (u64, u64) {
        let skipped = not_read.iter().filter(|(_, why)| why.is_skipped()).count() as u64;
        (skipped, not_read.len() as u64 - skipped)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(text: &str) -> Url {
        Url::parse(text).unwrap_or_else(|error| panic!("{text}: {error}"))
    }

    #[test]
    fn none_found_says_where_they_were_looked_for() {
        let story = SitemapStory {
            looked: Some(SitemapFoundBy::UsualPath),
            read: 0,
            skipped: 0,
            unreadable: 0,
            not_read: &[],
            added: Some(0),
        };
        assert_eq!(
            story.to_string(),
            "The site's sitemaps: none found.\n  robots.txt names none; looked for at /sitemap.xml, /sitemap_index.xml or /sitemap.xml.gz."
        );
    }

    #[test]
    fn each_sitemap_not_read_is_named_with_why() {
        let not_read = [
            (
                url("https://www.other.org/sitemap.xml"),
                NotRead::OtherSite("https://www.other.org".to_string()),
            ),
            (
                url("https://e.com/gone.xml"),
                NotRead::NotFetched("it answers 404".to_string()),
            ),
        ];
        let story = SitemapStory {
            looked: Some(SitemapFoundBy::RobotsTxt),
            read: 1,
            skipped: 1,
            unreadable: 1,
            not_read: &not_read,
            added: None,
        };
        assert_eq!(
            story.to_string(),
            "The site's sitemaps: 1 read, 1 skipped, 1 unreadable.\n  Looked for where robots.txt's Sitemap: lines say.\n  Skipped: https://www.other.org/sitemap.xml: on another site (https://www.other.org).\n  Unreadable: https://e.com/gone.xml: cannot be fetched: it answers 404."
        );
        let crawl = SitemapStory {
            added: Some(1),
            ..story
        };
        assert!(
            crawl
                .to_string()
                .starts_with("The site's sitemaps: 1 read, 1 skipped, 1 unreadable; they added 1 URL no link had led to.\n"),
            "{crawl}"
        );
    }
}
