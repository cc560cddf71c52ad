//! What a page says that the audit's checks of accessibility, phones, sharing, security and
//! weight read ([`PageSignals`]), gathered token by token while the document is read for
//! everything else (`tokens::State` drives a [`Collector`]): no second reading of the page.
//!
//! Each count comes with its first few examples, as written or resolved, so that a finding
//! can say where the problem is.

use std::collections::HashSet;

use serde::{Deserialize, Serialize};

use crate::tokens::tag::StartTag;

/// At most this many examples are kept of each problem.
pub const MAX_SIGNAL_EXAMPLES: usize = 5;

/// At most this many images with a declared width are kept, for the check of images much
/// larger than shown.
pub(crate) const MAX_SIZED_IMAGES: usize = 40;

/// Whether `name` is an element HTML has dropped (HTML, "obsolete features", non-conforming
/// elements). A `match`: it is asked of every tag.
fn is_obsolete(name: &str) -> bool {
    matches!(
        name,
        "acronym"
            | "applet"
            | "basefont"
            | "big"
            | "blink"
            | "center"
            | "dir"
            | "font"
            | "frameset"
            | "marquee"
            | "nobr"
            | "strike"
            | "tt"
    )
}

/// How many times a problem shows on a page, and where first.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Examples {
    /// How many.
    #[serde(rename = "n")]
    pub count: u32,
    /// The first [`MAX_SIGNAL_EXAMPLES`] of them.
    #[serde(rename = "e", default, skip_serializing_if = "Vec::is_empty")]
    pub first: Vec<String>,
}

impl Examples {
    /// One more, with what says where it is.
    pub fn note(&mut self, example: impl FnOnce() -> String) {
        self.count = self.count.saturating_add(1);
        if self.first.len() < MAX_SIGNAL_EXAMPLES {
            self.first.push(example());
        }
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// `N: first second and M more`, for a finding's detail.
    pub fn describe(&self, one: &str, many: &str) -> String {
        let what = if self.count == 1 { one } else { many };
        let shown = self.first.join(", ");
        let more = (self.count as usize).saturating_sub(self.first.len());
        let more = if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        };
        if shown.is_empty() {
            format!("{} {what}", self.count)
        } else {
            format!("{} {what}: {shown}{more}", self.count)
        }
    }
}

/// The security headers of the response a page came with.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SecurityHeaders {
    /// `Strict-Transport-Security`.
    #[serde(rename = "hsts", default, skip_serializing_if = "is_false")]
    pub strict_transport_security: bool,
    /// `X-Content-Type-Options: nosniff`.
    #[serde(rename = "nosniff", default, skip_serializing_if = "is_false")]
    pub content_type_options: bool,
    /// `X-Frame-Options`, or a Content-Security-Policy with `frame-ancestors`.
    #[serde(rename = "frames", default, skip_serializing_if = "is_false")]
    pub frame_options: bool,
    /// `Content-Security-Policy`.
    #[serde(rename = "csp", default, skip_serializing_if = "is_false")]
    pub content_security_policy: bool,
}

impl SecurityHeaders {
    /// What `(name, value)` pairs of a response say.
    pub fn read<'a>(headers: impl IntoIterator<Item = (&'a str, &'a str)>) -> SecurityHeaders {
        let mut security = SecurityHeaders::default();
        for (name, value) in headers {
            if name.eq_ignore_ascii_case("strict-transport-security") {
                security.strict_transport_security = true;
            } else if name.eq_ignore_ascii_case("x-content-type-options") {
                security.content_type_options |= value.trim().eq_ignore_ascii_case("nosniff");
            } else if name.eq_ignore_ascii_case("x-frame-options") {
                security.frame_options = true;
            } else if name.eq_ignore_ascii_case("content-security-policy") {
                security.content_security_policy = true;
                security.frame_options |= value.to_ascii_lowercase().contains("frame-ancestors");
            }
        }
        security
    }
}

