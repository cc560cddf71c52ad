//! A publish command's processes: the command in a process group of its own, its output read
//! only while the command itself runs, and the whole group ended (SIGTERM, then SIGKILL after
//! a grace) when it must stop.
//!
//! A command that leaves a process behind (`cmd &`, `ssh -f`, an rsync it gave up on) hands
//! that process the write ends of its stdout and stderr. A reader that waits for the end of
//! those pipes waits for that process, and would hold the site's run, and a fleet's shutdown,
//! for as long as it lives. So the pipes are polled on the waiting thread and closed as soon as
//! the command itself has exited: no reader thread is left behind, whatever the group does.
//! The group is what a stop ends, since a command's children do not die with it.

use std::fs::File;
use std::io::{ErrorKind, Read};
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use nix::errno::Errno;
use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;

/// How long a group has after SIGTERM before what is left of it gets SIGKILL.
pub(super) const GRACE: Duration = Duration::from_secs(5);

/// The longest the processes of a group are waited for after SIGKILL (one that has exited
/// but whose parent, gone too, was not replaced by a process that reaps it, counts as left).
const SETTLE: Duration = Duration::from_secs(1);

/// How often a killed group is looked at while it settles (milliseconds).
const SETTLE_TICK_MILLISECONDS: u16 = 10;

/// How long one wait for output lasts (milliseconds) before the command's end, the stop and
/// the deadline are looked at again.
const TICK_MILLISECONDS: u16 = 50;

/// The most of each stream kept: its last 64 KiB, where the last line is.
const KEPT: usize = 64 * 1024;

/// The most read of what is already in the pipes once the command has exited: a process left
/// behind that keeps writing cannot keep the reading going.
const DRAINED: usize = 256 * 1024;

/// How a group that had to stop was ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// SIGTERM ended every process of it within the grace.
    Terminated,
    /// Some of it outlived the grace after SIGTERM, and the group got SIGKILL.
    Killed,
}

impl std::fmt::Display for Ending {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Ending::Terminated => formatter.write_str("its processes were ended with SIGTERM"),
            Ending::Killed => write!(
                formatter,
                "its processes were ended with SIGTERM, then SIGKILL after {} s",
                GRACE.as_secs()
            ),
        }
    }
}

/// How the wait for a command ended.
#[derive(Debug)]
pub(super) enum End {
    /// The command itself exited (processes it left behind are left alone).
    Exited(ExitStatus),
    /// It was told to stop, and its group was ended.
    Stopped(Ending),
    /// It ran past its deadline, and its group was ended.
    TimedOut(Ending),
}

/// A command running in a process group of its own, with its stdout and stderr.
#[derive(Debug)]
pub(super) struct ProcessGroup {
    child: Child,
    /// The group's id: the command's own process id (`process_group(0)`).
    id: Pid,
    /// The command has been waited for (its process id may be another process's now).
    reaped: bool,
    /// stdout and stderr, in that order.
    streams: [Stream; 2],
}

impl ProcessGroup {
    /// Starts `command` as the leader of a new process group, stdin empty, stdout and stderr
    /// piped to this process.
    pub(super) fn spawn(mut command: Command) -> std::io::Result<ProcessGroup> {
        command
            .process_group(0)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = command.spawn()?;
        let streams = [
            Stream::new(child.stdout.take().map(OwnedFd::from)),
            Stream::new(child.stderr.take().map(OwnedFd::from)),
        ];
        let Ok(raw) = i32::try_from(child.id()) else {
            // Not on a system whose process ids are those of `kill(2)`: the command is not
            // left running unowned.
            let _ = child.kill();
            let _ = child.wait();
            return Err(std::io::Error::other("a process id out of range"));
        };
        Ok(ProcessGroup {
            child,
            id: Pid::from_raw(raw),
            reaped: false,
            streams,
        })
    }

    /// Waits for the command to exit, reading its output meanwhile. At the `deadline`, or as
    /// soon as `stopped()` says so, the whole group is ended.
    pub(super) fn wait(
        &mut self,
        deadline: Instant,
        stopped: impl Fn() -> bool,
    ) -> std::io::Result<End> {
        loop {
            self.read_for(TICK_MILLISECONDS);
            if let Some(status) = self.child.try_wait()? {
                self.reaped = true;
                self.drain();
                self.close();
                return Ok(End::Exited(status));
            }
            if stopped() {
                return Ok(End::Stopped(self.end()));
            }
            if Instant::now() >= deadline {
                return Ok(End::TimedOut(self.end()));
            }
        }
    }

    /// What the command wrote on stderr: its last 64 KiB at most.
    pub(super) fn stderr(&self) -> String {
        self.streams[1].text()
    }

    /// What the command wrote on stdout: its last 64 KiB at most.
    pub(super) fn stdout(&self) -> String {
        self.streams[0].text()
    }

    /// Ends the whole group: SIGTERM, then SIGKILL to what is left of it after [`GRACE`].
    /// The output is read meanwhile, so that no process of the group blocks on a full pipe
    /// while it finishes.
    fn end(&mut self) -> Ending {
        self.signal(Signal::SIGTERM);
        // A stopped process acts on SIGTERM only once continued (one in this background
        // group that read the terminal was stopped by SIGTTIN).
        self.signal(Signal::SIGCONT);
        let grace = Instant::now() + GRACE;
        let mut ending = Ending::Killed;
        while Instant::now() < grace {
            self.read_for(TICK_MILLISECONDS);
            if !self.reaped && matches!(self.child.try_wait(), Ok(Some(_)) | Err(_)) {
                self.reaped = true;
            }
            // Once the leader is reaped its id names the group only while a member is left:
            // while one is, the id cannot be given to another process, and the SIGKILL below
            // reaches this group alone.
            if self.reaped && !self.group_is_alive() {
                ending = Ending::Terminated;
                break;
            }
        }
        if ending == Ending::Killed {
            self.signal(Signal::SIGKILL);
            if !self.reaped {
                let _ = self.child.wait();
                self.reaped = true;
            }
            self.settle();
        }
        self.close();
        ending
    }

