//! sitemapper: crawl a website and write its sitemaps. The binary is glue: it parses arguments,
//! resolves settings, runs the library crates and reports.

mod cli;
mod commands;
mod exit;
mod logging;
mod progress;
mod settings;
mod signals;
mod stdout;

use std::io::IsTerminal;
use std::process::ExitCode;

use tracing_subscriber::EnvFilter;

use crate::cli::{ColorName, Command};
use crate::exit::{ExitStatus, Failure, SaidOnStdout};
use crate::settings::{ConfigFile, Verbosity};

fn main() -> ExitCode {
    let cli = match cli::parse() {
        Ok(cli) => cli,
        Err(error) => return fail(&Failure::usage(error)),
    };
    let found = match ConfigFile::find(cli.config.as_deref()) {
        Ok(found) => found,
        Err(error) => return fail(&Failure::usage(error)),
    };
    let verbosity = Verbosity::resolve(cli.quiet, cli.verbose, cli.color, &found.file);
    init_logging(verbosity);
    signals::survive_file_size_limit();
    found.log();
    let file = found.file;
    let output = commands::Output {
        quiet: verbosity.quiet,
    };
    let result = match cli.command {
        Command::Crawl(args) => commands::crawl::run(*args, file, output),
        Command::Audit(args) => commands::audit::run(*args, file, output),
        Command::Explain(args) => commands::explain::run(args, file),
        Command::Runs(args) => commands::runs::run(args, file),
        Command::Mcp(args) => commands::mcp::run(args, file, cli.config.as_deref()),
        Command::Validate(args) => commands::validate::run(args, &file),
        Command::Fleet(args) => commands::fleet::run(args, file, output),
        Command::Worker(args) => commands::fleet::worker::run(args, file, output),
        Command::Completions(args) => commands::manual::completions(&args),
        Command::Man(args) => commands::manual::man(&args),
    };
    match result {
        Ok(()) => ExitCode::from(ExitStatus::Success as u8),
        // The reader of stdout stopped reading (`| head`): its choice, said by no error line.
        Err(_) if stdout::reader_gone() => ExitCode::from(ExitStatus::Success as u8),
        Err(failure) if failure.error.is::<SaidOnStdout>() => ExitCode::from(failure.status as u8),
        Err(failure) => fail(&failure),
    }
}

/// Prints the final error line and gives the failure's exit code.
fn fail(failure: &Failure) -> ExitCode {
    // One line: the error and its causes, joined.
    progress::print_line(&format!("error: {}", failure.line()));
    ExitCode::from(failure.status as u8)
}

/// sitemapper's own crates, by their log target (the crate name with `_`): -v and -vv speak
/// for these only. `EnvFilter` matches a target by its prefix, so `sitemapper` alone would
/// reach them all; each is named so that the list says which crates are ours, and a test
/// checks that every library crate of the workspace is in it.
const OWN_CRATES: [&str; 11] = [
    "sitemapper",
    "sitemapper_audit",
    "sitemapper_crawl",
    "sitemapper_extract",
    "sitemapper_fleet",
    "sitemapper_mcp",
    "sitemapper_render",
    "sitemapper_report",
    "sitemapper_site",
    "sitemapper_sitemap",
    "sitemapper_store",
];

/// The libraries whose logs are their internals (the HTML tokenizer's states, HTTP and TLS
/// frames, the browser protocol's messages): errors only, and the browser driver's not even
/// those (it reports every unknown protocol event), nor the certificate verifier's (its
/// error repeats, in its own words, the certificate problem the failed request says), nor
/// the protocol SDK's of `mcp` (it warns of every error answer the tools give, which the
/// assistant reads). `RUST_LOG` can still ask for them.
const LIBRARY_LEVELS: &str = "html5ever=error,markup5ever=error,selectors=error,scraper=error,\
    hyper=error,hyper_util=error,reqwest=error,h2=error,rustls=error,\
    rustls_platform_verifier=off,chromiumoxide=off,tungstenite=off,rmcp=error";

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

/// Logs go to stderr, above the progress line while it shows. `RUST_LOG` wins over -q/-v.
/// -v (info) logs each URL fetched; -vv (debug) adds sitemapper's own details. Without
/// either, the warnings and errors a run has to say read as the summary does (`Warning:
/// ...`, see `logging.rs`); with them, as logs.
fn init_logging(verbosity: Verbosity) {
    let level = match (verbosity.quiet, verbosity.verbose) {
        (true, _) => "error",
        (false, 0) => "warn",
        (false, 1) => "info",
        (false, 2) => "debug",
        (false, _) => "trace",
    };
    let others = if verbosity.quiet { "error" } else { "warn" };
    let mut directive = format!("{others},{LIBRARY_LEVELS}");
    for name in OWN_CRATES {
        directive.push_str(&format!(",{name}={level}"));
    }
    let from_environment = EnvFilter::try_from_default_env().ok();
    let logs_asked = from_environment.is_some() || verbosity.verbose > 0;
    let mut filter = from_environment.unwrap_or_else(|| EnvFilter::new(directive));
    for target in SECRET_TARGETS {
        if let Ok(off) = format!("{target}=off").parse() {
            filter = filter.add_directive(off);
        }
    }
    let color = use_color(verbosity.color);
    let subscriber = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(progress::LogWriter::default);
    if logs_asked {
        subscriber.with_ansi(color).with_target(false).init();
    } else {
        subscriber
            .fmt_fields(logging::ProseFields)
            .event_format(logging::Prose { color })
            .init();
    }
}

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

#[cfg(test)]
mod tests;
