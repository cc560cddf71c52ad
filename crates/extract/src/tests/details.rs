//! What only an audit reads of a page (`PageDetails`, its signals), over both tokenizers.

use super::*;

fn details_of(html: &str) -> crate::facts::PageDetails {
    let options = ExtractOptions {
        details: true,
        ..ExtractOptions::default()
    };
    same_facts(html.as_bytes(), &headers("text/html"), PAGE, &options)
        .details
        .unwrap()
}

#[test]
fn details_are_read_only_when_asked_for() {
    assert_eq!(facts("<h1>Title</h1><a href=/a>A</a>").details, None);
}

#[test]
fn anchor_text_is_the_first_links_text_collapsed_with_image_alts() {
    let details = details_of(
        r#"<a href="/a">  Read
        the <b>whole</b>   story </a>
        <a href="/a">second text for the same target</a>
        <a href="/logo"><img src="/logo.png" alt="Our logo"></a>
        <a href="/empty"></a>
        <a href="/unclosed">first <a href="/next">next</a>
        <map><area href="/area" alt="An area"></map>
        <a href="/long">"#,
    );
    let anchor = |path: &str| {
        details
            .anchors
            .get(
                &Url::parse("https://example.com")
                    .unwrap()
                    .join(path)
                    .unwrap(),
            )
            .cloned()
    };
    assert_eq!(anchor("/a").as_deref(), Some("Read the whole story"));
    assert_eq!(anchor("/logo").as_deref(), Some("Our logo"));
    assert_eq!(anchor("/empty"), None);
    assert_eq!(anchor("/unclosed").as_deref(), Some("first"));
    assert_eq!(anchor("/next").as_deref(), Some("next"));
    assert_eq!(anchor("/area").as_deref(), Some("An area"));
    assert_eq!(anchor("/long"), None);
    let long = details_of(&format!("<a href=/x>{}</a>", "word ".repeat(100)));
    let text = long.anchors.values().next().unwrap();
    assert_eq!(text.chars().count(), 200);
    assert!(text.starts_with("word word"));
}

#[test]
fn headings_language_and_images_without_alt_are_counted() {
    let details = details_of(
        r#"<html lang=" fr-CA "><head><title>T</title></head><body>
        <h1> First
        heading </h1><h1>Second</h1>
        <img src="/a.png"><img src="/b.png" alt=""><img src="/c.png" alt="C">
        <img data-src="lazy.png">
        <template><img src="/inert.png"></template>
        </body></html>"#,
    );
    assert_eq!(details.h1_count, 2);
    assert_eq!(details.h1.as_deref(), Some("First heading"));
    assert_eq!(details.lang.as_deref(), Some("fr-CA"));
    assert_eq!(details.images_without_alt, 2);
    assert_eq!(
        details.images_without_alt_examples,
        [
            "https://example.com/a.png",
            "https://example.com/dir/lazy.png"
        ]
    );
    let none = details_of("<p>No heading</p>");
    assert_eq!((none.h1_count, none.h1, none.lang), (0, None, None));
}

#[test]
fn words_of_the_visible_text_are_counted() {
    let details = details_of(
        r#"<html><head><title>Four words of title</title>
        <style>p { color: red }</style><script>var hidden = "no words here";</script></head>
        <body><h1>One&nbsp;two</h1><p>three<b>four</b></p><p>five, - six.</p>
        <noscript>Enable JavaScript please</noscript>
        <template><p>inert words</p></template>
        <textarea>seven</textarea><p>你好</p><!-- a comment --><img alt="no words"></body></html>"#,
    );
    assert_eq!(details.word_count, 9);
    assert_eq!(details_of("").word_count, 0);
}

