//! Misbehaviour: what the chaos server does with one request, the bytes it writes, and what a
//! client can take from them.

use std::fmt;

use jiff::Timestamp;

use super::SEED_FAILS_IN_RUN;
use super::site::{Page, Resource, draw, is_noindex, key};

/// What the server does with one request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Behaviour {
    /// Answers as the site is, and keeps the connection for the next request.
    Serve,
    /// Reads the request and never answers, until the client gives up (the server drops the
    /// connection after a few seconds in any case).
    Stall,
    /// Closes with SO_LINGER 0 right after reading the request: a TCP RST, no response.
    Reset,
    /// Closes right after reading the request (FIN), no response.
    HangUp,
    /// Declares the page's length, sends part of it, and closes.
    Truncate,
    /// Declares fewer bytes than it sends, with `Connection: close`, and closes: the client
    /// takes the declared prefix as the whole page, and no later response is poisoned.
    LongerThanDeclared,
    /// Sends the HTML page as `application/octet-stream`.
    HtmlAsOctetStream,
    /// Sends binary junk as `text/html`.
    JunkAsHtml,
    /// 503 Service Unavailable, a status the crawler retries.
    Unavailable,
}

impl Behaviour {
    /// The behaviour for the request numbered `attempt` (from 0) for `path` in `run`.
    pub(super) fn choose(run: u64, path: &str, attempt: u64, resource: &Resource) -> Behaviour {
        if matches!(resource, Resource::Robots) {
            return Behaviour::Serve;
        }
        if path == "/" {
            return if run == SEED_FAILS_IN_RUN {
                Behaviour::Reset
            } else {
                Behaviour::Serve
            };
        }
        let behaviour = match draw(&[run, key(path), attempt, key("behaviour")]) % 100 {
            0..5 => Behaviour::Stall,
            5..11 => Behaviour::Reset,
            11..16 => Behaviour::HangUp,
            16..23 => Behaviour::Truncate,
            23..30 => Behaviour::LongerThanDeclared,
            30..37 => Behaviour::HtmlAsOctetStream,
            37..44 => Behaviour::JunkAsHtml,
            44..50 => Behaviour::Unavailable,
            _ => Behaviour::Serve,
        };
        // Only a page has a body to cut short or to mislabel.
        let page_only = matches!(
            behaviour,
            Behaviour::Truncate
                | Behaviour::LongerThanDeclared
                | Behaviour::HtmlAsOctetStream
                | Behaviour::JunkAsHtml
        );
        if page_only && !matches!(resource, Resource::Page(_)) {
            Behaviour::Serve
        } else {
            behaviour
        }
    }

    /// Whether the crawler retries after this (docs/rules.md, Politeness: timeouts, connection
    /// errors, a connection reset or closed before any response, 429, 502, 503 and 504, but
    /// not a body cut short).
    pub(super) fn is_retried(self) -> bool {
        match self {
            Behaviour::Stall | Behaviour::Unavailable | Behaviour::Reset | Behaviour::HangUp => {
                true
            }
            Behaviour::Serve
            | Behaviour::Truncate
            | Behaviour::LongerThanDeclared
            | Behaviour::HtmlAsOctetStream
            | Behaviour::JunkAsHtml => false,
        }
    }
}

/// What a client can take from one response: the oracle's only input.
#[derive(Debug, Clone)]
pub(super) enum Delivered {
    /// A complete 200 response with an HTML content type; `body` is what the client read.
    Html {
        body: Vec<u8>,
        last_modified: Timestamp,
    },
    /// A complete 200 response of another content type, with the `Last-Modified` it carried.
    NotHtml {
        last_modified: Option<Timestamp>,
    },
    Redirect {
        location: String,
    },
    /// Any other complete response.
    Status(u16),
    /// No complete response: a stall, a reset, a body cut short.
    Nothing,
}

impl fmt::Display for Delivered {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Delivered::Html {
                body,
                last_modified,
            } => write!(
                formatter,
                "200 html, {} bytes{}, Last-Modified {}",
                body.len(),
                if is_noindex(body) { ", noindex" } else { "" },
                http_date(*last_modified)
            ),
            Delivered::NotHtml { .. } => write!(formatter, "200 not html"),
            Delivered::Redirect { location } => write!(formatter, "redirect to {location}"),
            Delivered::Status(status) => write!(formatter, "{status}"),
            Delivered::Nothing => write!(formatter, "no complete response"),
        }
    }
}

/// How the connection goes on after the bytes of a reply are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Ending {
    KeepAlive,
    Close,
    Reset,
    Stall,
}

/// The bytes for the wire, how the connection ends, and what the client gets from it.
#[derive(Debug)]
pub(super) struct Reply {
    pub wire: Vec<u8>,
    pub ending: Ending,
    pub delivered: Delivered,
}

impl Reply {
    fn silent(ending: Ending) -> Reply {
        Reply {
            wire: Vec::new(),
            ending,
            delivered: Delivered::Nothing,
        }
    }

