//! [`Queue`], the connection to the registry in PostgreSQL, made again whenever it is lost: the
//! first connection and its schema, the backoff and retry of every call (`persist!`), and
//! the times the registry stores.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use jiff::Timestamp;
use tokio::sync::Mutex;
use tokio_postgres::Client;

use super::cause::{self, ConnectCause};
use super::error::QueueError;
use super::{schema, tls};

/// The channel workers LISTEN on: a changed registry (sites synced, a site released).
pub(super) const CHANNEL: &str = "sitemapper_fleet";

/// The longest wait between two attempts to reach PostgreSQL.
pub(super) const MAX_BACKOFF: Duration = Duration::from_secs(30);

/// The first wait after a lost connection.
pub(super) const FIRST_BACKOFF: Duration = Duration::from_millis(250);

/// A connection to the queue, made again whenever it is lost.
pub struct Queue {
    pub(super) config: tokio_postgres::Config,
    pub(super) tls: tokio_postgres_rustls::MakeRustlsConnect,
    /// One connection, used by one call at a time (a transaction needs it to itself).
    pub(super) client: Mutex<Option<Client>>,
    /// Where the queue is, for messages: host, port and database, never the password.
    pub(super) at: String,
    /// Connections made again after one was lost.
    reconnects: AtomicU64,
}

impl std::fmt::Debug for Queue {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("Queue")
            .field("at", &self.at)
            .finish()
    }
}

/// Runs `$body` (an expression using `$client: &mut Client`) until it succeeds; a lost
/// connection is made again after a backoff that doubles up to [`MAX_BACKOFF`], and the body
/// runs again. Any other error ends the call.
macro_rules! persist {
    ($queue:expr, $what:expr, |$client:ident| $body:expr) => {{
        let queue: &$crate::queue::Queue = $queue;
        let mut backoff = $crate::queue::connection::FIRST_BACKOFF;
        loop {
            let mut slot = queue.client.lock().await;
            let attempt = match queue.ensure(&mut slot).await {
                Ok($client) => $body.await,
                Err(error) => Err(error),
            };
            match attempt {
                Ok(value) => break Ok(value),
                Err(error) if $crate::queue::connection::connection_lost(&error) => {
                    *slot = None;
                    drop(slot);
                    tracing::warn!(
                        queue = %queue.at,
                        "PostgreSQL unreachable ({error}); trying again in {:.1} s",
                        backoff.as_secs_f64()
                    );
                    tokio::time::sleep(backoff).await;
                    backoff = (backoff * 2).min($crate::queue::connection::MAX_BACKOFF);
                }
                Err(error) => {
                    break Err($crate::queue::QueueError::Database {
                        at: queue.at.clone(),
                        what: $what,
                        error,
                    })
                }
            }
        }
    }};
}
pub(super) use persist;

impl Queue {
    /// Connects to the queue at `url` (`postgres://user:password@host/database`; TLS as
    /// its `sslmode` asks, as libpq does) and brings its schema up to date.
    pub async fn connect(url: &str) -> Result<Queue, QueueError> {
        let (config, tls) = tls::configure(url)?;
        let at = describe(&config);
        let queue = Queue {
            tls,
            config,
            client: Mutex::new(None),
            at,
            reconnects: AtomicU64::new(0),
        };
        {
            let mut slot = queue.client.lock().await;
            let client = match queue.open().await {
                Ok(client) => client,
                Err(error) => {
                    return Err(QueueError::Connect {
                        at: queue.at.clone(),
                        cause: ConnectCause::of(&error, queue.tcp_host()).await,
                    });
                }
            };
            let client = slot.insert(client);
            schema::migrate(client)
                .await
                .map_err(|error| QueueError::Schema {
                    at: queue.at.clone(),
                    message: match error {
                        schema::MigrationError::Database(error) => cause::said(&error),
                        too_new @ schema::MigrationError::TooNew { .. } => too_new.to_string(),
                    },
                })?;
        }
        Ok(queue)
    }

    /// The first host of the URL when it is a TCP host (not a Unix socket).
    fn tcp_host(&self) -> Option<&str> {
        match self.config.get_hosts().first() {
            Some(tokio_postgres::config::Host::Tcp(name)) => Some(name),
            #[cfg(unix)]
            Some(tokio_postgres::config::Host::Unix(_)) => None,
            None => None,
        }
    }

