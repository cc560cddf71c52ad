//! A page's news article, as a news sitemap describes it (Google, "News sitemaps"): an
//! article published in the last two days, its title, and its language. The article is
//! the first `Article` item (or a kind of one: `NewsArticle`, `BlogPosting`, ...) whose
//! `datePublished`, else the page's `article:published_time`, is a time within the window.

use jiff::{SignedDuration, Timestamp};

use crate::media::parse_time;
use crate::structured::StructuredData;

/// How far back an article may have been published: Google News reads articles of the
/// last two days.
pub const NEWS_WINDOW: SignedDuration = SignedDuration::from_hours(48);

/// How far ahead of the run's clock a publication time may be and still count: clocks
/// differ a little.
pub const NEWS_CLOCK_TOLERANCE: SignedDuration = SignedDuration::from_mins(10);

/// The schema.org types read as articles.
pub const ARTICLE_TYPES: &[&str] = &[
    "Article",
    "NewsArticle",
    "BlogPosting",
    "LiveBlogPosting",
    "ReportageNewsArticle",
    "AnalysisNewsArticle",
    "OpinionNewsArticle",
    "BackgroundNewsArticle",
    "ReviewNewsArticle",
    "SatiricalArticle",
];

/// An article the news sitemap lists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewsArticle {
    /// `headline`, else the page's `<title>`, whitespace collapsed.
    pub title: String,
    /// The language as Google writes it (see [`news_language`]).
    pub language: String,
    /// When it was published.
    pub published: Timestamp,
}

/// What a page is to the news sitemap.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NewsDecision {
    /// An article of the window: listed.
    Listed(NewsArticle),
    /// No article item.
    NotAnArticle,
    /// Articles, none with a publication time that parses.
    Undated,
    /// Articles published before the window (or too far ahead of the clock).
    OutsideWindow,
    /// An article of the window with no title: neither `headline` nor `<title>`.
    NoTitle,
    /// An article of the window whose language is unknown: no usable `lang`, no default.
    NoLanguage,
}

/// What the news sitemap makes of a page whose `<title>` is `title` and `<html lang>` is
/// `lang`, at `now`; `default_language` is the site's (`--news-language`).
pub fn news_article(
    data: &StructuredData,
    title: Option<&str>,
    lang: Option<&str>,
    default_language: Option<&str>,
    now: Timestamp,
) -> NewsDecision {
    let mut articles = data
        .all_items()
        .into_iter()
        .filter(|item| ARTICLE_TYPES.iter().any(|kind| item.is_a(kind)))
        .peekable();
    if articles.peek().is_none() {
        return NewsDecision::NotAnArticle;
    }
    let earliest = now - NEWS_WINDOW;
    let latest = now + NEWS_CLOCK_TOLERANCE;
    let mut dated = false;
    for article in articles {
        let published = article
            .text("datePublished")
            .and_then(parse_time)
            .or_else(|| data.published_time.as_deref().and_then(parse_time));
        let Some(published) = published else {
            continue;
        };
        dated = true;
        if published < earliest || published > latest {
            continue;
        }
        let title = article
            .text("headline")
            .or(title)
            .map(|text| text.split_whitespace().collect::<Vec<_>>().join(" "))
            .filter(|text| !text.is_empty());
        let Some(title) = title else {
            return NewsDecision::NoTitle;
        };
        let Some(language) = lang
            .and_then(news_language)
            .or_else(|| default_language.and_then(news_language))
        else {
            return NewsDecision::NoLanguage;
        };
        return NewsDecision::Listed(NewsArticle {
            title,
            language,
            published,
        });
    }
    if dated {
        NewsDecision::OutsideWindow
    } else {
        NewsDecision::Undated
    }
}

