//! When a page is done: what its scripts still wait for, the requests a tab waits for, and the
//! long polls it stops waiting for.
//!
//! The rule, in the words of `docs/rendering.md`: a page is done when what it asked for has
//! answered, nothing it set going is pending, and it has been quiet for [`SETTLE`] and is idle.
//! Two halves tell it, and both must agree:
//!
//! - **The page** (`settle.js`, run in every document before the page's own scripts): its
//!   `fetch()`es and XHRs with the bodies read, the scripts its scripts added until they ran,
//!   and its timers of up to [`SHORT_TIMER`] are its work in progress; an element added, a
//!   request started or ended, a short timer set or run is activity. Done once loaded, nothing
//!   pending, no activity for [`SETTLE`] (or for longer than its shortest interval of up to
//!   [`SHORT_TIMER`], so that a page that polls or adds elements on an interval never is), and
//!   then idle: an idle callback runs only when no task waits, so a framework hydrating in
//!   slices is not done before its last slice and the requests its effects make. A page busy
//!   without end is never idle, and is left to the render timeout.
//! - **The network**, as the tab hears of it ([`Network`]): no request started or ended for
//!   [`SETTLE`], and none in flight but long polls. It sees what the page's scripts cannot: the
//!   modules `import()` loads, the styles, a worker's script.
//!
//! A page's *first requests* are those that started before its network was first quiet (the
//! page's document requested, then no request started for [`QUIET`] and none in flight), and
//! each of them is waited for, however long it takes: a slow first `fetch()` is the page's
//! content on its way. A request that started after that moment and stays in flight for
//! [`LONG_REQUEST`] is a long poll (a live feed, a hanging GET), and stops counting, on both
//! halves.
//!
//! A worker's own script is known by its start (it has no loader) and is not waited for: its end
//! is reported to the worker, never to the tab. The requests a worker's script makes are not
//! seen by the tab at all. Any other request whose end the tab never hears of stays in flight:
//! when it is one of the first requests, it holds the page until the render timeout. At the
//! timeout, a page held only by requests in flight for [`LONG_REQUEST`]
//! ([`Network::is_quiet_but_for_long_requests`]) that added no element and started no request
//! for [`QUIET`] is read as rendered, with what its scripts drew, rather than as served.
//!
//! Times are passed in, not read: the network's rule is a function of when requests started and
//! ended.

use std::collections::{HashMap, HashSet};
use std::time::Duration;

use chromiumoxide::cdp::browser_protocol::network::RequestId;
use tokio::time::Instant;

use crate::options::{QUIET, SETTLE, SHORT_TIMER};

/// How long a request that started after the page's first requests answered may stay in
/// flight and still keep the page from being done.
pub(crate) const LONG_REQUEST: Duration = Duration::from_secs(3);

/// When a request in flight started, and whether the page's first requests had all answered
/// by then (the network had been quiet once).
#[derive(Debug, Clone, Copy)]
struct Started {
    at: Instant,
    after_first_requests: bool,
}

/// The requests of one page, as the tab hears of them.
#[derive(Debug)]
pub(crate) struct Network {
    /// Requests started and not ended.
    in_flight: HashMap<RequestId, Started>,
    /// Requests whose end was read before their start: each event type has its own stream.
    ended_early: HashSet<RequestId>,
    /// When a request last started (or was intercepted), or when the page began to load.
    last_request: Instant,
    /// When a request last ended, or when the page began to load.
    last_end: Instant,
    /// Whether the page's document was requested: before it, the network of the page that is
    /// not there yet is not quiet in any sense that matters.
    document_requested: bool,
    /// Whether the network was quiet once since the document was requested: every request
    /// started from then on is not one of the page's first.
    first_requests_answered: bool,
}

impl Network {
    /// A page that begins to load at `now`.
    pub(crate) fn new(now: Instant) -> Network {
        Network {
            in_flight: HashMap::new(),
            ended_early: HashSet::new(),
            last_request: now,
            last_end: now,
            document_requested: false,
            first_requests_answered: false,
        }
    }

    /// The page's document was requested at `now`.
    pub(crate) fn document_requested(&mut self, now: Instant) {
        self.activity(now);
        self.document_requested = true;
    }

    /// A request was intercepted at `now`: activity, whether or not its start is reported.
    pub(crate) fn intercepted(&mut self, now: Instant) {
        self.activity(now);
    }

    /// Request `id` started at `now`.
    pub(crate) fn started(&mut self, id: RequestId, now: Instant) {
        self.activity(now);
        if !self.ended_early.remove(&id) {
            let started = Started {
                at: now,
                after_first_requests: self.first_requests_answered,
            };
            self.in_flight.insert(id, started);
        }
    }

