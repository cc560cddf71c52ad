//! The tokenizer pages are read with: html5gum's, driven by an emitter that builds no
//! tokens.
//! A start tag's name and attributes are written into two buffers kept from tag to tag, and
//! handed to [`State`] as a [`StartTag`] when the tag is complete; text goes to it in the
//! pieces the tokenizer reads it in; comments and doctypes are only markup between texts.

use std::convert::Infallible;

use html5gum::{Emitter, Error, State as TokenizerState, Tokenizer};

use super::state::{RawDocument, State, Wanted};
use super::tag::{StartTag, TextMode};

/// Tokenizes `html` and collects what extraction needs and what is `wanted`, but the legacy
/// fingerprint's text: html5gum cuts text into other pieces than version 1 was defined over.
pub(crate) fn read(html: &str, wanted: Wanted) -> RawDocument {
    let mut state = State::new(Wanted {
        legacy_text: false,
        ..wanted
    });
    // The encoding took a byte order mark off; html5ever drops one more, and so does this.
    let html = html.strip_prefix('\u{feff}').unwrap_or(html);
    let reader = Reader {
        state: &mut state,
        tag: TagBuffer::default(),
        current: Current::Other,
        last_start_tag: Vec::new(),
        pending: Vec::new(),
    };
    // Reading a string cannot fail.
    let _ = Tokenizer::new_with_emitter(html, reader).finish();
    state.finish()
}

/// The token being read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Current {
    StartTag,
    EndTag,
    /// A comment or a doctype: nothing of it is kept.
    Other,
}

/// A tag's name and attributes, as the tokenizer spells them out.
#[derive(Debug, Default)]
struct TagBuffer {
    name: Vec<u8>,
    self_closing: bool,
    /// The attributes' names and values, one after the other.
    bytes: Vec<u8>,
    /// Per attribute, in order: where its name starts, where its value starts, where it ends.
    attributes: Vec<(usize, usize, usize)>,
}

impl TagBuffer {
    fn clear(&mut self) {
        self.name.clear();
        self.self_closing = false;
        self.bytes.clear();
        self.attributes.clear();
    }
}

impl StartTag for TagBuffer {
    fn name(&self) -> &str {
        // A name gathers every byte the tokenizer read for it from a `str`: always UTF-8.
        std::str::from_utf8(&self.name).unwrap_or_default()
    }

    fn attribute(&self, name: &str) -> Option<&str> {
        // The first of a name counts, as in the tree a browser builds.
        let &(_, value, end) = self
            .attributes
            .iter()
            .find(|&&(start, value, _)| &self.bytes[start..value] == name.as_bytes())?;
        std::str::from_utf8(&self.bytes[value..end]).ok()
    }

    fn self_closing(&self) -> bool {
        self.self_closing
    }
}

struct Reader<'a> {
    state: &'a mut State,
    tag: TagBuffer,
    current: Current,
    /// The name of the last start tag: `</script>` ends a script only after `<script>`.
    last_start_tag: Vec<u8>,
    /// The start of a character the tokenizer cut (it reconsumes a byte after `&` or `<`
    /// on its own), until the rest of it comes.
    pending: Vec<u8>,
}

/// Hands the text in `text` to `state`, up to a character cut at its end; how many bytes
/// it handed over.
fn pass_text(state: &mut State, text: &[u8]) -> usize {
    match std::str::from_utf8(text) {
        Ok(whole) => {
            state.characters(whole);
            text.len()
        }
        Err(error) if error.error_len().is_none() => {
            let valid = error.valid_up_to();
            if let Ok(prefix) = std::str::from_utf8(&text[..valid])
                && !prefix.is_empty()
            {
                state.characters(prefix);
            }
            valid
        }
        // The input is a `str`: not reached.
        Err(_) => {
            state.characters(&String::from_utf8_lossy(text));
            text.len()
        }
    }
}

impl Reader<'_> {
    /// The text before markup ends: a character still cut is handed over as it is.
    fn end_text(&mut self) {
        if !self.pending.is_empty() {
            self.state
                .characters(&String::from_utf8_lossy(&self.pending));
            self.pending.clear();
        }
    }

    /// A comment or a doctype, between two texts.
    fn markup(&mut self) {
        self.end_text();
        self.state.markup();
    }

    /// A token starts. It may come to nothing (`</a` in a title is text): only one emitted
    /// is markup between texts.
    fn start(&mut self, current: Current) {
        self.current = current;
        self.tag.clear();
    }
}

