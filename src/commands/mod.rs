//! One module per subcommand.

pub mod crawl;
mod record;

/// How the user asked the binary to speak.
#[derive(Debug, Clone, Copy)]
pub struct Output {
    pub quiet: bool,
}
