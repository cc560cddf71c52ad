//! Finding the browser to render with: `--chrome`, `$CHROME`, or the first of
//! [`BROWSER_NAMES`] on `PATH`, and [`BrowserMissing`] when there is none. A leaf: it names
//! nothing else of the crate.

use std::path::{Path, PathBuf};

/// The browsers looked for on `PATH`, in this order, when none is named.
pub const BROWSER_NAMES: &[&str] = &[
    "chromium",
    "chromium-browser",
    "google-chrome",
    "google-chrome-stable",
];

/// No browser to render with.
#[derive(Debug, Clone, thiserror::Error)]
pub enum BrowserMissing {
    /// The browser named (`--chrome`, `$CHROME`) is not an executable file.
    #[error("the browser {path} ({source_name}) is not an executable file")]
    NotExecutable {
        /// The path given.
        path: String,
        /// Where it was given.
        source_name: &'static str,
    },
    /// None of [`BROWSER_NAMES`] is on `PATH`.
    #[error(
        "no browser found: install Chromium (apt install chromium) or pass --chrome PATH (looked for {} on PATH)",
        BROWSER_NAMES.join(", ")
    )]
    NotFound,
}

/// The browser to render with: `explicit` (`--chrome`), else `$CHROME`, else the first of
/// [`BROWSER_NAMES`] on `PATH`.
pub fn find_browser(explicit: Option<&Path>) -> Result<PathBuf, BrowserMissing> {
    let named = explicit
        .map(|path| (path.to_path_buf(), "--chrome"))
        .or_else(|| {
            std::env::var_os("CHROME")
                .filter(|value| !value.is_empty())
                .map(|value| (PathBuf::from(value), "$CHROME"))
        });
    if let Some((path, source_name)) = named {
        // A bare name is looked up on PATH, as a shell would.
        let found = if path.components().count() == 1 {
            on_path(&path)
        } else {
            Some(path.clone()).filter(|path| is_executable(path))
        };
        return found.ok_or_else(|| BrowserMissing::NotExecutable {
            path: path.display().to_string(),
            source_name,
        });
    }
    BROWSER_NAMES
        .iter()
        .find_map(|name| on_path(Path::new(name)))
        .ok_or(BrowserMissing::NotFound)
}

fn on_path(name: &Path) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|directory| directory.join(name))
        .find(|candidate| is_executable(candidate))
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path)
        .is_ok_and(|metadata| metadata.is_file() && metadata.permissions().mode() & 0o111 != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_named_browser_must_be_an_executable_file() {
        let missing = find_browser(Some(Path::new("/nonexistent/chromium")));
        assert!(
            matches!(
                &missing,
                Err(BrowserMissing::NotExecutable {
                    source_name: "--chrome",
                    ..
                })
            ),
            "{missing:?}"
        );
        let directory = find_browser(Some(Path::new("/")));
        assert!(directory.is_err(), "{directory:?}");
        let shell = find_browser(Some(Path::new("/bin/sh")));
        assert_eq!(shell.ok(), Some(PathBuf::from("/bin/sh")));
        let on_path = find_browser(Some(Path::new("sh")));
        assert!(on_path.is_ok_and(|path| path.ends_with("sh")));
    }
}
