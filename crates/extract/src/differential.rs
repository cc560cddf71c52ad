//! The differential tests: extraction over html5gum's tokenizer (what reads pages) gives
//! exactly the page facts it gives over html5ever's (the reference, `tokens::reference`, which
//! reads pages whose legacy fingerprint is asked for), the fingerprint included, on every page
//! the unit tests read (their helpers go through [`same_facts`]), on a corpus of awkward and
//! hostile markup, on crawler-trap pages, on pages shaped like the web, and on fuzzed input:
//! markup assembled from the pieces tokenizers disagree on, corpus pages with bytes changed,
//! and arbitrary bytes.

use proptest::prelude::*;
use url::Url;

use crate::facts::{Document, ExtractOptions, PageFacts, ResponseHeaders};
use crate::{extract, extract_by, tokens};

const HTTPS_PAGE: &str = "https://example.com/dir/page.html";

/// Extracts `body` with both tokenizers, the fingerprint on, with and without the audit's
/// details and structured data, and panics where they differ; with the legacy fingerprint
/// (which html5ever's reads), checks that nothing else changes. Returns the facts with
/// `options`.
pub(crate) fn same_facts(
    body: &[u8],
    headers: &ResponseHeaders,
    page: &str,
    options: &ExtractOptions,
) -> PageFacts {
    let url = Url::parse(page).unwrap();
    let document = Document {
        url: &url,
        body,
        headers,
    };
    let shown = || String::from_utf8_lossy(&body[..body.len().min(2000)]).into_owned();
    for details in [false, true] {
        // Structured data is read with the details, as an audit reads both.
        let options = ExtractOptions {
            fingerprint: true,
            legacy_fingerprint: false,
            details,
            structured: options.structured || details,
            ..options.clone()
        };
        let html5gum = extract_by(&document, &options, tokens::read_by_gum);
        let html5ever = extract_by(&document, &options, tokens::read_by_reference);
        assert!(html5gum.fingerprint.is_some());
        assert!(
            html5gum == html5ever,
            "the tokenizers disagree on {:?}\n{}",
            shown(),
            difference(&format!("{html5gum:#?}"), &format!("{html5ever:#?}"))
        );
        let with_legacy = extract(
            &document,
            &ExtractOptions {
                legacy_fingerprint: true,
                ..options
            },
        );
        assert!(with_legacy.legacy_fingerprint.is_some());
        let with_legacy = PageFacts {
            legacy_fingerprint: None,
            ..with_legacy
        };
        assert!(
            with_legacy == html5gum,
            "the legacy fingerprint's reading differs on {:?}\n{}",
            shown(),
            difference(&format!("{with_legacy:#?}"), &format!("{html5gum:#?}"))
        );
    }
    extract(&document, options)
}

/// The lines around where two renderings first differ.
fn difference(html5gum: &str, html5ever: &str) -> String {
    let ours: Vec<&str> = html5gum.lines().collect();
    let theirs: Vec<&str> = html5ever.lines().collect();
    let first = ours
        .iter()
        .zip(&theirs)
        .position(|(a, b)| a != b)
        .unwrap_or(ours.len().min(theirs.len()));
    let around =
        |lines: &[&str]| lines[first.saturating_sub(4)..(first + 4).min(lines.len())].join("\n");
    format!(
        "html5gum:\n{}\nhtml5ever:\n{}",
        around(&ours),
        around(&theirs)
    )
}

fn check(html: &str) {
    let headers = ResponseHeaders {
        content_type: Some("text/html".to_string()),
        ..ResponseHeaders::default()
    };
    same_facts(
        html.as_bytes(),
        &headers,
        HTTPS_PAGE,
        &ExtractOptions::default(),
    );
}

