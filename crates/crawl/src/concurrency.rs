//! The limit on fetch jobs in flight: a fixed number, or one that adapts to how the site
//! answers (`--concurrency auto`), the way TCP adapts its congestion window.
//!
//! The adaptive limit starts low and rises while the site's response times stay flat; it is
//! cut when they rise clearly above the site's unloaded response time, and halved when the
//! site says it is overloaded. [`AdaptiveLimit`] decides from the samples it is given and
//! nothing else (no clock, no sleep), so its tests feed it synthetic response times;
//! [`ConcurrencyLimit`] shares it between the fetch jobs and logs its changes.
//!
//! - Signal: the time from sending a request to its response headers. Not the whole body: a
//!   body's download time follows its size, not the server's load, and only 200 HTML bodies
//!   are downloaded at all, so whole-body times would compare a page with a 304. Time spent
//!   waiting before the request (for `--delay` or robots.txt `Crawl-delay`, for robots.txt
//!   itself, for a retry's backoff) is never part of it: the clock starts when the request
//!   is sent. Only the requests of pages (and their redirects) count; robots.txt and the
//!   site's sitemaps are single requests outside the jobs the limit governs.
//! - Overload: 429, 502, 503, 504, a timeout, or a failed connection: what the fetcher retries
//!   as transient, and what an overloaded server or its gateway answers. Every attempt counts,
//!   retried ones included.
//! - Window: a decision is made once per window of responses to requests sent under the
//!   current limit (as many as the limit, at least [`MIN_WINDOW`]). Responses to requests
//!   sent before the last cut or rise by half say nothing about the new limit and are not
//!   counted: this is also the cooldown after a cut, so that one bad window (every request in
//!   flight answering 503 together) cuts once, not once per response.
//! - Baseline: the lowest window median of the last [`BASELINE_WINDOWS`] windows that raised
//!   or cut the limit: the site's response time when it was least loaded. A minimum, because
//!   the first requests (cold connections and caches) may be the slowest; of medians, not of
//!   single responses, because a site's fastest page (a redirect, a 404) says nothing of a
//!   typical one; over recent windows only, so that a site whose pages get slower for good
//!   is measured anew once the limit has been cut for it.
//! - Increase: when a window's median is at most [`FLAT`] times the baseline: by half (at
//!   least one) while the site has never slowed down, as TCP's slow start; by one afterwards.
//! - Decrease: when a window's median is at least [`SLOWER`] times the baseline, to the limit
//!   times the square root of baseline over median (1.5 times slower: a fifth fewer; twice
//!   as slow: 29% fewer), but never less than half; on overload, by half. Never below 1. Not
//!   in full proportion: that would take all of the rise for the server's queue, which the
//!   cut empties, and land below the site's capacity whenever part of it is not (the
//!   crawler's own time, a server that thrashes and recovers only as its queue drains); a
//!   cut too small is followed by another, one window later.
//! - Between the two: the limit holds, and the slow start ends.

use std::collections::VecDeque;
use std::sync::Mutex;
use std::time::Duration;

/// How many fetch jobs run at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Concurrency {
    /// Always this many (0 counts as 1).
    Fixed(usize),
    /// Adapted to the site's response times, from [`AUTO_START`] up to [`AUTO_CEILING`].
    Auto,
}

impl Default for Concurrency {
    fn default() -> Self {
        Concurrency::Fixed(8)
    }
}

impl Concurrency {
    /// The most jobs this setting ever runs at once.
    pub fn most(self) -> usize {
        match self {
            Concurrency::Fixed(limit) => limit.max(1),
            Concurrency::Auto => AUTO_CEILING,
        }
    }
}

/// Where the adaptive limit starts: low, since nothing is known of the site yet.
pub const AUTO_START: usize = 2;

/// The adaptive limit's ceiling: a site whose response times never rise gets this many
/// requests at once, and no more.
pub const AUTO_CEILING: usize = 64;

/// The fewest responses a decision is made on: a median of two samples is noise.
pub(crate) const MIN_WINDOW: usize = 8;

/// How many recent windows the baseline is the lowest median of.
pub(crate) const BASELINE_WINDOWS: usize = 16;

/// A window median at most this many times the baseline is flat: the limit may rise.
pub(crate) const FLAT: f64 = 1.2;

/// A window median at least this many times the baseline is the site slowing down under the
/// load: the limit is cut.
pub(crate) const SLOWER: f64 = 1.5;

/// What one attempt of a request to the site showed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Signal {
    /// A response came, its headers this long after the request was sent.
    Answered(Duration),
    /// 429, 502, 503, 504, a timeout or a failed connection.
    Overloaded,
}

