//! The checks of structured data against the rich results' table: a valid page per rich
//! result, each required property taken away, nested items, dates, URLs, JSON-LD that does
//! not parse; then the findings of a run recorded through the store.

use serde_json::json;
use sitemapper_extract::{CutReason, Item, JsonLdError, Source, StructuredData, TreeCut, Value};
use sitemapper_store::{PageRecord, Verdict};

use crate::kind::FindingKind;
use crate::rich_results::{Need, RICH_RESULTS, markdown};
use crate::structured_data::{MAX_DETAIL_CHARS, check, is_absolute_http, is_date};
use crate::tests::{audit, page};

/// An item read from JSON as JSON-LD reads: `@type` its types, an array a property repeated,
/// an object a nested item, a number or boolean its text.
fn item(json: &serde_json::Value) -> Item {
    let object = json.as_object().expect("an object");
    let types = match object.get("@type") {
        Some(serde_json::Value::String(name)) => vec![name.clone()],
        Some(serde_json::Value::Array(names)) => names
            .iter()
            .filter_map(|name| name.as_str().map(ToString::to_string))
            .collect(),
        _ => Vec::new(),
    };
    let mut properties = Vec::new();
    for (name, value) in object.iter().filter(|(name, _)| !name.starts_with('@')) {
        let values = match value {
            serde_json::Value::Array(values) => values.clone(),
            value => vec![value.clone()],
        };
        for value in values {
            let value = match value {
                serde_json::Value::Object(_) => Value::Item(item(&value)),
                serde_json::Value::String(text) => Value::Text(text),
                other => Value::Text(other.to_string()),
            };
            properties.push((name.clone(), value));
        }
    }
    Item {
        types,
        source: Source::JsonLd,
        properties,
    }
}

fn page_of(items: &[serde_json::Value]) -> StructuredData {
    StructuredData {
        items: items.iter().map(item).collect(),
        ..StructuredData::default()
    }
}

/// No problem at all.
const NONE: [(&str, String); 0] = [];

fn problems(items: &[serde_json::Value]) -> Vec<(&'static str, String)> {
    check(&page_of(items))
        .into_iter()
        .map(|(kind, detail)| (kind.code(), detail))
        .collect()
}

