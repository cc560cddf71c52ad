//! What can go wrong with the queue: [`QueueError`], and [`DefinitionError`] for a site's
//! stored definition that cannot be read back. A leaf of `queue`: it names the causes of a
//! failed connection and nothing else of its siblings.

use super::cause::{self, ConnectCause};
use crate::file::SiteNameError;
use crate::schedule::ScheduleError;

/// What can go wrong with the queue.
#[derive(Debug, thiserror::Error)]
pub enum QueueError {
    /// The URL is not a PostgreSQL connection string.
    #[error("invalid queue URL: {0}")]
    Url(String),
    /// TLS could not be set up.
    #[error("cannot set up TLS for the queue: {0}")]
    Tls(String),
    /// The first connection failed.
    #[error("cannot connect to the queue at {at}: {cause}")]
    Connect {
        /// Where, without credentials.
        at: String,
        /// Why, as a user can act on it.
        cause: ConnectCause,
    },
    /// The schema could not be brought up to date.
    #[error("queue at {at}: {message}")]
    Schema {
        /// Where the queue is.
        at: String,
        /// What is wrong.
        message: String,
    },
    /// A statement failed for another reason than a lost connection.
    #[error("queue at {at}: cannot {what}: {}", cause::said(.error))]
    Database {
        /// Where the queue is.
        at: String,
        /// What was being done.
        what: &'static str,
        /// What PostgreSQL said.
        error: tokio_postgres::Error,
    },
    /// A site's definition in the registry cannot be read.
    #[error("queue at {at}: site {site}: {error}")]
    Definition {
        /// Where the queue is.
        at: String,
        /// The site's name.
        site: String,
        /// What is wrong (in the message already, so not its source).
        error: DefinitionError,
    },
}

/// A site's stored definition that cannot be read back.
#[derive(Debug, thiserror::Error)]
pub enum DefinitionError {
    /// The name cannot name files (whatever wrote the registry).
    #[error(transparent)]
    Name(#[from] SiteNameError),
    /// Not the JSON a sync writes.
    #[error("unreadable definition: {0}")]
    Json(serde_json::Error),
    /// The schedule cannot be read.
    #[error(transparent)]
    Schedule(#[from] ScheduleError),
    /// The retry is not a number of seconds a duration can hold.
    #[error("retry: {0}")]
    Retry(std::time::TryFromFloatSecsError),
}