/// Which limit a request was sent under, taken when it is sent and handed back with what it
/// showed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Ticket {
    generation: u64,
}

/// Why the limit changed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum ChangeReason {
    /// A window's median stayed within [`FLAT`] times the baseline.
    Flat {
        median: Duration,
        baseline: Duration,
    },
    /// A window's median rose to [`SLOWER`] times the baseline or more.
    Slower {
        median: Duration,
        baseline: Duration,
    },
    /// The site answered 429, 502, 503 or 504, timed out, or refused a connection.
    Overloaded,
}

/// A change of the limit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct LimitChange {
    pub from: usize,
    pub to: usize,
    pub reason: ChangeReason,
}

/// The adaptive limit's state: a pure function of the samples it was given.
#[derive(Debug, Clone)]
pub(crate) struct AdaptiveLimit {
    limit: usize,
    ceiling: usize,
    /// Bumped at every change: tickets of an older generation are not counted.
    generation: u64,
    /// Response times of the current window.
    window: Vec<Duration>,
    /// The medians of the last windows, newest last.
    medians: VecDeque<Duration>,
    /// Whether the site has never slowed down yet: the limit grows by half, not by one.
    slow_start: bool,
    max_reached: usize,
    decreases: u32,
}

impl AdaptiveLimit {
    /// A limit that starts at `start` and never passes `ceiling` (both at least 1).
    pub(crate) fn new(start: usize, ceiling: usize) -> AdaptiveLimit {
        let ceiling = ceiling.max(1);
        let limit = start.clamp(1, ceiling);
        AdaptiveLimit {
            limit,
            ceiling,
            generation: 0,
            window: Vec::with_capacity(MIN_WINDOW),
            medians: VecDeque::with_capacity(BASELINE_WINDOWS),
            slow_start: true,
            max_reached: limit,
            decreases: 0,
        }
    }

    /// Jobs that may run now.
    pub(crate) fn limit(&self) -> usize {
        self.limit
    }

    /// The ticket of a request sent now.
    pub(crate) fn ticket(&self) -> Ticket {
        Ticket {
            generation: self.generation,
        }
    }

    /// Takes what a request sent with `ticket` showed; returns the change it led to, if any.
    pub(crate) fn observe(&mut self, ticket: Ticket, signal: Signal) -> Option<LimitChange> {
        if ticket.generation != self.generation {
            return None;
        }
        match signal {
            Signal::Overloaded => {
                self.slow_start = false;
                self.change(self.limit / 2, ChangeReason::Overloaded)
            }
            Signal::Answered(latency) => {
                self.window.push(latency);
                if self.window.len() < self.limit.max(MIN_WINDOW) {
                    return None;
                }
                self.decide()
            }
        }
    }

    /// Ends the window: its median against the baseline decides.
    fn decide(&mut self) -> Option<LimitChange> {
        let median = median(&mut self.window);
        self.window.clear();
        let baseline = self.medians.iter().copied().fold(median, Duration::min);
        // Whole nanoseconds, so that ratios of round figures are exact. A site that answers
        // in no measurable time cannot be measured slowing down.
        let ratio = if baseline.is_zero() {
            if median.is_zero() { 1.0 } else { f64::INFINITY }
        } else {
            median.as_nanos() as f64 / baseline.as_nanos() as f64
        };
        // A window that holds the limit is not remembered: were it, a limit held a little
        // above the site's capacity would, once the unloaded windows were forgotten, make
        // its own response times the baseline, and rise again, and again.
        if ratio <= FLAT || ratio >= SLOWER {
            if self.medians.len() == BASELINE_WINDOWS {
                self.medians.pop_front();
            }
            self.medians.push_back(median);
        }
        if ratio <= FLAT {
            let raised = if self.slow_start {
                self.limit + self.limit.div_ceil(2)
            } else {
                self.limit + 1
            };
            self.change(raised, ChangeReason::Flat { median, baseline })
        } else if ratio >= SLOWER {
            self.slow_start = false;
            // The ratio is at least SLOWER here: the product is below the limit.
            let cut = (self.limit as f64 / ratio.sqrt()).floor() as usize;
            self.change(
                cut.max(self.limit / 2),
                ChangeReason::Slower { median, baseline },
            )
        } else {
            self.slow_start = false;
            None
        }
    }