/// What a page says that the audit's checks of accessibility, phones, sharing, security and
/// weight read. Kept in the crawl database as JSON, with short names.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PageSignals {
    /// A doctype stands before the first element.
    #[serde(rename = "doctype", default, skip_serializing_if = "is_false")]
    pub doctype: bool,
    /// `<meta name=viewport>`'s content, when there is one.
    #[serde(rename = "viewport", default, skip_serializing_if = "Option::is_none")]
    pub viewport: Option<String>,
    /// `<title>` elements (outside `<svg>`).
    #[serde(rename = "titles", default, skip_serializing_if = "is_zero")]
    pub titles: u32,
    /// `<meta name=description>` elements.
    #[serde(rename = "descriptions", default, skip_serializing_if = "is_zero")]
    pub descriptions: u32,
    /// Links (`<a href>`) without text, image alt, `aria-label`, `aria-labelledby` or `title`,
    /// by their `href`.
    #[serde(
        rename = "textless",
        default,
        skip_serializing_if = "Examples::is_empty"
    )]
    pub links_without_text: Examples,
    /// Form fields nothing labels, by their name or id.
    #[serde(
        rename = "unlabelled",
        default,
        skip_serializing_if = "Examples::is_empty"
    )]
    pub inputs_without_label: Examples,
    /// Buttons without a name, as written.
    #[serde(
        rename = "nameless",
        default,
        skip_serializing_if = "Examples::is_empty"
    )]
    pub buttons_without_name: Examples,
    /// Headings that skip a level going down: `h2 → h4`.
    #[serde(rename = "skips", default, skip_serializing_if = "Examples::is_empty")]
    pub skipped_headings: Examples,
    /// `<iframe>` elements without a title, by their `src`.
    #[serde(
        rename = "untitled",
        default,
        skip_serializing_if = "Examples::is_empty"
    )]
    pub frames_without_title: Examples,
    /// Elements whose `tabindex` is above 0, as written.
    #[serde(
        rename = "tabindex",
        default,
        skip_serializing_if = "Examples::is_empty"
    )]
    pub positive_tabindex: Examples,
    /// The Open Graph properties the page has, without `og:` (`title`, `image`...).
    #[serde(rename = "og", default, skip_serializing_if = "Vec::is_empty")]
    pub open_graph: Vec<String>,
    /// The Twitter card properties the page has, without `twitter:` (`card`, `title`...).
    #[serde(rename = "twitter", default, skip_serializing_if = "Vec::is_empty")]
    pub twitter: Vec<String>,
    /// `<img>` elements without `width` or `height`, by their `src`.
    #[serde(
        rename = "unsized",
        default,
        skip_serializing_if = "Examples::is_empty"
    )]
    pub images_without_dimensions: Examples,
    /// Images with a `width` attribute: `(src resolved, width)`, at most 40.
    #[serde(rename = "widths", default, skip_serializing_if = "Vec::is_empty")]
    pub image_widths: Vec<(String, u32)>,
    /// Scripts of the `<head>` loaded without `async` or `defer`, by their `src`.
    #[serde(
        rename = "blocking",
        default,
        skip_serializing_if = "Examples::is_empty"
    )]
    pub render_blocking_scripts: Examples,
    /// Obsolete elements used, by name.
    #[serde(
        rename = "obsolete",
        default,
        skip_serializing_if = "Examples::is_empty"
    )]
    pub obsolete_elements: Examples,
    /// A `<meta http-equiv=refresh>` with a delay: its content.
    #[serde(rename = "refresh", default, skip_serializing_if = "Option::is_none")]
    pub timed_refresh: Option<String>,
    /// The canonical is written as a relative URL: as written.
    #[serde(
        rename = "relcanonical",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub relative_canonical: Option<String>,
    /// Forms whose data goes over plain http, by the address they send to.
    #[serde(
        rename = "httpforms",
        default,
        skip_serializing_if = "Examples::is_empty"
    )]
    pub insecure_forms: Examples,
    /// Resources loaded by a protocol-relative URL (`//host/x.js`), as written.
    #[serde(
        rename = "schemeless",
        default,
        skip_serializing_if = "Examples::is_empty"
    )]
    pub protocol_relative: Examples,
    /// Links a visitor can follow to another page (`<a href>`, `<area href>`).
    #[serde(rename = "out", default, skip_serializing_if = "is_zero")]
    pub links_out: u32,
    /// On an https page, links to pages of the same host over plain http, resolved.
    #[serde(
        rename = "httplinks",
        default,
        skip_serializing_if = "Examples::is_empty"
    )]
    pub http_links: Examples,
    /// Links to pages of the same host marked `rel=nofollow`, resolved.
    #[serde(
        rename = "nofollow",
        default,
        skip_serializing_if = "Examples::is_empty"
    )]
    pub nofollow_internal: Examples,
    /// The security headers of the response.
    #[serde(rename = "headers", default)]
    pub headers: SecurityHeaders,
    /// The simhash of the visible text's three-word shingles (`None` under three words).
    #[serde(rename = "simhash", default, skip_serializing_if = "Option::is_none")]
    pub simhash: Option<u64>,
    /// The scripts the page loads (`<script src>`), resolved.
    #[serde(rename = "scripts", default, skip_serializing_if = "Vec::is_empty")]
    pub scripts: Vec<String>,
    /// The style sheets the page loads (`<link rel=stylesheet>`), resolved.
    #[serde(rename = "styles", default, skip_serializing_if = "Vec::is_empty")]
    pub stylesheets: Vec<String>,
}

