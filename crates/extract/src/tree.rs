//! A document parsed into a tree (html5ever's tree construction, into scraper's `Html`), for
//! what only a tree can tell: microdata's items and the user's CSS selectors. Pages are
//! hostile data, and two shapes make a tree costly:
//!
//! - Deep nesting. html5ever walks its stack of open elements on many tags (is a `<p>` in
//!   button scope? is this formatting element open?), so 100,000 nested `<div>`s take
//!   seconds; and matching a selector such as `div span` walks each element's ancestors.
//! - Work that grows faster than the page for any other reason.
//!
//! So the tree is built only as far as it stays within [`MAX_TREE_DEPTH`] and
//! [`MAX_TREE_WORK`]: the document is fed to the parser a piece at a time, and once either
//! is passed, the rest of it is left out and [`Tree::cut`] says where and why. Browsers bound
//! nesting too: Chromium's parser puts nothing deeper than 512 elements (it attaches the
//! rest higher up), so no visitor sees such a page as written either.

use std::borrow::Cow;
use std::cell::{Cell, RefCell};

use ego_tree::NodeId;
use html5ever::tendril::{StrTendril, TendrilSink};
use html5ever::tree_builder::{ElementFlags, NodeOrText, QuirksMode, TreeSink};
use html5ever::{Attribute, QualName, driver};
use scraper::{Html, HtmlTreeSink};
use serde::{Deserialize, Serialize};

/// Elements nest at most this deep in the tree (the document is depth 0, `<html>` 1): as
/// deep as Chromium's parser nests them.
pub const MAX_TREE_DEPTH: u32 = 512;

/// At most this many steps of tree construction per page: each look at an element of the
/// parser's stack of open elements is one. An ordinary large page (a megabyte, 20,000
/// elements some 30 deep) takes under a million.
pub const MAX_TREE_WORK: u64 = 32_000_000;

/// The document is fed to the parser in pieces of about this many bytes; the bounds are
/// checked between pieces, so a piece is what one check can overshoot by.
const PIECE_BYTES: usize = 4096;

/// Why a tree was left unfinished.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum CutReason {
    /// Elements nest deeper than [`MAX_TREE_DEPTH`].
    Deep,
    /// Building it took more than [`MAX_TREE_WORK`] steps.
    Costly,
}

/// Where and why a document's tree was left unfinished: what comes after is not read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct TreeCut {
    /// Why.
    pub reason: CutReason,
    /// The bytes of the decoded document that were read into the tree.
    pub at_byte: u64,
}

/// A document's tree, finished or cut.
#[derive(Debug)]
pub(crate) struct Tree {
    pub(crate) html: Html,
    pub(crate) cut: Option<TreeCut>,
}

/// Parses `text` into a tree within the bounds.
pub(crate) fn parse(text: &str) -> Tree {
    parse_within(text, MAX_TREE_DEPTH, MAX_TREE_WORK)
}

fn parse_within(text: &str, max_depth: u32, max_work: u64) -> Tree {
    let sink = Bounded::new(max_depth, max_work);
    let mut parser = driver::parse_document(sink, Default::default());
    let mut read = 0;
    let mut cut = None;
    while read < text.len() {
        let mut end = (read + PIECE_BYTES).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        parser.process(StrTendril::from_slice(&text[read..end]));
        read = end;
        if let Some(reason) = parser.tokenizer.sink.sink.passed() {
            cut = Some(TreeCut {
                reason,
                at_byte: read as u64,
            });
            break;
        }
    }
    Tree {
        html: parser.finish(),
        cut,
    }
}

/// scraper's sink, counting the tree builder's steps and the depth of what it appends.
struct Bounded {
    inner: HtmlTreeSink,
    max_depth: u32,
    max_work: u64,
    work: Cell<u64>,
    /// The elements from the document down to the one last appended: the tree builder
    /// appends to the current node or one of its ancestors, nearly always.
    path: RefCell<Vec<NodeId>>,
    deepest: Cell<u32>,
}

impl Bounded {
    fn new(max_depth: u32, max_work: u64) -> Bounded {
        Bounded {
            inner: HtmlTreeSink::new(Html::new_document()),
            max_depth,
            max_work,
            work: Cell::new(0),
            path: RefCell::new(Vec::new()),
            deepest: Cell::new(0),
        }
    }

    /// Which bound was passed, if one was.
    fn passed(&self) -> Option<CutReason> {
        if self.deepest.get() > self.max_depth {
            Some(CutReason::Deep)
        } else if self.work.get() > self.max_work {
            Some(CutReason::Costly)
        } else {
            None
        }
    }

    fn step(&self) {
        self.work.set(self.work.get() + 1);
    }

    /// Notes that `child`, if it is a node, is appended to `parent`. The path is cut back
    /// to `parent` (each element leaves it once after entering it once: linear in all),
    /// or when `parent` is not on it (a table's foster parent, a template's contents),
    /// found again from the tree, in as many steps as it is deep.
    fn place(&self, parent: NodeId, child: &NodeOrText<NodeId>) {
        let NodeOrText::AppendNode(child) = child else {
            return;
        };
        let mut path = self.path.borrow_mut();
        match path.iter().rposition(|&node| node == parent) {
            Some(at) => path.truncate(at + 1),
            None => {
                let html = self.inner.0.borrow();
                path.clear();
                if let Some(node) = html.tree.get(parent) {
                    path.extend(node.ancestors().map(|ancestor| ancestor.id()));
                    path.reverse();
                    path.push(parent);
                }
            }
        }
        path.push(*child);
        // The document is the path's first node, at depth 0.
        let depth = u32::try_from(path.len() - 1).unwrap_or(u32::MAX);
        self.deepest.set(self.deepest.get().max(depth));
    }

