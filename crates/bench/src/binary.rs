//! The sitemapper binaries a run measures, and how the benchmark speaks on stdout.

use std::path::PathBuf;

/// A sitemapper binary under measure.
#[derive(Debug, Clone)]
pub(crate) struct Binary {
    pub(crate) label: String,
    pub(crate) path: PathBuf,
}

/// Prints a line of the benchmark's report.
#[expect(clippy::print_stdout, reason = "the benchmark reports on stdout")]
pub(crate) fn say(text: &str) {
    println!("{text}");
}
