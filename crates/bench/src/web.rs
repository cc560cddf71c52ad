//! The site that looks like the web: documentation pages of 15 to 60 KB with an inline style
//! sheet, scripts and structured data, a header and footer repeated on every page, and 50 to
//! 150 links each: relative (`3.html`, `../api/7.html`), root-relative, with fragments, with
//! tracking parameters (stripped by the crawler) and with `?ref=related` (fetched, and
//! canonical to the page), plus printable copies (canonical duplicates) and drafts (noindex).
//! Every page names itself canonical, as content systems do, so a query variant served by any
//! server (nginx ignores the query) is a duplicate of its page. The images, style sheet and
//! script the pages load are served as well (`web_assets.rs`); the pages, compressed, by
//! `web_served.rs`.

use std::collections::BTreeSet;
use std::fmt::Write;

use crate::site::{SplitMix, WORDS};

/// The sections of the documentation: page `n` lives in `SECTIONS[n % SECTIONS.len()]`.
const SECTIONS: &[&str] = &[
    "start", "install", "guides", "concepts", "api", "cli", "config", "deploy", "security", "faq",
    "blog", "releases",
];

/// Pages linked from the header on every page, after the sections.
const POPULAR: u64 = 16;

/// Pages linked from the footer on every page.
const FOOTER: u64 = 12;

/// The generated site of `pages` pages.
#[derive(Debug, Clone, Copy)]
pub(crate) struct WebSite {
    pub pages: u64,
}

/// What a path of the site is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum WebPage {
    /// A page: `/` for 0, `/docs/SECTION/N.html` otherwise.
    Page(u64),
    /// `/print/N.html`: the printable copy of page N, canonical to it.
    Print(u64),
    /// `/drafts/N.html`: a draft of page N, `noindex`.
    Draft(u64),
}

impl WebSite {
    /// The path of page `number`.
    pub(crate) fn page_path(number: u64) -> String {
        if number == 0 {
            "/".to_string()
        } else {
            format!(
                "/docs/{}/{number}.html",
                SECTIONS[(number % SECTIONS.len() as u64) as usize]
            )
        }
    }

    /// Every file of the site, with its path.
    pub(crate) fn documents(&self) -> Vec<(WebPage, String)> {
        let mut documents = Vec::new();
        for number in 0..self.pages {
            documents.push(WebPage::Page(number));
            if has_print(number) {
                documents.push(WebPage::Print(number));
            }
            if has_draft(number) {
                documents.push(WebPage::Draft(number));
            }
        }
        documents
            .into_iter()
            .map(|document| (document, Self::path_of(document)))
            .collect()
    }

    /// The path of `document`.
    pub(crate) fn path_of(document: WebPage) -> String {
        match document {
            WebPage::Page(number) => Self::page_path(number),
            WebPage::Print(number) => format!("/print/{number}.html"),
            WebPage::Draft(number) => format!("/drafts/{number}.html"),
        }
    }

    /// What `path` is, if it is a document of the site.
    pub(crate) fn document(&self, path: &str) -> Option<WebPage> {
        if path == "/" {
            return Some(WebPage::Page(0));
        }
        let (directory, file) = path.rsplit_once('/')?;
        let number: u64 = file.strip_suffix(".html")?.parse().ok()?;
        let document = match directory {
            "/print" => WebPage::Print(number),
            "/drafts" => WebPage::Draft(number),
            _ => WebPage::Page(number),
        };
        let exists = number < self.pages
            && match document {
                WebPage::Page(number) => number > 0,
                WebPage::Print(number) => has_print(number),
                WebPage::Draft(number) => has_draft(number),
            };
        (exists && Self::path_of(document) == path).then_some(document)
    }

    /// Every URL path a correct crawl lists.
    pub(crate) fn expected_paths(&self) -> BTreeSet<String> {
        (0..self.pages).map(Self::page_path).collect()
    }

    /// Every URL (path and query) a crawl fetches: the documents, and the query variants
    /// their links name (tracking parameters stripped, fragments dropped), found by reading
    /// every page's links as the crawler resolves them.
    pub(crate) fn fetched_paths(&self) -> Vec<String> {
        let mut fetched: BTreeSet<String> = BTreeSet::new();
        for (document, path) in self.documents() {
            fetched.extend(self.links_of(&path, &self.render(document)));
            fetched.insert(path);
        }
        fetched.into_iter().collect()
    }

