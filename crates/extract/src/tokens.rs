//! Reading the HTML document in one streaming pass over html5ever's HTML5 tokenizer (the
//! tokenizer under `scraper`), without building a DOM: extraction needs a few elements and
//! their attributes, and a tree costs many times the page's size in memory and most of the
//! parsing time. What the tree builder would decide and extraction depends on is tracked
//! here: the raw-text states (nothing inside `<script>`, `<style>` or `<noscript>` is a
//! link), where the head ends (a canonical only counts in the head), inert `<template>`
//! content, and `<picture>` sources.

use std::cell::RefCell;

use html5ever::tendril::StrTendril;

use crate::refresh::instant_refresh_target;
use crate::{LinkKind, ShellSignals};
use html5ever::tokenizer::states::RawKind;
use html5ever::tokenizer::{
    BufferQueue, Tag, TagKind, Token, TokenSink, TokenSinkResult, Tokenizer, TokenizerOpts,
};

/// Elements that may stand in the head; any other start tag (or text) starts the body
/// (HTML, "the in head insertion mode").
const HEAD_ELEMENTS: &[&str] = &[
    "html", "head", "base", "basefont", "bgsound", "link", "meta", "noscript", "script", "style",
    "template", "title",
];

/// What the document says, as written: URLs are resolved afterwards, against the document's
/// base, which may come after the links it applies to.
#[derive(Debug, Default)]
pub(crate) struct RawDocument {
    pub(crate) base: Option<String>,
    /// `(reference, kind, rel nofollow)` in document order.
    pub(crate) links: Vec<(String, LinkKind, bool)>,
    pub(crate) canonicals: Vec<String>,
    /// `(name, content)` of `<meta name>`.
    pub(crate) metas: Vec<(String, String)>,
    /// The target of the first instant `<meta http-equiv=refresh>`.
    pub(crate) refresh: Option<String>,
    pub(crate) title: Option<String>,
    pub(crate) images: Vec<String>,
    /// Visible text, whitespace-collapsed, when asked for (the fingerprint's input).
    pub(crate) text: Option<Vec<u8>>,
    /// What says the page is an application shell that scripts fill in.
    pub(crate) shell: ShellSignals,
    /// What only the audit reads, when asked for.
    pub(crate) details: Option<RawDetails>,
}

/// What only the audit reads, as written.
#[derive(Debug, Default)]
pub(crate) struct RawDetails {
    /// `(index into RawDocument::links, text)` of `<a>` links with text (or an image's alt).
    pub(crate) anchors: Vec<(usize, String)>,
    /// `<h1>` elements.
    pub(crate) h1_count: u32,
    /// The first `<h1>`'s text, whitespace collapsed.
    pub(crate) h1: Option<String>,
    /// `<html lang>`.
    pub(crate) lang: Option<String>,
    /// `src` of `<img>` elements without an `alt` attribute, in document order.
    pub(crate) images_without_alt: Vec<String>,
    /// References of what the page loads: images, scripts, style sheets, frames, media.
    pub(crate) resources: Vec<String>,
}

/// An anchor's text is kept up to this many characters.
const MAX_ANCHOR_CHARS: usize = 200;

#[derive(Debug, Default)]
struct State {
    document: RawDocument,
    in_body: bool,
    /// Inside a raw-text element (script, style, noscript...): its text is not content.
    raw_text: bool,
    /// Inside `<template>`: inert content, no links.
    template_depth: usize,
    picture_depth: usize,
    /// The `<title>` being read.
    title: Option<String>,
    /// Inside `<noscript>`.
    in_noscript: bool,
    /// A mount element just opened (`<div id="root">`, `<app-root>`), as written, until
    /// something is put in it or it closes empty.
    open_mount: Option<(String, String)>,
    /// The `<a>` being read (details only): its link's index and its text so far.
    anchor: Option<(usize, String)>,
    /// The first `<h1>`'s text, while it is read (details only).
    h1: Option<String>,
}

struct Sink {
    state: RefCell<State>,
}

