//! Wake-ups of idle workers: a connection of its own LISTENs on the fleet's channel, so
//! that a worker with nothing due sleeps until a site is due, a lease expires or the
//! registry changes (a sync, a site released), instead of polling.

use std::sync::Arc;
use std::time::Duration;

use futures_util::StreamExt;
use tokio::sync::Notify;
use tokio_postgres::AsyncMessage;

use super::connection::{CHANNEL, FIRST_BACKOFF, MAX_BACKOFF, Queue};

/// Notified whenever the registry changes (and when the listening connection is made again,
/// as changes may have been missed while it was down).
#[derive(Debug, Clone)]
pub struct Wakeups(Arc<Notify>);

impl Wakeups {
    /// Waits for the next change.
    pub async fn changed(&self) {
        self.0.notified().await;
    }
}

impl Queue {
    /// Starts listening for changes of the registry, on a connection of its own that is
    /// made again whenever it is lost. The task ends with the runtime.
    pub fn listen(&self) -> Wakeups {
        let notify = Arc::new(Notify::new());
        let wakeups = Wakeups(Arc::clone(&notify));
        let config = self.config.clone();
        let tls = self.tls.clone();
        let at = self.at.clone();
        tokio::spawn(async move {
            let mut backoff = FIRST_BACKOFF;
            loop {
                match listen_once(&config, tls.clone(), &notify).await {
                    Ok(()) => backoff = FIRST_BACKOFF,
                    Err(error) => {
                        tracing::debug!(queue = %at, "listening for fleet changes: {error}");
                    }
                }
                // Anything may have changed while nobody listened.
                notify.notify_one();
                tokio::time::sleep(backoff).await;
                backoff = (backoff * 2).min(MAX_BACKOFF);
            }
        });
        wakeups
    }
}

/// Listens until the connection ends.
async fn listen_once(
    config: &tokio_postgres::Config,
    tls: tokio_postgres_rustls::MakeRustlsConnect,
    notify: &Notify,
) -> Result<(), tokio_postgres::Error> {
    let (client, mut connection) = config.connect(tls).await?;
    let mut messages =
        futures_util::stream::poll_fn(move |context| connection.poll_message(context));
    let listen = format!("LISTEN {CHANNEL}");
    let listening = client.batch_execute(&listen);
    tokio::pin!(listening);
    // The connection must be polled for the LISTEN to be sent and answered.
    loop {
        tokio::select! {
            done = &mut listening => { done?; break; }
            message = messages.next() => match message {
                Some(Ok(_)) => {}
                Some(Err(error)) => return Err(error),
                None => return Ok(()),
            },
        }
    }
    notify.notify_one();
    loop {
        match tokio::time::timeout(Duration::from_secs(60), messages.next()).await {
            Ok(Some(Ok(AsyncMessage::Notification(_)))) => notify.notify_one(),
            Ok(Some(Ok(_))) => {}
            Ok(Some(Err(error))) => return Err(error),
            Ok(None) => return Ok(()),
            // A connection that went quiet may be dead without knowing it: ask.
            Err(_) => {
                let ping = client.simple_query("SELECT 1");
                tokio::pin!(ping);
                loop {
                    tokio::select! {
                        answered = &mut ping => { answered?; break; }
                        message = messages.next() => match message {
                            Some(Ok(AsyncMessage::Notification(_))) => notify.notify_one(),
                            Some(Ok(_)) => {}
                            Some(Err(error)) => return Err(error),
                            None => return Ok(()),
                        },
                    }
                }
            }
        }
    }
}
