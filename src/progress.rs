//! The progress line on stderr (shown only on a terminal, never with -q), and everything else
//! the binary writes to stderr while it may show: log lines and messages are printed above
//! it, never over it.

use std::io::{IsTerminal, Write};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use sitemapper_crawl::CrawlProgress;
use sitemapper_site::EventCounts;

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
        // `wide_msg` fills the terminal's width and cuts what does not fit: the line never
        // wraps, and the URL at its end is what is cut first.
        bar.set_style(
            ProgressStyle::with_template("{spinner} {elapsed:>4} {wide_msg}")
                .unwrap_or_else(|_| ProgressStyle::default_spinner()),
        );
        bar.enable_steady_tick(Duration::from_millis(120));
        *SHOWN.lock().unwrap_or_else(PoisonError::into_inner) = Some(bar.clone());
        let updater = bar.clone();
        let started = Instant::now();
        std::thread::spawn(move || {
            let terminal = console::Term::stderr();
            while !updater.is_finished() {
                let fetched = crawl.requests.load(Ordering::Relaxed);
                let now = Counts {
                    fetched,
                    queued: crawl.queued.load(Ordering::Relaxed),
                    listed: counts.listed.load(Ordering::Relaxed),
                    errors: counts.errors.load(Ordering::Relaxed),
                    rate: fetched as f64 / started.elapsed().as_secs_f64().max(0.001),
                };
                let last_url = counts
                    .last_url
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .clone();
                // Read each time: the terminal may be resized.
                let width = usize::from(terminal.size().1);
                updater.set_message(message(width, &now, &last_url));
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
    rate: f64,
}

/// Columns taken before the message: the spinner, the elapsed time and the spaces.
const BEFORE_MESSAGE: usize = 8;

/// The fewest columns worth giving the page's URL.
const URL_COLUMNS: usize = 24;

/// The progress line's message on a terminal `width` columns wide: the counts (fewer of them
/// when the terminal is narrow), then the page recorded last without its scheme, its start
/// cut when it does not fit (the end of a path is what tells pages apart).
fn message(width: usize, counts: &Counts, last_url: &str) -> String {
    let room = width.saturating_sub(BEFORE_MESSAGE);
    let full = format!(
        "fetched {} · queued {} · listed {} · errors {} · {:.1}/s",
        counts.fetched, counts.queued, counts.listed, counts.errors, counts.rate
    );
    let short = format!("{} fetched · {} queued", counts.fetched, counts.queued);
    let numbers = if full.chars().count() + 3 + URL_COLUMNS <= room {
        full
    } else if short.chars().count() + 3 + URL_COLUMNS <= room {
        short
    } else {
        format!("{} fetched", counts.fetched)
    };
    let url = last_url
        .split_once("://")
        .map_or(last_url, |(_, rest)| rest);
    let left = room.saturating_sub(numbers.chars().count() + 3);
    if url.is_empty() || left < 8 {
        return numbers;
    }
    format!("{numbers} · {}", cut_start(url, left))
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
mod tests {
    use super::*;

    const COUNTS: Counts = Counts {
        fetched: 1200,
        queued: 45,
        listed: 1100,
        errors: 3,
        rate: 12.5,
    };

    #[test]
    fn a_wide_terminal_shows_every_count_and_the_whole_url() {
        let line = message(160, &COUNTS, "https://example.com/docs/page");
        assert_eq!(
            line,
            "fetched 1200 · queued 45 · listed 1100 · errors 3 · 12.5/s · example.com/docs/page"
        );
    }

    #[test]
    fn a_narrow_terminal_keeps_the_end_of_the_url_and_fits() {
        for width in [40, 60, 80] {
            let line = message(
                width,
                &COUNTS,
                "https://example.com/a/very/long/path/page-17",
            );
            assert!(
                line.chars().count() + BEFORE_MESSAGE <= width,
                "{width}: {line:?}"
            );
            assert!(line.ends_with("page-17"), "{width}: {line:?}");
        }
        assert_eq!(
            message(60, &COUNTS, "https://example.com/a/very/long/path/page-17"),
            "1200 fetched · 45 queued · …a/very/long/path/page-17"
        );
    }

    #[test]
    fn no_url_yet_shows_the_counts_alone() {
        assert_eq!(message(60, &COUNTS, ""), "1200 fetched · 45 queued");
    }
}
