//! `sitemapper completions SHELL` and `sitemapper man`: the shell completions and the manual
//! pages, generated from the command line's definition, so that they never differ from
//! `--help`.

use std::io::Write;

use anyhow::Context;

use crate::cli::{CompletionsArgs, ManArgs};
use crate::exit::Failure;

/// Prints the completion script of a shell on stdout.
pub(crate) fn completions(args: &CompletionsArgs) -> Result<(), Failure> {
    let mut command = crate::cli::command();
    let mut out = Vec::new();
    clap_complete::generate(args.shell, &mut command, "sitemapper", &mut out);
    crate::stdout::lock()
        .write_all(&out)
        .context("cannot write to stdout")?;
    Ok(())
}

/// Prints sitemapper(1) on stdout, or writes it and a page per command into `--dir`.
pub(crate) fn man(args: &ManArgs) -> Result<(), Failure> {
    let command = crate::cli::command();
    match &args.dir {
        Some(directory) => {
            std::fs::create_dir_all(directory)
                .with_context(|| format!("cannot create {}", directory.display()))?;
            clap_mangen::generate_to(command, directory)
                .with_context(|| format!("cannot write the manual into {}", directory.display()))?;
        }
        None => {
            let mut out = Vec::new();
            clap_mangen::Man::new(command)
                .render(&mut out)
                .context("cannot render the manual")?;
            crate::stdout::lock()
                .write_all(&out)
                .context("cannot write to stdout")?;
        }
    }
    Ok(())
}
