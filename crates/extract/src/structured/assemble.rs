//! From the token pass's notes to a page's [`StructuredData`]: the JSON-LD blocks parsed, the
//! microdata read from a tree (only when some element has `itemscope`), the videos resolved,
//! and the whole kept within [`MAX_STRUCTURED_BYTES`]. Pages are hostile data: the work is
//! bounded by a [`Budget`] (items, nesting, values, elements visited), and what it leaves out
//! sets [`StructuredData::truncated`].

use encoding_rs::Encoding;
use url::Url;

use super::collect::RawStructured;
use super::{MAX_STRUCTURED_BYTES, StructuredData, VideoElement, jsonld, microdata};

/// At most this many items (nested ones included) are read per page.
pub(crate) const MAX_ITEMS: usize = 1000;

/// Items nest at most this deep; deeper ones are left out.
pub(crate) const MAX_DEPTH: usize = 12;

/// At most this many property values are read per page.
pub(crate) const MAX_VALUES: usize = 20_000;

/// Microdata visits at most this many elements per page while finding items' properties
/// (`itemref` can make each item's search cover the document).
pub(crate) const MAX_ELEMENT_VISITS: usize = 200_000;

/// A text value is kept up to this many bytes (cut at a character): one long property (an
/// `articleBody`) would otherwise push every later item out of [`MAX_STRUCTURED_BYTES`].
pub(crate) const MAX_TEXT_BYTES: usize = 2048;

/// What reading one page may still do.
#[derive(Debug)]
pub(crate) struct Budget {
    items: usize,
    values: usize,
    visits: usize,
    /// Something was left out for want of budget.
    pub(crate) exhausted: bool,
}

impl Budget {
    pub(crate) fn new() -> Budget {
        Budget {
            items: MAX_ITEMS,
            values: MAX_VALUES,
            visits: MAX_ELEMENT_VISITS,
            exhausted: false,
        }
    }

    /// Takes one item at `depth` (top-level items are at 0), if the budget allows.
    pub(crate) fn item(&mut self, depth: usize) -> bool {
        Self::take(&mut self.items, &mut self.exhausted, depth <= MAX_DEPTH)
    }

    /// Takes one property value, if the budget allows.
    pub(crate) fn value(&mut self) -> bool {
        Self::take(&mut self.values, &mut self.exhausted, true)
    }

    /// Takes one element visit, if the budget allows.
    pub(crate) fn visit(&mut self) -> bool {
        Self::take(&mut self.visits, &mut self.exhausted, true)
    }

    fn take(left: &mut usize, exhausted: &mut bool, allowed: bool) -> bool {
        if allowed && *left > 0 {
            *left -= 1;
            true
        } else {
            *exhausted = true;
            false
        }
    }
}

/// A type or property name without schema.org's prefix: `https://schema.org/NewsArticle`,
/// `http://schema.org/NewsArticle` and `schema:NewsArticle` are `NewsArticle`.
pub(crate) fn schema_name(name: &str) -> &str {
    let name = name.trim();
    const PREFIXES: [&str; 5] = [
        "https://schema.org/",
        "http://schema.org/",
        "https://www.schema.org/",
        "http://www.schema.org/",
        "schema:",
    ];
    PREFIXES
        .iter()
        .find_map(|prefix| name.strip_prefix(prefix))
        .filter(|rest| !rest.is_empty())
        .unwrap_or(name)
}

/// `text` cut to at most [`MAX_TEXT_BYTES`], at a character.
pub(crate) fn capped(mut text: String) -> String {
    if text.len() > MAX_TEXT_BYTES {
        let mut cut = MAX_TEXT_BYTES;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        text.truncate(cut);
    }
    text
}

/// The page's structured data from what the token pass noted: `html` is the decoded document
/// (parsed into a tree only when it has microdata), `base` its base URL.
pub(crate) fn assemble(
    raw: RawStructured,
    html: &str,
    base: &Url,
    encoding: &'static Encoding,
) -> StructuredData {
    let mut budget = Budget::new();
    let mut data = StructuredData::default();
    for (index, block) in raw.blocks.iter().enumerate() {
        let number = u32::try_from(index + 1).unwrap_or(u32::MAX);
        jsonld::read_block(number, block, &mut budget, &mut data);
    }
    if raw.itemscope {
        let (items, cut) = microdata::read(html, base, encoding, &mut budget);
        data.items.extend(items);
        data.tree_cut = cut;
    }
    data.videos = raw
        .videos
        .into_iter()
        .filter_map(|video| {
            Some(VideoElement {
                poster: crate::resolve(base, &video.poster, encoding)?.into(),
                src: video
                    .src
                    .and_then(|src| crate::resolve(base, &src, encoding))
                    .map(String::from),
                title: video.title.map(capped),
            })
        })
        .collect();
    data.published_time = raw.published_time.map(capped);
    data.truncated = raw.left_out || budget.exhausted || data.tree_cut.is_some();
    keep_within(&mut data, MAX_STRUCTURED_BYTES);
    data
}

/// Leaves out trailing items (then videos, then errors) until `data` serializes within
/// `limit` bytes, and says so. Each element left out shortens the JSON by its own length
/// and a comma, or more (an emptied list is not written): the size is never underestimated.
fn keep_within(data: &mut StructuredData, limit: usize) {
    let mut size = data.to_json().len();
    if size <= limit {
        return;
    }
    if !data.truncated {
        data.truncated = true;
        size = data.to_json().len();
    }
    let length = |json: Result<String, serde_json::Error>| json.map_or(0, |json| json.len() + 1);
    while size > limit {
        let saved = if let Some(item) = data.items.pop() {
            length(serde_json::to_string(&item))
        } else if let Some(video) = data.videos.pop() {
            length(serde_json::to_string(&video))
        } else if let Some(error) = data.errors.pop() {
            length(serde_json::to_string(&error))
        } else {
            data.published_time = None;
            break;
        };
        size = size.saturating_sub(saved);
    }
}
