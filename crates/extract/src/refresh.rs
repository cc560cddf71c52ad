//! `<meta http-equiv="refresh">`: only an instant refresh (delay 0) to another URL acts as a
//! redirect (HTML Living Standard, "shared declarative refresh steps").

/// The URL of an instant refresh, as written (unresolved), or `None` for a delayed refresh,
/// a refresh of the page itself, or a malformed value.
pub(crate) fn instant_refresh_target(content: &str) -> Option<&str> {
    let content = content.trim_start_matches(|character: char| character.is_ascii_whitespace());
    let digits = content.bytes().take_while(u8::is_ascii_digit).count();
    let after_number = content[digits..]
        .trim_start_matches(|character: char| character.is_ascii_digit() || character == '.');
    if digits == 0 && after_number.len() == content.len() {
        return None;
    }
    if !content[..digits].trim_start_matches('0').is_empty() {
        return None;
    }
    let rest = after_number.trim_start_matches(|character: char| character.is_ascii_whitespace());
    let rest = rest.strip_prefix([';', ',']).unwrap_or(rest);
    let rest = rest.trim_start_matches(|character: char| character.is_ascii_whitespace());
    let rest = match rest.get(..3) {
        Some(prefix) if prefix.eq_ignore_ascii_case("url") => {
            let after =
                rest[3..].trim_start_matches(|character: char| character.is_ascii_whitespace());
            match after.strip_prefix('=') {
                Some(value) => {
                    value.trim_start_matches(|character: char| character.is_ascii_whitespace())
                }
                None => rest,
            }
        }
        _ => rest,
    };
    let target = match rest.chars().next() {
        Some(quote @ ('"' | '\'')) => {
            let inner = &rest[1..];
            &inner[..inner.find(quote).unwrap_or(inner.len())]
        }
        _ => rest,
    };
    let target = target.trim();
    (!target.is_empty()).then_some(target)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refresh_forms() {
        for (content, expected) in [
            ("0; url=/next", Some("/next")),
            ("0;URL='/next'", Some("/next")),
            ("0, url=/x", Some("/x")),
            ("0; URL = \"/quoted\" trailing", Some("/quoted")),
            ("0;/bare", Some("/bare")),
            ("0.5; url=/half", Some("/half")),
            ("00; url=/zeros", Some("/zeros")),
            ("0", None),
            ("0;", None),
            ("5; url=/later", None),
            ("url=/no-delay", None),
            ("", None),
        ] {
            assert_eq!(instant_refresh_target(content), expected, "{content:?}");
        }
    }
}
