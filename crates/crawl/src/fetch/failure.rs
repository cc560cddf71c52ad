//! Why a fetch gave nothing to read, as types: [`FetchFailure`] when a request got no
//! response at all (its kind a stable code the crawl database keeps, beside its cause in
//! words), [`FetchError`] when a chain of redirects ended without the body asked for.

use std::fmt;

use reqwest::StatusCode;
use url::Url;

use super::cause::{Deadlines, FailureCause, Phase, error_chain};
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

/// Why a request got no response: its kind (whether to try again, and the code a store
/// keeps) and its cause (what the crawl database, reports and error lines show, in words).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FetchFailure {
    kind: FetchFailureKind,
    cause: FailureCause,
}

impl FetchFailure {
    /// A failure of `kind`, for `cause`.
    pub fn new(kind: FetchFailureKind, cause: FailureCause) -> FetchFailure {
        FetchFailure { kind, cause }
    }

    /// The kind of failure.
    pub fn kind(&self) -> FetchFailureKind {
        self.kind
    }

    /// Why, as a type.
    pub fn cause(&self) -> &FailureCause {
        &self.cause
    }

    /// The failure in words: its cause, and what to do about it when the user can.
    pub fn message(&self) -> String {
        self.cause.to_string()
    }

    /// The address policy's refusal as a failure.
    pub(crate) fn refused(refusal: &PrivateAddress) -> FetchFailure {
        FetchFailure::new(
            FetchFailureKind::Refused,
            FailureCause::PrivateAddress(refusal.clone()),
        )
    }

    /// The failure of a request to `url` that reqwest returned, `phase` saying whether its
    /// response had begun. The whole chain of errors goes to the debug log; the failure
    /// keeps its cause.
    pub(crate) fn from_reqwest(
        error: &reqwest::Error,
        url: &Url,
        phase: Phase,
        deadlines: &Deadlines,
    ) -> FetchFailure {
        let cause = FailureCause::of_reqwest(error, url, phase, deadlines);
        tracing::debug!(%url, error = error_chain(error), "request failed");
        let kind = if matches!(cause, FailureCause::PrivateAddress(_)) {
            FetchFailureKind::Refused
        } else if error.is_timeout() {
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
        FetchFailure::new(kind, cause)
    }

    /// Whether the failure may pass by itself, so that a later run gets an answer: a
    /// timeout, a connection refused, reset or closed, a body cut short, a name that did not
    /// resolve; not an address refused, a certificate or another protocol.
    pub fn may_pass(&self) -> bool {
        matches!(
            self.kind,
            FetchFailureKind::Timeout | FetchFailureKind::Connect | FetchFailureKind::Body
        ) && self.cause.may_pass()
    }

    /// Whether trying again may get a response: a timeout or a failed connection.
    pub(crate) fn is_transient(&self) -> bool {
        matches!(
            self.kind,
            FetchFailureKind::Timeout | FetchFailureKind::Connect
        ) && self.cause.may_pass()
    }
}

impl fmt::Display for FetchFailure {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(formatter, "{}", self.cause)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failure_reads_as_its_cause_and_keeps_its_kind() {
        let cause = FailureCause::ConnectionRefused {
            authority: "e.com:443".to_string(),
        };
        let failure = FetchFailure::new(FetchFailureKind::Connect, cause.clone());
        assert_eq!(failure.kind(), FetchFailureKind::Connect);
        assert_eq!(failure.cause(), &cause);
        assert_eq!(failure.to_string(), cause.to_string());
        assert_eq!(failure.message(), cause.to_string());
        assert!(failure.is_transient());
        let refused = FetchFailure::refused(&PrivateAddress {
            host: "intranet".to_string(),
            address: std::net::IpAddr::from([10, 0, 0, 1]),
        });
        assert_eq!(refused.kind(), FetchFailureKind::Refused);
        assert_eq!(
            refused.to_string(),
            "intranet is on a private network (10.0.0.1); not connecting (--allow-private allows it)"
        );
        assert!(!refused.is_transient());
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
