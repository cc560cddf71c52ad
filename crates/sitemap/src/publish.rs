//! Atomic publishing: files are written into a staging directory inside the output directory
//! (the same filesystem, so `rename` is atomic) and renamed into place, children first and
//! `sitemap.xml` last. A failure before the renames leaves the previous sitemap untouched.

use std::path::{Path, PathBuf};

use tempfile::TempDir;

use crate::SitemapError;
use crate::writer::Written;

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
    pub files: Vec<PathBuf>,
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

    pub fn path(&self) -> &Path {
        self.directory.path()
    }

    /// Renames the written files into the output directory (the index last), then removes
    /// children of an earlier, larger run that the new index no longer names.
    pub fn publish(self, written: &Written) -> Result<Published, SitemapError> {
        let mut files = Vec::with_capacity(written.files.len());
        for name in &written.files {
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

    fn remove_stale_children(&self, written: &Written) -> Result<Vec<PathBuf>, SitemapError> {
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
            if is_child_name(name) && !written.files.iter().any(|file| file == name) {
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

/// `sitemap-NNNNN.xml` or `sitemap-NNNNN.xml.gz`: the names this writer gives children.
fn is_child_name(name: &str) -> bool {
    let Some(rest) = name.strip_prefix("sitemap-") else {
        return false;
    };
    let Some(number) = rest
        .strip_suffix(".xml")
        .or_else(|| rest.strip_suffix(".xml.gz"))
    else {
        return false;
    };
    number.len() == 5 && number.bytes().all(|byte| byte.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn child_names() {
        for (name, expected) in [
            ("sitemap-00001.xml", true),
            ("sitemap-12345.xml.gz", true),
            ("sitemap.xml", false),
            ("sitemap-notes.txt", false),
            ("sitemap-1.xml", false),
            ("sitemap-0000a.xml", false),
            ("sitemap-00001.xml.bak", false),
        ] {
            assert_eq!(is_child_name(name), expected, "{name}");
        }
    }
}
