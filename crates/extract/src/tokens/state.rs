//! The collection both tokenizers feed: what the document says, as written
//! ([`RawDocument`]), gathered token by token by [`State`], which tracks what the tree builder
//! would decide and extraction depends on (see the parent module).

use super::tag::{StartTag, TextMode};
use crate::facts::{LinkKind, MAX_SCRIPT_NAMES, ShellSignals, Unfinished};
use crate::fingerprint::{VisibleText, push_legacy_words};
use crate::refresh::instant_refresh_target;
use crate::signals::{Collector, RawSignals};
use crate::structured::collect::{Collector as StructuredCollector, RawStructured};
use crate::words::WordCount;

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
    /// Visible text as the fingerprint reads it (`fingerprint::VisibleText`), when asked for.
    pub(crate) text: Option<Vec<u8>>,
    /// Visible text as the legacy fingerprint read it, when asked for.
    pub(crate) legacy_text: Option<Vec<u8>>,
    /// What says the page is an application shell that scripts fill in.
    pub(crate) shell: ShellSignals,
    /// What only the audit reads, when asked for.
    pub(crate) details: Option<RawDetails>,
    /// What structured data says, as written, when asked for.
    pub(crate) structured: Option<RawStructured>,
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
    /// Words of the visible text (`words::WordCount`).
    pub(crate) word_count: u32,
    /// What the audit's checks of accessibility, phones, sharing and security read.
    pub(crate) signals: RawSignals,
    /// The words of the visible text, lowercased, one space apart: the simhash's.
    pub(crate) words: Option<String>,
}

/// An anchor's text is kept up to this many characters.
const MAX_ANCHOR_CHARS: usize = 200;

/// Of an anchor's or heading's text, at most this many bytes are read before collapsing.
const MAX_COLLECTED_BYTES: usize = MAX_ANCHOR_CHARS * 4;

/// `javascript`, the word a `<noscript>` asking for scripts holds.
const JAVASCRIPT: &[u8] = b"javascript";

/// What a reading collects beyond what every page gives.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Wanted {
    /// The fingerprint's text.
    pub(crate) text: bool,
    /// The legacy fingerprint's text: only html5ever's tokenizer cuts text as it needs.
    pub(crate) legacy_text: bool,
    /// What only the audit reads.
    pub(crate) details: bool,
    /// Structured data: JSON-LD blocks, whether there is microdata, videos.
    pub(crate) structured: bool,
}

