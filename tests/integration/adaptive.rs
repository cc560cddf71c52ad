//! `--concurrency auto`: against a site that refuses requests beyond its capacity, and one
//! whose response times grow with the requests it is answering, the crawl completes and
//! keeps near the site's capacity instead of the limit's ceiling.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use crate::fixture::{Route, Server, Site};
use crate::harness::{crawl, listed_urls, summary_json};

/// Pages of the fixture sites besides `/`, which links to them all: the crawl has them all
/// queued after its first page.
const PAGES: usize = 300;

/// The answers a site gave, by kind.
#[derive(Debug, Default)]
struct Answers {
    ok: AtomicUsize,
    overloaded: AtomicUsize,
}

/// `/` linking to `/p/0` ... `/p/{PAGES-1}`, each linking back to `/`.
fn page(target: &str) -> Option<Route> {
    if target == "/" {
        let links: String = (0..PAGES)
            .map(|page| format!(r#"<a href="/p/{page}">{page}</a>"#))
            .collect();
        return Some(Route::html(&links));
    }
    let number: usize = target.strip_prefix("/p/")?.parse().ok()?;
    (number < PAGES).then(|| Route::html(r#"<a href="/">home</a>"#))
}

fn expected(server: &Server) -> BTreeSet<String> {
    std::iter::once(server.url("/"))
        .chain((0..PAGES).map(|page| server.url(&format!("/p/{page}"))))
        .collect()
}

/// A site that answers `capacity` requests at a time and 503 (retry at once) to any beyond
/// them; every answer, refusals too, takes `service`.
fn refusing_site(capacity: usize, service: Duration, answers: Arc<Answers>) -> Server {
    Site::new()
        .generated_under_load(move |target, in_flight| {
            let route = if in_flight > capacity {
                answers.overloaded.fetch_add(1, Ordering::SeqCst);
                Route::new(503, "busy").header("Retry-After", "0")
            } else {
                let route = page(target)?;
                answers.ok.fetch_add(1, Ordering::SeqCst);
                route
            };
            Some(route.delay(service))
        })
        .serve()
}

/// A site whose every answer takes `service` while it answers at most `capacity` requests,
/// and longer in proportion beyond them (they queue).
fn slowing_site(capacity: usize, service: Duration) -> Server {
    Site::new()
        .generated_under_load(move |target, in_flight| {
            let load = (in_flight as f64 / capacity as f64).max(1.0);
            Some(page(target)?.delay(service.mul_f64(load)))
        })
        .serve()
}

#[test]
fn auto_backs_off_a_site_that_refuses_beyond_its_capacity() {
    let capacity = 4;
    let service = Duration::from_millis(10);
    let answers = Arc::new(Answers::default());
    let server = refusing_site(capacity, service, Arc::clone(&answers));
    let out = tempfile::tempdir().unwrap();
    let run = crawl(
        &server.url("/"),
        out.path(),
        &[
            "--concurrency",
            "auto",
            "--retries",
            "10",
            "--summary",
            "json",
        ],
    );
    let summary = summary_json(&run);
    assert_eq!(listed_urls(out.path()), expected(&server));
    let ok = answers.ok.load(Ordering::SeqCst);
    let overloaded = answers.overloaded.load(Ordering::SeqCst);
    assert!(
        overloaded * 5 <= ok,
        "{ok} pages answered, {overloaded} refusals: auto kept pushing"
    );
    assert!(overloaded > 0, "auto probes the site's capacity");
    assert!(
        server.max_in_flight() <= 2 * capacity,
        "{} requests in flight at most",
        server.max_in_flight()
    );
    let concurrency = &summary["concurrency"];
    assert_eq!(concurrency["mode"], "auto");
    assert!(
        concurrency["decreases"].as_u64().unwrap() >= 1,
        "{concurrency}"
    );
    assert!(
        concurrency["max_reached"].as_u64().unwrap() <= 2 * capacity as u64,
        "{concurrency}"
    );

    // The same site crawled 32 at a time: refused over and over.
    let pushed = Arc::new(Answers::default());
    let server = refusing_site(capacity, service, Arc::clone(&pushed));
    let out = tempfile::tempdir().unwrap();
    let run = crawl(
        &server.url("/"),
        out.path(),
        &[
            "--concurrency",
            "32",
            "--retries",
            "10",
            // Most requests are refused: a bad night, which publishes nothing unless told to.
            "--max-shrink",
            "100",
            "--summary",
            "json",
        ],
    );
    let summary = summary_json(&run);
    assert_eq!(
        summary["concurrency"],
        serde_json::json!({"mode": "fixed", "final": 32, "max_reached": 32, "decreases": 0})
    );
    assert!(
        pushed.overloaded.load(Ordering::SeqCst) > 5 * overloaded.max(1),
        "32 at a time: {} refusals; auto: {overloaded}",
        pushed.overloaded.load(Ordering::SeqCst)
    );
    assert!(server.max_in_flight() > 2 * capacity);
}

#[test]
fn auto_keeps_near_the_capacity_of_a_site_that_slows_down_under_load() {
    let capacity = 4;
    let server = slowing_site(capacity, Duration::from_millis(10));
    let out = tempfile::tempdir().unwrap();
    let run = crawl(
        &server.url("/"),
        out.path(),
        &["--concurrency", "auto", "--summary", "json"],
    );
    let summary = summary_json(&run);
    assert_eq!(listed_urls(out.path()), expected(&server));
    let concurrency = &summary["concurrency"];
    assert_eq!(concurrency["mode"], "auto");
    // Far from the ceiling of 64: a limit that crept up would reach it within these pages.
    assert!(
        server.max_in_flight() <= 3 * capacity,
        "{} requests in flight at most; {concurrency}",
        server.max_in_flight()
    );
    assert!(
        server.max_in_flight() >= capacity / 2,
        "{} requests in flight at most; {concurrency}",
        server.max_in_flight()
    );
    let max_reached = concurrency["max_reached"].as_u64().unwrap();
    assert!(max_reached <= 3 * capacity as u64, "{concurrency}");
}

#[test]
fn waiting_for_the_delay_is_not_counted_as_the_sites_response_time() {
    // Every request waits its turn of --delay: were that wait counted, the response times
    // would grow with the limit, and auto would never pass 3.
    let server = slowing_site(PAGES, Duration::from_millis(5));
    let out = tempfile::tempdir().unwrap();
    let run = crawl(
        &server.url("/"),
        out.path(),
        &[
            "--concurrency",
            "auto",
            "--delay",
            "0.005",
            "--max-pages",
            "100",
            "--summary",
            "json",
        ],
    );
    let summary = summary_json(&run);
    let concurrency = &summary["concurrency"];
    // Twice the most it could reach with the wait counted: on a loaded machine the limit
    // grows more slowly within the 100 pages (10 with no decrease, seen under a full run).
    assert!(
        concurrency["max_reached"].as_u64().unwrap() >= 6,
        "{concurrency}"
    );
}
