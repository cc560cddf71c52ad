//! The checks of what a page says that agencies run besides indexing (docs/audit.md, "On-page
//! checks and their thresholds"): phones, accessibility read from the HTML, sharing, URL
//! hygiene, thin and nearly equal text, links, security on https sites, and weight. They read
//! the signals the crawl kept of each page ([`PageSignals`]); a page of a crawl that did not
//! keep them (an earlier release's) gets none of these findings.
//!
//! Most are about listed pages only, as the other on-page checks: what is not listed does not
//! show in search results. Security is checked on every HTML page, and the headers once per
//! host.

use std::collections::{BTreeMap, HashMap};

use sitemapper_extract::PageSignals;
use sitemapper_sitemap::is_valid_hreflang;
use sitemapper_store::{PageRecord, Verdict};

use crate::finding::{Finding, Thresholds, finding};
use crate::kind::FindingKind;

/// The Open Graph properties a preview needs (The Open Graph protocol, "Basic Metadata").
const OPEN_GRAPH_REQUIRED: [&str; 4] = ["title", "type", "image", "url"];

/// A near duplicate is only looked for in pages of at least this many words: short pages of
/// one template say nearly the same by their menus alone, and are thin pages instead.
const NEAR_DUPLICATE_MIN_WORDS: u32 = 50;

/// What one pass over the pages gathers for the checks that span pages.
#[derive(Default)]
pub(crate) struct SiteSignals {
    /// Per host, per header kind: the pages without it (the first in URL order kept) and the
    /// HTML pages of the host.
    headers: BTreeMap<String, HostHeaders>,
    /// `(url, simhash, fingerprint)` of the listed pages with enough words.
    simhashes: Vec<(String, u64, Option<String>)>,
    /// Links to the site's pages over http, and forms that send over http: findings only on
    /// an https site.
    insecure: Vec<Finding>,
    /// The width of each image of the site its check read, by URL.
    image_widths: HashMap<String, u32>,
}

#[derive(Default)]
struct HostHeaders {
    pages: usize,
    /// The first page without each header, and how many lack it: HSTS, nosniff, framing,
    /// CSP.
    missing: [(Option<String>, usize); 4],
}

/// The header kinds, in the order of [`HostHeaders::missing`].
const HEADER_KINDS: [(FindingKind, &str); 4] = [
    (FindingKind::NoHsts, "Strict-Transport-Security"),
    (
        FindingKind::NoContentTypeOptions,
        "X-Content-Type-Options: nosniff",
    ),
    (
        FindingKind::NoFrameOptions,
        "X-Frame-Options or a frame-ancestors policy",
    ),
    (
        FindingKind::NoContentSecurityPolicy,
        "Content-Security-Policy",
    ),
];

/// An image whose file is more than this many times as wide as the page shows it is much
/// larger than shown: twice the width serves sharp screens.
const LARGER_THAN_SHOWN: u32 = 2;

impl SiteSignals {
    /// What the checks gather, knowing the width of each image of the site its check read.
    pub(crate) fn with_image_widths(image_widths: HashMap<String, u32>) -> SiteSignals {
        SiteSignals {
            image_widths,
            ..SiteSignals::default()
        }
    }

    /// The checks of one HTML page that answered 200.
    pub(crate) fn check(
        &mut self,
        page: &PageRecord,
        thresholds: &Thresholds,
        findings: &mut Vec<Finding>,
    ) {
        let listed = page.verdict == Verdict::Indexable;
        if listed {
            url_findings(&page.url, thresholds, findings);
            if let Some(words) = page.details.as_ref().and_then(|details| details.word_count)
                && words < thresholds.thin_words
            {
                findings.push(finding(
                    FindingKind::ThinPage,
                    &page.url,
                    format!("{words} words"),
                ));
            }
        }
        let Some(signals) = page
            .details
            .as_ref()
            .and_then(|details| details.signals.as_deref())
            .and_then(PageSignals::from_json)
        else {
            return;
        };
        self.note_security(page, &signals);
        if !signals.protocol_relative.is_empty() {
            let detail = signals.protocol_relative.describe("resource", "resources");
            findings.push(finding(
                FindingKind::ProtocolRelativeResources,
                &page.url,
                detail,
            ));
        }

        if let Some(refresh) = &signals.timed_refresh {
            findings.push(finding(
                FindingKind::MetaRefresh,
                &page.url,
                format!("content {refresh:?}"),
            ));
        }
        if !listed {
            return;
        }
        page_findings(page, &signals, thresholds, findings);
        self.larger_than_shown(page, &signals, findings);
        if let Some(relative) = &signals.relative_canonical {
            findings.push(finding(
                FindingKind::RelativeCanonical,
                &page.url,
                format!("canonical {relative:?}"),
            ));
        }
        let words = page
            .details
            .as_ref()
            .and_then(|details| details.word_count)
            .unwrap_or(0);
        if let Some(simhash) = signals.simhash
            && words >= NEAR_DUPLICATE_MIN_WORDS
        {
            let fingerprint = page
                .fingerprint
                .as_ref()
                .map(|fingerprint| format!("{}:{}", fingerprint.version, fingerprint.hex));
            self.simhashes
                .push((page.url.clone(), simhash, fingerprint));
        }
    }