/// A page of each rich result with every required and recommended property, valid.
fn valid(feature: &str) -> serde_json::Value {
    let person = json!({"@type": "Person", "name": "Jane Doe", "url": "https://e.com/jane"});
    let address = json!({
        "@type": "PostalAddress", "streetAddress": "1 Main St", "addressLocality": "Town",
        "addressRegion": "TS", "postalCode": "12345", "addressCountry": "US"
    });
    match feature {
        "Article" => json!({
            "@type": "NewsArticle", "headline": "Moon landing", "image": "https://e.com/moon.jpg",
            "datePublished": "2024-01-05T08:00:00+08:00", "dateModified": "2024-02-05",
            "author": [person, {"@type": "Organization", "name": "Desk", "url": "https://e.com/"}]
        }),
        "Product snippet" => json!({
            "@type": "Product", "name": "Anvil",
            "offers": {"@type": "Offer", "price": 119.99, "priceCurrency": "USD",
                "availability": "https://schema.org/InStock", "priceValidUntil": "2030-11-20"},
            "review": {"@type": "Review", "author": {"@type": "Person", "name": "Fred"},
                "datePublished": "2024-03-01",
                "reviewRating": {"@type": "Rating", "ratingValue": 4, "bestRating": 5, "worstRating": 1}},
            "aggregateRating": {"@type": "AggregateRating", "ratingValue": 4.4, "reviewCount": 89,
                "bestRating": 5, "worstRating": 1}
        }),
        "Breadcrumb" => json!({
            "@type": "BreadcrumbList", "itemListElement": [
                {"@type": "ListItem", "position": 1, "name": "Books", "item": "https://e.com/books"},
                {"@type": "ListItem", "position": 2, "name": "Science fiction"}
            ]
        }),
        "FAQ" => json!({
            "@type": "FAQPage", "mainEntity": [{"@type": "Question", "name": "How?",
                "acceptedAnswer": {"@type": "Answer", "text": "Like this."}}]
        }),
        "Video" => json!({
            "@type": "VideoObject", "name": "Launch", "description": "The launch",
            "thumbnailUrl": ["https://e.com/1.jpg", "https://e.com/2.jpg"],
            "uploadDate": "2024-03-31T08:00:00+08:00", "duration": "PT1M54S",
            "contentUrl": "https://e.com/launch.mp4", "expires": "2030-01-01"
        }),
        "Event" => json!({
            "@type": "MusicEvent", "name": "Concert", "startDate": "2030-07-21T19:00-05:00",
            "endDate": "2030-07-21T23:00-05:00", "description": "Loud",
            "eventAttendanceMode": "https://schema.org/OfflineEventAttendanceMode",
            "eventStatus": "https://schema.org/EventScheduled", "image": "https://e.com/c.jpg",
            "location": {"@type": "Place", "name": "Hall", "address": address},
            "offers": {"@type": "Offer", "url": "https://e.com/tickets", "price": 30,
                "priceCurrency": "USD", "availability": "https://schema.org/InStock",
                "validFrom": "2030-05-21T12:00:00Z"},
            "organizer": {"@type": "Organization", "name": "Hall Inc", "url": "https://e.com/"},
            "performer": {"@type": "PerformingGroup", "name": "The Band"}
        }),
        "Organization" => json!({
            "@type": "Organization", "name": "Example", "url": "https://e.com/",
            "logo": "https://e.com/logo.png", "sameAs": "https://social.example/e",
            "description": "We make things", "email": "hi@e.com", "telephone": "+1-555-0100",
            "address": address, "contactPoint": {"@type": "ContactPoint", "telephone": "+1-555-0101"}
        }),
        "Local business" => json!({
            "@type": "Restaurant", "name": "Dave's", "address": address,
            "geo": {"@type": "GeoCoordinates", "latitude": 40.7, "longitude": -74.0},
            "openingHoursSpecification": {"@type": "OpeningHoursSpecification", "opens": "11:00"},
            "priceRange": "$$", "telephone": "+1-555-0102", "url": "https://e.com/daves",
            "aggregateRating": {"@type": "AggregateRating", "ratingValue": 4, "reviewCount": 250}
        }),
        "Recipe" => json!({
            "@type": "Recipe", "name": "Pie", "image": "https://e.com/pie.jpg", "author": person,
            "datePublished": "2018-03-10", "description": "A pie", "prepTime": "PT20M",
            "cookTime": "PT30M", "totalTime": "PT50M", "keywords": "pie", "recipeYield": "8",
            "recipeCategory": "Dessert", "recipeCuisine": "American",
            "nutrition": {"@type": "NutritionInformation", "calories": "270 calories"},
            "recipeIngredient": ["flour", "apples"],
            "recipeInstructions": [{"@type": "HowToStep", "text": "Bake."}],
            "aggregateRating": {"@type": "AggregateRating", "ratingValue": 5, "ratingCount": 18},
            "video": {"@type": "VideoObject", "name": "Baking", "description": "How",
                "thumbnailUrl": "https://e.com/v.jpg", "uploadDate": "2018-02-05",
                "duration": "PT1M33S", "embedUrl": "https://e.com/embed/1", "expires": "2030-01-01"}
        }),
        "Job posting" => json!({
            "@type": "JobPosting", "title": "Engineer", "description": "<p>Build</p>",
            "datePosted": "2024-01-18", "validThrough": "2030-03-18T00:00:00Z",
            "employmentType": "FULL_TIME", "directApply": true, "identifier": "1234567",
            "hiringOrganization": {"@type": "Organization", "name": "Example",
                "sameAs": "https://e.com/", "logo": "https://e.com/logo.png"},
            "jobLocation": {"@type": "Place", "address": address},
            "baseSalary": {"@type": "MonetaryAmount", "currency": "USD"}
        }),
        other => panic!("no valid page of {other}"),
    }
}

/// `json` without `property` (at its top level).
fn without(json: &serde_json::Value, property: &str) -> serde_json::Value {
    let mut json = json.clone();
    json.as_object_mut().expect("an object").remove(property);
    json
}

/// The properties a need names, each one removed takes it away.
fn properties_of(need: &Need) -> Vec<&'static str> {
    match need {
        Need::One(property) => vec![*property],
        Need::AnyOf(alternatives) => alternatives
            .iter()
            .map(|alternative| alternative[0].property)
            .collect(),
    }
}

