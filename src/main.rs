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

use tracing_subscriber::EnvFilter;

use crate::cli::{ColorName, Command};
use crate::exit::{ExitStatus, Failure};
use crate::settings::{ConfigFile, Verbosity};

fn main() -> ExitCode {
    let cli = cli::parse();
    let file = match ConfigFile::find(cli.config.as_deref()) {
        Ok(file) => file,
        Err(error) => return fail(&Failure::usage(error)),
    };
    let verbosity = Verbosity::resolve(cli.quiet, cli.verbose, cli.color, &file);
    init_logging(verbosity);
    let output = commands::Output {
        quiet: verbosity.quiet,
    };
    let result = match cli.command {
        Command::Crawl(args) => commands::crawl::run(*args, file, output),
        Command::Audit(args) => commands::audit::run(*args, file, output),
        Command::Runs(args) => commands::runs::run(args, file),
        Command::Validate(args) => commands::validate::run(args),
        Command::Completions(args) => commands::manual::completions(&args),
        Command::Man(args) => commands::manual::man(&args),
    };
    match result {
        Ok(()) => ExitCode::from(ExitStatus::Success as u8),
        Err(failure) => fail(&failure),
    }
}

/// Prints the final error line and gives the failure's exit code.
fn fail(failure: &Failure) -> ExitCode {
    // One line: the error and its causes, joined.
    progress::print_line(&format!("error: {:#}", failure.error));
    ExitCode::from(failure.status as u8)
}

/// Logs go to stderr, above the progress line while it shows. `RUST_LOG` wins over -q/-v.
/// Only sitemapper's own crates log below warnings: the HTML parser's, the HTTP libraries'
/// and the browser driver's internals stay out unless `RUST_LOG` names them.
fn init_logging(verbosity: Verbosity) {
    let level = match (verbosity.quiet, verbosity.verbose) {
        (true, _) => "error",
        (false, 0) => "warn",
        (false, 1) => "info",
        (false, 2) => "debug",
        (false, _) => "trace",
    };
    let own = OWN_CRATES
        .iter()
        .map(|name| format!("{name}={level}"))
        .collect::<Vec<_>>()
        .join(",");
    let directive = if verbosity.quiet {
        "error".to_string()
    } else {
        format!("warn,{own},chromiumoxide=off,tungstenite=off")
    };
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(directive));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(progress::LogWriter::default)
        .with_ansi(use_color(verbosity.color))
        .with_target(false)
        .init();
}

/// The crates whose logs -v and -vv show.
const OWN_CRATES: &[&str] = &[
    "sitemapper",
    "sitemapper_crawl",
    "sitemapper_extract",
    "sitemapper_store",
    "sitemapper_sitemap",
    "sitemapper_audit",
    "sitemapper_render",
];

/// Whether stderr gets colour: `auto` on a terminal unless NO_COLOR is set (not empty).
pub(crate) fn use_color(color: ColorName) -> bool {
    match color {
        ColorName::Always => true,
        ColorName::Never => false,
        ColorName::Auto => {
            std::io::stderr().is_terminal()
                && std::env::var_os("NO_COLOR").is_none_or(|value| value.is_empty())
        }
    }
}
