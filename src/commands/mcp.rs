//! `sitemapper mcp --allow-dir DIR`: the tools served to an assistant over the Model Context
//! Protocol on stdin and stdout (the mcp crate), until the client closes stdin. Logs and
//! errors go to stderr: stdout is the protocol's.

use sitemapper_mcp::{McpError, McpSettings, serve};

use crate::cli::McpArgs;
use crate::exit::Failure;
use crate::settings::{ConfigFile, McpServerSettings};

/// Serves until the client goes; `config` is the config file the command line named, which
/// the tools' crawls read too.
pub(crate) fn run(
    args: McpArgs,
    file: ConfigFile,
    config: Option<&std::path::Path>,
) -> Result<(), Failure> {
    let settings = McpServerSettings::resolve(args, file).map_err(Failure::usage)?;
    let program = std::env::current_exe()
        .map_err(|error| Failure::fatal(anyhow::anyhow!("cannot find this program: {error}")))?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|error| Failure::fatal(anyhow::anyhow!("cannot start the runtime: {error}")))?;
    let served = runtime.block_on(serve(McpSettings {
        program,
        config: config.map(|config| std::path::absolute(config).unwrap_or(config.to_path_buf())),
        allowed_dirs: settings.allowed_dirs,
        allow_private: settings.allow_private,
        max_pages: settings.max_pages,
        max_time: settings.max_time,
    }));
    // A tool's child still running is ended with its own kill-on-drop; nothing waits on stdin.
    runtime.shutdown_timeout(std::time::Duration::from_secs(1));
    served.map_err(|error| match error {
        McpError::Directory(_) => Failure::usage(error),
        McpError::Session(_) => Failure::fatal(error),
    })
}
