//! The images a page shows, for image sitemaps (Google, "Image sitemaps"): what a browser
//! would load for `<img>` and `<picture><source>`, at the best resolution offered.

/// The image URL an `<img>` (or a `<source>` inside `<picture>`) shows, as written, given
/// the element's attributes; `None` for tracking pixels (declared 1x1) and inline data.
/// Whether the element is in the body and inside `<picture>` is the caller's to know.
pub(crate) fn image_of<'a>(attribute: impl Fn(&str) -> Option<&'a str>) -> Option<&'a str> {
    let one = |name: &str| {
        attribute(name).is_some_and(|value| value.trim().trim_end_matches("px") == "1")
    };
    if one("width") && one("height") {
        return None;
    }
    let srcset = attribute("srcset").and_then(largest_candidate);
    let src = attribute("src").filter(|src| !is_inline(src));
    let lazy = attribute("data-src").filter(|src| !is_inline(src));
    let chosen = srcset.or(src).or(lazy)?;
    (!is_inline(chosen)).then_some(chosen)
}

fn is_inline(url: &str) -> bool {
    let url = url.trim_start();
    url.is_empty()
        || url
            .get(..5)
            .is_some_and(|scheme| scheme.eq_ignore_ascii_case("data:"))
}

/// The candidate of a `srcset` with the largest width (`800w`) or density (`2x`)
/// descriptor; a candidate without one counts as `1x`.
fn largest_candidate(srcset: &str) -> Option<&str> {
    candidates(srcset)
        .into_iter()
        .filter(|(url, _)| !is_inline(url))
        .filter_map(|(url, descriptor)| {
            let size = match descriptor {
                Some(descriptor) => {
                    // Widths outrank densities: a width is in pixels.
                    let (number, scale) = if let Some(width) = descriptor.strip_suffix('w') {
                        (width, 1_000.0)
                    } else {
                        (descriptor.strip_suffix('x')?, 1.0)
                    };
                    number.parse::<f64>().ok()? * scale
                }
                None => 1.0,
            };
            Some((url, size))
        })
        .max_by(|first, second| first.1.total_cmp(&second.1))
        .map(|(url, _)| url)
}

/// The HTML "parse a srcset attribute" steps, simplified: a URL runs to the next whitespace
/// (so a data: URI keeps its commas), a trailing comma ends a candidate without a
/// descriptor, otherwise the descriptor runs to the next comma.
fn candidates(srcset: &str) -> Vec<(&str, Option<&str>)> {
    let mut candidates = Vec::new();
    let mut rest = srcset;
    loop {
        rest = rest.trim_start_matches(|character: char| {
            character.is_ascii_whitespace() || character == ','
        });
        if rest.is_empty() {
            return candidates;
        }
        let url_end = rest
            .find(|character: char| character.is_ascii_whitespace())
            .unwrap_or(rest.len());
        let url = &rest[..url_end];
        rest = &rest[url_end..];
        if url.ends_with(',') {
            candidates.push((url.trim_end_matches(','), None));
            continue;
        }
        let descriptor_end = rest.find(',').unwrap_or(rest.len());
        let descriptor = rest[..descriptor_end].split_ascii_whitespace().next();
        candidates.push((url, descriptor));
        rest = &rest[descriptor_end..];
    }
}

#[cfg(test)]
mod tests {
    use super::largest_candidate;

    #[test]
    fn the_largest_srcset_candidate_wins() {
        assert_eq!(
            largest_candidate("small.jpg 480w, large.jpg 1080w, medium.jpg 800w"),
            Some("large.jpg")
        );
        assert_eq!(
            largest_candidate("a.jpg, b.jpg 2x, c.jpg 1.5x"),
            Some("b.jpg")
        );
        assert_eq!(
            largest_candidate("data:image/png;base64,xyz 2x, real.png 1x"),
            Some("real.png")
        );
        assert_eq!(largest_candidate(""), None);
        assert_eq!(largest_candidate("one.jpg, two.jpg 2x"), Some("two.jpg"));
        // As in browsers, a comma without whitespace after it belongs to the URL.
        assert_eq!(
            largest_candidate("one.jpg,two.jpg 2x"),
            Some("one.jpg,two.jpg")
        );
    }
}
