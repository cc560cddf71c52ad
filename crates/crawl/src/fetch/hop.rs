//! One hop of a chain as the fetcher sees it: how it is requested ([`HopRequest`]: its method,
//! the body wanted back, the validators of a conditional GET) and the response it got
//! ([`FetchedResponse`]).

use std::time::Duration;

use jiff::Timestamp;
use reqwest::StatusCode;
use reqwest::header::{self, HeaderMap};

/// Which bodies are worth reading, and how much of them. Others are not downloaded at all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BodyWanted {
    /// 200 responses with an HTML content type (pages), up to the given cap.
    Html200 { cap: usize },
    /// Any 2xx response, whatever its type (robots.txt, sitemaps), up to the given cap.
    AnySuccess { cap: usize },
    /// None: the status says it all.
    Nothing,
}

impl BodyWanted {
    /// The most bytes of a body read.
    pub(crate) fn cap(self) -> Option<usize> {
        match self {
            BodyWanted::Html200 { cap } | BodyWanted::AnySuccess { cap } => Some(cap),
            BodyWanted::Nothing => None,
        }
    }
}

/// The validators of a conditional request (RFC 9110 section 13).
#[derive(Debug, Clone, Default)]
pub(crate) struct Validators {
    pub etag: Option<String>,
    pub last_modified: Option<Timestamp>,
}

/// What one hop of a chain sends.
#[derive(Debug, Clone)]
pub(crate) enum Method {
    Get,
    /// The head of a GET without its body (RFC 9110 section 9.3.2): a link's check.
    Head,
    /// A body of `content_type`.
    Post {
        content_type: String,
        body: Vec<u8>,
    },
}

/// How one hop is requested: its method, the body wanted back, and the validators of a
/// conditional GET.
#[derive(Debug, Clone)]
pub(crate) struct HopRequest {
    pub method: Method,
    pub wanted: BodyWanted,
    pub validators: Option<Validators>,
}

impl HopRequest {
    /// A GET reading the body `wanted`.
    pub(crate) fn get(wanted: BodyWanted) -> HopRequest {
        HopRequest {
            method: Method::Get,
            wanted,
            validators: None,
        }
    }
}

/// A response as far as the crawl cares.
#[derive(Debug)]
pub(crate) struct FetchedResponse {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: Vec<u8>,
    pub truncated: bool,
    pub fetched_at: Timestamp,
    /// From sending the request to the end of its body (or of its headers, when the body is
    /// not read).
    pub elapsed: Duration,
    /// From sending the request to its response headers: how long the server took.
    pub time_to_headers: Duration,
}

impl FetchedResponse {
    pub(crate) fn header(&self, name: header::HeaderName) -> Option<String> {
        self.headers
            .get(name)
            .and_then(|value| value.to_str().ok())
            .map(str::to_string)
    }

    pub(crate) fn header_values(&self, name: header::HeaderName) -> Vec<String> {
        self.headers
            .get_all(name)
            .iter()
            .filter_map(|value| value.to_str().ok())
            .map(str::to_string)
            .collect()
    }
}

/// `text/html` or `application/xhtml+xml`, any case, with or without parameters.
pub(crate) fn is_html_content_type(content_type: &str) -> bool {
    let essence = content_type.split(';').next().unwrap_or_default().trim();
    essence.eq_ignore_ascii_case("text/html")
        || essence.eq_ignore_ascii_case("application/xhtml+xml")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn html_content_types() {
        for (content_type, expected) in [
            ("text/html", true),
            ("TEXT/HTML; charset=UTF-8", true),
            ("application/xhtml+xml", true),
            (" text/html ;charset=x", true),
            ("text/plain", false),
            ("application/pdf", false),
            ("text/htmlx", false),
            ("", false),
        ] {
            assert_eq!(
                is_html_content_type(content_type),
                expected,
                "{content_type}"
            );
        }
    }
}
