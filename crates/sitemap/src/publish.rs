//! Atomic publishing: files are written into a staging directory inside the output directory
//! (the same filesystem, so `rename` is atomic) and renamed into place, children first and
//! `sitemap.xml` last. A failure before the renames leaves the previous sitemap untouched. A
//! file whose bytes equal the published one is not moved: its bytes and its mtime stay. The
//! names published are kept in a hidden list beside them, so that a later run knows which
//! files are its own to remove when the sitemap no longer lists them.

use std::collections::{BTreeSet, HashMap};
use std::io::Read;
use std::path::{Path, PathBuf};

use jiff::Timestamp;
use tempfile::TempDir;

use crate::SitemapError;
use crate::reader::{SitemapDocument, read_sitemap};
use crate::writer::{Format, ROOT_FILE_NAME, TEXT_ROOT_FILE_NAME, Written};

/// The name of staging directories: hidden, and recognisable as ours.
const STAGING_PREFIX: &str = ".sitemapper-staging-";

/// The hidden list of the files the last run published in the output directory.
pub const PUBLISHED_LIST: &str = ".sitemapper-files";

/// The largest published index read back for its children's `<lastmod>`.
const MAX_INDEX_BYTES: u64 = 64 * 1024 * 1024;

/// A temporary directory in the output directory, removed when dropped.
#[derive(Debug)]
pub struct StagingDir {
    directory: TempDir,
    output: PathBuf,
}

