//! A fixture web server on 127.0.0.1 (ephemeral port) that serves a described site with
//! controllable status codes and headers, and records every request it receives.

use std::collections::HashMap;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, RwLock};
use std::time::Duration;

use bytes::Bytes;
use futures_util::stream;

use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full, StreamBody};
use hyper::body::Frame;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;

/// One response the server gives for a path (with its query, if any).
#[derive(Debug, Clone)]
pub(crate) struct Route {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    /// How long the server waits before answering.
    pub delay: Duration,
    /// How the body is sent.
    pub pacing: BodyPacing,
}

/// How a route's body goes out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BodyPacing {
    /// All at once.
    Whole,
    /// One byte per interval.
    Trickle(Duration),
    /// This many bytes, then nothing more, ever (the connection stays open).
    Stall(usize),
}

impl Route {
    pub(crate) fn html(body: &str) -> Route {
        Route::new(200, body).header("Content-Type", "text/html; charset=utf-8")
    }

    pub(crate) fn new(status: u16, body: &str) -> Route {
        Route {
            status,
            headers: Vec::new(),
            body: body.as_bytes().to_vec(),
            delay: Duration::ZERO,
            pacing: BodyPacing::Whole,
        }
    }

    pub(crate) fn redirect(status: u16, location: &str) -> Route {
        Route::new(status, "").header("Location", location)
    }

    pub(crate) fn header(mut self, name: &str, value: &str) -> Route {
        self.headers.push((name.to_string(), value.to_string()));
        self
    }

    pub(crate) fn bytes(mut self, body: Vec<u8>) -> Route {
        self.body = body;
        self
    }

    pub(crate) fn delay(mut self, delay: Duration) -> Route {
        self.delay = delay;
        self
    }

    pub(crate) fn pacing(mut self, pacing: BodyPacing) -> Route {
        self.pacing = pacing;
        self
    }
}

/// A site: routes by path. `{origin}` in bodies and header values is replaced by the
/// server's own `http://127.0.0.1:PORT` when it starts, `{host}` by `127.0.0.1:PORT`,
/// `{port}` by `PORT`.
#[derive(Clone, Default)]
pub(crate) struct Site {
    routes: HashMap<String, Vec<Route>>,
    /// Answers requests no fixed route matches: generated, possibly endless, sites.
    generator: Option<Generator>,
    /// Answers a request before its route does (a site that wants credentials).
    guard: Option<Guard>,
}

/// Makes a response for a request target (path and query) and the number of requests the
/// server is answering (this one included), or None for a 404.
pub(crate) type Generator = Arc<dyn Fn(&str, usize) -> Option<Route> + Send + Sync>;

/// Looks at a request first: a response of its own (a 401), or None to let the route answer.
pub(crate) type Guard = Arc<dyn Fn(&Seen) -> Option<Route> + Send + Sync>;

impl std::fmt::Debug for Site {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("Site")
            .field("routes", &self.routes.len())
            .field("generator", &self.generator.is_some())
            .finish()
    }
}

impl Site {
    pub(crate) fn new() -> Site {
        Site::default()
    }

    /// A 200 `text/html` page.
    pub(crate) fn page(self, path: &str, body: &str) -> Site {
        self.route(path, Route::html(body))
    }

    pub(crate) fn route(self, path: &str, route: Route) -> Site {
        self.sequence(path, vec![route])
    }

    /// Answers the requests for `path` with `routes` in turn, the last one repeating.
    pub(crate) fn sequence(mut self, path: &str, routes: Vec<Route>) -> Site {
        assert!(!routes.is_empty(), "a sequence of routes for {path}");
        self.routes.insert(path.to_string(), routes);
        self
    }

    /// Generates the responses for targets that no fixed route matches.
    pub(crate) fn generated(
        mut self,
        generator: impl Fn(&str) -> Option<Route> + Send + Sync + 'static,
    ) -> Site {
        self.generator = Some(Arc::new(move |target, _| generator(target)));
        self
    }

    /// Generates the responses for targets that no fixed route matches from the target and
    /// the number of requests the server is answering, this one included: a site that slows
    /// down, or refuses, under load.
    pub(crate) fn generated_under_load(
        mut self,
        generator: impl Fn(&str, usize) -> Option<Route> + Send + Sync + 'static,
    ) -> Site {
        self.generator = Some(Arc::new(generator));
        self
    }