/// Markup tokenizers have to be careful with: character references of every kind, in text and
/// in attributes; stray `<`, `&` and NUL; line ends; raw-text elements and their escapes;
/// comments and doctypes written wrongly; foreign content; duplicate and unquoted attributes.
const AWKWARD: &[&str] = &[
    "",
    "\u{feff}<link rel=canonical href=/c>",
    "\u{feff}\u{feff}<link rel=canonical href=/c>",
    "<p>caf&eacute; &amp; cr&egrave;me&nbsp;br&ucirc;l&eacute;e &mdash; &copy;2024</p>",
    "<p>&eacute &amp &lt;&gt &notin; &notit; &noti; &AMP; &Amp; &amp</p>",
    "<p>&#233;&#xE9;&#Xe9;&#0;&#x110000;&#xD800;&#128;&#x9F;&#;&#x;&#a; &# &#x</p>",
    "<p>&NotEqualTilde;&nGt;&acE; two code points each</p>",
    "<p>fish&chips; AT&T &&& &; &#; a&b=c</p>",
    "<a href='/x?a=1&copy=2&amp;b=3&copy;&notanentity;&lt'>x</a>",
    "<a href=\"/y?q=&amp&quot=&quot\">y</a><a href=/z?&#x41;&#65;>z</a>",
    "<p>1 < 2 and 3 <4 and <> and </> and </ 5 and <!x> and <?php x ?> and a<b</p>",
    "<p>nul\0in\0text</p><a href=\"/n\0ul\">n\0</a><title>t\0t</title><x\0y>",
    "<p>cr\rlf\r\ncrlf\n\rlfcr</p><a href=\"/c\r\nr\">c\rr</a><title>a\r\nb</title>",
    "<A HREF=/Upper REL=NoFollow>Upper</A><LINK REL=CANONICAL HREF=/UC><META NAME=ROBOTS CONTENT=NOINDEX>",
    "<a href=/first href=/second>dup</a><link rel=canonical rel=alternate href=/d>",
    "<a href=/unquoted/value?x=1 title=t>u</a><a href = \" /spaced \" >s</a><a href=>empty</a><a href>none</a>",
    "<a/href=/slash/>slash</a><a href=/self-closing/ />sc<a\thref=/tab\n>tab</a>",
    "<a href=\"/unterminated>oops</a><a href=/after>after</a>",
    "<script>var a = '<a href=/in-script>';</script><a href=/after-script>s</a>",
    "<script><!--<script>document.write('</script>')</script>--></script><a href=/escaped>e</a>",
    "<script><!-- <a href=/in-escaped> --></script><a href=/out>o</a>",
    "<script>if (a</script) x</script ><a href=/st>st</a>",
    "<style>a[href='/in-style']{}</style ><a href=/after-style>s</a><style>/* </styl */</style>",
    "<title>A <b>bold</b> &amp; title</title><a href=/t>t</a>",
    "<textarea><a href=/in-textarea>x</a> &amp;</textarea><a href=/after-textarea>t</a>",
    "<xmp><a href=/in-xmp></xmp><iframe><a href=/in-iframe></iframe><iframe src=/frame></iframe>",
    "<noembed><a href=/in-noembed></noembed><noframes><a href=/in-noframes></noframes>",
    "<noscript><p>Please enable JavaScript to use this app.</p></noscript><div id=root></div><script src=/a.js></script>",
    "<noscript>Java&#83;cript java script JAVASCRIPT</noscript><div id=\"app\"> </div>",
    "<noscript>java</noscript>script<noscript>enable Javascript</noscript>",
    "<body><app-root></app-root><my-app>filled</my-app><div id=__next>\n</div>",
    "<plaintext><a href=/in-plaintext></plaintext><a href=/never>",
    "<template><a href=/in-template><template><a href=/deeper></template></template><a href=/out>o</a>",
    "<template/><a href=/after-self-closing-template>x</a>",
    "<template shadowrootmode=open><a href=/head-shadow></template><div><template shadowrootmode=open><a href=/shadow><template><a href=/inert></template><a href=/shadow-after></template></div>",
    "<p><template shadowrootmode=Closed>text <a href=/closed>c</a><template shadowrootmode=open><a href=/nested></template></template><template shadowrootmode=><a href=/none></template>",
    "<picture><source srcset=\"/a.webp 1x, /b.webp 2x\"><img src=/c.jpg alt=c></picture><source srcset=/not-in-picture.webp>",
    "<img srcset=\"/wide.jpg 600\u{e9}, /x.jpg 2\u{1f600}, /w.jpg 3w\">",
    "<img data-src=/lazy.jpg src=data:image/gif;base64,R0lGOD><img src=/pixel.gif width=1 height=1px><img srcset='/s1.jpg 300w, /s2.jpg 600w'>",
    "<svg><a href=/svg-a>s</a><![CDATA[<a href=/in-cdata>]]><title>svg title</title></svg><math><a href=/math>m</a></math>",
    "<!--><a href=/after-short-comment>x</a><!---><a href=/y>y</a><!-- a -- b --!><a href=/z>z</a>",
    "<!-- unterminated <a href=/in-comment>",
    "<!DOCTYPE html PUBLIC \"-//W3C//DTD HTML 4.01//EN\"><!doctype><!DOCTYPEhtml><a href=/d>d</a>",
    "<![CDATA[<a href=/bogus-cdata>]]><a href=/after>a</a>",
    "<base href=/base/><base href=/ignored/><a href=rel>rel</a>",
    "<a href=x><base href=https://other.example/b/></a>",
    "<head><link rel=canonical href=/one><link rel=canonical href=/two></head><body><link rel=canonical href=/body>",
    "text first<link rel=canonical href=/late>",
    "   \n\t<link rel=canonical href=/whitespace-is-fine>",
    "<!-- c --><link rel=canonical href=/comment-is-fine><meta charset=utf-8><title>t</title><link rel=\"canonical\" href=\" /spaced \">",
    "<meta http-equiv=refresh content=\"0; url=/moved\"><meta http-equiv=REFRESH content='0;URL=\"/second\"'>",
    "<meta http-equiv=refresh content=\"5; url=/slow\"><meta name=robots content=\"noindex, nofollow\"><meta name=sitemapper content=noindex>",
    "<meta name=description content=\"  A   description\n with &amp; entity  \"><meta name=description content=second>",
    "<link rel=alternate hreflang=fr href=/fr/><link rel=\"alternate stylesheet\" hreflang=\" de \" href=/de/><area href=/area alt=\"Area text\">",
    "<a href=/a1><img alt=\"Image text\"></a><a href=/a1>second text</a><a href=/a2>  lots \n of   space  </a><a href=/a3><a href=/a4>nested</a></a>",
    "<h1>First <em>heading</em></h1><h1>second</h1><html lang=\" en-GB \"><html lang=fr>",
    "<img src=http://insecure.example/i.png><script src=http://insecure.example/s.js></script><link rel=stylesheet href=http://insecure.example/s.css><a href=http://insecure.example/page>link</a>",
    "<a href=\"#/route\">hash</a><a href=\"#!/bang\">bang</a><a href=\"#section\">fragment</a><a href=\"/p#/x\">p</a>",
    "<a href=\"javascript:void(0)\">js</a><a href=\"mailto:a@b.c\">m</a><a href=\"//other.example/x\">proto</a><a href=\"http://[::1]:8080/v6\">v6</a>",
    "<a href=\"/caf\u{e9}?q=\u{e9}\">unicode</a><a href=\"/%zz\">bad escape</a><a href=\"http://exa mple.com/\">bad host</a>",
    "<p>\u{2028}unicode\u{a0}spaces\u{3000}between\u{200b}words</p>",
    "<p>emoji \u{1f600}&#x1F600;&#128512;</p>",
    "<a href=/é>é</a><A hRef=/mixed>m</a><a HREF=/x></A>",
    "<div id=root><!-- empty but for a comment --></div>",
    "<script type=application/ld+json>{\"url\": \"/json\"}</script><script type=module>import '/m.js'</script><script type=\"text/template\"><a href=/tpl></script>",
    "<frameset><frame src=/frame1><frame src=/frame2></frameset>",
    "<a href=/eof-in-tag",
    "<a href=/eof-in-attribute-value attr=\"",
    "<p>eof after ampersand &",
    "<p>eof after lt <",
    "<p>eof after end tag open </",
    "<title>unterminated title",
    "<script>unterminated script <a href=/no>",
    "<textarea>unterminated <a href=/no>",
];