impl PageSignals {
    /// As kept in the crawl database.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// From the crawl database; `None` when it does not read.
    pub fn from_json(text: &str) -> Option<PageSignals> {
        serde_json::from_str(text).ok()
    }
}

fn is_false(value: &bool) -> bool {
    !value
}

fn is_zero(value: &u32) -> bool {
    *value == 0
}

/// The signals as written, before references are resolved against the document's base.
#[derive(Debug, Default)]
pub(crate) struct RawSignals {
    pub(crate) signals: PageSignals,
    /// `src` of images with a declared width, as written.
    pub(crate) image_widths: Vec<(String, u32)>,
    /// The `action` of each form, as written (`None`: the form sends to the page itself).
    pub(crate) forms: Vec<Option<String>>,
    /// `<script src>` and `<link rel=stylesheet href>`, as written.
    pub(crate) scripts: Vec<String>,
    pub(crate) stylesheets: Vec<String>,
}

/// A form field or button being read, until its end says whether it has a name.
#[derive(Debug)]
struct Open {
    /// As written, for the example.
    written: String,
    named: bool,
}

/// Gathers [`RawSignals`] from the tokens of one document.
#[derive(Debug, Default)]
pub(crate) struct Collector {
    raw: RawSignals,
    /// A start tag was seen: a doctype after it counts for nothing.
    started: bool,
    in_head_done: bool,
    svg_depth: u32,
    label_depth: u32,
    /// The level of the last heading, 0 before the first.
    heading_level: u8,
    /// The `<a>` being read: its `href` and whether something names it.
    anchor: Option<Open>,
    /// The last anchor's `href` buffer, reused: a page has a hundred links.
    spare_href: String,
    button: Option<Open>,
    /// Fields not named by themselves or a `<label>` around them: `(id, as written)`.
    fields: Vec<(Option<String>, String)>,
    /// The ids `<label for>` names.
    label_targets: HashSet<String>,
}

impl Collector {
    /// A doctype token.
    pub(crate) fn doctype(&mut self) {
        if !self.started {
            self.raw.signals.doctype = true;
        }
    }

