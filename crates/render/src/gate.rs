//! The browser's one way out: a proxy on loopback that every connection Chromium opens goes
//! to (docs/design.md, `crates/render`).
//!
//! Chromium is started with this proxy as its only route (`--proxy-server`, with loopback
//! not exempted), so that documents, subresources, XHR and `fetch`, WebSockets, EventSource,
//! workers of every kind, beacons and `keepalive` requests, preconnects and prefetches all
//! arrive here, whatever the DevTools interception sees. The proxy makes no connection of its
//! own: each request is handed to the crawl's [`RequestGate`], which applies the crawl's
//! rules and makes it with the crawl's fetcher (a refused request opens no TCP connection).
//!
//! - Each tab has a lane: a port of its own, given to the tab's browser context as its proxy.
//!   While a page renders in the tab, the lane hands its connections to that page's gate;
//!   when the page has been read, they are closed, and what comes before the tab's next page
//!   is refused (the page is frozen meanwhile). What the page sends as the next one replaces
//!   it (a beacon as it is left), or the browser later still (it may hold a beacon back),
//!   passes the next page's gate, under the same rules.
//! - The browser's own requests (updates, time, accounts, ...) go to the browser's proxy, a
//!   lane no page ever holds: all refused and counted.
//! - `CONNECT` tunnels (https, and WebSockets) end here: TLS with a certificate made at start,
//!   which Chromium is told to accept by its key's hash and only by it; the requests inside are
//!   read and put to the gate like any other. The site's own certificate is checked by the
//!   crawl's fetcher.
//! - A port on loopback is open to every process of the machine: a connection from another
//!   user's process is closed before a byte is read (`peer.rs`), so that nobody else on a
//!   shared server reaches a protected site with the run's credentials through it.

use std::convert::Infallible;
use std::net::Ipv4Addr;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::Duration;

use base64::Engine;
use bytes::{Buf, Bytes};
use futures_util::TryStreamExt;
use http_body_util::combinators::UnsyncBoxBody;
use http_body_util::{BodyExt, Full, Limited, StreamBody};
use hyper::body::{Frame, Incoming};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use sitemapper_crawl::{BrowserRequest, GateError, RequestGate};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::{JoinHandle, JoinSet};
use tokio_rustls::TlsAcceptor;
use url::Url;

/// The longest head of a request read before it is answered.
const MAX_HEAD_BYTES: usize = 64 * 1024;

/// The largest request body passed on (a form, a query of an application).
const MAX_REQUEST_BODY_BYTES: usize = 8 * 1024 * 1024;

/// How long the browser has to send a request's head on a new connection.
const HEAD_TIMEOUT: Duration = Duration::from_secs(10);

/// The pause after a connection could not be accepted.
const ACCEPT_RETRY: Duration = Duration::from_millis(50);

/// The first byte of a TLS handshake record (RFC 8446 section 5.1).
const TLS_HANDSHAKE: u8 = 0x16;

type ProxyBody = UnsyncBoxBody<Bytes, std::io::Error>;

/// Why the gate could not be started.
#[derive(Debug, thiserror::Error)]
pub(crate) enum GateStartError {
    /// A loopback port could not be opened.
    #[error("cannot listen on loopback: {0}")]
    Listen(std::io::Error),
    /// The certificate of its TLS end could not be made.
    #[error("cannot make its certificate: {0}")]
    Certificate(String),
}

/// The proxy of one browser: a lane per tab and one for the browser itself.
#[derive(Debug)]
pub(crate) struct Gate {
    /// The tabs' lanes.
    pub(crate) lanes: Vec<Arc<Lane>>,
    /// The browser's own proxy address (`--proxy-server`).
    pub(crate) browser_proxy: String,
    /// The base64 SHA-256 of the TLS end's public key (`--ignore-certificate-errors-spki-list`).
    pub(crate) key_hash: String,
    acceptors: Vec<JoinHandle<()>>,
}

