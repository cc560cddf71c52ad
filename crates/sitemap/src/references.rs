//! Entity and character references in XML text (XML 1.0 sections 4.1 and 4.6), which
//! quick-xml hands over unresolved: the reader and the validator resolve them the same way.

/// The character a reference stands for, given its name between `&` and `;`: one of the five
/// predefined entities (`amp`, `lt`, `gt`, `apos`, `quot`) or a character reference (`#38`,
/// `#x26`). `None` for any other name, which a sitemap cannot declare.
pub(crate) fn resolve_reference(name: &str) -> Option<char> {
    match name {
        "amp" => Some('&'),
        "lt" => Some('<'),
        "gt" => Some('>'),
        "apos" => Some('\''),
        "quot" => Some('"'),
        _ => {
            let number = name.strip_prefix('#')?;
            let code = match number.strip_prefix(['x', 'X']) {
                Some(hex) => u32::from_str_radix(hex, 16).ok()?,
                None => number.parse().ok()?,
            };
            char::from_u32(code)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn predefined_entities_and_character_references() {
        for (name, expected) in [
            ("amp", Some('&')),
            ("lt", Some('<')),
            ("gt", Some('>')),
            ("apos", Some('\'')),
            ("quot", Some('"')),
            ("#38", Some('&')),
            ("#x26", Some('&')),
            ("#xE9", Some('é')),
            ("nbsp", None),
            ("#", None),
            ("#xD800", None),
            ("#x110000", None),
            ("#12a", None),
        ] {
            assert_eq!(resolve_reference(name), expected, "{name}");
        }
    }
}
