//! The values of the numeric options: each option's range (both ends included), the parser
//! that reads a flag or its environment variable within it, and the check of a config file's
//! value against the same range. Every range is written in its option's help as
//! `[range: MIN to MAX]` and in config/example.toml as `Range: MIN to MAX.`; a test walks
//! every numeric option of every command and holds the help, the example and the parser to
//! each other.
//!
//! A value outside its range is refused, never clamped: a user who types a number the option
//! cannot mean learns the range from the one-line error, and nothing downstream (a semaphore
//! of tabs, a timer) ever sees a value it was not built for.

use std::fmt;

use clap::builder::{OsStringValueParser, TypedValueParser};

use super::ConcurrencyName;

/// Count limits (pages, requests, URLs, sites): a billion is more than one crawl reaches (a
/// sitemap index lists at most 2.5 billion URLs, and the crawl keeps every URL it knows).
const MOST_COUNTED: u64 = 1_000_000_000;

/// Depths and chains, in clicks.
const DEEPEST: u64 = 1_000_000;

/// The longest time an option takes: a day. A timeout, pause or lease longer than that is a
/// typo, and a day keeps time arithmetic far from overflowing.
const LONGEST_SECONDS: f64 = 86_400.0;

/// The shortest time an option that must be more than 0 takes: a millisecond.
const SHORTEST_SECONDS: f64 = 0.001;

/// The most bytes one page is read or measured in: 1 GiB.
const MOST_PAGE_BYTES: u64 = 1 << 30;

/// The values a numeric option takes, both ends included.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Range {
    /// A whole number.
    Whole { min: u64, max: u64 },
    /// A number of seconds, decimals allowed.
    Seconds { min: f64, max: f64 },
}

impl fmt::Display for Range {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Range::Whole { min, max } => write!(formatter, "a whole number from {min} to {max}"),
            Range::Seconds { min, max } => {
                write!(formatter, "a number of seconds from {min} to {max}")
            }
        }
    }
}

/// A numeric option: its long name (also its config key) and its range.
#[derive(Debug, Clone, Copy)]
pub(crate) struct NumericOption {
    pub(crate) name: &'static str,
    pub(crate) range: Range,
    /// A word taken besides the numbers (`auto`).
    word: Option<&'static str>,
}

pub(crate) const VERBOSE: NumericOption = NumericOption::whole("verbose", 0, 3);
pub(crate) const CONCURRENCY: NumericOption = NumericOption {
    word: Some("auto"),
    ..NumericOption::whole("concurrency", 1, 256)
};
pub(crate) const MAX_PAGES: NumericOption = NumericOption::whole("max-pages", 1, MOST_COUNTED);
pub(crate) const MAX_REQUESTS: NumericOption =
    NumericOption::whole("max-requests", 1, MOST_COUNTED);
pub(crate) const MAX_URLS: NumericOption = NumericOption::whole("max-urls", 1, MOST_COUNTED);
pub(crate) const TIMEOUT: NumericOption =
    NumericOption::seconds("timeout", SHORTEST_SECONDS, LONGEST_SECONDS);
pub(crate) const CONNECT_TIMEOUT: NumericOption =
    NumericOption::seconds("connect-timeout", SHORTEST_SECONDS, LONGEST_SECONDS);
pub(crate) const MAX_BODY_SIZE: NumericOption =
    NumericOption::whole("max-body-size", 1, MOST_PAGE_BYTES);
pub(crate) const MAX_DEPTH: NumericOption = NumericOption::whole("max-depth", 0, DEEPEST);
pub(crate) const MAX_PATTERN_CHAIN: NumericOption =
    NumericOption::whole("max-pattern-chain", 0, DEEPEST);
pub(crate) const DELAY: NumericOption = NumericOption::seconds("delay", 0.0, LONGEST_SECONDS);
pub(crate) const RETRIES: NumericOption = NumericOption::whole("retries", 0, 10);
pub(crate) const KEEP_FAILED: NumericOption = NumericOption::whole("keep-failed", 0, 1000);
pub(crate) const MAX_SHRINK: NumericOption = NumericOption::whole("max-shrink", 0, 100);
pub(crate) const RENDER_CONCURRENCY: NumericOption =
    NumericOption::whole("render-concurrency", 1, 64);
