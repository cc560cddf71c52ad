//! Video entries (`--video`): from VideoObject structured data in JSON-LD and microdata, else
//! from `<video poster>` elements; a video missing what an entry needs is left out, said in
//! the summary and found by the audit; every file validates against the schemas.

use std::collections::BTreeSet;
use std::path::Path;

use crate::audit::{audit, findings};
use crate::fixture::{Route, Server, Site};
use crate::harness::{crawl, read_sitemap, summary_json};
use crate::schema::assert_all_valid;

const CDN: &str = "https://cdn.example.net";

/// A page whose body is `body`, with an ETag so that a second run with `--state` is answered
/// 304 Not Modified.
fn page(body: &str) -> Route {
    Route::html(body).header("ETag", "\"v1\"")
}

fn video_site() -> Server {
    let json_ld = format!(
        r#"<html lang="en"><head><title>Launch day</title>
        <script type="application/ld+json">{{
          "@context": "https://schema.org",
          "@type": "VideoObject",
          "name": "Launch & landing",
          "description": "The launch, filmed from the pad.",
          "thumbnailUrl": ["/relative.jpg", "{CDN}/thumbs/launch.jpg"],
          "contentUrl": "{CDN}/video/launch.mp4",
          "embedUrl": "{CDN}/player/launch",
          "duration": "PT1M33S",
          "uploadDate": "2024-05-01T10:00:00+02:00"
        }}</script></head><body><p>Launch.</p></body></html>"#
    );
    let microdata = format!(
        r#"<html lang="en"><head><title>Harbour</title></head><body>
        <div itemscope itemtype="https://schema.org/VideoObject">
          <h2 itemprop="name">Harbour at dawn</h2>
          <p itemprop="description">Boats leaving the harbour.</p>
          <div itemprop="thumbnail" itemscope itemtype="https://schema.org/ImageObject">
            <link itemprop="url" href="{CDN}/thumbs/harbour.jpg">
          </div>
          <link itemprop="embedUrl" href="{CDN}/player/harbour">
          <meta itemprop="duration" content="PT2M">
        </div></body></html>"#
    );
    let bare = format!(
        r#"<html lang="en"><head><title>Clips of the week</title>
        <meta name="description" content="Short clips from the week."></head><body>
        <video poster="{CDN}/thumbs/rain.jpg" src="{CDN}/video/rain.mp4" title="Rain"></video>
        <video poster="{CDN}/thumbs/sun.jpg"><source src="{CDN}/video/sun.mp4"></video>
        </body></html>"#
    );
    let incomplete = format!(
        r#"<html lang="en"><head><title>Teaser</title>
        <script type="application/ld+json">{{
          "@context": "https://schema.org",
          "@type": "VideoObject",
          "name": "Teaser",
          "thumbnailUrl": "/thumbs/teaser.jpg",
          "contentUrl": "{CDN}/video/teaser.mp4"
        }}</script></head><body><p>Soon.</p></body></html>"#
    );
    Site::new()
        .route(
            "/",
            page(
                r#"<html lang="en"><head><title>Videos</title></head><body>
                <a href="/launch">Launch</a> <a href="/harbour">Harbour</a>
                <a href="/clips">Clips</a> <a href="/teaser">Teaser</a></body></html>"#,
            ),
        )
        .route("/launch", page(&json_ld))
        .route("/harbour", page(&microdata))
        .route("/clips", page(&bare))
        .route("/teaser", page(&incomplete))
        .serve()
}

/// `(page path, title, thumbnail, content or player)` of every `<video:video>` in `out`.
fn video_entries(server: &Server, out: &Path) -> BTreeSet<(String, String, String, String)> {
    let xml = read_sitemap(&out.join("sitemap.xml"));
    let element = |text: &str, name: &str| -> Option<String> {
        let open = format!("<video:{name}>");
        let start = text.find(&open)? + open.len();
        let end = start + text[start..].find(&format!("</video:{name}>"))?;
        Some(text[start..end].replace("&amp;", "&"))
    };
    let mut entries = BTreeSet::new();
    for url in xml.split("<url>").skip(1) {
        let loc = url
            .split("<loc>")
            .nth(1)
            .and_then(|rest| rest.split("</loc>").next());
        let path = loc
            .unwrap_or_default()
            .trim_start_matches(&server.origin())
            .to_string();
        for video in url.split("<video:video>").skip(1) {
            let location = element(video, "content_loc")
                .or_else(|| element(video, "player_loc"))
                .unwrap_or_default();
            entries.insert((
                path.clone(),
                element(video, "title").unwrap_or_default(),
                element(video, "thumbnail_loc").unwrap_or_default(),
                location,
            ));
        }
    }
    entries
}

