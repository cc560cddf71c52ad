//! The news sitemap (`--news NAME`): the articles of the last 48 hours (dated relative to
//! now) in sitemap-news.xml, listed by the sitemap.xml index, in a file of its own under
//! `--split-by`, removed when no article is recent; every file validates against the
//! schemas.

use std::collections::BTreeSet;
use std::path::Path;

use jiff::{SignedDuration, Timestamp};

use crate::fixture::{Server, Site};
use crate::harness::{crawl, locs, read_sitemap, summary_json};
use crate::schema::assert_all_valid;

const PUBLICATION: &str = "The Fixture Times";

/// Now less `hours`, as RFC 3339.
fn hours_ago(hours: i64) -> String {
    (Timestamp::now() - SignedDuration::from_hours(hours)).to_string()
}

fn json_ld(kind: &str, properties: &str) -> String {
    format!(
        r#"<script type="application/ld+json">{{"@context": "https://schema.org", "@type": "{kind}"{properties}}}</script>"#
    )
}

/// A news site: articles of 2, 5, 10, 30 and 72 hours ago, one in microdata, one dated only
/// by `article:published_time`, one without `lang`; and `/about`, no article.
fn news_site() -> Site {
    let fresh = format!(
        r#"<html lang="en-GB"><head><title>Fresh | Times</title>{}</head><body>Fresh.</body></html>"#,
        json_ld(
            "NewsArticle",
            &format!(
                r#", "headline": "Fresh news", "datePublished": "{}""#,
                hours_ago(2)
            )
        )
    );
    let day_old = format!(
        r#"<html lang="de"><head><title>Gestern</title>{}</head><body>Gestern.</body></html>"#,
        json_ld(
            "Article",
            &format!(
                r#", "headline": "Von gestern", "datePublished": "{}""#,
                hours_ago(30)
            )
        )
    );
    let old = format!(
        r#"<html lang="en"><head><title>Old</title>{}</head><body>Old.</body></html>"#,
        json_ld(
            "NewsArticle",
            &format!(
                r#", "headline": "Old news", "datePublished": "{}""#,
                hours_ago(72)
            )
        )
    );
    let microdata = format!(
        r#"<html lang="fr"><head><title>Micro</title></head><body>
        <article itemscope itemtype="https://schema.org/NewsArticle">
          <h1 itemprop="headline">Nouvelles du jour</h1>
          <time itemprop="datePublished" datetime="{}">ce matin</time>
        </article></body></html>"#,
        hours_ago(5)
    );
    let meta_only = format!(
        r#"<html lang="es"><head><title>Solo meta</title>
        <meta property="article:published_time" content="{}">{}</head><body>Meta.</body></html>"#,
        hours_ago(10),
        json_ld("Article", "")
    );
    let no_lang = format!(
        r#"<html><head><title>No language</title>{}</head><body>?</body></html>"#,
        json_ld(
            "NewsArticle",
            &format!(
                r#", "headline": "Where from", "datePublished": "{}""#,
                hours_ago(1)
            )
        )
    );
    Site::new()
        .page(
            "/",
            r#"<html lang="en"><head><title>Times</title></head><body>
            <a href="/news/fresh">1</a> <a href="/news/day-old">2</a> <a href="/news/old">3</a>
            <a href="/news/micro">4</a> <a href="/news/meta-only">5</a>
            <a href="/news/no-lang">6</a> <a href="/about">About</a></body></html>"#,
        )
        .page("/news/fresh", &fresh)
        .page("/news/day-old", &day_old)
        .page("/news/old", &old)
        .page("/news/micro", &microdata)
        .page("/news/meta-only", &meta_only)
        .page("/news/no-lang", &no_lang)
        .page(
            "/about",
            r#"<html lang="en"><head><title>About</title></head><body>Us.</body></html>"#,
        )
}

/// `(path, language, title)` of each entry of the news sitemap `file` in `out`, checking
/// the publication's name on each.
fn articles(server: &Server, out: &Path, file: &str) -> BTreeSet<(String, String, String)> {
    let xml = read_sitemap(&out.join(file));
    let between = |text: &str, open: &str, close: &str| -> String {
        let start = text
            .find(open)
            .map(|at| at + open.len())
            .unwrap_or_default();
        let end = text[start..].find(close).map_or(start, |at| start + at);
        text[start..end].to_string()
    };
    xml.split("<url>")
        .skip(1)
        .map(|url| {
            assert_eq!(between(url, "<news:name>", "</news:name>"), PUBLICATION);
            (
                between(url, "<loc>", "</loc>")
                    .trim_start_matches(&server.origin())
                    .to_string(),
                between(url, "<news:language>", "</news:language>"),
                between(url, "<news:title>", "</news:title>"),
            )
        })
        .collect()
}

fn article(path: &str, language: &str, title: &str) -> (String, String, String) {
    (path.to_string(), language.to_string(), title.to_string())
}

fn recent() -> BTreeSet<(String, String, String)> {
    BTreeSet::from([
        article("/news/fresh", "en", "Fresh news"),
        article("/news/day-old", "de", "Von gestern"),
        article("/news/micro", "fr", "Nouvelles du jour"),
        article("/news/meta-only", "es", "Solo meta"),
    ])
}

