//! Every file of the report, and the CI files, written new: under a name of its own in its
//! directory, then renamed over its name (`sitemapper_sitemap::Directory`). The report
//! directory may be one that others can write (a shared folder, a web root), and a name in
//! it a link planted to make a run write through it: a link at the name is replaced itself,
//! never written through; a directory there is refused; a reader sees the old file or the
//! new one, never half of one; a failed write leaves the old file (docs/design.md, Safety).

use std::fs::File;
use std::path::Path;

use sitemapper_sitemap::Directory;

use crate::error::{ReportError, WriteCause};

/// Writes the file `path` with `write`, new, then puts it at its name. The directory is
/// opened as the user named it.
pub(crate) fn write_new(
    path: &Path,
    write: impl FnOnce(&mut File) -> Result<(), WriteCause>,
) -> Result<(), ReportError> {
    write_new_with(path, |file| {
        write(file).map_err(|cause| ReportError::write(path, cause))
    })
}

/// [`write_new`], for a file written while another is: `write`'s errors name their own file.
pub(crate) fn write_new_with(
    path: &Path,
    write: impl FnOnce(&mut File) -> Result<(), ReportError>,
) -> Result<(), ReportError> {
    let cannot = |cause: WriteCause| ReportError::write(path, cause);
    let name = path
        .file_name()
        .and_then(|name| name.to_str())
        .ok_or_else(|| {
            cannot(std::io::Error::other(format!("{} names no file", path.display())).into())
        })?;
    let directory = path
        .parent()
        .filter(|parent| !parent.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let directory = Directory::open(directory).map_err(|error| cannot(error.into()))?;
    let mut new = directory
        .new_file(name)
        .map_err(|error| cannot(error.into()))?;
    write(new.file())?;
    new.persist().map_err(|error| cannot(error.into()))
}

/// Writes `bytes` to the file `path`, new, then puts it at its name.
pub(crate) fn write_bytes(path: &Path, bytes: &[u8]) -> Result<(), ReportError> {
    write_new(path, |file| Ok(std::io::Write::write_all(file, bytes)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The words the audit says when a file cannot be written: the file, then why.
    #[test]
    fn a_file_not_written_is_named_before_its_cause() {
        let directory = tempfile::tempdir().unwrap();
        let path = directory.path().join("missing").join("report.html");
        let error = write_bytes(&path, b"x").unwrap_err();
        assert_eq!(
            error.to_string(),
            format!("cannot write {}", path.display())
        );
        let cause = std::error::Error::source(&error).unwrap().to_string();
        assert!(cause.contains("No such file"), "{cause}");

        let failed = write_new(&directory.path().join("report.json"), |_| {
            Err("the writer failed".into())
        })
        .unwrap_err();
        let cause = std::error::Error::source(&failed).unwrap().to_string();
        assert_eq!(cause, "the writer failed");
        assert!(!directory.path().join("report.json").exists());
    }
}