    /// A listed page showing an image of the site whose file is much wider than its `width`.
    fn larger_than_shown(
        &self,
        page: &PageRecord,
        signals: &PageSignals,
        findings: &mut Vec<Finding>,
    ) {
        let oversized: Vec<String> = signals
            .image_widths
            .iter()
            .filter_map(|(image, shown)| {
                let width = *self.image_widths.get(image)?;
                (width > shown.saturating_mul(LARGER_THAN_SHOWN))
                    .then(|| format!("{image} is {width} px wide, shown at {shown}"))
            })
            .collect();
        if !oversized.is_empty() {
            findings.push(finding(
                FindingKind::ImageLargerThanShown,
                &page.url,
                oversized.join("; "),
            ));
        }
    }

    /// Notes the page's headers for its host, and what it sends over http.
    fn note_security(&mut self, page: &PageRecord, signals: &PageSignals) {
        let (scheme, host) = scheme_and_host(&page.url);
        if scheme == "https" {
            let host = self.headers.entry(host.to_string()).or_default();
            host.pages += 1;
            let present = [
                signals.headers.strict_transport_security,
                signals.headers.content_type_options,
                signals.headers.frame_options,
                signals.headers.content_security_policy,
            ];
            for (missing, present) in host.missing.iter_mut().zip(present) {
                if !present {
                    missing.0.get_or_insert_with(|| page.url.clone());
                    missing.1 += 1;
                }
            }
        }
        if !signals.http_links.is_empty() {
            self.insecure.push(finding(
                FindingKind::HttpLinks,
                &page.url,
                signals.http_links.describe("link", "links"),
            ));
        }
        if !signals.insecure_forms.is_empty() {
            self.insecure.push(finding(
                FindingKind::FormOnHttp,
                &page.url,
                signals
                    .insecure_forms
                    .describe("form sends to", "forms send to"),
            ));
        }
    }

    /// The findings that span pages: headers per host, http on an https site, near
    /// duplicates.
    pub(crate) fn finish(
        self,
        site_is_https: bool,
        near_duplicate_bits: u32,
        findings: &mut Vec<Finding>,
    ) {
        for host in self.headers.values() {
            for ((kind, header), (first, count)) in HEADER_KINDS.iter().zip(&host.missing) {
                if let Some(first) = first {
                    let detail = if *count == host.pages {
                        format!("no {header}, on every page of the host ({count})")
                    } else {
                        format!(
                            "no {header}, on {count} of {} pages of the host",
                            host.pages
                        )
                    };
                    findings.push(finding(*kind, first, detail));
                }
            }
        }
        if site_is_https {
            findings.extend(self.insecure);
        }
        near_duplicates(&self.simhashes, near_duplicate_bits, findings);
    }
}

