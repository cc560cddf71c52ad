//! When a site runs: every so often (`every = "24h"`), or at the times of a cron expression
//! (`cron = "0 3 * * *"`, in the machine's time zone), and when a site is due.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use jiff::{SignedDuration, Span, SpanRelativeTo, Timestamp, Zoned, tz::TimeZone};

/// A site's schedule.
#[derive(Debug, Clone)]
pub enum Schedule {
    /// A run starts this long after the previous run started.
    Every {
        /// As written (`24h`, `1 day`, `90m`).
        text: String,
        /// The time between the starts of two runs.
        period: Duration,
    },
    /// A run starts at the first time the expression gives after the previous run started.
    Cron {
        /// As written.
        text: String,
        /// The parsed expression (boxed: it is far larger than a period).
        cron: Box<croner::Cron>,
    },
}

/// Why a written duration was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DurationError {
    /// Not a duration at all.
    #[error("{text:?} is not a duration (write it as 24h, 90m, 1 day or 1h 30m)")]
    Unreadable {
        /// As written.
        text: String,
    },
    /// Zero or negative.
    #[error("{text:?}: a duration must be more than zero")]
    NotPositive {
        /// As written.
        text: String,
    },
}

/// A schedule that cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum ScheduleError {
    /// `every` is not a duration more than zero.
    #[error(transparent)]
    Every(#[from] DurationError),
    /// `cron` is not an expression croner reads.
    #[error("cron expression {text:?}: {error}")]
    Cron {
        /// As written.
        text: String,
        /// What croner found wrong (in the message already, so not its source).
        error: croner::errors::CronError,
    },
    /// Neither `every ...` nor `cron ...`, as [`Schedule`]'s `Display` writes them.
    #[error("not a schedule: {text:?}")]
    Unknown {
        /// As written.
        text: String,
    },
}

/// What a site runs on when its fleet file gives no schedule.
const DEFAULT_EVERY: &str = "24h";

impl Default for Schedule {
    fn default() -> Schedule {
        Schedule::Every {
            text: DEFAULT_EVERY.to_string(),
            period: Duration::from_secs(24 * 60 * 60),
        }
    }
}

impl PartialEq for Schedule {
    fn eq(&self, other: &Schedule) -> bool {
        self.to_string() == other.to_string()
    }
}

impl Schedule {
    /// `every`: a duration (`24h`, `1 day`, `90m`, ISO 8601 `P1D`), more than zero.
    pub fn every(text: &str) -> Result<Schedule, ScheduleError> {
        Ok(Schedule::Every {
            text: text.trim().to_string(),
            period: parse_duration(text)?,
        })
    }

    /// `cron`: five fields (minute hour day-of-month month day-of-week), or six with seconds
    /// first.
    pub fn cron(text: &str) -> Result<Schedule, ScheduleError> {
        let cron = croner::Cron::from_str(text.trim()).map_err(|error| ScheduleError::Cron {
            text: text.to_string(),
            error,
        })?;
        Ok(Schedule::Cron {
            text: text.trim().to_string(),
            cron: Box::new(cron),
        })
    }

    /// The first time the site is due after a run that started at `started`.
    pub fn next_after(&self, started: Timestamp) -> Timestamp {
        match self {
            Schedule::Every { period, .. } => {
                let period = SignedDuration::try_from(*period).unwrap_or(SignedDuration::MAX);
                started.saturating_add(period).unwrap_or(Timestamp::MAX)
            }
            Schedule::Cron { cron, .. } => {
                let start = started.to_zoned(TimeZone::system());
                cron.find_next_occurrence::<Zoned>(&start, false)
                    .map(|next| next.timestamp())
                    // An expression no date matches (February 30th): never due again.
                    .unwrap_or(Timestamp::MAX)
            }
        }
    }
}

impl fmt::Display for Schedule {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Schedule::Every { text, .. } => write!(formatter, "every {text}"),
            Schedule::Cron { text, .. } => write!(formatter, "cron {text}"),
        }
    }
}

impl FromStr for Schedule {
    type Err = ScheduleError;

