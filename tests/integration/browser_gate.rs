//! The browser's one way out (`--render`): every connection Chromium opens, whatever kind of
//! request it carries, passes the crawl's gate: robots.txt, the address policy, pace and the
//! request budget hold, and nothing goes out that no rendered page asked for.

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::fixture::{Route, Server, Site, tls_config, tls_file};
use crate::harness::{chromium, crawl, listed_urls, sitemapper_command};

/// The URLs of `paths` on `server`.
fn urls(server: &Server, paths: &[&str]) -> BTreeSet<String> {
    paths.iter().map(|path| server.url(path)).collect()
}

fn script(body: &str) -> Route {
    Route::new(200, body).header("Content-Type", "text/javascript")
}

fn shell(script_path: &str) -> String {
    format!(
        r#"<!doctype html><html><head><script src="{script_path}" defer></script></head><body><div id="root"></div></body></html>"#
    )
}

/// Requests the DevTools interception never sees, to paths robots.txt disallows: WebSocket
/// handshakes from the page and from a worker, a SharedWorker's fetch, and a beacon and a
/// `keepalive` fetch sent as the tab leaves the page.
#[test]
fn requests_the_interception_never_sees_pass_the_gate() {
    let Some(browser) = chromium() else { return };
    let app = r#"(() => {
      const here = location.host;
      try { new WebSocket('ws://' + here + '/secret/ws'); } catch (e) {}
      new Worker('/worker.js');
      try { new SharedWorker('/shared.js'); } catch (e) {}
      addEventListener('pagehide', () => {
        navigator.sendBeacon('/secret/beacon', 'bye');
        fetch('/secret/keepalive', { method: 'POST', body: 'bye', keepalive: true });
      });
      const root = document.getElementById('root');
      if (location.pathname === '/') root.innerHTML = '<a href="/second">second</a> <a href="/third">third</a>';
      else root.textContent = 'a page';
    })();"#;
    let worker = "try { new WebSocket('ws://' + location.host + '/secret/worker-ws'); } catch (e) {}\nfetch('/secret/worker-fetch').catch(() => {});";
    let shared = "fetch('/secret/shared').catch(() => {});\nonconnect = () => {};";
    let page = shell("/app.js");
    let server = Site::new()
        .route(
            "/robots.txt",
            Route::new(200, "User-agent: *\nDisallow: /secret/\n"),
        )
        .route("/app.js", script(app))
        .route("/worker.js", script(worker))
        .route("/shared.js", script(shared))
        .generated(move |_| Some(Route::html(&page)))
        .serve();
    let out = tempfile::tempdir().expect("tempdir");
    let run = crawl(
        &server.url("/"),
        out.path(),
        &[
            "--render",
            "always",
            "--render-concurrency",
            "1",
            "--chrome",
            browser.to_str().expect("utf-8"),
            "-v",
        ],
    );
    run.assert_success();
    assert_eq!(
        listed_urls(out.path()),
        urls(&server, &["/", "/second", "/third"]),
        "{}",
        run.stderr
    );
    // The last page's beacons may still be on their way when the crawl ends.
    std::thread::sleep(Duration::from_millis(500));
    let targets = server.targets();
    assert!(
        !targets.iter().any(|target| target.starts_with("/secret/")),
        "a request robots.txt disallows reached the site: {targets:?}\n{}",
        run.stderr
    );
    assert!(
        targets.contains(&"/worker.js".to_string()),
        "the page's own requests go through: {targets:?}"
    );
    assert!(
        run.stderr.contains("The browser was refused") && run.stderr.contains("WebSockets"),
        "{}",
        run.stderr
    );
}

