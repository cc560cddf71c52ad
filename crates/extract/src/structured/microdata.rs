//! Microdata (HTML, section 5 "Microdata"), read from the tree html5ever builds, as a browser
//! would: the top-level items are the elements with `itemscope` and no `itemprop`; an item's
//! properties are found by the specification's crawl (its descendants, not into nested
//! items, and the elements its `itemref` names); a property whose element has `itemscope` is
//! a nested item, any other has the value the specification gives its element (5.4
//! "Values"). Only a page the token pass saw `itemscope` on is parsed into a tree, and only
//! as far as [`crate::tree`] bounds it.

use std::collections::{HashMap, HashSet};

use ego_tree::NodeId;
use encoding_rs::Encoding;
use scraper::{ElementRef, Html, Node};
use url::Url;

use super::budget::{Budget, capped, schema_name};
use super::{Item, Source, Value};
use crate::tree::TreeCut;

/// The microdata items of `html`, top-level ones in tree order, with URLs resolved against
/// `base`, and where the tree was cut, if it was (items after that are not read).
pub(crate) fn read(
    html: &str,
    base: &Url,
    encoding: &'static Encoding,
    budget: &mut Budget,
) -> (Vec<Item>, Option<TreeCut>) {
    let tree = crate::tree::parse(html);
    let mut reader = Reader {
        document: &tree.html,
        order: HashMap::new(),
        ids: HashMap::new(),
        base,
        encoding,
        building: Vec::new(),
    };
    let top_level = reader.index();
    let items = top_level
        .into_iter()
        .filter_map(|id| reader.item(id, 0, budget))
        .collect();
    (items, tree.cut)
}

struct Reader<'a> {
    document: &'a Html,
    /// Each element's place in tree order.
    order: HashMap<NodeId, usize>,
    /// The first element of each id, for `itemref`.
    ids: HashMap<&'a str, NodeId>,
    base: &'a Url,
    encoding: &'static Encoding,
    /// The items being read, outermost first: an `itemref` that leads back to one of them
    /// is a cycle, not a property.
    building: Vec<NodeId>,
}

impl<'a> Reader<'a> {
    /// Numbers the document's elements in tree order, notes their ids, and returns the
    /// top-level items. Template contents are inert: not part of the document.
    fn index(&mut self) -> Vec<NodeId> {
        let mut top_level = Vec::new();
        let mut stack = vec![self.document.tree.root()];
        while let Some(node) = stack.pop() {
            if matches!(node.value(), Node::Fragment) {
                continue;
            }
            if let Some(element) = ElementRef::wrap(node) {
                self.order.insert(node.id(), self.order.len());
                if let Some(id) = element.attr("id") {
                    self.ids.entry(id).or_insert(node.id());
                }
                if element.attr("itemscope").is_some() && element.attr("itemprop").is_none() {
                    top_level.push(node.id());
                }
            }
            // Reversed onto the stack: children come off it in order.
            stack.extend(node.children().rev());
        }
        top_level
    }