    /// A request whose end the tab will not hear of started at `now` (a worker's script, whose
    /// load is reported to the worker): activity, but not waited for.
    pub(crate) fn started_unheard(&mut self, now: Instant) {
        self.activity(now);
    }

    /// Request `id` ended (answered, failed or refused) at `now`.
    pub(crate) fn ended(&mut self, id: RequestId, now: Instant) {
        self.last_end = now;
        if self.in_flight.remove(&id).is_none() {
            self.ended_early.insert(id);
        }
    }

    /// Requests in flight.
    pub(crate) fn in_flight(&self) -> usize {
        self.in_flight.len()
    }

    /// How long ago a request last started.
    pub(crate) fn since_request(&self, now: Instant) -> Duration {
        now.saturating_duration_since(self.last_request)
    }

    /// Whether the network is quiet at `now`: no request started or ended for [`SETTLE`], and
    /// every request in flight is a long poll (it started after the page's first requests
    /// answered and has been in flight for [`LONG_REQUEST`]).
    pub(crate) fn is_quiet(&self, now: Instant) -> bool {
        self.since_request(now) >= SETTLE
            && now.saturating_duration_since(self.last_end) >= SETTLE
            && self.in_flight.values().all(|started| {
                started.after_first_requests && self.in_flight_for(started, now) >= LONG_REQUEST
            })
    }

    /// Whether the network would be quiet if every request in flight for [`LONG_REQUEST`]
    /// were a long poll, whenever it started: what is asked at the render timeout, when the
    /// requests still in flight are given up.
    pub(crate) fn is_quiet_but_for_long_requests(&self, now: Instant) -> bool {
        self.since_request(now) >= QUIET
            && self
                .in_flight
                .values()
                .all(|started| self.in_flight_for(started, now) >= LONG_REQUEST)
    }

    fn in_flight_for(&self, started: &Started, now: Instant) -> Duration {
        now.saturating_duration_since(started.at)
    }

    /// Notes activity at `now`, after noting whether the network had been quiet until then.
    /// Nothing changes between two events, so the network was quiet at some moment before
    /// `now` exactly when it is quiet by the first requests' measure now: once the document
    /// was requested, none is in flight and none started for [`QUIET`].
    fn activity(&mut self, now: Instant) {
        if self.document_requested && self.in_flight.is_empty() && self.since_request(now) >= QUIET
        {
            self.first_requests_answered = true;
        }
        self.last_request = now;
    }
}

