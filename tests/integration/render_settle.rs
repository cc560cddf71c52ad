//! When a rendered page is done (docs/rendering.md, "Bounds"): what the page's scripts set
//! going is waited for (a short timer, a script they add, a framework's slices and the request
//! after them), a page that changes only its classes on an interval is done, and one that polls
//! on a short timer without end is not.

use sitemapper_store::Rendering;

use crate::fixture::{Route, Site};
use crate::harness::{chromium, crawl_recorded, listed_urls};
use crate::render::{SHELL, expected};

/// The application: each page draws its link `/from-<page>` in its own way, after what its
/// name says; `/polling` asks the server every 200 ms and draws nothing.
const APP: &str = r#"(() => {
  const draw = (name) => {
    const link = document.createElement('a');
    link.href = '/from-' + name;
    document.getElementById('root').appendChild(link);
  };
  const path = location.pathname;
  if (path === '/') {
    for (const page of ['timer', 'script', 'slices', 'carousel', 'polling']) {
      const link = document.createElement('a');
      link.href = '/' + page;
      document.getElementById('root').appendChild(link);
    }
  }
  if (path === '/timer') setTimeout(() => draw('timer'), 300);
  if (path === '/script') {
    const script = document.createElement('script');
    script.src = '/late.js';
    document.head.appendChild(script);
  }
  if (path === '/slices') {
    // A framework hydrating in slices: 60 slices of 5 ms of work, each handed on by message
    // (no timer, no element added), then the request its effect makes.
    const channel = new MessageChannel();
    let left = 60;
    channel.port1.onmessage = () => {
      const until = performance.now() + 5;
      while (performance.now() < until) {}
      if ((left -= 1) > 0) {
        channel.port2.postMessage(null);
      } else {
        fetch('/api/sliced.json').then((answer) => answer.json()).then(draw);
      }
    };
    channel.port2.postMessage(null);
  }
  if (path === '/carousel') {
    draw('carousel');
    setInterval(() => document.body.classList.toggle('turned'), 300);
  }
  if (path === '/polling') {
    const poll = () => fetch('/api/poll').finally(() => setTimeout(poll, 200));
    poll();
  }
})();"#;

/// Added by `/script`'s script: asks for its data, then draws the link.
const LATE: &str = r#"fetch('/api/late.json').then((answer) => answer.json()).then((name) => {
  const link = document.createElement('a');
  link.href = '/from-' + name;
  document.getElementById('root').appendChild(link);
});"#;

#[test]
fn what_a_page_set_going_is_waited_for_and_a_page_that_polls_is_not_done() {
    let Some(browser) = chromium() else { return };
    let json = |body: &str| Route::new(200, body).header("Content-Type", "application/json");
    let script = |body: &str| Route::new(200, body).header("Content-Type", "text/javascript");
    let server = Site::new()
        .route("/robots.txt", Route::new(404, "Not found"))
        .route("/app.js", script(APP))
        .route("/late.js", script(LATE))
        .route("/api/late.json", json(r#""script""#))
        .route("/api/sliced.json", json(r#""slices""#))
        .route("/api/poll", json("{}"))
        .generated(|_| Some(Route::html(SHELL)))
        .serve();
    let out = tempfile::tempdir().expect("tempdir");
    let (run, store) = crawl_recorded(
        &server.url("/"),
        out.path(),
        &[
            "--chrome",
            browser.to_str().expect("utf-8"),
            "--render",
            "always",
            "--render-timeout",
            "4",
        ],
    );
    run.assert_success();
    let pages = ["timer", "script", "slices", "carousel", "polling"];
    let mut paths: Vec<String> = vec!["/".to_string()];
    for page in pages {
        paths.push(format!("/{page}"));
        if page != "polling" {
            paths.push(format!("/from-{page}"));
        }
    }
    let paths: Vec<&str> = paths.iter().map(String::as_str).collect();
    assert_eq!(
        listed_urls(out.path()),
        expected(&server, &paths),
        "{}",
        run.stderr
    );
    for page in pages {
        let record = store
            .page(&server.url(&format!("/{page}")))
            .expect("read the crawl database")
            .expect("the page is recorded");
        let done = if page == "polling" {
            Rendering::TimedOut
        } else {
            Rendering::Rendered
        };
        assert_eq!(record.rendering, Some(done), "/{page}: {}", run.stderr);
    }
}