/// Tokenizes `html` and collects what extraction needs.
pub(crate) fn read(html: &str, want_text: bool, want_details: bool) -> RawDocument {
    let state = State {
        document: RawDocument {
            text: want_text.then(Vec::new),
            details: want_details.then(RawDetails::default),
            ..RawDocument::default()
        },
        ..State::default()
    };
    let tokenizer = Tokenizer::new(
        Sink {
            state: RefCell::new(state),
        },
        TokenizerOpts::default(),
    );
    let input = BufferQueue::default();
    input.push_back(StrTendril::from_slice(html));
    let _ = tokenizer.feed(&input);
    tokenizer.end();
    let mut state = tokenizer.sink.state.into_inner();
    state.end_anchor();
    state.document
}

/// The ids single-page application frameworks mount into: React (`root`), Vue (`app`), Next.js,
/// Nuxt, Gatsby, Svelte's templates and their common variants.
const MOUNT_IDS: &[&str] = &[
    "root",
    "app",
    "__next",
    "__nuxt",
    "___gatsby",
    "svelte",
    "react-root",
    "app-root",
    "application",
];

/// Whether a `<script type>` runs: no type, a JavaScript MIME type or `module` (HTML, "the
/// script element"); JSON data blocks and templates do not.
fn is_executable_script(script_type: Option<&str>) -> bool {
    let Some(script_type) = script_type.map(str::trim) else {
        return true;
    };
    let essence = script_type.split(';').next().unwrap_or_default().trim();
    essence.is_empty()
        || essence.eq_ignore_ascii_case("module")
        || essence.eq_ignore_ascii_case("text/javascript")
        || essence.eq_ignore_ascii_case("application/javascript")
        || essence.eq_ignore_ascii_case("text/ecmascript")
        || essence.eq_ignore_ascii_case("application/ecmascript")
}

/// A custom element's name holds a hyphen (`<app-root>`, `<my-app>`); no standard one does.
fn is_custom_element(name: &str) -> bool {
    name.contains('-') && name.starts_with(|first: char| first.is_ascii_lowercase())
}

fn attribute<'a>(tag: &'a Tag, name: &str) -> Option<&'a str> {
    tag.attrs
        .iter()
        .find(|attribute| attribute.name.ns.is_empty() && &*attribute.name.local == name)
        .map(|attribute| &*attribute.value)
}

fn has_relation(tag: &Tag, relation: &str) -> bool {
    attribute(tag, "rel").is_some_and(|rel| {
        rel.split_ascii_whitespace()
            .any(|token| token.eq_ignore_ascii_case(relation))
    })
}

