//! A fleet's metrics for Prometheus: the requests of its crawls, the runs of its sites, and (a
//! worker's) its leases and the queue. A worker serves them over HTTP at `/metrics`
//! ([`serve_metrics`]); a `fleet run` writes them to a file when the run ends, for
//! node_exporter's textfile collector ([`FleetMetrics::write_file`]). Both in the text format
//! (0.0.4) that Prometheus and node_exporter read.
//!
//! No URL is ever a label: the labels are an answer's class, a failure's cause, a run's result
//! (each a short fixed list), and the name of a site this process ran.

use std::convert::Infallible;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use prometheus::{
    Encoder, GaugeVec, IntCounter, IntCounterVec, IntGauge, IntGaugeVec, Opts, Registry,
    TextEncoder,
};
use tokio::net::TcpListener;

use crate::queue::Queue;
use crate::record::{RunRecord, RunResult};

/// Why the metrics could not be set up or written.
#[derive(Debug, thiserror::Error)]
pub enum MetricsError {
    /// A metric could not be registered.
    #[error("cannot set up the metrics")]
    Setup(#[source] prometheus::Error),
    /// The metrics file could not be written.
    #[error("cannot write the metrics {}", path.display())]
    Write {
        /// The file asked for.
        path: PathBuf,
        /// What writing it met.
        #[source]
        source: std::io::Error,
    },
}

/// The metrics of one `fleet run` or `worker`.
#[derive(Debug, Clone)]
pub struct FleetMetrics {
    registry: Registry,
    requests: IntCounterVec,
    request_failures: IntCounterVec,
    response_bytes: IntCounter,
    pages_listed: IntCounter,
    site_runs: IntCounterVec,
    site_listed: IntGaugeVec,
    site_duration: GaugeVec,
    site_last_run: GaugeVec,
    site_last_success: GaugeVec,
    site_succeeded: IntGaugeVec,
    /// Sites due and not running: a worker, in the whole queue; a `fleet run`, when it began.
    pub sites_due: IntGauge,
    /// Sites being run now.
    pub sites_running: IntGauge,
    /// A worker's: registered by [`FleetMetrics::with_queue`].
    queue: Option<QueueMetrics>,
}

/// What only a worker of a queue has.
#[derive(Debug, Clone)]
pub struct QueueMetrics {
    /// Sites this worker holds a lease on.
    pub leases_held: IntGauge,
    /// Leases this worker lost, not renewed in time.
    pub leases_lost: IntCounter,
    /// Sites this worker took over from a worker whose lease expired.
    pub leases_taken_over: IntCounter,
    reconnects: IntCounter,
}

/// `sitemapper_NAME`, a counter.
fn counter(registry: &Registry, name: &str, help: &str) -> prometheus::Result<IntCounter> {
    let metric = IntCounter::new(name, help)?;
    registry.register(Box::new(metric.clone()))?;
    Ok(metric)
}

fn counters(
    registry: &Registry,
    name: &str,
    help: &str,
    label: &str,
) -> prometheus::Result<IntCounterVec> {
    let metric = IntCounterVec::new(Opts::new(name, help), &[label])?;
    registry.register(Box::new(metric.clone()))?;
    Ok(metric)
}

fn gauge(registry: &Registry, name: &str, help: &str) -> prometheus::Result<IntGauge> {
    let metric = IntGauge::new(name, help)?;
    registry.register(Box::new(metric.clone()))?;
    Ok(metric)
}

fn site_gauges(registry: &Registry, name: &str, help: &str) -> prometheus::Result<GaugeVec> {
    let metric = GaugeVec::new(Opts::new(name, help), &["site"])?;
    registry.register(Box::new(metric.clone()))?;
    Ok(metric)
}

fn site_int_gauges(registry: &Registry, name: &str, help: &str) -> prometheus::Result<IntGaugeVec> {
    let metric = IntGaugeVec::new(Opts::new(name, help), &["site"])?;
    registry.register(Box::new(metric.clone()))?;
    Ok(metric)
}

impl FleetMetrics {
    /// The metrics of a fleet's runs, every one at zero.
    pub fn new() -> Result<FleetMetrics, MetricsError> {
        let registry = Registry::new_custom(Some("sitemapper".to_string()), None)
            .map_err(MetricsError::Setup)?;
        FleetMetrics::register(registry).map_err(MetricsError::Setup)
    }

