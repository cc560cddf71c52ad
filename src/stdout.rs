//! stdout, where the data the user asked for goes, and what happens when its reader stops
//! reading: `sitemapper runs | head` closes the pipe after ten lines, and the next write
//! fails with `EPIPE` (Rust ignores `SIGPIPE`, so the process is not killed by it as a C
//! program is). That is the reader's choice, not a failure of the run: like `cat`, ripgrep
//! and lychee, a command whose output is stdout then ends quietly with exit status 0. An
//! output beside a run's own work (a crawl's list of URLs not listed, its change report) is
//! dropped instead, and the run goes on to publish its sitemap.
//!
//! Every write to stdout goes through [`StdoutWriter`] (clippy's `disallowed-methods` keeps
//! `std::io::stdout` out of the rest), which remembers that the reader has gone. The error
//! reaches `main` through `io`, `serde_json` or `csv` errors, not all of which keep the
//! `io::Error` among their sources, so the fact is kept here rather than looked for there.

use std::io::{self, StdoutLock, Write};
use std::sync::atomic::{AtomicBool, Ordering};

/// Set once a write of a command's output to stdout has found the pipe's reader gone.
static CLOSED: AtomicBool = AtomicBool::new(false);

/// Set once the command has failed for a reason of its own (a missing database, `--fail-on`'s
/// findings), whatever then becomes of what it writes on stdout.
static FAILED: AtomicBool = AtomicBool::new(false);

/// Whether a write of the command's output found stdout's reader gone: nothing more can be
/// said there.
pub(crate) fn closed() -> bool {
    CLOSED.load(Ordering::Relaxed)
}

/// Notes that the command has failed for a reason of its own, before its summary is written
/// on stdout: should the summary find the reader gone, the failure still ends the command,
/// with its error line and its exit status.
pub(crate) fn note_failure() {
    FAILED.store(true, Ordering::Relaxed);
}

/// Whether the command ends quietly with success: stdout's reader went, and that is the
/// error that ended it (the command had not failed otherwise).
pub(crate) fn reader_gone() -> bool {
    closed() && !FAILED.load(Ordering::Relaxed)
}

/// stdout for the command's output, locked for the writer's life: once the reader has gone,
/// writing fails and the run ends.
pub(crate) fn lock() -> StdoutWriter {
    StdoutWriter::new(false)
}

/// stdout for an output beside the run's own work, locked for the writer's life: once the
/// reader has gone, what is written is dropped and the run goes on.
pub(crate) fn lock_optional() -> StdoutWriter {
    StdoutWriter::new(true)
}

/// stdout, locked, noting a reader that has gone (see the module's doc).
#[derive(Debug)]
pub(crate) struct StdoutWriter {
    inner: StdoutLock<'static>,
    /// Whether the run goes on without this output once its reader has gone.
    optional: bool,
    /// The reader of an optional output has gone: writes are dropped.
    dropping: bool,
}

impl StdoutWriter {
    fn new(optional: bool) -> StdoutWriter {
        #[expect(
            clippy::disallowed_methods,
            reason = "the one place stdout is opened; see the module's doc"
        )]
        let inner = io::stdout().lock();
        StdoutWriter {
            inner,
            optional,
            dropping: false,
        }
    }

    /// `result`, unless it says that the reader has gone: then, for an optional output,
    /// `dropped` and every later write dropped; for the command's output, the error, noted.
    fn settle<T>(&mut self, result: io::Result<T>, dropped: T) -> io::Result<T> {
        match result {
            Err(error) if error.kind() == io::ErrorKind::BrokenPipe => {
                if self.optional {
                    self.dropping = true;
                    Ok(dropped)
                } else {
                    CLOSED.store(true, Ordering::Relaxed);
                    Err(error)
                }
            }
            other => other,
        }
    }
}

impl Write for StdoutWriter {
    fn write(&mut self, buffer: &[u8]) -> io::Result<usize> {
        if self.dropping {
            return Ok(buffer.len());
        }
        let result = self.inner.write(buffer);
        self.settle(result, buffer.len())
    }

    fn write_all(&mut self, buffer: &[u8]) -> io::Result<()> {
        if self.dropping {
            return Ok(());
        }
        let result = self.inner.write_all(buffer);
        self.settle(result, ())
    }

    fn flush(&mut self) -> io::Result<()> {
        if self.dropping {
            return Ok(());
        }
        let result = self.inner.flush();
        self.settle(result, ())
    }
}

/// stdout as a site's run writes to it: the sitemap as the command's output, the change
/// report and the list of URLs not listed as outputs beside it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RunStdout;

impl sitemapper_site::Stdout for RunStdout {
    fn output(&self) -> Box<dyn Write + '_> {
        Box::new(lock())
    }

    fn beside(&self) -> Box<dyn Write + '_> {
        Box::new(lock_optional())
    }
}