    /// Reads back what [`Schedule`]'s `Display` wrote.
    fn from_str(text: &str) -> Result<Schedule, ScheduleError> {
        match text.split_once(' ') {
            Some(("every", every)) => Schedule::every(every),
            Some(("cron", cron)) => Schedule::cron(cron),
            _ => Err(ScheduleError::Unknown {
                text: text.to_string(),
            }),
        }
    }
}

/// A duration as a person writes it: `24h`, `1 day`, `90m`, `1h 30m`, or ISO 8601 (`PT12H`).
/// A day is 24 hours here. Zero and negative durations are refused.
pub fn parse_duration(text: &str) -> Result<Duration, DurationError> {
    let refused = || DurationError::Unreadable {
        text: text.to_string(),
    };
    let span: Span = text.trim().parse().map_err(|_| refused())?;
    let signed = span
        .to_duration(SpanRelativeTo::days_are_24_hours())
        .map_err(|_| refused())?;
    match Duration::try_from(signed) {
        Ok(duration) if !duration.is_zero() => Ok(duration),
        _ => Err(DurationError::NotPositive {
            text: text.to_string(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn time(text: &str) -> Timestamp {
        text.parse()
            .unwrap_or_else(|error| panic!("{text}: {error}"))
    }

    #[test]
    fn durations_read_as_people_write_them() {
        let hours = |hours: u64| Duration::from_secs(hours * 3600);
        assert_eq!(parse_duration("24h"), Ok(hours(24)));
        assert_eq!(parse_duration("1 day"), Ok(hours(24)));
        assert_eq!(parse_duration("1d"), Ok(hours(24)));
        assert_eq!(parse_duration("90m"), Ok(Duration::from_secs(90 * 60)));
        assert_eq!(parse_duration("1h 30m"), Ok(Duration::from_secs(90 * 60)));
        assert_eq!(parse_duration("PT12H"), Ok(hours(12)));
        assert_eq!(
            parse_duration("0s"),
            Err(DurationError::NotPositive {
                text: "0s".to_string()
            })
        );
        assert!(matches!(
            parse_duration("-1h"),
            Err(DurationError::NotPositive { .. })
        ));
        assert!(matches!(
            parse_duration("soon"),
            Err(DurationError::Unreadable { .. })
        ));
    }

    #[test]
    fn mistakes_read_as_users_see_them() {
        let message = |result: Result<Schedule, ScheduleError>| match result {
            Ok(schedule) => panic!("accepted: {schedule}"),
            Err(error) => error.to_string(),
        };
        assert_eq!(
            message(Schedule::every("soon")),
            "\"soon\" is not a duration (write it as 24h, 90m, 1 day or 1h 30m)"
        );
        assert_eq!(
            message(Schedule::every("0s")),
            "\"0s\": a duration must be more than zero"
        );
        assert!(
            message(Schedule::cron("61 * * * *")).starts_with("cron expression \"61 * * * *\": "),
            "{}",
            message(Schedule::cron("61 * * * *"))
        );
        assert_eq!(message("weekly".parse()), "not a schedule: \"weekly\"");
    }

    #[test]
    fn every_counts_from_the_start_of_the_previous_run() {
        let schedule = Schedule::every("12h").unwrap_or_else(|error| panic!("{error}"));
        assert_eq!(
            schedule.next_after(time("2026-01-01T03:00:00Z")),
            time("2026-01-01T15:00:00Z")
        );
        assert_eq!(schedule.to_string(), "every 12h");
        assert_eq!("every 12h".parse::<Schedule>().ok(), Some(schedule));
    }

    #[test]
    fn cron_gives_the_next_matching_time() {
        let schedule = Schedule::cron("*/15 * * * *").unwrap_or_else(|error| panic!("{error}"));
        // Quarter hours are quarter hours in every time zone of whole or half hours.
        assert_eq!(
            schedule.next_after(time("2026-01-01T03:07:10Z")),
            time("2026-01-01T03:15:00Z")
        );
        assert_eq!(
            schedule.next_after(time("2026-01-01T03:15:00Z")),
            time("2026-01-01T03:30:00Z")
        );
        assert_eq!("cron */15 * * * *".parse::<Schedule>().ok(), Some(schedule));
        assert!(Schedule::cron("61 * * * *").is_err());
        assert!(Schedule::cron("every day").is_err());
    }
}