    /// The pages of the site (path and query) that `html`, served at `path`, leads to, as the
    /// crawler resolves them (fragments dropped, tracking parameters stripped): its links and
    /// its canonical, which the crawl follows one click further as well.
    pub(crate) fn links_of(&self, path: &str, html: &str) -> Vec<String> {
        let Some(page) = url::Url::parse("http://site.test/")
            .ok()
            .and_then(|base| base.join(path).ok())
        else {
            return Vec::new();
        };
        let mut links = Vec::new();
        let canonical = html
            .split("<link rel=\"canonical\" ")
            .nth(1)
            .map(|tag| format!(" {tag}"));
        let anchors = html.split("<a ").skip(1).map(str::to_string);
        for anchor in anchors.chain(canonical) {
            let tag = anchor.split('>').next().unwrap_or_default();
            let Some((_, href)) = tag.split_once("href=\"") else {
                continue;
            };
            let href = href.split('"').next().unwrap_or_default();
            let Ok(mut target) = page.join(&href.replace("&amp;", "&")) else {
                continue;
            };
            if target.host_str() != Some("site.test") {
                continue;
            }
            target.set_fragment(None);
            if target
                .query()
                .is_some_and(|query| query.starts_with("utm_"))
            {
                target.set_query(None);
            }
            let mut link = target.path().to_string();
            if let Some(query) = target.query() {
                link.push('?');
                link.push_str(query);
            }
            links.push(link);
        }
        links
    }

    /// The HTML of `document`.
    pub(crate) fn render(&self, document: WebPage) -> String {
        let number = match document {
            WebPage::Page(number) | WebPage::Print(number) | WebPage::Draft(number) => number,
        };
        let mut random = SplitMix(number.wrapping_mul(0x2545_F491) ^ 0xD0C5);
        let here = Self::path_of(document);
        let mut html = String::with_capacity(48 * 1024);
        self.head(&mut html, document, number, &mut random);
        self.header(&mut html, &here);
        let _ = write!(
            html,
            "<main id=\"main\" class=\"content\"><nav class=\"breadcrumbs\" aria-label=\"Breadcrumbs\">\
             <a href=\"{}\">Docs</a> &rsaquo; <a href=\"{}\">{}</a> &rsaquo; <span>Page {number}</span></nav>\
             <article><h1 id=\"top\">{} {number}</h1>",
            relative(&here, "/"),
            relative(&here, &Self::page_path(number % SECTIONS.len() as u64)),
            title_case(section_of(number)),
            title_case(section_of(number)),
        );
        self.article(&mut html, &here, &mut random);
        self.related(&mut html, &here, number, &mut random);
        html.push_str("</article></main>");
        self.footer(&mut html, &here, number);
        html
    }

