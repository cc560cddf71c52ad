//! [`OutputTarget`]: where a run writes something asked of it, a path or stdout (`-`). A
//! leaf: it names nothing else of the crate.

use std::path::{Path, PathBuf};

/// Where a run writes something asked of it: a path, or stdout (`-`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OutputTarget {
    /// A file or directory.
    Path(PathBuf),
    /// The process's standard output.
    Stdout,
}

impl OutputTarget {
    /// `-` is stdout; anything else a path.
    pub fn from_path(path: PathBuf) -> OutputTarget {
        if path.as_os_str() == "-" {
            OutputTarget::Stdout
        } else {
            OutputTarget::Path(path)
        }
    }

    /// The path, unless stdout.
    pub fn path(&self) -> Option<&Path> {
        match self {
            OutputTarget::Path(path) => Some(path),
            OutputTarget::Stdout => None,
        }
    }
}

impl std::fmt::Display for OutputTarget {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OutputTarget::Path(path) => write!(formatter, "{}", path.display()),
            OutputTarget::Stdout => formatter.write_str("stdout"),
        }
    }
}
