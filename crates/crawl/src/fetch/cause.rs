//! Why a request got no response, as one cause a user can act on: [`FailureCause`],
//! classified once from the error the HTTP stack returned, by the types in its chain of
//! sources (reqwest's own flags, the address policy's refusal, rustls's errors, the socket's
//! `std::io::Error` kinds, hyper's errors), and put in words only when shown. The whole chain
//! goes to the debug log (`-vv`), where it is still needed to tell an odd failure apart.

use std::error::Error;
use std::fmt;
use std::io;
use std::time::Duration;

use url::Url;

use crate::address::PrivateAddress;

/// Why a request got no response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FailureCause {
    /// The host name does not resolve.
    UnknownHost {
        /// The name.
        host: String,
    },
    /// Nothing accepts connections at the address: the server is down, or on another port.
    ConnectionRefused {
        /// `host:port`.
        authority: String,
    },
    /// An https URL whose server does not answer in TLS: a plain HTTP port, most likely.
    NotTls {
        /// `host:port`.
        authority: String,
    },
    /// An http URL whose server does not answer in HTTP: a TLS port, most likely.
    NotHttp {
        /// `host:port`.
        authority: String,
    },
    /// The server's certificate is not accepted.
    Certificate {
        /// The host the certificate was presented for.
        host: String,
        /// What is wrong with it.
        problem: CertificateProblem,
        /// Whether the fetcher's settings are the crawl's options, so that the words can
        /// name `--cacert` and `--insecure`.
        options: bool,
    },
    /// The TLS handshake failed for another reason.
    Handshake {
        /// `host:port`.
        authority: String,
        /// What rustls said.
        detail: String,
    },
    /// A deadline passed.
    TimedOut {
        /// `host:port`.
        authority: String,
        /// Which deadline, and how long it was.
        deadline: Deadline,
        /// Whether the fetcher's settings are the crawl's options, so that the words can
        /// name `--connect-timeout` or `--timeout`.
        options: bool,
    },
    /// The server closed the connection before it answered.
    ClosedBeforeAnswer {
        /// `host:port`.
        authority: String,
    },
    /// The server reset the connection before it answered.
    ResetBeforeAnswer {
        /// `host:port`.
        authority: String,
    },
    /// The connection closed, or was reset, before the body ended.
    BodyCut {
        /// `host:port`.
        authority: String,
    },
    /// The body could not be decoded (a broken gzip, deflate or brotli stream).
    Undecodable {
        /// What the decoder said.
        detail: String,
    },
    /// The address policy refused the connection (docs/design.md, Safety).
    PrivateAddress(PrivateAddress),
    /// Anything else, as the HTTP stack said it (or as a store kept the words of a cause).
    Other {
        /// The error and its sources, on one line.
        detail: String,
    },
}

/// What is wrong with a certificate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CertificateProblem {
    /// No authority trusted here signed it: it is self-signed, or a private CA's.
    UnknownIssuer,
    /// Its validity ended.
    Expired,
    /// Its validity has not begun.
    NotYetValid,
    /// It names other hosts than the one asked for.
    WrongName {
        /// The names it holds, when rustls says them.
        presented: Vec<String>,
    },
    /// Its authority revoked it.
    Revoked,
    /// Anything else, as rustls said it.
    Other(String),
}

/// A deadline of a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Deadline {
    /// For the connection to be established (`--connect-timeout`).
    Connect(Duration),
    /// For the whole request, body included (`--timeout`).
    Request(Duration),
}

/// The deadlines a fetcher requests with, to say which one passed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Deadlines {
    pub connect: Duration,
    pub request: Duration,
    /// Whether they, and the fetcher's certificates, are the crawl's options.
    pub options: bool,
}

/// Which part of the exchange failed, as reqwest tells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Phase {
    /// Before any response: the connection, or the request and its response's head.
    BeforeAnswer,
    /// The body of a response.
    Body,
}

