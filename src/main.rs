//! sitemapper: crawl a website and write its sitemaps. The binary is glue: it parses arguments,
//! resolves settings, runs the library crates and reports.

mod cli;
mod commands;
mod memory;
mod progress;
mod settings;

use std::io::IsTerminal;
use std::process::ExitCode;

use clap::Parser;
use tracing_subscriber::EnvFilter;

use crate::cli::{Cli, Command};

/// The documented exit codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitStatus {
    /// The run did what was asked.
    Success = 0,
    /// The run could not finish: seed unreachable, output not writable, nothing to list.
    Fatal = 1,
    /// The command line or the config file is wrong.
    Usage = 2,
    /// Another run holds the output directory or the crawl database.
    Locked = 3,
    /// `audit --fail-on`: findings at that level exist.
    Findings = 4,
    /// Stopped by Ctrl-C (128 + SIGINT, as shells report it).
    Interrupted = 130,
    /// Stopped by SIGTERM (128 + 15).
    Terminated = 143,
}

/// An error that ends the run with its exit status.
#[derive(Debug)]
pub struct Failure {
    pub status: ExitStatus,
    pub error: anyhow::Error,
}

impl Failure {
    pub fn fatal(error: impl Into<anyhow::Error>) -> Failure {
        Failure {
            status: ExitStatus::Fatal,
            error: error.into(),
        }
    }

    pub fn usage(error: impl Into<anyhow::Error>) -> Failure {
        Failure {
            status: ExitStatus::Usage,
            error: error.into(),
        }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    init_logging(cli.quiet, cli.verbose);
    let output = commands::Output { quiet: cli.quiet };
    let result = match cli.command {
        Command::Crawl(args) => commands::crawl::run(*args, output),
        Command::Audit(args) => commands::audit::run(*args, output),
        Command::Runs(args) => commands::runs::run(args),
        Command::Validate(args) => commands::validate::run(args),
    };
    match result {
        Ok(()) => ExitCode::from(ExitStatus::Success as u8),
        Err(failure) => {
            // One line: the error and its causes, joined.
            #[expect(
                clippy::print_stderr,
                reason = "the binary owns stderr; this is the final error line"
            )]
            {
                eprintln!("error: {:#}", failure.error);
            }
            ExitCode::from(failure.status as u8)
        }
    }
}

/// Logs go to stderr. `RUST_LOG` wins over -q/-v; colour only on a terminal without NO_COLOR.
fn init_logging(quiet: bool, verbose: u8) {
    let level = match (quiet, verbose) {
        (true, _) => "error",
        (false, 0) => "warn",
        (false, 1) => "info",
        (false, 2) => "debug",
        (false, _) => "trace",
    };
    let directive = format!("{level},hyper=warn,reqwest=warn,rustls=warn,h2=warn");
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(directive));
    let color = std::io::stderr().is_terminal()
        && std::env::var_os("NO_COLOR").is_none_or(|value| value.is_empty());
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(color)
        .with_target(false)
        .init();
}
