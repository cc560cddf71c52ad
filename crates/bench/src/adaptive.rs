//! The adaptive concurrency benchmark (`--adaptive`): the generated site behind a server that
//! degrades under load, crawled by the release binary with fixed concurrency settings and
//! with `--concurrency auto`, as a Markdown section for BENCHMARKS.md.
//!
//! The server has a few service slots. A request waits for a free one, then holds it for the
//! service time, lengthened by [`PENALTY`] for each request per slot still waiting: a queue
//! as long as the slots makes every request half as slow again. So, as real servers thrash,
//! its throughput falls when clients push beyond its capacity, and a crawler gains nothing
//! by pushing. The server measures each request's latency, from its arrival to its
//! response, and the most requests it held at once. Two servers are measured: one with as
//! many slots as the default concurrency, one with three times as many
//! ([`CAPACITIES`]).

use std::collections::BTreeSet;
use std::convert::Infallible;
use std::fmt::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::{Request, Response};
use tokio::sync::Semaphore;

use crate::crawl_run::listed_urls;
use crate::report::{median, per_second, spread};
use crate::server::Server;
use crate::site::GeneratedSite;

/// Pages of the generated site.
pub(crate) const PAGES: u64 = 2_000;

/// The servers' slots: the requests each serves at once.
pub(crate) const CAPACITIES: [usize; 2] = [8, 24];

/// How long a request holds its slot when nothing waits.
pub(crate) const SERVICE: Duration = Duration::from_millis(10);

/// What each request per slot still waiting adds to the service time, as a fraction of it.
pub(crate) const PENALTY: f64 = 0.5;

/// The fixed settings compared with auto.
const FIXED: [usize; 7] = [1, 2, 4, 8, 16, 32, 64];

/// The least share of the best fixed setting's throughput auto must reach.
const THROUGHPUT_FLOOR: f64 = 0.9;

/// The most auto's median server latency may be, in multiples of the unloaded one.
const LATENCY_CEILING: f64 = 2.0;

/// A concurrency setting of the crawl.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Setting {
    Fixed(usize),
    Auto,
}

impl Setting {
    fn argument(self) -> String {
        match self {
            Setting::Fixed(requests) => requests.to_string(),
            Setting::Auto => "auto".to_string(),
        }
    }

    fn label(self) -> String {
        match self {
            Setting::Fixed(requests) => requests.to_string(),
            Setting::Auto => "auto".to_string(),
        }
    }
}

/// How long a request that starts its service while `waiting` others wait for one of
/// `slots` holds its slot.
pub(crate) fn service_time(slots: usize, waiting: usize) -> Duration {
    SERVICE.mul_f64(1.0 + PENALTY * waiting as f64 / slots.max(1) as f64)
}

/// What the server saw during one crawl.
#[derive(Debug, Default)]
struct Load {
    in_flight: AtomicUsize,
    max_in_flight: AtomicUsize,
    waiting: AtomicUsize,
    latencies: Mutex<Vec<Duration>>,
}

/// The site and its slots, shared by the server's connections.
#[derive(Debug)]
struct Service {
    site: GeneratedSite,
    /// How many slots there are.
    capacity: usize,
    slots: Semaphore,
    load: Load,
}

/// The degrading server, stopped when dropped.
#[derive(Debug)]
struct LoadedServer {
    server: Server,
    service: Arc<Service>,
}

impl LoadedServer {
    fn start(site: GeneratedSite, capacity: usize) -> anyhow::Result<LoadedServer> {
        let service = Arc::new(Service {
            site,
            capacity,
            slots: Semaphore::new(capacity),
            load: Load::default(),
        });
        let shared = Arc::clone(&service);
        let server = Server::serve(move |request| respond(request, Arc::clone(&shared)), 1, 2)?;
        Ok(LoadedServer { server, service })
    }

    fn url(&self, path: &str) -> String {
        self.server.url(path)
    }
}

async fn respond(
    request: Request<Incoming>,
    service: Arc<Service>,
) -> Result<Response<Full<Bytes>>, Infallible> {
    let arrived = Instant::now();
    let load = &service.load;
    let in_flight = load.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
    load.max_in_flight.fetch_max(in_flight, Ordering::SeqCst);
    load.waiting.fetch_add(1, Ordering::SeqCst);
    let slot = service.slots.acquire().await;
    let waiting = load.waiting.fetch_sub(1, Ordering::SeqCst) - 1;
    tokio::time::sleep(service_time(service.capacity, waiting)).await;
    drop(slot);
    let body = service
        .site
        .render(request.uri().path())
        .filter(|_| request.uri().query().is_none());
    let response = match body {
        Some(html) => Response::builder()
            .header("Content-Type", "text/html; charset=utf-8")
            .body(Full::new(Bytes::from(html))),
        None => Response::builder()
            .status(404)
            .header("Content-Type", "text/plain")
            .body(Full::new(Bytes::from_static(b"not found"))),
    };
    load.latencies
        .lock()
        .unwrap_or_else(|poison| poison.into_inner())
        .push(arrived.elapsed());
    load.in_flight.fetch_sub(1, Ordering::SeqCst);
    Ok(response.unwrap_or_else(|_| Response::new(Full::new(Bytes::new()))))
}

