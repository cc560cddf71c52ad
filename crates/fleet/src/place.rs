//! The place a path names, so that two paths written differently can be compared: `o/common`
//! beside the fleet file and `/srv/fleet/o/x/../common` are one directory, and so is a
//! symlink and the directory it points to.

use std::path::{Component, Path, PathBuf};

/// The place `path` names: made absolute (from the working directory), its longest existing
/// ancestor resolved by the filesystem (symlinks, and `..` after a symlink, as the kernel
/// reads them), and the rest, which does not exist yet, resolved lexically (`.` dropped, `..`
/// taking off the last part).
pub(crate) fn place_of(path: &Path) -> PathBuf {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    for existing in absolute.ancestors() {
        // Resolving fails for an ancestor that does not exist (or cannot be read): the next,
        // shorter one is tried; the root always resolves.
        if let Ok(resolved) = existing.canonicalize() {
            let rest = absolute.strip_prefix(existing).unwrap_or(Path::new(""));
            return lexical(&resolved.join(rest));
        }
    }
    lexical(&absolute)
}

/// `path` with `.` dropped and each `..` taking off the part before it (never the root).
fn lexical(path: &Path) -> PathBuf {
    let mut place = PathBuf::new();
    for component in path.components() {
        match component {
            Component::Prefix(_) | Component::RootDir | Component::Normal(_) => {
                place.push(component);
            }
            Component::CurDir => {}
            Component::ParentDir => {
                place.pop();
            }
        }
    }
    place
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dots_resolve_lexically_where_nothing_exists() {
        let root = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
        let base = root
            .path()
            .canonicalize()
            .unwrap_or_else(|error| panic!("{error}"));
        assert_eq!(
            place_of(&base.join("o/x/../common/./")),
            base.join("o/common")
        );
        assert_eq!(
            place_of(&base.join("o/../../..")),
            lexical(&base.join("../.."))
        );
        assert_eq!(lexical(Path::new("/../a")), PathBuf::from("/a"));
    }

    #[cfg(unix)]
    #[test]
    fn a_symlink_is_the_directory_it_points_to() {
        let root = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
        let base = root
            .path()
            .canonicalize()
            .unwrap_or_else(|error| panic!("{error}"));
        std::fs::create_dir_all(base.join("real/deep")).unwrap_or_else(|error| panic!("{error}"));
        std::os::unix::fs::symlink(base.join("real/deep"), base.join("link"))
            .unwrap_or_else(|error| panic!("{error}"));
        assert_eq!(
            place_of(&base.join("link/site")),
            base.join("real/deep/site")
        );
        // `..` after a symlink leaves the directory it points to, as the kernel reads it.
        assert_eq!(place_of(&base.join("link/../x")), base.join("real/x"));
    }
}
