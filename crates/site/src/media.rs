//! The videos and news articles a run's sitemaps carry, derived from the structured data
//! the crawl database keeps for each page (`sitemapper_extract::page_videos`,
//! `news_article`), with what was left out and why, for the summary.

use jiff::Timestamp;
use sitemapper_extract::{
    IncompleteVideo, NewsDecision, StructuredData, news_article, page_videos,
};
use sitemapper_sitemap::{NewsEntry, VideoEntry};
use sitemapper_store::{ListedPage, RunId, Store};

use crate::error::SiteError;
use crate::settings::{NewsSettings, SiteSettings};

/// The most videos left out that a report names; the rest are counted.
const MAX_NAMED: usize = 20;

/// What the run's sitemaps say of videos and news.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MediaReport {
    /// Video entries written, and on how many pages (`--video`).
    pub videos: u64,
    /// The pages with at least one video entry.
    pub video_pages: u64,
    /// The videos left out, counted.
    pub videos_left_out: u64,
    /// The first of them, with their page, in URL order.
    pub left_out: Vec<(String, IncompleteVideo)>,
    /// The news sitemap, when `--news` asked for one.
    pub news: Option<NewsReport>,
}

/// What became of the news sitemap.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NewsReport {
    /// The file written, when there was an article to list (none: none written, an
    /// earlier one removed).
    pub file: Option<String>,
    /// The articles it lists.
    pub articles: u64,
    /// Articles of the window beyond what one news sitemap holds (the oldest).
    pub cut: u64,
    /// Articles of the window left out for want of a language (`<html lang>` or
    /// `--news-language`).
    pub without_language: u64,
    /// Articles of the window left out for want of a title.
    pub without_title: u64,
}

impl MediaReport {
    /// Counts the videos of one page as written.
    pub(crate) fn add_page(&mut self, url: &str, videos: &PageEntries) {
        let written = videos.entries.len() as u64;
        self.videos += written;
        self.video_pages += u64::from(written > 0);
        for incomplete in &videos.incomplete {
            self.videos_left_out += 1;
            if self.left_out.len() < MAX_NAMED {
                self.left_out.push((url.to_string(), incomplete.clone()));
            }
        }
    }
}

/// The video entries of one page, and the videos it declares that cannot be entries.
#[derive(Debug, Default)]
pub(crate) struct PageEntries {
    pub(crate) entries: Vec<VideoEntry>,
    pub(crate) incomplete: Vec<IncompleteVideo>,
}

/// The structured data recorded for `url`, when it reads back.
fn structured_of(store: &Store, url: &str) -> Result<Option<StructuredData>, SiteError> {
    Ok(store
        .structured_of(url)?
        .as_deref()
        .and_then(StructuredData::from_json))
}

/// The video entries of the page `url`, their URLs as published (`--map-host`).
pub(crate) fn video_entries(
    store: &Store,
    settings: &SiteSettings,
    url: &str,
) -> Result<PageEntries, SiteError> {
    let Some(data) = structured_of(store, url)? else {
        return Ok(PageEntries::default());
    };
    if data.items_of("VideoObject").next().is_none() && data.videos.is_empty() {
        return Ok(PageEntries::default());
    }
    // The page's title and description stand in for what a <video> element lacks.
    let page = store.page(url)?;
    let title = page.as_ref().and_then(|page| page.title.as_deref());
    let description = page.as_ref().and_then(|page| page.description.as_deref());
    let videos = page_videos(&data, title, description);
    let host_map = &settings.crawl.host_map;
    let published = |url: &str| host_map.publish_text(url).into_owned();
    let entries = videos
        .complete
        .into_iter()
        .map(|video| VideoEntry {
            thumbnail_loc: published(&video.thumbnail),
            title: video.title,
            description: video.description,
            content_loc: video.content.as_deref().map(published),
            player_loc: video.player.as_deref().map(published),
            duration: video.duration,
            expiration_date: video.expires,
            publication_date: video.published,
        })
        .collect();
    Ok(PageEntries {
        entries,
        incomplete: videos.incomplete,
    })
}

