//! From the token pass's notes to a page's [`StructuredData`]: the JSON-LD blocks parsed, the
//! microdata read from a tree (only when some element has `itemscope`), the videos resolved,
//! and the whole kept within [`MAX_STRUCTURED_BYTES`]. Pages are hostile data: the work is
//! bounded by a [`Budget`] (items, nesting, values, elements visited), and what it leaves out
//! sets [`StructuredData::truncated`].

use encoding_rs::Encoding;
use url::Url;

use super::budget::{Budget, capped};
use super::collect::RawStructured;
use super::{MAX_STRUCTURED_BYTES, StructuredData, VideoElement, jsonld, microdata};

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
                poster: crate::address::resolve(base, &video.poster, encoding)?.into(),
                src: video
                    .src
                    .and_then(|src| crate::address::resolve(base, &src, encoding))
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