    fn register(registry: Registry) -> prometheus::Result<FleetMetrics> {
        let requests = counters(
            &registry,
            "requests_total",
            "HTTP requests of the crawls answered, by the class of the status (2xx, 3xx, 4xx, 5xx), retries and robots.txt included",
            "class",
        )?;
        let request_failures = counters(
            &registry,
            "request_failures_total",
            "HTTP requests of the crawls that got no answer, by cause (timeout, connection-refused, unknown-host, ...)",
            "cause",
        )?;
        // Every class and cause is shown from the start, at zero, so that a rate has a series.
        for class in ["1xx", "2xx", "3xx", "4xx", "5xx"] {
            requests.with_label_values(&[class]);
        }
        let site_runs = counters(
            &registry,
            "site_runs_total",
            "Runs of sites ended, by result (ok, failed, interrupted)",
            "result",
        )?;
        for result in [
            RunResult::Succeeded,
            RunResult::Failed,
            RunResult::Interrupted,
        ] {
            site_runs.with_label_values(&[result.code()]);
        }
        Ok(FleetMetrics {
            requests,
            request_failures,
            response_bytes: counter(
                &registry,
                "response_body_bytes_total",
                "Bytes of response bodies read by the crawls (decompressed)",
            )?,
            pages_listed: counter(
                &registry,
                "pages_listed_total",
                "Pages listed in the sitemaps of the runs that succeeded",
            )?,
            site_runs,
            site_listed: site_int_gauges(
                &registry,
                "site_pages_listed",
                "Pages the site's last successful run listed",
            )?,
            site_duration: site_gauges(
                &registry,
                "site_last_run_duration_seconds",
                "How long the site's last run took",
            )?,
            site_last_run: site_gauges(
                &registry,
                "site_last_run_timestamp_seconds",
                "When the site's last run ended (Unix time)",
            )?,
            site_last_success: site_gauges(
                &registry,
                "site_last_success_timestamp_seconds",
                "When the site's last successful run ended (Unix time)",
            )?,
            site_succeeded: site_int_gauges(
                &registry,
                "site_last_run_succeeded",
                "1 when the site's last run succeeded, 0 when it failed or was interrupted",
            )?,
            sites_due: gauge(
                &registry,
                "sites_due",
                "Sites due and not running (a worker: in the whole queue; fleet run: when it began)",
            )?,
            sites_running: gauge(&registry, "sites_running", "Sites being run now")?,
            queue: None,
            registry,
        })
    }

    /// The metrics of a worker of a queue: its leases and connection too.
    pub fn with_queue(mut self) -> Result<FleetMetrics, MetricsError> {
        let registry = &self.registry;
        let queue = (|| {
            Ok::<_, prometheus::Error>(QueueMetrics {
                leases_held: gauge(registry, "leases_held", "Sites this worker holds a lease on")?,
                leases_lost: counter(
                    registry,
                    "leases_lost_total",
                    "Leases this worker lost (not renewed in time): the site's run was stopped and not recorded here",
                )?,
                leases_taken_over: counter(
                    registry,
                    "leases_taken_over_total",
                    "Sites this worker took over from a worker whose lease expired",
                )?,
                reconnects: counter(
                    registry,
                    "queue_reconnects_total",
                    "Connections to PostgreSQL made again after one was lost",
                )?,
            })
        })()
        .map_err(MetricsError::Setup)?;
        self.queue = Some(queue);
        Ok(self)
    }

    /// The worker's queue metrics, when it has them.
    pub fn queue(&self) -> Option<&QueueMetrics> {
        self.queue.as_ref()
    }

    /// A `fleet run` that began at `started` ends now: when, and how long it took, so that an
    /// alert can tell a fleet whose cron stopped running it.
    pub fn fleet_run_ended(&self, started: jiff::Timestamp) -> Result<(), MetricsError> {
        let now = jiff::Timestamp::now();
        let registry = &self.registry;
        let ended = (|| {
            let at = prometheus::Gauge::new(
                "fleet_run_timestamp_seconds",
                "When the last fleet run ended (Unix time)",
            )?;
            let took = prometheus::Gauge::new(
                "fleet_run_duration_seconds",
                "How long the last fleet run took",
            )?;
            registry.register(Box::new(at.clone()))?;
            registry.register(Box::new(took.clone()))?;
            at.set(now.as_millisecond() as f64 / 1000.0);
            took.set(now.duration_since(started).as_secs_f64().max(0.0));
            Ok::<_, prometheus::Error>(())
        })();
        ended.map_err(MetricsError::Setup)
    }

    /// The queue's count of reconnections, as the queue keeps it.
    pub fn set_reconnects(&self, total: u64) {
        if let Some(queue) = &self.queue {
            let counted = queue.reconnects.get();
            queue.reconnects.inc_by(total.saturating_sub(counted));
        }
    }

    /// A site's run ended as `record` says.
    pub fn site_ended(&self, site: &str, record: &RunRecord) {
        self.site_runs
            .with_label_values(&[record.result.code()])
            .inc();
        let ended = record.finished.as_millisecond() as f64 / 1000.0;
        let took = record
            .finished
            .duration_since(record.started)
            .as_secs_f64()
            .max(0.0);
        self.site_duration.with_label_values(&[site]).set(took);
        self.site_last_run.with_label_values(&[site]).set(ended);
        let succeeded = record.result == RunResult::Succeeded;
        self.site_succeeded
            .with_label_values(&[site])
            .set(i64::from(succeeded));
        if succeeded {
            self.pages_listed.inc_by(record.listed);
            self.site_listed
                .with_label_values(&[site])
                .set(i64::try_from(record.listed).unwrap_or(i64::MAX));
            self.site_last_success.with_label_values(&[site]).set(ended);
        }
    }