/// One crawl of the degrading server.
#[derive(Debug, Clone)]
struct RunMeasure {
    wall: Duration,
    median_latency: Duration,
    p90_latency: Duration,
    max_in_flight: usize,
    exact: bool,
    /// With auto: the limit at the end and the highest it was, from the summary.
    auto: Option<(usize, usize)>,
}

/// The `q` quantile (0 to 1) of `values`, by the nearest rank.
pub(crate) fn quantile(values: &[Duration], q: f64) -> Duration {
    let mut sorted = values.to_vec();
    sorted.sort_unstable();
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1]
}

/// `Concurrency (auto): 9 requests at once at the end, 12 at most, cut 2 times.`: the final
/// limit and the highest.
pub(crate) fn auto_line(stderr: &str) -> Option<(usize, usize)> {
    let rest = stderr
        .lines()
        .find_map(|line| line.trim_start().strip_prefix("Concurrency (auto): "))?;
    let (last, rest) = rest
        .split_once(" requests at once at the end, ")
        .or_else(|| rest.split_once(" request at once at the end, "))?;
    let (most, _) = rest.split_once(" at most")?;
    Some((last.parse().ok()?, most.parse().ok()?))
}

/// Crawls a fresh degrading server of `capacity` slots once with `setting`.
fn crawl(binary: &Path, capacity: usize, setting: Setting) -> anyhow::Result<RunMeasure> {
    let site = GeneratedSite::new(PAGES);
    let server = LoadedServer::start(site, capacity)?;
    let expected: BTreeSet<String> = site
        .expected_paths()
        .iter()
        .map(|path| server.url(path))
        .collect();
    let out = tempfile::tempdir().context("output directory")?;
    let started = Instant::now();
    let output = Command::new(binary)
        .args(["crawl", &server.url("/"), "--out"])
        .arg(out.path())
        .args(["--concurrency", &setting.argument()])
        .env("NO_COLOR", "1")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .with_context(|| format!("run {}", binary.display()))?;
    let wall = started.elapsed();
    let stderr = String::from_utf8_lossy(&output.stderr);
    if !output.status.success() {
        bail!("sitemapper failed: {stderr}");
    }
    let load = &server.service.load;
    let latencies = load
        .latencies
        .lock()
        .unwrap_or_else(|poison| poison.into_inner())
        .clone();
    let auto = auto_line(&stderr);
    if setting == Setting::Auto && auto.is_none() {
        bail!("no \"Concurrency (auto)\" line in the summary:\n{stderr}");
    }
    Ok(RunMeasure {
        wall,
        median_latency: quantile(&latencies, 0.5),
        p90_latency: quantile(&latencies, 0.9),
        max_in_flight: load.max_in_flight.load(Ordering::SeqCst),
        exact: listed_urls(out.path())? == expected,
        auto,
    })
}

/// The runs of one setting.
#[derive(Debug, Clone)]
struct Series {
    setting: Setting,
    runs: Vec<RunMeasure>,
}

impl Series {
    fn pages_per_second(&self, fetched: usize) -> Vec<f64> {
        let walls: Vec<Duration> = self.runs.iter().map(|run| run.wall).collect();
        per_second(fetched, &walls)
    }

    fn milliseconds(&self, pick: impl Fn(&RunMeasure) -> Duration) -> Vec<f64> {
        self.runs
            .iter()
            .map(|run| pick(run).as_secs_f64() * 1000.0)
            .collect()
    }

    fn max_in_flight(&self) -> Vec<f64> {
        self.runs
            .iter()
            .map(|run| run.max_in_flight as f64)
            .collect()
    }
}

/// The runs of every setting against one server.
#[derive(Debug, Clone)]
struct Case {
    capacity: usize,
    series: Vec<Series>,
}

