//! The generated single-page application: every page URL serves the same shell, and
//! `/app.js` builds the page from `/api/page/<n>.json` in the browser. Read as served, the
//! site is one page without links; rendered, it is `pages` pages, every one reachable from `/`.

use std::collections::BTreeSet;

use bytes::Bytes;

use crate::server::{Reply, Routes};
use crate::site::{SplitMix, WORDS};

/// The HTML every page URL serves: a head of meta tags and inline CSS, the script, a
/// `<noscript>` and an empty mount element.
pub(crate) const SHELL: &str = include_str!("spa/shell.html");

/// The application, plain JavaScript.
pub(crate) const APP: &str = include_str!("spa/app.js");

/// Sections in the navigation of every page.
const SECTIONS: u64 = 8;

/// An application of `pages` pages: `/` and `/page/1` ... `/page/{pages-1}`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SinglePageApp {
    pub pages: u64,
}

impl SinglePageApp {
    fn page_path(number: u64) -> String {
        if number == 0 {
            "/".to_string()
        } else {
            format!("/page/{number}")
        }
    }

    /// Every URL path a correct rendering crawl lists.
    pub(crate) fn expected_paths(&self) -> BTreeSet<String> {
        (0..self.pages).map(Self::page_path).collect()
    }

    /// The page at `path`, if it is one of the application's.
    fn page_number(&self, path: &str) -> Option<u64> {
        let number = match path {
            "/" => 0,
            _ => {
                let text = path.strip_prefix("/page/")?;
                let number: u64 = text.parse().ok()?;
                // `/page/007` is not `/page/7`, and `/page/0` is `/`: one page, one URL.
                (number > 0 && number.to_string() == text).then_some(number)?
            }
        };
        (number < self.pages).then_some(number)
    }

    /// The pages the navigation links to, the same on every page.
    fn sections(&self) -> Vec<u64> {
        let mut sections: Vec<u64> = (0..SECTIONS).map(|k| k * self.pages / SECTIONS).collect();
        sections.dedup();
        sections
    }

    /// The pages that make every page reachable: page `n` leads to `2n+1` and `2n+2`.
    fn children(&self, number: u64) -> Vec<u64> {
        [number * 2 + 1, number * 2 + 2]
            .into_iter()
            .filter(|&child| child < self.pages)
            .collect()
    }

    /// The links in a page's text and its "read next" list: 20 to 40 in all.
    pub(crate) fn links(&self, number: u64) -> Vec<u64> {
        let mut random = SplitMix(number.wrapping_mul(0xA24B_AED4) ^ 0x5BA);
        let mut links = self.children(number);
        let total = 20 + random.below(21) as usize;
        while links.len() < total {
            links.push(random.below(self.pages));
        }
        links
    }

    /// The data of page `number`, as `/api/page/<n>.json` answers it.
    pub(crate) fn page_json(&self, number: u64) -> String {
        let mut random = SplitMix(number ^ 0x00DD_BA11);
        let list = |numbers: &[u64]| {
            let items: Vec<String> = numbers.iter().map(u64::to_string).collect();
            format!("[{}]", items.join(","))
        };
        let paragraphs: Vec<String> = (0..3 + random.below(4))
            .map(|_| {
                let words: Vec<&str> = (0..40 + random.below(41))
                    .map(|_| WORDS[random.below(WORDS.len() as u64) as usize])
                    .collect();
                format!("\"{}.\"", words.join(" "))
            })
            .collect();
        let links = self.links(number);
        let children = self.children(number);
        let parent = match number {
            0 => "null".to_string(),
            _ => ((number - 1) / 2).to_string(),
        };
        format!(
            "{{\"page\":{number},\"title\":\"{title}\",\"parent\":{parent},\"nav\":{nav},\
             \"paragraphs\":[{paragraphs}],\"links\":{links},\"children\":{children}}}",
            title = if number == 0 {
                "Welcome".to_string()
            } else {
                format!("Page {number}")
            },
            nav = list(&self.sections()),
            paragraphs = paragraphs.join(","),
            links = list(&links[children.len()..]),
            children = list(&children),
        )
    }
}

