//! A page's videos, as a video sitemap describes them, derived from what the page declares
//! (Google, "Video sitemaps": thumbnail, title, description, and the video file or a player
//! are required). A `VideoObject` item (JSON-LD or microdata) is read first; a page whose
//! structured data describes no video falls back on its `<video poster>` elements, titled by
//! their `title` attribute or the page's `<title>` and described by its meta description.
//! A video missing what the protocol requires is returned with what it lacks, for the
//! audit and the summary to say: it is not written.

use jiff::Timestamp;
use jiff::civil::{Date, DateTime};
use jiff::{Span, SpanTotal, Unit};

use crate::structured::{Item, StructuredData, Value, VideoElement};

/// One video of a page, complete: every URL absolute http(s).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Video {
    /// The thumbnail image.
    pub thumbnail: String,
    /// The title.
    pub title: String,
    /// The description.
    pub description: String,
    /// The video file itself.
    pub content: Option<String>,
    /// A player for it.
    pub player: Option<String>,
    /// Its length in whole seconds, when declared and within 1 to 28,800.
    pub duration: Option<u32>,
    /// When it was uploaded (`uploadDate`).
    pub published: Option<Timestamp>,
    /// When it stops being available (`expires`).
    pub expires: Option<Timestamp>,
}

/// What a video entry needs and a declared video lacks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum VideoField {
    /// `thumbnailUrl` (or a `<video>`'s `poster`), as an absolute http(s) URL.
    Thumbnail,
    /// `name` (or a title).
    Title,
    /// `description` (or the page's meta description).
    Description,
    /// `contentUrl` or `embedUrl` (or a `<video>`'s `src`), as an absolute http(s) URL.
    Location,
}

impl VideoField {
    /// The sitemap element it fills: `thumbnail_loc`.
    pub fn element(self) -> &'static str {
        match self {
            VideoField::Thumbnail => "thumbnail_loc",
            VideoField::Title => "title",
            VideoField::Description => "description",
            VideoField::Location => "content_loc or player_loc",
        }
    }
}

/// Where a video was declared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VideoOrigin {
    /// A `VideoObject` in JSON-LD.
    JsonLd,
    /// A `VideoObject` in microdata.
    Microdata,
    /// A `<video>` element with a poster.
    Element,
}

/// A video that cannot be an entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IncompleteVideo {
    /// Where it was declared.
    pub origin: VideoOrigin,
    /// What names it: its title, else its content URL or thumbnail, as declared.
    pub label: Option<String>,
    /// What it lacks, in sitemap order.
    pub missing: Vec<VideoField>,
}

/// The videos of one page.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PageVideos {
    /// Those that make entries, in document order.
    pub complete: Vec<Video>,
    /// Those that do not, in document order.
    pub incomplete: Vec<IncompleteVideo>,
}

/// The videos of a page whose `<title>` and meta description are `title` and `description`.
pub fn page_videos(
    data: &StructuredData,
    title: Option<&str>,
    description: Option<&str>,
) -> PageVideos {
    let mut videos = PageVideos::default();
    let objects: Vec<&Item> = data.items_of("VideoObject").collect();
    if objects.is_empty() {
        for element in &data.videos {
            videos.add(from_element(element, title, description));
        }
    } else {
        for object in objects {
            videos.add(from_object(object));
        }
    }
    videos
}

impl PageVideos {
    fn add(&mut self, video: Result<Video, IncompleteVideo>) {
        match video {
            Ok(video) => self.complete.push(video),
            Err(incomplete) => self.incomplete.push(incomplete),
        }
    }
}

/// The parts read from a declaration, checked together.
struct Parts {
    thumbnail: Option<String>,
    title: Option<String>,
    description: Option<String>,
    content: Option<String>,
    player: Option<String>,
}

impl Parts {
    fn video(self, origin: VideoOrigin, label: Option<String>) -> Result<Video, IncompleteVideo> {
        let mut missing = Vec::new();
        for (field, absent) in [
            (VideoField::Thumbnail, self.thumbnail.is_none()),
            (VideoField::Title, self.title.is_none()),
            (VideoField::Description, self.description.is_none()),
            (
                VideoField::Location,
                self.content.is_none() && self.player.is_none(),
            ),
        ] {
            if absent {
                missing.push(field);
            }
        }
        match (self.thumbnail, self.title, self.description) {
            (Some(thumbnail), Some(title), Some(description)) if missing.is_empty() => Ok(Video {
                thumbnail,
                title,
                description,
                content: self.content,
                player: self.player,
                duration: None,
                published: None,
                expires: None,
            }),
            _ => Err(IncompleteVideo {
                origin,
                label,
                missing,
            }),
        }
    }
}

