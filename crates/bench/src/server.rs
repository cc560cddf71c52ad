//! The benchmark's web server: hyper on 127.0.0.1, on its own runtime and threads, answering
//! from a generated site ([`Routes`]) on request, on one port or on many (a fleet of sites).
//! A site that gives validators is answered conditionally (RFC 9110 section 13): a request
//! whose `If-None-Match` or `If-Modified-Since` says the client holds the current page gets
//! `304 Not Modified` without a body, and the server counts how it answered.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use anyhow::Context;
use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;

/// A response body and its type.
#[derive(Debug, Clone)]
pub(crate) struct Reply {
    pub content_type: &'static str,
    pub body: Bytes,
    /// The `Content-Encoding` of `body`, when it is compressed.
    pub content_encoding: Option<&'static str>,
}

impl Reply {
    pub(crate) fn new(content_type: &'static str, body: Bytes) -> Reply {
        Reply {
            content_type,
            body,
            content_encoding: None,
        }
    }
}

/// What identifies the version of a page (RFC 9110 section 8.8), sent with it and back by a
/// client that revalidates it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Validators {
    /// The strong entity tag, quoted (`"6773e400-1f2a"`).
    pub etag: String,
    /// When the page last changed, in seconds since the Unix epoch.
    pub last_modified: i64,
}

/// A generated site, as the server sees it: a reply for a path and query, or none (404).
pub(crate) trait Routes: Send + Sync + 'static {
    fn reply(&self, path: &str, query: Option<&str>) -> Option<Reply>;

    /// The validators of the reply to a client that accepts `accept_encoding`, when the site
    /// gives them. They are asked for before the reply, so that a page the client holds is
    /// answered 304 without being rendered, as a server of files answers from a `stat`.
    fn validators(
        &self,
        path: &str,
        query: Option<&str>,
        accept_encoding: &str,
    ) -> Option<Validators> {
        let _ = (path, query, accept_encoding);
        None
    }

    /// The reply for a client that accepts the encodings of `accept_encoding` (the header's
    /// value, empty when absent): uncompressed unless the site serves compressed bodies.
    fn reply_encoded(
        &self,
        path: &str,
        query: Option<&str>,
        accept_encoding: &str,
    ) -> Option<Reply> {
        let _ = accept_encoding;
        self.reply(path, query)
    }
}

/// How many responses of each kind a server sent, since it started.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct ResponseCounts {
    /// `200 OK`.
    pub ok: u64,
    /// `304 Not Modified`.
    pub not_modified: u64,
    /// Anything else (404 mostly).
    pub other: u64,
}

impl ResponseCounts {
    /// The responses sent from `earlier` to these counts.
    pub(crate) fn since(self, earlier: ResponseCounts) -> ResponseCounts {
        ResponseCounts {
            ok: self.ok.saturating_sub(earlier.ok),
            not_modified: self.not_modified.saturating_sub(earlier.not_modified),
            other: self.other.saturating_sub(earlier.other),
        }
    }
}

/// The counters behind [`ResponseCounts`], shared by the server's tasks.
#[derive(Debug, Default)]
struct Tally {
    ok: AtomicU64,
    not_modified: AtomicU64,
    other: AtomicU64,
}

impl Tally {
    fn count(&self, status: u16) {
        let counter = match status {
            200 => &self.ok,
            304 => &self.not_modified,
            _ => &self.other,
        };
        counter.fetch_add(1, Ordering::Relaxed);
    }
}

/// A running server; it stops when dropped.
#[derive(Debug)]
pub(crate) struct Server {
    pub address: SocketAddr,
    /// Every address served, `address` first.
    pub addresses: Vec<SocketAddr>,
    runtime: Option<tokio::runtime::Runtime>,
    tally: Arc<Tally>,
}

impl Server {
    pub(crate) fn start(site: impl Routes, threads: usize) -> anyhow::Result<Server> {
        Server::start_many(site, 1, threads)
    }