impl Gate {
    /// Starts a gate with `tabs` lanes; connections no page holds add to `not_from_a_page`.
    pub(crate) async fn start(
        tabs: usize,
        not_from_a_page: Arc<AtomicU64>,
    ) -> Result<Gate, GateStartError> {
        let (tls, key_hash) = tls_end()?;
        let mut acceptors = Vec::new();
        let mut lanes = Vec::new();
        for _ in 0..=tabs {
            let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
                .await
                .map_err(GateStartError::Listen)?;
            let port = listener
                .local_addr()
                .map_err(GateStartError::Listen)?
                .port();
            let lane = Arc::new(Lane {
                port,
                page: Mutex::new(None),
            });
            let shared = Shared {
                tls: tls.clone(),
                not_from_a_page: Arc::clone(&not_from_a_page),
            };
            acceptors.push(tokio::spawn(accept(listener, Arc::clone(&lane), shared)));
            lanes.push(lane);
        }
        // The last lane is the browser's: no page ever holds it.
        let browser_lane = lanes.pop().map_or(0, |lane| lane.port);
        Ok(Gate {
            lanes,
            browser_proxy: format!("http://127.0.0.1:{browser_lane}"),
            key_hash,
            acceptors,
        })
    }
}

impl Drop for Gate {
    fn drop(&mut self) {
        for acceptor in &self.acceptors {
            acceptor.abort();
        }
        for lane in &self.lanes {
            lane.close();
        }
    }
}

/// The port of one tab, and the page it serves now.
#[derive(Debug)]
pub(crate) struct Lane {
    /// The loopback port the tab's browser context uses as its proxy.
    pub(crate) port: u16,
    page: Mutex<Option<PageConnections>>,
}

/// The page a lane serves, and its connections.
struct PageConnections {
    gate: Arc<dyn RequestGate>,
    connections: JoinSet<()>,
}

impl std::fmt::Debug for PageConnections {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("PageConnections")
            .field("connections", &self.connections.len())
            .finish_non_exhaustive()
    }
}

impl Lane {
    /// From now on, the lane's connections are `gate`'s, until the returned guard is dropped.
    pub(crate) fn open(self: &Arc<Self>, gate: Arc<dyn RequestGate>) -> OpenLane {
        *self.page.lock().unwrap_or_else(PoisonError::into_inner) = Some(PageConnections {
            gate,
            connections: JoinSet::new(),
        });
        OpenLane {
            lane: Arc::clone(self),
        }
    }

    /// Closes the page's connections (aborted with their tasks); later ones are refused.
    fn close(&self) {
        let page = self
            .page
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        drop(page);
    }
}

/// A lane serving a page: closed when dropped.
#[derive(Debug)]
pub(crate) struct OpenLane {
    lane: Arc<Lane>,
}

impl Drop for OpenLane {
    fn drop(&mut self) {
        self.lane.close();
    }
}

/// What every connection of a gate shares.
#[derive(Clone)]
struct Shared {
    tls: TlsAcceptor,
    not_from_a_page: Arc<AtomicU64>,
}

/// Takes the lane's connections: the page's, while one is open, else refused.
async fn accept(listener: TcpListener, lane: Arc<Lane>, shared: Shared) {
    loop {
        let stream = match listener.accept().await {
            Ok((stream, peer)) => {
                // Only the run's own user reaches the site through the gate: another user's
                // process is closed on before a byte of its request is read.
                let local = stream.local_addr();
                // A read of procfs, served from memory: no blocking worth a thread.
                let own = local.is_ok_and(|local| crate::peer::is_own_user(peer, local));
                if !own {
                    drop(stream);
                    continue;
                }
                stream
            }
            Err(error) => {
                // Out of file descriptors, say: wait a little rather than spin.
                tracing::debug!(%error, "the browser's gate could not accept a connection");
                tokio::time::sleep(ACCEPT_RETRY).await;
                continue;
            }
        };
        let mut page = lane.page.lock().unwrap_or_else(PoisonError::into_inner);
        match page.as_mut() {
            Some(page) => {
                let gate = Arc::clone(&page.gate);
                page.connections
                    .spawn(serve(stream, Some(gate), shared.clone()));
            }
            None => {
                tokio::spawn(serve(stream, None, shared.clone()));
            }
        }
    }
}

/// Where the requests of a tunnel go: the `CONNECT` target, and whether TLS ran inside.
#[derive(Debug, Clone)]
struct Origin {
    scheme: &'static str,
    authority: String,
}

