//! `--split-by`: which group (and so which sitemap file) each listed URL belongs to. By
//! section (the first path segment below the scope's directory that has pages beneath it),
//! by the user's patterns (`NAME=REGEX`, first match wins), or by the page's language. What
//! belongs to no group goes into `other`.

use std::collections::HashSet;

use regex::Regex;
use url::Url;

use crate::plan::file_safe_name;

/// The group of the URLs no rule claims.
pub const OTHER: &str = "other";

/// Why a `--split-by` value cannot be used; the text names the value and says what to give.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SplitRuleError {
    /// Neither `section`, `language` nor `NAME=REGEX`, or one of the first two combined.
    #[error(
        "--split-by {0:?}: give section, language, or NAME=REGEX (repeatable); section and language cannot be combined with other values"
    )]
    Unknown(String),
    /// A name that cannot name a file: the value, and the name made safe (or `NAME`).
    #[error(
        "--split-by {value:?}: the name must be lower-case letters, digits and single hyphens, not ending in -digits (it names sitemap-{safe}.xml)"
    )]
    UnsafeName {
        /// The value as given.
        value: String,
        /// What the name would be made into.
        safe: String,
    },
    /// The name of the group of URLs no pattern matches.
    #[error(
        "--split-by {0:?}: \"{OTHER}\" is the group of URLs no pattern matches; choose another name"
    )]
    ReservedName(String),
    /// A name given twice.
    #[error("--split-by {value:?}: the name {name} is given twice")]
    RepeatedName {
        /// The value as given.
        value: String,
        /// The name.
        name: String,
    },
    /// A pattern that is not a regular expression.
    #[error("--split-by {value:?}: {message}")]
    Pattern {
        /// The value as given.
        value: String,
        /// What the regular expression parser said.
        message: String,
    },
}

/// How the listed URLs are split into sitemap files.
#[derive(Debug, Clone, Default)]
pub enum SplitRule {
    /// One group: files by count and size only.
    #[default]
    None,
    /// By the first path segment below the scope's directory.
    Section,
    /// By the page's language: its own `hreflang` alternate, else `<html lang>`.
    Language,
    /// By the first pattern the URL matches.
    Patterns(Vec<(String, Regex)>),
}

impl SplitRule {
    /// Reads the `--split-by` values: `section`, `language`, or any number of `NAME=REGEX`.
    pub fn parse(values: &[String]) -> Result<SplitRule, SplitRuleError> {
        match values {
            [] => return Ok(SplitRule::None),
            [only] if only == "section" => return Ok(SplitRule::Section),
            [only] if only == "language" => return Ok(SplitRule::Language),
            _ => {}
        }
        let mut patterns: Vec<(String, Regex)> = Vec::new();
        for value in values {
            let Some((name, pattern)) = value.split_once('=') else {
                return Err(SplitRuleError::Unknown(value.clone()));
            };
            let safe = file_safe_name(name);
            if safe != name || name.is_empty() {
                return Err(SplitRuleError::UnsafeName {
                    value: value.clone(),
                    safe: if safe.is_empty() {
                        "NAME".to_string()
                    } else {
                        safe
                    },
                });
            }
            if name == OTHER {
                return Err(SplitRuleError::ReservedName(value.clone()));
            }
            if patterns.iter().any(|(known, _)| known == name) {
                return Err(SplitRuleError::RepeatedName {
                    value: value.clone(),
                    name: name.to_string(),
                });
            }
            let regex = Regex::new(pattern).map_err(|error| SplitRuleError::Pattern {
                value: value.clone(),
                message: error.to_string(),
            })?;
            patterns.push((name.to_string(), regex));
        }
        Ok(SplitRule::Patterns(patterns))
    }

    /// Whether the rule needs the pages' `<html lang>` recorded.
    pub fn needs_language(&self) -> bool {
        matches!(self, SplitRule::Language)
    }
}

/// Gives each listed URL its group, once the sections of the site are known.
#[derive(Debug)]
pub struct Grouping<'a> {
    rule: &'a SplitRule,
    /// The scope's directory: sections are the segments below it.
    root_path: String,
    sections: HashSet<String>,
}

impl<'a> Grouping<'a> {
    /// A grouping by `rule` of URLs under `scope_root`.
    pub fn new(rule: &'a SplitRule, scope_root: &Url) -> Grouping<'a> {
        Grouping {
            rule,
            root_path: scope_root.path().to_string(),
            sections: HashSet::new(),
        }
    }

    /// Whether the sections must be learned from every listed URL before any is grouped.
    pub fn needs_sections(&self) -> bool {
        matches!(self.rule, SplitRule::Section)
    }

    /// Learns from one listed URL: a first segment with a page beneath it is a section.
    pub fn learn(&mut self, url: &str) {
        if let Some((segment, true)) = self.first_segment(url) {
            self.sections.insert(segment.to_string());
        }
    }

    /// The group of a listed URL: a name for its files, made safe by the writer.
    pub fn group_of<'u>(&self, url: &'u str, language: Option<&'u str>) -> &'u str
    where
        'a: 'u,
    {
        match self.rule {
            SplitRule::None => "",
            SplitRule::Section => match self.first_segment(url) {
                Some((segment, _)) if self.sections.contains(segment) => segment,
                _ => OTHER,
            },
            SplitRule::Language => language
                .map(str::trim)
                .filter(|language| !language.is_empty())
                .unwrap_or(OTHER),
            SplitRule::Patterns(patterns) => patterns
                .iter()
                .find(|(_, regex)| regex.is_match(url))
                .map_or(OTHER, |(name, _)| name.as_str()),
        }
    }

    /// The first path segment of `url` below the scope's directory, as written, and whether
    /// a page lies beneath it (`/blog/` or `/blog/post`, not `/blog`).
    fn first_segment<'u>(&self, url: &'u str) -> Option<(&'u str, bool)> {
        let after_scheme = url.split_once("://")?.1;
        let path_start = after_scheme.find('/')?;
        let path = &after_scheme[path_start..];
        let path = path.split(['?', '#']).next().unwrap_or(path);
        let below = path.strip_prefix(self.root_path.as_str())?;
        let (segment, beneath) = match below.split_once('/') {
            Some((segment, _)) => (segment, true),
            None => (below, false),
        };
        (!segment.is_empty()).then_some((segment, beneath))
    }
}