/// Every setting against every server, crawled `runs` times in turn (the order reversed
/// every other run, so that drift in the machine's load hits them all alike); the Markdown
/// section.
pub(crate) fn run(binary: &Path, runs: usize, machine: &str, date: &str) -> anyhow::Result<String> {
    let settings: Vec<Setting> = FIXED
        .iter()
        .map(|&requests| Setting::Fixed(requests))
        .chain(std::iter::once(Setting::Auto))
        .collect();
    let mut cases: Vec<Case> = CAPACITIES
        .iter()
        .map(|&capacity| Case {
            capacity,
            series: settings
                .iter()
                .map(|&setting| Series {
                    setting,
                    runs: Vec::new(),
                })
                .collect(),
        })
        .collect();
    for run in 0..runs {
        let mut order: Vec<(usize, usize)> = (0..cases.len())
            .flat_map(|case| (0..settings.len()).map(move |setting| (case, setting)))
            .collect();
        if run % 2 == 1 {
            order.reverse();
        }
        for (case, index) in order {
            let capacity = cases[case].capacity;
            let setting = cases[case].series[index].setting;
            let measure = crawl(binary, capacity, setting)?;
            crate::binary::say(&format!(
                "adaptive, run {}: {capacity} slots, concurrency {}: {:.2} s, server latency \
                 median {:.1} ms, {} in flight at most{}",
                run + 1,
                setting.label(),
                measure.wall.as_secs_f64(),
                measure.median_latency.as_secs_f64() * 1000.0,
                measure.max_in_flight,
                measure
                    .auto
                    .map(|(last, most)| format!(", limit {last} at the end, {most} at most"))
                    .unwrap_or_default()
            ));
            cases[case].series[index].runs.push(measure);
        }
    }
    let fetched = GeneratedSite::new(PAGES).fetched_paths().len();
    let command = format!("sitemapper-bench --adaptive --runs {runs}");
    markdown(&cases, fetched, machine, date, &command)
}

/// The section: the servers, then for each a table of its settings and the verdict.
fn markdown(
    cases: &[Case],
    fetched: usize,
    machine: &str,
    date: &str,
    command: &str,
) -> anyhow::Result<String> {
    let runs = cases
        .first()
        .and_then(|case| case.series.first())
        .map_or(0, |series| series.runs.len());
    let capacities: Vec<String> = cases.iter().map(|case| case.capacity.to_string()).collect();
    let mut text = String::new();
    let _ = writeln!(text, "## Adaptive concurrency\n");
    let _ = writeln!(
        text,
        "Measured {date} on: {machine}. Server and crawler share the machine. Medians of \
         {runs} runs, with the range in brackets; every setting of every server ran in turn, \
         in reverse order every other run.\n"
    );
    let _ = writeln!(
        text,
        "The servers: the generated site of {PAGES} pages ({fetched} URLs fetched: pages, \
         canonical duplicates, noindex pages) behind {} service slots. A request waits for a \
         free slot, then holds it {} ms, plus {:.0}% for each request per slot still waiting: \
         a queue as long as the slots makes every request {:.1} times as slow, so the \
         server's throughput falls when clients push beyond its capacity, as real servers \
         thrash. Latency is the server's, from a request's arrival to its response (median \
         and 90th percentile of each run's requests); in flight, the most requests it held at \
         once. \"Listed\" compares the URLs listed with the generator's expected set. \
         \"Auto\" is `--concurrency auto`, with the limit it ended at and the highest it \
         reached (from the summary).\n",
        capacities.join(" or "),
        SERVICE.as_millis(),
        PENALTY * 100.0,
        1.0 + PENALTY
    );
    for case in cases {
        text.push_str(&case_markdown(case, fetched)?);
    }
    let _ = writeln!(
        text,
        "To reproduce: `cargo build --release --workspace`, then `ulimit -v 8000000; \
         target/release/{command}`."
    );
    Ok(text)
}

