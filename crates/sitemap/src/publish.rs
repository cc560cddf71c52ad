//! Atomic publishing: files are written into a staging directory inside the output directory
//! (the same filesystem, so `rename` is atomic) and renamed into place, children first and
//! `sitemap.xml` last. A failure before the renames leaves the previous sitemap untouched.

use std::path::{Path, PathBuf};

use tempfile::TempDir;

use crate::SitemapError;
use crate::writer::{Format, Written};

/// The name of staging directories: hidden, and recognisable as ours.
const STAGING_PREFIX: &str = ".sitemapper-staging-";

/// A temporary directory in the output directory, removed when dropped.
#[derive(Debug)]
pub struct StagingDir {
    directory: TempDir,
    output: PathBuf,
}

/// What `publish` put in place and what it removed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Published {
    /// The files now in the output directory, in the order they were moved there.
    pub files: Vec<PathBuf>,
    /// Children of an earlier run that the new sitemap no longer lists, removed, sorted.
    pub removed_stale: Vec<PathBuf>,
}

impl StagingDir {
    /// Creates the output directory if needed, and a staging directory inside it. Fails when
    /// the output directory cannot be written.
    pub fn create_in(output_directory: &Path) -> Result<StagingDir, SitemapError> {
        std::fs::create_dir_all(output_directory).map_err(|source| SitemapError::CreateOutput {
            path: output_directory.to_path_buf(),
            source,
        })?;
        let directory = tempfile::Builder::new()
            .prefix(STAGING_PREFIX)
            .tempdir_in(output_directory)
            .map_err(|source| SitemapError::Staging {
                path: output_directory.to_path_buf(),
                source,
            })?;
        Ok(StagingDir {
            directory,
            output: output_directory.to_path_buf(),
        })
    }

    /// Removes staging directories that a killed run left in `output_directory`. Only safe
    /// while holding the run lock on it: another run's staging directory looks the same.
    pub fn remove_abandoned(output_directory: &Path) -> Vec<PathBuf> {
        let Ok(entries) = std::fs::read_dir(output_directory) else {
            return Vec::new();
        };
        entries
            .filter_map(Result::ok)
            .filter(|entry| {
                entry
                    .file_name()
                    .to_str()
                    .is_some_and(|name| name.starts_with(STAGING_PREFIX))
                    && entry.file_type().is_ok_and(|kind| kind.is_dir())
            })
            .map(|entry| entry.path())
            .filter(|path| std::fs::remove_dir_all(path).is_ok())
            .collect()
    }

    /// Where to write the files to publish.
    pub fn path(&self) -> &Path {
        self.directory.path()
    }

    /// Renames the written files into the output directory (each index last), then removes
    /// children of an earlier, larger run that the new files no longer include (of the
    /// formats written).
    pub fn publish(self, written: &[&Written]) -> Result<Published, SitemapError> {
        let mut files = Vec::new();
        for name in written.iter().flat_map(|written| &written.files) {
            let target = self.output.join(name);
            std::fs::rename(self.directory.path().join(name), &target).map_err(|source| {
                SitemapError::Publish {
                    path: target.clone(),
                    source,
                }
            })?;
            files.push(target);
        }
        let removed_stale = self.remove_stale_children(written)?;
        Ok(Published {
            files,
            removed_stale,
        })
    }

    fn remove_stale_children(&self, written: &[&Written]) -> Result<Vec<PathBuf>, SitemapError> {
        let entries = std::fs::read_dir(&self.output).map_err(|source| SitemapError::Publish {
            path: self.output.clone(),
            source,
        })?;
        let mut removed = Vec::new();
        for entry in entries.flatten() {
            let name = entry.file_name();
            let Some(name) = name.to_str() else {
                continue;
            };
            let stale = child_format(name).is_some_and(|format| {
                written.iter().any(|written| written.format == format)
                    && !written
                        .iter()
                        .any(|written| written.files.iter().any(|file| file == name))
            });
            if stale {
                let path = entry.path();
                std::fs::remove_file(&path).map_err(|source| SitemapError::Publish {
                    path: path.clone(),
                    source,
                })?;
                removed.push(path);
            }
        }
        removed.sort();
        Ok(removed)
    }
}

/// `sitemap-NNNNN.xml`, `sitemap-NNNNN.xml.gz` or `sitemap-NNNNN.txt`: the names this writer
/// gives children, and their format.
fn child_format(name: &str) -> Option<Format> {
    let rest = name.strip_prefix("sitemap-")?;
    let (number, format) = if let Some(number) = rest.strip_suffix(".xml") {
        (number, Format::Xml)
    } else if let Some(number) = rest.strip_suffix(".xml.gz") {
        (number, Format::Xml)
    } else {
        (rest.strip_suffix(".txt")?, Format::Text)
    };
    (number.len() == 5 && number.bytes().all(|byte| byte.is_ascii_digit())).then_some(format)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn child_names() {
        for (name, expected) in [
            ("sitemap-00001.xml", Some(Format::Xml)),
            ("sitemap-12345.xml.gz", Some(Format::Xml)),
            ("sitemap-00002.txt", Some(Format::Text)),
            ("sitemap.xml", None),
            ("sitemap.txt", None),
            ("sitemap-notes.txt", None),
            ("sitemap-1.xml", None),
            ("sitemap-0000a.xml", None),
            ("sitemap-00001.xml.bak", None),
        ] {
            assert_eq!(child_format(name), expected, "{name}");
        }
    }
}