impl FailureCause {
    /// Whether asking again may get an answer: not when the port speaks another protocol or
    /// the certificate is refused, which no retry changes (and each retry would only delay
    /// the one line that says so). A name that does not resolve may: a resolver that fails
    /// for a moment says so in the same words.
    pub(crate) fn may_pass(&self) -> bool {
        !matches!(
            self,
            FailureCause::NotTls { .. }
                | FailureCause::NotHttp { .. }
                | FailureCause::Certificate { .. }
        )
    }

    /// The cause of `error`, for a request to `url` that failed in `phase`. A timeout is
    /// told apart by reqwest (its own deadlines); a name that does not resolve, by its
    /// resolver's error type; the rest by the first error of the chain that says why.
    pub(crate) fn of_reqwest(
        error: &reqwest::Error,
        url: &Url,
        phase: Phase,
        deadlines: &Deadlines,
    ) -> FailureCause {
        // reqwest names the URL of a failed request, but not of a failed body.
        let url = error.url().unwrap_or(url);
        if let Some(refused) = sources(error).find_map(|cause| cause.downcast_ref()) {
            return FailureCause::PrivateAddress(PrivateAddress::clone(refused));
        }
        if error.is_timeout() {
            // reqwest's connect deadline fails the connection; its request deadline, the
            // request around it.
            let deadline = if error.is_connect() {
                Deadline::Connect(deadlines.connect)
            } else {
                Deadline::Request(deadlines.request)
            };
            return FailureCause::TimedOut {
                authority: authority(url),
                deadline,
                options: deadlines.options,
            };
        }
        if error.is_dns() {
            return FailureCause::UnknownHost { host: host(url) };
        }
        if let Some(cause) = FailureCause::in_chain(error, url, phase, deadlines.options) {
            return cause;
        }
        let detail = error_chain(error);
        if error.is_decode() {
            FailureCause::Undecodable { detail }
        } else {
            FailureCause::Other { detail }
        }
    }

