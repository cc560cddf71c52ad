//! What a program running crawls (a fleet's worker) learns of each request, for its metrics:
//! the class of the answer, the bytes of its body, or the cause of its failure.

use reqwest::StatusCode;

use super::cause::FailureCause;
use super::failure::FetchFailure;

/// Told of every request a fetcher makes, retries included: how it was answered, or why it
/// was not. Called on the crawl's tasks, so it must be quick (counters).
pub trait RequestObserver: Send + Sync + std::fmt::Debug {
    /// The request was answered with `status` and a body of `body_bytes` bytes read (none for
    /// a body not wanted).
    fn answered(&self, status: StatusCode, body_bytes: usize);
    /// The request got no answer, for `failure`'s cause ([`FailureCause::code`]).
    fn failed(&self, failure: &FetchFailure);
}

impl FailureCause {
    /// A stable word for the cause, the same for every host: a metric's label.
    pub fn code(&self) -> &'static str {
        match self {
            FailureCause::UnknownHost { .. } => "unknown-host",
            FailureCause::ConnectionRefused { .. } => "connection-refused",
            FailureCause::NotTls { .. } => "not-tls",
            FailureCause::NotHttp { .. } => "not-http",
            FailureCause::Certificate { .. } => "certificate",
            FailureCause::Handshake { .. } => "tls-handshake",
            FailureCause::TimedOut { .. } => "timeout",
            FailureCause::ClosedBeforeAnswer { .. } => "closed",
            FailureCause::ResetBeforeAnswer { .. } => "reset",
            FailureCause::BodyCut { .. } => "body-cut",
            FailureCause::Undecodable { .. } => "undecodable",
            FailureCause::PrivateAddress(_) => "private-address",
            FailureCause::Other { .. } => "other",
        }
    }
}
