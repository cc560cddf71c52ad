//! Why the queue could not be reached, in words a user can act on: a wrong password, a
//! database that does not exist, nothing listening, a host name unknown, a failed TLS
//! handshake, a timeout. tokio-postgres says only "db error" or "error connecting to server"
//! and keeps the cause in its source; it is read from there, with PostgreSQL's own message
//! where it says more. Nothing here holds the password: PostgreSQL's messages name the user,
//! never the password, and the URL is not part of any.

use std::error::Error as _;
use std::fmt;
use std::io;

use tokio_postgres::error::SqlState;

/// Why a connection to the queue failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConnectCause {
    /// The server refused the user or the password (SQLSTATE 28P01, 28000).
    Authentication {
        /// PostgreSQL's message (`password authentication failed for user "..."`).
        message: String,
    },
    /// The database of the URL does not exist (SQLSTATE 3D000).
    NoDatabase {
        /// PostgreSQL's message (`database "..." does not exist`).
        message: String,
    },
    /// Nothing listens at the host and port.
    Refused,
    /// The host name resolves to no address.
    HostNotFound {
        /// The host, as the URL names it.
        host: String,
    },
    /// The TLS handshake failed.
    Tls {
        /// What went wrong.
        message: String,
    },
    /// The server did not answer in time.
    Timeout,
    /// Another error of PostgreSQL's, with its code.
    Database {
        /// The SQLSTATE.
        code: String,
        /// PostgreSQL's message.
        message: String,
    },
    /// Anything else, as the driver says it with its causes.
    Other {
        /// The error and its causes, joined.
        message: String,
    },
}

impl fmt::Display for ConnectCause {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConnectCause::Authentication { message } => write!(
                formatter,
                "authentication failed ({message}): check the user and password of the URL"
            ),
            ConnectCause::NoDatabase { message } => write!(
                formatter,
                "{message}: create it (CREATE DATABASE), or name an existing one in the URL"
            ),
            ConnectCause::Refused => formatter.write_str(
                "connection refused: is PostgreSQL running, and listening on that host and port?",
            ),
            ConnectCause::HostNotFound { host } => write!(formatter, "host {host:?} not found"),
            ConnectCause::Tls { message } => write!(formatter, "TLS failed: {message}"),
            ConnectCause::Timeout => formatter.write_str("timed out: the server did not answer"),
            ConnectCause::Database { code, message } => {
                write!(formatter, "{message} (SQLSTATE {code})")
            }
            ConnectCause::Other { message } => formatter.write_str(message),
        }
    }
}

impl ConnectCause {
    /// The cause of `error`, a failed connection to `host` (a TCP host name, or none for a
    /// socket), whose lookup is tried again to tell an unknown host from other failures.
    pub(super) async fn of(error: &tokio_postgres::Error, host: Option<&str>) -> ConnectCause {
        if let Some(database) = error.as_db_error() {
            let message = database.message().to_string();
            let code = database.code();
            return if *code == SqlState::INVALID_PASSWORD
                || *code == SqlState::INVALID_AUTHORIZATION_SPECIFICATION
            {
                ConnectCause::Authentication { message }
            } else if *code == SqlState::INVALID_CATALOG_NAME {
                ConnectCause::NoDatabase { message }
            } else {
                ConnectCause::Database {
                    code: code.code().to_string(),
                    message,
                }
            };
        }
        if sources(error).any(|source| source.is::<rustls::Error>()) {
            return ConnectCause::Tls {
                message: chain(error),
            };
        }
        if let Some(io_error) = sources(error).find_map(|source| source.downcast_ref::<io::Error>())
        {
            match io_error.kind() {
                io::ErrorKind::ConnectionRefused => return ConnectCause::Refused,
                io::ErrorKind::TimedOut => return ConnectCause::Timeout,
                _ => {}
            }
            // The driver's lookup failed, or something after it: a lookup of our own tells.
            if let Some(host) = host
                && tokio::net::lookup_host((host, 0)).await.is_err()
            {
                return ConnectCause::HostNotFound {
                    host: host.to_string(),
                };
            }
        }
        ConnectCause::Other {
            message: chain(error),
        }
    }
}

/// The causes of `error`, from the nearest; an I/O error's inner error counts as one.
fn sources<'a>(
    error: &'a tokio_postgres::Error,
) -> impl Iterator<Item = &'a (dyn std::error::Error + 'static)> {
    let mut next = error.source();
    std::iter::from_fn(move || {
        let current = next?;
        // An I/O error's `source` is its inner error's source, skipping the inner error.
        next = match current
            .downcast_ref::<io::Error>()
            .and_then(|io_error| io_error.get_ref())
        {
            Some(inner) => Some(inner as &(dyn std::error::Error + 'static)),
            None => current.source(),
        };
        Some(current)
    })
}

/// `error: cause: cause`, without repeating a cause whose text its error already ends with.
pub(super) fn chain(error: &tokio_postgres::Error) -> String {
    let mut text = error.to_string();
    for source in sources(error) {
        let said = source.to_string();
        if !text.ends_with(&said) {
            text.push_str(": ");
            text.push_str(&said);
        }
    }
    text
}

/// What a failed statement's error says: PostgreSQL's message and code for an error of the
/// server's, else the driver's error with its causes.
pub(super) fn said(error: &tokio_postgres::Error) -> String {
    match error.as_db_error() {
        Some(database) => format!(
            "{} (SQLSTATE {})",
            database.message(),
            database.code().code()
        ),
        None => chain(error),
    }
}