    /// The first error of `error`'s chain that says why a request to `url` failed, if one
    /// does.
    fn in_chain(
        error: &(dyn Error + 'static),
        url: &Url,
        phase: Phase,
        options: bool,
    ) -> Option<FailureCause> {
        sources(error).find_map(|cause| {
            if let Some(tls) = cause.downcast_ref::<rustls::Error>() {
                return Some(FailureCause::of_tls(tls, url, options));
            }
            if let Some(io) = cause.downcast_ref::<io::Error>() {
                return FailureCause::of_io(io.kind(), url, phase);
            }
            let hyper = cause.downcast_ref::<hyper::Error>()?;
            match phase {
                Phase::Body if hyper.is_incomplete_message() => Some(FailureCause::BodyCut {
                    authority: authority(url),
                }),
                Phase::BeforeAnswer if hyper.is_incomplete_message() => {
                    Some(FailureCause::ClosedBeforeAnswer {
                        authority: authority(url),
                    })
                }
                // What came back is not an HTTP response: over http://, the server speaks
                // something else (TLS, most often).
                Phase::BeforeAnswer if hyper.is_parse() && url.scheme() == "http" => {
                    Some(FailureCause::NotHttp {
                        authority: authority(url),
                    })
                }
                Phase::BeforeAnswer | Phase::Body => None,
            }
        })
    }

    /// A failed TLS handshake.
    fn of_tls(error: &rustls::Error, url: &Url, options: bool) -> FailureCause {
        match error {
            rustls::Error::InvalidCertificate(certificate) => FailureCause::Certificate {
                host: host(url),
                problem: CertificateProblem::of(certificate),
                options,
            },
            // The first bytes back are no TLS record: most likely `HTTP/1.1 400`, a plain
            // HTTP server's answer to a ClientHello.
            rustls::Error::InvalidMessage(rustls::InvalidMessage::InvalidContentType) => {
                FailureCause::NotTls {
                    authority: authority(url),
                }
            }
            other => FailureCause::Handshake {
                authority: authority(url),
                detail: other.to_string(),
            },
        }
    }

    /// A socket's failure, when its kind says why.
    fn of_io(kind: io::ErrorKind, url: &Url, phase: Phase) -> Option<FailureCause> {
        let authority = authority(url);
        Some(match (kind, phase) {
            (io::ErrorKind::ConnectionRefused, _) => FailureCause::ConnectionRefused { authority },
            (
                io::ErrorKind::ConnectionReset
                | io::ErrorKind::ConnectionAborted
                | io::ErrorKind::UnexpectedEof
                | io::ErrorKind::BrokenPipe,
                Phase::Body,
            ) => FailureCause::BodyCut { authority },
            (io::ErrorKind::ConnectionReset, Phase::BeforeAnswer) => {
                FailureCause::ResetBeforeAnswer { authority }
            }
            (
                io::ErrorKind::ConnectionAborted
                | io::ErrorKind::UnexpectedEof
                | io::ErrorKind::BrokenPipe,
                Phase::BeforeAnswer,
            ) => FailureCause::ClosedBeforeAnswer { authority },
            _ => return None,
        })
    }
}

impl CertificateProblem {
    fn of(error: &rustls::CertificateError) -> CertificateProblem {
        use rustls::CertificateError;
        match error {
            CertificateError::UnknownIssuer => CertificateProblem::UnknownIssuer,
            CertificateError::Expired | CertificateError::ExpiredContext { .. } => {
                CertificateProblem::Expired
            }
            CertificateError::NotValidYet | CertificateError::NotValidYetContext { .. } => {
                CertificateProblem::NotYetValid
            }
            CertificateError::NotValidForName => {
                CertificateProblem::WrongName { presented: vec![] }
            }
            CertificateError::NotValidForNameContext { presented, .. } => {
                CertificateProblem::WrongName {
                    presented: presented
                        .iter()
                        .filter_map(|name| presented_name(name))
                        .collect(),
                }
            }
            CertificateError::Revoked => CertificateProblem::Revoked,
            // rustls's enum is non-exhaustive: what it adds is said in its own words.
            other => CertificateProblem::Other(
                rustls::Error::InvalidCertificate(other.clone()).to_string(),
            ),
        }
    }
}

/// The host name or address of a name a certificate presents, as rustls gives it
/// (`DnsName("example.com")`, `IpAddress(192.0.2.1)`: the certificate parser's debug form,
/// the only form it has); `None` for names of other kinds.
fn presented_name(name: &str) -> Option<String> {
    let host = name
        .strip_prefix("DnsName(\"")
        .and_then(|rest| rest.strip_suffix("\")"))
        .or_else(|| {
            name.strip_prefix("IpAddress(")
                .and_then(|rest| rest.strip_suffix(')'))
        })?;
    Some(host.to_string())
}

/// The error, then each of its sources; the error an `std::io::Error` wraps comes next (its
/// own `source` skips it, as its message is the wrapped error's).
fn sources<'a>(
    error: &'a (dyn Error + 'static),
) -> impl Iterator<Item = &'a (dyn Error + 'static)> {
    std::iter::successors(Some(error), |&error| next_source(error))
}

