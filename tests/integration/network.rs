//! The network path to a site: requests through a proxy (the flag, or the environment's), and
//! TLS to a site whose certificate a private CA signed (`--cacert`) or nobody vouches for
//! (`--insecure`).

use std::collections::BTreeSet;
use std::convert::Infallible;
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use sitemapper_crawl::{AddressPolicy, NetworkOptions};

use crate::access::{command, crawl, crawl_args, header, run, small_site, small_site_urls};
use crate::fixture::{tls_config, tls_file};
use crate::harness::{assert_one_line_error, listed_urls, previous_output};

/// A forward proxy on 127.0.0.1 that records the requests through it, and passes them on
/// with a `Via` header.
struct Proxy {
    address: std::net::SocketAddr,
    seen: Arc<Mutex<Vec<String>>>,
    _thread: std::thread::JoinHandle<()>,
}

impl Proxy {
    fn start() -> Proxy {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let address = listener.local_addr().unwrap();
        let seen: Arc<Mutex<Vec<String>>> = Arc::default();
        let recorded = Arc::clone(&seen);
        let thread = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            runtime.block_on(async move {
                let policy = AddressPolicy {
                    allow_private: true,
                    ..AddressPolicy::default()
                };
                let client = sitemapper_crawl::client_builder(&policy, &NetworkOptions::default())
                    .unwrap()
                    .no_proxy()
                    .redirect(reqwest::redirect::Policy::none())
                    .build()
                    .unwrap();
                let listener = tokio::net::TcpListener::from_std(listener).unwrap();
                // The test process ends the thread: it serves until then.
                while let Ok((stream, _)) = listener.accept().await {
                    let client = client.clone();
                    let recorded = Arc::clone(&recorded);
                    tokio::spawn(async move {
                        let service = service_fn(move |request| {
                            forward(request, client.clone(), Arc::clone(&recorded))
                        });
                        let _ = http1::Builder::new()
                            .serve_connection(TokioIo::new(stream), service)
                            .await;
                    });
                }
            });
        });
        Proxy {
            address,
            seen,
            _thread: thread,
        }
    }

    fn url(&self) -> String {
        format!("http://{}", self.address)
    }

    /// The absolute URLs requested through the proxy.
    fn seen(&self) -> Vec<String> {
        self.seen.lock().unwrap().clone()
    }
}

async fn forward(
    request: Request<Incoming>,
    client: reqwest::Client,
    recorded: Arc<Mutex<Vec<String>>>,
) -> Result<Response<BoxBody<Bytes, Infallible>>, Infallible> {
    let target = request.uri().to_string();
    recorded.lock().unwrap().push(target.clone());
    let mut forwarded = client.get(&target).header("Via", "1.1 test-proxy");
    for (name, value) in request.headers() {
        if !matches!(name.as_str(), "host" | "proxy-connection" | "connection") {
            forwarded = forwarded.header(name, value);
        }
    }
    let response = match forwarded.send().await {
        Ok(response) => response,
        Err(_) => {
            let bad_gateway = Response::builder()
                .status(502)
                .body(Full::new(Bytes::new()).boxed())
                .unwrap();
            return Ok(bad_gateway);
        }
    };
    let mut answer = Response::builder().status(response.status().as_u16());
    for (name, value) in response.headers() {
        if !matches!(
            name.as_str(),
            "transfer-encoding" | "connection" | "content-length"
        ) {
            answer = answer.header(name, value);
        }
    }
    let body = response.bytes().await.unwrap_or_default();
    Ok(answer.body(Full::new(body).boxed()).unwrap())
}

