//! Checking a sitemap or sitemap index against the protocol (sitemaps.org 0.9): structure and
//! namespace, limits, absolute URLs under the sitemap's directory, lastmod format, changefreq
//! and priority values, escaping (which XML well-formedness covers). Every problem carries
//! the line it was found on.

use std::sync::LazyLock;

use quick_xml::events::{BytesStart, Event};
use regex::Regex;
use url::Url;

use crate::limits::{MAX_BYTES_PER_FILE, MAX_URL_LENGTH, MAX_URLS_PER_FILE};
use crate::lines::LineCounter;
use crate::references::resolve_reference;

const NAMESPACE: &str = "http://www.sitemaps.org/schemas/sitemap/0.9";
const CHANGEFREQS: [&str; 7] = [
    "always", "hourly", "daily", "weekly", "monthly", "yearly", "never",
];

/// W3C Datetime (https://www.w3.org/TR/NOTE-datetime): a year, a month, a date, or a date
/// with hours and minutes, optional seconds and fraction, and a zone.
static W3C_DATETIME: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r"^\d{4}(-(0[1-9]|1[0-2])(-(0[1-9]|[12]\d|3[01])(T([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d+)?)?(Z|[+-]([01]\d|2[0-3]):[0-5]\d))?)?)?$",
    )
    .ok()
});

/// What a document is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DocumentKind {
    /// A `<urlset>`: a sitemap of pages.
    UrlSet,
    /// A `<sitemapindex>`: an index of sitemaps.
    Index,
}

/// What kind of thing is wrong, whatever the value: a sitemap that gets one thing wrong on
/// every entry has one kind of problem many times.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ProblemKind {
    /// Larger than the protocol's 50 MiB uncompressed.
    TooLarge,
    /// Not well-formed XML: checking stops there.
    NotWellFormed,
    /// An entity XML does not define.
    UnknownEntity,
    /// No `<urlset>` or `<sitemapindex>` root at all.
    NoRoot,
    /// Another root element.
    WrongRoot,
    /// The root does not declare the protocol's namespace.
    Namespace,
    /// An element where the protocol has none.
    NotAllowed,
    /// More than 50,000 entries.
    TooManyEntries,
    /// A field given twice in one entry.
    RepeatedField,
    /// An entry without `<loc>`.
    MissingLoc,
    /// An entry's fields out of the protocol's order.
    FieldOrder,
    /// A `<lastmod>` that is not a W3C Datetime.
    Lastmod,
    /// A `<changefreq>` that is not one of the protocol's words.
    Changefreq,
    /// A `<priority>` that is not a number from 0.0 to 1.0.
    Priority,
    /// A `<loc>` longer than 2,048 characters.
    LocTooLong,
    /// A `<loc>` that is not an absolute http(s) URL.
    LocNotAbsolute,
    /// A `<loc>` outside the sitemap's host and directory.
    LocOutsideDirectory,
}

impl ProblemKind {
    /// The stable code of the kind, as `validate --summary json` writes it.
    pub fn code(self) -> &'static str {
        match self {
            ProblemKind::TooLarge => "too-large",
            ProblemKind::NotWellFormed => "not-well-formed",
            ProblemKind::UnknownEntity => "unknown-entity",
            ProblemKind::NoRoot => "no-root",
            ProblemKind::WrongRoot => "wrong-root",
            ProblemKind::Namespace => "namespace",
            ProblemKind::NotAllowed => "element-not-allowed",
            ProblemKind::TooManyEntries => "too-many-entries",
            ProblemKind::RepeatedField => "repeated-field",
            ProblemKind::MissingLoc => "missing-loc",
            ProblemKind::FieldOrder => "field-order",
            ProblemKind::Lastmod => "lastmod",
            ProblemKind::Changefreq => "changefreq",
            ProblemKind::Priority => "priority",
            ProblemKind::LocTooLong => "loc-too-long",
            ProblemKind::LocNotAbsolute => "loc-not-absolute",
            ProblemKind::LocOutsideDirectory => "loc-outside-directory",
        }
    }
}

/// One thing wrong, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// What kind of thing is wrong.
    pub kind: ProblemKind,
    /// The 1-based line it was found on.
    pub line: usize,
    /// What is wrong, as a sentence.
    pub message: String,
}

/// The outcome of checking one file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Validation {
    /// What the root element says the document is; `None` without a protocol root.
    pub kind: Option<DocumentKind>,
    /// `<url>` or `<sitemap>` entries.
    pub entries: usize,
    /// Everything wrong, in the order found.
    pub problems: Vec<Problem>,
    /// The `<loc>`s of an index's children, to check in turn.
    pub children: Vec<ChildSitemap>,
}

