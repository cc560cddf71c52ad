//! The directories the server may touch: every path a tool is given is resolved (relative to
//! the first directory, symbolic links followed) and refused unless it lies in one of them.

use std::path::{Component, Path, PathBuf};

/// A path a tool may not use, in words for the assistant.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{path} is outside the directories this server may use ({allowed})")]
pub struct Refused {
    /// The path, as resolved.
    pub path: String,
    /// The allowed directories.
    pub allowed: String,
}

/// The allowed directories, resolved once at start.
#[derive(Debug, Clone)]
pub(crate) struct AllowedDirs {
    roots: Vec<PathBuf>,
}

impl AllowedDirs {
    /// Resolves `dirs`, each of which must exist.
    pub(crate) fn new(dirs: &[PathBuf]) -> std::io::Result<AllowedDirs> {
        let roots = dirs
            .iter()
            .map(|dir| {
                dir.canonicalize().map_err(|error| {
                    std::io::Error::new(error.kind(), format!("{}: {error}", dir.display()))
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(AllowedDirs { roots })
    }

    /// The allowed directories.
    pub(crate) fn roots(&self) -> &[PathBuf] {
        &self.roots
    }

    /// `path` resolved (relative to the first directory), when it lies in an allowed
    /// directory: its deepest existing ancestor with its links followed, then the rest, which
    /// may not climb with `..`.
    pub(crate) fn check(&self, path: &Path) -> Result<PathBuf, Refused> {
        let absolute = match (path.is_absolute(), self.roots.first()) {
            (true, _) | (false, None) => path.to_path_buf(),
            (false, Some(first)) => first.join(path),
        };
        let refused = || Refused {
            path: absolute.display().to_string(),
            allowed: self
                .roots
                .iter()
                .map(|root| root.display().to_string())
                .collect::<Vec<_>>()
                .join(", "),
        };
        let mut existing = absolute.as_path();
        let mut rest = Vec::new();
        let resolved = loop {
            match existing.canonicalize() {
                Ok(resolved) => break resolved,
                Err(_) => {
                    let (Some(parent), Some(name)) = (existing.parent(), existing.file_name())
                    else {
                        return Err(refused());
                    };
                    rest.push(name.to_os_string());
                    existing = parent;
                }
            }
        };
        let mut full = resolved;
        for name in rest.into_iter().rev() {
            let name = PathBuf::from(name);
            if name
                .components()
                .any(|component| !matches!(component, Component::Normal(_)))
            {
                return Err(refused());
            }
            full.push(name);
        }
        if self.roots.iter().any(|root| full.starts_with(root)) {
            Ok(full)
        } else {
            Err(refused())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_inside_are_resolved_and_paths_outside_refused() {
        let base = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
        let allowed = base.path().join("allowed");
        let other = base.path().join("other");
        std::fs::create_dir_all(allowed.join("site")).unwrap_or_else(|error| panic!("{error}"));
        std::fs::create_dir_all(&other).unwrap_or_else(|error| panic!("{error}"));
        std::os::unix::fs::symlink(&other, allowed.join("link"))
            .unwrap_or_else(|error| panic!("{error}"));
        let dirs = AllowedDirs::new(std::slice::from_ref(&allowed))
            .unwrap_or_else(|error| panic!("{error}"));
        let root = allowed
            .canonicalize()
            .unwrap_or_else(|error| panic!("{error}"));

        assert_eq!(
            dirs.check(Path::new("site/crawl.db")),
            Ok(root.join("site/crawl.db"))
        );
        assert_eq!(
            dirs.check(&allowed.join("new/deeper/out")),
            Ok(root.join("new/deeper/out")),
            "a directory still to be made"
        );
        assert!(dirs.check(Path::new("../other/x")).is_err());
        assert!(
            dirs.check(Path::new("link/x")).is_err(),
            "a link that leads out"
        );
        assert!(dirs.check(Path::new("new/../../other")).is_err());
        assert!(dirs.check(Path::new("/etc/passwd")).is_err());
        let refused = dirs.check(&other).unwrap_err();
        assert!(
            refused.to_string().contains("outside the directories"),
            "{refused}"
        );
    }
}
