//! The mixed site: the static generated site, with a section built by JavaScript, the
//! generated application, beside it. Its home page links to the application's first pages;
//! the application's pages link back to `/`, the static home. `--render auto` must render the
//! application's pages and read the static ones as served.

use std::collections::BTreeSet;

use bytes::Bytes;

use crate::server::{Reply, Routes};
use crate::site::GeneratedSite;
use crate::spa::SinglePageApp;

/// The links the static home page adds to the application.
const INTO_THE_APPLICATION: &str =
    "<p>Also: <a href=\"/page/1\">the handbook</a>, <a href=\"/page/2\">its second part</a></p>";

/// The static site of `static_pages` pages (`/`, `/p/N`), and the application's pages
/// `/page/1` ... `/page/{app_pages-1}` (its own home is the static home).
#[derive(Debug, Clone, Copy)]
pub(crate) struct MixedSite {
    pub static_site: GeneratedSite,
    pub app: SinglePageApp,
}

impl MixedSite {
    pub(crate) fn new(static_pages: u64, app_pages: u64) -> MixedSite {
        MixedSite {
            static_site: GeneratedSite::new(static_pages),
            app: SinglePageApp { pages: app_pages },
        }
    }

    /// Every URL path a crawl that renders the application lists.
    pub(crate) fn expected_paths(&self) -> BTreeSet<String> {
        let mut paths = self.static_site.expected_paths();
        paths.extend(self.app.expected_paths());
        paths
    }

    /// Every URL path a crawl that reads pages as served lists: the static site's, and the
    /// two application pages the home page links to (shells, without links of their own).
    pub(crate) fn served_paths(&self) -> BTreeSet<String> {
        let mut paths = self.static_site.expected_paths();
        paths.extend(
            ["/page/1", "/page/2"]
                .into_iter()
                .filter(|path| self.app.expected_paths().contains(*path))
                .map(str::to_string),
        );
        paths
    }

    /// Pages fetched by a rendering crawl: the static site's, with its duplicates and noindex
    /// pages, and the application's but `/`.
    pub(crate) fn fetched(&self) -> usize {
        self.static_site.fetched_paths().len() + self.app.expected_paths().len() - 1
    }

    /// Pages fetched by a crawl that reads pages as served: the static site's, and the
    /// application's shells the home page links to.
    pub(crate) fn fetched_as_served(&self) -> usize {
        self.static_site.fetched_paths().len() + self.served_paths().len()
            - self.static_site.expected_paths().len()
    }
}

impl Routes for MixedSite {
    fn reply(&self, path: &str, query: Option<&str>) -> Option<Reply> {
        if path == "/" {
            let home = self.static_site.reply(path, query)?;
            let html = String::from_utf8_lossy(&home.body);
            let html = html.replacen("</main>", &format!("{INTO_THE_APPLICATION}</main>"), 1);
            return Some(Reply::new(home.content_type, Bytes::from(html)));
        }
        self.static_site
            .reply(path, query)
            .or_else(|| self.app.reply(path, query))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(site: &MixedSite, path: &str) -> Option<String> {
        site.reply(path, None)
            .map(|reply| String::from_utf8_lossy(&reply.body).into_owned())
    }

    #[test]
    fn the_home_page_leads_into_the_application_and_both_halves_are_served() {
        let site = MixedSite::new(100, 20);
        let home = body(&site, "/").expect("a home page");
        assert!(home.contains("href=\"/page/1\"") && home.contains("href=\"/p/1\""));
        assert!(body(&site, "/p/99").is_some_and(|html| !html.contains("app.js")));
        assert!(body(&site, "/page/19").is_some_and(|html| html.contains("/app.js")));
        assert!(body(&site, "/page/20").is_none());
        assert!(body(&site, "/api/page/7.json").is_some());
        assert_eq!(site.expected_paths().len(), 100 + 19);
        assert_eq!(site.served_paths().len(), 102);
        assert_eq!(
            site.fetched_as_served(),
            site.static_site.fetched_paths().len() + 2
        );
    }
}