/// The language of a page for `--split-by language`: the `hreflang` of its alternate that
/// points at itself, else its `<html lang>`.
pub fn page_language<'a>(
    url: &str,
    alternates: &'a [(String, String)],
    html_lang: Option<&'a str>,
) -> Option<&'a str> {
    alternates
        .iter()
        .find(|(hreflang, href)| href == url && !hreflang.eq_ignore_ascii_case("x-default"))
        .map(|(hreflang, _)| hreflang.as_str())
        .or(html_lang)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(values: &[&str]) -> Result<SplitRule, SplitRuleError> {
        SplitRule::parse(
            &values
                .iter()
                .map(|value| value.to_string())
                .collect::<Vec<_>>(),
        )
    }

    #[test]
    fn values_are_checked_with_a_clear_message() {
        assert!(matches!(rule(&[]), Ok(SplitRule::None)));
        assert!(matches!(rule(&["section"]), Ok(SplitRule::Section)));
        assert!(matches!(rule(&["language"]), Ok(SplitRule::Language)));
        assert!(
            matches!(rule(&["blog=^/blog/", "shop=/shop/"]), Ok(SplitRule::Patterns(p)) if p.len() == 2)
        );
        for (values, expected) in [
            (
                &["section", "blog=x"][..],
                "give section, language, or NAME=REGEX",
            ),
            (&["Blog=x"][..], "lower-case"),
            (&["news-2024=x"][..], "not ending in -digits"),
            (&["other=x"][..], "\"other\" is the group"),
            (&["a=x", "a=y"][..], "given twice"),
            (&["a=("][..], "regex parse error"),
            (&["weird"][..], "give section, language"),
        ] {
            let error = rule(values).unwrap_err().to_string();
            assert!(error.contains(expected), "{values:?}: {error}");
            assert!(
                !error.contains('\n') || expected.contains("regex"),
                "{error}"
            );
        }
    }

    #[test]
    fn sections_are_first_segments_with_pages_beneath() {
        let section = SplitRule::Section;
        let root = Url::parse("https://example.com/").unwrap();
        let mut grouping = Grouping::new(&section, &root);
        let urls = [
            "https://example.com/",
            "https://example.com/about",
            "https://example.com/blog",
            "https://example.com/blog/",
            "https://example.com/blog/first?page=2",
            "https://example.com/products/a/b",
            "https://example.com/contact.html",
        ];
        for url in urls {
            grouping.learn(url);
        }
        let groups: Vec<&str> = urls
            .iter()
            .map(|url| grouping.group_of(url, None))
            .collect();
        assert_eq!(
            groups,
            [
                "other", "other", "blog", "blog", "blog", "products", "other"
            ]
        );

        let below = Url::parse("https://example.com/docs/").unwrap();
        let mut grouping = Grouping::new(&section, &below);
        grouping.learn("https://example.com/docs/guide/intro");
        assert_eq!(
            grouping.group_of("https://example.com/docs/guide/intro", None),
            "guide"
        );
        assert_eq!(
            grouping.group_of("https://example.com/docs/", None),
            "other"
        );
    }

    #[test]
    fn patterns_first_match_wins_and_languages_prefer_the_page_own_hreflang() {
        let patterns = rule(&["docs=/docs/", "all=."]).unwrap();
        let root = Url::parse("https://example.com/").unwrap();
        let grouping = Grouping::new(&patterns, &root);
        assert_eq!(
            grouping.group_of("https://example.com/docs/a", None),
            "docs"
        );
        assert_eq!(grouping.group_of("https://example.com/x", None), "all");
        let only_docs = rule(&["docs=/docs/"]).unwrap();
        let grouping = Grouping::new(&only_docs, &root);
        assert_eq!(grouping.group_of("https://example.com/x", None), "other");

        let url = "https://example.com/de/";
        let alternates = vec![
            ("x-default".to_string(), url.to_string()),
            ("de-AT".to_string(), url.to_string()),
            ("en".to_string(), "https://example.com/en/".to_string()),
        ];
        assert_eq!(page_language(url, &alternates, Some("de")), Some("de-AT"));
        assert_eq!(page_language(url, &[], Some("de")), Some("de"));
        let language = SplitRule::Language;
        let grouping = Grouping::new(&language, &root);
        assert_eq!(grouping.group_of(url, None), "other");
        assert_eq!(grouping.group_of(url, Some(" ")), "other");
    }
}