/// One server's table and verdict.
fn case_markdown(case: &Case, fetched: usize) -> anyhow::Result<String> {
    let series = &case.series;
    let rate = |series: &Series| median(&series.pages_per_second(fetched));
    let latency = |series: &Series| median(&series.milliseconds(|run| run.median_latency));
    let auto = series
        .iter()
        .find(|series| series.setting == Setting::Auto)
        .context("no auto runs")?;
    let unloaded = series
        .iter()
        .find(|series| series.setting == Setting::Fixed(1))
        .context("no runs at concurrency 1")?;
    let best = series
        .iter()
        .filter(|series| series.setting != Setting::Auto)
        .max_by(|one, other| rate(one).total_cmp(&rate(other)))
        .context("no fixed runs")?;
    let mut text = String::new();
    let _ = writeln!(text, "### {} service slots\n", case.capacity);
    let _ = writeln!(
        text,
        "| concurrency | pages/s | server latency, median (ms) | p90 (ms) | max in flight | listed |"
    );
    let _ = writeln!(text, "| --- | --- | --- | --- | --- | --- |");
    for series in series {
        let listed = if series.runs.iter().all(|run| run.exact) {
            "exact"
        } else {
            "DIFFERS"
        };
        let label = match series.setting {
            Setting::Fixed(requests) => requests.to_string(),
            Setting::Auto => format!(
                "auto (ended at {}, highest {})",
                spread(&auto_figures(series, |(last, _)| last), 0),
                spread(&auto_figures(series, |(_, most)| most), 0)
            ),
        };
        let _ = writeln!(
            text,
            "| {label} | {} | {} | {} | {} | {listed} |",
            spread(&series.pages_per_second(fetched), 0),
            spread(&series.milliseconds(|run| run.median_latency), 1),
            spread(&series.milliseconds(|run| run.p90_latency), 1),
            spread(&series.max_in_flight(), 0),
        );
    }
    let share = rate(auto) / rate(best).max(1e-9);
    let slowdown = latency(auto) / latency(unloaded).max(1e-9);
    let verdict = |holds: bool| if holds { "holds" } else { "FAILS" };
    let _ = writeln!(
        text,
        "\nAuto crawled at {:.0}% of the best fixed setting's rate (concurrency {}: {:.0} \
         pages/s; at least {:.0}% asked: {}). Its median server latency was {:.2} times the \
         unloaded one ({:.1} ms against {:.1} ms at concurrency 1; at most {LATENCY_CEILING} \
         times asked: {}).\n",
        share * 100.0,
        best.setting.label(),
        rate(best),
        THROUGHPUT_FLOOR * 100.0,
        verdict(share >= THROUGHPUT_FLOOR),
        slowdown,
        latency(auto),
        latency(unloaded),
        verdict(slowdown <= LATENCY_CEILING),
    );
    Ok(text)
}

/// One figure of auto's summary line per run.
fn auto_figures(series: &Series, pick: impl Fn((usize, usize)) -> usize) -> Vec<f64> {
    series
        .runs
        .iter()
        .filter_map(|run| run.auto.map(&pick))
        .map(|figure| figure as f64)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_service_time_grows_with_the_queue() {
        assert_eq!(service_time(8, 0), SERVICE);
        assert_eq!(service_time(8, 8), SERVICE.mul_f64(1.0 + PENALTY));
        assert!(service_time(8, 16) > service_time(8, 8));
        assert!(service_time(24, 8) < service_time(8, 8));
    }

    #[test]
    fn quantiles_by_the_nearest_rank() {
        let values: Vec<Duration> = (1..=10).map(Duration::from_millis).collect();
        assert_eq!(quantile(&values, 0.5), Duration::from_millis(5));
        assert_eq!(quantile(&values, 0.9), Duration::from_millis(9));
        assert_eq!(quantile(&values, 1.0), Duration::from_millis(10));
        assert_eq!(quantile(&[], 0.5), Duration::ZERO);
    }

    #[test]
    fn the_auto_line_of_the_summary() {
        let stderr = "Pace: none.\nConcurrency (auto): 9 requests at once at the end, 12 at \
                      most, cut 2 times.\nPeak memory: 20.0 MiB.\n";
        assert_eq!(auto_line(stderr), Some((9, 12)));
        let one = "Concurrency (auto): 1 request at once at the end, 4 at most, cut 3 times.\n";
        assert_eq!(auto_line(one), Some((1, 4)));
        assert_eq!(auto_line("Peak memory: 20.0 MiB.\n"), None);
    }

    #[test]
    fn the_server_answers_the_site_and_counts_what_it_held() {
        use std::io::{Read, Write};

        let server = LoadedServer::start(GeneratedSite::new(10), 8)
            .unwrap_or_else(|error| panic!("{error:#}"));
        for (path, status) in [("/", "200"), ("/p/9", "200"), ("/nowhere", "404")] {
            let mut stream = std::net::TcpStream::connect(server.server.address)
                .unwrap_or_else(|error| panic!("{error}"));
            let request = format!("GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
            let _ = stream.write_all(request.as_bytes());
            let mut response = String::new();
            let _ = stream.read_to_string(&mut response);
            assert!(
                response.starts_with(&format!("HTTP/1.1 {status}")),
                "{path}: {response}"
            );
        }
        let load = &server.service.load;
        let answered = load
            .latencies
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
            .len();
        assert_eq!(answered, 3);
        assert_eq!(load.max_in_flight.load(Ordering::SeqCst), 1);
        assert_eq!(load.in_flight.load(Ordering::SeqCst), 0);
    }
}