/// A sitemap an index lists: its `<loc>` (trimmed), and the line it is on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChildSitemap {
    /// The child's URL.
    pub loc: String,
    /// The 1-based line of its `<loc>`.
    pub line: usize,
}

impl Validation {
    /// Whether nothing is wrong.
    pub fn is_valid(&self) -> bool {
        self.problems.is_empty()
    }
}

/// Checks `xml` (already decompressed). `location` is where the sitemap lives, if known:
/// its URLs must then be on the same host and under its directory.
pub fn validate(xml: &[u8], location: Option<&Url>) -> Validation {
    let mut checker = Checker {
        validation: Validation::default(),
        lines: LineCounter::default(),
        xml,
        directory: location.and_then(|url| url.join("./").ok()),
        stack: Vec::new(),
        entry_fields: Vec::new(),
        text: String::new(),
    };
    if xml.len() as u64 > MAX_BYTES_PER_FILE {
        checker.problem(
            ProblemKind::TooLarge,
            1,
            format!(
                "{} bytes uncompressed, more than the {MAX_BYTES_PER_FILE} allowed",
                xml.len()
            ),
        );
    }
    checker.run();
    checker.validation
}

struct Checker<'a> {
    validation: Validation,
    lines: LineCounter,
    xml: &'a [u8],
    directory: Option<Url>,
    /// Local names of the open elements; `None` for elements of another namespace.
    stack: Vec<Option<String>>,
    /// The protocol fields seen in the current entry, in order.
    entry_fields: Vec<String>,
    text: String,
}

