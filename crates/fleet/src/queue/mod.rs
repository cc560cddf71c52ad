//! The fleet on PostgreSQL: the registry of sites that workers on any number of machines
//! claim due sites from (`FOR UPDATE SKIP LOCKED`), hold by a lease renewed with heartbeats,
//! and record runs in; the crawl database of each site travels with it through the registry.
//!
//! Every write a claimer makes names its claim's lease number, the fencing token: once a
//! lease has expired and another worker has claimed the site, the first worker's writes
//! change nothing. Every call survives a restart of PostgreSQL: a lost connection is made
//! again with backoff, and the call retried; the calls are idempotent, so that a retry after a
//! commit whose answer was lost changes nothing more.

mod cause;
mod connection;
mod error;
mod lease;
mod listen;
mod schema;
mod sites;
mod tls;

pub use self::cause::ConnectCause;
pub use self::connection::Queue;
pub use self::error::{DefinitionError, QueueError};
pub use self::lease::{Claim, Claimed, Release};
pub use self::listen::Wakeups;
pub use self::sites::SyncCounts;
