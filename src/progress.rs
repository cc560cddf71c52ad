//! The progress line on stderr: shown only on a terminal, never with -q.

use std::io::IsTerminal;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use sitemapper_crawl::CrawlProgress;

/// Counts kept by the binary as events arrive.
#[derive(Debug, Default)]
pub(crate) struct EventCounts {
    pub listed: AtomicU64,
    pub errors: AtomicU64,
}

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
        bar.set_style(
            ProgressStyle::with_template("{spinner} {elapsed:>4} {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_spinner()),
        );
        bar.enable_steady_tick(Duration::from_millis(120));
        let updater = bar.clone();
        let started = Instant::now();
        std::thread::spawn(move || {
            while !updater.is_finished() {
                let fetched = crawl.requests.load(Ordering::Relaxed);
                let rate = fetched as f64 / started.elapsed().as_secs_f64().max(0.001);
                updater.set_message(format!(
                    "fetched {fetched} · queued {} · listed {} · errors {} · {rate:.1} pages/s",
                    crawl.queued.load(Ordering::Relaxed),
                    counts.listed.load(Ordering::Relaxed),
                    counts.errors.load(Ordering::Relaxed),
                ));
                std::thread::sleep(Duration::from_millis(200));
            }
        });
        Progress { bar: Some(bar) }
    }

    pub(crate) fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
