use proptest::prelude::*;
use url::Url;

use crate::differential::same_facts;
use crate::facts::{
    Document, ExtractOptions, HintSources, LinkKind, PageFacts, ResponseHeaders, Unfinished,
};
use crate::{extract, extract_headers};

const PAGE: &str = "https://example.com/dir/page.html";

fn headers(content_type: &str) -> ResponseHeaders {
    ResponseHeaders {
        content_type: Some(content_type.to_string()),
        ..ResponseHeaders::default()
    }
}

/// The facts of `body`, the same over both tokenizers (see `differential`).
fn facts_with(body: &[u8], headers: &ResponseHeaders) -> PageFacts {
    same_facts(body, headers, PAGE, &ExtractOptions::default())
}

fn facts(html: &str) -> PageFacts {
    facts_with(html.as_bytes(), &headers("text/html"))
}

fn links(facts: &PageFacts) -> Vec<String> {
    facts
        .links
        .iter()
        .map(|link| link.url.to_string())
        .collect()
}

fn canonicals(facts: &PageFacts) -> Vec<String> {
    facts.canonicals.iter().map(Url::to_string).collect()
}

#[test]
fn links_come_from_anchors_areas_alternates_and_frames() {
    let facts = facts(
        r#"<html><head>
        <link rel="alternate" hreflang="de" href="/de/">
        <link rel="stylesheet" href="/style.css">
        </head><body>
        <a href="a.html">A</a>
        <map><area href="/area.html"></map>
        <iframe src="/frame.html"></iframe>
        <img src="/image.png">
        </body></html>"#,
    );
    assert_eq!(
        links(&facts),
        [
            "https://example.com/de/",
            "https://example.com/dir/a.html",
            "https://example.com/area.html",
            "https://example.com/frame.html",
        ]
    );
    assert_eq!(
        facts.links[0].kind,
        LinkKind::Alternate {
            hreflang: "de".to_string()
        }
    );
    assert_eq!(facts.links[2].kind, LinkKind::Area);
}

#[test]
fn hrefs_are_trimmed_and_fragments_dropped_and_duplicates_removed() {
    let facts = facts(
        "<a href=\"  /x#top \n\">1</a><a href=\"/x\">2</a><a href=\"#only\">3</a><a href=\"\">4</a>",
    );
    assert_eq!(
        links(&facts),
        ["https://example.com/x", "https://example.com/dir/page.html"]
    );
}

#[test]
fn non_http_schemes_are_ignored() {
    let facts = facts(
        r#"<a href="javascript:void(0)">j</a><a href="mailto:a@example.com">m</a>
        <a href="tel:+1">t</a><a href="data:text/html,x">d</a><a href="ftp://example.com/f">f</a>
        <a href="//other.example/proto">p</a><a href="HTTP://EXAMPLE.COM/Upper">u</a>"#,
    );
    assert_eq!(
        links(&facts),
        ["https://other.example/proto", "http://example.com/Upper"]
    );
}

#[test]
fn comments_and_scripts_hold_no_links() {
    let facts = facts(
        r#"<!-- <a href="/commented">c</a> -->
        <script>document.write('<a href="/scripted">s</a>')</script>
        <noscript><a href="/noscript">n</a></noscript>
        <template><a href="/template">t</a></template>
        <a href="/real">r</a>"#,
    );
    let found = links(&facts);
    assert!(
        found.contains(&"https://example.com/real".to_string()),
        "{found:?}"
    );
    assert!(
        !found
            .iter()
            .any(|link| link.contains("commented") || link.contains("scripted")),
        "{found:?}"
    );
}