/// The script run in every document before the page's own (`settle.js`): the page's half of
/// the rule, and what keeps the tab on the page (no pop-up, dialog or service worker).
pub(crate) fn init_script() -> String {
    include_str!("settle.js")
        .replace("SETTLE_MS", &SETTLE.as_millis().to_string())
        .replace("LONG_REQUEST_MS", &LONG_REQUEST.as_millis().to_string())
        .replace("SHORT_TIMER_MS", &SHORT_TIMER.as_millis().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(name: &str) -> RequestId {
        RequestId::new(name)
    }

    fn ms(milliseconds: u64) -> Duration {
        Duration::from_millis(milliseconds)
    }

    /// A page whose document was requested at `zero` and answered at once.
    fn loaded(zero: Instant) -> Network {
        let mut network = Network::new(zero);
        network.document_requested(zero);
        network.started(id("document"), zero);
        network.ended(id("document"), zero);
        network
    }

    #[test]
    fn a_page_that_asked_for_nothing_more_is_quiet_after_settle() {
        let zero = Instant::now();
        let network = loaded(zero);
        assert!(!network.is_quiet(zero + SETTLE - ms(1)));
        assert!(network.is_quiet(zero + SETTLE));
    }

    #[test]
    fn an_answer_holds_the_page_for_settle_after_it() {
        let zero = Instant::now();
        let mut network = loaded(zero);
        network.started(id("api"), zero + ms(10));
        let answered = zero + ms(200);
        network.ended(id("api"), answered);
        assert!(!network.is_quiet(answered + SETTLE - ms(1)));
        assert!(network.is_quiet(answered + SETTLE));
    }

    #[test]
    fn a_slow_first_request_is_waited_for_however_long_it_takes() {
        let zero = Instant::now();
        let mut network = loaded(zero);
        network.started(id("script"), zero + ms(10));
        network.ended(id("script"), zero + ms(15));
        // The script's fetch starts as soon as the script has run: one of the first requests.
        network.started(id("api"), zero + ms(20));
        for after in [1, 3, 5, 9] {
            assert!(
                !network.is_quiet(zero + Duration::from_secs(after)),
                "read {after} s in, before the data came"
            );
        }
        network.ended(id("api"), zero + Duration::from_secs(5));
        assert!(network.is_quiet(zero + Duration::from_secs(9)));
    }

    #[test]
    fn first_requests_started_in_a_chain_are_all_waited_for() {
        let zero = Instant::now();
        let mut network = loaded(zero);
        network.started(id("first"), zero + ms(400));
        network.ended(id("first"), zero + ms(450));
        // Less than QUIET after the last start, with nothing in flight: still the first requests.
        network.started(id("second"), zero + ms(800));
        assert!(!network.is_quiet(zero + Duration::from_secs(6)));
    }

    #[test]
    fn a_long_poll_started_after_the_first_requests_answered_stops_counting() {
        let zero = Instant::now();
        let mut network = loaded(zero);
        network.started(id("data"), zero + ms(10));
        network.ended(id("data"), zero + ms(15));
        // The network was quiet from 510 ms on: the poll started at 600 ms is not a first request.
        let poll_started = zero + ms(600);
        network.started(id("poll"), poll_started);
        assert!(!network.is_quiet(poll_started + ms(2999)));
        assert!(network.is_quiet(poll_started + LONG_REQUEST));
    }

    #[test]
    fn a_request_started_after_the_quiet_moment_waits_for_quiet_of_its_own() {
        let zero = Instant::now();
        let mut network = loaded(zero);
        let poll_started = zero + Duration::from_secs(2);
        network.started(id("poll"), poll_started);
        network.started(id("more"), poll_started + LONG_REQUEST);
        network.ended(id("more"), poll_started + LONG_REQUEST);
        assert!(
            !network.is_quiet(poll_started + LONG_REQUEST + SETTLE - ms(1)),
            "a request started and answered just now"
        );
        assert!(network.is_quiet(poll_started + LONG_REQUEST + SETTLE));
    }

    #[test]
    fn an_intercepted_request_marks_the_quiet_moment_before_its_start_is_read() {
        let zero = Instant::now();
        let mut network = loaded(zero);
        // The interception is read before the start of the same request.
        network.intercepted(zero + ms(700));
        network.started(id("poll"), zero + ms(701));
        assert!(network.is_quiet(zero + ms(701) + LONG_REQUEST));
    }

    #[test]
    fn requests_before_the_document_do_not_make_the_page_quiet() {
        let zero = Instant::now();
        let mut network = Network::new(zero);
        // A tab is slow to navigate: nothing happens for a second before the document.
        network.document_requested(zero + Duration::from_secs(1));
        network.started(id("api"), zero + Duration::from_secs(1) + ms(50));
        assert!(!network.is_quiet(zero + Duration::from_secs(8)));
    }

    #[test]
    fn an_end_read_before_its_start_is_not_left_in_flight() {
        let zero = Instant::now();
        let mut network = loaded(zero);
        network.ended(id("quick"), zero + ms(5));
        network.started(id("quick"), zero + ms(10));
        assert_eq!(network.in_flight(), 0);
        assert!(network.is_quiet(zero + ms(10) + QUIET));
    }

    #[test]
    fn a_page_that_polls_more_often_than_settle_is_never_quiet() {
        // A page that polls less often is held by its half of the rule (`settle.js`): its
        // interval, or the short timer it sets again.
        let zero = Instant::now();
        let mut network = loaded(zero);
        for tick in 1..100 {
            let now = zero + ms(40 * tick);
            let poll = id(&format!("poll-{tick}"));
            network.started(poll.clone(), now);
            network.ended(poll, now + ms(5));
            assert!(!network.is_quiet(now + ms(39)));
        }
    }

    #[test]
    fn a_workers_script_is_not_waited_for() {
        let zero = Instant::now();
        let mut network = loaded(zero);
        network.started_unheard(zero + ms(40));
        assert!(
            !network.is_quiet(zero + ms(80)),
            "a request started 40 ms ago"
        );
        assert!(network.is_quiet(zero + ms(40) + SETTLE));
    }

    #[test]
    fn at_the_timeout_a_first_request_that_never_answered_is_given_up() {
        let zero = Instant::now();
        let mut network = loaded(zero);
        // A worker's fetch: its end is reported to the worker, never to the tab.
        network.started(id("worker-fetch"), zero + ms(30));
        let timeout = zero + Duration::from_secs(10);
        assert!(!network.is_quiet(timeout));
        assert!(network.is_quiet_but_for_long_requests(timeout));
    }

    #[test]
    fn at_the_timeout_a_recent_request_still_holds_the_page() {
        let zero = Instant::now();
        let mut network = loaded(zero);
        let timeout = zero + Duration::from_secs(10);
        network.started(id("late"), timeout - ms(2000));
        assert!(!network.is_quiet_but_for_long_requests(timeout));
        network.started(id("just-now"), timeout - ms(100));
        network.ended(id("late"), timeout - ms(50));
        network.ended(id("just-now"), timeout - ms(50));
        assert!(!network.is_quiet_but_for_long_requests(timeout));
    }
}
