//! Custom extraction: values picked out of a page by CSS selectors the user names
//! (`price=.product .price`, `sku=[data-sku]@data-sku`), for product data and tracking
//! checks. The selectors are `scraper`'s, parsed once when the crawl is configured; the
//! document is parsed into a tree only when extractions are asked for.

use std::fmt;

use scraper::{ElementRef, Html, Selector};

use crate::charset;

/// At most this many values are kept per extraction and page (the first, in document order).
pub const MAX_VALUES_PER_EXTRACTION: usize = 20;

/// A value longer than this many characters is cut to it.
pub const MAX_VALUE_CHARS: usize = 1000;

/// One extraction the user asked for: a name, a selector, and what of each match to keep.
#[derive(Debug, Clone)]
pub struct CustomExtraction {
    name: String,
    selector: Selector,
    /// `None`: the element's text; `Some`: this attribute's value.
    attribute: Option<String>,
}

/// The values one extraction found on a page.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ExtractedValues {
    /// The extraction's name.
    pub name: String,
    /// The values, in document order, at most [`MAX_VALUES_PER_EXTRACTION`], each at most
    /// [`MAX_VALUE_CHARS`] characters; empty when nothing matched.
    pub values: Vec<String>,
}

/// Why `NAME=SELECTOR[@attribute]` is not an extraction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InvalidExtraction {
    /// No `=` between the name and the selector.
    MissingEquals,
    /// The name is empty or has characters other than letters, digits, `_` and `-`.
    BadName(String),
    /// The selector does not parse, and why.
    BadSelector(String),
}

impl fmt::Display for InvalidExtraction {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InvalidExtraction::MissingEquals => formatter.write_str("expected NAME=CSS-SELECTOR"),
            InvalidExtraction::BadName(name) => write!(
                formatter,
                "the name {name:?} must be letters, digits, '_' or '-'"
            ),
            InvalidExtraction::BadSelector(reason) => {
                write!(formatter, "the selector does not parse: {reason}")
            }
        }
    }
}

impl std::error::Error for InvalidExtraction {}

impl CustomExtraction {
    /// Reads `NAME=SELECTOR` (the matches' text) or `NAME=SELECTOR@attribute` (an attribute's
    /// value). The split is at the last `@` outside quoted strings and escapes, and only when
    /// what follows is an attribute name and what precedes parses as a selector: CSS allows
    /// `@` only inside strings (`[data-x="a@b"]`) and escapes (`.md\@flex`), which stay part
    /// of the selector.
    pub fn parse(text: &str) -> Result<CustomExtraction, InvalidExtraction> {
        let (name, selector_text) = text
            .split_once('=')
            .ok_or(InvalidExtraction::MissingEquals)?;
        if !is_valid_name(name) {
            return Err(InvalidExtraction::BadName(name.to_string()));
        }
        if let Some(at) = last_unquoted_at(selector_text) {
            let (selector, attribute) = (&selector_text[..at], &selector_text[at + 1..]);
            if is_attribute_name(attribute)
                && let Ok(selector) = Selector::parse(selector.trim())
            {
                return Ok(CustomExtraction {
                    name: name.to_string(),
                    selector,
                    attribute: Some(attribute.to_ascii_lowercase()),
                });
            }
        }
        let selector = Selector::parse(selector_text.trim())
            .map_err(|error| InvalidExtraction::BadSelector(selector_problem(&error)))?;
        Ok(CustomExtraction {
            name: name.to_string(),
            selector,
            attribute: None,
        })
    }

    /// The name the values are reported under.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The attribute whose value is taken, or `None` for the element's text.
    pub fn attribute(&self) -> Option<&str> {
        self.attribute.as_deref()
    }

    /// The values of this extraction in `html`.
    fn values(&self, html: &Html) -> Vec<String> {
        html.select(&self.selector)
            .filter_map(|element| self.value_of(element))
            .filter(|value| !value.is_empty())
            .take(MAX_VALUES_PER_EXTRACTION)
            .collect()
    }

    /// The match's value, at most [`MAX_VALUE_CHARS`] long.
    fn value_of(&self, element: ElementRef<'_>) -> Option<String> {
        match &self.attribute {
            Some(attribute) => element
                .value()
                .attr(attribute)
                .map(|value| capped(value.trim())),
            None => Some(collapsed_text(element.text())),
        }
    }
}

/// Every extraction's values in a document's `body`, in the order the extractions are given.
/// The body is decoded as for the rest of extraction (by its `content_type` and what it
/// says of itself) and parsed into a tree once for all of them.
pub(crate) fn extract_values(
    body: &[u8],
    content_type: Option<&str>,
    extractions: &[CustomExtraction],
) -> Vec<ExtractedValues> {
    let (text, _) = charset::decode(body, content_type);
    // A tree cut short (crate::tree) gives the values before the cut.
    let html = crate::tree::parse(&text).html;
    extractions
        .iter()
        .map(|extraction| ExtractedValues {
            name: extraction.name.clone(),
            values: extraction.values(&html),
        })
        .collect()
}