/// Serves one connection of the browser: a `CONNECT` tunnel, or plain requests in absolute
/// form (`GET http://host/path`).
async fn serve(mut stream: TcpStream, gate: Option<Arc<dyn RequestGate>>, shared: Shared) {
    let Ok(Ok((head, rest))) = tokio::time::timeout(HEAD_TIMEOUT, read_head(&mut stream)).await
    else {
        return;
    };
    let Some(authority) = connect_target(&head) else {
        let mut replayed = head;
        replayed.extend_from_slice(&rest);
        let stream = Rewind {
            prefix: Bytes::from(replayed),
            inner: stream,
        };
        serve_http(stream, None, gate, shared).await;
        return;
    };
    if gate.is_none() {
        refused_outside_a_page(&shared, &format!("CONNECT {authority}"));
        let _ = stream
            .write_all(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            .await;
        return;
    }
    if stream
        .write_all(b"HTTP/1.1 200 Connection Established\r\n\r\n")
        .await
        .is_err()
    {
        return;
    }
    let first = match rest.first() {
        Some(byte) => *byte,
        None => {
            let mut byte = [0_u8; 1];
            match stream.peek(&mut byte).await {
                Ok(1) => byte[0],
                _ => return,
            }
        }
    };
    let stream = Rewind {
        prefix: Bytes::from(rest),
        inner: stream,
    };
    if first == TLS_HANDSHAKE {
        match shared.tls.accept(stream).await {
            Ok(tls) => {
                let origin = Origin {
                    scheme: "https",
                    authority,
                };
                serve_http(tls, Some(origin), gate, shared).await;
            }
            Err(error) => tracing::debug!(%error, "a TLS handshake of the browser failed"),
        }
    } else {
        let origin = Origin {
            scheme: "http",
            authority,
        };
        serve_http(stream, Some(origin), gate, shared).await;
    }
}

/// Serves the HTTP/1.1 requests of one connection (inside a tunnel to `origin`, or in
/// absolute form without one).
async fn serve_http<I>(
    io: I,
    origin: Option<Origin>,
    gate: Option<Arc<dyn RequestGate>>,
    shared: Shared,
) where
    I: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let service = service_fn(move |request: Request<Incoming>| {
        let origin = origin.clone();
        let gate = gate.clone();
        let shared = shared.clone();
        async move { Ok::<_, Infallible>(respond(request, origin, gate, &shared).await) }
    });
    if let Err(error) = http1::Builder::new()
        .serve_connection(TokioIo::new(io), service)
        .await
    {
        tracing::debug!(%error, "a connection of the browser ended");
    }
}

/// Answers one request of the browser: what the gate answers, or why it did not.
async fn respond(
    request: Request<Incoming>,
    origin: Option<Origin>,
    gate: Option<Arc<dyn RequestGate>>,
    shared: &Shared,
) -> Response<ProxyBody> {
    let Some(url) = target_url(&request, origin.as_ref()) else {
        return plain(StatusCode::BAD_REQUEST, "not a request the gate can read");
    };
    let Some(gate) = gate else {
        refused_outside_a_page(shared, url.as_str());
        return plain(StatusCode::FORBIDDEN, "no page made this request");
    };
    tracing::debug!(%url, method = %request.method(), "a request of a rendered page");
    let (parts, body) = request.into_parts();
    let body = match Limited::new(body, MAX_REQUEST_BODY_BYTES).collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(_) => return plain(StatusCode::PAYLOAD_TOO_LARGE, "request body too large"),
    };
    let request = BrowserRequest {
        method: parts.method,
        url,
        headers: parts.headers,
        body,
    };
    match gate.send(request).await {
        Ok(response) => {
            let body = StreamBody::new(response.body.map_ok(Frame::data));
            let mut answer = Response::new(BodyExt::boxed_unsync(body));
            *answer.status_mut() = response.status;
            *answer.headers_mut() = response.headers;
            answer
        }
        Err(GateError::Refused(refusal)) => plain(
            StatusCode::FORBIDDEN,
            &format!("refused by the crawl's rules: {refusal}"),
        ),
        Err(GateError::Failed(failure)) => plain(StatusCode::BAD_GATEWAY, &failure.message()),
    }
}