    /// Waits, up to [`SETTLE`], for the processes SIGKILL was sent to to be gone: a signal is
    /// sent at once but acted on when its process next runs.
    fn settle(&self) {
        let settled = Instant::now() + SETTLE;
        while self.group_is_alive() && Instant::now() < settled {
            std::thread::sleep(Duration::from_millis(u64::from(SETTLE_TICK_MILLISECONDS)));
        }
    }

    /// Whether a process of the group is left (one this process may not signal counts).
    fn group_is_alive(&self) -> bool {
        !matches!(killpg(self.id, None), Err(Errno::ESRCH))
    }

    fn signal(&self, signal: Signal) {
        match killpg(self.id, signal) {
            Ok(()) | Err(Errno::ESRCH) => {}
            Err(error) => {
                tracing::warn!(group = %self.id, "cannot send {signal} to the publish command: {error}");
            }
        }
    }

    /// Reads what the pipes hold, waiting up to `milliseconds` for something to arrive; the
    /// number of bytes read (0 also when the pipes are closed).
    fn read_for(&mut self, milliseconds: u16) -> usize {
        let ready = match self.poll(milliseconds) {
            Ok(ready) => ready,
            Err(error) => {
                // Not expected of two valid pipes; read no more rather than spin.
                tracing::warn!("cannot poll the publish command's output: {error}");
                self.close();
                return 0;
            }
        };
        // A pipe that poll found ready (data, its end, an error) answers `read` at once.
        self.streams
            .iter_mut()
            .zip(ready)
            .filter(|(_, ready)| *ready)
            .map(|(stream, _)| stream.read_once())
            .sum()
    }

    /// Which of the open pipes have something to read (or their end), waiting up to
    /// `milliseconds` for one to have.
    fn poll(&self, milliseconds: u16) -> nix::Result<[bool; 2]> {
        let mut ready = [false; 2];
        let mut polled = Vec::with_capacity(2);
        let mut which = Vec::with_capacity(2);
        for (index, stream) in self.streams.iter().enumerate() {
            if let Some(pipe) = &stream.pipe {
                polled.push(PollFd::new(pipe.as_fd(), PollFlags::POLLIN));
                which.push(index);
            }
        }
        if polled.is_empty() {
            std::thread::sleep(Duration::from_millis(u64::from(milliseconds)));
            return Ok(ready);
        }
        match poll(&mut polled, PollTimeout::from(milliseconds)) {
            Ok(_) => {
                for (pollfd, index) in polled.iter().zip(which) {
                    ready[index] = pollfd.revents().is_some_and(|events| !events.is_empty());
                }
                Ok(ready)
            }
            Err(Errno::EINTR) => Ok(ready),
            Err(error) => Err(error),
        }
    }

    /// Reads what is already in the pipes, up to [`DRAINED`], without waiting.
    fn drain(&mut self) {
        let mut drained = 0;
        while drained < DRAINED {
            let read = self.read_for(0);
            if read == 0 {
                break;
            }
            drained += read;
        }
    }

    /// Closes the pipes: a process of the group still writing to them gets EPIPE (SIGPIPE).
    fn close(&mut self) {
        for stream in &mut self.streams {
            stream.pipe = None;
        }
    }
}

impl Drop for ProcessGroup {
    /// A group dropped before its command was waited for (an error while waiting) is ended,
    /// never left running unowned.
    fn drop(&mut self) {
        if !self.reaped {
            self.end();
        }
    }
}

/// One of the command's output pipes, and the tail of what came through it.
#[derive(Debug)]
struct Stream {
    /// Closed at its end, or once the command has exited.
    pipe: Option<File>,
    tail: Vec<u8>,
}

impl Stream {
    fn new(pipe: Option<OwnedFd>) -> Stream {
        Stream {
            pipe: pipe.map(File::from),
            tail: Vec::new(),
        }
    }

    /// One `read` of the pipe, kept; the number of bytes read.
    fn read_once(&mut self) -> usize {
        let Some(pipe) = &mut self.pipe else {
            return 0;
        };
        let mut buffer = [0_u8; 8192];
        match pipe.read(&mut buffer) {
            Ok(0) => {
                self.pipe = None;
                0
            }
            Ok(read) => {
                self.keep(&buffer[..read]);
                read
            }
            Err(error)
                if matches!(error.kind(), ErrorKind::Interrupted | ErrorKind::WouldBlock) =>
            {
                0
            }
            Err(_) => {
                self.pipe = None;
                0
            }
        }
    }

    /// Adds `bytes` to the tail, which keeps at least the last [`KEPT`] bytes and never more
    /// than twice as many.
    fn keep(&mut self, bytes: &[u8]) {
        self.tail.extend_from_slice(bytes);
        if self.tail.len() > 2 * KEPT {
            let cut = self.tail.len() - KEPT;
            self.tail.drain(..cut);
        }
    }

    /// The last [`KEPT`] bytes as text (bytes that are not UTF-8 replaced).
    fn text(&self) -> String {
        let start = self.tail.len().saturating_sub(KEPT);
        String::from_utf8_lossy(&self.tail[start..]).into_owned()
    }
}
