//! Reading the HTML document (HTML5 parsing with `scraper`, so malformed markup yields what a
//! browser sees, and nothing inside comments or `<script>` counts as a link).

use encoding_rs::Encoding;
use scraper::{ElementRef, Html};
use url::Url;

use crate::directives::parse_directives;
use crate::refresh::instant_refresh_target;
use crate::{
    Document, ExtractOptions, Link, LinkKind, PageFacts, canonical, charset, parse_in_encoding,
    resolve,
};

/// Fills `facts` from the document body (the headers were read already).
pub(crate) fn read_html(document: &Document<'_>, options: &ExtractOptions, facts: &mut PageFacts) {
    let (text, encoding) = charset::decode(document.body, document.headers.content_type.as_deref());
    facts.encoding = encoding.name();
    let html = Html::parse_document(&text);
    let elements: Vec<ElementRef<'_>> = html
        .root_element()
        .descendants()
        .filter_map(ElementRef::wrap)
        .collect();

    // The document base URL is the first <base href>, wherever it stands (HTML, "document base
    // URL"); it applies to every URL in the document, so it is found first.
    facts.base = elements
        .iter()
        .find(|element| element.value().name() == "base" && element.attr("href").is_some())
        .and_then(|element| {
            resolve_any(
                document.url,
                element.attr("href").unwrap_or_default(),
                encoding,
            )
        });
    let base = facts.base.clone().unwrap_or_else(|| document.url.clone());

    let mut reader = Reader {
        base: &base,
        encoding,
        options,
        facts,
    };
    for element in &elements {
        reader.read(element);
    }
    if options.fingerprint {
        facts.fingerprint = Some(crate::fingerprint::fingerprint(&html, &facts.links));
    }
}

/// Resolves a `<base href>`, which may be any absolute URL, not only http(s).
fn resolve_any(document_url: &Url, href: &str, encoding: &'static Encoding) -> Option<Url> {
    let href = href.trim_matches(|character: char| character.is_ascii_whitespace());
    parse_in_encoding(document_url, href, encoding)
}

struct Reader<'a> {
    base: &'a Url,
    encoding: &'static Encoding,
    options: &'a ExtractOptions,
    facts: &'a mut PageFacts,
}

impl Reader<'_> {
    fn read(&mut self, element: &ElementRef<'_>) {
        let name = element.value().name();
        match name {
            "a" | "area" => {
                let kind = if name == "a" {
                    LinkKind::Anchor
                } else {
                    LinkKind::Area
                };
                if let Some(href) = element.attr("href") {
                    self.add_link(href, kind, has_relation(element, "nofollow"));
                }
            }
            "link" => self.read_link_element(element),
            "iframe" | "frame" => {
                if let Some(source) = element.attr("src") {
                    self.add_link(source, LinkKind::Frame, false);
                }
            }
            "meta" => self.read_meta(element),
            "img" | "source" => {
                if self.facts.images.len() < crate::MAX_IMAGES_PER_PAGE
                    && let Some(image) = crate::images::image_of(element)
                    && let Some(url) = resolve(self.base, image, self.encoding)
                    && !self.facts.images.contains(&url)
                {
                    self.facts.images.push(url);
                }
            }
            "title" if self.facts.title.is_none() => {
                let title = element.text().collect::<Vec<_>>().join(" ");
                let title = title.split_whitespace().collect::<Vec<_>>().join(" ");
                if !title.is_empty() {
                    self.facts.title = Some(title);
                }
            }
            _ => {}
        }
    }

    fn read_link_element(&mut self, element: &ElementRef<'_>) {
        let Some(href) = element.attr("href") else {
            return;
        };
        if has_relation(element, "canonical") && is_in_head(element) {
            let resolved = resolve_any(self.base, href, self.encoding);
            canonical::add_candidate(self.facts, resolved, href.trim());
        }
        if has_relation(element, "alternate")
            && let Some(hreflang) = element.attr("hreflang")
        {
            let hreflang = hreflang.trim().to_string();
            if let Some(url) = resolve(self.base, href, self.encoding) {
                let alternate = (hreflang.clone(), url);
                if !self.facts.alternates.contains(&alternate) {
                    self.facts.alternates.push(alternate);
                }
            }
            self.add_link(href, LinkKind::Alternate { hreflang }, false);
        }
    }

    fn read_meta(&mut self, element: &ElementRef<'_>) {
        let content = element.attr("content").unwrap_or_default();
        if let Some(name) = element.attr("name") {
            let name = name.trim();
            if name.eq_ignore_ascii_case("description") && self.facts.description.is_none() {
                let description = content.split_whitespace().collect::<Vec<_>>().join(" ");
                self.facts.description = Some(description);
            }
            if name.eq_ignore_ascii_case("robots")
                || name.eq_ignore_ascii_case(&self.options.robots_token)
            {
                self.facts.robots.merge(parse_directives(content));
            }
        }
        let is_refresh = element
            .attr("http-equiv")
            .is_some_and(|equiv| equiv.trim().eq_ignore_ascii_case("refresh"));
        if is_refresh
            && self.facts.refresh.is_none()
            && let Some(target) = instant_refresh_target(content)
            && let Some(url) = resolve(self.base, target, self.encoding)
        {
            self.facts.refresh = Some(url);
            self.add_link(target, LinkKind::Refresh, false);
        }
    }

    fn add_link(&mut self, reference: &str, kind: LinkKind, nofollow: bool) {
        let Some(url) = resolve(self.base, reference, self.encoding) else {
            return;
        };
        let link = Link {
            url,
            kind,
            nofollow,
        };
        if !self.facts.links.contains(&link) {
            self.facts.links.push(link);
        }
    }
}

/// Whether the element's `rel` holds `relation` (ASCII case-insensitive, whitespace-separated).
fn has_relation(element: &ElementRef<'_>, relation: &str) -> bool {
    element.attr("rel").is_some_and(|rel| {
        rel.split_ascii_whitespace()
            .any(|token| token.eq_ignore_ascii_case(relation))
    })
}

/// rel=canonical counts only in the head (Google ignores it in the body); the HTML parser
/// moves a `<link>` that comes before any body content into the head.
fn is_in_head(element: &ElementRef<'_>) -> bool {
    element
        .ancestors()
        .filter_map(ElementRef::wrap)
        .any(|ancestor| ancestor.value().name() == "head")
}