/// The checks of one listed page's signals.
fn page_findings(
    page: &PageRecord,
    signals: &PageSignals,
    thresholds: &Thresholds,
    findings: &mut Vec<Finding>,
) {
    let url = page.url.as_str();
    let mut push = |kind: FindingKind, detail: String| findings.push(finding(kind, url, detail));
    match signals.viewport.as_deref() {
        None => push(FindingKind::NoViewport, String::new()),
        Some(viewport) if forbids_zoom(viewport) => {
            push(FindingKind::ZoomDisabled, format!("viewport {viewport:?}"));
        }
        Some(_) => {}
    }
    match page
        .details
        .as_ref()
        .and_then(|details| details.lang.as_deref())
    {
        None => push(FindingKind::NoLang, String::new()),
        Some(lang) if !is_valid_hreflang(lang) || lang.eq_ignore_ascii_case("x-default") => {
            push(FindingKind::InvalidLang, format!("lang {lang:?}"));
        }
        Some(_) => {}
    }
    for (kind, examples, one, many) in [
        (
            FindingKind::LinksWithoutText,
            &signals.links_without_text,
            "link",
            "links",
        ),
        (
            FindingKind::InputsWithoutLabel,
            &signals.inputs_without_label,
            "field",
            "fields",
        ),
        (
            FindingKind::ButtonsWithoutName,
            &signals.buttons_without_name,
            "button",
            "buttons",
        ),
        (
            FindingKind::SkippedHeadingLevel,
            &signals.skipped_headings,
            "skip",
            "skips",
        ),
        (
            FindingKind::FramesWithoutTitle,
            &signals.frames_without_title,
            "frame",
            "frames",
        ),
        (
            FindingKind::PositiveTabindex,
            &signals.positive_tabindex,
            "element",
            "elements",
        ),
        (
            FindingKind::ImagesWithoutDimensions,
            &signals.images_without_dimensions,
            "image",
            "images",
        ),
        (
            FindingKind::RenderBlockingScripts,
            &signals.render_blocking_scripts,
            "script",
            "scripts",
        ),
        (
            FindingKind::DeprecatedHtml,
            &signals.obsolete_elements,
            "element",
            "elements",
        ),
        (
            FindingKind::NofollowInternal,
            &signals.nofollow_internal,
            "link",
            "links",
        ),
    ] {
        if !examples.is_empty() {
            push(kind, examples.describe(one, many));
        }
    }
    if signals.open_graph.is_empty() {
        push(FindingKind::OpenGraphMissing, String::new());
    } else {
        let missing: Vec<String> = OPEN_GRAPH_REQUIRED
            .iter()
            .filter(|property| !signals.open_graph.iter().any(|known| known == *property))
            .map(|property| format!("og:{property}"))
            .collect();
        if !missing.is_empty() {
            push(
                FindingKind::OpenGraphIncomplete,
                format!("without {}", missing.join(", ")),
            );
        }
    }
    let twitter = |property: &str| signals.twitter.iter().any(|known| known == property);
    let open_graph = |property: &str| signals.open_graph.iter().any(|known| known == property);
    if !twitter("card") {
        push(FindingKind::TwitterCardMissing, String::new());
    } else {
        let missing: Vec<&str> = ["title", "image"]
            .into_iter()
            .filter(|property| !twitter(property) && !open_graph(property))
            .collect();
        if !missing.is_empty() {
            let missing: Vec<String> = missing
                .iter()
                .map(|property| format!("twitter:{property} (or og:{property})"))
                .collect();
            push(
                FindingKind::TwitterCardIncomplete,
                format!("without {}", missing.join(", ")),
            );
        }
    }
    if signals.titles > 1 {
        push(
            FindingKind::MultipleTitles,
            format!("{} <title> elements", signals.titles),
        );
    }
    if signals.descriptions > 1 {
        push(
            FindingKind::MultipleDescriptions,
            format!("{} meta descriptions", signals.descriptions),
        );
    }
    if !signals.doctype {
        push(FindingKind::NoDoctype, String::new());
    }
    if page.canonical.is_none() {
        push(FindingKind::MissingCanonical, String::new());
    }
    if signals.links_out == 0 {
        push(FindingKind::DeadEnd, String::new());
    }
    let description = page
        .description
        .as_deref()
        .map(|text| text.trim_matches(' '))
        .unwrap_or_default();
    let description_chars = description.chars().count();
    if description_chars > 0 && description_chars < thresholds.description_min_chars {
        push(
            FindingKind::DescriptionTooShort,
            format!("{description_chars} characters"),
        );
    }
    if let Some(h1) = page
        .details
        .as_ref()
        .and_then(|details| details.h1.as_deref())
    {
        let h1_chars = h1.chars().count();
        if h1_chars > thresholds.h1_max_chars {
            push(FindingKind::H1TooLong, format!("{h1_chars} characters"));
        }
    }
}