    /// Moves the limit to `to` (kept within 1 and the ceiling). A cut, or a rise by more than
    /// one, starts a new generation: the responses to requests sent before say nothing about
    /// the new load. A rise by one changes the load by one request: those responses still
    /// count, and the next window comes twice as soon.
    fn change(&mut self, to: usize, reason: ChangeReason) -> Option<LimitChange> {
        let to = to.clamp(1, self.ceiling);
        if to == self.limit {
            return None;
        }
        let from = self.limit;
        self.limit = to;
        if to != from + 1 {
            self.generation += 1;
        }
        self.window.clear();
        self.max_reached = self.max_reached.max(to);
        if to < from {
            self.decreases += 1;
        }
        Some(LimitChange { from, to, reason })
    }

    fn report(&self) -> ConcurrencyReport {
        ConcurrencyReport {
            adaptive: true,
            final_limit: self.limit,
            max_reached: self.max_reached,
            decreases: self.decreases,
        }
    }
}

/// The middle value (the upper one of an even count); `samples` is not empty.
fn median(samples: &mut [Duration]) -> Duration {
    samples.sort_unstable();
    samples
        .get(samples.len() / 2)
        .copied()
        .unwrap_or(Duration::ZERO)
}

/// What the concurrency limit did during a crawl.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConcurrencyReport {
    /// Whether the limit adapted (`--concurrency auto`).
    pub adaptive: bool,
    /// The limit when the crawl ended.
    pub final_limit: usize,
    /// The highest the limit was.
    pub max_reached: usize,
    /// How many times the limit was cut.
    pub decreases: u32,
}

/// The limit shared by a crawl's fetch jobs: the frontier's owner reads it before starting
/// a job, the fetcher reports to it what every request to the site showed.
#[derive(Debug)]
pub(crate) enum ConcurrencyLimit {
    /// Always this many.
    Fixed(usize),
    /// Adapted to the site.
    Adaptive(Mutex<AdaptiveLimit>),
}

impl ConcurrencyLimit {
    pub(crate) fn new(concurrency: Concurrency) -> ConcurrencyLimit {
        match concurrency {
            Concurrency::Fixed(limit) => ConcurrencyLimit::Fixed(limit.max(1)),
            Concurrency::Auto => {
                ConcurrencyLimit::Adaptive(Mutex::new(AdaptiveLimit::new(AUTO_START, AUTO_CEILING)))
            }
        }
    }

    /// Jobs that may run now.
    pub(crate) fn current(&self) -> usize {
        match self {
            ConcurrencyLimit::Fixed(limit) => *limit,
            ConcurrencyLimit::Adaptive(adaptive) => lock(adaptive).limit(),
        }
    }

    /// The ticket of a request sent now.
    pub(crate) fn ticket(&self) -> Ticket {
        match self {
            ConcurrencyLimit::Fixed(_) => Ticket::default(),
            ConcurrencyLimit::Adaptive(adaptive) => lock(adaptive).ticket(),
        }
    }

    /// Takes what a request sent with `ticket` showed.
    pub(crate) fn observe(&self, ticket: Ticket, signal: Signal) {
        let ConcurrencyLimit::Adaptive(adaptive) = self else {
            return;
        };
        let Some(change) = lock(adaptive).observe(ticket, signal) else {
            return;
        };
        let LimitChange { from, to, reason } = change;
        match reason {
            ChangeReason::Flat { median, baseline } | ChangeReason::Slower { median, baseline } => {
                tracing::debug!(
                    from,
                    to,
                    median_ms = median.as_secs_f64() * 1000.0,
                    baseline_ms = baseline.as_secs_f64() * 1000.0,
                    "concurrency limit changed: response times {}",
                    if to > from { "flat" } else { "rising" }
                );
            }
            ChangeReason::Overloaded => {
                tracing::debug!(
                    from,
                    to,
                    "concurrency limit changed: the site is overloaded"
                );
            }
        }
    }

    /// What the limit did.
    pub(crate) fn report(&self) -> ConcurrencyReport {
        match self {
            ConcurrencyLimit::Fixed(limit) => ConcurrencyReport {
                adaptive: false,
                final_limit: *limit,
                max_reached: *limit,
                decreases: 0,
            },
            ConcurrencyLimit::Adaptive(adaptive) => lock(adaptive).report(),
        }
    }
}

