//! Each cause, from the errors that say it, and in its words.

use std::net::SocketAddr;
use std::sync::Arc;

use reqwest::dns::{Name, Resolve, Resolving};
use rustls::CertificateError;
use rustls::pki_types::ServerName;

use super::*;
use crate::address::AddressPolicy;
use crate::fetch::failure::{FetchFailure, FetchFailureKind};
use crate::fetch::fetcher::client_builder;
use crate::network::NetworkOptions;

fn url(text: &str) -> Url {
    Url::parse(text).unwrap_or_else(|error| panic!("{error}"))
}

/// An error that wraps another, as hyper's and reqwest's do.
#[derive(Debug)]
struct Wrapping(Box<dyn Error + Send + Sync>);

impl fmt::Display for Wrapping {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("client error (Connect)")
    }
}

impl Error for Wrapping {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        Some(&*self.0)
    }
}

/// `error` as a TLS stream returns it: an `std::io::Error` around rustls's.
fn from_tls(error: rustls::Error) -> Wrapping {
    Wrapping(Box::new(io::Error::new(io::ErrorKind::InvalidData, error)))
}

fn from_socket(kind: io::ErrorKind) -> Wrapping {
    Wrapping(Box::new(io::Error::from(kind)))
}

#[test]
fn the_cause_is_the_first_error_of_the_chain_that_says_why() {
    let site = url("https://e.com/page");
    let authority = "e.com:443".to_string();
    let certificate = |problem| FailureCause::Certificate {
        host: "e.com".to_string(),
        problem,
        options: true,
    };
    let other_name = CertificateError::NotValidForNameContext {
        expected: ServerName::try_from("e.com").unwrap_or_else(|error| panic!("{error}")),
        presented: vec![
            "DnsName(\"other.example\")".to_string(),
            "IpAddress(192.0.2.1)".to_string(),
            "DirectoryName".to_string(),
        ],
    };
    for (error, phase, cause) in [
        (
            from_socket(io::ErrorKind::ConnectionRefused),
            Phase::BeforeAnswer,
            Some(FailureCause::ConnectionRefused {
                authority: authority.clone(),
            }),
        ),
        (
            from_socket(io::ErrorKind::ConnectionReset),
            Phase::BeforeAnswer,
            Some(FailureCause::ResetBeforeAnswer {
                authority: authority.clone(),
            }),
        ),
        (
            from_socket(io::ErrorKind::UnexpectedEof),
            Phase::BeforeAnswer,
            Some(FailureCause::ClosedBeforeAnswer {
                authority: authority.clone(),
            }),
        ),
        (
            from_socket(io::ErrorKind::ConnectionReset),
            Phase::Body,
            Some(FailureCause::BodyCut {
                authority: authority.clone(),
            }),
        ),
        (
            from_socket(io::ErrorKind::UnexpectedEof),
            Phase::Body,
            Some(FailureCause::BodyCut {
                authority: authority.clone(),
            }),
        ),
        (
            from_tls(rustls::Error::InvalidCertificate(
                CertificateError::UnknownIssuer,
            )),
            Phase::BeforeAnswer,
            Some(certificate(CertificateProblem::UnknownIssuer)),
        ),
        (
            from_tls(rustls::Error::InvalidCertificate(CertificateError::Expired)),
            Phase::BeforeAnswer,
            Some(certificate(CertificateProblem::Expired)),
        ),
        (
            from_tls(rustls::Error::InvalidCertificate(
                CertificateError::NotValidYet,
            )),
            Phase::BeforeAnswer,
            Some(certificate(CertificateProblem::NotYetValid)),
        ),
        (
            from_tls(rustls::Error::InvalidCertificate(other_name)),
            Phase::BeforeAnswer,
            Some(certificate(CertificateProblem::WrongName {
                presented: vec!["other.example".to_string(), "192.0.2.1".to_string()],
            })),
        ),
        (
            from_tls(rustls::Error::InvalidCertificate(CertificateError::Revoked)),
            Phase::BeforeAnswer,
            Some(certificate(CertificateProblem::Revoked)),
        ),
        (
            from_tls(rustls::Error::InvalidMessage(
                rustls::InvalidMessage::InvalidContentType,
            )),
            Phase::BeforeAnswer,
            Some(FailureCause::NotTls {
                authority: authority.clone(),
            }),
        ),
        (
            from_tls(rustls::Error::AlertReceived(
                rustls::AlertDescription::HandshakeFailure,
            )),
            Phase::BeforeAnswer,
            Some(FailureCause::Handshake {
                authority: authority.clone(),
                detail: "received fatal alert: HandshakeFailure".to_string(),
            }),
        ),
        // A socket error that says nothing a user can act on is left to the whole chain.
        (
            from_socket(io::ErrorKind::OutOfMemory),
            Phase::BeforeAnswer,
            None,
        ),
    ] {
        assert_eq!(
            FailureCause::in_chain(&error, &site, phase, true),
            cause,
            "{error:?}"
        );
    }
}