#[test]
fn a_valid_page_of_each_rich_result_has_no_finding() {
    for result in RICH_RESULTS {
        let found = problems(&[valid(result.feature)]);
        assert!(found.is_empty(), "{}: {found:?}", result.feature);
    }
}

#[test]
fn each_required_property_taken_away_is_exactly_that_finding() {
    for result in RICH_RESULTS {
        let page = valid(result.feature);
        let type_name = page["@type"].as_str().unwrap();
        for need in result.shape.required {
            let mut lacking = page.clone();
            for property in properties_of(need) {
                lacking = without(&lacking, property);
            }
            let found = problems(&[lacking]);
            let expected = (
                "rich-result-missing-required",
                format!("{type_name} lacks {}", need.describe()),
            );
            let warnings: Vec<_> = found
                .iter()
                .filter(|(code, _)| *code != "rich-result-missing-recommended")
                .collect();
            assert_eq!(warnings, [&expected], "{}", result.feature);
        }
    }
}

#[test]
fn each_recommended_property_taken_away_is_a_notice_naming_it() {
    let article = valid("Article");
    assert_eq!(
        problems(&[without(&article, "dateModified")]),
        [(
            "rich-result-missing-recommended",
            "NewsArticle lacks dateModified".to_string()
        )]
    );
    let video = without(&without(&valid("Video"), "contentUrl"), "duration");
    assert_eq!(
        problems(&[video]),
        [(
            "rich-result-missing-recommended",
            "VideoObject lacks contentUrl or embedUrl, duration".to_string()
        )]
    );
}

#[test]
fn nested_items_are_checked_where_they_stand() {
    let mut product = valid("Product snippet");
    product["offers"] = json!({"@type": "Offer", "price": "10", "availability": "InStock",
        "priceValidUntil": "2030-01-01"});
    product["review"]["reviewRating"] =
        json!({"@type": "Rating", "bestRating": 5, "worstRating": 1});
    product["review"]["author"] = json!({"@type": "Organization", "url": "https://e.com/"});
    assert_eq!(
        problems(&[product]),
        [(
            "rich-result-missing-required",
            "Product.offers lacks priceCurrency or priceSpecification; \
             Product.review.author lacks name; Product.review.reviewRating lacks ratingValue"
                .to_string()
        )]
    );
    // An offer priced by its specification needs no price or currency of its own.
    let mut specified = valid("Product snippet");
    specified["offers"] = json!({"@type": "Offer", "availability": "InStock",
        "priceValidUntil": "2030-01-01",
        "priceSpecification": {"@type": "UnitPriceSpecification", "price": 5, "priceCurrency": "EUR"}});
    assert_eq!(problems(&[specified]), NONE);

    let mut faq = valid("FAQ");
    faq["mainEntity"] = json!([
        {"@type": "Question", "name": "One?", "acceptedAnswer": {"@type": "Answer", "text": "Yes"}},
        {"@type": "Question", "name": "Two?", "acceptedAnswer": {"@type": "Answer"}}
    ]);
    assert_eq!(
        problems(&[faq]),
        [(
            "rich-result-missing-required",
            "FAQPage.mainEntity 2.acceptedAnswer lacks text".to_string()
        )]
    );
    // A video inside an article is a video rich result of its own.
    let mut article = valid("Article");
    article["video"] = without(&valid("Video"), "uploadDate");
    assert_eq!(
        problems(&[article]),
        [(
            "rich-result-missing-required",
            "VideoObject lacks uploadDate".to_string()
        )]
    );
}

#[test]
fn the_last_crumb_may_lack_its_url_and_the_others_may_not() {
    let mut breadcrumb = valid("Breadcrumb");
    breadcrumb["itemListElement"] = json!([
        {"@type": "ListItem", "position": 1, "name": "Books"},
        {"@type": "ListItem", "position": 2, "name": "Science fiction"}
    ]);
    assert_eq!(
        problems(&[breadcrumb]),
        [(
            "rich-result-missing-required",
            "BreadcrumbList.itemListElement 1 lacks item".to_string()
        )]
    );
}

