//! The site that looks like the web as the benchmark's server answers it: every body
//! compressed ahead (gzip, and brotli on request), as a CDN's cache or nginx's `gzip_static`
//! serves it, with validators on request; or, for a million pages, each page compressed as it
//! is asked for.

use std::collections::HashMap;
use std::io::Write as _;

use bytes::Bytes;

use crate::server::{Reply, Routes, Validators};
use crate::site::published;
use crate::web::{WebPage, WebSite};

/// Which encodings the benchmark's server offers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Encodings {
    /// gzip to clients that accept it (nginx's `gzip on`, and most servers).
    Gzip,
    /// brotli to clients that accept it, else gzip (most CDNs).
    BrotliOrGzip,
}

/// A document's bodies, compressed once before serving so that the server's CPU goes to
/// serving, not compressing (a CDN's cache, nginx's `gzip_static`).
#[derive(Debug)]
struct Compressed {
    gzip: Bytes,
    brotli: Option<Bytes>,
    /// The size of the uncompressed HTML.
    length: usize,
}

/// The site served compressed, every body compressed ahead.
#[derive(Debug)]
pub(crate) struct CompressedWebSite {
    site: WebSite,
    bodies: HashMap<WebPage, Compressed>,
    /// Whether pages carry `ETag` and `Last-Modified` (and are answered 304 on request).
    validators: bool,
    /// No body compressed ahead: each page is rendered and compressed (gzip at level 1) as it
    /// is asked for, which costs the server CPU but no memory (a million pages).
    live: bool,
}

