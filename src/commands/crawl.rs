//! `sitemapper crawl URL`: crawl a site, record every URL in the crawl database, and publish
//! the sitemaps of the indexable ones. The run itself is the site crate's; here are the
//! flags, the signals, the progress line and the summary.

#[cfg(test)]
mod tests;

use std::sync::{Arc, OnceLock};

use sitemapper_crawl::{CrawlProgress, PaceBoard, RequestObserver};
use sitemapper_site::{
    CrawlReport, ErrorKind, EventCounts, ReadSitemaps, RunContext, RunFacts, SiteError, SiteRun,
    Watcher,
};
use tokio::sync::watch;

use super::Output;
use super::json;
use crate::cli::{CrawlArgs, SummaryFormat};
use crate::exit::{ExitStatus, Failure};
use crate::progress::Progress;
use crate::settings::{ConfigFile, CrawlSettings, summary_format};
use crate::signals::{StopSignal, spawn_signal_thread};
use crate::stdout::RunStdout;

pub(crate) fn run(args: CrawlArgs, file: ConfigFile, output: Output) -> Result<(), Failure> {
    // Until the options are checked, the flag or the config file says whether to print JSON.
    let asked = summary_format(args.summary, &file);
    let settings = CrawlSettings::resolve(args, file)
        .map_err(|error| json::failed("crawl", asked, Failure::usage(error)))?;
    let crawled = crawl_and_publish(
        &settings,
        output,
        None,
        Stopper::Signals(&Signals::listen()),
    )
    .map_err(|failure| json::failed("crawl", settings.summary, failure))?;
    match settings.summary {
        SummaryFormat::Text if output.quiet => {}
        SummaryFormat::Text => print_summary(&crawled, &settings)?,
        SummaryFormat::Json => {
            let summary = sitemapper_site::CrawlJson::new(&crawled, &settings.site)?;
            json::print("crawl", ExitStatus::Success, None, &summary)?;
        }
    }
    Ok(())
}

/// Prints the summary of a finished run on stderr.
fn print_summary(crawled: &SiteRun, settings: &CrawlSettings) -> anyhow::Result<()> {
    CrawlReport::new(RunFacts::of(crawled)?, &settings.site).print()?;
    Ok(())
}

/// How a crawl runs inside a larger run (a fleet's site): it shares the pace of hosts with
/// the other crawls, and is stopped by its owner rather than by signals of its own.
#[derive(Debug, Clone)]
pub(crate) struct Embedding {
    pub pace: Arc<PaceBoard>,
    /// Becomes `true` when the crawl must stop (nothing published, the run interrupted).
    pub stop: watch::Receiver<bool>,
    /// Told of every request of the crawl: the fleet's metrics.
    pub requests: Option<Arc<dyn RequestObserver>>,
}

/// Ctrl-C and SIGTERM, listened to on a thread for a whole command: a crawl, or an audit's
/// crawl and every phase after it (the first stops, a second ends the process at once).
#[derive(Debug, Clone)]
pub(crate) struct Signals {
    /// Becomes `true` at the first signal.
    pub(crate) stop: watch::Receiver<bool>,
    received: Arc<OnceLock<StopSignal>>,
}

impl Signals {
    /// Starts listening.
    pub(crate) fn listen() -> Signals {
        let (stop, stopped) = watch::channel(false);
        let received = Arc::new(OnceLock::new());
        spawn_signal_thread(stop, Arc::clone(&received), stopping_line);
        Signals {
            stop: stopped,
            received,
        }
    }

    /// The signal received, if one was.
    pub(crate) fn received(&self) -> Option<StopSignal> {
        self.received.get().copied()
    }
}

/// What stops a crawl: the command's signals, or the run it is part of.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Stopper<'a> {
    /// Ctrl-C and SIGTERM.
    Signals(&'a Signals),
    /// Its owner (a fleet): the crawl listens to no signal of its own.
    Embedded(&'a Embedding),
}

/// Runs the site (the site crate's [`sitemapper_site::run`]) with the progress line, and
/// ends it with the exit status of how it ended. The site's sitemaps read as seeds are kept
/// in `read_sitemaps` when it is given. `stopper` says what stops it.
pub(crate) fn crawl_and_publish(
    settings: &CrawlSettings,
    output: Output,
    read_sitemaps: Option<ReadSitemaps>,
    stopper: Stopper<'_>,
) -> Result<SiteRun, Failure> {
    // With a JSON summary stderr carries warnings and errors only.
    let quiet = output.quiet || settings.summary == SummaryFormat::Json;
    let mut progress = ProgressLine { quiet, shown: None };
    let (stop, pace, requests, signals) = match stopper {
        Stopper::Embedded(embedding) => (
            embedding.stop.clone(),
            Some(Arc::clone(&embedding.pace)),
            embedding.requests.clone(),
            None,
        ),
        Stopper::Signals(signals) => (signals.stop.clone(), None, None, Some(signals)),
    };
    let context = RunContext {
        stop: Some(stop),
        pace,
        requests,
        read_sitemaps,
        watcher: Some(&mut progress),
        stdout: Some(&RunStdout),
    };
    sitemapper_site::run(&settings.site, context).map_err(|error| {
        let signal = signals.and_then(Signals::received);
        failure(error, signal)
    })
}

/// What a command says when a signal stops it.
fn stopping_line(signal: StopSignal) -> &'static str {
    match signal {
        StopSignal::Interrupt => {
            "Stopping: no new request, nothing published (Ctrl-C again quits at once)."
        }
        StopSignal::Terminate => "SIGTERM: stopping, nothing published.",
    }
}

/// The failure of a command a signal stopped after its crawl (an audit checking the links to
/// other sites): the exit status a stopped crawl has, and a line that says so.
pub(crate) fn stopped_after_crawl(signal: Option<StopSignal>, doing: &str) -> Failure {
    let signal = signal.unwrap_or(StopSignal::Interrupt);
    Failure {
        status: signal.exit_status(),
        error: anyhow::anyhow!("{} while {doing}: nothing written", signal.describe()),
    }
}

/// The exit status of how a run ended, and its error line.
fn failure(error: SiteError, signal: Option<StopSignal>) -> Failure {
    let status = match error.kind() {
        ErrorKind::Usage => ExitStatus::Usage,
        ErrorKind::Locked => ExitStatus::Locked,
        ErrorKind::Fatal => ExitStatus::Fatal,
        ErrorKind::AfterPublishing => ExitStatus::AfterPublishing,
        ErrorKind::NotPublished => ExitStatus::NotPublished,
        ErrorKind::Stopped => signal.unwrap_or(StopSignal::Interrupt).exit_status(),
    };
    // A stopped run says how: "interrupted after ...", "terminated (SIGTERM) after ...".
    let how = signal.unwrap_or(StopSignal::Interrupt).describe();
    let error = match error.stopped_line(how) {
        Some(line) => anyhow::anyhow!(line),
        None => anyhow::Error::from(error),
    };
    Failure { status, error }
}

/// The progress line, drawn while the crawl runs.
#[derive(Debug)]
struct ProgressLine {
    quiet: bool,
    shown: Option<Progress>,
}

impl Watcher for ProgressLine {
    fn crawl_started(&mut self, crawl: Arc<CrawlProgress>, recorded: Arc<EventCounts>) {
        self.shown = Some(Progress::start(self.quiet, crawl, recorded));
    }

    fn crawl_ended(&mut self) {
        if let Some(progress) = self.shown.take() {
            progress.finish();
        }
    }
}