#[test]
fn a_remote_job_needs_no_location_but_where_applicants_may_be() {
    let office = without(&valid("Job posting"), "jobLocation");
    let remote = |kind: &str| {
        let mut job = office.clone();
        job["jobLocationType"] = json!(kind);
        job["applicantLocationRequirements"] = json!({"@type": "Country", "name": "USA"});
        job
    };
    assert_eq!(problems(&[remote("telecommute")]), NONE);
    assert_eq!(
        problems(&[remote("ONSITE")]),
        [(
            "rich-result-missing-required",
            "JobPosting lacks jobLocation or applicantLocationRequirements with \
             jobLocationType TELECOMMUTE"
                .to_string()
        )]
    );
}

#[test]
fn organizations_are_checked_at_the_top_only_and_unknown_types_never() {
    // As an article's author, an organization is the author.
    let article = valid("Article");
    assert_eq!(problems(&[article]), NONE);
    assert_eq!(
        problems(&[json!({"@type": "Organization", "name": "Example", "url": "https://e.com/"})]),
        [(
            "rich-result-missing-recommended",
            "Organization lacks address, contactPoint, description, email, logo, sameAs, telephone"
                .to_string()
        )]
    );
    let unknown = json!({"@type": "WebSite", "url": "/relative", "datePublished": "soon",
        "about": {"@type": "Thing", "image": "also/relative"}});
    assert_eq!(problems(&[unknown]), NONE);
}

#[test]
fn dates_must_be_iso_8601() {
    for good in [
        "2024-01-05",
        "2024-01-05T08:00:00+08:00",
        "2024-01-05T08:00Z",
        "2024-01-05T08:00:00.5-05:00",
        "2024-01-05T08:00:00",
    ] {
        assert!(is_date(good), "{good}");
    }
    for bad in [
        "",
        "yesterday",
        "2024-13-01",
        "2024-02-30",
        "05/01/2024",
        "2024-01-05T25:00:00",
        "2024-01-05 08:00",
        "20240105",
    ] {
        assert!(!is_date(bad), "{bad}");
    }
    let mut event = valid("Event");
    event["startDate"] = json!("2030-07-21 at 19:00");
    event["offers"]["validFrom"] = json!("next week");
    assert_eq!(
        problems(&[event]),
        [(
            "structured-data-invalid-date",
            "MusicEvent.startDate \"2030-07-21 at 19:00\"; Offer.validFrom \"next week\""
                .to_string()
        )]
    );
}

#[test]
fn urls_must_be_absolute_and_http() {
    assert!(is_absolute_http("https://e.com/a.jpg"));
    assert!(is_absolute_http("http://e.com"));
    for bad in [
        "/a.jpg",
        "a.jpg",
        "//cdn.e.com/a.jpg",
        "javascript:alert(1)",
        "ftp://e.com/a",
        "",
    ] {
        assert!(!is_absolute_http(bad), "{bad}");
    }
    let mut recipe = valid("Recipe");
    recipe["image"] = json!(["https://e.com/pie.jpg", "/pie-4x3.jpg"]);
    recipe["author"]["url"] = json!("javascript:alert(1)");
    recipe["author"]["@type"] = json!("<b>Person; x");
    assert_eq!(
        problems(&[recipe]),
        [(
            "structured-data-invalid-url",
            "Recipe.image \"/pie-4x3.jpg\"; \"<b>Person; x\".url \"javascript:alert(1)\""
                .to_string()
        )]
    );
}

#[test]
fn json_ld_that_does_not_parse_is_a_finding_with_its_place() {
    let data = StructuredData {
        errors: vec![JsonLdError {
            block: 2,
            line: 3,
            column: 14,
            message: "expected `,` or `}`".to_string(),
        }],
        ..StructuredData::default()
    };
    assert_eq!(
        check(&data),
        [(
            FindingKind::StructuredDataInvalidJson,
            "block 2, line 3, column 14: expected `,` or `}`".to_string()
        )]
    );
}

#[test]
fn a_tree_cut_short_is_a_finding_with_its_reason_and_place() {
    let cut = |reason| StructuredData {
        tree_cut: Some(TreeCut {
            reason,
            at_byte: 20_480,
        }),
        truncated: true,
        ..StructuredData::default()
    };
    assert_eq!(
        check(&cut(CutReason::Deep)),
        [(
            FindingKind::StructuredDataCut,
            "elements nest more than 512 deep: microdata after the first 20480 bytes is not read"
                .to_string()
        )]
    );
    let costly = check(&cut(CutReason::Costly));
    assert_eq!(costly.len(), 1);
    assert!(
        costly[0]
            .1
            .starts_with("elements nest deep so many times over")
    );
}