/// What `publish` put in place and what it removed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Published {
    /// The files moved into the output directory, in the order they were moved there.
    pub files: Vec<PathBuf>,
    /// The files written again with the bytes already published, left as they were.
    pub unchanged: Vec<PathBuf>,
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

    /// The output directory the files are published in.
    pub fn output(&self) -> &Path {
        &self.output
    }

    /// Where to write the files to publish.
    pub fn path(&self) -> &Path {
        self.directory.path()
    }

    /// Whether the output directory already holds `name` with exactly the bytes written in
    /// the staging directory.
    pub fn is_published(&self, name: &str) -> bool {
        same_bytes(&self.directory.path().join(name), &self.output.join(name)).unwrap_or(false)
    }

    /// The `<lastmod>` of each child the published `sitemap.xml` index lists, by file name.
    /// Empty when there is no index, or it cannot be read.
    pub fn published_lastmods(&self) -> HashMap<String, Timestamp> {
        let path = self.output.join(ROOT_FILE_NAME);
        let mut bytes = Vec::new();
        let read = std::fs::File::open(&path)
            .and_then(|file| file.take(MAX_INDEX_BYTES).read_to_end(&mut bytes));
        let Ok(Ok(SitemapDocument::Index(children))) = read.map(|_| read_sitemap(&bytes)) else {
            return HashMap::new();
        };
        children
            .into_iter()
            .filter_map(|child| {
                let name = child.loc.rsplit('/').next()?.to_string();
                let lastmod = child.lastmod?.parse::<Timestamp>().ok()?;
                Some((name, lastmod))
            })
            .collect()
    }

    /// Renames the written files into the output directory (each index last), except those
    /// whose published bytes are the same; then removes the files of an earlier run that the
    /// new ones no longer include (of the formats written), and records the names now
    /// published.
    pub fn publish(self, written: &[&Written]) -> Result<Published, SitemapError> {
        let mut files = Vec::new();
        let mut unchanged = Vec::new();
        for name in written.iter().flat_map(|written| &written.files) {
            let target = self.output.join(name);
            if self.is_published(name) {
                unchanged.push(target);
                continue;
            }
            std::fs::rename(self.directory.path().join(name), &target).map_err(|source| {
                SitemapError::Publish {
                    path: target.clone(),
                    source,
                }
            })?;
            files.push(target);
        }
        let earlier = self.published_list();
        let removed_stale = self.remove_stale(written, &earlier)?;
        self.record_published(written, &earlier)?;
        Ok(Published {
            files,
            unchanged,
            removed_stale,
        })
    }

    /// The names the previous run recorded as published, each a plain file name.
    fn published_list(&self) -> BTreeSet<String> {
        std::fs::read_to_string(self.output.join(PUBLISHED_LIST))
            .unwrap_or_default()
            .lines()
            .filter(|name| is_plain_sitemap_name(name))
            .map(str::to_string)
            .collect()
    }

    /// Records the names published now, with those of formats not written this time that
    /// are still there.
    fn record_published(
        &self,
        written: &[&Written],
        earlier: &BTreeSet<String>,
    ) -> Result<(), SitemapError> {
        let mut names: BTreeSet<String> = written
            .iter()
            .flat_map(|written| written.files.iter().cloned())
            .collect();
        names.extend(
            earlier
                .iter()
                .filter(|name| {
                    name_format(name)
                        .is_some_and(|format| !written.iter().any(|w| w.format == format))
                        && self.output.join(name).is_file()
                })
                .cloned(),
        );
        let staged = self.directory.path().join(PUBLISHED_LIST);
        let text: String = names.iter().map(|name| format!("{name}\n")).collect();
        std::fs::write(&staged, text).map_err(|source| SitemapError::Write {
            path: staged.clone(),
            source,
        })?;
        let target = self.output.join(PUBLISHED_LIST);
        std::fs::rename(&staged, &target).map_err(|source| SitemapError::Publish {
            path: target,
            source,
        })
    }

    fn remove_stale(
        &self,
        written: &[&Written],
        earlier: &BTreeSet<String>,
    ) -> Result<Vec<PathBuf>, SitemapError> {
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
            let ours = earlier.contains(name) || child_format(name).is_some();
            let stale = ours
                && name_format(name).is_some_and(|format| {
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

/// The names of the sitemap files published in `output_directory`: those the published list
/// records, and, from before the list was kept, `sitemap.xml`, `sitemap.txt` and numbered
/// children that are there.
pub fn published_names(output_directory: &Path) -> BTreeSet<String> {
    let mut names: BTreeSet<String> =
        std::fs::read_to_string(output_directory.join(PUBLISHED_LIST))
            .unwrap_or_default()
            .lines()
            .filter(|name| is_plain_sitemap_name(name))
            .map(str::to_string)
            .collect();
    if let Ok(entries) = std::fs::read_dir(output_directory) {
        for entry in entries.flatten() {
            let name = entry.file_name();
            let Some(name) = name.to_str() else {
                continue;
            };
            if name == ROOT_FILE_NAME || name == TEXT_ROOT_FILE_NAME || child_format(name).is_some()
            {
                names.insert(name.to_string());
            }
        }
    }
    names
}

/// Whether two files hold the same bytes; false when either cannot be read.
fn same_bytes(left: &Path, right: &Path) -> std::io::Result<bool> {
    let (left_file, right_file) = (std::fs::File::open(left)?, std::fs::File::open(right)?);
    if left_file.metadata()?.len() != right_file.metadata()?.len() {
        return Ok(false);
    }
    let mut left = std::io::BufReader::with_capacity(64 * 1024, left_file);
    let mut right = std::io::BufReader::with_capacity(64 * 1024, right_file);
    let (mut left_buffer, mut right_buffer) = (vec![0; 64 * 1024], vec![0; 64 * 1024]);
    loop {
        let read = left.read(&mut left_buffer)?;
        if read == 0 {
            return Ok(true);
        }
        right.read_exact(&mut right_buffer[..read])?;
        if left_buffer[..read] != right_buffer[..read] {
            return Ok(false);
        }
    }
}

/// A name this writer gives a file (`sitemap.xml`, `sitemap-blog-00002.xml.gz`, ...): a plain
/// file name, never a path.
fn is_plain_sitemap_name(name: &str) -> bool {
    name.starts_with("sitemap")
        && name_format(name).is_some()
        && name.bytes().all(|byte| {
            byte.is_ascii_lowercase() || byte.is_ascii_digit() || byte == b'-' || byte == b'.'
        })
        && !name.contains("..")
}

/// The format of a file by its extension.
fn name_format(name: &str) -> Option<Format> {
    if name.ends_with(".xml") || name.ends_with(".xml.gz") {
        Some(Format::Xml)
    } else if name.ends_with(".txt") {
        Some(Format::Text)
    } else {
        None
    }
}

/// `sitemap-NNNNN.xml`, `sitemap-NNNNN.xml.gz` or `sitemap-NNNNN.txt`: the names children had
/// before the published list was kept, which a run still recognises as its own.
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