/// `[A-Za-z0-9_-]+`.
fn is_valid_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|byte| byte.is_ascii_alphanumeric() || matches!(byte, b'_' | b'-'))
}

/// An attribute name as people write them: a letter or `_`, then letters, digits, `-`, `_`,
/// `.` or `:` (`href`, `data-sku`, `xlink:href`).
fn is_attribute_name(name: &str) -> bool {
    let mut bytes = name.bytes();
    bytes
        .next()
        .is_some_and(|first| first.is_ascii_alphabetic() || first == b'_')
        && bytes
            .all(|byte| byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'_' | b'.' | b':'))
}

/// The byte offset of the last `@` that is neither inside a quoted string nor escaped by a
/// backslash (CSS Syntax, 4.3: strings and escapes).
fn last_unquoted_at(selector: &str) -> Option<usize> {
    let mut last = None;
    let mut quote: Option<char> = None;
    let mut characters = selector.char_indices();
    while let Some((offset, character)) = characters.next() {
        match (quote, character) {
            (_, '\\') => {
                characters.next();
            }
            (Some(open), _) if character == open => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(character),
            (None, '@') => last = Some(offset),
            (None, _) => {}
        }
    }
    last
}

/// The parser's complaint, on one line.
fn selector_problem(error: &scraper::error::SelectorErrorKind) -> String {
    match error {
        // Its Display spans lines and asks for a bug report; the kind itself says enough.
        scraper::error::SelectorErrorKind::UnexpectedSelectorParseError(kind) => {
            format!("{kind:?}")
        }
        other => other.to_string(),
    }
}

/// The text pieces joined, every run of whitespace one space, trimmed, and cut at
/// [`MAX_VALUE_CHARS`] as it is built: the text of a whole page is never copied for it.
fn collapsed_text<'a>(pieces: impl Iterator<Item = &'a str>) -> String {
    let mut text = String::new();
    let mut length = 0;
    let mut space_pending = false;
    for character in pieces.flat_map(str::chars) {
        if character.is_whitespace() {
            space_pending = !text.is_empty();
            continue;
        }
        let needed = 1 + usize::from(space_pending);
        if length + needed > MAX_VALUE_CHARS {
            break;
        }
        if space_pending {
            text.push(' ');
            space_pending = false;
        }
        text.push(character);
        length += needed;
    }
    text
}

