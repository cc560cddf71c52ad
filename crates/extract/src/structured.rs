//! Structured data: the schema.org items a page declares in JSON-LD
//! (`<script type="application/ld+json">`) and microdata (`itemscope`, `itemtype`,
//! `itemprop`), with the `<video>` elements and the `article:published_time` a sitemap's
//! video and news entries fall back on. Read when [`crate::ExtractOptions::structured`] asks
//! for it (an audit, `--video`, `--news`); a plain crawl does not read it.
//!
//! Stored per page as JSON (serde), within [`MAX_STRUCTURED_BYTES`].

pub(crate) mod assemble;
mod budget;
pub(crate) mod collect;
mod jsonld;
mod microdata;
#[cfg(test)]
mod reading_tests;

use serde::{Deserialize, Serialize};

/// At most this many bytes of structured data are kept per page, serialized as JSON: items
/// beyond it are left out, and [`StructuredData::truncated`] says so.
pub const MAX_STRUCTURED_BYTES: usize = 64 * 1024;

/// What a page declares about itself in structured data.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StructuredData {
    /// The top-level items, in document order: each JSON-LD object (an array's elements and
    /// the members of an `@graph` each one item), then each microdata item that is no other
    /// item's property.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub items: Vec<Item>,
    /// JSON-LD blocks that do not parse: the page is read all the same.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<JsonLdError>,
    /// The body's `<video>` elements that have a poster.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub videos: Vec<VideoElement>,
    /// `<meta property="article:published_time">`, as written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub published_time: Option<String>,
    /// Items were left out to keep within [`MAX_STRUCTURED_BYTES`], or the bounds of the
    /// reading (items, nesting, values, the tree).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
    /// The page's tree was cut (it nests too deep, or costs too much to build): the
    /// microdata after that point is not read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tree_cut: Option<crate::tree::TreeCut>,
}

/// One schema.org item.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Item {
    /// Its types without the vocabulary's prefix (`https://schema.org/NewsArticle` and
    /// `schema:NewsArticle` are `NewsArticle`), as written otherwise.
    pub types: Vec<String>,
    /// Where it was declared.
    pub source: Source,
    /// Its properties in document order, names without the vocabulary's prefix; a property
    /// with several values appears once per value. JSON-LD keywords (`@id`, `@context`) are
    /// not properties, except `@id`, kept as the property `@id`.
    pub properties: Vec<(String, Value)>,
}

/// Where an item was declared.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Source {
    /// A `<script type="application/ld+json">` block.
    #[default]
    JsonLd,
    /// Microdata attributes.
    Microdata,
}

/// The value of one property.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Value {
    /// A text, number or boolean, as text; for microdata, the value the specification
    /// gives the element (`content`, `href`, `src`, `datetime`, the text).
    Text(String),
    /// A nested item.
    Item(Item),
}

/// A JSON-LD block that does not parse.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JsonLdError {
    /// Which block of the page, counting from 1.
    pub block: u32,
    /// The line within the block, from 1.
    pub line: u32,
    /// The column within the line, from 1.
    pub column: u32,
    /// The parser's message, without its position.
    pub message: String,
}

/// A `<video>` element of the body with a poster.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VideoElement {
    /// The `poster`, resolved to an absolute URL.
    pub poster: String,
    /// The `src`, or the first `<source src>`, resolved.
    pub src: Option<String>,
    /// The `title` attribute, whitespace collapsed.
    pub title: Option<String>,
}

/// `text` (trimmed) when it is an absolute http(s) URL: what a URL property of structured
/// data must be, for a rich result and for a sitemap's entry.
pub fn absolute_http_url(text: &str) -> Option<url::Url> {
    let url = url::Url::parse(text.trim()).ok()?;
    (matches!(url.scheme(), "http" | "https")
        && url.host_str().is_some_and(|host| !host.is_empty()))
    .then_some(url)
}

impl Item {
    /// Whether one of its types is `kind`.
    pub fn is_a(&self, kind: &str) -> bool {
        self.types.iter().any(|name| name == kind)
    }

    /// The values of `property`, in order.
    pub fn values<'a, 'p>(&'a self, property: &'p str) -> impl Iterator<Item = &'a Value> + 'p
    where
        'a: 'p,
    {
        self.properties
            .iter()
            .filter(move |(name, _)| name == property)
            .map(|(_, value)| value)
    }

    /// Whether it has `property`, with any value.
    pub fn has(&self, property: &str) -> bool {
        self.values(property).next().is_some()
    }

    /// The first text value of `property`, trimmed; `None` when it has none or only an
    /// empty one.
    pub fn text<'a>(&'a self, property: &str) -> Option<&'a str> {
        self.values(property).find_map(|value| match value {
            Value::Text(text) if !text.trim().is_empty() => Some(text.trim()),
            _ => None,
        })
    }

    /// The first item value of `property`.
    pub fn item<'a>(&'a self, property: &str) -> Option<&'a Item> {
        self.values(property).find_map(|value| match value {
            Value::Item(item) => Some(item),
            Value::Text(_) => None,
        })
    }

    /// This item and every item nested in it, depth first, in order.
    pub fn walk(&self) -> Vec<&Item> {
        let mut found = vec![self];
        for (_, value) in &self.properties {
            if let Value::Item(item) = value {
                found.extend(item.walk());
            }
        }
        found
    }
}

impl StructuredData {
    /// Whether the page declares nothing this module reads.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
            && self.errors.is_empty()
            && self.videos.is_empty()
            && self.published_time.is_none()
    }

    /// Every item, nested ones included, depth first in document order.
    pub fn all_items(&self) -> Vec<&Item> {
        self.items.iter().flat_map(Item::walk).collect()
    }

    /// Every item (nested ones included) of type `kind`.
    pub fn items_of<'a>(&'a self, kind: &'a str) -> impl Iterator<Item = &'a Item> + 'a {
        self.all_items()
            .into_iter()
            .filter(move |item| item.is_a(kind))
    }

    /// The JSON stored for the page.
    pub fn to_json(&self) -> String {
        // A tree of strings serializes without fail.
        serde_json::to_string(self).unwrap_or_default()
    }

    /// Reads what [`StructuredData::to_json`] wrote; `None` when it is not that.
    pub fn from_json(json: &str) -> Option<StructuredData> {
        serde_json::from_str(json).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(value: &str) -> Value {
        Value::Text(value.to_string())
    }

    #[test]
    fn nested_items_are_found_and_round_trip_through_json() {
        let video = Item {
            types: vec!["VideoObject".to_string()],
            source: Source::JsonLd,
            properties: vec![("name".to_string(), text("  Launch  "))],
        };
        let data = StructuredData {
            items: vec![Item {
                types: vec!["NewsArticle".to_string()],
                source: Source::Microdata,
                properties: vec![
                    ("headline".to_string(), text("")),
                    ("headline".to_string(), text("Moon")),
                    ("video".to_string(), Value::Item(video.clone())),
                ],
            }],
            ..StructuredData::default()
        };
        let videos: Vec<&Item> = data.items_of("VideoObject").collect();
        assert_eq!(videos, [&video]);
        assert_eq!(videos[0].text("name"), Some("Launch"));
        assert_eq!(data.items[0].text("headline"), Some("Moon"));
        assert!(data.items[0].has("video") && !data.items[0].has("author"));
        assert_eq!(StructuredData::from_json(&data.to_json()), Some(data));
        assert_eq!(StructuredData::from_json("{\"items\": 3}"), None);
    }
}