pub(crate) const RENDER_OTHER_HOST_REQUESTS: NumericOption =
    NumericOption::whole("render-other-host-requests", 0, 100_000);
pub(crate) const RENDER_TIMEOUT: NumericOption =
    NumericOption::seconds("render-timeout", SHORTEST_SECONDS, LONGEST_SECONDS);
pub(crate) const MAX_URLS_PER_FILE: NumericOption = NumericOption::whole(
    "max-urls-per-file",
    1,
    sitemapper_sitemap::MAX_URLS_PER_FILE as u64,
);
pub(crate) const MAX_BYTES_PER_FILE: NumericOption = NumericOption::whole(
    "max-bytes-per-file",
    sitemapper_sitemap::MIN_BYTES_PER_FILE,
    sitemapper_sitemap::MAX_BYTES_PER_FILE,
);
pub(crate) const DEEP: NumericOption = NumericOption::whole("deep", 0, DEEPEST);
/// Milliseconds: at most a day, as the longest time an option takes.
pub(crate) const SLOW: NumericOption = NumericOption::whole("slow", 0, 86_400_000);
pub(crate) const LARGE: NumericOption = NumericOption::whole("large", 0, MOST_PAGE_BYTES);
pub(crate) const EXTERNAL_TIMEOUT: NumericOption =
    NumericOption::seconds("external-timeout", SHORTEST_SECONDS, LONGEST_SECONDS);
pub(crate) const EXTERNAL_MAX_LINKS: NumericOption =
    NumericOption::whole("external-max-links", 0, MOST_COUNTED);
pub(crate) const EXTERNAL_MAX_TIME: NumericOption =
    NumericOption::seconds("external-max-time", 1.0, LONGEST_SECONDS);
pub(crate) const SITES_AT_ONCE: NumericOption = NumericOption::whole("sites-at-once", 1, 64);
pub(crate) const PER_SERVER: NumericOption = NumericOption::whole("per-server", 1, 1000);
/// At least a second: the lease is renewed every third of it.
pub(crate) const LEASE: NumericOption = NumericOption::seconds("lease", 1.0, LONGEST_SECONDS);
pub(crate) const CHECKPOINT: NumericOption =
    NumericOption::seconds("checkpoint", SHORTEST_SECONDS, LONGEST_SECONDS);
pub(crate) const MAX_TIME: NumericOption = NumericOption::whole("max-time", 1, 86_400);
pub(crate) const MAX_SITES: NumericOption = NumericOption::whole("max-sites", 1, MOST_COUNTED);

impl NumericOption {
    const fn whole(name: &'static str, min: u64, max: u64) -> NumericOption {
        NumericOption {
            name,
            range: Range::Whole { min, max },
            word: None,
        }
    }

    const fn seconds(name: &'static str, min: f64, max: f64) -> NumericOption {
        NumericOption {
            name,
            range: Range::Seconds { min, max },
            word: None,
        }
    }

    /// The value `text` gives this option, or why it cannot be one.
    pub(crate) fn read<T: NumericValue>(self, text: &str) -> Result<T, OutOfRange> {
        T::parse(text.trim())
            .filter(|value| value.within(self.range))
            .ok_or_else(|| OutOfRange {
                option: self,
                value: format!("{text:?}"),
                given: Given::Flag,
            })
    }

    /// The flag's value parser (its environment variable's too): a value outside the range
    /// is a usage error whose source is the [`OutOfRange`], for `cli::parse` to say in one
    /// line.
    pub(crate) fn parser<T: NumericValue>(self) -> impl TypedValueParser<Value = T> {
        OsStringValueParser::new().try_map(move |text| self.read::<T>(&text.to_string_lossy()))
    }

    /// Checks the value of the config file's key, which serde read as its type only.
    pub(crate) fn check<T: NumericValue + fmt::Display>(
        self,
        value: Option<T>,
    ) -> Result<(), OutOfRange> {
        match value {
            Some(value) if !value.within(self.range) => Err(OutOfRange {
                option: self,
                value: value.to_string(),
                given: Given::ConfigKey,
            }),
            _ => Ok(()),
        }
    }
}

