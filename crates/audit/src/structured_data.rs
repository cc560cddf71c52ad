//! The checks of a page's structured data against the rich results of Google Search
//! ([`crate::rich_results`]): required and recommended properties of each item of a known
//! type, where it stands, nested items by the part of their parent's row; dates and URLs
//! within those items; JSON-LD blocks that do not parse. Items of other types are not read.
//!
//! A page has at most one finding of each kind, its detail naming every item and property
//! (the way a page's images without alt text are one finding). Details quote page text, so
//! each piece is cut short and quoted as Rust writes a string (escapes included), and the
//! whole is cut at [`MAX_DETAIL_CHARS`].

use std::collections::HashMap;

use sitemapper_extract::{CutReason, Item, MAX_TREE_DEPTH, StructuredData, TreeCut, Value};
use sitemapper_store::{RunId, Store, StoreError, Verdict};

use crate::finding::{Finding, finding};
use crate::kind::FindingKind;
use crate::rich_results::{
    DATE_PROPERTIES, Has, Need, Part, RICH_RESULTS, RichResult, Shape, Standing, URL_PROPERTIES,
};

/// A finding's detail is cut at about this many characters, at a problem's end.
pub(crate) const MAX_DETAIL_CHARS: usize = 400;

/// At most this many characters of a value quoted from the page.
const MAX_QUOTED_CHARS: usize = 80;

/// The structured-data findings of `run`: those of every listed (indexable) page that
/// declares structured data. Other pages show in no search result, rich or not.
pub(crate) fn structured_findings(store: &Store, run: RunId) -> Result<Vec<Finding>, StoreError> {
    let verdicts: HashMap<String, (Verdict, Option<sitemapper_store::Reason>)> =
        store.verdicts(run)?;
    let mut findings = Vec::new();
    store.for_each_structured(run, |url, json| -> Result<(), StoreError> {
        let listed = verdicts
            .get(url)
            .is_some_and(|(verdict, _)| *verdict == Verdict::Indexable);
        // Data a later or earlier sitemapper wrote in another shape is not read.
        if let Some(data) = StructuredData::from_json(json).filter(|_| listed) {
            findings.extend(
                check(&data)
                    .into_iter()
                    .map(|(kind, detail)| finding(kind, url, detail)),
            );
        }
        Ok(())
    })?;
    Ok(findings)
}

/// The problems of one page's structured data, at most one detail per kind, in the order of
/// [`FindingKind::ALL`].
pub(crate) fn check(data: &StructuredData) -> Vec<(FindingKind, String)> {
    let mut problems = Problems::default();
    for error in &data.errors {
        problems.invalid_json.push(format!(
            "block {}, line {}, column {}: {}",
            error.block,
            error.line,
            error.column,
            cut(&error.message, MAX_QUOTED_CHARS * 2)
        ));
    }
    if let Some(cut) = data.tree_cut {
        problems.cut.push(describe_cut(cut));
    }
    for item in &data.items {
        problems.visit(item, Place::TopLevel, false);
    }
    problems.into_details()
}

/// Where the page's tree was cut, and why.
fn describe_cut(cut: TreeCut) -> String {
    let why = match cut.reason {
        CutReason::Deep => format!("elements nest more than {MAX_TREE_DEPTH} deep"),
        CutReason::Costly => {
            "elements nest deep so many times over that its tree costs more to build than a page may"
                .to_string()
        }
    };
    format!(
        "{why}: microdata after the first {} bytes is not read",
        cut.at_byte
    )
}

/// Where an item stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Place {
    /// A top-level item of the page.
    TopLevel,
    /// Nested, under a property its parent's row has no part for.
    Nested,
    /// Nested under a part of its parent's row, which checks it.
    InPart,
}

/// What is wrong, by kind, each problem written once.
#[derive(Debug, Default)]
struct Problems {
    invalid_json: Vec<String>,
    cut: Vec<String>,
    missing_required: Vec<String>,
    missing_recommended: Vec<String>,
    invalid_dates: Vec<String>,
    invalid_urls: Vec<String>,
}