    /// Puts every request to `guard` before its route answers.
    pub(crate) fn guarded(
        mut self,
        guard: impl Fn(&Seen) -> Option<Route> + Send + Sync + 'static,
    ) -> Site {
        self.guard = Some(Arc::new(guard));
        self
    }

    pub(crate) fn serve(self) -> Server {
        Server::start(self, "127.0.0.1", None)
    }

    /// Serves on another loopback address (`127.0.0.2`): a second host on this machine.
    pub(crate) fn serve_on(self, address: &str) -> Server {
        Server::start(self, address, None)
    }

    /// Serves over TLS on 127.0.0.1 with `config` (`https://127.0.0.1:PORT`).
    pub(crate) fn serve_tls(self, config: Arc<rustls::ServerConfig>) -> Server {
        Server::start(self, "127.0.0.1", Some(config))
    }
}

fn substitute_names(text: &str, address: SocketAddr, scheme: &str) -> String {
    text.replace("{origin}", &format!("{scheme}://{address}"))
        .replace("{host}", &address.to_string())
        .replace("{port}", &address.port().to_string())
}

struct Routes {
    fixed: HashMap<String, Sequence>,
    generator: Option<Generator>,
    guard: Option<Guard>,
    address: SocketAddr,
    scheme: &'static str,
}

impl Routes {
    fn new(site: Site, address: SocketAddr, scheme: &'static str) -> Routes {
        let substitute = |mut route: Route| {
            if let Ok(text) = std::str::from_utf8(&route.body) {
                route.body = substitute_names(text, address, scheme).into_bytes();
            }
            for (_, value) in &mut route.headers {
                *value = substitute_names(value, address, scheme);
            }
            route
        };
        let fixed = site
            .routes
            .into_iter()
            .map(|(path, routes)| {
                let sequence = Sequence {
                    routes: routes.into_iter().map(substitute).collect(),
                    served: AtomicUsize::new(0),
                };
                (path, sequence)
            })
            .collect();
        Routes {
            fixed,
            generator: site.generator,
            guard: site.guard,
            address,
            scheme,
        }
    }

    fn route(&self, target: &str, in_flight: usize) -> Option<Route> {
        if let Some(sequence) = self.fixed.get(target) {
            return Some(sequence.next());
        }
        let mut route = (self.generator.as_ref()?)(target, in_flight)?;
        if let Ok(text) = std::str::from_utf8(&route.body) {
            route.body = substitute_names(text, self.address, self.scheme).into_bytes();
        }
        Some(route)
    }
}

impl std::fmt::Debug for Routes {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("Routes")
            .field("fixed", &self.fixed.len())
            .finish()
    }
}

/// The responses for one path, served in turn.
#[derive(Debug)]
struct Sequence {
    routes: Vec<Route>,
    served: AtomicUsize,
}

impl Sequence {
    fn next(&self) -> Route {
        let index = self.served.fetch_add(1, Ordering::Relaxed);
        self.routes[index.min(self.routes.len() - 1)].clone()
    }
}

/// Every request received, with a way to wait for one without sleeping, and how many were
/// being answered at once.
#[derive(Debug, Default)]
pub(crate) struct RequestLog {
    seen: Mutex<Vec<Seen>>,
    arrived: Condvar,
    in_flight: AtomicUsize,
    max_in_flight: AtomicUsize,
}

/// Counts a request as in flight until dropped.
struct InFlight<'a> {
    log: &'a RequestLog,
    /// Requests in flight when this one began, this one included.
    count: usize,
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.log.in_flight.fetch_sub(1, Ordering::SeqCst);
    }
}

impl RequestLog {
    fn push(&self, seen: Seen) {
        self.seen.lock().expect("log lock").push(seen);
        self.arrived.notify_all();
    }

    fn begin(&self) -> InFlight<'_> {
        let now = self.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
        self.max_in_flight.fetch_max(now, Ordering::SeqCst);
        InFlight {
            log: self,
            count: now,
        }
    }
}

/// A request as the server saw it.
#[derive(Debug, Clone)]
pub(crate) struct Seen {
    pub method: String,
    /// Path and query, as requested.
    pub target: String,
    pub headers: HashMap<String, String>,
    /// The request body (a POST's).
    pub body: Vec<u8>,
    /// When it arrived (its head and body read).
    pub at: std::time::Instant,
}

