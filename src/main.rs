//! sitemapper: crawl a website and write its sitemaps. The binary is glue: it parses arguments,
//! resolves settings, runs the library crates and reports.

mod cli;
mod commands;
mod exit;
mod memory;
mod progress;
mod settings;

use std::io::IsTerminal;
use std::process::ExitCode;

use clap::Parser;
use tracing_subscriber::EnvFilter;

use crate::cli::{Cli, Command};
use crate::exit::ExitStatus;

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

/// sitemapper's own crates: -v and -vv speak for these only.
const OWN_CRATES: [&str; 7] = [
    "sitemapper",
    "sitemapper_audit",
    "sitemapper_crawl",
    "sitemapper_extract",
    "sitemapper_render",
    "sitemapper_sitemap",
    "sitemapper_store",
];

/// The libraries whose logs are their internals (the HTML tokenizer's states, HTTP and TLS
/// frames, the browser protocol's messages): errors only, and the browser driver's not even
/// those (it reports every unknown protocol event). `RUST_LOG` can still ask for them.
const LIBRARY_LEVELS: &str = "html5ever=error,markup5ever=error,selectors=error,scraper=error,\
    hyper=error,hyper_util=error,reqwest=error,h2=error,rustls=error,\
    chromiumoxide=off,tungstenite=off";

/// Logs go to stderr. `RUST_LOG` wins over -q/-v; colour only on a terminal without NO_COLOR.
/// -v (info) logs each URL fetched; -vv (debug) adds sitemapper's own details.
fn init_logging(quiet: bool, verbose: u8) {
    let level = match (quiet, verbose) {
        (true, _) => "error",
        (false, 0) => "warn",
        (false, 1) => "info",
        (false, 2) => "debug",
        (false, _) => "trace",
    };
    let others = if quiet { "error" } else { "warn" };
    let mut directive = format!("{others},{LIBRARY_LEVELS}");
    for name in OWN_CRATES {
        directive.push_str(&format!(",{name}={level}"));
    }
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
