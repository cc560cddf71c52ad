//! `Last-Modified` parsing: the only source of a page's `<lastmod>` in a single crawl.

use jiff::Timestamp;

/// Parses a `Last-Modified` value in any of the three HTTP date forms (RFC 9110 section 5.6.7:
/// IMF-fixdate, and the obsolete RFC 850 and asctime forms). A value that does not parse, or
/// that lies after `now`, gives `None`: a `<lastmod>` must never be invented or in the future.
pub(crate) fn parse_last_modified(value: &str, now: Timestamp) -> Option<Timestamp> {
    let system_time = httpdate::parse_http_date(value.trim()).ok()?;
    let timestamp = Timestamp::try_from(system_time).ok()?;
    (timestamp <= now).then_some(timestamp)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn now() -> Timestamp {
        "2025-06-01T00:00:00Z"
            .parse()
            .unwrap_or_else(|error| panic!("{error}"))
    }

    #[test]
    fn the_three_http_date_forms_parse() {
        let expected: Timestamp = "1994-11-06T08:49:37Z"
            .parse()
            .unwrap_or_else(|error| panic!("{error}"));
        for value in [
            "Sun, 06 Nov 1994 08:49:37 GMT",
            "Sunday, 06-Nov-94 08:49:37 GMT",
            "Sun Nov  6 08:49:37 1994",
            "  Sun, 06 Nov 1994 08:49:37 GMT ",
        ] {
            assert_eq!(parse_last_modified(value, now()), Some(expected), "{value}");
        }
    }

    #[test]
    fn invalid_and_future_values_give_nothing() {
        for value in [
            "",
            "yesterday",
            "2024-01-01",
            "Sun, 06 Nov 2094 08:49:37 GMT",
            "Sun, 32 Nov 1994 08:49:37 GMT",
        ] {
            assert_eq!(parse_last_modified(value, now()), None, "{value}");
        }
    }
}
