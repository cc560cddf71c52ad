//! The benchmark's web server: hyper on 127.0.0.1, on its own runtime and threads, answering
//! from a generated site ([`Routes`]) on request, on one port or on many (a fleet of sites).

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;

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

/// A generated site, as the server sees it: a reply for a path and query, or none (404).
pub(crate) trait Routes: Send + Sync + 'static {
    fn reply(&self, path: &str, query: Option<&str>) -> Option<Reply>;

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

/// A running server; it stops when dropped.
#[derive(Debug)]
pub(crate) struct Server {
    pub address: SocketAddr,
    /// Every address served, `address` first.
    pub addresses: Vec<SocketAddr>,
    runtime: Option<tokio::runtime::Runtime>,
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
        Server::serve(
            move |request| respond(request, Arc::clone(&site)),
            listeners,
            threads,
        )
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
        })
    }

    pub(crate) fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.address)
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
) -> Result<Response<Full<Bytes>>, Infallible> {
    let accept_encoding = request
        .headers()
        .get(hyper::header::ACCEPT_ENCODING)
        .and_then(|value| value.to_str().ok())
        .unwrap_or_default();
    let replied = site.reply_encoded(request.uri().path(), request.uri().query(), accept_encoding);
    let (status, reply) = match replied {
        Some(reply) => (200, reply),
        None => (
            404,
            Reply::new("text/plain", Bytes::from_static(b"not found")),
        ),
    };
    let mut response = Response::builder()
        .status(status)
        .header("Content-Type", reply.content_type)
        .header("Vary", "Accept-Encoding");
    if let Some(encoding) = reply.content_encoding {
        response = response.header("Content-Encoding", encoding);
    }
    let response = response.body(Full::new(reply.body));
    Ok(response.unwrap_or_else(|_| Response::new(Full::new(Bytes::new()))))
}

#[cfg(test)]
mod tests {
    use std::io::{Read, Write};

    use super::*;
    use crate::site::GeneratedSite;

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
