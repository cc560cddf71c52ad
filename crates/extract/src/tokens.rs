//! Reading the HTML document in one streaming pass over an HTML5 tokenizer, without building
//! a DOM: extraction needs a few elements and their attributes, and a tree costs many times
//! the page's size in memory and most of the parsing time. What the tree builder would decide
//! and extraction depends on is tracked here: the raw-text states (nothing inside `<script>`,
//! `<style>` or `<noscript>` is a link), where the head ends (a canonical only counts in the
//! head), inert `<template>` content (but a declarative shadow root's, which the browser
//! shows), and `<picture>` sources.
//!
//! Two tokenizers feed the same collection. html5gum's (`gum`), driven by an emitter that
//! builds no tokens (tag names and attributes go into buffers reused from tag to tag), reads
//! every page, at about a third of the cost. html5ever's (`reference`, the one under
//! `scraper`) is the reference the differential tests hold it to, and reads only a page whose
//! legacy fingerprint is asked for: version 1 of the fingerprint ended its words where
//! html5ever cuts text into pieces (a character reference is a piece of its own), and
//! fingerprints stored by earlier releases are compared with it. Nothing else collected here,
//! the fingerprint's text included (see `fingerprint::VisibleText`), depends on how a
//! tokenizer cuts text; the differential tests hold the two to the same document.

mod gum;
mod reference;
mod state;
pub(crate) mod tag;

pub(crate) use state::{RawDetails, RawDocument, Wanted};
#[cfg(test)]
pub(crate) use {gum::read as read_by_gum, reference::read as read_by_reference};

/// Tokenizes `html` and collects what extraction needs and what is `wanted`.
pub(crate) fn read(html: &str, wanted: Wanted) -> RawDocument {
    if wanted.legacy_text {
        reference::read(html, wanted)
    } else {
        gum::read(html, wanted)
    }
}
