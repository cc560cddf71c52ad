//! Structured data as a page declares it, read through `extract` (over both tokenizers:
//! see `differential`).

use super::{Item, JsonLdError, MAX_STRUCTURED_BYTES, Source, StructuredData, Value};
use crate::differential::same_facts;
use crate::facts::{ExtractOptions, ResponseHeaders};
use crate::tokens;

const PAGE: &str = "https://example.com/dir/page.html";

fn read(html: &str) -> StructuredData {
    let headers = ResponseHeaders {
        content_type: Some("text/html; charset=utf-8".to_string()),
        ..ResponseHeaders::default()
    };
    let options = ExtractOptions {
        structured: true,
        ..ExtractOptions::default()
    };
    same_facts(html.as_bytes(), &headers, PAGE, &options)
        .structured
        .expect("asked for")
}

fn text(value: &str) -> Value {
    Value::Text(value.to_string())
}

fn property(name: &str, value: Value) -> (String, Value) {
    (name.to_string(), value)
}

fn item(source: Source, types: &[&str], properties: Vec<(String, Value)>) -> Item {
    Item {
        types: types.iter().map(ToString::to_string).collect(),
        source,
        properties,
    }
}

#[test]
fn nothing_is_read_unless_asked_for_and_a_page_without_any_reads_empty() {
    let html = r#"<script type="application/ld+json">{"@type": "Thing"}</script>"#;
    let headers = ResponseHeaders::default();
    let facts = same_facts(html.as_bytes(), &headers, PAGE, &ExtractOptions::default());
    assert_eq!(facts.structured, None);
    assert_eq!(read("<p>Nothing here</p>"), StructuredData::default());
}

#[test]
fn an_object_is_one_item_with_its_members_in_order() {
    let data = read(
        r#"<head><script type=" Application/LD+JSON ; charset=utf-8">
        {"@context": "https://schema.org", "@type": "https://schema.org/NewsArticle",
         "@id": "https://example.com/#article", "headline": "Moon", "wordCount": 1200,
         "rating": 4.0, "isAccessibleForFree": true, "schema:author": null,
         "http://schema.org/inLanguage": "en"}
        </script><script type="application/json">{"@type": "NotLd"}</script></head>"#,
    );
    assert_eq!(
        data.items,
        [item(
            Source::JsonLd,
            &["NewsArticle"],
            vec![
                property("@id", text("https://example.com/#article")),
                property("headline", text("Moon")),
                property("wordCount", text("1200")),
                property("rating", text("4.0")),
                property("isAccessibleForFree", text("true")),
                property("inLanguage", text("en")),
            ],
        )]
    );
    assert!(data.errors.is_empty() && !data.truncated);
}

#[test]
fn an_array_and_a_graph_each_give_top_level_items() {
    let data = read(
        r#"<script type="application/ld+json">[{"@type": "Organization", "name": "A"}, 3,
            {"@type": ["schema:WebSite", "Thing"], "name": "B"}]</script>
        <script type="application/ld+json">{"@context": "https://schema.org", "@graph": [
            {"@type": "BreadcrumbList"}, {"@type": "WebPage", "name": "C"}]}</script>"#,
    );
    let types: Vec<&[String]> = data.items.iter().map(|item| &item.types[..]).collect();
    assert_eq!(
        types,
        [
            &["Organization".to_string()][..],
            &["WebSite".to_string(), "Thing".to_string()],
            &["BreadcrumbList".to_string()],
            &["WebPage".to_string()],
        ]
    );
    assert_eq!(data.items[3].text("name"), Some("C"));
}

#[test]
fn nested_objects_are_items_and_arrays_repeat_a_property() {
    let data = read(
        r#"<script type="application/ld+json">
        {"@type": "Recipe", "recipeIngredient": ["flour", ["eggs"], {"@value": "milk"}],
         "author": {"@type": "Person", "name": "Ann", "url": "https://example.com/ann"},
         "video": [{"@type": "VideoObject", "name": "How"}]}
        </script>"#,
    );
    let recipe = &data.items[0];
    let ingredients: Vec<&Value> = recipe.values("recipeIngredient").collect();
    assert_eq!(ingredients, [&text("flour"), &text("eggs"), &text("milk")]);
    let author = recipe.item("author").unwrap();
    assert!(author.is_a("Person"));
    assert_eq!(author.text("url"), Some("https://example.com/ann"));
    let videos: Vec<&Item> = data.items_of("VideoObject").collect();
    assert_eq!(videos.len(), 1);
    assert_eq!(videos[0].text("name"), Some("How"));
}