#[test]
fn each_cause_reads_as_one_line_that_says_what_to_do() {
    let authority = || "e.com:8080".to_string();
    let certificate = |problem, options| FailureCause::Certificate {
        host: "e.com".to_string(),
        problem,
        options,
    };
    let timed_out = |deadline, options| FailureCause::TimedOut {
        authority: authority(),
        deadline,
        options,
    };
    for (cause, words) in [
        (
            FailureCause::UnknownHost {
                host: "e.con".to_string(),
            },
            "cannot resolve e.con: check the host name",
        ),
        (
            FailureCause::ConnectionRefused {
                authority: authority(),
            },
            "e.com:8080 refused the connection: check that the server is running and listens on that port",
        ),
        (
            FailureCause::NotTls {
                authority: authority(),
            },
            "e.com:8080 does not speak TLS: try http://e.com:8080/",
        ),
        (
            FailureCause::NotHttp {
                authority: authority(),
            },
            "e.com:8080 does not answer in HTTP: if it serves TLS, try https://e.com:8080/",
        ),
        (
            certificate(CertificateProblem::UnknownIssuer, true),
            "the certificate of e.com is signed by no authority trusted here (self-signed, or a private CA's): give a private CA with --cacert FILE, or accept any certificate of a staging site with --insecure",
        ),
        (
            certificate(CertificateProblem::UnknownIssuer, false),
            "the certificate of e.com is signed by no authority trusted here (self-signed, or a private CA's)",
        ),
        (
            certificate(CertificateProblem::Expired, true),
            "the certificate of e.com has expired (--insecure accepts it, for a staging site only)",
        ),
        (
            certificate(CertificateProblem::NotYetValid, false),
            "the certificate of e.com is not valid yet (or this machine's clock is behind)",
        ),
        (
            certificate(
                CertificateProblem::WrongName {
                    presented: ["a.example", "b\u{1b}[31m.example", "c", "d"]
                        .map(String::from)
                        .to_vec(),
                },
                false,
            ),
            "the certificate of e.com is for another name (a.example, b?[31m.example, c, 1 more)",
        ),
        (
            certificate(CertificateProblem::Revoked, false),
            "the certificate of e.com is revoked",
        ),
        (
            timed_out(Deadline::Connect(Duration::from_millis(500)), true),
            "no connection to e.com:8080 within 0.5 s (--connect-timeout 0.5)",
        ),
        (
            timed_out(Deadline::Request(Duration::from_secs(30)), true),
            "no complete answer from e.com:8080 within 30 s (--timeout 30)",
        ),
        (
            timed_out(Deadline::Request(Duration::from_secs(60)), false),
            "no complete answer from e.com:8080 within 60 s",
        ),
        (
            FailureCause::ClosedBeforeAnswer {
                authority: authority(),
            },
            "e.com:8080 closed the connection before it answered: try again later, or see the server's error log",
        ),
        (
            FailureCause::BodyCut {
                authority: authority(),
            },
            "e.com:8080 broke the connection before the body ended",
        ),
    ] {
        assert_eq!(cause.to_string(), words);
    }
}

/// A resolver that knows no name, as a lookup of a name nobody registered ends.
#[derive(Debug)]
struct NoName;

