//! The same reading over html5ever's tokenizer, the one under `scraper`: for pages whose
//! legacy fingerprint is asked for (version 1's words end where html5ever cuts text into
//! pieces: a character reference, a stray `<` or a NUL is a piece of its own), and the
//! reference the differential tests hold [`super::gum`] to. It builds every tag with its
//! attributes.

use std::cell::RefCell;

use html5ever::tendril::StrTendril;
use html5ever::tokenizer::states::RawKind;
use html5ever::tokenizer::{
    BufferQueue, Tag, TagKind, Token, TokenSink, TokenSinkResult, Tokenizer, TokenizerOpts,
};

use super::state::{RawDocument, State, Wanted};
use super::tag::{StartTag, TextMode};

/// Tokenizes `html` with html5ever and collects what extraction needs and what is `wanted`.
pub(crate) fn read(html: &str, wanted: Wanted) -> RawDocument {
    let tokenizer = Tokenizer::new(
        Sink {
            state: RefCell::new(State::new(wanted)),
        },
        TokenizerOpts::default(),
    );
    let input = BufferQueue::default();
    input.push_back(StrTendril::from_slice(html));
    let _ = tokenizer.feed(&input);
    tokenizer.end();
    tokenizer.sink.state.into_inner().finish()
}

struct Sink {
    state: RefCell<State>,
}

impl StartTag for Tag {
    fn name(&self) -> &str {
        &self.name
    }

    fn attribute(&self, name: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|attribute| attribute.name.ns.is_empty() && &*attribute.name.local == name)
            .map(|attribute| &*attribute.value)
    }

    fn self_closing(&self) -> bool {
        self.self_closing
    }
}

impl TokenSink for Sink {
    type Handle = ();

    fn process_token(&self, token: Token, _line_number: u64) -> TokenSinkResult<()> {
        let mut state = self.state.borrow_mut();
        match token {
            Token::TagToken(tag) => match tag.kind {
                TagKind::StartTag => {
                    return match state.start_tag(&tag) {
                        None => TokenSinkResult::Continue,
                        Some(TextMode::Rcdata) => TokenSinkResult::RawData(RawKind::Rcdata),
                        Some(TextMode::Rawtext) => TokenSinkResult::RawData(RawKind::Rawtext),
                        Some(TextMode::ScriptData) => TokenSinkResult::RawData(RawKind::ScriptData),
                        Some(TextMode::Plaintext) => TokenSinkResult::Plaintext,
                    };
                }
                TagKind::EndTag => state.end_tag(&tag.name),
            },
            Token::CharacterTokens(text) => state.characters(&text),
            Token::CommentToken(_) => state.markup(),
            Token::DoctypeToken(_) => state.doctype(),
            // A NUL in text is a parse error the tree builder drops.
            Token::NullCharacterToken | Token::EOFToken | Token::ParseError(_) => {}
        }
        TokenSinkResult::Continue
    }
}