fn from_object(object: &Item) -> Result<Video, IncompleteVideo> {
    let origin = match object.source {
        crate::Source::JsonLd => VideoOrigin::JsonLd,
        crate::Source::Microdata => VideoOrigin::Microdata,
    };
    let label = object
        .text("name")
        .or_else(|| object.text("contentUrl"))
        .or_else(|| object.text("embedUrl"))
        .map(str::to_string);
    let parts = Parts {
        thumbnail: thumbnail(object),
        title: object.text("name").map(collapse),
        description: object.text("description").map(collapse),
        content: object.text("contentUrl").and_then(absolute_http),
        player: object.text("embedUrl").and_then(absolute_http),
    };
    let mut video = parts.video(origin, label)?;
    video.duration = object.text("duration").and_then(duration_seconds);
    video.published = object.text("uploadDate").and_then(parse_time);
    video.expires = object.text("expires").and_then(parse_time);
    Ok(video)
}

fn from_element(
    element: &VideoElement,
    title: Option<&str>,
    description: Option<&str>,
) -> Result<Video, IncompleteVideo> {
    let title = element
        .title
        .as_deref()
        .or(title)
        .map(collapse)
        .filter(|text| !text.is_empty());
    let label = title
        .clone()
        .or_else(|| element.src.clone())
        .or_else(|| Some(element.poster.clone()));
    let parts = Parts {
        thumbnail: absolute_http(&element.poster),
        title,
        description: description.map(collapse).filter(|text| !text.is_empty()),
        content: element.src.as_deref().and_then(absolute_http),
        player: None,
    };
    parts.video(VideoOrigin::Element, label)
}

/// The first usable thumbnail: `thumbnailUrl` as text (one of several values, the first
/// absolute) or as an `ImageObject` (its `url` or `contentUrl`), else `thumbnail`'s.
fn thumbnail(object: &Item) -> Option<String> {
    ["thumbnailUrl", "thumbnail"]
        .into_iter()
        .flat_map(|property| object.values(property))
        .find_map(|value| match value {
            Value::Text(text) => absolute_http(text),
            Value::Item(image) => image
                .text("url")
                .and_then(absolute_http)
                .or_else(|| image.text("contentUrl").and_then(absolute_http)),
        })
}

/// `text` when it is an absolute http(s) URL, as the entry writes it.
fn absolute_http(text: &str) -> Option<String> {
    crate::structured::absolute_http_url(text).map(String::from)
}

/// Whitespace collapsed to single spaces, trimmed.
fn collapse(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// An ISO 8601 duration (`PT1M33S`, `P0DT2H`) in whole seconds, when within what a video
/// sitemap takes (1 to 28,800).
pub fn duration_seconds(text: &str) -> Option<u32> {
    let span: Span = text.trim().parse().ok()?;
    let seconds = span
        .total(SpanTotal::from(Unit::Second).days_are_24_hours())
        .ok()?
        .round();
    (1.0..=28_800.0)
        .contains(&seconds)
        .then_some(seconds as u32)
}

/// A date or time as ISO 8601 / RFC 3339 writes it: with an offset, or without one (taken
/// as UTC), or a date alone (its midnight, UTC).
pub fn parse_time(text: &str) -> Option<Timestamp> {
    let text = text.trim();
    if let Ok(timestamp) = text.parse::<Timestamp>() {
        return Some(timestamp);
    }
    if let Ok(datetime) = text.parse::<DateTime>() {
        return datetime
            .to_zoned(jiff::tz::TimeZone::UTC)
            .ok()
            .map(|zoned| zoned.timestamp());
    }
    let date = text.parse::<Date>().ok()?;
    date.to_zoned(jiff::tz::TimeZone::UTC)
        .ok()
        .map(|zoned| zoned.timestamp())
}

#[cfg(test)]
#[path = "media_tests.rs"]
mod tests;