    fn element(&self, id: NodeId) -> Option<ElementRef<'a>> {
        self.document.tree.get(id).and_then(ElementRef::wrap)
    }

    /// The item whose element is `id`, `depth` items deep; `None` past the budget or in a
    /// cycle.
    fn item(&mut self, id: NodeId, depth: usize, budget: &mut Budget) -> Option<Item> {
        let element = self.element(id)?;
        if self.building.contains(&id) || !budget.item(depth) {
            return None;
        }
        let mut item = Item {
            types: tokens(element.attr("itemtype"))
                .map(|kind| schema_name(kind).to_string())
                .collect(),
            source: Source::Microdata,
            properties: Vec::new(),
        };
        if let Some(itemid) = element.attr("itemid")
            && budget.value()
        {
            item.properties
                .push(("@id".to_string(), Value::Text(self.url(itemid))));
        }
        self.building.push(id);
        for property in self.property_elements(element, budget) {
            let Some(property) = self.element(property) else {
                continue;
            };
            let value = if property.attr("itemscope").is_some() {
                match self.item(property.id(), depth + 1, budget) {
                    Some(nested) => Value::Item(nested),
                    None => continue,
                }
            } else if budget.value() {
                Value::Text(capped(self.value(property, budget)))
            } else {
                continue;
            };
            let names: Vec<&str> = tokens(property.attr("itemprop")).collect();
            for (index, name) in names.iter().enumerate() {
                let name = schema_name(name).to_string();
                if index + 1 == names.len() {
                    item.properties.push((name, value));
                    break;
                }
                item.properties.push((name, value.clone()));
            }
        }
        self.building.pop();
        Some(item)
    }

    /// The elements holding `root`'s properties, in tree order (HTML, 5.2.5 "Associating
    /// names with items": the crawl from its children and the elements its `itemref`
    /// names, not into nested items).
    fn property_elements(&self, root: ElementRef<'a>, budget: &mut Budget) -> Vec<NodeId> {
        let mut memory = HashSet::from([root.id()]);
        let mut pending: Vec<NodeId> = root.child_elements().map(|child| child.id()).collect();
        pending.extend(
            tokens(root.attr("itemref")).filter_map(|reference| self.ids.get(reference).copied()),
        );
        let mut found = Vec::new();
        while let Some(current) = pending.pop() {
            if !memory.insert(current) {
                continue;
            }
            let Some(element) = self.element(current) else {
                continue;
            };
            if !budget.visit() {
                break;
            }
            if element.attr("itemscope").is_none() {
                pending.extend(element.child_elements().map(|child| child.id()));
            }
            if tokens(element.attr("itemprop")).next().is_some() {
                found.push(current);
            }
        }
        found.sort_by_key(|id| self.order.get(id).copied().unwrap_or(usize::MAX));
        found
    }

    /// The value of a property element that is no item (HTML, 5.4 "Values"): an attribute
    /// for the elements that name a resource or a machine-readable value, the text otherwise.
    fn value(&self, element: ElementRef<'_>, budget: &mut Budget) -> String {
        let attribute = |name: &str| element.attr(name).unwrap_or_default().to_string();
        let url = |name: &str| {
            element
                .attr(name)
                .map(|url| self.url(url))
                .unwrap_or_default()
        };
        match element.value().name() {
            "meta" => attribute("content"),
            "audio" | "embed" | "iframe" | "img" | "source" | "track" | "video" => url("src"),
            "a" | "area" | "link" => url("href"),
            "object" => url("data"),
            "data" | "meter" => attribute("value"),
            "time" => match element.attr("datetime") {
                Some(datetime) => datetime.to_string(),
                None => text(element, budget),
            },
            _ => text(element, budget),
        }
    }

    /// `reference` as an absolute URL, or "" when it is none (HTML, 5.4: "the empty
    /// string" for a URL that does not parse).
    fn url(&self, reference: &str) -> String {
        let reference = reference.trim_matches(|character: char| character.is_ascii_whitespace());
        crate::address::parse_in_encoding(self.base, reference, self.encoding)
            .map(String::from)
            .unwrap_or_default()
    }
}

/// The whitespace-separated tokens of an attribute (`itemprop`, `itemtype`, `itemref`).
fn tokens(attribute: Option<&str>) -> impl Iterator<Item = &str> {
    attribute.unwrap_or_default().split_ascii_whitespace()
}

/// An element's text content, whitespace collapsed, at most what [`capped`] keeps (the
/// reading stops once well past that much). Each node walked is an element visit of the
/// budget: nested properties walk the same nodes again.
fn text(element: ElementRef<'_>, budget: &mut Budget) -> String {
    let mut gathered = String::new();
    for node in element.descendants() {
        if !budget.visit() {
            break;
        }
        if let Node::Text(piece) = node.value() {
            gathered.push_str(piece);
            if gathered.len() > 2 * super::budget::MAX_TEXT_BYTES {
                break;
            }
        }
    }
    gathered.split_whitespace().collect::<Vec<_>>().join(" ")
}