fn refused_outside_a_page(shared: &Shared, what: &str) {
    shared.not_from_a_page.fetch_add(1, Ordering::Relaxed);
    // Chromium tries a dozen of its own at every start: counted in the summary, listed at -vv.
    tracing::debug!(request = what, "a request no rendered page made: refused");
}

fn plain(status: StatusCode, text: &str) -> Response<ProxyBody> {
    let body = Full::new(Bytes::from(text.to_string())).map_err(|never| match never {});
    let mut response = Response::new(BodyExt::boxed_unsync(body));
    *response.status_mut() = status;
    response
}

/// The URL a request is for: its path under the tunnel's origin, or its absolute form.
fn target_url(request: &Request<Incoming>, origin: Option<&Origin>) -> Option<Url> {
    let uri = request.uri();
    match origin {
        Some(origin) => {
            let path = uri.path_and_query().map_or("/", |path| path.as_str());
            Url::parse(&format!("{}://{}{path}", origin.scheme, origin.authority)).ok()
        }
        None => {
            uri.scheme()?;
            Url::parse(&uri.to_string()).ok()
        }
    }
}

/// Reads until the end of a request's head: the head, and what came after it.
async fn read_head(stream: &mut TcpStream) -> std::io::Result<(Vec<u8>, Vec<u8>)> {
    let mut read = Vec::with_capacity(1024);
    let mut buffer = [0_u8; 4096];
    loop {
        if let Some(end) = read.windows(4).position(|window| window == b"\r\n\r\n") {
            let rest = read.split_off(end + 4);
            return Ok((read, rest));
        }
        if read.len() > MAX_HEAD_BYTES {
            return Err(std::io::Error::other("request head too long"));
        }
        let count = stream.read(&mut buffer).await?;
        if count == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        read.extend_from_slice(&buffer[..count]);
    }
}

/// The `host:port` of a `CONNECT` request's head.
fn connect_target(head: &[u8]) -> Option<String> {
    let line = head.split(|byte| *byte == b'\n').next()?;
    let line = std::str::from_utf8(line).ok()?.trim_end();
    let mut words = line.split(' ');
    if words.next()? != "CONNECT" {
        return None;
    }
    let authority = words.next()?;
    // A host and a port, nothing a URL could read otherwise.
    Url::parse(&format!("http://{authority}/"))
        .ok()
        .filter(|url| url.host_str().is_some() && !authority.contains(['/', '@', '?', '#']))
        .map(|_| authority.to_string())
}

/// The TLS end of the tunnels: a key and a certificate made now, for this run only, and the
/// hash of the key that Chromium is told to accept.
fn tls_end() -> Result<(TlsAcceptor, String), GateStartError> {
    let failed = |error: &dyn std::fmt::Display| GateStartError::Certificate(error.to_string());
    let key = rcgen::KeyPair::generate().map_err(|error| failed(&error))?;
    let params = rcgen::CertificateParams::new(vec!["sitemapper.invalid".to_string()])
        .map_err(|error| failed(&error))?;
    let certificate = params.self_signed(&key).map_err(|error| failed(&error))?;
    let key_hash = base64::engine::general_purpose::STANDARD.encode(ring::digest::digest(
        &ring::digest::SHA256,
        &rcgen::PublicKeyData::subject_public_key_info(&key),
    ));
    let private_key = rustls::pki_types::PrivateKeyDer::Pkcs8(key.serialize_der().into());
    let mut config = rustls::ServerConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .map_err(|error| failed(&error))?
    .with_no_client_auth()
    .with_single_cert(vec![certificate.der().clone()], private_key)
    .map_err(|error| failed(&error))?;
    // HTTP/1.1 only: one request at a time per connection is what the server above reads.
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok((TlsAcceptor::from(Arc::new(config)), key_hash))
}

/// A stream whose first bytes were read already: they are read again first.
struct Rewind<S> {
    prefix: Bytes,
    inner: S,
}

