//! [`PathProblem`]: why a path a run would write cannot be written, read from what the system
//! said and put in terms of what the user can fix. A leaf: it names nothing else of the crate.

use std::path::{Path, PathBuf};

/// Why a path a run would write cannot be written, in terms of what the user can fix.
#[derive(Debug)]
pub enum PathProblem {
    /// The directory it goes in does not exist (and is not the run's to create).
    MissingDirectory(PathBuf),
    /// A file stands where a directory must be.
    NotADirectory(PathBuf),
    /// A directory stands where the file goes.
    IsADirectory,
    /// This user may not create files in the directory.
    PermissionDenied(PathBuf),
    /// The file system is mounted read-only.
    ReadOnly,
    /// The directory holds the run's databases, and another user owns it or may write in
    /// it (a predictable name in a shared temp directory, taken first).
    NotPrivate,
    /// What the system said, for any other failure.
    Io(std::io::Error),
}

impl PathProblem {
    /// The problem `error` says, writing in `directory`.
    pub(crate) fn of(error: &std::io::Error, directory: &Path) -> PathProblem {
        use std::io::ErrorKind;
        match error.kind() {
            ErrorKind::NotFound => PathProblem::MissingDirectory(directory.to_path_buf()),
            ErrorKind::NotADirectory => match first_file_among(directory) {
                Some(file) => PathProblem::NotADirectory(file),
                None => PathProblem::Io(std::io::Error::from(error.kind())),
            },
            ErrorKind::IsADirectory => PathProblem::IsADirectory,
            // Where the run was refused: the directory, or the last of its parents that
            // exists when it had to be created.
            ErrorKind::PermissionDenied => PathProblem::PermissionDenied(
                directory
                    .ancestors()
                    .find(|ancestor| ancestor.exists())
                    .unwrap_or(directory)
                    .to_path_buf(),
            ),
            ErrorKind::ReadOnlyFilesystem => PathProblem::ReadOnly,
            _ => PathProblem::Io(std::io::Error::new(error.kind(), error.to_string())),
        }
    }
}

/// The first of `directory` and its parents, from the root down, that exists and is not a
/// directory.
fn first_file_among(directory: &Path) -> Option<PathBuf> {
    let mut ancestors: Vec<&Path> = directory.ancestors().collect();
    ancestors.reverse();
    ancestors
        .into_iter()
        .find(|ancestor| ancestor.exists() && !ancestor.is_dir())
        .map(Path::to_path_buf)
}

impl std::fmt::Display for PathProblem {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PathProblem::MissingDirectory(directory) => write!(
                formatter,
                "the directory {} does not exist: create it first",
                directory.display()
            ),
            PathProblem::NotADirectory(file) => {
                write!(formatter, "{} is a file, not a directory", file.display())
            }
            PathProblem::IsADirectory => formatter.write_str("it is a directory: name a file"),
            PathProblem::PermissionDenied(directory) => write!(
                formatter,
                "this user may not create files in {}",
                directory.display()
            ),
            PathProblem::ReadOnly => formatter.write_str("the file system is read-only"),
            PathProblem::NotPrivate => formatter.write_str(
                "another user owns it or may write in it: give a directory of this user's alone",
            ),
            PathProblem::Io(error) => write!(formatter, "{error}"),
        }
    }
}