impl Emitter for Reader<'_> {
    type Token = Infallible;

    fn set_last_start_tag(&mut self, last_start_tag: Option<&[u8]>) {
        self.last_start_tag.clear();
        self.last_start_tag
            .extend_from_slice(last_start_tag.unwrap_or_default());
    }

    fn emit_eof(&mut self) {
        self.end_text();
    }

    fn emit_error(&mut self, _error: Error) {}

    fn should_emit_errors(&mut self) -> bool {
        false
    }

    fn pop_token(&mut self) -> Option<Infallible> {
        None
    }

    fn emit_string(&mut self, text: &[u8]) {
        // A NUL in text is a parse error the tree builder drops.
        if self.pending.is_empty() && !text.contains(&0) {
            let passed = pass_text(self.state, text);
            self.pending.extend_from_slice(&text[passed..]);
        } else {
            let mut pending = std::mem::take(&mut self.pending);
            pending.extend(text.iter().copied().filter(|&byte| byte != 0));
            let passed = pass_text(self.state, &pending);
            pending.drain(..passed);
            self.pending = pending;
        }
    }

    fn init_start_tag(&mut self) {
        self.start(Current::StartTag);
    }

    fn init_end_tag(&mut self) {
        self.start(Current::EndTag);
    }

    fn init_comment(&mut self) {
        self.start(Current::Other);
    }

    fn init_doctype(&mut self) {
        self.start(Current::Other);
    }

    fn emit_current_tag(&mut self) -> Option<TokenizerState> {
        // The state takes a tag as markup itself.
        self.end_text();
        match self.current {
            Current::StartTag => {
                self.last_start_tag.clear();
                self.last_start_tag.extend_from_slice(&self.tag.name);
                self.state.start_tag(&self.tag).map(|mode| match mode {
                    TextMode::Rcdata => TokenizerState::RcData,
                    TextMode::Rawtext => TokenizerState::RawText,
                    TextMode::ScriptData => TokenizerState::ScriptData,
                    TextMode::Plaintext => TokenizerState::PlainText,
                })
            }
            Current::EndTag => {
                self.state.end_tag(self.tag.name());
                None
            }
            Current::Other => None,
        }
    }

    fn emit_current_comment(&mut self) {
        self.markup();
    }

    fn emit_current_doctype(&mut self) {
        self.end_text();
        self.state.doctype();
    }

    fn set_self_closing(&mut self) {
        self.tag.self_closing = true;
    }

    fn set_force_quirks(&mut self) {}

    fn push_tag_name(&mut self, name: &[u8]) {
        self.tag.name.extend_from_slice(name);
    }

    fn push_comment(&mut self, _text: &[u8]) {}

    fn push_doctype_name(&mut self, _name: &[u8]) {}

    fn init_attribute(&mut self) {
        let at = self.tag.bytes.len();
        self.tag.attributes.push((at, at, at));
    }

    fn push_attribute_name(&mut self, name: &[u8]) {
        self.tag.bytes.extend_from_slice(name);
        let at = self.tag.bytes.len();
        if let Some((_, value, end)) = self.tag.attributes.last_mut() {
            *value = at;
            *end = at;
        }
    }

    fn push_attribute_value(&mut self, value: &[u8]) {
        self.tag.bytes.extend_from_slice(value);
        let at = self.tag.bytes.len();
        if let Some((_, _, end)) = self.tag.attributes.last_mut() {
            *end = at;
        }
    }

    fn set_doctype_public_identifier(&mut self, _value: &[u8]) {}

    fn set_doctype_system_identifier(&mut self, _value: &[u8]) {}

    fn push_doctype_public_identifier(&mut self, _value: &[u8]) {}

    fn push_doctype_system_identifier(&mut self, _value: &[u8]) {}

    fn current_is_appropriate_end_tag_token(&mut self) -> bool {
        self.current == Current::EndTag
            && !self.last_start_tag.is_empty()
            && self.tag.name == self.last_start_tag
    }
}