    /// Serves `site` on `listeners` ports of 127.0.0.1 at once, each its own origin, on one
    /// runtime of `threads` threads.
    pub(crate) fn start_many(
        site: impl Routes,
        listeners: usize,
        threads: usize,
    ) -> anyhow::Result<Server> {
        let site = Arc::new(site);
        let tally = Arc::new(Tally::default());
        let counted = Arc::clone(&tally);
        let mut server = Server::serve(
            move |request| respond(request, Arc::clone(&site), Arc::clone(&counted)),
            listeners,
            threads,
        )?;
        server.tally = tally;
        Ok(server)
    }

    /// Answers every request on `listeners` ports of 127.0.0.1 with `handler`, on one
    /// runtime of `threads` threads.
    pub(crate) fn serve<Handler, Answer>(
        handler: Handler,
        listeners: usize,
        threads: usize,
    ) -> anyhow::Result<Server>
    where
        Handler: Fn(Request<Incoming>) -> Answer + Clone + Send + Sync + 'static,
        Answer: Future<Output = Result<Response<Full<Bytes>>, Infallible>> + Send + 'static,
    {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(threads.max(1))
            .thread_name("bench-server")
            .enable_all()
            .build()
            .context("server runtime")?;
        let mut addresses = Vec::with_capacity(listeners.max(1));
        for _ in 0..listeners.max(1) {
            let listener = runtime
                .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
                .context("bind 127.0.0.1:0")?;
            addresses.push(listener.local_addr()?);
            let handler = handler.clone();
            runtime.spawn(async move {
                loop {
                    let Ok((stream, _)) = listener.accept().await else {
                        continue;
                    };
                    let handler = handler.clone();
                    tokio::spawn(async move {
                        let _ = http1::Builder::new()
                            .serve_connection(TokioIo::new(stream), service_fn(handler))
                            .await;
                    });
                }
            });
        }
        let address = *addresses.first().context("no listener")?;
        Ok(Server {
            address,
            addresses,
            runtime: Some(runtime),
            tally: Arc::default(),
        })
    }