impl Problems {
    /// Checks `item` if it is a rich result where it stands, its dates and URLs if it is in
    /// one, then the items nested in it.
    fn visit(&mut self, item: &Item, place: Place, in_rich_result: bool) {
        let results: Vec<(&RichResult, &str)> = match place {
            Place::InPart => Vec::new(),
            Place::TopLevel | Place::Nested => rich_results_of(item, place),
        };
        for (result, type_name) in &results {
            self.check_shape(item, &result.shape, type_name, &[]);
        }
        let in_rich_result = in_rich_result || !results.is_empty();
        if in_rich_result {
            self.check_formats(item);
        }
        for (property, value) in &item.properties {
            if let Value::Item(nested) = value {
                let in_part = results.iter().any(|(result, _)| {
                    result
                        .shape
                        .parts
                        .iter()
                        .any(|part| part.property == property.as_str())
                });
                let place = if in_part {
                    Place::InPart
                } else {
                    Place::Nested
                };
                self.visit(nested, place, in_rich_result);
            }
        }
    }

    /// The required and recommended properties of `item` as `shape` asks, then its parts'
    /// items; `path` names the item (`Product`, `Product.offers`), `may_lack` the required
    /// properties it may leave out.
    fn check_shape(&mut self, item: &Item, shape: &Shape, path: &str, may_lack: &[&str]) {
        let missing = |needs: &[Need]| -> Vec<String> {
            needs
                .iter()
                .filter(|need| !matches!(need, Need::One(property) if may_lack.contains(property)))
                .filter(|need| !is_met(item, need))
                .map(Need::describe)
                .collect()
        };
        let required = missing(shape.required);
        if !required.is_empty() {
            push_once(
                &mut self.missing_required,
                format!("{path} lacks {}", required.join(", ")),
            );
        }
        let recommended = missing(shape.recommended);
        if !recommended.is_empty() {
            push_once(
                &mut self.missing_recommended,
                format!("{path} lacks {}", recommended.join(", ")),
            );
        }
        for part in shape.parts {
            self.check_part(item, part, path);
        }
    }

    /// The items `part` holds, each by the shape of its type.
    fn check_part(&mut self, item: &Item, part: &Part, path: &str) {
        let items: Vec<&Item> = item
            .values(part.property)
            .filter_map(|value| match value {
                Value::Item(nested) => Some(nested),
                Value::Text(_) => None,
            })
            .collect();
        let path = format!("{path}.{}", part.property);
        for (index, nested) in items.iter().enumerate() {
            let Some(shape) = part
                .shapes
                .iter()
                .find(|shape| shape.types.iter().any(|name| nested.is_a(name)))
            else {
                continue;
            };
            let last = index + 1 == items.len();
            let may_lack: &[&str] = if last { part.last_may_lack } else { &[] };
            let path = if items.len() > 1 {
                format!("{path} {}", index + 1)
            } else {
                path.clone()
            };
            self.check_shape(nested, shape, &path, may_lack);
        }
    }

    /// The dates and URLs `item` declares in text.
    fn check_formats(&mut self, item: &Item) {
        let type_name = item
            .types
            .first()
            .map_or_else(|| "item".to_string(), |name| type_label(name));
        for (property, value) in &item.properties {
            let Value::Text(text) = value else {
                continue;
            };
            let text = text.trim();
            let property = property.as_str();
            if DATE_PROPERTIES.contains(&property) && !is_date(text) {
                push_once(
                    &mut self.invalid_dates,
                    format!("{type_name}.{property} {:?}", cut(text, MAX_QUOTED_CHARS)),
                );
            }
            if URL_PROPERTIES.contains(&property) && !is_absolute_http(text) {
                push_once(
                    &mut self.invalid_urls,
                    format!("{type_name}.{property} {:?}", cut(text, MAX_QUOTED_CHARS)),
                );
            }
        }
    }

