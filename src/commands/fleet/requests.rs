//! The crawls' requests told to the fleet's metrics: the crawl crate's observer, counting into
//! [`FleetMetrics`].

use std::sync::Arc;

use reqwest::StatusCode;
use sitemapper_crawl::{FetchFailure, RequestObserver};
use sitemapper_fleet::FleetMetrics;

/// What the crawls tell of their requests, counted into `metrics`.
pub(crate) fn counted_into(metrics: &FleetMetrics) -> Arc<dyn RequestObserver> {
    Arc::new(Counted(metrics.clone()))
}

/// Counts the crawls' requests into the metrics.
#[derive(Debug)]
struct Counted(FleetMetrics);

impl RequestObserver for Counted {
    fn answered(&self, status: StatusCode, body_bytes: usize) {
        self.0.answered(status.as_u16(), body_bytes);
    }

    fn failed(&self, failure: &FetchFailure) {
        self.0.failed(failure.cause().code());
    }
}