    /// A start tag; `in_body` says whether the body has started.
    pub(crate) fn start_tag(&mut self, name: &str, tag: &impl StartTag, in_body: bool) {
        self.started = true;
        if in_body {
            self.in_head_done = true;
        }
        if let Some(tabindex) = tag.attribute("tabindex")
            && tabindex.trim().parse::<i64>().is_ok_and(|index| index > 0)
        {
            self.raw
                .signals
                .positive_tabindex
                .note(|| format!("<{name} tabindex=\"{}\">", tabindex.trim()));
        }
        // Asked only of what can be named: most tags are none of these.
        let named_by_attributes = || {
            ["aria-label", "aria-labelledby", "title"]
                .iter()
                .any(|attribute| has_text(tag, attribute))
        };
        match name {
            "svg" if !tag.self_closing() => self.svg_depth += 1,
            "title" if self.svg_depth == 0 => self.raw.signals.titles += 1,
            "meta" => self.meta(tag),
            "a" | "area" => {
                if tag.attribute("href").is_some() {
                    self.raw.signals.links_out += 1;
                }
                if name == "a"
                    && let Some(href) = tag.attribute("href")
                {
                    self.end_anchor();
                    let mut written = std::mem::take(&mut self.spare_href);
                    written.clear();
                    written.push_str(href.trim());
                    self.anchor = Some(Open {
                        written,
                        named: named_by_attributes(),
                    });
                }
            }
            "img" => self.image(tag),
            "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => {
                let level = name.as_bytes()[1] - b'0';
                if self.heading_level > 0 && level > self.heading_level + 1 {
                    let previous = self.heading_level;
                    self.raw
                        .signals
                        .skipped_headings
                        .note(|| format!("h{previous} → h{level}"));
                }
                self.heading_level = level;
            }
            "label" if !tag.self_closing() => {
                self.label_depth += 1;
                if let Some(target) = tag.attribute("for") {
                    self.label_targets.insert(target.trim().to_string());
                }
            }
            "input" | "select" | "textarea" => self.field(name, tag, named_by_attributes()),
            "button" => {
                self.end_button();
                self.button = Some(Open {
                    written: written_tag(name, tag),
                    named: named_by_attributes(),
                });
            }
            "iframe" if !has_text(tag, "title") => {
                let source = tag.attribute("src").unwrap_or_default().trim().to_string();
                self.raw.signals.frames_without_title.note(|| source);
            }
            "script" => {
                if let Some(source) = tag.attribute("src") {
                    self.raw.scripts.push(source.to_string());
                    let deferred = tag.attribute("async").is_some()
                        || tag.attribute("defer").is_some()
                        || tag.attribute("type").is_some_and(|kind| {
                            !kind.trim().is_empty()
                                && !kind.trim().eq_ignore_ascii_case("text/javascript")
                        });
                    if !self.in_head_done && !deferred {
                        self.raw
                            .signals
                            .render_blocking_scripts
                            .note(|| source.trim().to_string());
                    }
                }
            }
            "link" => {
                if let Some(href) = tag.attribute("href")
                    && has_token(tag.attribute("rel"), "stylesheet")
                {
                    self.raw.stylesheets.push(href.to_string());
                }
                if let Some(href) = tag.attribute("href")
                    && has_token(tag.attribute("rel"), "canonical")
                    && url::Url::parse(href.trim()).is_err()
                    && !href.trim().is_empty()
                {
                    self.raw.signals.relative_canonical = Some(href.trim().to_string());
                }
            }
            "form" => self.raw.forms.push(
                tag.attribute("action")
                    .map(str::trim)
                    .filter(|action| !action.is_empty())
                    .map(str::to_string),
            ),
            _ => {}
        }
        if is_obsolete(name) {
            self.raw
                .signals
                .obsolete_elements
                .note(|| format!("<{name}>"));
        }
    }

    /// An end tag.
    pub(crate) fn end_tag(&mut self, name: &str) {
        match name {
            "svg" => self.svg_depth = self.svg_depth.saturating_sub(1),
            "a" => self.end_anchor(),
            "button" => self.end_button(),
            "label" => self.label_depth = self.label_depth.saturating_sub(1),
            "head" => self.in_head_done = true,
            _ => {}
        }
    }

    /// Text outside scripts and styles: it names the link or button it is in.
    pub(crate) fn text(&mut self, text: &str) {
        if text.trim().is_empty() {
            return;
        }
        for open in [self.anchor.as_mut(), self.button.as_mut()]
            .into_iter()
            .flatten()
        {
            open.named = true;
        }
    }

    /// The end of the document.
    pub(crate) fn finish(mut self) -> RawSignals {
        self.end_anchor();
        self.end_button();
        for (id, written) in std::mem::take(&mut self.fields) {
            if !id.is_some_and(|id| self.label_targets.contains(&id)) {
                self.raw.signals.inputs_without_label.note(|| written);
            }
        }
        self.raw
    }

    fn meta(&mut self, tag: &impl StartTag) {
        let content = tag.attribute("content").unwrap_or_default();
        let name = tag.attribute("name").map(str::trim).unwrap_or_default();
        let property = tag.attribute("property").map(str::trim).unwrap_or_default();
        let signals = &mut self.raw.signals;
        if name.eq_ignore_ascii_case("viewport") && signals.viewport.is_none() {
            signals.viewport = Some(content.trim().to_string());
        }
        if name.eq_ignore_ascii_case("description") {
            signals.descriptions += 1;
        }
        for key in [name, property] {
            let lower = key.to_ascii_lowercase();
            if let Some(og) = lower.strip_prefix("og:")
                && !content.trim().is_empty()
                && !signals.open_graph.iter().any(|known| known == og)
            {
                signals.open_graph.push(og.to_string());
            }
            if let Some(twitter) = lower.strip_prefix("twitter:")
                && !content.trim().is_empty()
                && !signals.twitter.iter().any(|known| known == twitter)
            {
                signals.twitter.push(twitter.to_string());
            }
        }
        let refresh = tag
            .attribute("http-equiv")
            .is_some_and(|equiv| equiv.trim().eq_ignore_ascii_case("refresh"));
        if refresh && signals.timed_refresh.is_none() {
            let delay = content.split([';', ',']).next().unwrap_or_default().trim();
            if delay.parse::<f64>().is_ok_and(|seconds| seconds > 0.0) {
                signals.timed_refresh = Some(content.trim().to_string());
            }
        }
    }

    fn image(&mut self, tag: &impl StartTag) {
        if let Some(open) = &mut self.anchor
            && tag
                .attribute("alt")
                .is_some_and(|alt| !alt.trim().is_empty())
        {
            open.named = true;
        }
        if let Some(open) = &mut self.button
            && tag
                .attribute("alt")
                .is_some_and(|alt| !alt.trim().is_empty())
        {
            open.named = true;
        }
        let Some(source) = tag
            .attribute("src")
            .map(str::trim)
            .filter(|src| !src.is_empty())
        else {
            return;
        };
        let width = tag.attribute("width");
        if width.is_none() || tag.attribute("height").is_none() {
            self.raw
                .signals
                .images_without_dimensions
                .note(|| source.to_string());
        }
        if let Some(width) = width.and_then(|width| width.trim().parse::<u32>().ok())
            && width > 0
            && self.raw.image_widths.len() < MAX_SIZED_IMAGES
        {
            self.raw.image_widths.push((source.to_string(), width));
        }
    }

    fn field(&mut self, name: &str, tag: &impl StartTag, named_by_attributes: bool) {
        let kind = tag
            .attribute("type")
            .map(|kind| kind.trim().to_ascii_lowercase())
            .unwrap_or_default();
        if name == "input" {
            match kind.as_str() {
                "hidden" | "submit" | "reset" => return,
                "button" => {
                    if !has_text(tag, "value") && !named_by_attributes {
                        let written = written_tag(name, tag);
                        self.raw.signals.buttons_without_name.note(|| written);
                    }
                    return;
                }
                "image" => {
                    if !has_text(tag, "alt") && !named_by_attributes {
                        let written = written_tag(name, tag);
                        self.raw.signals.buttons_without_name.note(|| written);
                    }
                    return;
                }
                _ => {}
            }
        }
        if named_by_attributes || self.label_depth > 0 {
            return;
        }
        let id = tag.attribute("id").map(|id| id.trim().to_string());
        self.fields.push((id, written_tag(name, tag)));
    }

    fn end_anchor(&mut self) {
        if let Some(open) = self.anchor.take() {
            if open.named {
                self.spare_href = open.written;
            } else {
                self.raw.signals.links_without_text.note(|| open.written);
            }
        }
    }

    fn end_button(&mut self) {
        if let Some(open) = self.button.take()
            && !open.named
        {
            self.raw.signals.buttons_without_name.note(|| open.written);
        }
    }
}

