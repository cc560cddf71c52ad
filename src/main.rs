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

/// Log targets that are never shown, whatever `RUST_LOG` says, because they write a site's
/// secrets: the cookie jar logs the cookies it stores, values included, and the DevTools
/// connection logs the messages to the browser, which carry the headers added to the
/// requests of a page's scripts.
const SECRET_TARGETS: &[&str] = &[
    "cookie_store",
    "chromiumoxide",
    "chromiumoxide_cdp",
    "tungstenite",
];

/// Logs go to stderr. `RUST_LOG` wins over -q/-v; colour only on a terminal without NO_COLOR.
fn init_logging(quiet: bool, verbose: u8) {
    let level = match (quiet, verbose) {
        (true, _) => "error",
        (false, 0) => "warn",
        (false, 1) => "info",
        (false, 2) => "debug",
        (false, _) => "trace",
    };
    let directive = format!(
        "{level},hyper=warn,reqwest=warn,rustls=warn,h2=warn,chromiumoxide=off,tungstenite=off"
    );
    let mut filter =
        EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(directive));
    for target in SECRET_TARGETS {
        if let Ok(off) = format!("{target}=off").parse() {
            filter = filter.add_directive(off);
        }
    }
    let color = std::io::stderr().is_terminal()
        && std::env::var_os("NO_COLOR").is_none_or(|value| value.is_empty());
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(color)
        .with_target(false)
        .init();
}