#[test]
fn page_text_in_a_detail_is_quoted_and_cut_short() {
    let hostile = format!("<script>\"{}", "x".repeat(5_000));
    let products: Vec<serde_json::Value> = (0..50)
        .map(|index| json!({"@type": "Product", "name": format!("P{index}"), "url": format!("{index}{hostile}"),
            "offers": {"@type": "Offer", "price": index}}))
        .collect();
    let found = check(&page_of(&products));
    for (kind, detail) in &found {
        assert!(
            detail.chars().count() <= MAX_DETAIL_CHARS + 20,
            "{kind:?}: {} characters",
            detail.chars().count()
        );
    }
    let urls = &found
        .iter()
        .find(|(kind, _)| *kind == FindingKind::StructuredDataInvalidUrl)
        .expect("the URL is not absolute")
        .1;
    assert!(urls.starts_with("Product.url \"0<script>\\\"xxx"), "{urls}");
    assert!(
        urls.contains('…') && !urls.contains(&"x".repeat(100)),
        "{urls}"
    );
    assert!(urls.ends_with(" more"), "{urls}");
}

#[test]
fn docs_audit_md_lists_every_rich_result_of_the_table() {
    const START: &str = "<!-- rich results: generated from crates/audit/src/rich_results.rs -->\n";
    const END: &str = "<!-- end of rich results -->";
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/audit.md");
    let docs = std::fs::read_to_string(path).unwrap();
    let (before, rest) = docs
        .split_once(START)
        .expect("docs/audit.md has the start marker");
    let (_, after) = rest
        .split_once(END)
        .expect("docs/audit.md has the end marker");
    let expected = format!("{before}{START}{}{END}{after}", markdown());
    if std::env::var_os("SITEMAPPER_BLESS").is_some() {
        std::fs::write(path, &expected).unwrap();
        return;
    }
    assert!(
        docs == expected,
        "docs/audit.md's rich results differ from the table: \
         SITEMAPPER_BLESS=1 cargo test -p sitemapper-audit docs_audit_md_lists_every_rich_result"
    );
    for result in RICH_RESULTS {
        assert!(docs.contains(result.documentation), "{}", result.feature);
    }
}

#[test]
fn the_audit_of_a_recorded_run_has_the_structured_data_findings() {
    let structured = |items: &[serde_json::Value], errors: Vec<JsonLdError>| {
        Some(
            StructuredData {
                errors,
                ..page_of(items)
            }
            .to_json(),
        )
    };
    let product = without(&valid("Product snippet"), "name");
    let mut video = valid("Video");
    video["uploadDate"] = json!("31/03/2024");
    let broken = JsonLdError {
        block: 1,
        line: 2,
        column: 3,
        message: "EOF while parsing an object".to_string(),
    };
    let pages = vec![
        PageRecord {
            structured: structured(std::slice::from_ref(&product), vec![broken]),
            ..page("https://e.com/product", Verdict::Indexable)
        },
        PageRecord {
            structured: structured(&[video], Vec::new()),
            ..page("https://e.com/video", Verdict::Indexable)
        },
        PageRecord {
            structured: structured(&[valid("Recipe")], Vec::new()),
            ..page("https://e.com/recipe", Verdict::Indexable)
        },
        // Not listed: it shows in no search result.
        PageRecord {
            structured: structured(&[product], Vec::new()),
            ..page("https://e.com/hidden", Verdict::Excluded)
        },
    ];
    let found: Vec<(&str, String, String)> = audit(pages, &[])
        .into_iter()
        .filter(|(code, _, _)| {
            FindingKind::from_code(code)
                .is_some_and(|kind| kind >= FindingKind::StructuredDataInvalidJson)
        })
        .collect();
    let expected = [
        (
            "structured-data-invalid-json",
            "https://e.com/product",
            "block 1, line 2, column 3: EOF while parsing an object",
        ),
        (
            "rich-result-missing-required",
            "https://e.com/product",
            "Product lacks name",
        ),
        (
            "structured-data-invalid-date",
            "https://e.com/video",
            "VideoObject.uploadDate \"31/03/2024\"",
        ),
    ];
    let found: Vec<(&str, &str, &str)> = found
        .iter()
        .map(|(code, url, detail)| (*code, url.as_str(), detail.as_str()))
        .collect();
    assert_eq!(found, expected);
}