    fn head(&self, html: &mut String, document: WebPage, number: u64, random: &mut SplitMix) {
        let canonical = Self::page_path(number);
        let robots = if matches!(document, WebPage::Draft(_)) {
            "<meta name=\"robots\" content=\"noindex\">"
        } else {
            ""
        };
        let _ = write!(
            html,
            "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">\
             <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
             <title>{section} {number} &mdash; Example Docs</title>\
             <meta name=\"description\" content=\"Page {number} of the {section} section: {words}\">\
             <link rel=\"canonical\" href=\"{canonical}\">{robots}\
             <meta property=\"og:title\" content=\"{section} {number}\">\
             <meta property=\"og:type\" content=\"article\">\
             <meta property=\"og:image\" content=\"/assets/og/{number}.png\">\
             <link rel=\"icon\" href=\"/favicon.ico\" sizes=\"any\">\
             <link rel=\"preload\" href=\"/assets/inter.woff2\" as=\"font\" type=\"font/woff2\" crossorigin>\
             <link rel=\"stylesheet\" href=\"/assets/site.css?v=3.2.1\">",
            section = title_case(section_of(number)),
            words = words(random, 18),
        );
        html.push_str("<style>");
        for rule in 0..60 + random.below(40) {
            let _ = writeln!(
                html,
                ".c-{rule} .item-{}>a:hover{{color:#{:06x};margin:0 {}px;padding:{}px {}px;\
                 border-bottom:1px solid rgba(0,0,0,.{})}}",
                random.below(100),
                random.below(0xFF_FFFF),
                random.below(24),
                random.below(16),
                random.below(32),
                random.below(9) + 1,
            );
        }
        html.push_str("</style>");
        let _ = write!(
            html,
            "<script type=\"application/ld+json\">{{\"@context\":\"https://schema.org\",\
             \"@type\":\"TechArticle\",\"headline\":\"{section} {number}\",\
             \"url\":\"{canonical}\",\"dateModified\":\"2026-0{}-1{}T10:00:00Z\",\
             \"author\":{{\"@type\":\"Organization\",\"name\":\"Example\"}}}}</script>",
            1 + random.below(9),
            random.below(10),
            section = title_case(section_of(number)),
        );
        html.push_str(
            "<script>(function(){var t=localStorage.getItem('theme');if(t){document.documentElement\
             .dataset.theme=t}window.dataLayer=window.dataLayer||[];function g(){dataLayer.push(\
             arguments)}g('js',new Date());g('config','G-EXAMPLE');document.addEventListener(\
             'DOMContentLoaded',function(){var b=document.querySelectorAll('a[href^=\"http\"]');\
             for(var i=0;i<b.length;i++){if(b[i].host!==location.host){b[i].rel='noopener';}}\
             var s=document.querySelector('#search');if(s){s.addEventListener('input',function(e)\
             {if(e.target.value.length>2){fetch('/search.json?q='+encodeURIComponent(e.target\
             .value)).then(function(r){return r.json()}).then(function(d){console.log(d)})}})}})})();\
             </script><script src=\"/assets/app.js?v=3.2.1\" defer></script></head>",
        );
    }

    /// The header: the sections and the popular pages, the same on every page.
    fn header(&self, html: &mut String, here: &str) {
        html.push_str(
            "<body class=\"docs\"><a class=\"skip\" href=\"#main\">Skip to content</a>\
             <header class=\"site-header\"><a class=\"logo\" href=\"/\"><svg width=\"32\" \
             height=\"32\" viewBox=\"0 0 32 32\" aria-hidden=\"true\"><path d=\"M4 4h24v24H4z\
             M8 8v16h16V8z\" fill=\"currentColor\"/></svg>Example Docs</a>\
             <form role=\"search\" action=\"/search\"><input id=\"search\" name=\"q\" \
             placeholder=\"Search the docs\"></form><nav class=\"primary\"><ul>",
        );
        for section in 1..=SECTIONS.len() as u64 {
            let _ = write!(
                html,
                "<li class=\"nav-item\"><a class=\"nav-link\" href=\"{}\">{}</a></li>",
                relative(here, &Self::page_path(section.min(self.pages - 1))),
                title_case(section_of(section)),
            );
        }
        html.push_str("</ul><ul class=\"popular\">");
        for popular in 0..POPULAR {
            let target = (13 + popular * 7) % self.pages;
            let _ = write!(
                html,
                "<li><a href=\"{}\">{} {target}</a></li>",
                Self::page_path(target),
                title_case(section_of(target)),
            );
        }
        html.push_str("</ul></nav></header>");
    }

    /// The body of the article: sections of paragraphs with links in the text, code and
    /// figures.
    fn article(&self, html: &mut String, here: &str, random: &mut SplitMix) {
        let sections = 3 + random.below(10);
        let links = 10 + random.below(70);
        let mut written = 0;
        for section in 0..sections {
            let _ = write!(
                html,
                "<section><h2 id=\"s{section}\">{}</h2>",
                title_case(&words(random, 4))
            );
            for _ in 0..2 + random.below(3) {
                html.push_str("<p>");
                for _ in 0..3 {
                    let count = 20 + random.below(30) as usize;
                    html.push_str(&words(random, count));
                    if written < links * (section + 1) / sections {
                        written += 1;
                        let target = random.below(self.pages);
                        let _ = write!(
                            html,
                            " <a href=\"{}\">{}</a> ",
                            self.link(here, target, random),
                            words(random, 2)
                        );
                    }
                }
                html.push_str("</p>");
            }
            if section % 2 == 1 {
                let _ = write!(
                    html,
                    "<pre><code class=\"language-toml\">[site]\nname = \"{}\"\nretries = {}\n\
                     &lt;not-a-tag href=\"/nowhere\"&gt;</code></pre>",
                    words(random, 1),
                    random.below(5)
                );
            } else {
                let _ = write!(
                    html,
                    "<figure><img src=\"/assets/img/{}.webp\" srcset=\"/assets/img/{0}@2x.webp 2x\" \
                     alt=\"{}\" loading=\"lazy\" width=\"640\" height=\"360\"><figcaption>{}</figcaption></figure>",
                    random.below(crate::web_assets::IMAGES),
                    words(random, 5),
                    words(random, 8)
                );
            }
            html.push_str("</section>");
        }
    }