impl Resolve for NoName {
    fn resolve(&self, _name: Name) -> Resolving {
        Box::pin(async {
            Err(Box::new(io::Error::new(
                io::ErrorKind::NotFound,
                "failed to lookup address information: Name or service not known",
            )) as Box<dyn Error + Send + Sync>)
        })
    }
}

/// A client as the fetcher's are built (TLS ready), for loopback addresses.
fn client() -> reqwest::ClientBuilder {
    let addresses = AddressPolicy {
        allow_private: true,
        ..AddressPolicy::default()
    };
    client_builder(&addresses, &NetworkOptions::default()).unwrap_or_else(|error| panic!("{error}"))
}

fn deadlines() -> Deadlines {
    Deadlines {
        connect: Duration::from_secs(10),
        request: Duration::from_secs(30),
        options: true,
    }
}

/// A name that does not resolve is told by reqwest's own error type. The resolver fails it
/// here, as the system's would: no lookup leaves the machine.
#[tokio::test]
async fn a_name_that_does_not_resolve_is_an_unknown_host() {
    let client = client()
        .dns_resolver(Arc::new(NoName))
        .build()
        .unwrap_or_else(|error| panic!("{error}"));
    let site = url("http://unregistered.example/");
    let Err(error) = client.get(site.clone()).send().await else {
        panic!("a name that does not resolve was reached");
    };
    let failure = FetchFailure::from_reqwest(&error, &site, Phase::BeforeAnswer, &deadlines());
    assert_eq!(failure.kind(), FetchFailureKind::Connect);
    assert_eq!(
        failure.to_string(),
        "cannot resolve unregistered.example: check the host name"
    );
}

/// What reqwest returns for a port where nothing listens, and for a server that closes the
/// connection on the request, each on 127.0.0.1.
#[tokio::test]
async fn a_refused_or_closed_connection_is_told_from_what_reqwest_returns() {
    let refusing: SocketAddr = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .unwrap_or_else(|error| panic!("{error}"));
    let closing = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    let closing_address = closing
        .local_addr()
        .unwrap_or_else(|error| panic!("{error}"));
    tokio::spawn(async move {
        use tokio::io::AsyncReadExt;
        while let Ok((mut stream, _)) = closing.accept().await {
            let mut request = [0u8; 4096];
            let _ = stream.read(&mut request).await;
        }
    });
    let client = client().build().unwrap_or_else(|error| panic!("{error}"));
    for (address, kind, words) in [
        (
            refusing,
            FetchFailureKind::Connect,
            format!(
                "{refusing} refused the connection: check that the server is running and listens on that port"
            ),
        ),
        (
            closing_address,
            FetchFailureKind::Connect,
            format!(
                "{closing_address} closed the connection before it answered: try again later, or see the server's error log"
            ),
        ),
    ] {
        let site = url(&format!("http://{address}/"));
        let Err(error) = client.get(site.clone()).send().await else {
            panic!("{site} answered");
        };
        let failure = FetchFailure::from_reqwest(&error, &site, Phase::BeforeAnswer, &deadlines());
        assert_eq!((failure.kind(), failure.to_string()), (kind, words));
    }
}

#[test]
fn only_what_a_retry_can_change_is_retried() {
    let authority = || "127.0.0.1:8080".to_string();
    let settled = [
        FailureCause::NotTls {
            authority: authority(),
        },
        FailureCause::NotHttp {
            authority: authority(),
        },
        FailureCause::Certificate {
            host: "127.0.0.1".to_string(),
            problem: CertificateProblem::Expired,
            options: true,
        },
    ];
    for cause in settled {
        let failure = FetchFailure::new(FetchFailureKind::Connect, cause.clone());
        assert!(!failure.is_transient(), "{cause:?} is not asked again");
    }
    let passing = [
        FailureCause::UnknownHost {
            host: "nonexistent.invalid".to_string(),
        },
        FailureCause::ConnectionRefused {
            authority: authority(),
        },
        FailureCause::ClosedBeforeAnswer {
            authority: authority(),
        },
        FailureCause::ResetBeforeAnswer {
            authority: authority(),
        },
    ];
    for cause in passing {
        let failure = FetchFailure::new(FetchFailureKind::Connect, cause.clone());
        assert!(failure.is_transient(), "{cause:?} may pass on a retry");
    }
}