/// A language tag (`en-GB`, `zh-TW`, `pt`) as a news sitemap writes it: the primary ISO 639
/// subtag in lower case, except `zh-cn` and `zh-tw`, which Google keeps; `None` when the
/// primary subtag is not two or three letters.
pub fn news_language(tag: &str) -> Option<String> {
    let tag = tag.trim().to_ascii_lowercase().replace('_', "-");
    if tag == "zh-cn" || tag == "zh-tw" {
        return Some(tag);
    }
    let primary = tag.split('-').next()?;
    ((2..=3).contains(&primary.len()) && primary.bytes().all(|byte| byte.is_ascii_lowercase()))
        .then(|| primary.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::structured::{Item, Source, Value};

    fn article(kind: &str, properties: &[(&str, &str)]) -> Item {
        Item {
            types: vec![kind.to_string()],
            source: Source::JsonLd,
            properties: properties
                .iter()
                .map(|(name, value)| (name.to_string(), Value::Text(value.to_string())))
                .collect(),
        }
    }

    fn data(items: Vec<Item>, published_time: Option<&str>) -> StructuredData {
        StructuredData {
            items,
            published_time: published_time.map(str::to_string),
            ..StructuredData::default()
        }
    }

    const NOW: &str = "2026-03-10T12:00:00Z";

    fn decide(data: &StructuredData, lang: Option<&str>) -> NewsDecision {
        news_article(data, Some("Page title"), lang, None, NOW.parse().unwrap())
    }

    #[test]
    fn an_article_of_the_window_is_listed_with_its_headline_and_language() {
        let page = data(
            vec![
                article("WebPage", &[("datePublished", "2026-03-10T08:00:00Z")]),
                article(
                    "NewsArticle",
                    &[
                        ("headline", " Moon  landing "),
                        ("datePublished", "2026-03-09T14:00:00+02:00"),
                    ],
                ),
            ],
            None,
        );
        assert_eq!(
            decide(&page, Some("en-GB")),
            NewsDecision::Listed(NewsArticle {
                title: "Moon landing".to_string(),
                language: "en".to_string(),
                published: "2026-03-09T12:00:00Z".parse().unwrap(),
            })
        );
    }

    #[test]
    fn the_page_title_and_published_time_fill_in_and_the_window_is_two_days() {
        let page = data(vec![article("Article", &[])], Some("2026-03-08T12:30:00Z"));
        assert!(matches!(
            decide(&page, Some("zh-TW")),
            NewsDecision::Listed(NewsArticle { ref title, ref language, .. })
                if title == "Page title" && language == "zh-tw"
        ));
        let old = data(
            vec![article(
                "Article",
                &[("datePublished", "2026-03-08T11:59:00Z")],
            )],
            None,
        );
        assert_eq!(decide(&old, Some("en")), NewsDecision::OutsideWindow);
        let ahead = data(
            vec![article(
                "Article",
                &[("datePublished", "2026-03-10T13:00:00Z")],
            )],
            None,
        );
        assert_eq!(decide(&ahead, Some("en")), NewsDecision::OutsideWindow);
        let undated = data(
            vec![article("BlogPosting", &[("datePublished", "yesterday")])],
            None,
        );
        assert_eq!(decide(&undated, Some("en")), NewsDecision::Undated);
        assert_eq!(
            decide(&data(Vec::new(), Some(NOW)), Some("en")),
            NewsDecision::NotAnArticle
        );
    }

    #[test]
    fn without_a_language_the_default_is_taken_else_the_page_is_left_out() {
        let page = data(
            vec![article("Article", &[("datePublished", "2026-03-10")])],
            None,
        );
        assert_eq!(decide(&page, None), NewsDecision::NoLanguage);
        assert_eq!(decide(&page, Some("x")), NewsDecision::NoLanguage);
        let with_default = news_article(&page, None, None, Some("de-AT"), NOW.parse().unwrap());
        assert!(matches!(with_default, NewsDecision::NoTitle));
        let with_default =
            news_article(&page, Some("T"), None, Some("de-AT"), NOW.parse().unwrap());
        assert!(matches!(
            with_default,
            NewsDecision::Listed(NewsArticle { ref language, .. }) if language == "de"
        ));
    }

    #[test]
    fn languages_take_google_s_form() {
        for (tag, expected) in [
            ("en", Some("en")),
            ("EN-us", Some("en")),
            ("zh-CN", Some("zh-cn")),
            ("zh_TW", Some("zh-tw")),
            ("zh-Hans", Some("zh")),
            ("fil", Some("fil")),
            ("english", None),
            ("", None),
            ("e1", None),
        ] {
            assert_eq!(news_language(tag).as_deref(), expected, "{tag}");
        }
    }
}