/// Where a value was given, which is how its error names the option.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Given {
    Flag,
    Variable,
    ConfigKey,
}

/// A value that is not one of its option's: outside the range, or no number at all.
#[derive(Debug, Clone)]
pub(crate) struct OutOfRange {
    option: NumericOption,
    /// The value as the message shows it: the text given, quoted; a config file's number.
    value: String,
    given: Given,
}

impl OutOfRange {
    /// The option's long name.
    pub(crate) fn name(&self) -> &'static str {
        self.option.name
    }

    /// The same error, said of the option's environment variable.
    pub(crate) fn in_variable(self) -> OutOfRange {
        OutOfRange {
            given: Given::Variable,
            ..self
        }
    }
}

impl fmt::Display for OutOfRange {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = self.option.name;
        match self.given {
            Given::Flag => write!(formatter, "--{name}")?,
            Given::Variable => write!(formatter, "{}", variable_name(name))?,
            Given::ConfigKey => write!(formatter, "{name}")?,
        }
        write!(formatter, " must be {}", self.option.range)?;
        if let Some(word) = self.option.word {
            write!(formatter, ", or {word}")?;
        }
        write!(formatter, ", not {}", self.value)
    }
}

impl std::error::Error for OutOfRange {}

/// A type a numeric option's value is read into.
pub(crate) trait NumericValue: Sized + Clone + Send + Sync + 'static {
    /// The value `text` spells, whatever the range.
    fn parse(text: &str) -> Option<Self>;
    /// Whether the value is one of `range`'s.
    fn within(&self, range: Range) -> bool;
}

/// Whole numbers, each read as its own type: a value its type cannot hold is refused as
/// out of range, with the range in the message.
macro_rules! whole_number {
    ($($type:ty),*) => {$(
        impl NumericValue for $type {
            fn parse(text: &str) -> Option<$type> {
                text.parse().ok()
            }

            fn within(&self, range: Range) -> bool {
                match (u64::try_from(*self), range) {
                    (Ok(value), Range::Whole { min, max }) => (min..=max).contains(&value),
                    _ => false,
                }
            }
        }
    )*};
}

whole_number!(u8, u32, u64, usize);

/// A share in percent: `25`, or `25%` as a user writes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Percent(pub(crate) u8);

impl NumericValue for Percent {
    fn parse(text: &str) -> Option<Percent> {
        let number = text.strip_suffix('%').unwrap_or(text).trim_end();
        number.parse().ok().map(Percent)
    }

    fn within(&self, range: Range) -> bool {
        self.0.within(range)
    }
}

impl NumericValue for f64 {
    fn parse(text: &str) -> Option<f64> {
        text.parse().ok()
    }

    /// NaN is within no range.
    fn within(&self, range: Range) -> bool {
        match range {
            Range::Seconds { min, max } => (min..=max).contains(self),
            Range::Whole { .. } => false,
        }
    }
}

impl NumericValue for ConcurrencyName {
    fn parse(text: &str) -> Option<ConcurrencyName> {
        text.parse().ok()
    }

    fn within(&self, range: Range) -> bool {
        match self {
            ConcurrencyName::Requests(requests) => requests.within(range),
            ConcurrencyName::Auto => true,
        }
    }
}

/// `--external-max-age` (and its config key): a duration written as the fleet file's `every`
/// is (`7d`, `12h`, `90m`, `1h 30m`, ISO 8601's `P7D`), a day being 24 hours; zero too (`0s`),
/// which reuses no earlier check.
pub(crate) fn max_age(text: &str) -> Result<std::time::Duration, sitemapper_fleet::DurationError> {
    match sitemapper_fleet::parse_duration(text) {
        Err(sitemapper_fleet::DurationError::NotPositive { .. })
            if text
                .trim()
                .parse::<jiff::Span>()
                .is_ok_and(|span| span.is_zero()) =>
        {
            Ok(std::time::Duration::ZERO)
        }
        read => read,
    }
}

/// `SITEMAPPER_MAX_PAGES` for `max-pages`: the environment variable that sets an option.
pub(crate) fn variable_name(long: &str) -> String {
    format!("SITEMAPPER_{}", long.to_ascii_uppercase().replace('-', "_"))
}

#[cfg(test)]
mod tests;
