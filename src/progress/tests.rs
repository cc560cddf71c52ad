use super::*;

const COUNTS: Counts = Counts {
    fetched: 1200,
    queued: 45,
    listed: 1100,
    errors: 3,
    rate: 12.5,
    rendering: 0,
};

const RENDERING: Counts = Counts {
    rendering: 4,
    ..COUNTS
};

/// Three minutes and five seconds.
const ELAPSED: Duration = Duration::from_secs(185);

const URL: &str = "https://example.com/a/very/long/path/page-17";

/// The columns the whole line takes, the spinner included.
fn columns(line: &str) -> usize {
    BEFORE_MESSAGE + line.chars().count()
}

#[test]
fn a_wide_terminal_shows_every_count_and_the_whole_url() {
    assert_eq!(
        line(160, ELAPSED, &COUNTS, "https://example.com/docs/page"),
        "3:05 · 1200 fetched · 1100 listed · 3 errors · 12.5/s · 45 queued · example.com/docs/page"
    );
    assert_eq!(
        line(160, ELAPSED, &RENDERING, "https://example.com/docs/page"),
        "3:05 · 1200 fetched · 1100 listed · 3 errors · 12.5/s · 45 queued · rendering 4 pages · example.com/docs/page"
    );
}

#[test]
fn eighty_columns_keep_listed_errors_the_rate_and_rendering() {
    // The URL goes first: too few columns are left for it.
    let plain = line(80, ELAPSED, &COUNTS, URL);
    assert_eq!(
        plain,
        "3:05 · 1200 fetched · 1100 listed · 3 errors · 12.5/s · 45 queued"
    );
    assert!(columns(&plain) <= 80, "{plain:?}");
    assert_eq!(
        line(100, ELAPSED, &COUNTS, URL),
        "3:05 · 1200 fetched · 1100 listed · 3 errors · 12.5/s · 45 queued · ….com/a/very/long/path/page-17"
    );
    // The browser at work takes the URL's room, then the queue's.
    let rendering = line(80, ELAPSED, &RENDERING, URL);
    assert_eq!(
        rendering,
        "3:05 · 1200 fetched · 1100 listed · 3 errors · 12.5/s · rendering 4 pages"
    );
    // Large numbers, a long run: what stays stays.
    let large = Counts {
        fetched: 1_234_567,
        queued: 987_654,
        listed: 1_200_000,
        errors: 12_345,
        rate: 1234.5,
        rendering: 12,
    };
    let long = line(80, Duration::from_secs(36_000), &large, URL);
    assert!(columns(&long) <= 80, "{long:?}");
    for part in [
        "10:00:00",
        "1200000 listed",
        "12345 errors",
        "1234.5/s",
        "rendering 12 pages",
    ] {
        assert!(long.contains(part), "{part:?} in {long:?}");
    }
}

#[test]
fn a_narrow_terminal_fits_and_keeps_what_matters_most() {
    for width in [20, 30, 40, 60, 80, 100, 120] {
        for counts in [&COUNTS, &RENDERING] {
            let line = line(width, ELAPSED, counts, URL);
            assert!(
                columns(&line) <= width.max(BEFORE_MESSAGE + 4),
                "{width}: {line:?}"
            );
            assert!(line.starts_with("3:05"), "{width}: {line:?}");
        }
    }
    assert_eq!(
        line(40, ELAPSED, &COUNTS, URL),
        "3:05 · 1100 listed · 3 errors · 12.5/s"
    );
    assert_eq!(
        line(40, ELAPSED, &RENDERING, URL),
        "3:05 · 1100 listed · rendering 4 pages"
    );
}

#[test]
fn one_error_and_one_page_in_the_browser_are_singular() {
    let one = Counts {
        errors: 1,
        rendering: 1,
        ..COUNTS
    };
    let line = line(160, ELAPSED, &one, "");
    assert!(
        line.contains(" 1 error · ") && line.ends_with("rendering 1 page"),
        "{line}"
    );
}

#[test]
fn no_url_yet_shows_the_counts_alone() {
    assert_eq!(
        line(100, ELAPSED, &COUNTS, ""),
        "3:05 · 1200 fetched · 1100 listed · 3 errors · 12.5/s · 45 queued"
    );
}

#[test]
fn elapsed_time_reads_minutes_and_seconds_then_hours() {
    for (seconds, text) in [
        (0, "0:00"),
        (7, "0:07"),
        (185, "3:05"),
        (3599, "59:59"),
        (3600, "1:00:00"),
        (3723, "1:02:03"),
        (36_000, "10:00:00"),
    ] {
        assert_eq!(elapsed_text(Duration::from_secs(seconds)), text);
    }
}