#[test]
fn a_block_that_does_not_parse_is_an_error_with_its_position_in_the_block() {
    let data = read(concat!(
        "<script type=\"application/ld+json\">{\"@type\": \"Thing\"}</script>\n",
        "<script type=\"application/ld+json\">\n{\n  \"a\": 1,\n  \"b\" 2\n}\n</script>",
        "<script type=\"application/ld+json\">{\"@type\": \"Event\",}</script>",
        "<script type=\"application/ld+json\">   </script>",
    ));
    assert_eq!(
        data.errors,
        [
            JsonLdError {
                block: 2,
                line: 4,
                column: 7,
                message: "expected `:`".to_string(),
            },
            JsonLdError {
                block: 3,
                line: 1,
                column: 19,
                message: "trailing comma".to_string(),
            },
            JsonLdError {
                block: 4,
                line: 1,
                column: 3,
                message: "EOF while parsing a value".to_string(),
            },
        ]
    );
    assert_eq!(data.items.len(), 1);
}

#[test]
fn comment_and_cdata_wrappers_are_tolerated() {
    let data = read(concat!(
        "<script type=\"application/ld+json\">\n  <!-- {\"@type\": \"A\"} -->\n</script>",
        "<script type=\"application/ld+json\">//<![CDATA[\n{\"@type\": \"B\"}\n//]]></script>",
        "<script type=\"application/ld+json\"><!--\n{\"@type\": \"C\" x}\n--></script>",
    ));
    let types: Vec<&str> = data.items.iter().map(|item| &*item.types[0]).collect();
    assert_eq!(types, ["A", "B"]);
    // The wrapper is blanked, not cut: the position is the one in the block as written.
    assert_eq!((data.errors[0].line, data.errors[0].column), (2, 15));
}

#[test]
fn microdata_items_nest_follow_itemref_and_take_each_elements_value() {
    let data = read(
        r#"<html><head><base href="https://example.com/base/"></head><body>
        <div itemscope itemtype="https://schema.org/Product http://schema.org/Thing"
             itemref="offer" itemid="/products/1">
          <h1 itemprop="name  alternateName">Red   <b>sh</b>oe</h1>
          <img itemprop="image" src="shoe.jpg">
          <a itemprop="url" href="/shoe">link</a>
          <meta itemprop="sku" content="S-1">
          <time itemprop="releaseDate" datetime="2024-05-01">May</time>
          <time itemprop="endDate">June</time>
          <data itemprop="gtin" value="0123">code</data>
          <object itemprop="manual" data="manual.pdf"></object>
          <div itemprop="brand" itemscope itemtype="schema:Brand">
            <span itemprop="name">Acme</span>
          </div>
        </div>
        <p>between</p>
        <div id="offer"><span itemprop="price">9.99</span></div>
        <section itemscope itemtype="https://schema.org/Person" itemref="loop">
          <span id="loop" itemprop="knows" itemscope itemref="loop"><i itemprop="name">B</i></span>
        </section>
        </body></html>"#,
    );
    let brand = item(
        Source::Microdata,
        &["Brand"],
        vec![property("name", text("Acme"))],
    );
    assert_eq!(
        data.items[0],
        item(
            Source::Microdata,
            &["Product", "Thing"],
            vec![
                property("@id", text("https://example.com/products/1")),
                property("name", text("Red shoe")),
                property("alternateName", text("Red shoe")),
                property("image", text("https://example.com/base/shoe.jpg")),
                property("url", text("https://example.com/shoe")),
                property("sku", text("S-1")),
                property("releaseDate", text("2024-05-01")),
                property("endDate", text("June")),
                property("gtin", text("0123")),
                property("manual", text("https://example.com/base/manual.pdf")),
                property("brand", Value::Item(brand)),
                property("price", text("9.99")),
            ],
        )
    );
    // An itemref that leads back to the item being read is not followed again.
    let person = &data.items[1];
    assert!(person.is_a("Person"));
    assert_eq!(person.item("knows").unwrap().text("name"), Some("B"));
    assert_eq!(data.items.len(), 2);
}

#[test]
fn json_ld_items_come_before_microdata_ones() {
    let data = read(
        r#"<body><div itemscope itemtype="https://schema.org/Event"><span itemprop="name">M</span></div>
        <script type="application/ld+json">{"@type": "Organization"}</script></body>"#,
    );
    let sources: Vec<Source> = data.items.iter().map(|item| item.source).collect();
    assert_eq!(sources, [Source::JsonLd, Source::Microdata]);
}

