//! Why a fetch gave nothing to read, as types: [`FetchFailure`] when a request got no
//! response at all (its kind a stable code the crawl database keeps, beside its message in
//! words), [`FetchError`] when a chain of redirects ended without the body asked for.

use std::fmt;

use reqwest::StatusCode;

use crate::address::PrivateAddress;

/// What kind of failure left a request without a response.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FetchFailureKind {
    /// The connection or the whole request took longer than its deadline.
    Timeout,
    /// No connection, or it closed before any response came.
    Connect,
    /// The response began, and its body could not be read (or decoded) to its end.
    Body,
    /// Any other failure of the request.
    Other,
    /// The address policy refused the connection (docs/design.md, Safety).
    Refused,
}

impl FetchFailureKind {
    /// Every kind, in declaration order.
    pub const ALL: [FetchFailureKind; 5] = [
        FetchFailureKind::Timeout,
        FetchFailureKind::Connect,
        FetchFailureKind::Body,
        FetchFailureKind::Other,
        FetchFailureKind::Refused,
    ];

    /// The stable code a store keeps for the kind.
    pub fn code(self) -> &'static str {
        match self {
            FetchFailureKind::Timeout => "timeout",
            FetchFailureKind::Connect => "connect",
            FetchFailureKind::Body => "body",
            FetchFailureKind::Other => "other",
            FetchFailureKind::Refused => "refused",
        }
    }

    /// The kind of a code [`Self::code`] gave.
    pub fn from_code(code: &str) -> Option<FetchFailureKind> {
        FetchFailureKind::ALL
            .into_iter()
            .find(|kind| kind.code() == code)
    }
}

/// Why a request got no response: its kind, and its message in words (the kind's, and what
/// the HTTP stack said: `connection failed: ...`; for a refused address, the policy's
/// refusal), which is what the crawl database and reports show.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FetchFailure {
    kind: FetchFailureKind,
    message: String,
}

impl FetchFailure {
    /// A failure of `kind` whose message is `message`, as [`Self::message`] gave it (read
    /// back from a store).
    pub fn new(kind: FetchFailureKind, message: impl Into<String>) -> FetchFailure {
        FetchFailure {
            kind,
            message: message.into(),
        }
    }

    /// A failure of `kind`, with `detail` from the HTTP stack after the kind's words.
    pub(crate) fn of(kind: FetchFailureKind, detail: &str) -> FetchFailure {
        let message = match kind {
            FetchFailureKind::Timeout => "timed out".to_string(),
            FetchFailureKind::Connect => format!("connection failed: {detail}"),
            FetchFailureKind::Body => format!("reading the body failed: {detail}"),
            FetchFailureKind::Other => format!("request failed: {detail}"),
            FetchFailureKind::Refused => detail.to_string(),
        };
        FetchFailure::new(kind, message)
    }

    /// The kind of failure.
    pub fn kind(&self) -> FetchFailureKind {
        self.kind
    }

    /// The failure in words.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The address policy's refusal as a failure.
    pub(crate) fn refused(refusal: &PrivateAddress) -> FetchFailure {
        FetchFailure::of(FetchFailureKind::Refused, &refusal.to_string())
    }

    pub(crate) fn from_reqwest(error: &reqwest::Error) -> FetchFailure {
        if let Some(refused) = refusal_in(error) {
            return FetchFailure::refused(&refused);
        }
        let kind = if error.is_timeout() {
            FetchFailureKind::Timeout
        } else if error.is_connect() || error.is_request() {
            // A connection reset or closed before any response came (a kept-alive
            // connection the server dropped, a server that restarts) is as transient as a
            // failed connect, and a GET is safe to send again (RFC 9110 section 9.2.2).
            FetchFailureKind::Connect
        } else if error.is_body() || error.is_decode() {
            FetchFailureKind::Body
        } else {
            FetchFailureKind::Other
        };
        FetchFailure::of(kind, &error_chain(error))
    }

    /// Whether trying again may get a response: a timeout or a failed connection.
    pub(crate) fn is_transient(&self) -> bool {
        matches!(
            self.kind,
            FetchFailureKind::Timeout | FetchFailureKind::Connect
        )
    }
}

impl fmt::Display for FetchFailure {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(&self.message)
    }
}

impl std::error::Error for FetchFailure {}

/// Why a fetch through redirects ([`crate::Fetcher::get`], [`crate::Fetcher::post`]) gave
/// no body.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FetchError {
    /// A request of the chain got no response.
    #[error("{0}")]
    Failed(FetchFailure),
    /// A redirect without a `Location` that names an http(s) URL.
    #[error("answered {status} without a usable Location")]
    UnusableRedirect {
        /// The redirect's status.
        status: StatusCode,
    },
    /// More redirects in a row than the fetcher follows.
    #[error("too many redirects")]
    TooManyRedirects,
    /// The chain ended on a status other than 2xx.
    #[error("answered {0}")]
    Status(StatusCode),
    /// The body is longer than the cap it was read with.
    #[error("larger than {cap} bytes")]
    TooLarge {
        /// The most bytes read.
        cap: u64,
    },
}

/// The address policy's refusal, when that is why the connection failed.
fn refusal_in(error: &(dyn std::error::Error + 'static)) -> Option<PrivateAddress> {
    let mut source = error.source();
    while let Some(cause) = source {
        if let Some(refused) = cause.downcast_ref::<PrivateAddress>() {
            return Some(refused.clone());
        }
        source = cause.source();
    }
    None
}

/// The error and its sources on one line (a source whose words the line holds already is
/// not repeated): reqwest's own message alone rarely says why.
pub fn error_chain(error: &(dyn std::error::Error + 'static)) -> String {
    let mut message = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let text = cause.to_string();
        if !message.contains(&text) {
            message.push_str(": ");
            message.push_str(&text);
        }
        source = cause.source();
    }
    message
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_read_as_the_crawl_database_shows_them() {
        for (kind, detail, shown) in [
            (FetchFailureKind::Timeout, "", "timed out"),
            (
                FetchFailureKind::Connect,
                "tcp connect error",
                "connection failed: tcp connect error",
            ),
            (
                FetchFailureKind::Body,
                "unexpected end",
                "reading the body failed: unexpected end",
            ),
            (
                FetchFailureKind::Other,
                "builder error",
                "request failed: builder error",
            ),
            (
                FetchFailureKind::Refused,
                "10.0.0.1 is on a private network",
                "10.0.0.1 is on a private network",
            ),
        ] {
            let failure = FetchFailure::of(kind, detail);
            assert_eq!(failure.to_string(), shown);
            assert_eq!(FetchFailure::new(kind, shown), failure, "{shown}");
        }
    }

    #[test]
    fn every_kind_comes_back_from_its_code() {
        for kind in FetchFailureKind::ALL {
            assert_eq!(FetchFailureKind::from_code(kind.code()), Some(kind));
        }
        assert_eq!(FetchFailureKind::from_code("fetch-error"), None);
    }

    #[test]
    fn errors_of_a_chain_read_as_before() {
        assert_eq!(
            FetchError::Status(StatusCode::NOT_FOUND).to_string(),
            "answered 404 Not Found"
        );
        assert_eq!(
            FetchError::UnusableRedirect {
                status: StatusCode::FOUND
            }
            .to_string(),
            "answered 302 Found without a usable Location"
        );
        assert_eq!(
            FetchError::TooLarge { cap: 52_428_800 }.to_string(),
            "larger than 52428800 bytes"
        );
    }
}