    /// The metrics in the text format.
    pub fn text(&self) -> String {
        TextEncoder::new()
            .encode_to_string(&self.registry.gather())
            .unwrap_or_default()
    }

    /// Writes the metrics to `path` for node_exporter's textfile collector: whole or not at
    /// all (a temporary file beside it, renamed over it), since the collector may read it at
    /// any moment.
    pub fn write_file(&self, path: &Path) -> Result<(), MetricsError> {
        let failed = |source: std::io::Error| MetricsError::Write {
            path: path.to_path_buf(),
            source,
        };
        let directory = match path.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => parent,
            _ => Path::new("."),
        };
        let mut file = tempfile::Builder::new()
            .prefix(".sitemapper-metrics")
            .tempfile_in(directory)
            .map_err(failed)?;
        TextEncoder::new()
            .encode(&self.registry.gather(), &mut file)
            .map_err(|error| failed(std::io::Error::other(error)))?;
        file.persist(path).map_err(|error| failed(error.error))?;
        Ok(())
    }

    /// A request of a crawl was answered with `status`, and `body_bytes` of its body read.
    pub fn answered(&self, status: u16, body_bytes: usize) {
        let class = match status {
            100..=199 => "1xx",
            200..=299 => "2xx",
            300..=399 => "3xx",
            400..=499 => "4xx",
            _ => "5xx",
        };
        self.requests.with_label_values(&[class]).inc();
        self.response_bytes
            .inc_by(u64::try_from(body_bytes).unwrap_or(u64::MAX));
    }

    /// A request of a crawl got no answer, for the cause whose code is `cause`
    /// (`timeout`, `connection-refused`, ...).
    pub fn failed(&self, cause: &str) {
        self.request_failures.with_label_values(&[cause]).inc();
    }
}

/// How long a client of `/metrics` may take to send its request's head.
const HEADER_TIMEOUT: Duration = Duration::from_secs(10);

/// Serves the metrics over HTTP on `listener` until the process ends: `GET /metrics` (and
/// `/`), the text format; anything else, 404. Each scrape brings the queue's count of
/// reconnections up to date.
pub async fn serve_metrics(listener: TcpListener, metrics: FleetMetrics, queue: Arc<Queue>) {
    loop {
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            Err(error) => {
                // Out of file descriptors, most likely: wait rather than spin.
                tracing::warn!("metrics: cannot accept a connection: {error}");
                tokio::time::sleep(Duration::from_millis(500)).await;
                continue;
            }
        };
        let metrics = metrics.clone();
        let queue = Arc::clone(&queue);
        tokio::spawn(async move {
            let service = service_fn(move |request: Request<Incoming>| {
                metrics.set_reconnects(queue.reconnects());
                let response = respond(&request, &metrics);
                async move { Ok::<_, Infallible>(response) }
            });
            let _ = http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(HEADER_TIMEOUT)
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}

fn respond(request: &Request<Incoming>, metrics: &FleetMetrics) -> Response<Full<Bytes>> {
    let (status, content_type, body) = match (request.method(), request.uri().path()) {
        (&Method::GET | &Method::HEAD, "/metrics" | "/") => {
            (StatusCode::OK, prometheus::TEXT_FORMAT, metrics.text())
        }
        (&Method::GET | &Method::HEAD, _) => (
            StatusCode::NOT_FOUND,
            "text/plain; charset=utf-8",
            "Not found: the metrics are at /metrics\n".to_string(),
        ),
        _ => (
            StatusCode::METHOD_NOT_ALLOWED,
            "text/plain; charset=utf-8",
            "Only GET\n".to_string(),
        ),
    };
    let mut response = Response::new(Full::new(Bytes::from(body)));
    *response.status_mut() = status;
    response.headers_mut().insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static(content_type),
    );
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_text_names_every_metric_with_its_help_and_type() {
        let metrics = FleetMetrics::new()
            .and_then(FleetMetrics::with_queue)
            .unwrap_or_else(|error| panic!("{error:#}"));
        metrics.answered(404, 10);
        let record = RunRecord {
            listed: 12,
            ..RunRecord::new(jiff::Timestamp::now(), None)
        };
        metrics.site_ended("docs", &record);
        let text = metrics.text();
        for line in [
            "# TYPE sitemapper_requests_total counter",
            "sitemapper_requests_total{class=\"4xx\"} 1",
            "sitemapper_requests_total{class=\"2xx\"} 0",
            "sitemapper_response_body_bytes_total 10",
            "sitemapper_site_runs_total{result=\"ok\"} 1",
            "sitemapper_site_pages_listed{site=\"docs\"} 12",
            "sitemapper_site_last_run_succeeded{site=\"docs\"} 1",
            "# TYPE sitemapper_leases_held gauge",
            "sitemapper_queue_reconnects_total 0",
        ] {
            assert!(text.lines().any(|shown| shown == line), "{line}\n{text}");
        }
    }
}
