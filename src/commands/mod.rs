//! One module per subcommand, and what they share: the JSON summary.

pub(crate) mod audit;
pub(crate) mod crawl;
pub(crate) mod explain;
pub(crate) mod fleet;
pub(crate) mod json;
pub(crate) mod manual;
pub(crate) mod mcp;
pub(crate) mod runs;
pub(crate) mod validate;

/// How the user asked the binary to speak.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Output {
    pub quiet: bool,
}
