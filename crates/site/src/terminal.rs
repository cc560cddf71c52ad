//! Text from a site, made safe for a terminal.

use std::fmt::Write as _;

/// `text` with its control characters escaped (`\n`, `\u{1b}`): it cannot move the cursor,
/// colour the terminal or start a line of its own.
pub fn escape_controls(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for character in text.chars() {
        if character.is_control() {
            let _ = write!(escaped, "{}", character.escape_default());
        } else {
            escaped.push(character);
        }
    }
    escaped
}