#[test]
fn an_https_page_loading_http_resources_is_noted_and_links_are_not() {
    let details = details_of(
        r#"<head><link rel="stylesheet" href="http://cdn.example.net/s.css">
        <link rel="canonical" href="http://example.com/canonical">
        <script src="//example.com/protocol-relative.js"></script>
        <script src="http://example.com/app.js"></script></head><body>
        <a href="http://example.com/plain-link">a link is not loaded</a>
        <img src="http://example.com/i.png" alt="i"><img src="http://example.com/i.png" alt="again">
        <iframe src="http://video.example.org/embed"></iframe>
        <video src="http://example.com/v.mp4"></video>
        <img src="/relative.png" alt="r">
        </body>"#,
    );
    let insecure: Vec<String> = details
        .insecure_resources
        .iter()
        .map(Url::to_string)
        .collect();
    assert_eq!(
        insecure,
        [
            "http://cdn.example.net/s.css",
            "http://example.com/app.js",
            "http://example.com/i.png",
            "http://video.example.org/embed",
            "http://example.com/v.mp4"
        ]
    );
    // The same page served over http loads nothing "insecurely": it is insecure as a whole.
    let url = Url::parse("http://example.com/").unwrap();
    let headers = headers("text/html");
    let body = b"<script src=\"http://example.com/app.js\"></script>";
    let options = ExtractOptions {
        details: true,
        ..ExtractOptions::default()
    };
    let document = Document {
        url: &url,
        body,
        headers: &headers,
    };
    let facts = extract(&document, &options);
    assert!(facts.details.unwrap().insecure_resources.is_empty());
}

#[test]
fn the_audits_signals_are_read_in_the_same_pass_over_both_tokenizers() {
    let signals = details_of(
        r#"<!DOCTYPE html><html><head><title>One</title>
        <meta name="viewport" content="width=device-width">
        <meta property="og:title" content="T"><meta name="twitter:card" content="summary">
        <link rel="canonical" href="page.html"><script src="/head.js"></script>
        <link rel="stylesheet" href="/style.css"></head><body>
        <svg><title>An icon's title is no page title</title></svg>
        <h1>Title</h1><h3>Skipped a level</h3>
        <a href="/icon"><img src="/i.png"></a><a href="/named" aria-label="Named"></a>
        <a href="/alt"><img src="/a.png" alt="Alt text"></a>
        <input id="later" name="later"><label for="later">Later</label>
        <label>Wrapped <input name="wrapped"></label><input name="bare">
        <input type="hidden" name="h"><button><img src="/b.png" alt="Go"></button><button></button>
        <iframe src="/frame"></iframe><div tabindex="2"></div><font>old</font>
        <img src="/w.png" width="300" alt="w">
        <form action="http://example.com/send"></form>
        <a href="http://example.com/plain">Plain</a><a href="/other" rel="nofollow">Other</a>
        <img src="//cdn.example.com/x.png" alt="x" width="1" height="1">
        </body></html>"#,
    )
    .signals;
    assert!(signals.doctype);
    assert_eq!(signals.viewport.as_deref(), Some("width=device-width"));
    assert_eq!(signals.titles, 1);
    assert_eq!(signals.open_graph, ["title"]);
    assert_eq!(signals.twitter, ["card"]);
    assert_eq!(signals.relative_canonical.as_deref(), Some("page.html"));
    assert_eq!(signals.render_blocking_scripts.first, ["/head.js"]);
    assert_eq!(signals.scripts, ["https://example.com/head.js"]);
    assert_eq!(signals.stylesheets, ["https://example.com/style.css"]);
    assert_eq!(signals.skipped_headings.first, ["h1 → h3"]);
    assert_eq!(signals.links_without_text.first, ["/icon"]);
    assert_eq!(
        signals.inputs_without_label.first,
        ["<input name=\"bare\">"]
    );
    assert_eq!(signals.buttons_without_name.first, ["<button>"]);
    assert_eq!(signals.frames_without_title.first, ["/frame"]);
    assert_eq!(signals.positive_tabindex.first, ["<div tabindex=\"2\">"]);
    assert_eq!(signals.obsolete_elements.first, ["<font>"]);
    assert_eq!(
        signals.image_widths,
        [
            ("https://example.com/w.png".to_string(), 300),
            ("https://cdn.example.com/x.png".to_string(), 1)
        ]
    );
    assert_eq!(signals.images_without_dimensions.count, 4);
    assert_eq!(signals.insecure_forms.first, ["http://example.com/send"]);
    assert_eq!(signals.http_links.first, ["http://example.com/plain"]);
    assert_eq!(
        signals.nofollow_internal.first,
        ["https://example.com/other"]
    );
    assert_eq!(signals.protocol_relative.first, ["//cdn.example.com/x.png"]);
    assert!(signals.simhash.is_some());
    let round_trip = crate::PageSignals::from_json(&signals.to_json());
    assert_eq!(round_trip.as_ref(), Some(&signals));

    let quirks = details_of("<html><body><p>No doctype</p></body></html>").signals;
    assert!(!quirks.doctype && quirks.viewport.is_none() && quirks.simhash.is_some());
}
