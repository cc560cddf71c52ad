//! Google's video extension (`http://www.google.com/schemas/sitemap-video/1.1`): one
//! `<video:video>` per video a page shows, its elements in the order
//! `schemas/sitemap-video.xsd` requires, each value kept within the schema's bounds.

use jiff::Timestamp;
use quick_xml::escape::escape;

use crate::lastmod::format_lastmod;

/// The namespace of `<video:video>`.
pub(crate) const VIDEO_NAMESPACE: &str = "http://www.google.com/schemas/sitemap-video/1.1";

/// The longest `<video:title>`, in characters (the schema's `maxLength`).
pub const MAX_VIDEO_TITLE: usize = 100;

/// The longest `<video:description>`, in characters (the schema's `maxLength`).
pub const MAX_VIDEO_DESCRIPTION: usize = 2048;

/// The longest `<video:duration>`, in seconds: eight hours (the schema's `maxInclusive`).
pub const MAX_VIDEO_DURATION: u32 = 28_800;

/// One video of a page, complete: a thumbnail, a title, a description, and where the video
/// or its player is. URLs are absolute.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VideoEntry {
    /// The thumbnail image.
    pub thumbnail_loc: String,
    /// The title; cut to [`MAX_VIDEO_TITLE`] characters when written.
    pub title: String,
    /// The description; cut to [`MAX_VIDEO_DESCRIPTION`] characters when written.
    pub description: String,
    /// The video file itself.
    pub content_loc: Option<String>,
    /// A player for the video (the schema needs this or `content_loc`).
    pub player_loc: Option<String>,
    /// Its length in seconds, 1 to [`MAX_VIDEO_DURATION`]; other values are not written.
    pub duration: Option<u32>,
    /// When it stops being available.
    pub expiration_date: Option<Timestamp>,
    /// When it was first published.
    pub publication_date: Option<Timestamp>,
}

/// Appends `<video:video>` for `video` to `buffer`, indented inside a `<url>`. A video
/// with neither `content_loc` nor `player_loc` is not a valid entry and is not written.
pub(crate) fn push_video(buffer: &mut String, video: &VideoEntry) {
    if video.content_loc.is_none() && video.player_loc.is_none() {
        return;
    }
    buffer.push_str("    <video:video>\n");
    push_element(buffer, "thumbnail_loc", &video.thumbnail_loc);
    push_element(buffer, "title", clip(&video.title, MAX_VIDEO_TITLE));
    push_element(
        buffer,
        "description",
        clip(&video.description, MAX_VIDEO_DESCRIPTION),
    );
    if let Some(content) = &video.content_loc {
        push_element(buffer, "content_loc", content);
    }
    if let Some(player) = &video.player_loc {
        push_element(buffer, "player_loc", player);
    }
    if let Some(duration) = video
        .duration
        .filter(|seconds| (1..=MAX_VIDEO_DURATION).contains(seconds))
    {
        push_element(buffer, "duration", &duration.to_string());
    }
    if let Some(expiration) = video.expiration_date {
        push_element(buffer, "expiration_date", &format_lastmod(expiration));
    }
    if let Some(publication) = video.publication_date {
        push_element(buffer, "publication_date", &format_lastmod(publication));
    }
    buffer.push_str("    </video:video>\n");
}

fn push_element(buffer: &mut String, name: &str, text: &str) {
    buffer.push_str("      <video:");
    buffer.push_str(name);
    buffer.push('>');
    buffer.push_str(&escape(text));
    buffer.push_str("</video:");
    buffer.push_str(name);
    buffer.push_str(">\n");
}

/// `text`'s first `max` characters.
pub(crate) fn clip(text: &str, max: usize) -> &str {
    match text.char_indices().nth(max) {
        Some((end, _)) => &text[..end],
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elements_come_in_schema_order_and_within_its_bounds() {
        let video = VideoEntry {
            thumbnail_loc: "https://e.com/t.jpg?a=1&b=2".to_string(),
            title: "é".repeat(150),
            description: "Launch <live>".to_string(),
            content_loc: Some("https://e.com/v.mp4".to_string()),
            player_loc: Some("https://e.com/player?v=1".to_string()),
            duration: Some(93),
            expiration_date: Some("2030-01-01T00:00:00Z".parse().unwrap()),
            publication_date: Some("2024-05-01T10:00:00+02:00".parse().unwrap()),
        };
        let mut buffer = String::new();
        push_video(&mut buffer, &video);
        let title = format!("      <video:title>{}</video:title>", "é".repeat(100));
        assert_eq!(
            buffer,
            format!(
                "    <video:video>
      <video:thumbnail_loc>https://e.com/t.jpg?a=1&amp;b=2</video:thumbnail_loc>
{title}
      <video:description>Launch &lt;live&gt;</video:description>
      <video:content_loc>https://e.com/v.mp4</video:content_loc>
      <video:player_loc>https://e.com/player?v=1</video:player_loc>
      <video:duration>93</video:duration>
      <video:expiration_date>2030-01-01T00:00:00+00:00</video:expiration_date>
      <video:publication_date>2024-05-01T08:00:00+00:00</video:publication_date>
    </video:video>
"
            )
        );
    }

    #[test]
    fn a_duration_out_of_bounds_and_a_video_without_location_are_left_out() {
        let mut video = VideoEntry {
            thumbnail_loc: "https://e.com/t.jpg".to_string(),
            title: "T".to_string(),
            description: "D".to_string(),
            content_loc: None,
            player_loc: Some("https://e.com/p".to_string()),
            duration: Some(MAX_VIDEO_DURATION + 1),
            expiration_date: None,
            publication_date: None,
        };
        let mut buffer = String::new();
        push_video(&mut buffer, &video);
        assert!(!buffer.contains("duration"), "{buffer}");
        video.player_loc = None;
        buffer.clear();
        push_video(&mut buffer, &video);
        assert_eq!(buffer, "");
    }
}
