//! The progress line on stderr (shown only on a terminal, never with -q), and everything else
//! the binary writes to stderr while it may show: log lines and messages are printed above
//! it, never over it.

use std::io::{IsTerminal, Write};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use sitemapper_crawl::CrawlProgress;
use sitemapper_site::{EventCounts, count};

/// The progress line shown now, if any.
static SHOWN: Mutex<Option<ProgressBar>> = Mutex::new(None);

#[derive(Debug)]
pub(crate) struct Progress {
    bar: Option<ProgressBar>,
}

impl Progress {
    pub(crate) fn start(
        quiet: bool,
        crawl: Arc<CrawlProgress>,
        counts: Arc<EventCounts>,
    ) -> Progress {
        if quiet || !std::io::stderr().is_terminal() {
            return Progress { bar: None };
        }
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
        // The message is made to fit the terminal's width (see `line`); `wide_msg` cuts it
        // all the same should the terminal narrow before the next update: the line never
        // wraps.
        bar.set_style(
            ProgressStyle::with_template("{spinner} {wide_msg}")
                .unwrap_or_else(|_| ProgressStyle::default_spinner()),
        );
        bar.enable_steady_tick(Duration::from_millis(120));
        *SHOWN.lock().unwrap_or_else(PoisonError::into_inner) = Some(bar.clone());
        let updater = bar.clone();
        let started = Instant::now();
        std::thread::spawn(move || {
            let terminal = console::Term::stderr();
            while !updater.is_finished() {
                let elapsed = started.elapsed();
                let fetched = crawl.requests.load(Ordering::Relaxed);
                let now = Counts {
                    fetched,
                    queued: crawl.queued.load(Ordering::Relaxed),
                    listed: counts.listed.load(Ordering::Relaxed),
                    errors: counts.errors.load(Ordering::Relaxed),
                    rate: fetched as f64 / elapsed.as_secs_f64().max(0.001),
                    rendering: crawl.rendering.load(Ordering::Relaxed),
                };
                let last_url = counts
                    .last_url
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .clone();
                // Read each time: the terminal may be resized.
                let width = usize::from(terminal.size().1);
                updater.set_message(line(width, elapsed, &now, &last_url));
                std::thread::sleep(Duration::from_millis(200));
            }
        });
        Progress { bar: Some(bar) }
    }

    pub(crate) fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
            *SHOWN.lock().unwrap_or_else(PoisonError::into_inner) = None;
        }
    }
}

/// What the progress line counts.
#[derive(Debug)]
struct Counts {
    fetched: u64,
    queued: u64,
    listed: u64,
    errors: u64,
    /// Requests a second since the start.
    rate: f64,
    /// Pages in the browser now.
    rendering: u64,
}

/// Columns taken before the message: the spinner and a space.
const BEFORE_MESSAGE: usize = 2;

/// The fewest columns worth giving the page's URL.
const URL_COLUMNS: usize = 12;

/// Between two parts of the line.
const SEPARATOR: &str = " · ";

/// The progress line after its spinner, on a terminal `width` columns wide: the time since
/// the start, the counts, whether the browser is rendering, then the page recorded last
/// (without its scheme). What does not fit goes in this order: the URL's start (the end of a
/// path is what tells pages apart), then the URL, the queue, the requests made, the rate;
/// the time, the URLs listed and the errors stay, and "rendering" while the browser works,
/// which is what a crawl that renders spends its time on.
fn line(width: usize, elapsed: Duration, counts: &Counts, last_url: &str) -> String {
    let room = width.saturating_sub(BEFORE_MESSAGE);
    // Each part with how long it stays as the room shrinks: the higher, the longer.
    let mut parts: Vec<(String, u8)> = vec![
        (elapsed_text(elapsed), u8::MAX),
        (format!("{} fetched", counts.fetched), 2),
        (format!("{} listed", counts.listed), 6),
        (count(counts.errors, "error"), 5),
        (format!("{:.1}/s", counts.rate), 3),
        (format!("{} queued", counts.queued), 1),
    ];
    if counts.rendering > 0 {
        parts.push((format!("rendering {}", count(counts.rendering, "page")), 7));
    }
    let columns = |parts: &[(String, u8)]| {
        parts
            .iter()
            .map(|(text, _)| text.chars().count())
            .sum::<usize>()
            + SEPARATOR.chars().count() * parts.len().saturating_sub(1)
    };
    while parts.len() > 1 && columns(&parts) > room {
        let least = parts
            .iter()
            .enumerate()
            .min_by_key(|(_, (_, stays))| *stays)
            .map_or(0, |(position, _)| position);
        parts.remove(least);
    }
    let mut line: String = parts
        .iter()
        .map(|(text, _)| text.as_str())
        .collect::<Vec<_>>()
        .join(SEPARATOR);
    let url = last_url
        .split_once("://")
        .map_or(last_url, |(_, rest)| rest);
    let left = room.saturating_sub(columns(&parts) + SEPARATOR.chars().count());
    if !url.is_empty() && left >= URL_COLUMNS {
        line.push_str(SEPARATOR);
        line.push_str(&cut_start(url, left));
    }
    line
}

/// The time since the start: `m:ss`, and `h:mm:ss` from an hour.
fn elapsed_text(elapsed: Duration) -> String {
    let seconds = elapsed.as_secs();
    let (hours, minutes, seconds) = (seconds / 3600, seconds / 60 % 60, seconds % 60);
    if hours > 0 {
        format!("{hours}:{minutes:02}:{seconds:02}")
    } else {
        format!("{minutes}:{seconds:02}")
    }
}

/// `text` in at most `columns` characters: its end, after an ellipsis, when it is longer.
fn cut_start(text: &str, columns: usize) -> String {
    let length = text.chars().count();
    if length <= columns {
        return text.to_string();
    }
    let kept: String = text.chars().skip(length - columns + 1).collect();
    format!("…{kept}")
}

/// Writes `bytes` (whole lines) to stderr, above the progress line while it shows.
fn write_stderr(bytes: &[u8]) {
    let shown = SHOWN.lock().unwrap_or_else(PoisonError::into_inner).clone();
    let write = || {
        // Nowhere to report a failure to write to stderr.
        let _ = std::io::stderr().lock().write_all(bytes);
    };
    match shown {
        Some(bar) => bar.suspend(write),
        None => write(),
    }
}

/// Prints one plain line on stderr (no timestamp, no level), above the progress line.
pub(crate) fn print_line(line: &str) {
    write_stderr(format!("{line}\n").as_bytes());
}

/// Where log lines go: each event is gathered, then written at once above the progress line.
#[derive(Debug, Default)]
pub(crate) struct LogWriter {
    buffer: Vec<u8>,
}

impl Write for LogWriter {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.buffer.extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Drop for LogWriter {
    fn drop(&mut self) {
        if !self.buffer.is_empty() {
            write_stderr(&self.buffer);
        }
    }
}

#[cfg(test)]
mod tests;