    /// One link in the text, in one of the forms real pages use.
    fn link(&self, here: &str, target: u64, random: &mut SplitMix) -> String {
        let path = Self::page_path(target);
        match random.below(8) {
            0..=2 => relative(here, &path),
            3 => format!("{path}#s{}", random.below(6)),
            4 => format!("{path}?utm_source=docs&amp;utm_medium=link"),
            _ => path,
        }
    }

    /// Related pages (some with `?ref=related`, a variant the server answers with the page),
    /// and the links that make every page reachable.
    fn related(&self, html: &mut String, here: &str, number: u64, random: &mut SplitMix) {
        html.push_str("<aside class=\"related\"><h2>Related</h2><ul>");
        for _ in 0..6 {
            let target = random.below(self.pages);
            let href = if target % 2 == 1 {
                format!("{}?ref=related", Self::page_path(target))
            } else {
                Self::page_path(target)
            };
            let _ = write!(html, "<li><a href=\"{href}\">{}</a></li>", words(random, 3));
        }
        for child in [number * 2 + 1, number * 2 + 2] {
            if child < self.pages {
                let _ = write!(
                    html,
                    "<li><a href=\"{}\">Next: page {child}</a></li>",
                    relative(here, &Self::page_path(child))
                );
            }
        }
        if has_print(number) {
            let _ = write!(
                html,
                "<li><a href=\"/print/{number}.html\">Printable version</a></li>"
            );
        }
        if has_draft(number) {
            let _ = write!(
                html,
                "<li><a href=\"/drafts/{number}.html\">Draft of the next version</a></li>"
            );
        }
        html.push_str("</ul></aside>");
    }

    fn footer(&self, html: &mut String, here: &str, number: u64) {
        html.push_str("<footer class=\"site-footer\"><nav><ul>");
        for link in 0..FOOTER {
            let target = (1 + link * 3) % self.pages;
            let _ = write!(
                html,
                "<li><a href=\"{}\">{} {target}</a></li>",
                relative(here, &Self::page_path(target)),
                title_case(section_of(target)),
            );
        }
        let _ = write!(
            html,
            "</ul></nav><p><a href=\"https://github.com/example/docs/edit/main/{number}.md\">Edit \
             this page</a> &middot; <a href=\"mailto:docs@example.com\">docs@example.com</a> \
             &middot; <a href=\"https://twitter.com/example\" rel=\"noopener\">@example</a> \
             &middot; <a href=\"javascript:window.print()\">Print</a></p><p>&copy; 2026 Example. \
             Built with care.</p></footer></body></html>"
        );
    }
}

/// The section page `number` lives in.
fn section_of(number: u64) -> &'static str {
    SECTIONS[(number % SECTIONS.len() as u64) as usize]
}

fn has_print(number: u64) -> bool {
    number > 0 && number.is_multiple_of(10)
}

fn has_draft(number: u64) -> bool {
    number % 20 == 5
}

/// `count` filler words.
fn words(random: &mut SplitMix, count: usize) -> String {
    let mut text = String::new();
    for index in 0..count {
        if index > 0 {
            text.push(' ');
        }
        text.push_str(WORDS[random.below(WORDS.len() as u64) as usize]);
    }
    text
}

fn title_case(text: &str) -> String {
    let mut characters = text.chars();
    match characters.next() {
        Some(first) => first.to_uppercase().chain(characters).collect(),
        None => String::new(),
    }
}