#[derive(Debug, Default)]
pub(super) struct State {
    document: RawDocument,
    /// The fingerprint's text being read.
    text: Option<VisibleText>,
    /// The words of the visible text (details only).
    words: Option<WordCount>,
    /// Structured data's notes (when asked for).
    structured: Option<StructuredCollector>,
    /// The audit's signals (details only).
    signals: Option<Collector>,
    in_body: bool,
    /// Inside a raw-text element (script, style, noscript...): its text is not content.
    raw_text: bool,
    /// Inside an inert `<template>`: no links, no text (see [`is_declarative_shadow_root`]).
    template_depth: usize,
    picture_depth: usize,
    /// The `<title>` being read.
    title: Option<String>,
    /// Inside `<noscript>`.
    in_noscript: bool,
    /// A mount element just opened (`<div id="root">`, `<app-root>`), as written, until
    /// something is put in it or it closes empty.
    open_mount: Option<(String, String)>,
    /// A list (`<ul>`, `<ol>`) just opened, as written, until an item or text is put in it or
    /// it closes empty.
    open_list: Option<(&'static str, String)>,
    /// The `<a>` being read (details only): its link's index and its text so far.
    anchor: Option<(usize, String)>,
    /// The first `<h1>`'s text, while it is read (details only).
    h1: Option<String>,
    /// The end of the `<noscript>` text read so far, lowercased: `javascript` may straddle
    /// two pieces of text.
    noscript_tail: Vec<u8>,
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

/// The file name a script's `src` names: its last path segment, without query or fragment
/// (`../static.files/main-1a2b.js?v=3` is `main-1a2b.js`). None for an empty one.
fn script_file_name(source: &str) -> Option<&str> {
    let path = source.trim().split(['?', '#']).next().unwrap_or_default();
    let name = path.rsplit('/').next().unwrap_or_default();
    (!name.is_empty()).then_some(name)
}

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

/// Whether a `<template>` is a declarative shadow root, whose content the browser shows in
/// the element around it (HTML, "parsing main in head", a `template` start tag: `shadowrootmode`
/// `open` or `closed`, an enumerated attribute, so in any case). In the head no shadow root
/// attaches (`<head>` takes none) and the template stays inert; in the body, the element
/// around it is taken to be one that takes a shadow root (a custom element, `<div>`, `<span>`),
/// as it is in pages that write one. Only inert templates are counted, and no shadow root
/// opens inside one: a shadow root's end tag needs no tracking of its own.
fn is_declarative_shadow_root(tag: &impl StartTag, in_body: bool) -> bool {
    in_body
        && tag.attribute("shadowrootmode").is_some_and(|mode| {
            mode.eq_ignore_ascii_case("open") || mode.eq_ignore_ascii_case("closed")
        })
}

fn has_relation(tag: &impl StartTag, relation: &str) -> bool {
    tag.attribute("rel").is_some_and(|rel| {
        rel.split_ascii_whitespace()
            .any(|token| token.eq_ignore_ascii_case(relation))
    })
}

impl State {
    pub(super) fn new(wanted: Wanted) -> State {
        State {
            document: RawDocument {
                legacy_text: wanted.legacy_text.then(Vec::new),
                details: wanted.details.then(RawDetails::default),
                ..RawDocument::default()
            },
            text: wanted.text.then(VisibleText::default),
            words: wanted.details.then(WordCount::keeping_text),
            structured: wanted.structured.then(StructuredCollector::default),
            signals: wanted.details.then(Collector::default),
            ..State::default()
        }
    }

    /// The end of the document: what is still open is closed.
    pub(super) fn finish(mut self) -> RawDocument {
        self.end_anchor();
        self.document.text = self.text.map(VisibleText::finish);
        self.document.structured = self.structured.map(StructuredCollector::finish);
        if let Some(details) = &mut self.document.details {
            let signals = self.signals.map(Collector::finish).unwrap_or_default();
            if let Some(words) = self.words {
                let (count, text) = words.finish_with_text();
                details.word_count = count;
                details.words = text;
            }
            details.signals = signals;
        }
        self.document
    }

    /// A doctype: markup, and before any element, what keeps the page out of quirks mode.
    pub(super) fn doctype(&mut self) {
        self.markup();
        if let Some(signals) = &mut self.signals {
            signals.doctype();
        }
    }

    /// Markup (a tag, a comment, a doctype) between two pieces of text: it ends a word of
    /// the fingerprint's text (see `fingerprint::VisibleText`).
    pub(super) fn markup(&mut self) {
        self.noscript_tail.clear();
        if let Some(text) = &mut self.text {
            text.end_word();
        }
        if let Some(words) = &mut self.words {
            words.end_word();
        }
    }

    /// A start tag; the text mode it switches the tokenizer to, if any.
    pub(super) fn start_tag(&mut self, tag: &impl StartTag) -> Option<TextMode> {
        self.markup();
        let mode = self.read_start_tag(tag);
        // Title and textarea text is read (RCDATA); script, style and the like hold no
        // content.
        self.raw_text = matches!(
            mode,
            Some(TextMode::ScriptData | TextMode::Rawtext | TextMode::Plaintext)
        );
        mode
    }

    fn read_start_tag(&mut self, tag: &impl StartTag) -> Option<TextMode> {
        let name = tag.name();
        if !HEAD_ELEMENTS.contains(&name) {
            self.in_body = true;
        }
        self.open_mount = None;
        self.open_list = None;
        if self.template_depth == 0 {
            self.note_shell_signals(name, tag);
        }
        let mode = match name {
            "script" => Some(TextMode::ScriptData),
            "style" | "xmp" | "iframe" | "noembed" | "noframes" | "noscript" => {
                Some(TextMode::Rawtext)
            }
            "textarea" | "title" => Some(TextMode::Rcdata),
            "plaintext" => Some(TextMode::Plaintext),
            _ => None,
        };
        if name == "template"
            && !tag.self_closing()
            && (self.template_depth > 0 || !is_declarative_shadow_root(tag, self.in_body))
        {
            self.template_depth += 1;
        }
        if self.template_depth > 0 {
            return mode;
        }
        if let Some(structured) = &mut self.structured {
            structured.start_tag(name, tag, self.in_body);
        }
        if name == "a" {
            // Links do not nest: a new `<a>` ends the one before (HTML, "in body", `a`).
            self.end_anchor();
        }
        let document = &mut self.document;
        match name {
            "base" => {
                if document.base.is_none()
                    && let Some(href) = tag.attribute("href")
                {
                    document.base = Some(href.to_string());
                }
            }
            "a" | "area" => {
                if let Some(href) = tag.attribute("href") {
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
                                if let Some(alt) = tag.attribute("alt") {
                                    details.anchors.push((index, collapse(alt)));
                                }
                            }
                        }
                    }
                }
            }
            "iframe" | "frame" => {
                if let Some(source) = tag.attribute("src") {
                    document
                        .links
                        .push((source.to_string(), LinkKind::Frame, false));
                    if let Some(details) = &mut document.details {
                        details.resources.push(source.to_string());
                    }
                }
            }
            "link" => {
                if let Some(href) = tag.attribute("href") {
                    if has_relation(tag, "canonical") && !self.in_body {
                        document.canonicals.push(href.to_string());
                    }
                    if has_relation(tag, "alternate")
                        && let Some(hreflang) = tag.attribute("hreflang")
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
                let content = tag.attribute("content").unwrap_or_default();
                if let Some(meta_name) = tag.attribute("name") {
                    document
                        .metas
                        .push((meta_name.trim().to_string(), content.to_string()));
                }
                let is_refresh = tag
                    .attribute("http-equiv")
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
            "picture" if !tag.self_closing() => self.picture_depth += 1,
            "img" | "source" if self.in_body && (name == "img" || self.picture_depth > 0) => {
                if let Some(image) = crate::images::image_of(|name| tag.attribute(name)) {
                    document.images.push(image.to_string());
                }
            }
            _ => {}
        }
        if document.details.is_some() {
            self.read_details(name, tag);
        }
        if let Some(signals) = &mut self.signals {
            signals.start_tag(name, tag, self.in_body);
        }
        mode
    }

    /// Notes what only the audit reads: headings, the language, images without alt text,
    /// what the page loads, and an image's alt as the text of the link around it.
    fn read_details(&mut self, name: &str, tag: &impl StartTag) {
        let Some(details) = &mut self.document.details else {
            return;
        };
        let resource = match name {
            "html" => {
                if details.lang.is_none() {
                    details.lang = tag
                        .attribute("lang")
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
                    && let Some(alt) = tag.attribute("alt")
                {
                    text.push(' ');
                    text.push_str(alt);
                }
                let source = tag.attribute("src").or_else(|| tag.attribute("data-src"));
                if tag.attribute("alt").is_none() && self.in_body {
                    details
                        .images_without_alt
                        .push(source.unwrap_or_default().to_string());
                }
                source
            }
            "script" | "video" | "audio" | "embed" | "track" => tag.attribute("src"),
            "source" => tag.attribute("src"),
            "object" => tag.attribute("data"),
            "link" => ["stylesheet", "icon", "preload", "modulepreload", "manifest"]
                .iter()
                .any(|relation| has_relation(tag, relation))
                .then(|| tag.attribute("href"))
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
    fn note_shell_signals(&mut self, name: &str, tag: &impl StartTag) {
        match name {
            "script" if is_executable_script(tag.attribute("type")) => {
                let shell = &mut self.document.shell;
                shell.scripts += 1;
                if let Some(name) = tag.attribute("src").and_then(script_file_name)
                    && shell.script_names.len() < MAX_SCRIPT_NAMES
                {
                    shell.script_names.push(name.to_string());
                }
            }
            "noscript" => self.in_noscript = true,
            _ => {}
        }
        if self.in_body && !tag.self_closing() {
            let id = tag.attribute("id").map(str::trim).unwrap_or_default();
            if MOUNT_IDS.contains(&id) || (name == "nav" && !id.is_empty()) {
                self.open_mount = Some((name.to_string(), format!("<{name} id=\"{id}\">")));
            } else if is_custom_element(name) || name == "nav" {
                self.open_mount = Some((name.to_string(), format!("<{name}>")));
            }
            if self.document.shell.unfinished.is_none() && is_container(name) {
                self.note_unfinished(name, id, tag);
            }
        }
    }

    /// Notes a container marked busy, and opens a list that may close empty. Only containers
    /// ([`is_container`]) are looked at: a busy mark on a link or a paragraph is rare, and
    /// reading every tag's attributes for it is not free.
    fn note_unfinished(&mut self, name: &str, id: &str, tag: &impl StartTag) {
        let list = match name {
            "ul" => Some("ul"),
            "ol" => Some("ol"),
            _ => None,
        };
        if tag
            .attribute("aria-busy")
            .is_some_and(|busy| busy.trim().eq_ignore_ascii_case("true"))
        {
            let written = format!("<{name} aria-busy=\"true\">");
            self.document.shell.unfinished = Some(Unfinished::Busy(written));
            return;
        }
        let Some(list) = list else {
            return;
        };
        let class = tag.attribute("class").map(str::trim);
        // A search's results are filled by a visitor's query, never when the page loads.
        let names_search = |text: &str| text.to_ascii_lowercase().contains("search");
        if names_search(id) || class.is_some_and(names_search) {
            return;
        }
        let written = match (id, class) {
            ("", Some(class)) if !class.is_empty() => format!("<{list} class=\"{class}\">"),
            ("", _) => format!("<{list}>"),
            (id, _) => format!("<{list} id=\"{id}\">"),
        };
        self.open_list = Some((list, written));
    }

    pub(super) fn end_tag(&mut self, name: &str) {
        self.markup();
        self.raw_text = false;
        if let Some(structured) = &mut self.structured {
            structured.end_tag(name);
        }
        if let Some((open, written)) = self.open_mount.take()
            && open == name
            && self.document.shell.empty_mount.is_none()
        {
            self.document.shell.empty_mount = Some(written);
        }
        if let Some((open, written)) = self.open_list.take()
            && open == name
            && self.document.shell.unfinished.is_none()
        {
            self.document.shell.unfinished = Some(Unfinished::EmptyList(written));
        }
        if let Some(signals) = &mut self.signals
            && self.template_depth == 0
        {
            signals.end_tag(name);
        }
        match name {
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

    /// A piece of text. A tokenizer may hand over the text between two tags in any number
    /// of pieces: what is collected is the same, but for the legacy fingerprint's words,
    /// which end with each piece.
    pub(super) fn characters(&mut self, text: &str) {
        if let Some(structured) = &mut self.structured
            && structured.in_block()
        {
            // A JSON-LD block is data, not content.
            structured.block_text(text);
            return;
        }
        if let Some(title) = &mut self.title {
            // The title's text belongs to the head, not to the visible content.
            title.push_str(text);
            return;
        }
        if self.in_noscript && self.template_depth == 0 {
            self.note_noscript_text(text);
        }
        if self.raw_text || self.template_depth > 0 {
            return;
        }
        for collected in [self.anchor.as_mut().map(|(_, text)| text), self.h1.as_mut()]
            .into_iter()
            .flatten()
        {
            push_capped(collected, text);
        }
        if !text.trim_ascii().is_empty() {
            self.open_mount = None;
            self.open_list = None;
            self.in_body = true;
            if self.document.shell.unfinished.is_none()
                && self.template_depth == 0
                && let Some(loading) = loading_text(text)
            {
                self.document.shell.unfinished = Some(Unfinished::Loading(loading));
            }
        }
        if let Some(signals) = &mut self.signals {
            signals.text(text);
        }
        if let Some(visible) = &mut self.text {
            visible.push(text);
        }
        if let Some(words) = &mut self.words {
            words.push(text);
        }
        if let Some(legacy) = &mut self.document.legacy_text {
            push_legacy_words(legacy, text);
        }
    }

    /// Looks for `javascript` in the `<noscript>` text, across the pieces it comes in.
    fn note_noscript_text(&mut self, text: &str) {
        if self.document.shell.noscript_asks_for_javascript {
            return;
        }
        let tail = &mut self.noscript_tail;
        tail.extend(text.bytes().map(|byte| byte.to_ascii_lowercase()));
        if tail
            .windows(JAVASCRIPT.len())
            .any(|window| window == JAVASCRIPT)
        {
            self.document.shell.noscript_asks_for_javascript = true;
        }
        let keep = JAVASCRIPT.len() - 1;
        if tail.len() > keep {
            tail.drain(..tail.len() - keep);
        }
    }
}

/// Whether `name` is an element whose start tag is looked at for a sign that the page is
/// unfinished: a list a script fills, or a container that holds a page's parts, which a busy
/// mark speaks of. (A `match`: it is asked of every tag.)
fn is_container(name: &str) -> bool {
    matches!(
        name,
        "div"
            | "ul"
            | "ol"
            | "section"
            | "main"
            | "article"
            | "aside"
            | "nav"
            | "table"
            | "tbody"
            | "form"
            | "body"
    )
}

/// The longest text taken for a loading placeholder: longer text is content.
const MAX_LOADING_TEXT: usize = 48;

/// `text`, trimmed, when it says the page is still loading: `Loading`, or a short text that
/// begins with `Loading` and ends with an ellipsis (`Loading tags…`, `Loading...`). A heading
/// such as "Loading data from files" is content, and is not taken.
fn loading_text(text: &str) -> Option<String> {
    // Most text begins otherwise: one byte tells.
    let start = text.trim_ascii_start();
    if !matches!(start.as_bytes().first(), Some(b'L' | b'l')) {
        return None;
    }
    let text = start.trim_end();
    if text.len() > MAX_LOADING_TEXT
        || !text
            .get(..7)
            .is_some_and(|start| start.eq_ignore_ascii_case("loading"))
    {
        return None;
    }
    let ellipsis = text.ends_with('…') || text.ends_with("...");
    (ellipsis || text.len() == 7).then(|| text.to_string())
}

/// Appends `text` to `collected` up to [`MAX_COLLECTED_BYTES`] in all (cut at a character).
fn push_capped(collected: &mut String, text: &str) {
    let room = MAX_COLLECTED_BYTES.saturating_sub(collected.len());
    let mut cut = text.len().min(room);
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    collected.push_str(&text[..cut]);
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
