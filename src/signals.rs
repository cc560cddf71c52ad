//! Ctrl-C and SIGTERM: the first stops a run gracefully, a second ends the process at once.

use std::sync::{Arc, OnceLock};

use tokio::sync::watch;

use crate::exit::ExitStatus;

/// The signals that stop a crawl gracefully.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StopSignal {
    /// Ctrl-C (SIGINT).
    Interrupt,
    /// SIGTERM: what systemd, batch schedulers and `kill` send.
    Terminate,
}

impl StopSignal {
    pub(crate) fn exit_status(self) -> ExitStatus {
        match self {
            StopSignal::Interrupt => ExitStatus::Interrupted,
            StopSignal::Terminate => ExitStatus::Terminated,
        }
    }

    pub(crate) fn describe(self) -> &'static str {
        match self {
            StopSignal::Interrupt => "interrupted",
            StopSignal::Terminate => "terminated (SIGTERM)",
        }
    }
}

/// A file size limit (`ulimit -f`) reached ends a process with SIGXFSZ, which says nothing of
/// why. With a handler of its own installed, the write that passes the limit fails instead
/// (`EFBIG`, "File too large"), and the run ends on that error's one line, the previous
/// sitemap left as it was. tokio's handler stays installed for the process's life, whatever
/// becomes of the runtime it was registered on.
#[cfg(unix)]
pub(crate) fn survive_file_size_limit() {
    use tokio::signal::unix::{SignalKind, signal};
    /// SIGXFSZ on Linux and the BSDs.
    const SIGXFSZ: i32 = 25;
    let registered = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .build()
        .and_then(|runtime| {
            let _entered = runtime.enter();
            signal(SignalKind::from_raw(SIGXFSZ)).map(drop)
        });
    if let Err(error) = registered {
        tracing::debug!(%error, "cannot handle SIGXFSZ: a file size limit ends the process");
    }
}

/// Elsewhere there is no SIGXFSZ.
#[cfg(not(unix))]
pub(crate) fn survive_file_size_limit() {}

/// The first Ctrl-C or SIGTERM stops the run gracefully: `stop` becomes `true`, after the line
/// `said` gives for that signal. A second one ends the process at once.
pub(crate) async fn stop_on_signals(
    stop: watch::Sender<bool>,
    received: Arc<OnceLock<StopSignal>>,
    said: fn(StopSignal) -> &'static str,
) {
    let Some(signal) = next_stop_signal().await else {
        return;
    };
    let _ = received.set(signal);
    // One plain line, above the progress line: the requests in flight still end.
    crate::progress::print_line(said(signal));
    stop.send_replace(true);
    if let Some(second) = next_stop_signal().await {
        std::process::exit(second.exit_status() as i32);
    }
}

/// Waits for SIGINT or SIGTERM; `None` when no handler could be installed.
#[cfg(unix)]
pub(crate) async fn next_stop_signal() -> Option<StopSignal> {
    use tokio::signal::unix::{SignalKind, signal};
    let mut terminate = signal(SignalKind::terminate()).ok()?;
    tokio::select! {
        interrupted = tokio::signal::ctrl_c() => interrupted.ok().map(|()| StopSignal::Interrupt),
        terminated = terminate.recv() => terminated.map(|()| StopSignal::Terminate),
    }
}

/// Waits for Ctrl-C; `None` when no handler could be installed.
#[cfg(not(unix))]
pub(crate) async fn next_stop_signal() -> Option<StopSignal> {
    tokio::signal::ctrl_c()
        .await
        .ok()
        .map(|()| StopSignal::Interrupt)
}

/// Listens for Ctrl-C and SIGTERM on a thread of its own (see [`stop_on_signals`]), for a
/// command that has no runtime of its own to listen on. The signal received is kept in
/// `received`.
pub(crate) fn spawn_signal_thread(
    stop: watch::Sender<bool>,
    received: Arc<OnceLock<StopSignal>>,
    said: fn(StopSignal) -> &'static str,
) {
    std::thread::spawn(move || {
        let Ok(runtime) = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
        else {
            return;
        };
        runtime.block_on(stop_on_signals(stop, received, said));
    });
}