    /// Where the queue is: host, port and database.
    pub fn at(&self) -> &str {
        &self.at
    }

    /// How many times a lost connection was made again.
    pub fn reconnects(&self) -> u64 {
        self.reconnects.load(Ordering::Relaxed)
    }

    /// How many sites are due and not claimed, by the database's clock.
    pub async fn due(&self) -> Result<u64, QueueError> {
        let due: i64 = persist!(self, "count the sites due", |client| async {
            let row = client
                .query_one(
                    "SELECT count(*) FROM fleet_sites WHERE leased_by IS NULL AND next_due <= now()",
                    &[],
                )
                .await?;
            row.try_get::<_, i64>(0)
        })?;
        Ok(due.unsigned_abs())
    }

    async fn open(&self) -> Result<Client, tokio_postgres::Error> {
        let (client, connection) = self.config.connect(self.tls.clone()).await?;
        let at = self.at.clone();
        tokio::spawn(async move {
            if let Err(error) = connection.await {
                tracing::debug!(queue = %at, "connection to the queue ended: {error}");
            }
        });
        Ok(client)
    }

    /// The connection in `slot`, made if there is none or the last one closed.
    pub(super) async fn ensure<'slot>(
        &self,
        slot: &'slot mut Option<Client>,
    ) -> Result<&'slot mut Client, tokio_postgres::Error> {
        let lost = match slot.take() {
            Some(client) if !client.is_closed() => return Ok(slot.insert(client)),
            Some(_) => true,
            None => false,
        };
        let client = slot.insert(self.open().await?);
        self.reconnects.fetch_add(1, Ordering::Relaxed);
        if lost {
            // The server closed the connection (a restart, a failover) and was back before
            // the next call needed it: said, since nothing failed to say it otherwise.
            tracing::info!(queue = %self.at, "the connection to PostgreSQL was closed; connected again");
        }
        Ok(client)
    }

    /// How long until a site may be due or a lease expire, by the database's clock; `None`
    /// when the registry is empty.
    pub async fn next_wake(&self) -> Result<Option<Duration>, QueueError> {
        let seconds: Option<f64> = persist!(self, "read the next due time", |client| async {
            let row = client
                .query_one(
                    "SELECT extract(epoch FROM min(CASE WHEN leased_by IS NULL THEN next_due ELSE lease_expires END) - now())::float8
                     FROM fleet_sites",
                    &[],
                )
                .await?;
            row.try_get::<_, Option<f64>>(0)
        })?;
        Ok(seconds.map(|seconds| Duration::from_secs_f64(seconds.max(0.0))))
    }
}

/// Whether `error` is a lost or refused connection (worth a reconnect and a retry), not a
/// mistake in a statement.
pub(super) fn connection_lost(error: &tokio_postgres::Error) -> bool {
    if error.is_closed() {
        return true;
    }
    if let Some(code) = error.code() {
        // Class 08: connection exception; 57P01-57P03: shut down, or starting up.
        return code.code().starts_with("08") || code.code().starts_with("57P");
    }
    std::error::Error::source(error).is_some_and(|source| source.is::<std::io::Error>())
}

/// `host:port/database`, for messages: a URL's password never shows.
fn describe(config: &tokio_postgres::Config) -> String {
    let host = config
        .get_hosts()
        .first()
        .map(|host| match host {
            tokio_postgres::config::Host::Tcp(name) => name.clone(),
            #[cfg(unix)]
            tokio_postgres::config::Host::Unix(path) => path.display().to_string(),
        })
        .unwrap_or_else(|| "localhost".to_string());
    let port = config.get_ports().first().copied().unwrap_or(5432);
    let database = config
        .get_dbname()
        .or(config.get_user())
        .unwrap_or("postgres");
    format!("{host}:{port}/{database}")
}

/// Seconds since the epoch, as PostgreSQL's `to_timestamp` takes them.
pub(super) fn epoch_seconds(timestamp: Timestamp) -> f64 {
    timestamp.as_microsecond() as f64 / 1e6
}

/// A timestamp from seconds since the epoch.
pub(super) fn from_epoch_seconds(seconds: f64) -> Timestamp {
    Timestamp::from_microsecond((seconds * 1e6).round() as i64).unwrap_or(Timestamp::UNIX_EPOCH)
}