/// `target` (a path of the site) relative to the document at `here`, as a hand-written site
/// links it: `7.html` beside it, `../api/7.html` in another section, `docs/api/7.html` from
/// the root.
fn relative(here: &str, target: &str) -> String {
    let directory = &here[..here.rfind('/').map_or(0, |slash| slash + 1)];
    if let Some(rest) = target.strip_prefix(directory)
        && !rest.is_empty()
    {
        return rest.to_string();
    }
    if target == "/" {
        return if directory == "/" {
            "./".to_string()
        } else {
            "../".repeat(directory.matches('/').count() - 1)
        };
    }
    let depth = directory.matches('/').count() - 1;
    if depth >= 1
        && let (Some(ours), Some(theirs)) = (
            directory.strip_prefix("/docs/"),
            target.strip_prefix("/docs/"),
        )
        && !ours.is_empty()
    {
        return format!("../{theirs}");
    }
    format!("{}{}", "../".repeat(depth), &target[1..])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resolve(here: &str, href: &str) -> String {
        let base = url::Url::parse("http://site.test/")
            .and_then(|base| base.join(here))
            .unwrap_or_else(|error| panic!("{error}"));
        base.join(href)
            .map(|url| url.path().to_string())
            .unwrap_or_else(|error| panic!("{error}"))
    }

    #[test]
    fn relative_links_resolve_to_their_targets() {
        for (here, target) in [
            ("/docs/api/4.html", "/docs/api/16.html"),
            ("/docs/api/4.html", "/docs/cli/5.html"),
            ("/docs/api/4.html", "/"),
            ("/", "/docs/api/4.html"),
            ("/", "/"),
            ("/print/10.html", "/docs/api/4.html"),
            ("/print/10.html", "/"),
            ("/drafts/5.html", "/docs/faq/9.html"),
        ] {
            let href = relative(here, target);
            assert!(!href.starts_with('/'), "{here} -> {target}: {href}");
            assert_eq!(resolve(here, &href), target, "{here} -> {target}: {href}");
        }
    }

    #[test]
    fn pages_look_like_the_web() {
        let site = WebSite { pages: 10_000 };
        let mut sizes = Vec::new();
        let mut link_counts = Vec::new();
        for number in (1..10_000).step_by(97) {
            let html = site.render(WebPage::Page(number));
            sizes.push(html.len());
            link_counts.push(html.matches("<a href=").count());
            assert!(html.contains(&format!(
                "<link rel=\"canonical\" href=\"{}\">",
                WebSite::page_path(number)
            )));
        }
        let (smallest, largest) = (sizes.iter().min(), sizes.iter().max());
        assert!(
            smallest >= Some(&15_000) && largest <= Some(&60_000),
            "{smallest:?} to {largest:?} bytes"
        );
        let (fewest, most) = (link_counts.iter().min(), link_counts.iter().max());
        assert!(
            fewest >= Some(&50) && most <= Some(&150),
            "{fewest:?} to {most:?} links"
        );
    }

    #[test]
    fn documents_are_found_by_their_paths_only() {
        let site = WebSite { pages: 100 };
        for (document, path) in site.documents() {
            assert_eq!(site.document(&path), Some(document), "{path}");
        }
        for path in [
            "/docs/api/5.html",
            "/docs/cli/100.html",
            "/docs/install/01.html",
            "/print/11.html",
            "/drafts/6.html",
            "/docs/install/1",
            "/robots.txt",
        ] {
            assert_eq!(site.document(path), None, "{path}");
        }
        assert_eq!(
            site.document("/docs/install/1.html"),
            Some(WebPage::Page(1))
        );
    }

    #[test]
    fn the_crawl_fetches_pages_variants_and_copies() {
        let site = WebSite { pages: 500 };
        let fetched = site.fetched_paths();
        assert!(fetched.iter().any(|path| path.ends_with("?ref=related")));
        assert!(
            fetched
                .iter()
                .all(|path| !path.contains("utm_") && !path.contains('#'))
        );
        assert!(fetched.contains(&"/print/10.html".to_string()));
        assert!(fetched.contains(&"/drafts/5.html".to_string()));
        for path in &fetched {
            let document = path.split('?').next().unwrap_or_default();
            assert!(site.document(document).is_some(), "{path}");
        }
        assert_eq!(site.expected_paths().len(), 500);
    }
}