/// `<name id="..." name="...">`, as far as the element has them: what names it in a finding.
fn written_tag(name: &str, tag: &impl StartTag) -> String {
    let mut written = format!("<{name}");
    for attribute in ["type", "id", "name", "class"] {
        if let Some(value) = tag
            .attribute(attribute)
            .map(str::trim)
            .filter(|value| !value.is_empty())
        {
            let value: String = value.chars().take(40).collect();
            written.push_str(&format!(" {attribute}=\"{value}\""));
            if attribute != "type" {
                break;
            }
        }
    }
    written.push('>');
    written
}

/// Whether `tag` has `attribute` with more than whitespace in it.
fn has_text(tag: &impl StartTag, attribute: &str) -> bool {
    tag.attribute(attribute)
        .is_some_and(|value| !value.trim().is_empty())
}

fn has_token(list: Option<&str>, token: &str) -> bool {
    list.is_some_and(|list| {
        list.split_ascii_whitespace()
            .any(|item| item.eq_ignore_ascii_case(token))
    })
}

/// A page of at least this many shingles takes as the simhash's features only those whose
/// xxh3 is a multiple of [`SHINGLE_SAMPLE`] (64 of them at least): content-defined sampling
/// (Broder, 1997) keeps the same shingles of two texts wherever they stand, so that their
/// likeness is kept, at a sixteenth of the cost (the simhash's sum over 64 bits per feature
/// would otherwise be most of an audit's reading). Shorter pages take every shingle: two
/// nearly equal texts have nearly the same number, and fall on the same side but at the
/// boundary.
const SAMPLED_FROM: usize = 1_024;