#[test]
fn only_a_page_with_itemscope_is_parsed_into_a_tree() {
    let wanted = tokens::Wanted {
        text: false,
        legacy_text: false,
        details: false,
        structured: true,
    };
    let notes = |html: &str| tokens::read(html, wanted).structured.unwrap();
    assert!(!notes(r#"<div itemprop="name">x</div><script>"itemscope"</script>"#).itemscope);
    assert!(notes(r#"<p><span itemscope>x</span>"#).itemscope);
}

#[test]
fn videos_with_a_poster_and_the_published_time_are_read() {
    let data = read(
        r#"<head><meta property="article:published_time" content=" 2024-05-01T08:00:00Z ">
        <meta property="article:published_time" content="2020-01-01"></head><body>
        <video poster="/p1.jpg" title="  The   launch " src="v1.mp4"></video>
        <video poster="p2.jpg"><source type="video/webm"><source src="/v2.webm"><source src="/v2.mp4"></video>
        <video src="/no-poster.mp4"></video>
        <template><video poster="/inert.jpg"></video></template>
        </body>"#,
    );
    assert_eq!(data.published_time.as_deref(), Some("2024-05-01T08:00:00Z"));
    let videos: Vec<(&str, Option<&str>, Option<&str>)> = data
        .videos
        .iter()
        .map(|video| {
            (
                video.poster.as_str(),
                video.src.as_deref(),
                video.title.as_deref(),
            )
        })
        .collect();
    assert_eq!(
        videos,
        [
            (
                "https://example.com/p1.jpg",
                Some("https://example.com/dir/v1.mp4"),
                Some("The launch")
            ),
            (
                "https://example.com/dir/p2.jpg",
                Some("https://example.com/v2.webm"),
                None
            ),
        ]
    );
}

#[test]
fn trailing_items_are_left_out_to_keep_within_the_cap() {
    let long = "x".repeat(1500);
    let block = |index: usize| {
        format!(
            r#"<script type="application/ld+json">{{"@type": "Thing", "name": "{index}", "description": "{long}"}}</script>"#
        )
    };
    let html: String = (0..200).map(block).collect();
    let data = read(&html);
    assert!(data.truncated);
    assert!(data.to_json().len() <= MAX_STRUCTURED_BYTES);
    assert!(data.items.len() > 30 && data.items.len() < 64);
    let names: Vec<&str> = data
        .items
        .iter()
        .filter_map(|item| item.text("name"))
        .collect();
    assert_eq!(names[..3], ["0", "1", "2"]);
    // Blocks past the bound are not read, and that too is said.
    assert!(
        read(
            &(0..70)
                .map(|_| "<script type=application/ld+json>{}</script>")
                .collect::<String>()
        )
        .truncated
    );
}

#[test]
fn hostile_nesting_is_bounded() {
    let deep = format!("{}{}", "[".repeat(300), "]".repeat(300));
    let data = read(&format!("<script type=application/ld+json>{deep}</script>"));
    assert_eq!(data.errors[0].message, "recursion limit exceeded");

    let nested = format!(
        "{}{{}}{}",
        r#"{"@type": "Thing", "child": "#.repeat(40),
        "}".repeat(40)
    );
    let data = read(&format!(
        "<script type=application/ld+json>{nested}</script>"
    ));
    assert!(data.truncated);
    let depth = data.all_items().len();
    assert_eq!(depth, super::budget::MAX_DEPTH + 1);

    let many: String = (0..1500).map(|_| "<i itemscope></i>").collect();
    let data = read(&many);
    assert_eq!(data.items.len(), super::budget::MAX_ITEMS);
    assert!(data.truncated);
}

#[test]
fn microdata_past_deep_nesting_is_cut_and_said() {
    let before =
        r#"<p itemscope itemtype="https://schema.org/Person"><span itemprop=name>Ada</span></p>"#;
    let after =
        r#"<p itemscope itemtype="https://schema.org/Person"><span itemprop=name>Bob</span></p>"#;
    let levels = crate::tree::MAX_TREE_DEPTH as usize * 2;
    let html = format!(
        "{before}{}{after}{}",
        r#"<div itemscope itemprop="about">"#.repeat(levels),
        "</div>".repeat(levels)
    );
    let data = read(&html);
    let cut = data.tree_cut.expect("cut");
    assert_eq!(cut.reason, crate::CutReason::Deep);
    assert!(cut.at_byte > before.len() as u64 && cut.at_byte < html.len() as u64);
    assert!(data.truncated);
    let names: Vec<&str> = data
        .all_items()
        .iter()
        .filter_map(|item| item.text("name"))
        .collect();
    assert_eq!(names, ["Ada"]);
    // The cut is kept with the rest of the page's data.
    let stored = StructuredData::from_json(&data.to_json()).expect("reads back");
    assert_eq!(stored.tree_cut, Some(cut));
}

#[test]
fn a_property_text_counts_against_the_visits() {
    // Each property nests in the one before, within the tree's depth: reading each one's
    // text walks the rest again, 3 x 400 x 400 / 2 element visits in all.
    let levels = 400;
    let nest = format!(
        "{}x{}",
        "<span itemprop=name>".repeat(levels),
        "</span>".repeat(levels)
    );
    let data = read(&format!("<div itemscope>{}</div>", nest.repeat(3)));
    assert_eq!(data.tree_cut, None);
    assert!(data.truncated);
    let data = read(&format!("<div itemscope>{nest}</div>"));
    assert!(!data.truncated);
    assert_eq!(data.items[0].properties.len(), levels);
}
