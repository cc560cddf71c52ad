use super::*;
use crate::structured::Source;

fn text(value: &str) -> Value {
    Value::Text(value.to_string())
}

fn item(kind: &str, source: Source, properties: Vec<(&str, Value)>) -> Item {
    Item {
        types: vec![kind.to_string()],
        source,
        properties: properties
            .into_iter()
            .map(|(name, value)| (name.to_string(), value))
            .collect(),
    }
}

fn data(items: Vec<Item>, videos: Vec<VideoElement>) -> StructuredData {
    StructuredData {
        items,
        videos,
        ..StructuredData::default()
    }
}

#[test]
fn a_video_object_gives_every_field_it_declares() {
    let image = item(
        "ImageObject",
        Source::JsonLd,
        vec![("contentUrl", text("https://cdn.e.com/t.jpg"))],
    );
    let video = item(
        "VideoObject",
        Source::JsonLd,
        vec![
            ("name", text(" Launch\n day ")),
            ("description", text("The launch")),
            ("thumbnailUrl", text("/relative.jpg")),
            ("thumbnailUrl", Value::Item(image)),
            ("contentUrl", text("https://e.com/launch.mp4")),
            ("embedUrl", text("javascript:play()")),
            ("duration", text("PT1M33S")),
            ("uploadDate", text("2024-05-01")),
            ("expires", text("2030-01-01T00:00:00+01:00")),
        ],
    );
    let page = data(
        vec![item(
            "WebPage",
            Source::JsonLd,
            vec![("video", Value::Item(video))],
        )],
        vec![VideoElement {
            poster: "https://e.com/ignored.jpg".to_string(),
            src: Some("https://e.com/ignored.mp4".to_string()),
            title: Some("Ignored".to_string()),
        }],
    );
    let videos = page_videos(&page, Some("Page"), Some("About"));
    assert_eq!(
        videos.complete,
        [Video {
            thumbnail: "https://cdn.e.com/t.jpg".to_string(),
            title: "Launch day".to_string(),
            description: "The launch".to_string(),
            content: Some("https://e.com/launch.mp4".to_string()),
            player: None,
            duration: Some(93),
            published: Some("2024-05-01T00:00:00Z".parse().unwrap()),
            expires: Some("2029-12-31T23:00:00Z".parse().unwrap()),
        }]
    );
    assert!(videos.incomplete.is_empty());
}

#[test]
fn an_incomplete_video_says_what_it_lacks() {
    let video = item(
        "VideoObject",
        Source::Microdata,
        vec![
            ("name", text("Teaser")),
            ("thumbnailUrl", text("ftp://e.com/t.jpg")),
            ("embedUrl", text("https://e.com/player/1")),
        ],
    );
    let videos = page_videos(&data(vec![video], Vec::new()), Some("Page"), Some("About"));
    assert!(videos.complete.is_empty());
    assert_eq!(
        videos.incomplete,
        [IncompleteVideo {
            origin: VideoOrigin::Microdata,
            label: Some("Teaser".to_string()),
            missing: vec![VideoField::Thumbnail, VideoField::Description],
        }]
    );
}

#[test]
fn video_elements_stand_in_when_no_item_describes_a_video() {
    let elements = vec![
        VideoElement {
            poster: "https://e.com/a.jpg".to_string(),
            src: Some("https://e.com/a.mp4".to_string()),
            title: Some("Clip A".to_string()),
        },
        VideoElement {
            poster: "https://e.com/b.jpg".to_string(),
            src: Some("https://e.com/b.mp4".to_string()),
            title: None,
        },
        VideoElement {
            poster: "https://e.com/c.jpg".to_string(),
            src: None,
            title: None,
        },
    ];
    let videos = page_videos(
        &data(Vec::new(), elements.clone()),
        Some("Page"),
        Some("About"),
    );
    let titles: Vec<&str> = videos
        .complete
        .iter()
        .map(|video| video.title.as_str())
        .collect();
    assert_eq!(titles, ["Clip A", "Page"]);
    assert_eq!(videos.complete[0].description, "About");
    assert_eq!(videos.incomplete[0].missing, [VideoField::Location]);
    let undescribed = page_videos(&data(Vec::new(), elements), None, None);
    assert_eq!(undescribed.complete.len(), 0);
    assert_eq!(
        undescribed.incomplete[1].missing,
        [VideoField::Title, VideoField::Description]
    );
}

#[test]
fn durations_and_times_are_read_as_iso_8601() {
    for (text, expected) in [
        ("PT1M33S", Some(93)),
        ("PT2H", Some(7200)),
        ("P0DT1H0M1S", Some(3601)),
        ("PT93.6S", Some(94)),
        ("PT0S", None),
        ("PT9H", None),
        ("93", None),
    ] {
        assert_eq!(duration_seconds(text), expected, "{text}");
    }
    for (text, expected) in [
        ("2024-05-01T10:00:00+02:00", Some("2024-05-01T08:00:00Z")),
        ("2024-05-01T10:00:00Z", Some("2024-05-01T10:00:00Z")),
        ("2024-05-01T10:00:00", Some("2024-05-01T10:00:00Z")),
        ("2024-05-01", Some("2024-05-01T00:00:00Z")),
        ("May 1st", None),
    ] {
        let expected = expected.map(|time| time.parse::<Timestamp>().unwrap());
        assert_eq!(parse_time(text), expected, "{text}");
    }
}
