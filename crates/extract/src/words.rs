//! Counting the words of a page's visible text, as the audit's pages.csv shows them
//! (docs/audit.md, "The files"). A word is a run of characters between whitespace (Unicode's
//! `White_Space`, as `char::is_whitespace` reads it) that holds at least one letter or digit:
//! `don't`, `e-mail` and `2024` are one word each, a lone `-` or `|` is none. Markup between
//! two pieces of text ends a word, as the fingerprint's text reads it
//! (`fingerprint::VisibleText`): `<p>one</p><p>two</p>` is two words however the source is
//! laid out.
//!
//! Chinese and Japanese are written without spaces between words: each Han, Hiragana and
//! Katakana character counts as a word of its own, which is how word counts of such text
//! are usually given (characters). Korean puts spaces between words and is counted as other
//! scripts are. Thai, Lao, Khmer and Myanmar text also goes without spaces, and finding its
//! words takes a dictionary: a run of it between spaces counts as one word, which undercounts.

/// The words of the visible text, read a piece at a time: a word may straddle two pieces.
#[derive(Debug, Default)]
pub(crate) struct WordCount {
    words: u32,
    /// Characters of a word not ended yet have been read.
    in_word: bool,
    /// The word being read holds a letter or digit.
    counts: bool,
    /// The words read, lowercased and one space apart, when kept (for the simhash of
    /// near-duplicate pages).
    text: Option<String>,
}

impl WordCount {
    /// A count that also keeps the words ([`WordCount::finish_with_text`]).
    pub(crate) fn keeping_text() -> WordCount {
        WordCount {
            text: Some(String::new()),
            ..WordCount::default()
        }
    }

    /// A piece of text, continuing the word the piece before left open.
    pub(crate) fn push(&mut self, piece: &str) {
        for character in piece.chars() {
            if character.is_whitespace() {
                self.end_word();
            } else if !character.is_ascii() && is_written_without_spaces(character) {
                self.end_word();
                self.words = self.words.saturating_add(1);
                self.keep(character);
                self.end_word();
            } else {
                self.keep(character);
                self.in_word = true;
                self.counts |= character.is_alphanumeric();
            }
        }
    }

    /// Keeps a character of a word, when the words are kept.
    fn keep(&mut self, character: char) {
        if let Some(text) = &mut self.text {
            if !self.in_word && !text.is_empty() && !text.ends_with(' ') {
                text.push(' ');
            }
            if character.is_ascii() {
                text.push(character.to_ascii_lowercase());
            } else {
                text.extend(character.to_lowercase());
            }
        }
    }

    /// Whitespace or markup: the word being read, if any, ends.
    pub(crate) fn end_word(&mut self) {
        if self.in_word && self.counts {
            self.words = self.words.saturating_add(1);
        }
        if let Some(text) = &mut self.text
            && !text.is_empty()
            && !text.ends_with(' ')
        {
            text.push(' ');
        }
        self.in_word = false;
        self.counts = false;
    }

    /// The words read, the last one ended.
    #[cfg(test)]
    pub(crate) fn finish(self) -> u32 {
        self.finish_with_text().0
    }

    /// The words read, and when kept the words themselves, one space apart.
    pub(crate) fn finish_with_text(mut self) -> (u32, Option<String>) {
        self.end_word();
        let text = self.text.take().map(|mut text| {
            text.truncate(text.trim_end().len());
            text
        });
        (self.words, text)
    }
}

/// Han ideographs, Hiragana and Katakana: each character counts as a word (Unicode blocks
/// of the Unicode Standard, chapter 18, "East Asia").
fn is_written_without_spaces(character: char) -> bool {
    matches!(
        character,
        // CJK Unified Ideographs and Extension A.
        '\u{4E00}'..='\u{9FFF}'
            | '\u{3400}'..='\u{4DBF}'
            // CJK Compatibility Ideographs.
            | '\u{F900}'..='\u{FAFF}'
            // Extensions B to F, and the supplement of compatibility ideographs.
            | '\u{20000}'..='\u{2FA1F}'
            // Extensions G and H.
            | '\u{30000}'..='\u{323AF}'
            // Hiragana, Katakana and its phonetic extensions.
            | '\u{3041}'..='\u{3096}'
            | '\u{30A1}'..='\u{30FA}'
            | '\u{31F0}'..='\u{31FF}'
            // Halfwidth Katakana.
            | '\u{FF66}'..='\u{FF9D}'
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn count(pieces: &[&str]) -> u32 {
        let mut words = WordCount::default();
        for piece in pieces {
            words.push(piece);
        }
        words.finish()
    }

    #[test]
    fn words_are_runs_between_whitespace_that_hold_a_letter_or_digit() {
        for (pieces, expected) in [
            (&["" as &str][..], 0),
            (&["   \n\t "], 0),
            (&["one two  three\nfour"], 4),
            (&["don't e-mail 2024 x"], 4),
            (&["a - b | c — d"], 4),
            (&["…  ...  ©  !!"], 0),
            (&["Grüße aus Köln"], 3),
            (&["Привет, мир!"], 2),
            (&["مرحبا بالعالم"], 2),
            (&["नमस्ते दुनिया"], 2),
            (&["안녕하세요 세계"], 2),
            (&["ten\u{A0}km"], 2),
            // A word straddles two pieces of text.
            (&["split", "word and", " more"], 3),
        ] {
            assert_eq!(count(pieces), expected, "{pieces:?}");
        }
    }

    #[test]
    fn each_chinese_or_japanese_character_is_a_word() {
        assert_eq!(count(&["你好世界"]), 4);
        assert_eq!(count(&["東京タワーへ行く"]), 8);
        assert_eq!(count(&["日本語 and English"]), 5);
        assert_eq!(count(&["版本2.0发布"]), 5);
        assert_eq!(count(&["。、"]), 0);
    }

    #[test]
    fn kept_words_are_lowercased_one_space_apart() {
        let mut words = WordCount::keeping_text();
        for piece in ["  Hello,  Wor", "ld ", "東京", "\nEnd"] {
            words.push(piece);
        }
        words.end_word();
        words.push("again");
        let (count, text) = words.finish_with_text();
        assert_eq!(count, 6);
        assert_eq!(text.as_deref(), Some("hello, world 東 京 end again"));
    }

    #[test]
    fn markup_ends_a_word() {
        let mut words = WordCount::default();
        words.push("one");
        words.end_word();
        words.push("two");
        assert_eq!(words.finish(), 2);
    }
}