impl State {
    fn start_tag(&mut self, tag: &Tag) -> TokenSinkResult<()> {
        let name: &str = &tag.name;
        if !HEAD_ELEMENTS.contains(&name) {
            self.in_body = true;
        }
        self.open_mount = None;
        if self.template_depth == 0 {
            self.note_shell_signals(name, tag);
        }
        let raw_text = match name {
            "script" => Some(TokenSinkResult::RawData(RawKind::ScriptData)),
            "style" | "xmp" | "iframe" | "noembed" | "noframes" | "noscript" => {
                Some(TokenSinkResult::RawData(RawKind::Rawtext))
            }
            "textarea" | "title" => Some(TokenSinkResult::RawData(RawKind::Rcdata)),
            "plaintext" => Some(TokenSinkResult::Plaintext),
            _ => None,
        };
        if name == "template" && !tag.self_closing {
            self.template_depth += 1;
        }
        if self.template_depth > 0 {
            return raw_text.unwrap_or(TokenSinkResult::Continue);
        }
        if name == "a" {
            // Links do not nest: a new `<a>` ends the one before (HTML, "in body", `a`).
            self.end_anchor();
        }
        let document = &mut self.document;
        match name {
            "base" => {
                if document.base.is_none()
                    && let Some(href) = attribute(tag, "href")
                {
                    document.base = Some(href.to_string());
                }
            }
            "a" | "area" => {
                if let Some(href) = attribute(tag, "href") {
                    let kind = if name == "a" {
                        LinkKind::Anchor
                    } else {
                        LinkKind::Area
                    };
                    document
                        .links
                        .push((href.to_string(), kind, has_relation(tag, "nofollow")));
                    if let Some(details) = &mut document.details {
                        let index = document.links.len() - 1;
                        match name {
                            "a" => self.anchor = Some((index, String::new())),
                            _ => {
                                if let Some(alt) = attribute(tag, "alt") {
                                    details.anchors.push((index, collapse(alt)));
                                }
                            }
                        }
                    }
                }
            }
            "iframe" | "frame" => {
                if let Some(source) = attribute(tag, "src") {
                    document
                        .links
                        .push((source.to_string(), LinkKind::Frame, false));
                    if let Some(details) = &mut document.details {
                        details.resources.push(source.to_string());
                    }
                }
            }
            "link" => {
                if let Some(href) = attribute(tag, "href") {
                    if has_relation(tag, "canonical") && !self.in_body {
                        document.canonicals.push(href.to_string());
                    }
                    if has_relation(tag, "alternate")
                        && let Some(hreflang) = attribute(tag, "hreflang")
                    {
                        let hreflang = hreflang.trim().to_string();
                        document.links.push((
                            href.to_string(),
                            LinkKind::Alternate { hreflang },
                            false,
                        ));
                    }
                }
            }
            "meta" => {
                let content = attribute(tag, "content").unwrap_or_default();
                if let Some(meta_name) = attribute(tag, "name") {
                    document
                        .metas
                        .push((meta_name.trim().to_string(), content.to_string()));
                }
                let is_refresh = attribute(tag, "http-equiv")
                    .is_some_and(|equiv| equiv.trim().eq_ignore_ascii_case("refresh"));
                if is_refresh
                    && document.refresh.is_none()
                    && let Some(target) = instant_refresh_target(content)
                {
                    document.refresh = Some(target.to_string());
                    document
                        .links
                        .push((target.to_string(), LinkKind::Refresh, false));
                }
            }
            "title" if document.title.is_none() && self.title.is_none() => {
                self.title = Some(String::new());
            }
            "picture" if !tag.self_closing => self.picture_depth += 1,
            "img" | "source" if self.in_body && (name == "img" || self.picture_depth > 0) => {
                if let Some(image) = crate::images::image_of(|name| attribute(tag, name)) {
                    document.images.push(image.to_string());
                }
            }
            _ => {}
        }
        if document.details.is_some() {
            self.read_details(name, tag);
        }
        raw_text.unwrap_or(TokenSinkResult::Continue)
    }

    /// Notes what only the audit reads: headings, the language, images without alt text,
    /// what the page loads, and an image's alt as the text of the link around it.
    fn read_details(&mut self, name: &str, tag: &Tag) {
        let Some(details) = &mut self.document.details else {
            return;
        };
        let resource = match name {
            "html" => {
                if details.lang.is_none() {
                    details.lang = attribute(tag, "lang")
                        .map(str::trim)
                        .filter(|lang| !lang.is_empty())
                        .map(str::to_string);
                }
                None
            }
            "h1" => {
                details.h1_count += 1;
                if details.h1_count == 1 {
                    self.h1 = Some(String::new());
                }
                None
            }
            "img" => {
                if let Some((_, text)) = &mut self.anchor
                    && let Some(alt) = attribute(tag, "alt")
                {
                    text.push(' ');
                    text.push_str(alt);
                }
                let source = attribute(tag, "src").or_else(|| attribute(tag, "data-src"));
                if attribute(tag, "alt").is_none() && self.in_body {
                    details
                        .images_without_alt
                        .push(source.unwrap_or_default().to_string());
                }
                source
            }
            "script" | "video" | "audio" | "embed" | "track" => attribute(tag, "src"),
            "source" => attribute(tag, "src"),
            "object" => attribute(tag, "data"),
            "link" => ["stylesheet", "icon", "preload", "modulepreload", "manifest"]
                .iter()
                .any(|relation| has_relation(tag, relation))
                .then(|| attribute(tag, "href"))
                .flatten(),
            _ => None,
        };
        if let Some(resource) = resource.filter(|resource| !resource.trim().is_empty()) {
            details.resources.push(resource.to_string());
        }
    }

    /// Ends the `<a>` being read: its text, collapsed and capped, becomes its link's anchor.
    fn end_anchor(&mut self) {
        if let Some((index, text)) = self.anchor.take()
            && let Some(details) = &mut self.document.details
        {
            let text = collapse(&text);
            if !text.is_empty() {
                details.anchors.push((index, text));
            }
        }
    }

