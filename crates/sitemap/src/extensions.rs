//! The values of the optional parts of an entry: hreflang codes, the classic depth-based
//! priority, and the change frequency that observed changes support.

use jiff::Timestamp;

use crate::xml::ChangeFreq;

/// An hreflang value Google accepts: `x-default`, or an ISO 639-1 language (two letters;
/// three-letter ISO 639-2/3 codes are tolerated), optionally followed by an ISO 15924 script
/// (four letters) and/or an ISO 3166-1 alpha-2 region (two letters) or UN M.49 area (three
/// digits): `en`, `en-GB`, `zh-Hant`, `zh-Hant-TW`, `es-419`. Case-insensitive.
pub fn is_valid_hreflang(value: &str) -> bool {
    if value.eq_ignore_ascii_case("x-default") {
        return true;
    }
    let mut parts = value.split('-');
    let Some(language) = parts.next() else {
        return false;
    };
    if !matches!(language.len(), 2 | 3) || !language.bytes().all(|byte| byte.is_ascii_alphabetic())
    {
        return false;
    }
    let mut rest: Vec<&str> = parts.collect();
    if rest.first().is_some_and(|script| {
        script.len() == 4 && script.bytes().all(|byte| byte.is_ascii_alphabetic())
    }) {
        rest.remove(0);
    }
    match rest.as_slice() {
        [] => true,
        [region] => {
            (region.len() == 2 && region.bytes().all(|byte| byte.is_ascii_alphabetic()))
                || (region.len() == 3 && region.bytes().all(|byte| byte.is_ascii_digit()))
        }
        _ => false,
    }
}

/// The priority classic generators give a page `depth` clicks from the seed: 1.0 for the
/// seed, 0.8 per click below, rounded to two decimals.
pub fn depth_priority(depth: u32) -> f64 {
    let exponent = i32::try_from(depth).unwrap_or(i32::MAX);
    (0.8f64.powi(exponent) * 100.0).round() / 100.0
}

/// The change frequency the observed changes support: the median interval between
/// consecutive changes, mapped to the nearest protocol value. At least two observed changes
/// are needed (one interval); otherwise there is nothing to say.
pub fn observed_changefreq(changes: &[Timestamp]) -> Option<ChangeFreq> {
    let mut intervals: Vec<i64> = changes
        .windows(2)
        .map(|pair| (pair[1].as_second() - pair[0].as_second()).max(0))
        .collect();
    if intervals.is_empty() {
        return None;
    }
    intervals.sort_unstable();
    let median = intervals[intervals.len() / 2];
    const HOUR: i64 = 3_600;
    const DAY: i64 = 24 * HOUR;
    Some(match median {
        seconds if seconds <= 3 * HOUR / 2 => ChangeFreq::Hourly,
        seconds if seconds <= 3 * DAY / 2 => ChangeFreq::Daily,
        seconds if seconds <= 10 * DAY => ChangeFreq::Weekly,
        seconds if seconds <= 45 * DAY => ChangeFreq::Monthly,
        _ => ChangeFreq::Yearly,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hreflang_codes() {
        for valid in [
            "en",
            "EN-gb",
            "zh-Hant",
            "zh-Hant-TW",
            "es-419",
            "x-default",
            "fil",
        ] {
            assert!(is_valid_hreflang(valid), "{valid}");
        }
        for invalid in [
            "",
            "english",
            "en_GB",
            "en-",
            "e",
            "en-GBR",
            "uk-UA-extra",
            "12",
        ] {
            assert!(!is_valid_hreflang(invalid), "{invalid}");
        }
    }

    #[test]
    fn priorities_by_depth() {
        let priorities: Vec<f64> = (0..5).map(depth_priority).collect();
        assert_eq!(priorities, [1.0, 0.8, 0.64, 0.51, 0.41]);
        assert_eq!(depth_priority(40), 0.0);
    }

    #[test]
    fn changefreq_from_observed_intervals() {
        let at = |days: f64| {
            Timestamp::from_second((days * 86_400.0) as i64).unwrap_or(Timestamp::UNIX_EPOCH)
        };
        assert_eq!(observed_changefreq(&[at(1.0)]), None);
        assert_eq!(
            observed_changefreq(&[at(1.0), at(2.0), at(3.1)]),
            Some(ChangeFreq::Daily)
        );
        assert_eq!(
            observed_changefreq(&[at(0.0), at(7.0), at(14.0), at(15.0)]),
            Some(ChangeFreq::Weekly)
        );
        assert_eq!(
            observed_changefreq(&[at(0.0), at(30.0)]),
            Some(ChangeFreq::Monthly)
        );
        assert_eq!(
            observed_changefreq(&[at(0.0), at(400.0)]),
            Some(ChangeFreq::Yearly)
        );
        assert_eq!(
            observed_changefreq(&[at(0.0), at(0.02)]),
            Some(ChangeFreq::Hourly)
        );
    }
}
