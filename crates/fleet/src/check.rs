//! Whether a fleet is well, for monitoring (`fleet status --check`): every site's last run
//! succeeded, and no site is late past its grace.
//!
//! A site is due at its `next_due` ([`crate::next_due`]), but never before its last run ended
//! (a run longer than the schedule's interval is due again when it ends) nor, for a site never
//! run, before the registry can have known it (`known_since`: the queue's sync sets a new
//! site's due time itself; the fleet file cannot say when a site was added, so `fleet status`
//! on one machine passes the file's last modification, the latest a site can have been
//! added). It is overdue once `now >= due + grace`, where the grace is the site's `retry`
//! (1 hour unless set): as long as a failed site waits to be tried again, a due site may wait
//! to be run (for the next `fleet run` from cron, or for a free worker). A site running now is
//! not overdue.

use jiff::{SignedDuration, Timestamp};

use crate::record::{RunResult, SiteStatus};

/// What is wrong with a site, if anything.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Standing {
    /// Its last run succeeded and it is not late (or it was never run and is not late yet).
    Well,
    /// Its last run failed.
    Failed,
    /// It should have run by `since` (its due time and its grace) and has not.
    Overdue {
        /// When it was due.
        due: Timestamp,
        /// When it became overdue: its due time and its grace.
        since: Timestamp,
    },
}

impl SiteStatus {
    /// The site's standing at `now`; a site never run is taken to be due no earlier than
    /// `known_since`.
    pub fn standing(&self, now: Timestamp, known_since: Timestamp) -> Standing {
        if self
            .last
            .as_ref()
            .is_some_and(|run| run.result == RunResult::Failed)
        {
            return Standing::Failed;
        }
        if self.running_on.is_some() {
            return Standing::Well;
        }
        let floor = self.last.as_ref().map_or(known_since, |run| run.finished);
        let due = self.next_due.max(floor);
        let grace = SignedDuration::try_from(self.retry).unwrap_or(SignedDuration::MAX);
        let since = due.saturating_add(grace).unwrap_or(Timestamp::MAX);
        if now >= since {
            Standing::Overdue { due, since }
        } else {
            Standing::Well
        }
    }
}

/// The standing of a fleet: its sites, and those not well.
#[derive(Debug)]
pub struct FleetCheck<'a> {
    /// Sites checked.
    pub sites: usize,
    /// Sites never run (and not overdue).
    pub not_run_yet: usize,
    /// Each site not well, in the order given.
    pub problems: Vec<(&'a SiteStatus, Standing)>,
}

impl FleetCheck<'_> {
    /// The standing of `sites` at `now` (`known_since` as [`SiteStatus::standing`] takes it).
    pub fn of(sites: &[SiteStatus], now: Timestamp, known_since: Timestamp) -> FleetCheck<'_> {
        let mut check = FleetCheck {
            sites: sites.len(),
            not_run_yet: 0,
            problems: Vec::new(),
        };
        for site in sites {
            match site.standing(now, known_since) {
                Standing::Well => check.not_run_yet += usize::from(site.last.is_none()),
                problem @ (Standing::Failed | Standing::Overdue { .. }) => {
                    check.problems.push((site, problem));
                }
            }
        }
        check
    }

    /// Whether every site is well.
    pub fn is_well(&self) -> bool {
        self.problems.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::record::RunRecord;

    fn time(text: &str) -> Timestamp {
        text.parse().unwrap_or_else(|_| panic!("{text}"))
    }

    fn site(last: Option<RunResult>, next_due: &str) -> SiteStatus {
        SiteStatus {
            name: "a".to_string(),
            url: "https://a.example/".to_string(),
            schedule: "every 1d".to_string(),
            last: last.map(|result| RunRecord {
                finished: time("2026-01-01T00:10:00Z"),
                result,
                ..RunRecord::new(time("2026-01-01T00:00:00Z"), None)
            }),
            next_due: time(next_due),
            running_on: None,
            runs: 1,
            retry: Duration::from_secs(3600),
        }
    }

    #[test]
    fn a_site_is_overdue_after_its_due_time_and_its_grace() {
        let known = Timestamp::UNIX_EPOCH;
        let ran = site(Some(RunResult::Succeeded), "2026-01-02T00:00:00Z");
        assert_eq!(
            ran.standing(time("2026-01-02T00:59:59Z"), known),
            Standing::Well
        );
        let since = time("2026-01-02T01:00:00Z");
        assert_eq!(
            ran.standing(since, known),
            Standing::Overdue {
                due: time("2026-01-02T00:00:00Z"),
                since
            }
        );
        let running = SiteStatus {
            running_on: Some("w".to_string()),
            ..ran.clone()
        };
        assert_eq!(
            running.standing(time("2026-02-01T00:00:00Z"), known),
            Standing::Well
        );
        let failed = site(Some(RunResult::Failed), "2026-01-01T01:10:00Z");
        assert_eq!(
            failed.standing(time("2026-01-01T00:20:00Z"), known),
            Standing::Failed
        );
        // Never run: due at once, but not before the registry knew it.
        let new = site(None, "1970-01-01T00:00:00Z");
        let added = time("2026-01-01T00:00:00Z");
        assert_eq!(
            new.standing(time("2026-01-01T00:30:00Z"), added),
            Standing::Well
        );
        assert_eq!(
            new.standing(time("2026-01-01T01:30:00Z"), added),
            Standing::Overdue {
                due: added,
                since: time("2026-01-01T01:00:00Z")
            }
        );
        // Interrupted: due at once, counted from the end of the interrupted run.
        let interrupted = site(Some(RunResult::Interrupted), "1970-01-01T00:00:00Z");
        assert_eq!(
            interrupted.standing(time("2026-01-01T01:00:00Z"), known),
            Standing::Well
        );
        let sites = [ran, failed, new];
        let check = FleetCheck::of(&sites, time("2026-01-01T00:30:00Z"), added);
        assert_eq!(
            (check.sites, check.not_run_yet, check.problems.len()),
            (3, 1, 1)
        );
        assert!(!check.is_well());
    }
}