#[test]
fn the_news_sitemap_lists_the_articles_of_the_last_two_days() {
    let server = news_site().serve();
    let out = tempfile::tempdir().unwrap();
    let run = crawl(&server.url("/"), out.path(), &["--news", PUBLICATION]);
    run.assert_success();
    assert_eq!(articles(&server, out.path(), "sitemap-news.xml"), recent());
    let index = read_sitemap(&out.path().join("sitemap.xml"));
    assert!(
        index.contains("<sitemapindex"),
        "the index exists for the news: {index}"
    );
    assert_eq!(
        locs(&index),
        [
            server.url("/sitemap-00001.xml"),
            server.url("/sitemap-news.xml")
        ]
    );
    let pages = locs(&read_sitemap(&out.path().join("sitemap-00001.xml")));
    assert_eq!(
        pages.len(),
        8,
        "every page stays in the pages' file: {pages:?}"
    );
    assert!(
        run.stderr.contains(
            "News: 4 articles in sitemap-news.xml; 1 article left out without a language"
        ),
        "{}",
        run.stderr
    );
    assert_all_valid(out.path());

    let with_language = tempfile::tempdir().unwrap();
    let args = [
        "--news",
        PUBLICATION,
        "--news-language",
        "en-US",
        "--summary",
        "json",
    ];
    let json = summary_json(&crawl(&server.url("/"), with_language.path(), &args));
    let mut expected = recent();
    expected.insert(article("/news/no-lang", "en", "Where from"));
    assert_eq!(
        articles(&server, with_language.path(), "sitemap-news.xml"),
        expected
    );
    assert_eq!(json["news"]["articles"], 5, "{json}");
    assert_eq!(json["news"]["without_language"], 0, "{json}");
}

#[test]
fn split_output_keeps_the_news_in_its_own_file() {
    let server = news_site().serve();
    let out = tempfile::tempdir().unwrap();
    crawl(
        &server.url("/"),
        out.path(),
        &["--news", PUBLICATION, "--split-by", "section", "--gzip"],
    )
    .assert_success();
    let index = locs(&read_sitemap(&out.path().join("sitemap.xml")));
    assert!(
        index.contains(&server.url("/sitemap-news.xml.gz"))
            && index.contains(&server.url("/sitemap-news-pages.xml.gz")),
        "{index:?}"
    );
    assert_eq!(
        articles(&server, out.path(), "sitemap-news.xml.gz"),
        recent()
    );
    let section = locs(&read_sitemap(&out.path().join("sitemap-news-pages.xml.gz")));
    assert_eq!(
        section.len(),
        6,
        "the section's pages, all of them: {section:?}"
    );
    assert_all_valid(out.path());
}

#[test]
fn with_no_recent_article_the_news_sitemap_is_removed() {
    let server = news_site().serve();
    let out = tempfile::tempdir().unwrap();
    crawl(&server.url("/"), out.path(), &["--news", PUBLICATION]).assert_success();
    assert!(out.path().join("sitemap-news.xml").is_file());

    server.change(
        Site::new()
            .page("/", r#"<html lang="en"><a href="/news/old">Old</a></html>"#)
            .page(
                "/news/old",
                &format!(
                    r#"<html lang="en"><head><title>Old</title>{}</head></html>"#,
                    json_ld(
                        "NewsArticle",
                        &format!(r#", "datePublished": "{}""#, hours_ago(49))
                    )
                ),
            ),
    );
    let run = crawl(&server.url("/"), out.path(), &["--news", PUBLICATION]);
    run.assert_success();
    assert!(
        !out.path().join("sitemap-news.xml").exists(),
        "{}",
        run.stderr
    );
    let root = read_sitemap(&out.path().join("sitemap.xml"));
    assert!(root.contains("<urlset"), "one file of pages again: {root}");
    assert!(
        run.stderr
            .contains("News: no article published in the last 48 hours"),
        "{}",
        run.stderr
    );
    assert_all_valid(out.path());
}

#[test]
fn news_options_that_cannot_work_are_usage_errors_before_any_request() {
    let server = news_site().serve();
    let out = tempfile::tempdir().unwrap();
    for (args, says) in [
        (vec!["--news-language", "en"], "give --news NAME too"),
        (
            vec!["--news", PUBLICATION, "--news-language", "english"],
            "is not a language code",
        ),
        (vec!["--news", "  "], "needs the publication's name"),
        (
            vec!["--news", PUBLICATION, "--format", "txt"],
            "add xml to --format",
        ),
    ] {
        let run = crawl(&server.url("/"), out.path(), &args);
        assert_eq!(run.code, 2, "{args:?}: {}", run.stderr);
        assert!(run.stderr.contains(says), "{args:?}: {}", run.stderr);
    }
    let run = crate::harness::sitemapper(&["crawl", &server.url("/"), "--out", "-", "--news", "T"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("--news writes sitemap-news.xml too"),
        "{}",
        run.stderr
    );
    assert!(server.requests().is_empty(), "no request was made");
}