#[test]
fn awkward_markup_reads_the_same() {
    for html in AWKWARD {
        check(html);
    }
}

/// A page of a crawler trap: links that make endless URLs (a calendar's next month, a path
/// that grows, session ids, sort orders).
fn trap_page(index: usize) -> String {
    format!(
        "<!DOCTYPE html><html><head><title>Calendar {index}</title>\
         <link rel=canonical href=\"/calendar/{index}/\"></head><body>\
         <a href=\"?month={next}\">next month</a> <a href=\"../{prev}/\">previous</a>\
         <a href=\"sub/\">deeper</a> <a href=\"./sub/sub/../sub/\">loop</a>\
         <a href=\"/cart?sid=9f8e7d6c5b4a39281716{index}\">cart</a>\
         <a href=\"/list?sort=asc&amp;page={next}&amp;sid=A1B2C3D4E5F6G7H8\">sorted</a>\
         <a href=\"{long}\">long</a></body></html>",
        next = index + 1,
        prev = index.saturating_sub(1),
        long = "a/".repeat(index % 50),
    )
}

#[test]
fn crawler_trap_pages_read_the_same() {
    for index in 0..60 {
        check(&trap_page(index));
    }
}

/// A page shaped like the web: a head of metadata, an inline style sheet, scripts and
/// JSON-LD, navigation repeated, relative, root-relative and query links, entities in text.
fn web_page(index: usize) -> String {
    let mut html = String::with_capacity(40_000);
    html.push_str(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">",
    );
    html.push_str(&format!(
        "<title>Guide {index} &mdash; Example Docs</title>\
         <meta name=\"description\" content=\"Page {index} &amp; more\">\
         <link rel=\"canonical\" href=\"/docs/guide/{index}.html\">\
         <link rel=\"alternate\" hreflang=\"de\" href=\"/de/docs/guide/{index}.html\">\
         <link rel=\"preload\" href=\"/assets/font.woff2\" as=\"font\" crossorigin>\
         <style>body{{margin:0}} a[href^='http']::after{{content:'\\2197'}} .x>.y{{}}</style>\
         <script>window.dataLayer=[];function g(){{dataLayer.push(arguments)}}if(1<2&&3>2){{}}</script>\
         <script type=\"application/ld+json\">{{\"@type\":\"Article\",\"url\":\"/docs/guide/{index}.html\"}}</script>\
         </head><body><a class=\"skip\" href=\"#main\">Skip</a><nav><ul>"
    ));
    for section in 0..20 {
        html.push_str(&format!(
            "<li><a href=\"/docs/s{section}/\" class=\"nav-link\">Section {section} &raquo;</a></li>"
        ));
    }
    html.push_str("</ul></nav><main id=\"main\"><h1>Guide &ldquo;");
    html.push_str(&index.to_string());
    html.push_str("&rdquo;</h1>");
    for paragraph in 0..30 {
        html.push_str(&format!(
            "<p>Lorem ipsum dolor sit amet, <a href=\"{paragraph}.html?utm_source=x&amp;utm_medium=y\">consectetur</a> \
             adipiscing elit &ndash; sed do eiusmod tempor&nbsp;incididunt ut labore \
             <code>&lt;a href=&quot;/not-a-link&quot;&gt;</code> et dolore magna aliqua. \
             <a href=\"../related/{paragraph}.html?ref=related#top\">Related</a> \
             <img src=\"/img/{paragraph}.png\" alt=\"Figure {paragraph}\" loading=\"lazy\"></p>\n"
        ));
    }
    html.push_str(
        "</main><footer><p>&copy; 2026 Example &bull; <a href=\"/privacy\">Privacy</a></p>\
         <script src=\"/assets/app.js\" defer></script></footer></body></html>\n",
    );
    html
}

