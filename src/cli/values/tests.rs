use super::*;

#[test]
fn a_max_age_is_a_duration_or_zero_never_negative() {
    let day = std::time::Duration::from_secs(24 * 60 * 60);
    assert_eq!(max_age("7d").ok(), Some(7 * day));
    assert_eq!(max_age(" 12h ").ok(), Some(day / 2));
    assert_eq!(max_age("0s").ok(), Some(std::time::Duration::ZERO));
    assert_eq!(max_age("0").ok(), None, "a number alone is no duration");
    for text in ["-1d", "soon", ""] {
        assert!(max_age(text).is_err(), "{text:?}");
    }
}

#[test]
fn a_value_is_read_within_its_range_or_refused_with_the_range() {
    assert_eq!(RENDER_CONCURRENCY.read::<usize>(" 64 ").ok(), Some(64));
    let refused = |text: &str| {
        RENDER_CONCURRENCY
            .read::<usize>(text)
            .err()
            .map(|error| error.to_string())
    };
    assert_eq!(
        refused("18446744073709551615").as_deref(),
        Some(
            "--render-concurrency must be a whole number from 1 to 64, not \"18446744073709551615\""
        )
    );
    for text in ["0", "65", "-1", "1.5", "NaN", "", "two"] {
        assert!(refused(text).is_some(), "{text:?}");
    }
    assert_eq!(TIMEOUT.read::<f64>("1e3").ok(), Some(1000.0));
    for text in ["0", "NaN", "inf", "-0.5", "86400.5"] {
        assert!(TIMEOUT.read::<f64>(text).is_err(), "{text:?}");
    }
    assert_eq!(DELAY.read::<f64>("0").ok(), Some(0.0));
}

#[test]
fn concurrency_is_auto_or_a_number_within_its_range() {
    assert_eq!(
        CONCURRENCY.read::<ConcurrencyName>("Auto").ok(),
        Some(ConcurrencyName::Auto)
    );
    assert_eq!(
        CONCURRENCY
            .read::<ConcurrencyName>("0")
            .err()
            .map(|error| error.to_string())
            .as_deref(),
        Some("--concurrency must be a whole number from 1 to 256, or auto, not \"0\"")
    );
}

#[test]
fn a_config_files_value_is_named_by_its_key() {
    assert!(LEASE.check(Some(1.0)).is_ok());
    assert!(LEASE.check(None::<f64>).is_ok());
    let error = LEASE
        .check(Some(f64::NAN))
        .err()
        .map(|error| error.to_string());
    assert_eq!(
        error.as_deref(),
        Some("lease must be a number of seconds from 1 to 86400, not NaN")
    );
    let variable = MAX_PAGES
        .read::<u64>("0")
        .err()
        .map(|error| error.in_variable().to_string());
    assert_eq!(
        variable.as_deref(),
        Some("SITEMAPPER_MAX_PAGES must be a whole number from 1 to 1000000000, not \"0\"")
    );
}