/// A page whose script floods the site and another host: the site's requests are paced by
/// `--delay` and stop at `--max-requests`, the other host's stop at the page's budget and
/// are paced too.
#[test]
fn a_flooding_page_is_paced_and_bounded() {
    let Some(browser) = chromium() else { return };
    let arrivals: Arc<Mutex<Vec<(String, Instant)>>> = Arc::default();
    let other_arrivals = Arc::clone(&arrivals);
    let other = Site::new()
        .generated(move |path| {
            other_arrivals
                .lock()
                .expect("arrivals")
                .push((format!("other{path}"), Instant::now()));
            Some(Route::new(200, "ok").header("Access-Control-Allow-Origin", "*"))
        })
        .serve_on("127.0.0.2");
    let app = format!(
        r#"(() => {{
          for (let i = 0; i < 300; i++) {{
            fetch('/api/' + i).catch(() => {{}});
            fetch('{}' + i).catch(() => {{}});
          }}
          document.getElementById('root').textContent = 'flooding';
        }})();"#,
        other.url("/x")
    );
    let page = shell("/app.js");
    let site_arrivals = Arc::clone(&arrivals);
    let server = Site::new()
        .route("/app.js", script(&app))
        .generated(move |path| {
            site_arrivals
                .lock()
                .expect("arrivals")
                .push((format!("site{path}"), Instant::now()));
            Some(Route::html(&page))
        })
        .serve();
    let out = tempfile::tempdir().expect("tempdir");
    let started = Instant::now();
    let run = crawl(
        &server.url("/"),
        out.path(),
        &[
            "--render",
            "always",
            "--delay",
            "1",
            "--concurrency",
            "1",
            "--max-requests",
            "4",
            "--render-other-host-requests",
            "3",
            "--render-timeout",
            "8",
            "--chrome",
            browser.to_str().expect("utf-8"),
        ],
    );
    let elapsed = started.elapsed();
    let arrivals = arrivals.lock().expect("arrivals").clone();
    let site: Vec<&Instant> = arrivals
        .iter()
        .filter(|(what, _)| what.starts_with("site/api/"))
        .map(|(_, at)| at)
        .collect();
    let other: Vec<&Instant> = arrivals
        .iter()
        .filter(|(what, _)| what.starts_with("other/"))
        .map(|(_, at)| at)
        .collect();
    let all_site: Vec<String> = server
        .targets()
        .into_iter()
        .filter(|target| target != "/robots.txt")
        .collect();
    assert!(
        all_site.len() <= 4,
        "--max-requests 4 counts the browser's requests to the site: {all_site:?}\n{}",
        run.stderr
    );
    assert!(
        !site.is_empty(),
        "the page's requests went out: {all_site:?}"
    );
    assert!(
        other.len() <= 3,
        "other hosts get 3 requests a page: {} arrived\n{}",
        other.len(),
        run.stderr
    );
    assert!(!other.is_empty(), "{}", run.stderr);
    // Arrival times carry the loopback's jitter: the span is held to the delay, less what
    // a late first arrival takes from it (a loaded machine measured 876 ms for one gap paced
    // at 1 s), each gap to most of it.
    for requests in [&site, &other] {
        let gaps: Vec<Duration> = requests
            .windows(2)
            .map(|pair| pair[1].duration_since(*pair[0]))
            .collect();
        let span: Duration = gaps.iter().sum();
        let expected = (Duration::from_millis(950) * u32::try_from(gaps.len()).expect("few"))
            .saturating_sub(Duration::from_millis(150));
        assert!(
            span >= expected && gaps.iter().all(|gap| *gap >= Duration::from_millis(700)),
            "--delay 1 paces the browser's requests to each host: {gaps:?}"
        );
    }
    assert!(elapsed >= Duration::from_secs(2), "{elapsed:?}");
    assert!(
        run.stderr
            .contains("requests to other hosts past --render-other-host-requests"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr
            .contains("requests to the site past --max-requests"),
        "{}",
        run.stderr
    );
}

/// A listener that counts the TCP connections made to it, and answers none.
struct ConnectionCounter {
    port: u16,
    accepted: Arc<AtomicUsize>,
}

impl ConnectionCounter {
    fn start() -> ConnectionCounter {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let port = listener.local_addr().expect("address").port();
        let accepted = Arc::new(AtomicUsize::new(0));
        let counter = Arc::clone(&accepted);
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                counter.fetch_add(1, Ordering::SeqCst);
                drop(stream);
            }
        });
        ConnectionCounter { port, accepted }
    }
}