/// Whether a viewport's content forbids zooming: `user-scalable=no` (or 0), or a
/// `maximum-scale` below 2 (WCAG 1.4.4 asks for 200%).
fn forbids_zoom(viewport: &str) -> bool {
    viewport.split([',', ';']).any(|property| {
        let Some((name, value)) = property.split_once('=') else {
            return false;
        };
        let (name, value) = (
            name.trim().to_ascii_lowercase(),
            value.trim().to_ascii_lowercase(),
        );
        match name.as_str() {
            "user-scalable" => value == "no" || value == "0",
            "maximum-scale" => value.parse::<f64>().is_ok_and(|scale| scale < 2.0),
            _ => false,
        }
    })
}

/// The scheme and host of an absolute URL, as written.
fn scheme_and_host(url: &str) -> (&str, &str) {
    let (scheme, rest) = url.split_once("://").unwrap_or(("", url));
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    (scheme, &rest[..end])
}

/// The URL hygiene checks of a listed URL.
fn url_findings(url: &str, thresholds: &Thresholds, findings: &mut Vec<Finding>) {
    let (_, host) = scheme_and_host(url);
    let after_host = url
        .split_once("://")
        .map(|(_, rest)| &rest[host.len()..])
        .unwrap_or_default();
    let (path, query) = match after_host.split_once('?') {
        Some((path, query)) => (path, query.split('#').next().unwrap_or_default()),
        None => (after_host.split('#').next().unwrap_or_default(), ""),
    };
    let mut push = |kind: FindingKind, detail: String| findings.push(finding(kind, url, detail));
    // The hex digits of `%C3%A9` are not letters of the URL.
    let upper_in_escapes: usize = path
        .match_indices('%')
        .map(|(at, _)| {
            path.get(at + 1..at + 3)
                .map_or(0, |hex| hex.bytes().filter(u8::is_ascii_uppercase).count())
        })
        .sum();
    if path.bytes().filter(u8::is_ascii_uppercase).count() > upper_in_escapes {
        push(FindingKind::UrlUppercase, String::new());
    }
    if path.contains('_') {
        push(FindingKind::UrlUnderscores, String::new());
    }
    let decoded = percent_decoded(path);
    if path.contains("%20") || query.contains("%20") || query.contains('+') {
        push(FindingKind::UrlSpaces, String::new());
    }
    if decoded.iter().any(|byte| !byte.is_ascii()) {
        push(
            FindingKind::UrlNonAscii,
            String::from_utf8_lossy(&decoded).into_owned(),
        );
    }
    let chars = url.chars().count();
    if chars > thresholds.url_max_chars {
        push(FindingKind::UrlTooLong, format!("{chars} characters"));
    }
    let parameters = query.split('&').filter(|pair| !pair.is_empty()).count();
    if parameters > thresholds.url_max_parameters {
        push(
            FindingKind::UrlManyParameters,
            format!("{parameters} parameters"),
        );
    }
    if path.contains("//") {
        push(FindingKind::UrlMultipleSlashes, String::new());
    }
}

/// The bytes `%XX` escapes stand for, the rest as written.
fn percent_decoded(text: &str) -> Vec<u8> {
    let bytes = text.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut index = 0;
    while index < bytes.len() {
        if bytes[index] == b'%'
            && let Some(value) = text
                .get(index + 1..index + 3)
                .and_then(|hex| u8::from_str_radix(hex, 16).ok())
        {
            decoded.push(value);
            index += 3;
            continue;
        }
        decoded.push(bytes[index]);
        index += 1;
    }
    decoded
}