impl Checker<'_> {
    fn problem(&mut self, kind: ProblemKind, line: usize, message: String) {
        self.validation.problems.push(Problem {
            kind,
            line,
            message,
        });
    }

    fn run(&mut self) {
        let mut reader = quick_xml::Reader::from_reader(self.xml);
        reader.config_mut().check_end_names = true;
        let mut buffer = Vec::new();
        loop {
            let event = match reader.read_event_into(&mut buffer) {
                Ok(event) => event,
                Err(error) => {
                    let line = self.lines.line_at(self.xml, reader.error_position());
                    self.problem(
                        ProblemKind::NotWellFormed,
                        line,
                        format!("not well-formed XML: {error}"),
                    );
                    return;
                }
            };
            let line = self.lines.line_at(self.xml, reader.buffer_position());
            match event {
                Event::Start(start) => self.open(&start, line),
                Event::Empty(start) => {
                    self.open(&start, line);
                    self.close(line);
                }
                Event::End(_) => self.close(line),
                Event::Text(text) => self.text.push_str(&text.into_inner()),
                Event::CData(data) => self.text.push_str(&data.into_inner()),
                Event::GeneralRef(reference) => {
                    let name = reference.into_inner();
                    match resolve_reference(&name) {
                        Some(character) => self.text.push(character),
                        None => self.problem(
                            ProblemKind::UnknownEntity,
                            line,
                            format!("unknown entity &{name};"),
                        ),
                    }
                }
                Event::Eof => break,
                _ => {}
            }
            buffer.clear();
        }
        if self.validation.kind.is_none() {
            self.problem(
                ProblemKind::NoRoot,
                1,
                "no <urlset> or <sitemapindex> root element".to_string(),
            );
        }
    }

    fn open(&mut self, start: &BytesStart<'_>, line: usize) {
        self.text.clear();
        let name = start.name();
        let local = start.local_name().as_ref().to_string();
        if name.prefix().is_some() {
            // An extension element (image:, xhtml:, news:, video:): allowed inside entries.
            if !matches!(self.stack.last(), Some(Some(parent)) if parent == "url")
                && !self.inside_extension()
            {
                self.problem(
                    ProblemKind::NotAllowed,
                    line,
                    format!("<{}> is not allowed here", start.name().as_ref()),
                );
            }
            self.stack.push(None);
            return;
        }
        let parent = self.stack.last().cloned();
        match (parent, local.as_str()) {
            (None, "urlset" | "sitemapindex") if self.stack.is_empty() => {
                self.validation.kind = Some(if local == "urlset" {
                    DocumentKind::UrlSet
                } else {
                    DocumentKind::Index
                });
                let namespace = start
                    .attributes()
                    .flatten()
                    .find(|attribute| attribute.key.as_ref() == "xmlns")
                    .map(|attribute| attribute.value.as_ref().to_string());
                if namespace.as_deref() != Some(NAMESPACE) {
                    self.problem(
                        ProblemKind::Namespace,
                        line,
                        format!("<{local}> must declare xmlns=\"{NAMESPACE}\", not {namespace:?}"),
                    );
                }
            }
            (None, other) if self.stack.is_empty() => {
                self.problem(
                    ProblemKind::WrongRoot,
                    line,
                    format!("the root element is <{other}>, not <urlset> or <sitemapindex>"),
                );
            }
            (Some(Some(parent)), "url") if parent == "urlset" => self.begin_entry(line),
            (Some(Some(parent)), "sitemap") if parent == "sitemapindex" => self.begin_entry(line),
            (Some(Some(parent)), "loc" | "lastmod") if parent == "url" || parent == "sitemap" => {}
            (Some(Some(parent)), "changefreq" | "priority") if parent == "url" => {}
            (Some(None), _) => {}
            (_, other) => self.problem(
                ProblemKind::NotAllowed,
                line,
                format!("<{other}> is not allowed here"),
            ),
        }
        self.stack.push(Some(local));
    }

    fn inside_extension(&self) -> bool {
        self.stack.iter().any(Option::is_none)
    }

    fn begin_entry(&mut self, line: usize) {
        self.validation.entries += 1;
        self.entry_fields.clear();
        if self.validation.entries == MAX_URLS_PER_FILE + 1 {
            self.problem(
                ProblemKind::TooManyEntries,
                line,
                format!("more than {MAX_URLS_PER_FILE} entries"),
            );
        }
    }

    fn close(&mut self, line: usize) {
        let Some(element) = self.stack.pop() else {
            return;
        };
        let Some(name) = element else {
            return;
        };
        let text = std::mem::take(&mut self.text);
        let value = text.trim();
        match name.as_str() {
            "loc" | "lastmod" | "changefreq" | "priority" => {
                if self.entry_fields.contains(&name) {
                    self.problem(
                        ProblemKind::RepeatedField,
                        line,
                        format!("<{name}> appears twice in one entry"),
                    );
                }
                self.entry_fields.push(name.clone());
                self.check_field(&name, value, line);
            }
            "url" | "sitemap" => {
                if !self.entry_fields.iter().any(|field| field == "loc") {
                    self.problem(
                        ProblemKind::MissingLoc,
                        line,
                        format!("<{name}> without <loc>"),
                    );
                }
                let order = ["loc", "lastmod", "changefreq", "priority"];
                let positions: Vec<usize> = self
                    .entry_fields
                    .iter()
                    .filter_map(|field| order.iter().position(|known| known == field))
                    .collect();
                if positions.windows(2).any(|pair| pair[0] > pair[1]) {
                    self.problem(
                        ProblemKind::FieldOrder,
                        line,
                        format!("the elements of <{name}> must come in the order loc, lastmod, changefreq, priority"),
                    );
                }
            }
            _ => {}
        }
    }

    fn check_field(&mut self, name: &str, value: &str, line: usize) {
        match name {
            "loc" => self.check_loc(value, line),
            "lastmod" => {
                let valid = W3C_DATETIME
                    .as_ref()
                    .is_some_and(|pattern| pattern.is_match(value));
                if !valid {
                    self.problem(
                        ProblemKind::Lastmod,
                        line,
                        format!(
                            "<lastmod> {value:?} is not a W3C Datetime (2024-01-02T03:04:05+00:00)"
                        ),
                    );
                }
            }
            "changefreq" => {
                if !CHANGEFREQS.contains(&value) {
                    self.problem(
                        ProblemKind::Changefreq,
                        line,
                        format!(
                            "<changefreq> {value:?} is not one of {}",
                            CHANGEFREQS.join(", ")
                        ),
                    );
                }
            }
            _ => {
                let valid = value
                    .parse::<f64>()
                    .is_ok_and(|priority| (0.0..=1.0).contains(&priority))
                    && !value.contains(['e', 'E', '+']);
                if !valid {
                    self.problem(
                        ProblemKind::Priority,
                        line,
                        format!("<priority> {value:?} is not a number from 0.0 to 1.0"),
                    );
                }
            }
        }
    }

    fn check_loc(&mut self, value: &str, line: usize) {
        if value.len() > MAX_URL_LENGTH {
            self.problem(
                ProblemKind::LocTooLong,
                line,
                format!(
                    "<loc> is {} characters long, more than {MAX_URL_LENGTH}",
                    value.len()
                ),
            );
        }
        let url = match Url::parse(value) {
            Ok(url) if matches!(url.scheme(), "http" | "https") => url,
            Ok(_) | Err(_) => {
                self.problem(
                    ProblemKind::LocNotAbsolute,
                    line,
                    format!("<loc> {value:?} is not an absolute http(s) URL"),
                );
                return;
            }
        };
        if self.validation.kind == Some(DocumentKind::Index) {
            self.validation.children.push(ChildSitemap {
                loc: value.to_string(),
                line,
            });
        }
        if let Some(directory) = &self.directory
            && (url.origin() != directory.origin() || !url.path().starts_with(directory.path()))
        {
            let message = format!("<loc> {value} is not under the sitemap's directory {directory}");
            self.problem(ProblemKind::LocOutsideDirectory, line, message);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn messages(xml: &str, location: Option<&str>) -> Vec<String> {
        let location =
            location.map(|text| Url::parse(text).unwrap_or_else(|error| panic!("{error}")));
        validate(xml.as_bytes(), location.as_ref())
            .problems
            .into_iter()
            .map(|problem| format!("{}: {}", problem.line, problem.message))
            .collect()
    }

    #[test]
    fn a_good_sitemap_and_index_pass() {
        let urlset = r#"<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">
  <url><loc>https://e.com/a?x=1&amp;y=2</loc><lastmod>2024-01-02</lastmod><changefreq>daily</changefreq><priority>0.8</priority>
    <image:image><image:loc>https://cdn.e.com/a.png</image:loc></image:image></url>
  <url><loc>https://e.com/b</loc><lastmod>2024-01-02T03:04:05.123+01:00</lastmod></url>
</urlset>"#;
        assert_eq!(
            messages(urlset, Some("https://e.com/sitemap.xml")),
            Vec::<String>::new()
        );
        let index = r#"<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
<sitemap><loc>https://e.com/s1.xml</loc></sitemap></sitemapindex>"#;
        let validation = validate(index.as_bytes(), None);
        assert!(validation.is_valid(), "{:?}", validation.problems);
        assert_eq!(
            validation.children,
            [ChildSitemap {
                loc: "https://e.com/s1.xml".to_string(),
                line: 2
            }]
        );
    }

    #[test]
    fn every_problem_has_its_line() {
        let xml = "<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">
<url><loc>/relative</loc></url>
<url><loc>https://other.com/x</loc><lastmod>yesterday</lastmod></url>
<url><loc>https://e.com/y</loc><changefreq>sometimes</changefreq><priority>1.5</priority></url>
<url><lastmod>2024-01-01</lastmod></url>
<url><loc>https://e.com/z</loc><priority>0.5</priority><lastmod>2024-01-01</lastmod></url>
<url><loc>https://e.com/w</loc><title>no</title></url>
</urlset>";
        assert_eq!(
            messages(xml, Some("https://e.com/sitemap.xml")),
            [
                "2: <loc> \"/relative\" is not an absolute http(s) URL",
                "3: <loc> https://other.com/x is not under the sitemap's directory https://e.com/",
                "3: <lastmod> \"yesterday\" is not a W3C Datetime (2024-01-02T03:04:05+00:00)",
                "4: <changefreq> \"sometimes\" is not one of always, hourly, daily, weekly, monthly, yearly, never",
                "4: <priority> \"1.5\" is not a number from 0.0 to 1.0",
                "5: <url> without <loc>",
                "6: the elements of <url> must come in the order loc, lastmod, changefreq, priority",
                "7: <title> is not allowed here",
            ]
        );
    }

    #[test]
    fn structure_namespace_and_escaping() {
        assert_eq!(
            messages(
                "<urlset><url><loc>https://e.com/</loc></url></urlset>",
                None
            ),
            [
                "1: <urlset> must declare xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\", not None"
            ]
        );
        assert_eq!(
            messages("<html/>", None)[0],
            "1: the root element is <html>, not <urlset> or <sitemapindex>"
        );
        let unescaped = "<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n<url><loc>https://e.com/?a=1&b=2</loc></url></urlset>";
        let problems = messages(unescaped, None);
        assert!(
            problems[0].starts_with("2: not well-formed XML"),
            "{problems:?}"
        );
    }

    #[test]
    fn every_problem_has_its_kind() {
        let xml = "<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">
<url><loc>https://e.com/a</loc><lastmod>yesterday</lastmod></url>
<url><loc>https://e.com/b</loc><lastmod>today</lastmod></url>
<url><loc>/relative</loc></url>
</urlset>";
        let kinds: Vec<(usize, ProblemKind)> = validate(xml.as_bytes(), None)
            .problems
            .into_iter()
            .map(|problem| (problem.line, problem.kind))
            .collect();
        assert_eq!(
            kinds,
            [
                (2, ProblemKind::Lastmod),
                (3, ProblemKind::Lastmod),
                (4, ProblemKind::LocNotAbsolute)
            ]
        );
    }

    proptest! {
        #[test]
        fn any_input_is_checked_without_panicking(bytes in proptest::collection::vec(any::<u8>(), 0..1024)) {
            let _ = validate(&bytes, None);
        }
    }
}