impl Routes for SinglePageApp {
    fn reply(&self, path: &str, _query: Option<&str>) -> Option<Reply> {
        if path == "/app.js" {
            return Some(Reply::new(
                "text/javascript; charset=utf-8",
                Bytes::from_static(APP.as_bytes()),
            ));
        }
        if let Some(file) = path.strip_prefix("/api/page/") {
            let route = match file.strip_suffix(".json")? {
                "0" => "/".to_string(),
                text => format!("/page/{text}"),
            };
            let number = self.page_number(&route)?;
            return Some(Reply::new(
                "application/json",
                Bytes::from(self.page_json(number)),
            ));
        }
        self.page_number(path)?;
        Some(Reply::new(
            "text/html; charset=utf-8",
            Bytes::from_static(SHELL.as_bytes()),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(app: &SinglePageApp, path: &str) -> Option<String> {
        app.reply(path, None)
            .map(|reply| String::from_utf8_lossy(&reply.body).into_owned())
    }

    /// The numbers of the JSON array after `"key":`.
    fn array(json: &str, key: &str) -> Vec<u64> {
        let start = json
            .find(&format!("\"{key}\":["))
            .map(|at| at + key.len() + 4);
        let items = start.and_then(|start| Some(&json[start..start + json[start..].find(']')?]));
        items
            .unwrap_or_default()
            .split(',')
            .filter_map(|item| item.parse().ok())
            .collect()
    }

    #[test]
    fn every_page_serves_the_same_shell_and_the_data_is_deterministic() {
        let app = SinglePageApp { pages: 1000 };
        let shell = body(&app, "/").unwrap_or_default();
        for needle in [
            "<!doctype html>",
            "<title>Handbook</title>",
            "<script src=\"/app.js\" defer></script>",
            "<noscript>You need to enable JavaScript to run this app.</noscript>",
            "<div id=\"root\"></div>",
        ] {
            assert!(shell.contains(needle), "{needle}");
        }
        assert!(!shell.contains("<a "), "the shell has no links");
        assert!(
            (2_000..8_000).contains(&shell.len()),
            "{} bytes",
            shell.len()
        );
        assert!((2_000..8_000).contains(&APP.len()), "{} bytes", APP.len());
        assert_eq!(body(&app, "/page/999"), Some(shell.clone()));
        assert_eq!(
            app.page_json(123),
            SinglePageApp { pages: 1000 }.page_json(123)
        );
        assert_eq!(body(&app, "/api/page/123.json"), Some(app.page_json(123)));
        assert_ne!(app.page_json(123), app.page_json(124));
        assert!(body(&app, "/app.js").is_some_and(|script| script.contains("/api/page/")));
    }

    #[test]
    fn the_url_space_is_exact() {
        let app = SinglePageApp { pages: 50 };
        assert_eq!(app.expected_paths().len(), 50);
        for path in app.expected_paths() {
            assert!(body(&app, &path).is_some(), "{path}");
        }
        for path in [
            "/page/50",
            "/page/0",
            "/page/07",
            "/page/",
            "/p/7",
            "/api/page/50.json",
            "/api/page/07.json",
            "/api/page/7",
        ] {
            assert!(body(&app, path).is_none(), "{path}");
        }
        assert!(
            body(&app, "/api/page/0.json").is_some_and(|json| json.contains("\"parent\":null"))
        );
    }

    #[test]
    fn pages_have_twenty_to_forty_links_within_the_site() {
        let app = SinglePageApp { pages: 1000 };
        for page in 0..app.pages {
            let json = app.page_json(page);
            let links = array(&json, "links").len() + array(&json, "children").len();
            assert!((20..=40).contains(&links), "page {page}: {links} links");
            let nav = array(&json, "nav");
            assert_eq!(nav.len(), 8);
            for target in array(&json, "links").into_iter().chain(nav) {
                assert!(target < app.pages, "page {page} links to {target}");
            }
        }
    }

    #[test]
    fn every_page_is_reachable_from_the_root() {
        for pages in [1, 2, 7, 1000] {
            let app = SinglePageApp { pages };
            let mut seen = BTreeSet::from([0]);
            let mut pending = vec![0];
            while let Some(page) = pending.pop() {
                let json = app.page_json(page);
                for target in ["links", "children", "nav"]
                    .into_iter()
                    .flat_map(|key| array(&json, key))
                {
                    if seen.insert(target) {
                        pending.push(target);
                    }
                }
            }
            let reached: BTreeSet<String> =
                seen.into_iter().map(SinglePageApp::page_path).collect();
            assert_eq!(reached, app.expected_paths(), "{pages} pages");
        }
    }
}