impl<S: AsyncRead + Unpin> AsyncRead for Rewind<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        context: &mut Context<'_>,
        buffer: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        if !self.prefix.is_empty() {
            let count = buffer.remaining().min(self.prefix.len());
            buffer.put_slice(&self.prefix[..count]);
            self.prefix.advance(count);
            return Poll::Ready(Ok(()));
        }
        Pin::new(&mut self.inner).poll_read(context, buffer)
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Rewind<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        context: &mut Context<'_>,
        buffer: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write(context, buffer)
    }

    fn poll_flush(
        mut self: Pin<&mut Self>,
        context: &mut Context<'_>,
    ) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(context)
    }

    fn poll_shutdown(
        mut self: Pin<&mut Self>,
        context: &mut Context<'_>,
    ) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(context)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_connect_head_names_a_host_and_port_and_nothing_else() {
        let target = |head: &str| connect_target(head.as_bytes());
        assert_eq!(
            target("CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n").as_deref(),
            Some("example.com:443")
        );
        assert_eq!(
            target("CONNECT [::1]:8443 HTTP/1.1\r\n\r\n").as_deref(),
            Some("[::1]:8443")
        );
        assert_eq!(target("GET http://example.com/ HTTP/1.1\r\n\r\n"), None);
        assert_eq!(
            target("CONNECT user@example.com:443 HTTP/1.1\r\n\r\n"),
            None
        );
        assert_eq!(
            target("CONNECT example.com:443/path HTTP/1.1\r\n\r\n"),
            None
        );
        assert_eq!(target("CONNECT  HTTP/1.1\r\n\r\n"), None);
    }

    #[tokio::test]
    async fn bytes_read_ahead_are_read_again_first() {
        let (mut client, server) = tokio::io::duplex(64);
        client.write_all(b" world").await.expect("write");
        drop(client);
        let mut stream = Rewind {
            prefix: Bytes::from_static(b"hello"),
            inner: server,
        };
        let mut read = String::new();
        stream.read_to_string(&mut read).await.expect("read");
        assert_eq!(read, "hello world");
    }

    /// What `command` (a shell line) prints when run as the user nobody, or `None` where
    /// this process cannot run one as another user (not root, or no `setpriv`).
    fn as_nobody(command: &str) -> Option<String> {
        let output = std::process::Command::new("setpriv")
            .args([
                "--reuid=65534",
                "--regid=65534",
                "--clear-groups",
                "bash",
                "-c",
                command,
            ])
            .output()
            .ok()
            .filter(|output| output.status.success())?;
        Some(String::from_utf8_lossy(&output.stdout).into_owned())
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn another_users_process_is_refused_before_a_byte_is_read() {
        let counted = Arc::new(AtomicU64::new(0));
        let gate = Gate::start(1, Arc::clone(&counted)).await.expect("gate");
        let port = gate
            .browser_proxy
            .rsplit(':')
            .next()
            .expect("port")
            .to_string();
        // The gate may close the connection before the request is written: the write then
        // fails (SIGPIPE ignored), which is the refusal this test looks for, not a failure.
        let request = format!(
            "trap '' PIPE; exec 3<>/dev/tcp/127.0.0.1/{port} && \
             printf 'CONNECT example.com:443 HTTP/1.1\\r\\nHost: example.com:443\\r\\n\\r\\n' >&3 && \
             cat <&3; true"
        );
        let answered = tokio::task::spawn_blocking(move || as_nobody(&request))
            .await
            .expect("join");
        let Some(answered) = answered else {
            assert!(
                std::env::var("CI").as_deref() != Ok("true"),
                "CI runs as root, with setpriv: another user's connection must be tried"
            );
            eprintln!("skipping another user's connection to the gate: not root, or no setpriv");
            return;
        };
        assert_eq!(answered, "", "another user got an answer");
        assert_eq!(
            counted.load(Ordering::Relaxed),
            0,
            "its request was not even read"
        );
    }

    #[tokio::test]
    async fn a_lane_no_page_holds_refuses_and_counts_what_comes() {
        let counted = Arc::new(AtomicU64::new(0));
        let gate = Gate::start(1, Arc::clone(&counted)).await.expect("gate");
        let port = gate.browser_proxy.rsplit(':').next().expect("port");
        let mut stream = TcpStream::connect(format!("127.0.0.1:{port}"))
            .await
            .expect("connect");
        stream
            .write_all(b"CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n")
            .await
            .expect("write");
        let mut answer = String::new();
        stream.read_to_string(&mut answer).await.expect("read");
        assert!(answer.starts_with("HTTP/1.1 403"), "{answer}");
        assert_eq!(counted.load(Ordering::Relaxed), 1);
    }
}
