//! What reading one page's structured data may do (items, nesting, values, elements
//! visited), and the small rules every reader applies to what it keeps: schema.org's names
//! without their prefix, texts cut at a bound.

/// At most this many items (nested ones included) are read per page.
pub(crate) const MAX_ITEMS: usize = 1000;

/// Items nest at most this deep; deeper ones are left out.
pub(crate) const MAX_DEPTH: usize = 12;

/// At most this many property values are read per page.
pub(crate) const MAX_VALUES: usize = 20_000;

/// Microdata visits at most this many elements per page while finding items' properties
/// (`itemref` can make each item's search cover the document).
pub(crate) const MAX_ELEMENT_VISITS: usize = 200_000;

/// A text value is kept up to this many bytes (cut at a character): one long property (an
/// `articleBody`) would otherwise push every later item out of [`MAX_STRUCTURED_BYTES`].
pub(crate) const MAX_TEXT_BYTES: usize = 2048;

/// What reading one page may still do.
#[derive(Debug)]
pub(crate) struct Budget {
    items: usize,
    values: usize,
    visits: usize,
    /// Something was left out for want of budget.
    pub(crate) exhausted: bool,
}

impl Budget {
    pub(crate) fn new() -> Budget {
        Budget {
            items: MAX_ITEMS,
            values: MAX_VALUES,
            visits: MAX_ELEMENT_VISITS,
            exhausted: false,
        }
    }

    /// Takes one item at `depth` (top-level items are at 0), if the budget allows.
    pub(crate) fn item(&mut self, depth: usize) -> bool {
        Self::take(&mut self.items, &mut self.exhausted, depth <= MAX_DEPTH)
    }

    /// Takes one property value, if the budget allows.
    pub(crate) fn value(&mut self) -> bool {
        Self::take(&mut self.values, &mut self.exhausted, true)
    }

    /// Takes one element visit, if the budget allows.
    pub(crate) fn visit(&mut self) -> bool {
        Self::take(&mut self.visits, &mut self.exhausted, true)
    }

    fn take(left: &mut usize, exhausted: &mut bool, allowed: bool) -> bool {
        if allowed && *left > 0 {
            *left -= 1;
            true
        } else {
            *exhausted = true;
            false
        }
    }
}

/// A type or property name without schema.org's prefix: `https://schema.org/NewsArticle`,
/// `http://schema.org/NewsArticle` and `schema:NewsArticle` are `NewsArticle`.
pub(crate) fn schema_name(name: &str) -> &str {
    let name = name.trim();
    const PREFIXES: [&str; 5] = [
        "https://schema.org/",
        "http://schema.org/",
        "https://www.schema.org/",
        "http://www.schema.org/",
        "schema:",
    ];
    PREFIXES
        .iter()
        .find_map(|prefix| name.strip_prefix(prefix))
        .filter(|rest| !rest.is_empty())
        .unwrap_or(name)
}

/// `text` cut to at most [`MAX_TEXT_BYTES`], at a character.
pub(crate) fn capped(mut text: String) -> String {
    if text.len() > MAX_TEXT_BYTES {
        let mut cut = MAX_TEXT_BYTES;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        text.truncate(cut);
    }
    text
}