/// One shingle in this many is a feature of a long page.
const SHINGLE_SAMPLE: u64 = 16;

/// The simhash of `words`' three-word shingles (one word's shingle when there are fewer),
/// `None` without words. `words` are the visible text's words, lowercased, one space apart.
pub(crate) fn simhash(words: &str) -> Option<u64> {
    if words.is_empty() {
        return None;
    }
    let count = words.bytes().filter(|&byte| byte == b' ').count() + 1;
    if count < 3 {
        return Some(::simhash::simhash_stream(std::iter::once(words)));
    }
    // One pass over the words, keeping where the two before each one start.
    let mut next = 0;
    let mut before = [0; 2];
    let shingles = words
        .split(' ')
        .enumerate()
        .filter_map(move |(index, word)| {
            let start = next;
            next += word.len() + 1;
            let first = before[0];
            before = [before[1], start];
            (index >= 2).then(|| &words[first..start + word.len()])
        });
    if count - 2 < SAMPLED_FROM {
        return Some(::simhash::simhash_stream(shingles));
    }
    Some(::simhash::simhash_stream(shingles.filter(|shingle| {
        xxhash_rust::xxh3::xxh3_64(shingle.as_bytes()).is_multiple_of(SHINGLE_SAMPLE)
    })))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `count` words of a text of its own for `seed`.
    fn text(seed: u64, count: usize) -> Vec<String> {
        (0..count as u64)
            .map(|index| {
                format!(
                    "w{}",
                    xxhash_rust::xxh3::xxh3_64(&(seed * 1_000_003 + index).to_le_bytes()) % 50_000
                )
            })
            .collect()
    }

    fn distance(first: &[String], second: &[String]) -> u32 {
        let hash = |words: &[String]| simhash(&words.join(" ")).unwrap_or_default();
        (hash(first) ^ hash(second)).count_ones()
    }

    #[test]
    fn nearly_equal_texts_are_a_few_bits_apart_and_other_texts_far_short_or_long() {
        for words in [200, 2_000] {
            let text_a = text(1, words);
            let mut edited = text_a.clone();
            edited[words / 2] = "changed".to_string();
            let near = distance(&text_a, &edited);
            let far = distance(&text_a, &text(2, words));
            assert!(
                near <= 6,
                "{words} words: one word changed is {near} bits apart"
            );
            assert!(
                far >= 16,
                "{words} words: another text is only {far} bits apart"
            );
        }
        assert_eq!(simhash(""), None);
        assert!(simhash("one").is_some() && simhash("one two").is_some());
    }

    #[test]
    fn the_shingles_are_every_three_words_in_a_row_sampled_on_long_pages() {
        let windows = |words: &str| -> Vec<String> {
            let words: Vec<&str> = words.split(' ').collect();
            match words.len() {
                0..3 => vec![words.join(" ")],
                _ => words.windows(3).map(|window| window.join(" ")).collect(),
            }
        };
        for count in [1, 2, 3, 4, 50, SAMPLED_FROM + 1, SAMPLED_FROM + 2, 5_000] {
            let words = text(7, count).join(" ");
            let mut shingles = windows(&words);
            if shingles.len() >= SAMPLED_FROM {
                shingles.retain(|shingle| {
                    xxhash_rust::xxh3::xxh3_64(shingle.as_bytes()).is_multiple_of(SHINGLE_SAMPLE)
                });
            }
            let expected = ::simhash::simhash_stream(shingles.iter().map(String::as_str));
            assert_eq!(simhash(&words), Some(expected), "{count} words");
        }
    }
}