/// From a public seed, nothing the page does opens a TCP connection to a private address:
/// a preconnect, a prefetch, an iframe, a navigation, a WebSocket, a worker's fetch.
#[test]
fn nothing_a_public_page_does_connects_to_a_private_address() {
    let Some(browser) = chromium() else { return };
    let private = ConnectionCounter::start();
    let target = format!("127.0.0.1:{}", private.port);
    let page = format!(
        r#"<!doctype html><html><head>
        <link rel="preconnect" href="http://{target}">
        <link rel="dns-prefetch" href="http://{target}">
        <link rel="prefetch" href="http://{target}/prefetch">
        <script src="/app.js" defer></script></head>
        <body><iframe src="http://{target}/frame"></iframe><div id="root"></div></body></html>"#
    );
    let app = format!(
        r#"(() => {{
          try {{ new WebSocket('ws://{target}/ws'); }} catch (e) {{}}
          fetch('http://{target}/fetch').catch(() => {{}});
          new Worker(URL.createObjectURL(new Blob(["fetch('http://{target}/worker').catch(() => {{}})"])));
          document.getElementById('root').innerHTML = '<a href="/about">About</a>';
          setTimeout(() => location.assign('http://{target}/moved'), 50);
        }})();"#
    );
    let public = Site::new()
        .route("/app.js", script(&app))
        .generated(move |_| Some(Route::html(&page)))
        .serve_on("127.0.0.2");
    let out = tempfile::tempdir().expect("tempdir");
    let seed = public.url("/");
    let run: crate::harness::Run = sitemapper_command(&[
        "crawl",
        &seed,
        "--out",
        out.path().to_str().expect("utf-8"),
        "--retries",
        "0",
        "--render",
        "always",
        "--chrome",
        browser.to_str().expect("utf-8"),
    ])
    .env("SITEMAPPER_TEST_PUBLIC_ADDRESSES", "127.0.0.2")
    .output()
    .expect("run sitemapper")
    .into();
    run.assert_success();
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(
        private.accepted.load(Ordering::SeqCst),
        0,
        "the browser connected to a private address\n{}",
        run.stderr
    );
    assert!(
        run.stderr
            .contains("requests to private networks (never sent)"),
        "{}",
        run.stderr
    );
}

/// A proxy that records the first line of every request it gets, forwards plain requests
/// to loopback (the crawl's own and the pages') and refuses everything else.
struct RecordingProxy {
    port: u16,
    seen: Arc<Mutex<Vec<String>>>,
}

impl RecordingProxy {
    fn start() -> RecordingProxy {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let port = listener.local_addr().expect("address").port();
        let seen: Arc<Mutex<Vec<String>>> = Arc::default();
        let record = Arc::clone(&seen);
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let record = Arc::clone(&record);
                std::thread::spawn(move || relay(stream, &record));
            }
        });
        RecordingProxy { port, seen }
    }
}

/// Serves one connection of the recording proxy: one request, then closed.
fn relay(mut client: TcpStream, seen: &Mutex<Vec<String>>) {
    let mut reader = BufReader::new(client.try_clone().expect("clone"));
    let mut head = Vec::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let end = line == "\r\n";
        head.push(line);
        if end {
            break;
        }
    }
    let first = head[0].trim_end().to_string();
    seen.lock().expect("seen").push(first.clone());
    let mut words = first.split(' ');
    let (method, target) = (
        words.next().unwrap_or_default(),
        words.next().unwrap_or_default(),
    );
    let loopback = target
        .strip_prefix("http://127.0.0.1:")
        .and_then(|rest| rest.split('/').next())
        .and_then(|port| port.parse::<u16>().ok());
    let Some(port) = loopback.filter(|_| method != "CONNECT") else {
        let _ = client
            .write_all(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
        return;
    };
    let path = target.splitn(4, '/').nth(3).unwrap_or_default();
    let Ok(mut upstream) = TcpStream::connect(("127.0.0.1", port)) else {
        return;
    };
    let mut request = format!("{method} /{path} HTTP/1.1\r\n");
    let mut length = 0;
    for line in &head[1..] {
        let lower = line.to_ascii_lowercase();
        if lower.starts_with("proxy-") || lower.starts_with("connection:") {
            continue;
        }
        if let Some(value) = lower.strip_prefix("content-length:") {
            length = value.trim().parse().unwrap_or(0);
        }
        if line == "\r\n" {
            request.push_str("Connection: close\r\n");
        }
        request.push_str(line);
    }
    let mut body = vec![0; length];
    let _ = reader.read_exact(&mut body);
    let _ = upstream.write_all(request.as_bytes());
    let _ = upstream.write_all(&body);
    let mut response = Vec::new();
    let _ = upstream.read_to_end(&mut response);
    let _ = client.write_all(&response);
}