    /// A complete response on a connection that stays open.
    fn complete(
        status: u16,
        headers: &[(&str, String)],
        body: &[u8],
        delivered: Delivered,
    ) -> Reply {
        Reply {
            wire: response(status, headers, body.len(), body),
            ending: Ending::KeepAlive,
            delivered,
        }
    }

    /// What the server sends for `resource` when it behaves as `behaviour`; `keys` draw the
    /// lengths and the junk.
    pub(super) fn new(resource: &Resource, behaviour: Behaviour, keys: &[u64]) -> Reply {
        let html = || ("Content-Type", "text/html; charset=utf-8".to_string());
        match (behaviour, resource) {
            (Behaviour::Stall, _) => Reply::silent(Ending::Stall),
            (Behaviour::Reset, _) => Reply::silent(Ending::Reset),
            (Behaviour::HangUp, _) => Reply::silent(Ending::Close),
            (Behaviour::Unavailable, _) => {
                Reply::complete(503, &[html()], b"<p>busy</p>", Delivered::Status(503))
            }
            (_, Resource::Page(page)) => Reply::page(page, behaviour, keys),
            (_, Resource::Redirect { status, location }) => Reply::complete(
                *status,
                &[("Location", location.clone())],
                b"",
                Delivered::Redirect {
                    location: location.clone(),
                },
            ),
            (_, Resource::Robots) => Reply::complete(
                200,
                &[("Content-Type", "text/plain".to_string())],
                b"User-agent: *\nAllow: /\n",
                Delivered::NotHtml {
                    last_modified: None,
                },
            ),
            (_, Resource::Missing) => {
                Reply::complete(404, &[html()], b"<p>not found</p>", Delivered::Status(404))
            }
        }
    }

    fn page(page: &Page, behaviour: Behaviour, keys: &[u64]) -> Reply {
        let body = page.html();
        let last_modified = ("Last-Modified", http_date(page.last_modified));
        let html = ("Content-Type", "text/html; charset=utf-8".to_string());
        let delivered = |body: &[u8]| Delivered::Html {
            body: body.to_vec(),
            last_modified: page.last_modified,
        };
        let cut = usize::try_from(draw(keys) % (body.len() as u64 - 1)).unwrap() + 1;
        match behaviour {
            Behaviour::Truncate => Reply {
                wire: response(200, &[html, last_modified], body.len(), &body[..cut]),
                ending: Ending::Close,
                delivered: Delivered::Nothing,
            },
            Behaviour::LongerThanDeclared => Reply {
                wire: response(
                    200,
                    &[html, last_modified, ("Connection", "close".to_string())],
                    cut,
                    &body,
                ),
                ending: Ending::Close,
                delivered: delivered(&body[..cut]),
            },
            Behaviour::HtmlAsOctetStream => {
                let octets = ("Content-Type", "application/octet-stream".to_string());
                let delivered = Delivered::NotHtml {
                    last_modified: Some(page.last_modified),
                };
                Reply::complete(200, &[octets, last_modified], &body, delivered)
            }
            Behaviour::JunkAsHtml => {
                let junk = junk(keys);
                Reply::complete(200, &[html, last_modified], &junk, delivered(&junk))
            }
            _ => Reply::complete(200, &[html, last_modified], &body, delivered(&body)),
        }
    }
}

/// An HTTP/1.1 response that declares `content_length` and carries `body`, whatever its length.
fn response(
    status: u16,
    headers: &[(&str, String)],
    content_length: usize,
    body: &[u8],
) -> Vec<u8> {
    let mut head = format!("HTTP/1.1 {status} {}\r\n", reason_phrase(status));
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str(&format!("Content-Length: {content_length}\r\n\r\n"));
    let mut wire = head.into_bytes();
    wire.extend_from_slice(body);
    wire
}

fn reason_phrase(status: u16) -> &'static str {
    match status {
        200 => "OK",
        301 => "Moved Permanently",
        302 => "Found",
        307 => "Temporary Redirect",
        404 => "Not Found",
        503 => "Service Unavailable",
        _ => "Unknown",
    }
}

/// 64 to 319 bytes of binary junk. No `<` or `&`: junk holds no markup, so it has neither
/// links nor robots directives, whatever a parser makes of it.
fn junk(keys: &[u64]) -> Vec<u8> {
    let length = 64 + draw(keys) % 256;
    (0..length)
        .map(|index| {
            let mut byte_keys = keys.to_vec();
            byte_keys.push(index);
            let byte = draw(&byte_keys).to_le_bytes()[0];
            if matches!(byte, b'<' | b'&') { 0 } else { byte }
        })
        .collect()
}

/// IMF-fixdate (RFC 9110 section 5.6.7).
pub(super) fn http_date(time: Timestamp) -> String {
    time.strftime("%a, %d %b %Y %H:%M:%S GMT").to_string()
}

/// W3C Datetime as the sitemap writes it.
pub(super) fn w3c_datetime(time: Timestamp) -> String {
    time.strftime("%Y-%m-%dT%H:%M:%S+00:00").to_string()
}