    /// Counts executable scripts, notes `<noscript>`, and opens a mount element.
    fn note_shell_signals(&mut self, name: &str, tag: &Tag) {
        match name {
            "script" if is_executable_script(attribute(tag, "type")) => {
                self.document.shell.scripts += 1;
            }
            "noscript" => self.in_noscript = true,
            _ => {}
        }
        if self.in_body && !tag.self_closing {
            let id = attribute(tag, "id").map(str::trim).unwrap_or_default();
            if MOUNT_IDS.contains(&id) {
                self.open_mount = Some((name.to_string(), format!("<{name} id=\"{id}\">")));
            } else if is_custom_element(name) {
                self.open_mount = Some((name.to_string(), format!("<{name}>")));
            }
        }
    }

    fn end_tag(&mut self, tag: &Tag) {
        if let Some((name, written)) = self.open_mount.take()
            && *tag.name == *name
            && self.document.shell.empty_mount.is_none()
        {
            self.document.shell.empty_mount = Some(written);
        }
        match &*tag.name {
            "a" => self.end_anchor(),
            "h1" => {
                if let Some(h1) = self.h1.take()
                    && let Some(details) = &mut self.document.details
                {
                    details.h1 = Some(collapse(&h1)).filter(|h1| !h1.is_empty());
                }
            }
            "template" => self.template_depth = self.template_depth.saturating_sub(1),
            "picture" => self.picture_depth = self.picture_depth.saturating_sub(1),
            "noscript" => self.in_noscript = false,
            "title" => {
                if let Some(title) = self.title.take() {
                    let title = title.split_whitespace().collect::<Vec<_>>().join(" ");
                    self.document.title = Some(title);
                }
            }
            _ => {}
        }
    }

    fn characters(&mut self, text: &str, in_raw_text: bool) {
        if let Some(title) = &mut self.title {
            // The title's text belongs to the head, not to the visible content.
            title.push_str(text);
            return;
        }
        if self.in_noscript
            && self.template_depth == 0
            && text.to_ascii_lowercase().contains("javascript")
        {
            self.document.shell.noscript_asks_for_javascript = true;
        }
        if in_raw_text || self.template_depth > 0 {
            return;
        }
        for collected in [self.anchor.as_mut().map(|(_, text)| text), self.h1.as_mut()]
            .into_iter()
            .flatten()
        {
            if collected.len() < MAX_ANCHOR_CHARS * 4 {
                collected.push_str(text);
            }
        }
        if !text.trim_ascii().is_empty() {
            self.open_mount = None;
        }
        if !self.in_body && !text.trim_ascii().is_empty() {
            self.in_body = true;
        }
        if let Some(normalized) = &mut self.document.text {
            for word in text
                .as_bytes()
                .split(u8::is_ascii_whitespace)
                .filter(|word| !word.is_empty())
            {
                normalized.extend_from_slice(word);
                normalized.push(b' ');
            }
        }
    }
}

/// `text` with runs of whitespace made one space, trimmed, at most [`MAX_ANCHOR_CHARS`]
/// characters.
fn collapse(text: &str) -> String {
    let mut collapsed = String::with_capacity(text.len().min(MAX_ANCHOR_CHARS));
    for (count, word) in text.split_whitespace().enumerate() {
        if count > 0 {
            collapsed.push(' ');
        }
        collapsed.push_str(word);
    }
    match collapsed.char_indices().nth(MAX_ANCHOR_CHARS) {
        Some((cut, _)) => collapsed[..cut].to_string(),
        None => collapsed,
    }
}

impl TokenSink for Sink {
    type Handle = ();

    fn process_token(&self, token: Token, _line_number: u64) -> TokenSinkResult<()> {
        let mut state = self.state.borrow_mut();
        match token {
            Token::TagToken(tag) => match tag.kind {
                TagKind::StartTag => {
                    let result = state.start_tag(&tag);
                    // Title and textarea text is read (RCDATA); script, style and the like
                    // hold no content.
                    state.raw_text = matches!(
                        result,
                        TokenSinkResult::RawData(RawKind::ScriptData | RawKind::Rawtext)
                            | TokenSinkResult::Plaintext
                    );
                    return result;
                }
                TagKind::EndTag => {
                    state.raw_text = false;
                    state.end_tag(&tag);
                }
            },
            Token::CharacterTokens(text) => {
                let raw = state.raw_text;
                state.characters(&text, raw);
            }
            _ => {}
        }
        TokenSinkResult::Continue
    }
}
