//! Reading the HTML document: the tokens (see `tokens`) resolved into page facts. URLs
//! resolve against the document's base, the first `<base href>` wherever it stands (HTML,
//! "document base URL"), in the document's encoding.

use std::collections::HashSet;

use encoding_rs::Encoding;
use url::Url;

use crate::directives::parse_directives;
use crate::{
    Document, ExtractOptions, Link, LinkKind, MAX_IMAGES_PER_PAGE, PageFacts, canonical, charset,
    parse_in_encoding, resolve, tokens,
};

/// Fills `facts` from the document body (the headers were read already).
pub(crate) fn read_html(document: &Document<'_>, options: &ExtractOptions, facts: &mut PageFacts) {
    let (text, encoding) = charset::decode(document.body, document.headers.content_type.as_deref());
    facts.encoding = encoding.name();
    let raw = tokens::read(&text, options.fingerprint);

    facts.base = raw
        .base
        .as_deref()
        .and_then(|href| resolve_any(document.url, href, encoding));
    let base = facts.base.clone().unwrap_or_else(|| document.url.clone());

    let mut seen: HashSet<Link> = HashSet::with_capacity(raw.links.len());
    for (reference, kind, nofollow) in raw.links {
        if kind == LinkKind::Anchor {
            note_hash_route(&reference, &mut facts.hash_routes);
        }
        let Some(url) = resolve(&base, &reference, encoding) else {
            continue;
        };
        match &kind {
            LinkKind::Alternate { hreflang } => {
                let alternate = (hreflang.clone(), url.clone());
                if !facts.alternates.contains(&alternate) {
                    facts.alternates.push(alternate);
                }
            }
            LinkKind::Refresh if facts.refresh.is_none() => facts.refresh = Some(url.clone()),
            _ => {}
        }
        let link = Link {
            url,
            kind,
            nofollow,
        };
        if seen.insert(link.clone()) {
            facts.links.push(link);
        }
    }
    for href in &raw.canonicals {
        canonical::add_candidate(facts, resolve_any(&base, href, encoding), href.trim());
    }
    for (name, content) in &raw.metas {
        if name.eq_ignore_ascii_case("robots") || name.eq_ignore_ascii_case(&options.robots_token) {
            facts.robots.merge(parse_directives(content));
        }
        if name.eq_ignore_ascii_case("description") && facts.description.is_none() {
            facts.description = Some(content.split_whitespace().collect::<Vec<_>>().join(" "));
        }
    }
    facts.title = raw.title.filter(|title| !title.is_empty());
    for image in &raw.images {
        if facts.images.len() >= MAX_IMAGES_PER_PAGE {
            break;
        }
        if let Some(url) = resolve(&base, image, encoding)
            && !facts.images.contains(&url)
        {
            facts.images.push(url);
        }
    }
    facts.shell = raw.shell;
    if let Some(text) = &raw.text {
        facts.fingerprint = Some(crate::fingerprint::fingerprint(text, &facts.links));
    }
}

/// Keeps the route of a link to a client-side hash router: a fragment that starts with `/`
/// or `!/` and names more than the root (`#/about`, `/#!/about`; not `#/`, nor the `#!` of
/// a link that only runs a script).
fn note_hash_route(reference: &str, routes: &mut Vec<String>) {
    let Some((_, fragment)) = reference.split_once('#') else {
        return;
    };
    let fragment = fragment.trim();
    let route = fragment
        .strip_prefix("!/")
        .or_else(|| fragment.strip_prefix('/'));
    if route.is_some_and(|route| !route.is_empty()) && routes.len() < crate::MAX_HASH_ROUTES {
        let route = format!("#{fragment}");
        if !routes.contains(&route) {
            routes.push(route);
        }
    }
}

/// Resolves a `<base href>` or a canonical, which may be any absolute URL, not only http(s).
fn resolve_any(base: &Url, href: &str, encoding: &'static Encoding) -> Option<Url> {
    let href = href.trim_matches(|character: char| character.is_ascii_whitespace());
    parse_in_encoding(base, href, encoding)
}