    pub(crate) fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.address)
    }

    /// The responses sent so far (none are counted for a handler given to [`Server::serve`]).
    pub(crate) fn counts(&self) -> ResponseCounts {
        ResponseCounts {
            ok: self.tally.ok.load(Ordering::Relaxed),
            not_modified: self.tally.not_modified.load(Ordering::Relaxed),
            other: self.tally.other.load(Ordering::Relaxed),
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

async fn respond<Site: Routes>(
    request: Request<Incoming>,
    site: Arc<Site>,
    tally: Arc<Tally>,
) -> Result<Response<Full<Bytes>>, Infallible> {
    let header = |name: hyper::header::HeaderName| {
        request
            .headers()
            .get(name)
            .and_then(|value| value.to_str().ok())
    };
    let accept_encoding = header(hyper::header::ACCEPT_ENCODING).unwrap_or_default();
    let (path, query) = (request.uri().path(), request.uri().query());
    let validators = site.validators(path, query, accept_encoding);
    let unchanged = validators.as_ref().is_some_and(|validators| {
        not_modified(
            validators,
            header(hyper::header::IF_NONE_MATCH),
            header(hyper::header::IF_MODIFIED_SINCE),
        )
    });
    let (status, reply) = if unchanged {
        (304, None)
    } else {
        match site.reply_encoded(path, query, accept_encoding) {
            Some(reply) => (200, Some(reply)),
            None => (404, None),
        }
    };
    tally.count(status);
    let mut response = Response::builder().status(status);
    if let Some(reply) = &reply {
        response = response.header("Content-Type", reply.content_type);
    } else if status == 404 {
        response = response.header("Content-Type", "text/plain");
    }
    response = response.header("Vary", "Accept-Encoding");
    if let Some(encoding) = reply.as_ref().and_then(|reply| reply.content_encoding) {
        response = response.header("Content-Encoding", encoding);
    }
    if let Some(validators) = validators.filter(|_| status != 404) {
        response = response.header("ETag", validators.etag);
        if let Some(date) = http_date(validators.last_modified) {
            response = response.header("Last-Modified", date);
        }
    }
    let body = match (status, reply) {
        (_, Some(reply)) => reply.body,
        (404, None) => Bytes::from_static(b"not found"),
        (_, None) => Bytes::new(),
    };
    let response = response.body(Full::new(body));
    Ok(response.unwrap_or_else(|_| Response::new(Full::new(Bytes::new()))))
}

/// Whether a request with these conditional headers is answered 304 (RFC 9110 section
/// 13.2.2): `If-None-Match` decides when present, by weak comparison (section 8.8.3.2), and
/// `If-Modified-Since` only without it, when the page has not changed since that date.
fn not_modified(
    validators: &Validators,
    if_none_match: Option<&str>,
    if_modified_since: Option<&str>,
) -> bool {
    let opaque = |tag: &str| tag.trim().trim_start_matches("W/").to_string();
    match if_none_match {
        Some(tags) => tags.split(',').any(|tag| {
            let tag = tag.trim();
            tag == "*" || opaque(tag) == opaque(&validators.etag)
        }),
        None => if_modified_since
            .and_then(|date| {
                jiff::fmt::rfc2822::DateTimeParser::new()
                    .parse_timestamp(date)
                    .ok()
            })
            .is_some_and(|since| validators.last_modified <= since.as_second()),
    }
}

/// `seconds` since the Unix epoch as an HTTP date (`Tue, 02 Jan 2024 03:04:05 GMT`).
pub(crate) fn http_date(seconds: i64) -> Option<String> {
    let timestamp = jiff::Timestamp::from_second(seconds).ok()?;
    jiff::fmt::rfc2822::DateTimePrinter::new()
        .timestamp_to_rfc9110_string(&timestamp)
        .ok()
}

#[cfg(test)]
mod tests {
    use std::io::{Read, Write};

    use super::*;
    use crate::site::{ChangingSite, GeneratedSite, Generation};

    /// The status line, headers and body of a GET of `path` with `headers`.
    fn get(address: &SocketAddr, path: &str, headers: &[(&str, &str)]) -> (String, String) {
        let mut stream = std::net::TcpStream::connect(address)
            .unwrap_or_else(|error| panic!("{address}: {error}"));
        let mut request = format!("GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n");
        for (name, value) in headers {
            request.push_str(&format!("{name}: {value}\r\n"));
        }
        request.push_str("\r\n");
        let _ = stream.write_all(request.as_bytes());
        let mut response = String::new();
        let _ = stream.read_to_string(&mut response);
        let (head, body) = response.split_once("\r\n\r\n").unwrap_or((&response, ""));
        (head.to_string(), body.to_string())
    }

    /// The value of header `name` in `head`.
    fn header<'a>(head: &'a str, name: &str) -> &'a str {
        head.lines()
            .find_map(|line| {
                let (key, value) = line.split_once(": ")?;
                key.eq_ignore_ascii_case(name).then_some(value)
            })
            .unwrap_or_else(|| panic!("no {name} in {head}"))
    }

    #[test]
    fn unchanged_pages_are_answered_304_without_a_body() {
        let generation = Generation::default();
        let site = ChangingSite {
            site: GeneratedSite::new(200),
            generation: generation.clone(),
        };
        let server = Server::start(site, 1).unwrap_or_else(|error| panic!("{error:#}"));
        let address = server.address;
        let (head, body) = get(&address, "/p/42", &[]);
        assert!(head.starts_with("HTTP/1.1 200"), "{head}");
        assert!(body.contains("Page 42"));
        let etag = header(&head, "etag").to_string();
        let last_modified = header(&head, "last-modified").to_string();
        assert!(last_modified.ends_with(" GMT"), "{last_modified}");
        // A list of tags, compared weakly (RFC 9110 section 8.8.3.2).
        let listed = format!("\"other\", W/{etag}");

        for conditions in [
            vec![("If-None-Match", etag.as_str())],
            vec![("If-None-Match", listed.as_str())],
            vec![("If-Modified-Since", last_modified.as_str())],
            vec![("If-Modified-Since", "Fri, 01 Jan 2027 00:00:00 GMT")],
        ] {
            let (head, body) = get(&address, "/p/42", &conditions);
            assert!(head.starts_with("HTTP/1.1 304"), "{conditions:?}: {head}");
            assert_eq!(header(&head, "etag"), etag);
            assert!(body.is_empty(), "{conditions:?}: {body}");
        }
        for conditions in [
            vec![("If-None-Match", "\"other\"")],
            vec![("If-Modified-Since", "Mon, 01 Dec 2025 00:00:00 GMT")],
            // If-None-Match decides when present (RFC 9110 section 13.2.2).
            vec![
                ("If-None-Match", "\"other\""),
                ("If-Modified-Since", last_modified.as_str()),
            ],
        ] {
            let (head, _) = get(&address, "/p/42", &conditions);
            assert!(head.starts_with("HTTP/1.1 200"), "{conditions:?}: {head}");
        }

        generation.set(1);
        let (head, body) = get(&address, "/p/42", &[("If-None-Match", etag.as_str())]);
        assert!(head.starts_with("HTTP/1.1 200"), "changed: {head}");
        assert!(body.contains("Revised in edition 1"));
        assert_ne!(header(&head, "etag"), etag);
        let (other, _) = get(&address, "/p/43", &[]);
        let (head, _) = get(
            &address,
            "/p/43",
            &[("If-None-Match", header(&other, "etag"))],
        );
        assert!(head.starts_with("HTTP/1.1 304"), "unchanged: {head}");
        let (head, _) = get(&address, "/p/4200", &[]);
        assert!(head.starts_with("HTTP/1.1 404"), "{head}");

        assert_eq!(
            server.counts(),
            ResponseCounts {
                ok: 6,
                not_modified: 5,
                other: 1
            }
        );
        let before = ResponseCounts {
            ok: 2,
            not_modified: 5,
            other: 0,
        };
        assert_eq!(
            server.counts().since(before),
            ResponseCounts {
                ok: 4,
                not_modified: 0,
                other: 1
            }
        );
    }

    #[test]
    fn a_site_without_validators_is_answered_in_full() {
        let server =
            Server::start(GeneratedSite::new(10), 1).unwrap_or_else(|error| panic!("{error:#}"));
        let (head, body) = get(&server.address, "/p/9", &[("If-None-Match", "*")]);
        assert!(head.starts_with("HTTP/1.1 200"), "{head}");
        assert!(!head.to_ascii_lowercase().contains("etag"), "{head}");
        assert!(body.contains("Page 9"));
    }

    #[test]
    fn many_listeners_serve_the_site_each() {
        let server = Server::start_many(GeneratedSite::new(10), 3, 1)
            .unwrap_or_else(|error| panic!("{error:#}"));
        let distinct: std::collections::BTreeSet<SocketAddr> =
            server.addresses.iter().copied().collect();
        assert_eq!(distinct.len(), 3);
        assert_eq!(server.address, server.addresses[0]);
        for address in &server.addresses {
            let mut stream = std::net::TcpStream::connect(address)
                .unwrap_or_else(|error| panic!("{address}: {error}"));
            let _ = stream.write_all(b"GET /p/9 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
            let mut response = String::new();
            let _ = stream.read_to_string(&mut response);
            assert!(
                response.starts_with("HTTP/1.1 200"),
                "{address}: {response}"
            );
        }
    }
}