impl CompressedWebSite {
    /// Compresses every document of `site` with `encodings`, on every core.
    pub(crate) fn new(site: WebSite, encodings: Encodings) -> CompressedWebSite {
        let documents = site.documents();
        let threads = std::thread::available_parallelism().map_or(2, std::num::NonZeroUsize::get);
        let chunk = documents.len().div_ceil(threads).max(1);
        let bodies = std::thread::scope(|scope| {
            let workers: Vec<_> = documents
                .chunks(chunk)
                .map(|part| {
                    scope.spawn(move || {
                        part.iter()
                            .map(|(document, _)| {
                                let html = site.render(*document);
                                let compressed = Compressed {
                                    gzip: Bytes::from(gzip(html.as_bytes())),
                                    brotli: (encodings == Encodings::BrotliOrGzip)
                                        .then(|| Bytes::from(brotli(html.as_bytes()))),
                                    length: html.len(),
                                };
                                (*document, compressed)
                            })
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            workers
                .into_iter()
                .flat_map(|worker| worker.join().unwrap_or_default())
                .collect()
        });
        CompressedWebSite {
            site,
            bodies,
            validators: false,
            live: false,
        }
    }

    /// The site with nothing compressed ahead (see `live`).
    pub(crate) fn live(site: WebSite) -> CompressedWebSite {
        CompressedWebSite {
            site,
            bodies: HashMap::new(),
            validators: false,
            live: true,
        }
    }

    /// The same site, its pages served with validators as nginx serves files: `Last-Modified`
    /// the file's time (up to thirty days before 2026-01-01, fixed per document) and the
    /// strong `ETag` `"MTIME-SIZE"` in hexadecimal, of the body sent (each encoding its own).
    pub(crate) fn with_validators(self) -> CompressedWebSite {
        CompressedWebSite {
            validators: true,
            ..self
        }
    }

    /// The body of `document` for a client that accepts `accept_encoding`: its encoding, and
    /// the precompressed bytes (none for the uncompressed page, rendered on request).
    fn encoded<'a>(
        &self,
        bodies: &'a Compressed,
        accept_encoding: &str,
    ) -> (Option<&'a Bytes>, Option<&'static str>) {
        match &bodies.brotli {
            Some(brotli) if accepts(accept_encoding, "br") => (Some(brotli), Some("br")),
            _ if accepts(accept_encoding, "gzip") => (Some(&bodies.gzip), Some("gzip")),
            _ => (None, None),
        }
    }
}

impl Routes for CompressedWebSite {
    fn reply(&self, path: &str, query: Option<&str>) -> Option<Reply> {
        self.reply_encoded(path, query, "")
    }

    /// Any query is answered with the page, as a static server does; the page names its
    /// canonical.
    fn reply_encoded(
        &self,
        path: &str,
        _query: Option<&str>,
        accept_encoding: &str,
    ) -> Option<Reply> {
        if let Some(asset) = crate::web_assets::asset(path) {
            return Some(asset);
        }
        let document = self.site.document(path)?;
        let Some(bodies) = self.bodies.get(&document) else {
            let html = self.live.then(|| self.site.render(document))?;
            return Some(if accepts(accept_encoding, "gzip") {
                html_reply(Bytes::from(fast_gzip(html.as_bytes())), Some("gzip"))
            } else {
                html_reply(Bytes::from(html), None)
            });
        };
        Some(match self.encoded(bodies, accept_encoding) {
            (Some(body), encoding) => html_reply(body.clone(), encoding),
            (None, _) => html_reply(Bytes::from(self.site.render(document)), None),
        })
    }

    fn validators(
        &self,
        path: &str,
        _query: Option<&str>,
        accept_encoding: &str,
    ) -> Option<Validators> {
        if !self.validators {
            return None;
        }
        let document = self.site.document(path)?;
        let bodies = self.bodies.get(&document)?;
        let size = match self.encoded(bodies, accept_encoding) {
            (Some(body), _) => body.len(),
            (None, _) => bodies.length,
        };
        let seed = match document {
            WebPage::Page(number) => number * 3,
            WebPage::Print(number) => number * 3 + 1,
            WebPage::Draft(number) => number * 3 + 2,
        };
        let last_modified = published(seed);
        Some(Validators {
            etag: format!("\"{last_modified:x}-{size:x}\""),
            last_modified,
        })
    }
}

/// A page of the site: `body`, in `content_encoding` when compressed.
fn html_reply(body: Bytes, content_encoding: Option<&'static str>) -> Reply {
    Reply {
        content_type: "text/html; charset=utf-8",
        body,
        content_encoding,
    }
}

/// Whether an `Accept-Encoding` value offers the encoding `name`.
fn accepts(accept_encoding: &str, name: &str) -> bool {
    accept_encoding
        .split(',')
        .any(|offered| offered.split(';').next().unwrap_or_default().trim() == name)
}

/// `data` gzipped at the usual level (6, nginx's and zlib's default).
pub(crate) fn gzip(data: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    let _ = encoder.write_all(data);
    encoder.finish().unwrap_or_default()
}

/// `data` gzipped fast (level 1), as a server compressing on the fly may.
fn fast_gzip(data: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    let _ = encoder.write_all(data);
    encoder.finish().unwrap_or_default()
}

/// `data` in brotli at quality 5, what servers compressing on the fly commonly use.
fn brotli(data: &[u8]) -> Vec<u8> {
    let mut compressed = Vec::new();
    {
        let mut encoder = brotli::CompressorWriter::new(&mut compressed, 4096, 5, 22);
        let _ = encoder.write_all(data);
    }
    compressed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn validators_are_given_on_request_and_name_the_body_sent() {
        let site = WebSite { pages: 30 };
        let plain = CompressedWebSite::new(site, Encodings::Gzip);
        assert!(
            plain
                .validators("/docs/install/1.html", None, "gzip")
                .is_none()
        );
        let served = plain.with_validators();
        let gzip = served
            .validators("/docs/install/1.html", None, "gzip, br")
            .unwrap_or_else(|| panic!("no validators"));
        let identity = served
            .validators("/docs/install/1.html", None, "")
            .unwrap_or_else(|| panic!("no validators"));
        assert_eq!(gzip.last_modified, identity.last_modified);
        assert_ne!(gzip.etag, identity.etag, "one tag per representation");
        let body = served
            .reply_encoded("/docs/install/1.html", None, "gzip")
            .map(|reply| reply.body.len())
            .unwrap_or_default();
        assert!(gzip.etag.ends_with(&format!("-{body:x}\"")), "{gzip:?}");
        assert_eq!(
            served.validators("/docs/install/1.html", Some("ref=related"), "gzip"),
            Some(gzip),
            "a query variant is the page"
        );
        assert!(
            served
                .validators("/docs/install/31.html", None, "")
                .is_none()
        );
    }
}
