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
}

impl WordCount {
    /// A piece of text, continuing the word the piece before left open.
    pub(crate) fn push(&mut self, piece: &str) {
        for character in piece.chars() {
            if character.is_whitespace() {
                self.end_word();
            } else if is_written_without_spaces(character) {
                self.end_word();
                self.words = self.words.saturating_add(1);
            } else {
                self.in_word = true;
                self.counts |= character.is_alphanumeric();
            }
        }
    }

    /// Whitespace or markup: the word being read, if any, ends.
    pub(crate) fn end_word(&mut self) {
        if self.in_word && self.counts {
            self.words = self.words.saturating_add(1);
        }
        self.in_word = false;
        self.counts = false;
    }

    /// The words read, the last one ended.
    pub(crate) fn finish(mut self) -> u32 {
        self.end_word();
        self.words
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
    fn markup_ends_a_word() {
        let mut words = WordCount::default();
        words.push("one");
        words.end_word();
        words.push("two");
        assert_eq!(words.finish(), 2);
    }
}