#[test]
fn pages_shaped_like_the_web_read_the_same() {
    for index in 0..20 {
        check(&web_page(index));
    }
}

#[test]
fn hostile_pages_read_the_same() {
    check(&"<div>".repeat(100_000));
    check(&format!("<a href=\"/{}\">long</a>", "x".repeat(1 << 20)));
    check(&format!(
        "<a href=/a {}>many attributes</a>",
        (0..10_000)
            .map(|index| format!("a{index}=v "))
            .collect::<String>()
    ));
    check(
        &(0..20_000)
            .map(|index| format!("<a href=/p/{index}>{index}</a>"))
            .collect::<String>(),
    );
    check(&"&amp;".repeat(50_000));
    check(&"<!--".repeat(10_000));
    check(&"<".repeat(50_000));
    check(&format!("<title>{}</title>", "t ".repeat(100_000)));
    check(&format!(
        "<a href=/x>{}</a>",
        " \n".repeat(1_000) + &"word ".repeat(1_000)
    ));
}

/// Pieces of markup that tokenizers treat differently, to assemble documents from.
fn piece() -> impl Strategy<Value = String> {
    let tag_name = prop_oneof![
        Just("a"),
        Just("A"),
        Just("area"),
        Just("base"),
        Just("link"),
        Just("meta"),
        Just("title"),
        Just("script"),
        Just("style"),
        Just("noscript"),
        Just("template"),
        Just("textarea"),
        Just("plaintext"),
        Just("xmp"),
        Just("iframe"),
        Just("picture"),
        Just("source"),
        Just("img"),
        Just("h1"),
        Just("html"),
        Just("head"),
        Just("body"),
        Just("div"),
        Just("p"),
        Just("svg"),
        Just("app-root"),
        Just("frame"),
    ];
    let attribute_name = prop_oneof![
        Just("href"),
        Just("HREF"),
        Just("rel"),
        Just("src"),
        Just("srcset"),
        Just("data-src"),
        Just("alt"),
        Just("content"),
        Just("name"),
        Just("http-equiv"),
        Just("hreflang"),
        Just("id"),
        Just("type"),
        Just("lang"),
        Just("width"),
        Just("height"),
        Just("shadowrootmode"),
    ];
    let value = prop_oneof![
        Just("/page".to_string()),
        Just("canonical".to_string()),
        Just("alternate".to_string()),
        Just("nofollow".to_string()),
        Just("robots".to_string()),
        Just("noindex,nofollow".to_string()),
        Just("refresh".to_string()),
        Just("0; url=/moved".to_string()),
        Just("root".to_string()),
        Just("description".to_string()),
        Just("1".to_string()),
        Just("open".to_string()),
        "[a-z/?=&;#.:\\- ]{0,12}",
        "(&(amp|lt|gt|quot|copy|nbsp|notin|eacute|NotEqualTilde)?;?|&#x?[0-9a-fA-F]{0,4};?|[a-z=/ \0\r\n\"'<>])*",
    ];
    let attribute =
        (attribute_name, value, 0..4usize).prop_map(|(name, value, quoting)| match quoting {
            0 => format!(" {name}=\"{}\"", value.replace('"', "")),
            1 => format!(" {name}='{}'", value.replace('\'', "")),
            2 => format!(" {name}={}", value.replace([' ', '>'], "")),
            _ => format!(" {name}"),
        });
    prop_oneof![
        (
            tag_name.clone(),
            proptest::collection::vec(attribute, 0..4),
            any::<bool>()
        )
            .prop_map(|(name, attributes, self_closing)| format!(
                "<{name}{}{}>",
                attributes.concat(),
                if self_closing { "/" } else { "" }
            )),
        tag_name.prop_map(|name| format!("</{name}>")),
        "[A-Za-z]{1,8}( [A-Za-z]{1,8}){0,3}",
        "(&(amp|lt|gt|eacute|eacute;|nbsp;|mdash;|notit;|notin;|NotEqualTilde;|#233;|#x1F600;|#0;|#;|foo;)?)",
        Just("JavaScript".to_string()),
        "[ \t\r\n\0<>&/!?=\"'-]{1,4}",
        Just("<!-- comment -->".to_string()),
        Just("<!-->".to_string()),
        Just("<!DOCTYPE html>".to_string()),
        Just("<![CDATA[ x ]]>".to_string()),
        Just("<?pi?>".to_string()),
        Just("</>".to_string()),
        Just("<!--<script>".to_string()),
        Just("-->".to_string()),
        Just("\u{e9}\u{1f600}".to_string()),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1500, ..ProptestConfig::default() })]

    #[test]
    fn assembled_markup_reads_the_same(pieces in proptest::collection::vec(piece(), 0..60)) {
        check(&pieces.concat());
    }

    #[test]
    fn corpus_pages_with_bytes_changed_read_the_same(
        page in 0..AWKWARD.len() + 3,
        changes in proptest::collection::vec((any::<prop::sample::Index>(), 0..3u8, any::<u8>()), 1..12),
    ) {
        let mut bytes = match page {
            page if page < AWKWARD.len() => AWKWARD[page].as_bytes().to_vec(),
            page if page == AWKWARD.len() => trap_page(7).into_bytes(),
            _ => web_page(3).into_bytes(),
        };
        let interesting = b"<>&;#/!?=\"' \0\r\nax-";
        for (at, change, byte) in changes {
            let at = at.index(bytes.len() + 1);
            let byte = if byte < 128 { interesting[usize::from(byte) % interesting.len()] } else { byte };
            match change {
                0 => bytes.insert(at, byte),
                1 if at < bytes.len() => { bytes.remove(at); }
                _ if at < bytes.len() => bytes[at] = byte,
                _ => bytes.push(byte),
            }
        }
        let headers = ResponseHeaders {
            content_type: Some("text/html; charset=utf-8".to_string()),
            ..ResponseHeaders::default()
        };
        same_facts(&bytes, &headers, HTTPS_PAGE, &ExtractOptions::default());
    }
}