#[test]
fn base_href_absolute_and_relative() {
    let absolute =
        facts(r#"<head><base href="https://example.com/other/"></head><a href="x">x</a>"#);
    assert_eq!(links(&absolute), ["https://example.com/other/x"]);
    assert_eq!(
        absolute.base.unwrap().as_str(),
        "https://example.com/other/"
    );

    let relative = facts(r#"<head><base href="../up/"></head><a href="x">x</a>"#);
    assert_eq!(links(&relative), ["https://example.com/up/x"]);

    let only_first = facts(r#"<base href="/first/"><base href="/second/"><a href="x">x</a>"#);
    assert_eq!(links(&only_first), ["https://example.com/first/x"]);
}

#[test]
fn shift_jis_from_the_header_decodes_links() {
    let (body, _, _) = encoding_rs::SHIFT_JIS.encode("<a href=\"/日本/ページ?q=語\">リンク</a>");
    let facts = facts_with(&body, &headers("text/html; charset=Shift_JIS"));
    assert_eq!(facts.encoding, "Shift_JIS");
    // The path is UTF-8 percent-encoded; the query keeps the document's encoding, as browsers do.
    assert_eq!(
        links(&facts),
        ["https://example.com/%E6%97%A5%E6%9C%AC/%E3%83%9A%E3%83%BC%E3%82%B8?q=%8C%EA"]
    );
}

#[test]
fn iso_8859_1_from_a_meta_tag_decodes_links() {
    let (body, _, _) = encoding_rs::WINDOWS_1252
        .encode("<html><head><meta charset=\"iso-8859-1\"></head><a href=\"/café\">é</a>");
    let facts = facts_with(&body, &headers("text/html"));
    assert_eq!(facts.encoding, "windows-1252");
    assert_eq!(links(&facts), ["https://example.com/caf%C3%A9"]);
}

#[test]
fn canonical_in_head_resolved_and_trimmed() {
    let facts =
        facts(r#"<head><LINK REL="Canonical" href="  ../canon.html#frag "></head><body></body>"#);
    assert_eq!(canonicals(&facts), ["https://example.com/canon.html"]);
}

#[test]
fn the_head_ends_where_the_body_content_starts() {
    let after_title = facts(
        r#"<html><head><title>A title</title><meta name="description" content="d"><link rel="canonical" href="/c"></head><body>x</body></html>"#,
    );
    assert_eq!(canonicals(&after_title), ["https://example.com/c"]);
    let after_head_tag =
        facts(r#"<head><title>t</title></head><link rel="canonical" href="/late"><p>x</p>"#);
    assert_eq!(
        canonicals(&after_head_tag),
        ["https://example.com/late"],
        "still in the head per HTML"
    );
    let after_text = facts(r#"<title>t</title>Some text<link rel="canonical" href="/body">"#);
    assert!(after_text.canonicals.is_empty());
}

#[test]
fn template_content_is_inert() {
    let facts = facts(r#"<template><a href="/inert">x</a></template><a href="/live">y</a>"#);
    assert_eq!(links(&facts), ["https://example.com/live"]);
}

#[test]
fn a_declarative_shadow_root_is_part_of_the_page_a_plain_template_is_not() {
    let facts = facts(
        r#"<head><template shadowrootmode="open"><a href="/head">no host</a></template></head>
        <body><site-nav><template shadowrootmode="open">
          <meta name="robots" content="nofollow"><link rel="canonical" href="/shadow-canonical">
          <a href="/about">About</a>
          <nav-group><template shadowrootmode="closed"><a href="/nested">Nested</a></template></nav-group>
          <template><a href="/inert-inside">x</a></template><a href="/after-inert">y</a>
        </template></site-nav>
        <template><a href="/inert"></a><template shadowrootmode="open"><a href="/in-inert"></a></template></template>
        <div><template shadowrootmode="none"><a href="/no-mode"></a></template></div>
        <div><template ShadowRootMode="OPEN"><a href="/any-case"></a></template></div>
        <a href="/after">after</a></body>"#,
    );
    assert_eq!(
        links(&facts),
        [
            "https://example.com/about",
            "https://example.com/nested",
            "https://example.com/after-inert",
            "https://example.com/any-case",
            "https://example.com/after",
        ]
    );
    assert!(facts.robots.nofollow, "a shadow root's meta robots counts");
    assert!(
        facts.canonicals.is_empty(),
        "a shadow root hangs in the body, where a canonical does not count"
    );
}

#[test]
fn a_page_whose_links_are_in_a_declarative_shadow_root_is_no_empty_shell() {
    let page = facts(
        r#"<head><script src="/app.js"></script></head><body><site-nav>
        <template shadowrootmode="open"><a href="/about">About</a></template></site-nav></body>"#,
    );
    assert_eq!(links(&page), ["https://example.com/about"]);
    assert_eq!(page.shell.scripts, 1);
    assert_eq!(page.shell.empty_mount, None);
}

#[test]
fn canonical_in_body_is_ignored() {
    let facts = facts(
        r#"<head><title>t</title></head><body><p>text</p><link rel="canonical" href="/x"></body>"#,
    );
    assert!(facts.canonicals.is_empty(), "{:?}", facts.canonicals);
}

#[test]
fn conflicting_canonicals_are_all_reported() {
    let facts =
        facts(r#"<head><link rel="canonical" href="/a"><link rel="canonical" href="/b"></head>"#);
    assert_eq!(
        canonicals(&facts),
        ["https://example.com/a", "https://example.com/b"]
    );
}

#[test]
fn canonical_link_header_anywhere_in_a_list() {
    let mut headers = headers("text/html");
    headers.link = vec![
        r#"<https://example.com/style.css>; rel="preload", </canon>; rel="canonical""#.to_string(),
    ];
    let url = Url::parse(PAGE).unwrap();
    let facts = extract_headers(&url, &headers, &ExtractOptions::default());
    assert_eq!(canonicals(&facts), ["https://example.com/canon"]);
}

#[test]
fn invalid_canonicals_are_kept_apart() {
    let facts = facts(r#"<head><link rel="canonical" href="mailto:x@example.com"></head>"#);
    assert!(facts.canonicals.is_empty());
    assert_eq!(facts.invalid_canonicals, ["mailto:x@example.com"]);
}

#[test]
fn meta_robots_and_x_robots_tag() {
    assert!(
        facts(r#"<meta name="ROBOTS" content="NoIndex, follow">"#)
            .robots
            .noindex
    );
    let none = facts(r#"<meta name="robots" content="none">"#).robots;
    assert!(none.noindex && none.nofollow);
    assert!(
        facts(r#"<meta name="sitemapper" content="nofollow">"#)
            .robots
            .nofollow
    );
    let other_bot = facts(r#"<meta name="googlebot" content="noindex">"#).robots;
    assert!(!other_bot.noindex);

    let mut headers = headers("text/html");
    headers.x_robots_tag = vec![
        "otherbot: noindex".to_string(),
        "sitemapper: nofollow".to_string(),
    ];
    let robots = facts_with(b"<p>x</p>", &headers).robots;
    assert!(!robots.noindex, "directives for another bot are ignored");
    assert!(robots.nofollow);

    headers.x_robots_tag = vec!["NOINDEX".to_string()];
    assert!(facts_with(b"<p>x</p>", &headers).robots.noindex);
}

#[test]
fn where_the_hints_were_found_is_kept() {
    let mut headers = headers("text/html");
    headers.link = vec![r#"</from-header>; rel="canonical""#.to_string()];
    headers.x_robots_tag = vec!["otherbot: noindex".to_string()];
    let page = br#"<head><link rel="canonical" href="/from-html">
        <meta name="robots" content="noindex"></head>"#;
    let facts = facts_with(page, &headers);
    assert_eq!(
        canonicals(&facts),
        [
            "https://example.com/from-header",
            "https://example.com/from-html"
        ]
    );
    assert_eq!(
        facts.hint_sources,
        HintSources {
            header_canonicals: 1,
            noindex_in_header: false,
            noindex_in_meta: true,
        }
    );
    headers.x_robots_tag = vec!["sitemapper: noindex".to_string()];
    let facts = facts_with(b"<p>x</p>", &headers);
    assert!(facts.hint_sources.noindex_in_header && !facts.hint_sources.noindex_in_meta);
}

#[test]
fn instant_meta_refresh_is_a_redirect_but_a_delayed_one_is_not() {
    let instant = facts(r#"<meta http-equiv="Refresh" content="0; URL='/moved'">"#);
    assert_eq!(
        instant.refresh.unwrap().as_str(),
        "https://example.com/moved"
    );
    let delayed = facts(r#"<meta http-equiv="refresh" content="5; url=/later">"#);
    assert!(delayed.refresh.is_none());
}

#[test]
fn the_meta_description_is_read() {
    let facts = facts(
        r#"<meta name="Description" content="  A shop
        for tea ">"#,
    );
    assert_eq!(facts.description.as_deref(), Some("A shop for tea"));
    assert_eq!(
        super::extract_headers(
            &Url::parse(PAGE).unwrap(),
            &headers("text/html"),
            &ExtractOptions::default()
        )
        .description,
        None
    );
}

#[test]
fn title_is_collapsed() {
    assert_eq!(
        facts("<title>  Hello \n  world </title>").title.as_deref(),
        Some("Hello world")
    );
}

#[test]
fn malformed_html_yields_what_a_browser_sees() {
    let facts = facts_with(
        b"<div><a href=unquoted.html>u</a><a href='single.html'>s<p><a href=\"after\0nul.html\">n</a>\xff\xfe<a href=/last>",
        &headers("text/html"),
    );
    let found = links(&facts);
    for expected in ["unquoted.html", "single.html", "/last"] {
        assert!(
            found.iter().any(|link| link.ends_with(expected)),
            "{expected} in {found:?}"
        );
    }
}

#[test]
fn the_fingerprint_ignores_volatile_markup_and_sees_visible_changes() {
    let page = |body: &str| facts(body).fingerprint.unwrap();
    let base = page(
        r#"<title>Shop</title><script>var t = 1;</script><p>Hello   world</p>
        <input type="hidden" name="csrf" value="abc123"><a href="/next?session=a1b2c3d4e5f6g7h8i9">next</a>"#,
    );
    let re_rendered = page(
        r#"<title>Shop</title><script>var t = 2;</script><style>p{}</style><p>Hello
        world</p><input type="hidden" name="csrf" value="zzz999"><!-- built 12:03 -->
        <a class="x" href="/next?session=q9w8e7r6t5y4u3i2o1">next</a>"#,
    );
    assert_eq!(
        base, re_rendered,
        "scripts, tokens, comments and whitespace do not count"
    );
    assert_eq!(base.len(), 16);
    let edited = page(
        r#"<title>Shop</title><p>Hello there</p><a href="/next?session=a1b2c3d4e5f6g7h8i9">next</a>"#,
    );
    assert_ne!(base, edited, "visible text counts");
    let relinked = page(
        r#"<title>Shop</title><p>Hello world</p><a href="/other?session=a1b2c3d4e5f6g7h8i9">next</a>"#,
    );
    assert_ne!(base, relinked, "links count");
}

#[test]
fn images_the_page_shows() {
    let facts = facts(
        r#"<html><head><link rel="icon" href="/favicon.png"><meta property="og:image" content="/og.png">
        <link rel="alternate" hreflang="de" href="/de/"></head><body>
        <img src="/a.jpg"><img src="/a.jpg#again">
        <img src="/small.jpg" srcset="/small.jpg 480w, /large.jpg 1080w">
        <picture><source srcset="/pic.webp 1x, /pic@2x.webp 2x" type="image/webp"><img src="/pic.jpg"></picture>
        <img src="https://cdn.example.net/c.png">
        <img src="data:image/gif;base64,R0lGOD" data-src="/lazy.jpg">
        <img src="/pixel.gif" width="1" height="1">
        <video><source src="/movie.mp4"></video>
        </body></html>"#,
    );
    let images: Vec<String> = facts.images.iter().map(Url::to_string).collect();
    assert_eq!(
        images,
        [
            "https://example.com/a.jpg",
            "https://example.com/large.jpg",
            "https://example.com/pic@2x.webp",
            "https://example.com/pic.jpg",
            "https://cdn.example.net/c.png",
            "https://example.com/lazy.jpg",
        ]
    );
    assert_eq!(
        facts.alternates,
        [(
            "de".to_string(),
            Url::parse("https://example.com/de/").unwrap()
        )]
    );
}

#[test]
fn at_most_a_thousand_images() {
    let html: String = (0..1200)
        .map(|index| format!("<img src=\"/{index}.jpg\">"))
        .collect();
    assert_eq!(facts(&format!("<body>{html}</body>")).images.len(), 1000);
}

#[test]
fn hreflang_alternates_from_link_headers() {
    let mut headers = headers("text/html");
    headers.link = vec![r#"<https://example.com/fr/>; rel="alternate"; hreflang="fr", </>; rel=alternate; hreflang=x-default"#.to_string()];
    let url = Url::parse(PAGE).unwrap();
    let facts = extract_headers(&url, &headers, &ExtractOptions::default());
    let alternates: Vec<(String, String)> = facts
        .alternates
        .iter()
        .map(|(hreflang, url)| (hreflang.clone(), url.to_string()))
        .collect();
    assert_eq!(
        alternates,
        [
            ("fr".to_string(), "https://example.com/fr/".to_string()),
            ("x-default".to_string(), "https://example.com/".to_string())
        ]
    );
}

proptest! {
    #[test]
    fn extraction_never_panics(body in proptest::collection::vec(any::<u8>(), 0..2048), content_type in "[ -~]{0,40}") {
        let headers = ResponseHeaders {
            content_type: Some(content_type),
            link: vec![String::from_utf8_lossy(&body).into_owned()],
            x_robots_tag: vec![String::from_utf8_lossy(&body).into_owned()],
            ..ResponseHeaders::default()
        };
        facts_with(&body, &headers);
    }

    #[test]
    fn html_like_input_never_panics(html in r#"(<(a|base|link|meta) (href|rel|content|name|http-equiv)=["']?[ -~]{0,20}["']?>|[ -~]{0,10})*"#) {
        let facts = facts(&html);
        for link in &facts.links {
            prop_assert!(matches!(link.url.scheme(), "http" | "https"));
            prop_assert!(link.url.fragment().is_none());
        }
    }
}

#[test]
fn an_application_shell_shows_its_signs() {
    let react = facts(
        r#"<!doctype html><html><head><script type="module" src="/assets/index.js"></script>
        <script type="application/ld+json">{"@type":"WebSite"}</script></head>
        <body><noscript>You need to enable JavaScript to run this app.</noscript>
        <div id="root">
        </div></body></html>"#,
    );
    assert_eq!(react.shell.scripts, 1, "JSON data blocks do not run");
    assert_eq!(
        react.shell.empty_mount.as_deref(),
        Some(r#"<div id="root">"#)
    );
    assert!(react.shell.noscript_asks_for_javascript);

    let angular = facts("<body><app-root></app-root><script src=main.js></script></body>");
    assert_eq!(angular.shell.empty_mount.as_deref(), Some("<app-root>"));
    let menu = facts(r#"<body><nav id="menu"> </nav><nav><a href="/">Home</a></nav></body>"#);
    assert_eq!(
        menu.shell.empty_mount.as_deref(),
        Some(r#"<nav id="menu">"#)
    );
    let filled = facts("<body><nav><a href=/>Home</a></nav><nav></nav></body>");
    assert_eq!(filled.shell.empty_mount.as_deref(), Some("<nav>"));
    assert_eq!(angular.shell.scripts, 1);
    assert!(!angular.shell.noscript_asks_for_javascript);
}

#[test]
fn the_scripts_a_page_loads_are_named_by_their_file() {
    let page = facts(
        r#"<head><script src="../static.files/main-1a2b.js?v=3"></script>
        <script>const path_to_root = "../";</script>
        <script type="application/json" src="/data.json"></script>
        <script type=module src=" https://cdn.example.net/lib/toc.js#x "></script>
        <script src="/"></script></head>"#,
    );
    assert_eq!(page.shell.scripts, 4, "the JSON block does not run");
    assert_eq!(page.shell.script_names, ["main-1a2b.js", "toc.js"]);
}

#[test]
fn a_filled_mount_element_or_a_plain_noscript_is_no_shell() {
    let server_rendered = facts(
        r#"<body><div id="root"><a href="/about">About</a></div>
        <div id="app">Hello</div><my-widget><span>x</span></my-widget><nav><a href="/">x</a></nav>
        <noscript><img src="/pixel.gif"></noscript><script>track()</script></body>"#,
    );
    assert_eq!(server_rendered.shell.scripts, 1);
    assert_eq!(server_rendered.shell.empty_mount, None);
    assert!(!server_rendered.shell.noscript_asks_for_javascript);

    let inert =
        facts(r#"<body><template><div id="root"></div><script>x()</script></template></body>"#);
    assert_eq!(inert.shell, crate::ShellSignals::default());
}

#[test]
fn hash_routes_are_kept_apart_from_fragments() {
    let page = facts(
        r##"<body><a href="#/about">About</a><a href="/app/#!/contact">Contact</a>
        <a href="#top">Top</a><a href="#/about">Again</a><a href="page.html#section">S</a>
        <a href="#!">Menu</a><a href="#/">Home</a><a href="#!/">Home</a>
        <a href="https://other.example/#/their-route">Another site's route</a></body>"##,
    );
    assert_eq!(page.hash_routes, ["#/about", "#!/contact"]);
    assert_eq!(
        links(&page),
        [
            "https://example.com/dir/page.html",
            "https://example.com/app/",
            "https://other.example/"
        ]
    );
}

#[test]
fn a_page_that_shows_it_is_unfinished_says_how() {
    let unfinished = |html: &str| facts(html).shell.unfinished;
    assert_eq!(
        unfinished("<body><h1>Tags</h1><p>Loading tags…</p><script src=t.js></script></body>"),
        Some(Unfinished::Loading("Loading tags…".to_string()))
    );
    assert_eq!(
        unfinished("<body><div> Loading... </div></body>"),
        Some(Unfinished::Loading("Loading...".to_string()))
    );
    assert_eq!(
        unfinished("<body><span>LOADING</span></body>"),
        Some(Unfinished::Loading("LOADING".to_string()))
    );
    assert_eq!(
        unfinished(r#"<body><section aria-busy="TRUE"><p>x</p></section></body>"#),
        Some(Unfinished::Busy(
            r#"<section aria-busy="true">"#.to_string()
        ))
    );
    assert_eq!(
        unfinished(
            r#"<body><ul id="tags">
        </ul></body>"#
        ),
        Some(Unfinished::EmptyList(r#"<ul id="tags">"#.to_string()))
    );
    assert_eq!(
        unfinished(r#"<body><ol class="results"></ol></body>"#),
        Some(Unfinished::EmptyList(r#"<ol class="results">"#.to_string()))
    );
    // Content is not a placeholder: a heading that begins with "Loading", a list with items,
    // a list with text, a busy flag turned off, the head's title, an inert template, the
    // empty list of a search's results.
    for finished in [
        "<body><h2>Loading data from files</h2><p>Loading… is what a spinner says, and then a \
         long sentence follows it.</p></body>",
        "<body><ul><li>a</li></ul><ol>\n<li>b</ol></body>",
        r#"<body><ul>text</ul><div aria-busy="false"></div></body>"#,
        "<head><title>Loading…</title></head><body><p>Hello</p></body>",
        "<body><template><p>Loading…</p><ul></ul></template></body>",
        r#"<body><ul id="mdbook-searchresults"></ul><ol class="md-search-result__list"></ol></body>"#,
    ] {
        assert_eq!(unfinished(finished), None, "{finished}");
    }
}

/// What only an audit reads of a page.
mod details;
