//! What the token pass notes for structured data, as written: the text of each JSON-LD
//! block, whether any element has `itemscope` (only then is the page parsed into a tree for
//! its microdata), the body's `<video>` elements with a poster, and
//! `<meta property="article:published_time">`. Nothing is parsed or resolved here: that is
//! `assemble`'s, once the document's base is known.

use crate::tokens::tag::StartTag;

/// At most this many JSON-LD blocks of a page are read; the rest are left out.
pub(crate) const MAX_JSON_LD_BLOCKS: usize = 64;

/// Of one JSON-LD block, at most this many bytes are kept: a longer one is reported as an
/// error, not parsed (its items could not be kept within [`crate::MAX_STRUCTURED_BYTES`]
/// anyway).
pub(crate) const MAX_JSON_LD_BLOCK_BYTES: usize = 512 * 1024;

/// At most this many `<video>` elements are noted.
pub(crate) const MAX_VIDEOS: usize = 100;

/// What the token pass noted, as written.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct RawStructured {
    /// The JSON-LD blocks, in document order, at most [`MAX_JSON_LD_BLOCKS`].
    pub(crate) blocks: Vec<JsonLdBlock>,
    /// Blocks or videos beyond the bounds were left out.
    pub(crate) left_out: bool,
    /// Some element has an `itemscope` attribute.
    pub(crate) itemscope: bool,
    /// The body's `<video>` elements with a poster, at most [`MAX_VIDEOS`].
    pub(crate) videos: Vec<RawVideo>,
    /// The first non-empty `<meta property="article:published_time">` content, trimmed.
    pub(crate) published_time: Option<String>,
}

/// The text of one `<script type="application/ld+json">`.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct JsonLdBlock {
    /// Its text, at most [`MAX_JSON_LD_BLOCK_BYTES`].
    pub(crate) text: String,
    /// It was longer, and cut.
    pub(crate) cut: bool,
}

/// A `<video>` element with a poster, as written.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct RawVideo {
    pub(crate) poster: String,
    /// Its `src`, or its first `<source src>`.
    pub(crate) src: Option<String>,
    pub(crate) title: Option<String>,
}

/// The token pass's notes, with the element being read.
#[derive(Debug, Default)]
pub(crate) struct Collector {
    raw: RawStructured,
    /// The JSON-LD block being read.
    open_block: Option<JsonLdBlock>,
    /// The `<video>` being read, when it has a poster and no `src` yet: its index.
    open_video: Option<usize>,
}

/// Whether a `<script type>` declares JSON-LD: its MIME type's essence is
/// `application/ld+json`, in any case, parameters allowed (JSON-LD 1.1, section 7.1).
fn is_json_ld(script_type: &str) -> bool {
    let essence = script_type.split(';').next().unwrap_or_default().trim();
    essence.eq_ignore_ascii_case("application/ld+json")
}

impl Collector {
    /// Whether a JSON-LD block is being read: the text that comes is its.
    pub(crate) fn in_block(&self) -> bool {
        self.open_block.is_some()
    }

    /// A start tag outside inert template content.
    pub(crate) fn start_tag(&mut self, name: &str, tag: &impl StartTag, in_body: bool) {
        if !self.raw.itemscope && tag.attribute("itemscope").is_some() {
            self.raw.itemscope = true;
        }
        match name {
            "script" if tag.attribute("type").is_some_and(is_json_ld) => {
                if self.raw.blocks.len() < MAX_JSON_LD_BLOCKS {
                    self.open_block = Some(JsonLdBlock::default());
                } else {
                    self.raw.left_out = true;
                }
            }
            "meta" if self.raw.published_time.is_none() => {
                let published = tag.attribute("property").is_some_and(|property| {
                    property
                        .trim()
                        .eq_ignore_ascii_case("article:published_time")
                });
                let content = tag.attribute("content").map(str::trim).unwrap_or_default();
                if published && !content.is_empty() {
                    self.raw.published_time = Some(content.to_string());
                }
            }
            "video" if in_body => self.open_video(tag),
            "source" => {
                if let Some(index) = self.open_video
                    && let Some(source) = tag.attribute("src").filter(|src| !src.trim().is_empty())
                {
                    self.raw.videos[index].src = Some(source.to_string());
                    self.open_video = None;
                }
            }
            _ => {}
        }
    }

    fn open_video(&mut self, tag: &impl StartTag) {
        self.open_video = None;
        let Some(poster) = tag
            .attribute("poster")
            .filter(|poster| !poster.trim().is_empty())
        else {
            return;
        };
        if self.raw.videos.len() >= MAX_VIDEOS {
            self.raw.left_out = true;
            return;
        }
        let src = tag
            .attribute("src")
            .filter(|src| !src.trim().is_empty())
            .map(str::to_string);
        let title = tag
            .attribute("title")
            .map(|title| title.split_whitespace().collect::<Vec<_>>().join(" "))
            .filter(|title| !title.is_empty());
        if src.is_none() && !tag.self_closing() {
            self.open_video = Some(self.raw.videos.len());
        }
        self.raw.videos.push(RawVideo {
            poster: poster.to_string(),
            src,
            title,
        });
    }

    /// Text inside the JSON-LD block being read.
    pub(crate) fn block_text(&mut self, text: &str) {
        let Some(block) = &mut self.open_block else {
            return;
        };
        let room = MAX_JSON_LD_BLOCK_BYTES.saturating_sub(block.text.len());
        if text.len() <= room {
            block.text.push_str(text);
            return;
        }
        let mut cut = room;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        block.text.push_str(&text[..cut]);
        block.cut = true;
    }

    /// An end tag.
    pub(crate) fn end_tag(&mut self, name: &str) {
        match name {
            "script" => self.close_block(),
            "video" => self.open_video = None,
            _ => {}
        }
    }

    fn close_block(&mut self) {
        if let Some(block) = self.open_block.take() {
            self.raw.blocks.push(block);
        }
    }

    /// The end of the document: a block still open ends with it.
    pub(crate) fn finish(mut self) -> RawStructured {
        self.close_block();
        self.raw
    }
}