#[test]
fn requests_go_through_the_proxy_of_the_flag_or_of_the_environment() {
    let server = small_site().serve();
    for source in ["--proxy", "HTTP_PROXY"] {
        let proxy = Proxy::start();
        let out = tempfile::tempdir().unwrap();
        let proxy_url = proxy.url();
        let mut crawl = if source == "--proxy" {
            command(&crawl_args(
                &server.url("/"),
                out.path(),
                &["--proxy", proxy_url.as_str()],
            ))
        } else {
            let mut crawl = command(&crawl_args(&server.url("/"), out.path(), &[]));
            crawl.env("HTTP_PROXY", &proxy_url);
            crawl
        };
        let result = run(&mut crawl);
        assert_eq!(result.code, 0, "{source}: {}", result.stderr);
        assert_eq!(
            listed_urls(out.path()),
            small_site_urls(&server),
            "{source}"
        );
        let through: BTreeSet<String> = proxy.seen().into_iter().collect();
        for path in ["/robots.txt", "/", "/a", "/b", "/c"] {
            assert!(
                through.contains(&server.url(path)),
                "{source}: {path} did not go through the proxy: {through:?}"
            );
        }
        let expected = if source == "--proxy" {
            format!("Through the proxy {proxy_url} (--proxy).")
        } else {
            format!("Proxies from the environment: HTTP_PROXY={proxy_url}.")
        };
        assert!(
            result.stderr.contains(&expected),
            "{source}: {}",
            result.stderr
        );
    }
    assert!(
        server
            .requests()
            .iter()
            .all(|seen| header(seen, "via") == Some("1.1 test-proxy")),
        "every request came through the proxies"
    );
}

#[test]
fn a_private_ca_is_trusted_with_cacert_and_any_certificate_with_insecure() {
    let server = small_site().serve_tls(tls_config());
    let seed = server.url("/");
    assert!(seed.starts_with("https://127.0.0.1:"));

    let (out, previous) = previous_output();
    let untrusted = crawl(&seed, out.path(), &[]);
    assert_eq!(untrusted.code, 1, "{}", untrusted.stderr);
    assert!(
        untrusted.stderr.contains("certificate"),
        "{}",
        untrusted.stderr
    );
    assert_eq!(
        std::fs::read(out.path().join("sitemap.xml")).unwrap(),
        previous
    );

    let ca = tls_file("ca.pem");
    let trusted = crawl(&seed, out.path(), &["--cacert", ca.to_str().unwrap()]);
    assert_eq!(trusted.code, 0, "{}", trusted.stderr);
    assert_eq!(listed_urls(out.path()), small_site_urls(&server));
    assert!(
        !trusted.stderr.contains("NOT verified"),
        "{}",
        trusted.stderr
    );

    let insecure_out = tempfile::tempdir().unwrap();
    let insecure = crawl(&seed, insecure_out.path(), &["--insecure"]);
    assert_eq!(insecure.code, 0, "{}", insecure.stderr);
    assert_eq!(listed_urls(insecure_out.path()), small_site_urls(&server));
    assert!(
        insecure.stderr.contains("Warning: ")
            && insecure
                .stderr
                .contains("TLS certificates are NOT verified for this crawl (--insecure)"),
        "a warning at the start: {}",
        insecure.stderr
    );
    assert!(
        insecure
            .stderr
            .contains("TLS certificates were NOT verified (--insecure)"),
        "and in the summary: {}",
        insecure.stderr
    );
}

#[test]
fn a_certificate_file_that_cannot_be_used_is_a_usage_error() {
    let server = small_site().serve();
    let (out, previous) = previous_output();
    let not_pem = tls_file("README.md");
    let key_only = tls_file("server.key");
    for (file, says) in [
        ("/nonexistent/ca.pem", "cannot read --cacert"),
        (not_pem.to_str().unwrap(), "holds no certificate"),
        (key_only.to_str().unwrap(), "holds no certificate"),
    ] {
        let result = crawl(&server.url("/"), out.path(), &["--cacert", file]);
        assert_eq!(result.code, 2, "{file}: {}", result.stderr);
        assert_one_line_error(&result.stderr);
        assert!(result.stderr.contains(says), "{file}: {}", result.stderr);
    }
    assert_eq!(
        std::fs::read(out.path().join("sitemap.xml")).unwrap(),
        previous
    );
    assert!(server.requests().is_empty(), "nothing was requested");
}