/// The state behind the lock; a job that panicked while holding it left numbers as valid as
/// before (every change is a few plain assignments).
fn lock(adaptive: &Mutex<AdaptiveLimit>) -> std::sync::MutexGuard<'_, AdaptiveLimit> {
    adaptive.lock().unwrap_or_else(|poison| poison.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);

    /// Sends `requests` requests one at a time, each answered as `latency` says for the
    /// limit it was sent under; returns the limit after each.
    fn run(
        limit: &mut AdaptiveLimit,
        requests: usize,
        latency: impl Fn(usize) -> Signal,
    ) -> Vec<usize> {
        (0..requests)
            .map(|_| {
                let ticket = limit.ticket();
                limit.observe(ticket, latency(limit.limit()));
                limit.limit()
            })
            .collect()
    }

    /// A server with `capacity` slots of `service` each: beyond them, requests queue and
    /// every response takes longer in proportion.
    fn server(capacity: usize, service: Duration) -> impl Fn(usize) -> Signal {
        move |in_flight| {
            let load = (in_flight as f64 / capacity as f64).max(1.0);
            Signal::Answered(service.mul_f64(load))
        }
    }

    #[test]
    fn flat_response_times_raise_the_limit_to_the_ceiling_and_no_further() {
        let mut limit = AdaptiveLimit::new(AUTO_START, AUTO_CEILING);
        let limits = run(&mut limit, 2_000, |_| Signal::Answered(10 * MS));
        assert_eq!(limits[0], AUTO_START);
        assert!(
            limits.windows(2).all(|pair| pair[1] >= pair[0]),
            "never cut"
        );
        assert_eq!(limit.limit(), AUTO_CEILING);
        assert_eq!(limit.report().max_reached, AUTO_CEILING);
        assert_eq!(limit.report().decreases, 0);
    }

    #[test]
    fn the_slow_start_grows_by_half_then_one_at_a_time() {
        let mut limit = AdaptiveLimit::new(2, 64);
        let mut seen = vec![limit.limit()];
        for _ in 0..400 {
            let ticket = limit.ticket();
            if let Some(change) = limit.observe(ticket, Signal::Answered(10 * MS)) {
                seen.push(change.to);
            }
        }
        assert_eq!(seen[..8], [2, 3, 5, 8, 12, 18, 27, 41]);

        // Once the site has slowed down, one at a time.
        let mut limit = AdaptiveLimit::new(8, 64);
        let ticket = limit.ticket();
        limit.observe(ticket, Signal::Overloaded);
        assert_eq!(limit.limit(), 4);
        run(&mut limit, MIN_WINDOW, |_| Signal::Answered(10 * MS));
        assert_eq!(limit.limit(), 5);
        run(&mut limit, MIN_WINDOW, |_| Signal::Answered(10 * MS));
        assert_eq!(limit.limit(), 6);
    }

    #[test]
    fn rising_response_times_cut_the_limit() {
        let mut limit = AdaptiveLimit::new(16, 64);
        run(&mut limit, 16, |_| Signal::Answered(10 * MS));
        assert_eq!(limit.limit(), 24, "a flat window first");
        // 1.5 times as slow under the new limit: 24 / sqrt(1.5) = 19.6.
        let ticket = limit.ticket();
        let mut change = None;
        for _ in 0..24 {
            change = limit.observe(ticket, Signal::Answered(15 * MS)).or(change);
        }
        assert_eq!(limit.limit(), 19);
        assert!(matches!(
            change,
            Some(LimitChange {
                from: 24,
                to: 19,
                reason: ChangeReason::Slower { .. }
            })
        ));
        // Six times as slow: halved, not more.
        run(&mut limit, 19, |_| Signal::Answered(60 * MS));
        assert_eq!(limit.limit(), 9);
        assert_eq!(limit.report().decreases, 2);
    }

    #[test]
    fn a_window_a_little_slower_holds_the_limit() {
        let mut limit = AdaptiveLimit::new(8, 64);
        run(&mut limit, 8, |_| Signal::Answered(10 * MS));
        assert_eq!(limit.limit(), 12);
        run(&mut limit, 120, |_| Signal::Answered(13 * MS));
        assert_eq!(limit.limit(), 12, "between flat and slower: held");
        run(&mut limit, 12, |_| Signal::Answered(10 * MS));
        assert_eq!(limit.limit(), 13, "the slow start ended: one more");
    }

    #[test]
    fn responses_sent_before_a_rise_by_one_count_and_before_a_cut_not() {
        let mut limit = AdaptiveLimit::new(8, 64);
        limit.observe(limit.ticket(), Signal::Overloaded);
        assert_eq!(limit.limit(), 4);
        let before_rise: Vec<Ticket> = (0..MIN_WINDOW).map(|_| limit.ticket()).collect();
        run(&mut limit, MIN_WINDOW, |_| Signal::Answered(10 * MS));
        assert_eq!(limit.limit(), 5);
        for ticket in before_rise {
            limit.observe(ticket, Signal::Answered(10 * MS));
        }
        assert_eq!(limit.limit(), 6, "a window of responses sent under 4");
        let before_cut: Vec<Ticket> = (0..MIN_WINDOW).map(|_| limit.ticket()).collect();
        limit.observe(limit.ticket(), Signal::Overloaded);
        assert_eq!(limit.limit(), 3);
        for ticket in before_cut {
            limit.observe(ticket, Signal::Answered(10 * MS));
        }
        assert_eq!(limit.limit(), 3, "responses sent under 6 say nothing of 3");
    }

    #[test]
    fn an_overloaded_site_halves_the_limit_once_per_window() {
        let mut limit = AdaptiveLimit::new(32, 64);
        // Every request in flight answers 503 together: one cut, not 32.
        let tickets: Vec<Ticket> = (0..32).map(|_| limit.ticket()).collect();
        for ticket in tickets {
            limit.observe(ticket, Signal::Overloaded);
        }
        assert_eq!(limit.limit(), 16);
        // A 503 to a request sent under the new limit cuts again.
        let ticket = limit.ticket();
        limit.observe(ticket, Signal::Overloaded);
        assert_eq!(limit.limit(), 8);
        assert_eq!(limit.report().decreases, 2);
        assert_eq!(limit.report().max_reached, 32);
    }

    #[test]
    fn never_below_one_and_never_above_the_ceiling() {
        let mut limit = AdaptiveLimit::new(4, 6);
        run(&mut limit, 200, |_| Signal::Overloaded);
        assert_eq!(limit.limit(), 1);
        run(&mut limit, 200, |_| {
            Signal::Answered(Duration::from_secs(5))
        });
        assert_eq!(limit.limit(), 6);
        run(&mut limit, 3 * MIN_WINDOW, |_| {
            Signal::Answered(Duration::from_secs(50))
        });
        assert_eq!(limit.limit(), 1);
        assert_eq!(AdaptiveLimit::new(0, 0).limit(), 1);
        assert_eq!(AdaptiveLimit::new(100, 8).limit(), 8);
    }

    #[test]
    fn the_slowest_first_requests_do_not_hold_the_limit_down() {
        // Cold connections: the first window is ten times slower than the rest.
        let mut limit = AdaptiveLimit::new(AUTO_START, AUTO_CEILING);
        run(&mut limit, MIN_WINDOW, |_| Signal::Answered(100 * MS));
        run(&mut limit, 500, |_| Signal::Answered(10 * MS));
        assert_eq!(limit.limit(), AUTO_CEILING);
    }

    #[test]
    fn a_server_at_capacity_keeps_the_limit_near_its_capacity() {
        for capacity in [4, 8, 16, 32] {
            let mut limit = AdaptiveLimit::new(AUTO_START, AUTO_CEILING);
            let limits = run(&mut limit, 20_000, server(capacity, 10 * MS));
            let settled = &limits[limits.len() / 2..];
            let lowest = settled.iter().copied().min().unwrap_or_default();
            let highest = settled.iter().copied().max().unwrap_or_default();
            assert!(
                lowest * 2 >= capacity && highest * 2 <= capacity * 3,
                "capacity {capacity}: the limit went from {lowest} to {highest}"
            );
        }
    }

    #[test]
    fn a_site_that_gets_slower_for_good_is_measured_anew() {
        let mut limit = AdaptiveLimit::new(8, 8);
        run(&mut limit, 100, |_| Signal::Answered(10 * MS));
        // Three times slower, whatever the load: cut, then grows back once the old baseline
        // has left the history.
        run(&mut limit, 8, |_| Signal::Answered(30 * MS));
        assert!(limit.limit() < 8);
        run(&mut limit, 2_000, |_| Signal::Answered(30 * MS));
        assert_eq!(limit.limit(), 8);
    }

    #[test]
    fn a_fixed_limit_ignores_what_requests_show() {
        let limit = ConcurrencyLimit::new(Concurrency::Fixed(5));
        for _ in 0..100 {
            limit.observe(limit.ticket(), Signal::Overloaded);
        }
        assert_eq!(limit.current(), 5);
        assert_eq!(
            limit.report(),
            ConcurrencyReport {
                adaptive: false,
                final_limit: 5,
                max_reached: 5,
                decreases: 0
            }
        );
        assert_eq!(ConcurrencyLimit::new(Concurrency::Fixed(0)).current(), 1);
        assert_eq!(
            ConcurrencyLimit::new(Concurrency::Auto).current(),
            AUTO_START
        );
    }
}
