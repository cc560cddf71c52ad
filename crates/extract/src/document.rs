//! Reading the HTML document: the tokens (see `tokens`) resolved into page facts. URLs
//! resolve against the document's base, the first `<base href>` wherever it stands (HTML,
//! "document base URL"), in the document's encoding.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::hash::{BuildHasher, RandomState};

use encoding_rs::Encoding;
use url::Url;

use crate::address::{parse_in_encoding, resolve};
use crate::directives::parse_directives;
use crate::facts::{
    Document, ExtractOptions, Link, LinkKind, MAX_DETAIL_EXAMPLES, MAX_IMAGES_PER_PAGE,
    PageDetails, PageFacts,
};
use crate::fingerprint::fingerprint;
use crate::signals::{PageSignals, RawSignals, simhash};
use crate::structured::assemble::assemble;
use crate::{canonical, charset, tokens};

/// How the decoded document is tokenized: `tokens::read`, or in tests one tokenizer.
pub(crate) type Tokenize = fn(&str, tokens::Wanted) -> tokens::RawDocument;

/// Fills `facts` from the document body (the headers were read already).
pub(crate) fn read_html(
    document: &Document<'_>,
    options: &ExtractOptions,
    facts: &mut PageFacts,
    tokenize: Tokenize,
) {
    let (text, encoding) = charset::decode(document.body, document.headers.content_type.as_deref());
    facts.encoding = encoding.name();
    let wanted = tokens::Wanted {
        text: options.fingerprint,
        legacy_text: options.legacy_fingerprint,
        details: options.details,
        structured: options.structured,
    };
    let mut raw = tokenize(&text, wanted);

    facts.base = raw
        .base
        .as_deref()
        .and_then(|href| resolve_any(document.url, href, encoding));
    let base = facts.base.clone().unwrap_or_else(|| document.url.clone());

    let raw_details = raw.details.take();
    let mut anchors: HashMap<usize, String> = raw_details
        .as_ref()
        .map(|details| details.anchors.iter().cloned().collect())
        .unwrap_or_default();
    let mut details = raw_details.as_ref().map(|_| PageDetails::default());
    // Exact duplicates are dropped. A link is remembered by its hash and its index, not
    // cloned; links whose hashes are equal are compared in full.
    let hashes = RandomState::new();
    let mut seen: HashMap<u64, usize> = HashMap::with_capacity(raw.links.len());
    for (index, (reference, kind, nofollow)) in raw.links.into_iter().enumerate() {
        let Some(url) = resolve(&base, &reference, encoding) else {
            continue;
        };
        // A route of another site's router is that site's business.
        if kind == LinkKind::Anchor && url.origin() == document.url.origin() {
            note_hash_route(&reference, &mut facts.hash_routes);
        }
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
        if let Some(details) = &mut details
            && let Some(text) = anchors.remove(&index)
        {
            details.anchors.entry(url.clone()).or_insert(text);
        }
        let link = Link {
            url,
            kind,
            nofollow,
        };
        let duplicate = match seen.entry(hashes.hash_one(&link)) {
            Entry::Vacant(entry) => {
                entry.insert(facts.links.len());
                false
            }
            Entry::Occupied(first) => {
                facts.links[*first.get()] == link || facts.links.contains(&link)
            }
        };
        if !duplicate {
            facts.links.push(link);
        }
    }
    for href in &raw.canonicals {
        canonical::add_candidate(facts, resolve_any(&base, href, encoding), href.trim());
    }
    for (name, content) in &raw.metas {
        if name.eq_ignore_ascii_case("robots") || name.eq_ignore_ascii_case(&options.robots_token) {
            let directives = parse_directives(content);
            facts.hint_sources.noindex_in_meta |= directives.noindex;
            facts.robots.merge(directives);
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
    if let Some(structured) = raw.structured.take() {
        facts.structured = Some(assemble(structured, &text, &base, encoding));
    }
    if let (Some(mut details), Some(mut raw_details)) = (details, raw_details) {
        // Near duplicates are looked for among listed pages only: a page that says it is
        // noindex, or names another URL as canonical, is spared the simhash.
        let words = raw_details.words.take();
        let listed = !facts.robots.noindex && !names_another(document.url, &facts.canonicals);
        read_details(document.url, &base, encoding, raw_details, &mut details);
        if listed {
            details.signals.simhash = words.as_deref().and_then(simhash);
        }
        read_links_signals(document.url, &facts.links, &mut details.signals);
        details.signals.headers = document.headers.security;
        facts.details = Some(details);
    }
    if let Some(text) = &raw.text {
        facts.fingerprint = Some(fingerprint(text, &facts.links));
    }
    if let Some(text) = &raw.legacy_text {
        facts.legacy_fingerprint = Some(fingerprint(text, &facts.links));
    }
}

/// Headings, language, images without alt text, and on an https page what it loads over
/// plain http.
fn read_details(
    url: &Url,
    base: &Url,
    encoding: &'static Encoding,
    raw: tokens::RawDetails,
    details: &mut PageDetails,
) {
    details.h1_count = raw.h1_count;
    details.h1 = raw.h1;
    details.lang = raw.lang;
    details.word_count = raw.word_count;
    details.signals = resolve_signals(url, base, encoding, raw.signals, &raw.resources);
    details.images_without_alt = u32::try_from(raw.images_without_alt.len()).unwrap_or(u32::MAX);
    details.images_without_alt_examples = raw
        .images_without_alt
        .iter()
        .take(MAX_DETAIL_EXAMPLES)
        .map(|source| match resolve(base, source, encoding) {
            Some(image) => image.to_string(),
            None => source.trim().to_string(),
        })
        .collect();
    if url.scheme() != "https" {
        return;
    }
    for resource in &raw.resources {
        if details.insecure_resources.len() >= MAX_DETAIL_EXAMPLES {
            break;
        }
        if let Some(resource) = resolve(base, resource, encoding)
            && resource.scheme() == "http"
            && !details.insecure_resources.contains(&resource)
        {
            details.insecure_resources.push(resource);
        }
    }
}

/// The audit's signals with their references resolved: images with a width, forms, scripts
/// and style sheets; resources by a protocol-relative URL.
fn resolve_signals(
    url: &Url,
    base: &Url,
    encoding: &'static Encoding,
    raw: RawSignals,
    resources: &[String],
) -> PageSignals {
    let mut signals = raw.signals;
    let resolved = |reference: &str| resolve(base, reference, encoding).map(|url| url.to_string());
    signals.image_widths = raw
        .image_widths
        .iter()
        .filter_map(|(source, width)| Some((resolved(source)?, *width)))
        .collect();
    for action in &raw.forms {
        let target = match action {
            Some(action) => resolve(base, action, encoding),
            None => Some(url.clone()),
        };
        if let Some(target) = target
            && target.scheme() == "http"
        {
            signals.insecure_forms.note(|| target.to_string());
        }
    }
    for (kept, written) in [
        (&mut signals.scripts, &raw.scripts),
        (&mut signals.stylesheets, &raw.stylesheets),
    ] {
        for reference in written {
            if kept.len() >= MAX_IMAGES_PER_PAGE {
                break;
            }
            if let Some(resource) = resolved(reference)
                && !kept.contains(&resource)
            {
                kept.push(resource);
            }
        }
    }
    for resource in resources {
        let resource = resource.trim();
        if resource.starts_with("//") {
            signals.protocol_relative.note(|| resource.to_string());
        }
    }
    signals
}

/// Links out (to another URL than the page's) and the links to the page's host marked
/// nofollow.
fn read_links_signals(url: &Url, links: &[Link], signals: &mut PageSignals) {
    // Compared as written without the fragment: a link to `#top` leads nowhere else.
    let without_fragment =
        |url: &Url| -> usize { url.as_str().find('#').unwrap_or(url.as_str().len()) };
    let page = &url.as_str()[..without_fragment(url)];
    signals.links_out = 0;
    for link in links {
        if !matches!(link.kind, LinkKind::Anchor | LinkKind::Area) {
            continue;
        }
        let target = &link.url.as_str()[..without_fragment(&link.url)];
        if target == page {
            continue;
        }
        signals.links_out = signals.links_out.saturating_add(1);
        let same_host = link.url.host_str() == url.host_str();
        if link.nofollow && same_host {
            signals.nofollow_internal.note(|| target.to_string());
        }
        if same_host && url.scheme() == "https" && link.url.scheme() == "http" {
            signals.http_links.note(|| target.to_string());
        }
    }
}

/// Whether the page's one canonical names another URL than the page's (its fragment aside):
/// the page is then not listed, whatever else it says.
fn names_another(url: &Url, canonicals: &[Url]) -> bool {
    let [canonical] = canonicals else {
        return false;
    };
    let mut page = url.clone();
    page.set_fragment(None);
    canonical != &page
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
    if route.is_some_and(|route| !route.is_empty()) && routes.len() < crate::facts::MAX_HASH_ROUTES
    {
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