/// `value` cut to [`MAX_VALUE_CHARS`] characters.
fn capped(value: &str) -> String {
    match value.char_indices().nth(MAX_VALUE_CHARS) {
        Some((cut, _)) => value[..cut].to_string(),
        None => value.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use url::Url;

    use super::*;
    use crate::extract;
    use crate::facts::{Document, ExtractOptions, ResponseHeaders};

    fn extraction(text: &str) -> CustomExtraction {
        CustomExtraction::parse(text).unwrap_or_else(|error| panic!("{text}: {error}"))
    }

    /// The values of `extractions` (as the user writes them) in `html`, by name.
    fn values(html: &str, extractions: &[&str]) -> Vec<(String, Vec<String>)> {
        let url = Url::parse("https://example.com/product").unwrap();
        let headers = ResponseHeaders {
            content_type: Some("text/html".to_string()),
            ..ResponseHeaders::default()
        };
        let document = Document {
            url: &url,
            body: html.as_bytes(),
            headers: &headers,
        };
        let options = ExtractOptions {
            custom: extractions.iter().map(|text| extraction(text)).collect(),
            ..ExtractOptions::default()
        };
        extract(&document, &options)
            .extracted
            .into_iter()
            .map(|found| (found.name, found.values))
            .collect()
    }

    fn one(html: &str, extraction: &str) -> Vec<String> {
        values(html, &[extraction]).remove(0).1
    }

    const PRODUCT: &str = r#"<html><head><title>Kettle</title>
        <meta property="og:price:amount" content=" 39.90 ">
        </head><body>
        <div class="product" data-sku="KT-100">
          <h1>Steel   kettle</h1>
          <p class="price">
            <span class="currency">EUR</span> 39.<small>90</small>
          </p>
          <ul class="tags"><li>steel</li><li>kitchen</li><li></li><li>gift</li></ul>
        </div>
        </body></html>"#;

    #[test]
    fn text_is_the_elements_text_with_whitespace_collapsed() {
        assert_eq!(one(PRODUCT, "price=.product .price"), ["EUR 39.90"]);
        assert_eq!(one(PRODUCT, "heading=h1"), ["Steel kettle"]);
    }

    #[test]
    fn an_attribute_after_the_last_at_gives_its_value_trimmed() {
        assert_eq!(one(PRODUCT, "sku=[data-sku]@data-sku"), ["KT-100"]);
        assert_eq!(
            one(PRODUCT, r#"price=meta[property="og:price:amount"]@content"#),
            ["39.90"]
        );
        // Attribute names are compared as HTML stores them: lower case.
        assert_eq!(one(PRODUCT, "sku=div@DATA-SKU"), ["KT-100"]);
    }

    #[test]
    fn every_match_comes_in_document_order_and_empty_ones_are_skipped() {
        assert_eq!(one(PRODUCT, "tag=.tags li"), ["steel", "kitchen", "gift"]);
        // Elements without the attribute give no value.
        assert_eq!(one(PRODUCT, "sku=div, p, h1@data-sku"), ["KT-100"]);
    }

    #[test]
    fn no_match_is_no_value_and_every_extraction_is_reported_in_order() {
        assert_eq!(
            values(PRODUCT, &["missing=.no-such-class", "sku=div@data-sku"]),
            [
                ("missing".to_string(), Vec::new()),
                ("sku".to_string(), vec!["KT-100".to_string()])
            ]
        );
        assert!(one("", "price=.price").is_empty());
    }

    #[test]
    fn matches_and_values_are_capped() {
        let many: String = (0..50).map(|index| format!("<i>{index}</i>")).collect();
        let found = one(&many, "item=i");
        assert_eq!(found.len(), MAX_VALUES_PER_EXTRACTION);
        assert_eq!(found.first().map(String::as_str), Some("0"));
        assert_eq!(found.last().map(String::as_str), Some("19"));

        let long = format!(
            "<p>{}</p><p title=\"{}\">x</p>",
            "é".repeat(3000),
            "a".repeat(3000)
        );
        let text = one(&long, "text=p");
        assert_eq!(text[0].chars().count(), MAX_VALUE_CHARS);
        assert!(text[0].chars().all(|character| character == 'é'));
        assert_eq!(one(&long, "title=p@title")[0].len(), MAX_VALUE_CHARS);
        // Whitespace collapsed first, then cut at the limit, never after a space.
        let words = format!("<p>{}</p>", "ab \n\t ".repeat(1000));
        let cut = &one(&words, "words=p")[0];
        assert_eq!(cut.len(), MAX_VALUE_CHARS);
        assert!(cut.starts_with("ab ab ") && cut.ends_with("ab a"), "{cut}");
        let spaced = format!("<p>{} y</p>", "x".repeat(MAX_VALUE_CHARS - 1));
        assert_eq!(one(&spaced, "spaced=p")[0], "x".repeat(MAX_VALUE_CHARS - 1));
    }

    #[test]
    fn hostile_text_is_returned_as_data() {
        let html = "<p class=x>=HYPERLINK(\"http://evil.example\",\"x\")</p>\
                    <p class=x>&lt;script&gt;alert(1)&lt;/script&gt;<b>bold</b></p>\
                    <p class=x>line\none\r\n\ttwo</p>";
        assert_eq!(
            one(html, "x=.x"),
            [
                "=HYPERLINK(\"http://evil.example\",\"x\")",
                "<script>alert(1)</script>bold",
                "line one two",
            ]
        );
        // Markup inside a matched element is not its text; scripts are not run, only read.
        assert_eq!(
            one("<div id=d><script>var a = 1;</script>text</div>", "d=#d"),
            ["var a = 1;text"]
        );
    }

    #[test]
    fn an_at_inside_quotes_or_an_escape_belongs_to_the_selector() {
        let html = r#"<a data-x="a@b" href="/one">one</a><a class="md@flex" href="/two">two</a>"#;
        assert_eq!(one(html, r#"x=[data-x="a@b"]"#), ["one"]);
        assert_eq!(one(html, r#"x=[data-x="a@b"]@href"#), ["/one"]);
        assert_eq!(one(html, "x=[data-x='a@b']@href"), ["/one"]);
        assert_eq!(one(html, r"x=.md\@flex"), ["two"]);
        assert_eq!(one(html, r"x=.md\@flex@href"), ["/two"]);
        // An unterminated string runs to the end: its `@` is still inside it.
        assert_eq!(extraction(r#"x=[data-x="a@b"#).attribute(), None);
        assert_eq!(extraction("x=a[href]@href").attribute(), Some("href"));
        assert_eq!(extraction("x=a").name(), "x");
    }

    #[test]
    fn bad_extractions_say_what_is_wrong() {
        assert_eq!(
            CustomExtraction::parse(".price").err(),
            Some(InvalidExtraction::MissingEquals)
        );
        for name in ["", "my price", "price!", "prix€"] {
            assert_eq!(
                CustomExtraction::parse(&format!("{name}=.price")).err(),
                Some(InvalidExtraction::BadName(name.to_string())),
                "{name:?}"
            );
        }
        for selector in [
            "",
            "..price",
            "div[",
            "p >",
            ".price@",
            "a@1x",
            "div:nth-child(x)",
        ] {
            let error = CustomExtraction::parse(&format!("x={selector}")).err();
            assert!(
                matches!(&error, Some(InvalidExtraction::BadSelector(reason)) if !reason.contains('\n')),
                "{selector:?}: {error:?}"
            );
        }
        assert_eq!(
            extraction("sku-2_b=.x").name(),
            "sku-2_b",
            "letters, digits, '_' and '-'"
        );
    }
}