/// The source of `error`, or the error an `std::io::Error` wraps.
fn next_source<'a>(error: &'a (dyn Error + 'static)) -> Option<&'a (dyn Error + 'static)> {
    match error
        .downcast_ref::<io::Error>()
        .and_then(io::Error::get_ref)
    {
        Some(wrapped) => Some(wrapped),
        None => error.source(),
    }
}

/// The host of `url`, as it names it.
fn host(url: &Url) -> String {
    url.host_str().unwrap_or("the server").to_string()
}

/// `host:port` of `url` (the scheme's port when it names none).
fn authority(url: &Url) -> String {
    match url.port_or_known_default() {
        Some(port) => format!("{}:{port}", host(url)),
        None => host(url),
    }
}

/// Seconds as a user typed them: `10`, `0.5`.
fn seconds(duration: Duration) -> String {
    duration.as_secs_f64().to_string()
}

impl fmt::Display for FailureCause {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FailureCause::UnknownHost { host } => {
                write!(formatter, "cannot resolve {host}: check the host name")
            }
            FailureCause::ConnectionRefused { authority } => write!(
                formatter,
                "{authority} refused the connection: check that the server is running and listens on that port"
            ),
            FailureCause::NotTls { authority } => write!(
                formatter,
                "{authority} does not speak TLS: try http://{authority}/"
            ),
            FailureCause::NotHttp { authority } => write!(
                formatter,
                "{authority} does not answer in HTTP: if it serves TLS, try https://{authority}/"
            ),
            FailureCause::Certificate {
                host,
                problem,
                options,
            } => {
                write!(formatter, "the certificate of {host} {problem}")?;
                match (options, problem) {
                    (false, _) => Ok(()),
                    (true, CertificateProblem::UnknownIssuer) => formatter.write_str(
                        ": give a private CA with --cacert FILE, or accept any certificate of a staging site with --insecure",
                    ),
                    (true, _) => formatter
                        .write_str(" (--insecure accepts it, for a staging site only)"),
                }
            }
            FailureCause::Handshake { authority, detail } => {
                write!(
                    formatter,
                    "the TLS handshake with {authority} failed: {detail}"
                )
            }
            FailureCause::TimedOut {
                authority,
                deadline,
                options,
            } => match (deadline, options) {
                (Deadline::Connect(limit), false) => write!(
                    formatter,
                    "no connection to {authority} within {} s",
                    seconds(*limit)
                ),
                (Deadline::Connect(limit), true) => write!(
                    formatter,
                    "no connection to {authority} within {0} s (--connect-timeout {0})",
                    seconds(*limit)
                ),
                (Deadline::Request(limit), false) => write!(
                    formatter,
                    "no complete answer from {authority} within {} s",
                    seconds(*limit)
                ),
                (Deadline::Request(limit), true) => write!(
                    formatter,
                    "no complete answer from {authority} within {0} s (--timeout {0})",
                    seconds(*limit)
                ),
            },
            FailureCause::ClosedBeforeAnswer { authority } => write!(
                formatter,
                "{authority} closed the connection before it answered: try again later, or see the server's error log"
            ),
            FailureCause::ResetBeforeAnswer { authority } => write!(
                formatter,
                "{authority} reset the connection before it answered: try again later, or see the server's error log"
            ),
            FailureCause::BodyCut { authority } => write!(
                formatter,
                "{authority} broke the connection before the body ended"
            ),
            FailureCause::Undecodable { detail } => {
                write!(formatter, "the body cannot be decoded: {detail}")
            }
            FailureCause::PrivateAddress(refused) => write!(formatter, "{refused}"),
            FailureCause::Other { detail } => formatter.write_str(detail),
        }
    }
}

impl fmt::Display for CertificateProblem {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CertificateProblem::UnknownIssuer => formatter.write_str(
                "is signed by no authority trusted here (self-signed, or a private CA's)",
            ),
            CertificateProblem::Expired => formatter.write_str("has expired"),
            CertificateProblem::NotYetValid => {
                formatter.write_str("is not valid yet (or this machine's clock is behind)")
            }
            CertificateProblem::WrongName { presented } if presented.is_empty() => {
                formatter.write_str("is for another name")
            }
            CertificateProblem::WrongName { presented } => {
                // The names are the server's: only what a host name may hold is shown.
                const SHOWN: usize = 3;
                let mut names: Vec<String> = presented
                    .iter()
                    .take(SHOWN)
                    .map(|name| printable_name(name))
                    .collect();
                if presented.len() > SHOWN {
                    names.push(format!("{} more", presented.len() - SHOWN));
                }
                write!(formatter, "is for another name ({})", names.join(", "))
            }
            CertificateProblem::Revoked => formatter.write_str("is revoked"),
            CertificateProblem::Other(detail) => write!(formatter, "is refused: {detail}"),
        }
    }
}

/// A name a certificate presents, with any character a host name or address cannot hold
/// replaced: it comes from the server, and ends up in logs and reports.
fn printable_name(name: &str) -> String {
    name.chars()
        .take(255)
        .map(|character| {
            if character.is_ascii_alphanumeric() || ".-*:[]_".contains(character) {
                character
            } else {
                '?'
            }
        })
        .collect()
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
#[path = "cause_tests.rs"]
mod tests;
