//! Where a run writes what its settings send to stdout ([`OutputTarget::Stdout`]): the sitemap
//! (`--out -`), the change report and the list of URLs not listed (`-`). The program that runs
//! the site says where that goes, and what a reader that has gone means to it; without one,
//! it goes to the process's standard output.
//!
//! [`OutputTarget::Stdout`]: crate::OutputTarget::Stdout

use std::io::Write;

/// Where a run's writes to stdout go.
pub trait Stdout {
    /// A writer for the run's own output, the sitemap: a write that fails fails the run.
    fn output(&self) -> Box<dyn Write + '_>;
    /// A writer for an output beside the run's work (the change report, the URLs not
    /// listed): it may drop what it is given once its reader has gone, and the run goes on.
    fn beside(&self) -> Box<dyn Write + '_>;
}

/// The process's standard output, for both.
#[derive(Debug, Clone, Copy, Default)]
pub struct ProcessStdout;

impl Stdout for ProcessStdout {
    fn output(&self) -> Box<dyn Write + '_> {
        Box::new(process_stdout())
    }

    fn beside(&self) -> Box<dyn Write + '_> {
        Box::new(process_stdout())
    }
}

#[expect(
    clippy::disallowed_methods,
    reason = "a run embedded without a stdout of its caller's writes to the process's"
)]
fn process_stdout() -> std::io::StdoutLock<'static> {
    std::io::stdout().lock()
}
