//! JSON-LD blocks (JSON-LD 1.1, section 7.1 "Embedding JSON-LD in HTML Documents") read as
//! schema.org items, the way search engines read them: no context is fetched or expanded.
//! A block holds one object, an array of them, or an object whose `@graph` lists them (each
//! one top-level item); nested objects are items, arrays repeat a property, numbers and
//! booleans are text, `@id` is kept as the property `@id` and the other keywords
//! (`@context`...) are dropped. A block that does not parse is an error of the page, with its
//! position in the block; the page is read all the same.

use std::fmt;

use serde::Deserialize;
use serde::de::{self, MapAccess, SeqAccess, Visitor};

use super::budget::{Budget, capped, schema_name};
use super::collect::{JsonLdBlock, MAX_JSON_LD_BLOCK_BYTES};
use super::{Item, JsonLdError, Source, StructuredData, Value};

/// A JSON value with its objects' members in the order written (`serde_json::Map` sorts
/// them unless a feature every crate of the build would share is on).
#[derive(Debug)]
enum Node {
    Null,
    Text(String),
    List(Vec<Node>),
    Object(Vec<(String, Node)>),
}

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Node, D::Error> {
        deserializer.deserialize_any(NodeVisitor)
    }
}

struct NodeVisitor;

impl<'de> Visitor<'de> for NodeVisitor {
    type Value = Node;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("a JSON value")
    }

    fn visit_bool<E>(self, value: bool) -> Result<Node, E> {
        Ok(Node::Text(value.to_string()))
    }

    fn visit_i64<E>(self, value: i64) -> Result<Node, E> {
        Ok(Node::Text(value.to_string()))
    }

    fn visit_u64<E>(self, value: u64) -> Result<Node, E> {
        Ok(Node::Text(value.to_string()))
    }

    fn visit_f64<E>(self, value: f64) -> Result<Node, E> {
        // As JSON writes it (`4.0`, not `4`).
        Ok(Node::Text(
            serde_json::Number::from_f64(value)
                .map_or_else(|| value.to_string(), |n| n.to_string()),
        ))
    }

    fn visit_str<E>(self, value: &str) -> Result<Node, E> {
        Ok(Node::Text(value.to_string()))
    }

    fn visit_string<E>(self, value: String) -> Result<Node, E> {
        Ok(Node::Text(value))
    }

    fn visit_unit<E>(self) -> Result<Node, E> {
        Ok(Node::Null)
    }

    fn visit_none<E>(self) -> Result<Node, E> {
        Ok(Node::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut sequence: A) -> Result<Node, A::Error> {
        let mut list = Vec::new();
        while let Some(node) = sequence.next_element()? {
            list.push(node);
        }
        Ok(Node::List(list))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Node, A::Error> {
        let mut members = Vec::new();
        while let Some(member) = map.next_entry()? {
            members.push(member);
        }
        Ok(Node::Object(members))
    }
}

/// Reads block `number` (from 1) of the page into `data`: its items, or its error.
pub(crate) fn read_block(
    number: u32,
    block: &JsonLdBlock,
    budget: &mut Budget,
    data: &mut StructuredData,
) {
    if block.cut {
        let (line, column) = end_position(&block.text);
        data.errors.push(JsonLdError {
            block: number,
            line,
            column,
            message: format!("the block is longer than {MAX_JSON_LD_BLOCK_BYTES} bytes"),
        });
        return;
    }
    match serde_json::from_str::<Node>(&unwrapped(&block.text)) {
        Ok(node) => top_level(node, 0, budget, &mut data.items),
        Err(error) => data.errors.push(JsonLdError {
            block: number,
            line: u32::try_from(error.line()).unwrap_or(u32::MAX).max(1),
            column: u32::try_from(error.column()).unwrap_or(u32::MAX).max(1),
            message: message_of(&error),
        }),
    }
}

/// serde_json's message without the position it appends (" at line 3 column 7"), which
/// the error carries apart.
fn message_of(error: &serde_json::Error) -> String {
    let message = error.to_string();
    match message.rfind(" at line ") {
        Some(cut) => message[..cut].to_string(),
        None => message,
    }
}

/// The line and column (from 1, in bytes) just past the end of `text`.
fn end_position(text: &str) -> (u32, u32) {
    let line = text.matches('\n').count() + 1;
    let column = text.len() - text.rfind('\n').map_or(0, |at| at + 1) + 1;
    let clamp = |value: usize| u32::try_from(value).unwrap_or(u32::MAX);
    (clamp(line), clamp(column))
}

/// The block's text with the wrappers pages put around it blanked out: an HTML comment
/// (`<!-- ... -->`) and CDATA markers (`<![CDATA[ ... ]]>`, perhaps behind `//` or in
/// `/* */`). They become spaces, so that an error's line and column stay those of the block
/// as written.
fn unwrapped(text: &str) -> String {
    const OPENINGS: [&str; 4] = ["<!--", "/*<![CDATA[*/", "//<![CDATA[", "<![CDATA["];
    const CLOSINGS: [&str; 4] = ["-->", "/*]]>*/", "//]]>", "]]>"];
    let mut bytes = text.as_bytes().to_vec();
    let mut start = 0;
    let mut end = bytes.len();
    let blank = |bytes: &mut Vec<u8>, from: usize, to: usize| bytes[from..to].fill(b' ');
    // Each wrapper once at most, outermost first.
    for _ in 0..OPENINGS.len() {
        while start < end && bytes[start].is_ascii_whitespace() {
            start += 1;
        }
        let Some(opening) = OPENINGS
            .iter()
            .find(|opening| bytes[start..end].starts_with(opening.as_bytes()))
        else {
            break;
        };
        blank(&mut bytes, start, start + opening.len());
        start += opening.len();
    }
    for _ in 0..CLOSINGS.len() {
        while end > start && bytes[end - 1].is_ascii_whitespace() {
            end -= 1;
        }
        let Some(closing) = CLOSINGS
            .iter()
            .find(|closing| bytes[start..end].ends_with(closing.as_bytes()))
        else {
            break;
        };
        blank(&mut bytes, end - closing.len(), end);
        end -= closing.len();
    }
    // Only ASCII bytes were replaced, by ASCII: still UTF-8.
    String::from_utf8(bytes).unwrap_or_else(|_| text.to_string())
}

/// The items of a block's value, or of an `@graph`: an object, or an array of objects.
fn top_level(node: Node, depth: usize, budget: &mut Budget, items: &mut Vec<Item>) {
    match node {
        Node::List(members) => {
            for member in members {
                if let Node::Object(members) = member {
                    top_level_object(members, depth, budget, items);
                }
            }
        }
        Node::Object(members) => top_level_object(members, depth, budget, items),
        Node::Null | Node::Text(_) => {}
    }
}

/// A top-level object: with an `@graph`, its members are the items (and the object one
/// more when it has a type of its own); otherwise the object is the item.
fn top_level_object(
    mut members: Vec<(String, Node)>,
    depth: usize,
    budget: &mut Budget,
    items: &mut Vec<Item>,
) {
    let graph = members
        .iter()
        .position(|(name, _)| name == "@graph")
        .map(|at| members.remove(at).1);
    let Some(graph) = graph else {
        items.extend(item(members, depth, budget));
        return;
    };
    if members.iter().any(|(name, _)| name == "@type") {
        items.extend(item(members, depth, budget));
    }
    // A graph within a graph is bounded as nesting is.
    if depth < super::budget::MAX_DEPTH {
        top_level(graph, depth + 1, budget, items);
    } else {
        budget.exhausted = true;
    }
}

/// The item an object declares, `depth` objects deep; `None` past the budget.
fn item(members: Vec<(String, Node)>, depth: usize, budget: &mut Budget) -> Option<Item> {
    if !budget.item(depth) {
        return None;
    }
    let mut item = Item {
        source: Source::JsonLd,
        ..Item::default()
    };
    for (name, node) in members {
        match name.as_str() {
            "@type" => {
                let mut types = Vec::new();
                texts(node, &mut types);
                item.types
                    .extend(types.iter().map(|kind| schema_name(kind).to_string()));
            }
            "@id" => {
                if let Node::Text(id) = node
                    && budget.value()
                {
                    item.properties
                        .push(("@id".to_string(), Value::Text(capped(id))));
                }
            }
            keyword if keyword.starts_with('@') => {}
            _ => {
                let name = schema_name(&name).to_string();
                let mut values = Vec::new();
                property_values(node, depth, budget, &mut values);
                item.properties
                    .extend(values.into_iter().map(|value| (name.clone(), value)));
            }
        }
    }
    Some(item)
}

/// The values of one property: an array's elements each (arrays within it flattened, as
/// JSON-LD does), a value object's `@value`, a list's or set's members; `null` is none.
fn property_values(node: Node, depth: usize, budget: &mut Budget, values: &mut Vec<Value>) {
    match node {
        Node::Null => {}
        Node::Text(text) => {
            if budget.value() {
                values.push(Value::Text(capped(text)));
            }
        }
        Node::List(members) => {
            for member in members {
                property_values(member, depth, budget, values);
            }
        }
        Node::Object(mut members) => {
            let keyword = members
                .iter()
                .position(|(name, _)| matches!(name.as_str(), "@value" | "@list" | "@set"));
            match keyword {
                Some(at) => property_values(members.swap_remove(at).1, depth, budget, values),
                None => values.extend(item(members, depth + 1, budget).map(Value::Item)),
            }
        }
    }
}

/// The texts of a string or an array of strings (`@type`).
fn texts(node: Node, found: &mut Vec<String>) {
    match node {
        Node::Text(text) => found.push(text),
        Node::List(members) => {
            for member in members {
                if let Node::Text(text) = member {
                    found.push(text);
                }
            }
        }
        Node::Null | Node::Object(_) => {}
    }
}
