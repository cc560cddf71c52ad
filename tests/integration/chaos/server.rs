//! The chaos server: raw TCP on 127.0.0.1, so that it can misbehave in ways an HTTP library
//! would not allow; it records every request it receives and what it did with it.

use std::collections::HashMap;
use std::fmt;
use std::net::SocketAddr;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::SEED;
use super::misbehaviour::{Behaviour, Delivered, Ending, Reply};
use super::site::{Resource, key, site};

/// A stalled connection is dropped after this even if the client never gives up.
const STALL_LIMIT: Duration = Duration::from_secs(5);
/// A kept-alive connection with no request for this long is closed.
const IDLE_LIMIT: Duration = Duration::from_secs(20);
/// After the crawler exits, its connections must all have closed within this.
const QUIET_LIMIT: Duration = Duration::from_secs(20);
/// A request head longer than this is not read any further.
const MAX_REQUEST_HEAD: usize = 16 * 1024;

/// One request as the server received it, and what it did with it.
#[derive(Debug, Clone)]
pub(super) struct Served {
    pub path: String,
    pub attempt: u64,
    pub behaviour: Behaviour,
    pub delivered: Delivered,
}

impl fmt::Display for Served {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            formatter,
            "attempt {}: {:?} -> {}",
            self.attempt, self.behaviour, self.delivered
        )
    }
}

/// What the connections share with the test: the run's site and its request log.
#[derive(Debug, Default)]
struct Shared {
    state: Mutex<ServerState>,
    changed: Condvar,
}

#[derive(Debug, Default)]
struct ServerState {
    run: u64,
    site: HashMap<String, Resource>,
    /// Requests received so far in the run, by path: the next one's attempt number.
    attempts: HashMap<String, u64>,
    served: Vec<Served>,
    open_connections: usize,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, ServerState> {
        self.state.lock().expect("server state lock")
    }

    /// Decides what to do with a request for `target`, and records it.
    fn answer(&self, target: &str) -> Reply {
        let mut state = self.lock();
        let run = state.run;
        let attempts = state.attempts.entry(target.to_string()).or_default();
        let attempt = *attempts;
        *attempts += 1;
        let resource = state.site.get(target).cloned().unwrap_or(Resource::Missing);
        let behaviour = Behaviour::choose(run, target, attempt, &resource);
        let reply = Reply::new(&resource, behaviour, &[run, key(target), attempt]);
        state.served.push(Served {
            path: target.to_string(),
            attempt,
            behaviour,
            delivered: reply.delivered.clone(),
        });
        reply
    }
}

/// Counts a connection as open until dropped.
struct OpenConnection(Arc<Shared>);

impl OpenConnection {
    fn register(shared: &Arc<Shared>) -> OpenConnection {
        shared.lock().open_connections += 1;
        OpenConnection(Arc::clone(shared))
    }
}

impl Drop for OpenConnection {
    fn drop(&mut self) {
        self.0.lock().open_connections -= 1;
        self.0.changed.notify_all();
    }
}

/// A chaos server on 127.0.0.1 (ephemeral port), in a thread with its own runtime, as the
/// fixture server runs; it stops when dropped.
#[derive(Debug)]
pub(super) struct ChaosServer {
    address: SocketAddr,
    shared: Arc<Shared>,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl ChaosServer {
    pub(super) fn start() -> ChaosServer {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
        listener
            .set_nonblocking(true)
            .expect("non-blocking listener");
        let address = listener.local_addr().expect("local address");
        let shared: Arc<Shared> = Arc::default();
        let (shutdown, stop) = tokio::sync::oneshot::channel::<()>();
        let server_shared = Arc::clone(&shared);
        let thread = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("chaos runtime");
            runtime.block_on(accept_until_stopped(listener, server_shared, stop));
        });
        ChaosServer {
            address,
            shared,
            shutdown: Some(shutdown),
            thread: Some(thread),
        }
    }

    pub(super) fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.address)
    }

    /// Serves the site as it is in `run`, with a fresh request log.
    pub(super) fn begin_run(&self, run: u64) {
        let mut state = self.shared.lock();
        state.run = run;
        state.site = site(run);
        state.attempts.clear();
        state.served.clear();
    }

    /// The requests of the run, once every connection of the (exited) crawler has closed, so
    /// that the log is complete.
    pub(super) fn finish_run(&self) -> Vec<Served> {
        let state = self.shared.lock();
        let (mut state, timeout) = self
            .shared
            .changed
            .wait_timeout_while(state, QUIET_LIMIT, |state| state.open_connections > 0)
            .expect("server state lock");
        assert!(
            !timeout.timed_out(),
            "chaos seed {SEED:#x}, run {}: {} connections still open after the crawler exited",
            state.run,
            state.open_connections
        );
        std::mem::take(&mut state.served)
    }
}

impl Drop for ChaosServer {
    fn drop(&mut self) {
        if let Some(shutdown) = self.shutdown.take() {
            let _ = shutdown.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

async fn accept_until_stopped(
    listener: std::net::TcpListener,
    shared: Arc<Shared>,
    mut stop: tokio::sync::oneshot::Receiver<()>,
) {
    let listener = tokio::net::TcpListener::from_std(listener).expect("tokio listener");
    loop {
        tokio::select! {
            _ = &mut stop => break,
            accepted = listener.accept() => {
                let Ok((stream, _)) = accepted else { continue };
                // Counted before the task starts, so that no connection escapes finish_run.
                let open = OpenConnection::register(&shared);
                tokio::spawn(serve_connection(stream, open));
            }
        }
    }
}

/// Answers the requests of one connection until a reply ends it or the client leaves.
async fn serve_connection(mut stream: TcpStream, open: OpenConnection) {
    let mut received = Vec::new();
    while let Some(target) = next_request(&mut stream, &mut received).await {
        let reply = open.0.answer(&target);
        if stream.write_all(&reply.wire).await.is_err() {
            return;
        }
        match reply.ending {
            Ending::KeepAlive => {}
            Ending::Close => {
                let _ = stream.shutdown().await;
                return;
            }
            Ending::Reset => {
                // Dropped with a zero linger, the socket sends RST instead of FIN.
                let _ = stream.set_zero_linger();
                return;
            }
            Ending::Stall => {
                stall(&mut stream).await;
                return;
            }
        }
    }
}

/// Reads one request head and returns its target; `None` when the client closes, stays idle
/// too long, or sends something that is not a request line.
async fn next_request(stream: &mut TcpStream, received: &mut Vec<u8>) -> Option<String> {
    loop {
        if let Some(end) = received.windows(4).position(|window| window == b"\r\n\r\n") {
            let head: Vec<u8> = received.drain(..end + 4).collect();
            let line = std::str::from_utf8(head.split(|&byte| byte == b'\r').next()?).ok()?;
            return line.split(' ').nth(1).map(str::to_string);
        }
        if received.len() > MAX_REQUEST_HEAD {
            return None;
        }
        let mut chunk = [0u8; 4096];
        let read = tokio::time::timeout(IDLE_LIMIT, stream.read(&mut chunk))
            .await
            .ok()?
            .ok()?;
        if read == 0 {
            return None;
        }
        received.extend_from_slice(&chunk[..read]);
    }
}

/// Holds the connection without answering until the client gives up (its close is read) or
/// [`STALL_LIMIT`] passes.
async fn stall(stream: &mut TcpStream) {
    let mut sink = [0u8; 1024];
    let until_closed =
        async { while matches!(stream.read(&mut sink).await, Ok(read) if read > 0) {} };
    let _ = tokio::time::timeout(STALL_LIMIT, until_closed).await;
}