    /// The parent of `node` in the tree so far.
    fn parent(&self, node: NodeId) -> Option<NodeId> {
        let html = self.inner.0.borrow();
        html.tree.get(node)?.parent().map(|parent| parent.id())
    }
}

impl TreeSink for Bounded {
    type Handle = NodeId;
    type Output = Html;
    type ElemName<'a> = <HtmlTreeSink as TreeSink>::ElemName<'a>;

    fn finish(self) -> Html {
        self.inner.finish()
    }

    fn parse_error(&self, message: Cow<'static, str>) {
        self.inner.parse_error(message);
    }

    fn get_document(&self) -> NodeId {
        self.inner.get_document()
    }

    fn elem_name<'a>(&'a self, target: &'a NodeId) -> Self::ElemName<'a> {
        self.step();
        self.inner.elem_name(target)
    }

    fn create_element(&self, name: QualName, attrs: Vec<Attribute>, flags: ElementFlags) -> NodeId {
        self.inner.create_element(name, attrs, flags)
    }

    fn create_comment(&self, text: StrTendril) -> NodeId {
        self.inner.create_comment(text)
    }

    fn create_pi(&self, target: StrTendril, data: StrTendril) -> NodeId {
        self.inner.create_pi(target, data)
    }

    fn append(&self, parent: &NodeId, child: NodeOrText<NodeId>) {
        self.place(*parent, &child);
        self.inner.append(parent, child);
    }

    fn append_based_on_parent_node(
        &self,
        element: &NodeId,
        prev_element: &NodeId,
        child: NodeOrText<NodeId>,
    ) {
        let parent = self.parent(*element).unwrap_or(*prev_element);
        self.place(parent, &child);
        self.inner
            .append_based_on_parent_node(element, prev_element, child);
    }

    fn append_doctype_to_document(
        &self,
        name: StrTendril,
        public_id: StrTendril,
        system_id: StrTendril,
    ) {
        self.inner
            .append_doctype_to_document(name, public_id, system_id);
    }

    fn get_template_contents(&self, target: &NodeId) -> NodeId {
        self.inner.get_template_contents(target)
    }

    fn same_node(&self, x: &NodeId, y: &NodeId) -> bool {
        self.step();
        self.inner.same_node(x, y)
    }

    fn set_quirks_mode(&self, mode: QuirksMode) {
        self.inner.set_quirks_mode(mode);
    }

    fn append_before_sibling(&self, sibling: &NodeId, new_node: NodeOrText<NodeId>) {
        if let Some(parent) = self.parent(*sibling) {
            self.place(parent, &new_node);
        }
        self.inner.append_before_sibling(sibling, new_node);
    }

    fn add_attrs_if_missing(&self, target: &NodeId, attrs: Vec<Attribute>) {
        self.inner.add_attrs_if_missing(target, attrs);
    }

    /// Nodes move: the path is found again from the tree at the next append.
    fn remove_from_parent(&self, target: &NodeId) {
        self.path.borrow_mut().clear();
        self.inner.remove_from_parent(target);
    }

    /// Nodes move: the path is found again from the tree at the next append.
    fn reparent_children(&self, node: &NodeId, new_parent: &NodeId) {
        self.step();
        self.path.borrow_mut().clear();
        self.inner.reparent_children(node, new_parent);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nested(levels: usize, open: &str, close: &str) -> String {
        format!(
            "<!doctype html><body>{}x{}<p id=after>after</p>",
            open.repeat(levels),
            close.repeat(levels)
        )
    }

    fn has_after(tree: &Tree) -> bool {
        let selector = scraper::Selector::parse("#after").expect("a selector");
        tree.html.select(&selector).next().is_some()
    }

    #[test]
    fn an_ordinary_page_is_read_whole() {
        let page = nested(100, "<div><span>", "</span></div>");
        let tree = parse(&page);
        assert_eq!(tree.cut, None);
        assert!(has_after(&tree));
    }

    #[test]
    fn nesting_past_the_depth_is_cut() {
        let page = nested(1000, "<span>", "</span>");
        let tree = parse(&page);
        let cut = tree.cut.expect("cut");
        assert_eq!(cut.reason, CutReason::Deep);
        assert!(cut.at_byte < page.len() as u64);
        assert!(!has_after(&tree));
        // Nesting up to the bound is read.
        let tree = parse(&nested(500, "<span>", "</span>"));
        assert_eq!(tree.cut, None);
        assert!(has_after(&tree));
    }

    #[test]
    fn costly_construction_is_cut() {
        // 400 levels stay within the depth, and each `<div>` looks for a `<p>` through
        // all of them.
        let page = nested(400, "<div>", "</div>").repeat(50);
        let tree = parse_within(&page, MAX_TREE_DEPTH, 1_000_000);
        assert_eq!(tree.cut.map(|cut| cut.reason), Some(CutReason::Costly));
        assert_eq!(parse(&page).cut, None);
    }

    #[test]
    fn pieces_end_at_characters() {
        let page = format!("<p>{}</p><p id=after>é</p>", "é".repeat(PIECE_BYTES));
        let tree = parse(&page);
        assert_eq!(tree.cut, None);
        assert!(has_after(&tree));
        let text: String = tree.html.root_element().text().collect();
        assert_eq!(text.chars().filter(|&c| c == 'é').count(), PIECE_BYTES + 1);
    }
}