/// A running fixture server; it stops when dropped.
#[derive(Debug)]
pub(crate) struct Server {
    address: SocketAddr,
    /// `http`, or `https` when served over TLS.
    scheme: &'static str,
    routes: Arc<RwLock<Arc<Routes>>>,
    log: Arc<RequestLog>,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Server {
    fn start(site: Site, address: &str, tls: Option<Arc<rustls::ServerConfig>>) -> Server {
        let listener = std::net::TcpListener::bind((address, 0))
            .unwrap_or_else(|error| panic!("bind {address}:0: {error}"));
        listener
            .set_nonblocking(true)
            .expect("non-blocking listener");
        let address = listener.local_addr().expect("local address");
        let scheme = if tls.is_some() { "https" } else { "http" };
        let tls = tls.map(tokio_rustls::TlsAcceptor::from);
        let routes = Arc::new(RwLock::new(Arc::new(Routes::new(site, address, scheme))));
        let log: Arc<RequestLog> = Arc::default();
        let (shutdown, mut stop) = tokio::sync::oneshot::channel::<()>();
        let server_log = Arc::clone(&log);
        let server_routes = Arc::clone(&routes);
        let thread = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("fixture runtime");
            runtime.block_on(async move {
                let listener = tokio::net::TcpListener::from_std(listener).expect("tokio listener");
                loop {
                    tokio::select! {
                        _ = &mut stop => break,
                        accepted = listener.accept() => {
                            let Ok((stream, _)) = accepted else { continue };
                            let routes = Arc::clone(&server_routes);
                            let log = Arc::clone(&server_log);
                            let tls = tls.clone();
                            tokio::spawn(async move {
                                let service = service_fn(move |request| {
                                    respond(request, Arc::clone(&routes), Arc::clone(&log))
                                });
                                let connection = http1::Builder::new();
                                match tls {
                                    Some(acceptor) => {
                                        // A client that refuses the certificate ends here.
                                        if let Ok(stream) = acceptor.accept(stream).await {
                                            let _ = connection
                                                .serve_connection(TokioIo::new(stream), service)
                                                .await;
                                        }
                                    }
                                    None => {
                                        let _ = connection
                                            .serve_connection(TokioIo::new(stream), service)
                                            .await;
                                    }
                                }
                            });
                        }
                    }
                }
            });
        });
        Server {
            address,
            scheme,
            routes,
            log,
            shutdown: Some(shutdown),
            thread: Some(thread),
        }
    }

    /// Serves `site` from now on, on the same address (a site that changes between runs).
    pub(crate) fn change(&self, site: Site) {
        *self.routes.write().expect("routes lock") =
            Arc::new(Routes::new(site, self.address, self.scheme));
    }

    /// `http://127.0.0.1:PORT` (`https` over TLS) followed by `path`.
    pub(crate) fn url(&self, path: &str) -> String {
        format!("{}://{}{path}", self.scheme, self.address)
    }

    pub(crate) fn origin(&self) -> String {
        format!("{}://{}", self.scheme, self.address)
    }

    /// `127.0.0.1:PORT`.
    pub(crate) fn host(&self) -> String {
        self.address.to_string()
    }

    /// Every request received so far, in order.
    pub(crate) fn requests(&self) -> Vec<Seen> {
        self.log.seen.lock().expect("log lock").clone()
    }

    /// Blocks until the requests received satisfy `done` (woken by each request; a minute at
    /// most, so that a broken crawler fails the test instead of hanging it).
    pub(crate) fn wait_for(&self, done: impl Fn(&[Seen]) -> bool) {
        let seen = self.log.seen.lock().expect("log lock");
        let (seen, timeout) = self
            .log
            .arrived
            .wait_timeout_while(seen, Duration::from_secs(60), |seen| !done(seen))
            .expect("log lock");
        assert!(
            !timeout.timed_out(),
            "the expected requests never came: {} so far",
            seen.len()
        );
    }

    /// The most requests the server was answering at one time.
    pub(crate) fn max_in_flight(&self) -> usize {
        self.log.max_in_flight.load(Ordering::SeqCst)
    }

    /// The request targets received so far, in order.
    pub(crate) fn targets(&self) -> Vec<String> {
        self.requests()
            .into_iter()
            .map(|seen| seen.target)
            .collect()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(shutdown) = self.shutdown.take() {
            let _ = shutdown.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Answers a conditional request for an unchanged route with 304 Not Modified (RFC 9110
/// section 13.1): `If-None-Match` against the route's `ETag`, else `If-Modified-Since`
/// against its `Last-Modified` (compared as text, which is enough for fixtures).
fn not_modified(route: Route, request: &hyper::HeaderMap) -> Result<Route, Route> {
    let header = |name: &str| {
        route
            .headers
            .iter()
            .find(|(header, _)| header.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.clone())
    };
    let asked = |name: &str| request.get(name).and_then(|value| value.to_str().ok());
    let unchanged = match (asked("if-none-match"), header("etag")) {
        (Some(asked), Some(etag)) => asked.split(',').any(|tag| tag.trim() == etag),
        (Some(_), None) => false,
        (None, _) => matches!(
            (asked("if-modified-since"), header("last-modified")),
            (Some(since), Some(modified)) if since == modified
        ),
    };
    if route.status != 200 || !unchanged {
        return Err(route);
    }
    let mut answer = Route::new(304, "");
    answer.headers = route
        .headers
        .into_iter()
        .filter(|(name, _)| name.eq_ignore_ascii_case("etag"))
        .collect();
    Ok(answer)
}

async fn respond(
    request: Request<Incoming>,
    routes: Arc<RwLock<Arc<Routes>>>,
    log: Arc<RequestLog>,
) -> Result<Response<BoxBody<Bytes, Infallible>>, Infallible> {
    let target = request
        .uri()
        .path_and_query()
        .map_or("/".to_string(), |target| target.to_string());
    let headers = request
        .headers()
        .iter()
        .map(|(name, value)| {
            (
                name.to_string(),
                value.to_str().unwrap_or_default().to_string(),
            )
        })
        .collect();
    let method = request.method().to_string();
    let request_headers = request.headers().clone();
    let body = request
        .into_body()
        .collect()
        .await
        .map(|collected| collected.to_bytes().to_vec())
        .unwrap_or_default();
    let in_flight = log.begin();
    let seen = Seen {
        method,
        target: target.clone(),
        headers,
        body,
        at: std::time::Instant::now(),
    };
    let routes = Arc::clone(&routes.read().expect("routes lock"));
    let guarded = routes.guard.as_ref().and_then(|guard| guard(&seen));
    log.push(seen);
    let route = guarded
        .or_else(|| routes.route(&target, in_flight.count))
        .unwrap_or_else(|| {
            Route::new(404, "<html><body>not found</body></html>")
                .header("Content-Type", "text/html")
        });
    let route = not_modified(route, &request_headers).unwrap_or_else(|route| route);
    if !route.delay.is_zero() {
        tokio::time::sleep(route.delay).await;
    }
    let mut response = Response::builder().status(route.status);
    for (name, value) in &route.headers {
        response = response.header(name, value);
    }
    let body = match route.pacing {
        BodyPacing::Whole => Full::new(Bytes::from(route.body)).boxed(),
        BodyPacing::Trickle(interval) => {
            let bytes = stream::unfold((route.body, 0), move |(body, sent)| async move {
                if sent >= body.len() {
                    return None;
                }
                tokio::time::sleep(interval).await;
                let frame = Frame::data(Bytes::copy_from_slice(&body[sent..=sent]));
                Some((Ok::<_, Infallible>(frame), (body, sent + 1)))
            });
            StreamBody::new(bytes).boxed()
        }
        BodyPacing::Stall(sent) => {
            let head = Bytes::from(route.body[..sent.min(route.body.len())].to_vec());
            let bytes = stream::unfold(Some(head), |head| async move {
                match head {
                    Some(head) => Some((Ok::<_, Infallible>(Frame::data(head)), None)),
                    None => std::future::pending().await,
                }
            });
            StreamBody::new(bytes).boxed()
        }
    };
    Ok(response.body(body).expect("valid fixture response"))
}

/// A file of `tests/integration/tls`: a private CA and a server certificate it signed.
pub(crate) fn tls_file(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/integration/tls")
        .join(name)
}

/// The server certificate of `tests/integration/tls`, for 127.0.0.1 and localhost.
pub(crate) fn tls_config() -> Arc<rustls::ServerConfig> {
    tls_config_of("server.pem", "server.key")
}

/// The certificate `certificate` of `tests/integration/tls`, with its key `key`.
pub(crate) fn tls_config_of(certificate: &str, key: &str) -> Arc<rustls::ServerConfig> {
    use rustls::pki_types::pem::PemObject;
    use rustls::pki_types::{CertificateDer, PrivateKeyDer};
    let certificates: Vec<CertificateDer<'static>> =
        CertificateDer::pem_file_iter(tls_file(certificate))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
    let key = PrivateKeyDer::from_pem_file(tls_file(key)).unwrap();
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(certificates, key)
        .unwrap();
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Arc::new(config)
}