    /// One detail per kind that has problems.
    fn into_details(self) -> Vec<(FindingKind, String)> {
        [
            (FindingKind::StructuredDataInvalidJson, self.invalid_json),
            (FindingKind::StructuredDataCut, self.cut),
            (
                FindingKind::RichResultMissingRequired,
                self.missing_required,
            ),
            (
                FindingKind::RichResultMissingRecommended,
                self.missing_recommended,
            ),
            (FindingKind::StructuredDataInvalidDate, self.invalid_dates),
            (FindingKind::StructuredDataInvalidUrl, self.invalid_urls),
        ]
        .into_iter()
        .filter(|(_, problems)| !problems.is_empty())
        .map(|(kind, problems)| (kind, joined(&problems)))
        .collect()
    }
}

/// The rows `item` is read as where it stands, each with the type that matched (a name of the
/// table, never the page's text).
fn rich_results_of(item: &Item, place: Place) -> Vec<(&'static RichResult, &'static str)> {
    RICH_RESULTS
        .iter()
        .filter(|result| place == Place::TopLevel || result.standing == Standing::Anywhere)
        .filter_map(|result| {
            let type_name = result.shape.types.iter().find(|name| item.is_a(name))?;
            Some((result, *type_name))
        })
        .collect()
}

/// Whether `item` holds what `need` asks.
fn is_met(item: &Item, need: &Need) -> bool {
    match need {
        Need::One(property) => is_present(item, property),
        Need::AnyOf(alternatives) => alternatives
            .iter()
            .any(|alternative| alternative.iter().all(|has| holds(item, has))),
    }
}

/// Whether `item` has `property` with a nested item or a text that is not blank.
fn is_present(item: &Item, property: &str) -> bool {
    item.values(property).any(|value| match value {
        Value::Item(_) => true,
        Value::Text(text) => !text.trim().is_empty(),
    })
}

/// Whether `item` holds the property, with the value `has` names, if any.
fn holds(item: &Item, has: &Has) -> bool {
    match has.value {
        None => is_present(item, has.property),
        Some(wanted) => item.values(has.property).any(|value| match value {
            Value::Text(text) => text.trim().eq_ignore_ascii_case(wanted),
            Value::Item(_) => false,
        }),
    }
}

/// Whether `text` is an ISO 8601 date (`2024-01-05`) or date and time (`2024-01-05T08:00`,
/// with or without an offset: `2024-01-05T08:00:00+08:00`, `2024-01-05T00:00Z`). Google
/// reads a time without an offset in a time zone of its choosing, and recommends one, but
/// the value is valid.
pub(crate) fn is_date(text: &str) -> bool {
    if !text.contains(['T', 't']) {
        return text.len() == 10 && text.parse::<jiff::civil::Date>().is_ok();
    }
    !text.contains(' ')
        && (text.parse::<jiff::Timestamp>().is_ok()
            || text.parse::<jiff::civil::DateTime>().is_ok())
}

/// Whether `text` is an absolute http(s) URL with a host.
pub(crate) fn is_absolute_http(text: &str) -> bool {
    sitemapper_extract::absolute_http_url(text).is_some()
}

/// A type as the page wrote it, for a detail: a schema.org name as it is, anything else
/// quoted and cut short.
fn type_label(name: &str) -> String {
    if !name.is_empty() && name.len() <= 40 && name.chars().all(|c| c.is_ascii_alphanumeric()) {
        name.to_string()
    } else {
        format!("{:?}", cut(name, 40))
    }
}

/// Adds `problem` unless it is there already.
fn push_once(problems: &mut Vec<String>, problem: String) {
    if !problems.contains(&problem) {
        problems.push(problem);
    }
}

/// The problems joined by `; `, as many as fit in [`MAX_DETAIL_CHARS`], then how many more.
fn joined(problems: &[String]) -> String {
    let mut detail = String::new();
    for (index, problem) in problems.iter().enumerate() {
        let separator = if detail.is_empty() { "" } else { "; " };
        if !detail.is_empty()
            && detail.chars().count() + separator.len() + problem.chars().count() > MAX_DETAIL_CHARS
        {
            detail.push_str(&format!("; and {} more", problems.len() - index));
            break;
        }
        detail.push_str(separator);
        detail.push_str(&cut(problem, MAX_DETAIL_CHARS));
    }
    detail
}

/// `text` cut to `max` characters, with `…` where it was cut.
fn cut(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let mut cut: String = text.chars().take(max.saturating_sub(1)).collect();
    cut.push('…');
    cut
}
