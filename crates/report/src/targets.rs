//! What the report's directory and its CI files must be before an audit makes any request
//! (docs/design.md, Safety): no link or special file at a name of the report's crawl database,
//! and a `--sarif` or `--junit` file that can be written, without opening a link or a FIFO at
//! its name.

use std::path::Path;

use sitemapper_site::SiteError;
use sitemapper_sitemap::{Directory, Occupant};

/// Why a report target cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum TargetError {
    /// Refused as it stands, with why and what to do, in one line.
    #[error("{0}")]
    Refused(String),
    /// The file cannot be written, as the site's outputs are checked.
    #[error(transparent)]
    Output(#[from] SiteError),
}

/// The names SQLite opens for the report's crawl database: the file, its write-ahead log and
/// shared memory, and a rollback journal.
const DATABASE_FILES: [&str; 4] = [
    "crawl.db",
    "crawl.db-wal",
    "crawl.db-shm",
    "crawl.db-journal",
];

/// Refuses a link, a directory or a special file at a name of the crawl database kept in the
/// report directory `report`. The lock and SQLite open these files by path and would write
/// through a link planted in the report directory, into another sitemapper database anywhere
/// (the store refuses only one whose tables are not its own). Checked before the run locks
/// or opens anything; a `--state` the user names, link or not, is the user's to choose.
pub fn database_not_through_link(report: &Path) -> Result<(), TargetError> {
    let directory = Directory::open(report).map_err(|error| {
        TargetError::Refused(format!(
            "cannot open --report {}: {error}",
            report.display()
        ))
    })?;
    for name in DATABASE_FILES {
        let path = directory.join(name);
        let what = match directory.occupant(name) {
            Ok(Occupant::Nothing | Occupant::File) => continue,
            Ok(Occupant::Link) => "a link",
            Ok(Occupant::Directory) => "a directory",
            Ok(Occupant::Other) => "not a regular file",
            Err(error) => {
                return Err(TargetError::Refused(format!(
                    "cannot read {}: {error}",
                    path.display()
                )));
            }
        };
        return Err(TargetError::Refused(format!(
            "{} is {what}: the audit's crawl database is kept in --report as regular files, \
             never written through a link; remove it, or give --state FILE",
            path.display()
        )));
    }
    Ok(())
}

/// Checks that the CI file `path` (of `option`, `--sarif` or `--junit`) can be written. It is
/// written new and renamed into place ([`crate::write_report`]), which replaces a link or a
/// special file at its name: such a file is not opened now (through a link, or a FIFO that
/// would hold the run), the directory is tried with a new file of its own instead.
pub fn writable_ci_file(option: &'static str, path: &Path) -> Result<(), TargetError> {
    let (Some(name), Some(parent)) = (
        path.file_name().and_then(|name| name.to_str()),
        path.parent(),
    ) else {
        return Ok(sitemapper_site::writable_output_file(option, path)?);
    };
    let parent = Some(parent)
        .filter(|parent| !parent.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let Ok(directory) = Directory::open(parent) else {
        // Its words for a directory that is missing or not one.
        return Ok(sitemapper_site::writable_output_file(option, path)?);
    };
    match directory.occupant(name) {
        Ok(Occupant::Link | Occupant::Other) => {
            directory.new_file(name).map(drop).map_err(|error| {
                TargetError::Refused(format!("cannot write {option} {}: {error}", path.display()))
            })
        }
        Ok(Occupant::Nothing | Occupant::File | Occupant::Directory) | Err(_) => {
            Ok(sitemapper_site::writable_output_file(option, path)?)
        }
    }
}
