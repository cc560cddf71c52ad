//! The news sitemap and video entries written beside the pages, validated against the schemas.

use jiff::{SignedDuration, Timestamp};

use crate::tests::{assert_valid, read};
use crate::*;

fn options(gzip: bool) -> WriteOptions {
    WriteOptions {
        limits: Limits::default(),
        gzip,
        base_url: "https://example.com/".to_string(),
        format: Format::Xml,
        images: false,
        alternates: false,
        videos: true,
        news: true,
    }
}

fn article(path: &str, hours_ago: i64, now: Timestamp) -> NewsEntry {
    NewsEntry {
        loc: format!("https://example.com{path}"),
        title: format!("Title of {path} & more"),
        language: "en".to_string(),
        publication_date: now - SignedDuration::from_hours(hours_ago),
    }
}

/// Writes `pages` (group, URL) with one video on the first, and `articles`; returns what was
/// written.
fn write_site(
    directory: &std::path::Path,
    options: &WriteOptions,
    pages: &[(&str, &str)],
    articles: Vec<NewsEntry>,
) -> Written {
    let videos = [VideoEntry {
        thumbnail_loc: "https://example.com/t.jpg".to_string(),
        title: "Launch".to_string(),
        description: "The launch, filmed".to_string(),
        content_loc: Some("https://example.com/launch.mp4".to_string()),
        player_loc: None,
        duration: Some(93),
        expiration_date: None,
        publication_date: Some("2024-05-01T00:00:00Z".parse().unwrap()),
    }];
    let entries: Vec<(&str, Entry<'_>)> = pages
        .iter()
        .enumerate()
        .map(|(index, &(group, loc))| {
            let videos: &[VideoEntry] = if index == 0 { &videos } else { &[] };
            (
                group,
                Entry {
                    videos,
                    ..Entry::new(loc, None)
                },
            )
        })
        .collect();
    let mut planner = Planner::new(options);
    for (group, entry) in &entries {
        planner.add(group, entry).unwrap();
    }
    let plan = planner.plan().unwrap();
    let mut order: Vec<usize> = (0..entries.len()).collect();
    order.sort_by_key(|&index| plan.placement()[index]);
    let mut writer = SitemapWriter::new(directory, options.clone(), &plan);
    for index in order {
        writer
            .push(plan.placement()[index], &entries[index].1)
            .unwrap();
    }
    if let Some(news) = write_news(directory, options, "The Example Times", articles).unwrap() {
        writer.add_news(news);
    }
    writer
        .finish()
        .unwrap()
        .write_index(|child| child.newest)
        .unwrap()
}

#[test]
fn news_makes_an_index_over_one_file_of_pages_and_every_file_validates() {
    let directory = tempfile::tempdir().unwrap();
    let now = Timestamp::from_second(1_780_000_000).unwrap();
    let written = write_site(
        directory.path(),
        &options(false),
        &[("", "https://example.com/"), ("", "https://example.com/a")],
        vec![article("/a", 30, now), article("/b", 2, now)],
    );
    assert!(written.is_index);
    assert_eq!(
        written.files,
        ["sitemap-00001.xml", "sitemap-news.xml", "sitemap.xml"]
    );
    assert_eq!(written.urls, 2, "the pages, not the articles");
    let news = read(&directory.path().join("sitemap-news.xml"));
    let newest_first = news.find("/b</loc>").unwrap() < news.find("/a</loc>").unwrap();
    assert!(newest_first, "{news}");
    assert!(news.contains(
        "      <news:publication>\n        <news:name>The Example Times</news:name>\n        <news:language>en</news:language>\n      </news:publication>\n      <news:publication_date>2026-05-28T18:26:40+00:00</news:publication_date>\n      <news:title>Title of /b &amp; more</news:title>\n"
    ), "{news}");
    let index = read(&directory.path().join("sitemap.xml"));
    assert!(
        index.contains("<loc>https://example.com/sitemap-news.xml</loc>"),
        "{index}"
    );
    let pages = read(&directory.path().join("sitemap-00001.xml"));
    assert!(
        pages.contains("xmlns:video=") && pages.contains("<video:duration>93</video:duration>"),
        "{pages}"
    );
    for name in &written.files {
        assert_valid(&directory.path().join(name));
    }
}

#[test]
fn no_article_writes_no_news_file_and_a_single_sitemap() {
    let directory = tempfile::tempdir().unwrap();
    let written = write_site(
        directory.path(),
        &options(false),
        &[("", "https://example.com/")],
        Vec::new(),
    );
    assert_eq!(written.files, ["sitemap.xml"]);
    assert!(!written.is_index);
}

#[test]
fn the_newest_thousand_are_kept_and_a_news_section_keeps_its_own_file() {
    let directory = tempfile::tempdir().unwrap();
    let now = Timestamp::from_second(1_780_000_000).unwrap();
    let articles: Vec<NewsEntry> = (0..1_005)
        .map(|minutes| NewsEntry {
            publication_date: now - SignedDuration::from_mins(minutes),
            ..article(&format!("/news/{minutes:04}"), 0, now)
        })
        .collect();
    let written = write_site(
        directory.path(),
        &options(true),
        &[
            ("", "https://example.com/"),
            ("news", "https://example.com/news/"),
        ],
        articles,
    );
    assert_eq!(
        written.files,
        [
            "sitemap-00001.xml.gz",
            "sitemap-news-pages.xml.gz",
            "sitemap-news.xml.gz",
            "sitemap.xml"
        ]
    );
    let news = written
        .children
        .iter()
        .find(|child| child.name == "sitemap-news.xml.gz");
    assert_eq!(news.map(|child| child.urls), Some(MAX_NEWS_ENTRIES as u64));
    let mut text = String::new();
    std::io::Read::read_to_string(
        &mut flate2::read::GzDecoder::new(
            std::fs::File::open(directory.path().join("sitemap-news.xml.gz")).unwrap(),
        ),
        &mut text,
    )
    .unwrap();
    assert!(text.contains("/news/0999</loc>") && !text.contains("/news/1000</loc>"));
}

#[test]
fn without_news_a_news_section_keeps_its_name() {
    let directory = tempfile::tempdir().unwrap();
    let options = WriteOptions {
        news: false,
        ..options(false)
    };
    let written = write_site(
        directory.path(),
        &options,
        &[("news", "https://example.com/news/")],
        Vec::new(),
    );
    assert_eq!(written.files, ["sitemap-news.xml", "sitemap.xml"]);
}