/// Pages whose simhashes are at most `bits` apart and whose content is not equal (equal
/// content is a duplicate-content finding): each gets a finding naming the nearest other.
/// Candidates are found by blocks: two hashes at most `bits` apart agree on one of `bits + 1`
/// blocks of the hash at least, so only hashes that share a block are compared.
fn near_duplicates(
    pages: &[(String, u64, Option<String>)],
    bits: u32,
    findings: &mut Vec<Finding>,
) {
    if bits == 0 {
        return;
    }
    let blocks = (bits + 1).min(8) as usize;
    let width = 64 / blocks as u32;
    let block = |hash: u64, index: usize| -> u64 {
        let shift = width * index as u32;
        if width == 64 {
            hash
        } else {
            (hash >> shift) & ((1u64 << width) - 1)
        }
    };
    let mut nearest: HashMap<usize, (u32, usize)> = HashMap::new();
    for index in 0..blocks {
        let mut by_block: HashMap<u64, Vec<usize>> = HashMap::new();
        for (position, (_, hash, _)) in pages.iter().enumerate() {
            by_block
                .entry(block(*hash, index))
                .or_default()
                .push(position);
        }
        for members in by_block.values().filter(|members| members.len() > 1) {
            for (offset, &first) in members.iter().enumerate() {
                for &second in &members[offset + 1..] {
                    let (one, other) = (&pages[first], &pages[second]);
                    if one.2.is_some() && one.2 == other.2 {
                        continue;
                    }
                    let distance = (one.1 ^ other.1).count_ones();
                    if distance > bits {
                        continue;
                    }
                    for (page, partner) in [(first, second), (second, first)] {
                        let known = nearest.entry(page).or_insert((distance, partner));
                        if (distance, &pages[partner].0) < (known.0, &pages[known.1].0) {
                            *known = (distance, partner);
                        }
                    }
                }
            }
        }
    }
    let mut found: Vec<(usize, (u32, usize))> = nearest.into_iter().collect();
    found.sort_unstable();
    for (page, (distance, partner)) in found {
        // Simhash bits differ with the angle between the texts' shingle vectors: d of 64 bits
        // apart is an angle of about π·d/64 (Charikar, 2002), a cosine similarity of its
        // cosine.
        let similarity = (std::f64::consts::PI * f64::from(distance) / 64.0).cos() * 100.0;
        let similarity = similarity.floor() as u32;
        findings.push(finding(
            FindingKind::NearDuplicate,
            &pages[page].0,
            format!(
                "nearly the same as {} (simhash {distance} of 64 bits apart, about {similarity}% alike)",
                pages[partner].0
            ),
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zoom_is_forbidden_by_user_scalable_no_or_a_small_maximum_scale() {
        assert!(forbids_zoom("width=device-width, user-scalable=no"));
        assert!(forbids_zoom("width=device-width, maximum-scale=1.0"));
        assert!(!forbids_zoom("width=device-width, initial-scale=1"));
        assert!(!forbids_zoom("width=device-width, maximum-scale=5"));
    }

    #[test]
    fn urls_are_checked_for_case_underscores_spaces_length_parameters_and_slashes() {
        let thresholds = Thresholds::default();
        let codes = |url: &str| {
            let mut findings = Vec::new();
            url_findings(url, &thresholds, &mut findings);
            findings
                .into_iter()
                .map(|finding| finding.kind.code())
                .collect::<Vec<_>>()
        };
        assert!(codes("https://E.com/clean-path/?a=1").is_empty());
        assert_eq!(
            codes("https://e.com/About_Us"),
            ["url-uppercase", "url-underscores"]
        );
        assert_eq!(codes("https://e.com/a%20b"), ["url-spaces"]);
        assert_eq!(codes("https://e.com/caf%C3%A9"), ["url-non-ascii"]);
        assert_eq!(
            codes(&format!("https://e.com/{}", "a".repeat(120))),
            ["url-too-long"]
        );
        assert_eq!(
            codes("https://e.com/p?a=1&b=2&c=3&d=4"),
            ["url-many-parameters"]
        );
        assert_eq!(codes("https://e.com/a//b"), ["url-multiple-slashes"]);
    }

    #[test]
    fn near_duplicates_are_hashes_a_few_bits_apart_not_equal_content() {
        let pages = vec![
            (
                "https://e.com/a".to_string(),
                0b1011u64 << 40,
                Some("1:a".to_string()),
            ),
            (
                "https://e.com/b".to_string(),
                0b1001u64 << 40,
                Some("1:b".to_string()),
            ),
            (
                "https://e.com/c".to_string(),
                !0u64,
                Some("1:c".to_string()),
            ),
            (
                "https://e.com/d".to_string(),
                0b1011u64 << 40,
                Some("1:a".to_string()),
            ),
        ];
        let mut findings = Vec::new();
        near_duplicates(&pages, 3, &mut findings);
        let urls: Vec<&str> = findings
            .iter()
            .map(|finding| finding.url.as_str())
            .collect();
        assert_eq!(
            urls,
            ["https://e.com/a", "https://e.com/b", "https://e.com/d"]
        );
        assert!(
            findings[0]
                .detail
                .starts_with("nearly the same as https://e.com/b (simhash 1 of 64")
        );
    }
}