/// The news entries of the pages `run` lists, at `now`, with what the report says of the
/// pages left out; the caller writes them.
pub(crate) fn news_entries(
    store: &Store,
    run: RunId,
    settings: &SiteSettings,
    news: &NewsSettings,
    now: Timestamp,
) -> Result<(Vec<NewsEntry>, NewsReport), SiteError> {
    let host_map = &settings.crawl.host_map;
    let mut entries = Vec::new();
    let mut report = NewsReport::default();
    store.for_each_listed(run, |page: ListedPage<'_>| -> Result<(), SiteError> {
        let Some(data) = structured_of(store, page.url)? else {
            return Ok(());
        };
        let decide = |title: Option<&str>| {
            news_article(&data, title, page.lang, news.language.as_deref(), now)
        };
        let mut decision = decide(None);
        if decision == NewsDecision::NoTitle {
            let title = store.page(page.url)?.and_then(|record| record.title);
            decision = decide(title.as_deref());
        }
        match decision {
            NewsDecision::Listed(article) => entries.push(NewsEntry {
                loc: host_map.publish_text(page.url).into_owned(),
                title: article.title,
                language: article.language,
                publication_date: article.published,
            }),
            NewsDecision::NoLanguage => report.without_language += 1,
            NewsDecision::NoTitle => report.without_title += 1,
            NewsDecision::NotAnArticle | NewsDecision::Undated | NewsDecision::OutsideWindow => {}
        }
        Ok(())
    })?;
    Ok((entries, report))
}

#[cfg(test)]
mod tests {
    use jiff::SignedDuration;
    use sitemapper_crawl::CrawlConfig;
    use sitemapper_extract::{Item, Source, Value, VideoElement, VideoField};
    use sitemapper_store::{PageDetails, PageRecord, Verdict};

    use super::*;
    use crate::output_target::OutputTarget;

    fn listed(url: &str, lang: Option<&str>, data: &StructuredData) -> PageRecord {
        PageRecord {
            depth: 1,
            title: Some("Page title".to_string()),
            description: Some("Page description".to_string()),
            structured: Some(data.to_json()),
            details: Some(PageDetails {
                lang: lang.map(str::to_string),
                ..PageDetails::default()
            }),
            ..PageRecord::new(url, Verdict::Indexable)
        }
    }

    fn article(published: Timestamp) -> StructuredData {
        StructuredData {
            items: vec![Item {
                types: vec!["NewsArticle".to_string()],
                source: Source::JsonLd,
                properties: vec![(
                    "datePublished".to_string(),
                    Value::Text(published.to_string()),
                )],
            }],
            ..StructuredData::default()
        }
    }

    #[test]
    fn entries_come_from_the_structured_data_the_store_keeps() {
        let directory = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
        let mut store = Store::open(&directory.path().join("crawl.db"))
            .unwrap_or_else(|error| panic!("{error}"));
        let run = store
            .begin_run("https://e.com/")
            .unwrap_or_else(|error| panic!("{error}"));
        let now = Timestamp::now();
        let hour = SignedDuration::from_hours(1);
        let videos = StructuredData {
            videos: vec![
                VideoElement {
                    poster: "https://e.com/a.jpg".to_string(),
                    src: Some("https://e.com/a.mp4".to_string()),
                    title: None,
                },
                VideoElement {
                    poster: "https://e.com/b.jpg".to_string(),
                    src: None,
                    title: Some("B".to_string()),
                },
            ],
            ..StructuredData::default()
        };
        store
            .record_pages(
                run,
                &[
                    listed("https://e.com/new", Some("en-GB"), &article(now - hour)),
                    listed("https://e.com/old", Some("en"), &article(now - 49 * hour)),
                    listed("https://e.com/unsaid", None, &article(now - hour)),
                    listed("https://e.com/videos", Some("en"), &videos),
                ],
            )
            .unwrap_or_else(|error| panic!("{error}"));
        let settings = SiteSettings::new(
            "https://e.com/",
            OutputTarget::Stdout,
            CrawlConfig::default(),
        );
        let news = NewsSettings {
            publication: "E".to_string(),
            language: None,
        };

        let (entries, report) = news_entries(&store, run, &settings, &news, now)
            .unwrap_or_else(|error| panic!("{error}"));
        let found: Vec<(&str, &str, &str)> = entries
            .iter()
            .map(|entry| {
                (
                    entry.loc.as_str(),
                    entry.title.as_str(),
                    entry.language.as_str(),
                )
            })
            .collect();
        assert_eq!(found, [("https://e.com/new", "Page title", "en")]);
        assert_eq!(report.without_language, 1);

        let page = video_entries(&store, &settings, "https://e.com/videos")
            .unwrap_or_else(|error| panic!("{error}"));
        let titles: Vec<(&str, &str)> = page
            .entries
            .iter()
            .map(|video| (video.title.as_str(), video.description.as_str()))
            .collect();
        assert_eq!(titles, [("Page title", "Page description")]);
        assert_eq!(page.incomplete[0].missing, [VideoField::Location]);
        let none = video_entries(&store, &settings, "https://e.com/new")
            .unwrap_or_else(|error| panic!("{error}"));
        assert!(none.entries.is_empty() && none.incomplete.is_empty());
    }
}
