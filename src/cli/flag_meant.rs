//! The flag a user probably meant by a long flag the command does not have. clap guesses by
//! Jaro likeness above 0.7, which misses a transposition in a short name (`--otu` is 0.56
//! from `--out`, and clap offers `-- --otu` instead) and finds likeness in unrelated names
//! (`--ot` is 0.71 from `--report-changes`). The guess here is the config file's for its
//! keys (`settings/keys.rs`): an edit distance that counts a transposition once, at most one
//! edit in three characters, among the flags of the command being read.

use std::ffi::OsString;

use clap::error::{ContextKind, ContextValue, ErrorKind};

/// `error`, naming the flag meant when it is an unknown long flag near one of the command's
/// flags; clap's own guess stays when none is near. `arguments` are the command line's,
/// program name first, from which the command being read is found.
pub(super) fn with_flag_meant(
    mut error: clap::Error,
    root: &clap::Command,
    arguments: impl IntoIterator<Item = OsString>,
) -> clap::Error {
    if error.kind() != ErrorKind::UnknownArgument {
        return error;
    }
    let Some(ContextValue::String(typed)) = error.get(ContextKind::InvalidArg) else {
        return error;
    };
    let Some(typed) = typed.strip_prefix("--") else {
        return error;
    };
    let mut command = command_being_read(root, arguments);
    let flags = command
        .get_arguments()
        .filter(|arg| !arg.is_hide_set())
        .filter_map(clap::Arg::get_long);
    let Some(meant) = nearest_name(typed, flags).map(|flag| format!("--{flag}")) else {
        return error;
    };
    // clap's tips (pass the flag as a value after `--`, or the flag of another command) are
    // for a flag nothing near was found for, and its usage line shows its own guess.
    error.remove(ContextKind::Suggested);
    error.insert(ContextKind::SuggestedArg, ContextValue::String(meant));
    error.insert(
        ContextKind::Usage,
        ContextValue::StyledStr(command.render_usage()),
    );
    error
}

/// The command or subcommand whose flags were being read when the parse stopped: the
/// command line read again with errors ignored, down the subcommands it names. Built, so
/// that its flags include the global ones and `--help`.
fn command_being_read(
    root: &clap::Command,
    arguments: impl IntoIterator<Item = OsString>,
) -> clap::Command {
    let mut command = root.clone();
    command.build();
    let Ok(matches) = root
        .clone()
        .ignore_errors(true)
        .try_get_matches_from(arguments)
    else {
        return command;
    };
    let mut matches = &matches;
    while let Some((name, inner_matches)) = matches.subcommand() {
        let Some(inner) = command.find_subcommand(name) else {
            break;
        };
        command = inner.clone();
        matches = inner_matches;
    }
    command
}

/// The name (a flag, a config file's key) nearest to `typed` by edit distance (a
/// transposition counts once; case and `_` for `-` are free), when it is near enough to be a
/// typo: at most one edit in three characters, and always one. Of names as near, the first.
pub(crate) fn nearest_name<'a>(
    typed: &str,
    names: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let typed = typed.to_lowercase().replace('_', "-");
    let limit = (typed.chars().count() / 3).max(1);
    names
        .into_iter()
        .map(|name| (strsim::damerau_levenshtein(&typed, name), name))
        .filter(|(distance, _)| *distance <= limit)
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, name)| name)
}

#[cfg(test)]
mod tests;