fn entry(
    path: &str,
    title: &str,
    thumbnail: &str,
    location: &str,
) -> (String, String, String, String) {
    (
        path.to_string(),
        title.to_string(),
        format!("{CDN}{thumbnail}"),
        format!("{CDN}{location}"),
    )
}

fn expected() -> BTreeSet<(String, String, String, String)> {
    BTreeSet::from([
        entry(
            "/launch",
            "Launch & landing",
            "/thumbs/launch.jpg",
            "/video/launch.mp4",
        ),
        entry(
            "/harbour",
            "Harbour at dawn",
            "/thumbs/harbour.jpg",
            "/player/harbour",
        ),
        entry("/clips", "Rain", "/thumbs/rain.jpg", "/video/rain.mp4"),
        entry(
            "/clips",
            "Clips of the week",
            "/thumbs/sun.jpg",
            "/video/sun.mp4",
        ),
    ])
}

#[test]
fn video_entries_come_from_structured_data_then_video_elements() {
    let server = video_site();
    let out = tempfile::tempdir().unwrap();
    let run = crawl(&server.url("/"), out.path(), &["--video"]);
    run.assert_success();
    assert_eq!(video_entries(&server, out.path()), expected());
    let xml = read_sitemap(&out.path().join("sitemap.xml"));
    assert!(xml.contains("<video:duration>93</video:duration>"), "{xml}");
    assert!(
        xml.contains("<video:publication_date>2024-05-01T08:00:00+00:00</video:publication_date>"),
        "{xml}"
    );
    assert!(
        run.stderr
            .contains("Video entries: 4 on 3 pages; 1 video left out"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains(&format!(
            "{}: VideoObject (JSON-LD) \"Teaser\": no thumbnail_loc, description",
            server.url("/teaser")
        )),
        "{}",
        run.stderr
    );
    assert_all_valid(out.path());

    let plain = tempfile::tempdir().unwrap();
    crawl(&server.url("/"), plain.path(), &[]).assert_success();
    let xml = read_sitemap(&plain.path().join("sitemap.xml"));
    assert!(
        !xml.contains("video"),
        "no video namespace or entries without --video"
    );
}

#[test]
fn a_revalidated_page_keeps_its_video_entries_and_the_json_summary_counts_them() {
    let server = video_site();
    let out = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    let database = state.path().join("crawl.db");
    let database = database.to_str().unwrap();
    let args = ["--video", "--state", database, "--summary", "json"];
    summary_json(&crawl(&server.url("/"), out.path(), &args));
    let again = summary_json(&crawl(&server.url("/"), out.path(), &args));
    assert_eq!(again["revalidated"], 5, "{again}");
    assert_eq!(video_entries(&server, out.path()), expected());
    assert_eq!(again["videos"]["entries"], 4, "{again}");
    assert_eq!(again["videos"]["pages"], 3, "{again}");
    assert_eq!(again["videos"]["left_out"], 1, "{again}");
    assert_eq!(
        again["videos"]["left_out_examples"][0]["missing"],
        serde_json::json!(["thumbnail_loc", "description"])
    );
}

#[test]
fn the_audit_finds_the_video_a_video_sitemap_would_leave_out() {
    let server = video_site();
    let report = tempfile::tempdir().unwrap();
    audit(&server, report.path(), &[]);
    let incomplete: Vec<String> = findings(report.path(), &server)
        .into_iter()
        .filter(|(kind, _, _)| kind == "video-entry-incomplete")
        .map(|(_, path, _)| path)
        .collect();
    assert_eq!(incomplete, ["/teaser"]);
}

#[test]
fn the_audit_says_what_the_sitemap_beside_it_holds() {
    let server = video_site();
    let report = tempfile::tempdir().unwrap();
    audit(
        &server,
        report.path(),
        &["--video", "--documents", "docx,pdf"],
    );
    let json = crate::audit::report_json(report.path());
    assert_eq!(
        json["methodology"]["sitemap_written"],
        "the listed pages; video entries; linked documents (pdf, docx)",
        "{}",
        json["methodology"]
    );
    let plain = tempfile::tempdir().unwrap();
    audit(&server, plain.path(), &[]);
    let json = crate::audit::report_json(plain.path());
    assert_eq!(json["methodology"]["sitemap_written"], "the listed pages");
}