/// Through the user's proxy, only the pages' requests go out: none of Chromium's own
/// (updates, time, accounts, its search engine).
#[test]
fn the_browser_sends_nothing_of_its_own_through_the_users_proxy() {
    let Some(browser) = chromium() else { return };
    let proxy = RecordingProxy::start();
    let app = "document.getElementById('root').innerHTML = '<a href=\"/about\">About</a> <a href=\"/contact\">Contact</a>';";
    let page = shell("/app.js");
    let server = Site::new()
        .route("/app.js", script(app))
        .generated(move |_| Some(Route::html(&page)))
        .serve();
    let out = tempfile::tempdir().expect("tempdir");
    let run: crate::harness::Run = sitemapper_command(&[
        "crawl",
        &server.url("/"),
        "--out",
        out.path().to_str().expect("utf-8"),
        "--retries",
        "0",
        "--render",
        "always",
        "--proxy",
        &format!("http://127.0.0.1:{}", proxy.port),
        "--chrome",
        browser.to_str().expect("utf-8"),
    ])
    .env("NO_PROXY", "")
    .env("no_proxy", "")
    .output()
    .expect("run sitemapper")
    .into();
    run.assert_success();
    assert_eq!(
        listed_urls(out.path()),
        urls(&server, &["/", "/about", "/contact"]),
        "{}",
        run.stderr
    );
    let seen = proxy.seen.lock().expect("seen").clone();
    let origin = server.origin();
    assert!(
        seen.iter().any(|line| line.contains("/app.js")),
        "the pages' requests go through the user's proxy: {seen:?}"
    );
    let foreign: Vec<&String> = seen
        .iter()
        .filter(|line| {
            !line
                .split(' ')
                .nth(1)
                .is_some_and(|target| target.starts_with(&origin))
        })
        .collect();
    assert!(
        foreign.is_empty(),
        "requests no page made went through the user's proxy: {foreign:?}"
    );
}

/// An https site with a private CA: the page's scripts reach it through the gate's TLS end,
/// and the gate checks the site's certificate as the crawl does (`--cacert`), not Chromium.
#[test]
fn a_rendered_https_page_reaches_its_site_through_the_gate_with_the_crawls_certificates() {
    let Some(browser) = chromium() else { return };
    let app = r#"fetch('/api/nav.json').then((answer) => answer.json()).then((nav) => {
      document.getElementById('root').innerHTML = nav.map((href) => `<a href="${href}">${href}</a>`).join(' ');
    });"#;
    let page = shell("/app.js");
    let server = Site::new()
        .route("/app.js", script(app))
        .route(
            "/api/nav.json",
            Route::new(200, r#"["/about", "/contact"]"#).header("Content-Type", "application/json"),
        )
        .generated(move |_| Some(Route::html(&page)))
        .serve_tls(tls_config());
    let seed = server.url("/");
    assert!(seed.starts_with("https://"));
    let out = tempfile::tempdir().expect("tempdir");
    let ca = tls_file("ca.pem");
    let run = crawl(
        &seed,
        out.path(),
        &[
            "--render",
            "always",
            "--cacert",
            ca.to_str().expect("utf-8"),
            "--chrome",
            browser.to_str().expect("utf-8"),
        ],
    );
    run.assert_success();
    assert_eq!(
        listed_urls(out.path()),
        urls(&server, &["/", "/about", "/contact"]),
        "{}",
        run.stderr
    );
    assert!(server.targets().contains(&"/api/nav.json".to_string()));
}
