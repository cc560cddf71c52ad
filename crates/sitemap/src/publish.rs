//! Atomic publishing: files are written into a staging directory inside the output directory
//! (the same filesystem, so `rename` is atomic) and renamed into place, children first and
//! `sitemap.xml` last. A failure before the renames leaves the previous sitemap untouched. A
//! file whose bytes equal the published one is not moved: its bytes and its mtime stay.
//!
//! The output directory is what the web server serves, so nothing of sitemapper's own goes
//! there but the sitemap files (and, while a run writes them, its staging directory). Which
//! files an earlier run published, and a later one removes once the sitemap no longer lists
//! them, the files themselves say (the files are the memory): the children the published
//! index lists when sitemapper wrote it (its mark), with the text files of the same names;
//! numbered children (`sitemap-00002.xml`) by their names; and the names in the hidden list
//! `.sitemapper-files` that earlier versions kept beside them, read once and removed. A
//! text-only run split into groups has no index: its groups' files are known only by those
//! names, so a group's file a later run no longer writes is left for the user to remove.
//!
//! Others may be able to write the output directory (a web root a CMS or a deploy user
//! writes too), and a name in it may be a link planted to make a run as root write through
//! it. So everything there is done relative to the directory held open, never through a link
//! sitemapper did not make ([`crate::directory`]). A link, a FIFO or any other file at a name
//! to publish is replaced by the rename, atomically, and never read nor written through; a
//! directory there cannot be replaced so, and is refused before any file moves. A stale name
//! is removed only while it is a regular file, and a staging directory a killed run left
//! only when it is a directory of this user's.

use std::collections::{BTreeSet, HashMap};
use std::io::Read;
use std::path::{Path, PathBuf};

use jiff::Timestamp;

use crate::directory::{Directory, Occupant};
use crate::error::SitemapError;
use crate::options::Format;
use crate::reader::{SitemapDocument, SitemapEntry, read_sitemap};
use crate::writer::{ROOT_FILE_NAME, TEXT_ROOT_FILE_NAME, Written};
use crate::xml::is_written_by_sitemapper;

/// The name of staging directories: hidden, and recognisable as ours.
const STAGING_PREFIX: &str = ".sitemapper-staging-";

/// The hidden list of the files published that earlier versions kept in the output
/// directory: read for the upgrade, then removed.
const EARLIER_PUBLISHED_LIST: &str = ".sitemapper-files";

/// The largest published index read back for its children.
const MAX_INDEX_BYTES: u64 = 64 * 1024 * 1024;

/// The largest list of an earlier version read back: 50,000 names of 60 bytes and more.
const MAX_LIST_BYTES: u64 = 8 * 1024 * 1024;

/// A directory of this run's in the output directory, removed when dropped.
#[derive(Debug)]
pub struct StagingDir {
    /// The output directory, open as the user named it.
    output: Directory,
    /// The staging directory, its name in `output`.
    staging: Directory,
    name: String,
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
    /// Creates the output directory if needed, and a staging directory inside it, private
    /// to this user. Fails when the output directory cannot be written.
    pub fn create_in(output_directory: &Path) -> Result<StagingDir, SitemapError> {
        std::fs::create_dir_all(output_directory).map_err(|source| SitemapError::CreateOutput {
            path: output_directory.to_path_buf(),
            source,
        })?;
        let staging_error = |source| SitemapError::Staging {
            path: output_directory.to_path_buf(),
            source,
        };
        let output = Directory::open(output_directory).map_err(staging_error)?;
        let mut attempts = 0;
        let name = loop {
            let name = staging_name();
            match output.make_private_directory(&name) {
                Ok(()) => break name,
                // Taken: another name is tried, never the directory found there.
                Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists && attempts < 8 => {
                    attempts += 1;
                }
                Err(error) => return Err(staging_error(error)),
            }
        };
        let staging = output.directory(&name).map_err(staging_error)?;
        if !staging.is_own().map_err(staging_error)? {
            return Err(staging_error(std::io::Error::new(
                std::io::ErrorKind::AlreadyExists,
                format!(
                    "{} was replaced by another user's",
                    staging.path().display()
                ),
            )));
        }
        Ok(StagingDir {
            output,
            staging,
            name,
        })
    }

    /// Removes staging directories that a killed run left in `output_directory`: those of
    /// this user's, never a link nor another user's directory. Only safe while holding the
    /// run lock on it: another run's staging directory looks the same.
    pub fn remove_abandoned(output_directory: &Path) -> Vec<PathBuf> {
        let Ok(output) = Directory::open(output_directory) else {
            return Vec::new();
        };
        output
            .names()
            .unwrap_or_default()
            .into_iter()
            .filter(|name| {
                name.starts_with(STAGING_PREFIX)
                    && output.occupant(name).ok() == Some(Occupant::Directory)
                    && output.is_own_entry(name).unwrap_or(false)
            })
            .map(|name| output.join(&name))
            // Does not follow a link, should one stand at the name by now (std's
            // `remove_dir_all` opens each level without following links).
            .filter(|path| std::fs::remove_dir_all(path).is_ok())
            .collect()
    }

    /// The output directory the files are published in.
    pub fn output(&self) -> &Path {
        self.output.path()
    }

    /// Where to write the files to publish.
    pub fn path(&self) -> &Path {
        self.staging.path()
    }

    /// Whether the output directory already holds `name`, a regular file, with exactly the
    /// bytes written in the staging directory.
    pub fn is_published(&self, name: &str) -> bool {
        let (Ok(staged), Ok(published)) =
            (self.staging.open_file(name), self.output.open_file(name))
        else {
            return false;
        };
        same_bytes(staged, published).unwrap_or(false)
    }

    /// The `<lastmod>` of each child the published `sitemap.xml` index lists, by file name.
    /// Empty when there is no index, or it cannot be read.
    pub fn published_lastmods(&self) -> HashMap<String, Timestamp> {
        published_index(&self.output)
            .map(|index| index.children)
            .unwrap_or_default()
            .into_iter()
            .filter_map(|child| {
                let name = child_name(&child)?.to_string();
                let lastmod = child.lastmod?.parse::<Timestamp>().ok()?;
                Some((name, lastmod))
            })
            .collect()
    }

    /// Renames the written files into the output directory (each index last), except those
    /// whose published bytes are the same; then removes the files of an earlier run that the
    /// new ones no longer include (of the formats written), and the list of an earlier
    /// version. A directory standing at a name to publish fails the run before any file
    /// moves.
    pub fn publish(self, written: &[&Written]) -> Result<Published, SitemapError> {
        let earlier = earlier_names(&self.output);
        let names: Vec<&String> = written.iter().flat_map(|written| &written.files).collect();
        for name in &names {
            if self.output.occupant(name).ok() == Some(Occupant::Directory) {
                return Err(SitemapError::DirectoryInTheWay {
                    path: self.output.join(name),
                });
            }
        }
        let mut files = Vec::new();
        let mut unchanged = Vec::new();
        for name in names {
            let target = self.output.join(name);
            if self.is_published(name) {
                unchanged.push(target);
                continue;
            }
            self.put_in_place(name)?;
            files.push(target);
        }
        let removed_stale = self.remove_stale(written, &earlier)?;
        self.remove_earlier_list();
        Ok(Published {
            files,
            unchanged,
            removed_stale,
        })
    }

    /// Moves `name` over whatever stands in the output directory at that name: a link is
    /// replaced itself, never written through.
    fn put_in_place(&self, name: &str) -> Result<(), SitemapError> {
        let replaced = self.output.occupant(name).ok();
        self.staging
            .rename(name, &self.output, name)
            .map_err(|source| SitemapError::Publish {
                path: self.output.join(name),
                source,
            })?;
        if matches!(replaced, Some(Occupant::Link | Occupant::Other)) {
            tracing::warn!(
                path = %self.output.join(name).display(),
                "a link or a special file stood at a sitemap's name: replaced by the sitemap, \
                 not written through"
            );
        }
        Ok(())
    }

    fn remove_stale(
        &self,
        written: &[&Written],
        earlier: &BTreeSet<String>,
    ) -> Result<Vec<PathBuf>, SitemapError> {
        let names = self
            .output
            .names()
            .map_err(|source| SitemapError::Publish {
                path: self.output.path().to_path_buf(),
                source,
            })?;
        let mut removed = Vec::new();
        for name in names {
            let ours = earlier.contains(&name) || child_format(&name).is_some();
            let stale = ours
                && name_format(&name).is_some_and(|format| {
                    written.iter().any(|written| written.format == format)
                        && !written.iter().any(|written| written.files.contains(&name))
                });
            if !stale {
                continue;
            }
            let path = self.output.join(&name);
            match self.output.occupant(&name) {
                Ok(Occupant::File) => {}
                // sitemapper writes regular files only: a link or anything else at the
                // name is not its own.
                Ok(Occupant::Link | Occupant::Directory | Occupant::Other | Occupant::Nothing)
                | Err(_) => {
                    tracing::debug!(path = %path.display(), "not a regular file: left alone");
                    continue;
                }
            }
            self.output
                .remove(&name)
                .map_err(|source| SitemapError::Publish {
                    path: path.clone(),
                    source,
                })?;
            removed.push(path);
        }
        removed.sort();
        Ok(removed)
    }

    /// Removes the list of the files published that an earlier version kept in the output
    /// directory, whatever stands at its name but a directory (a link is removed itself).
    /// The files say what it said now; a failure to remove it only leaves it there.
    fn remove_earlier_list(&self) {
        match self.output.occupant(EARLIER_PUBLISHED_LIST) {
            Ok(Occupant::Nothing | Occupant::Directory) | Err(_) => {}
            Ok(Occupant::File | Occupant::Link | Occupant::Other) => {
                let path = self.output.join(EARLIER_PUBLISHED_LIST);
                match self.output.remove(EARLIER_PUBLISHED_LIST) {
                    Ok(()) => tracing::info!(
                        path = %path.display(),
                        "removed the list of the files published that an earlier version kept \
                         in the output directory"
                    ),
                    Err(error) => {
                        tracing::warn!(
                            path = %path.display(),
                            %error,
                            "the list of files an earlier version kept cannot be removed"
                        );
                    }
                }
            }
        }
    }
}

/// Removes what is left in the staging directory (the files not moved), then the directory,
/// unless another stands at its name by now.
impl Drop for StagingDir {
    fn drop(&mut self) {
        for name in self.staging.names().unwrap_or_default() {
            let _ = self.staging.remove(&name);
        }
        if let Err(error) = self.output.remove_directory(&self.name, &self.staging) {
            tracing::debug!(path = %self.staging.path().display(), %error, "staging directory not removed");
        }
    }
}

/// A new staging directory's name, unguessable: another user cannot make it first.
fn staging_name() -> String {
    use std::hash::BuildHasher;
    // The keys of a `RandomState` come from the system's randomness.
    let random = std::hash::RandomState::new().hash_one(std::process::id());
    format!("{STAGING_PREFIX}{random:016x}")
}

/// The published `sitemap.xml`, when it is an index: its children, and whether sitemapper
/// wrote it. Read only when it is a regular file.
struct PublishedIndex {
    children: Vec<SitemapEntry>,
    ours: bool,
}

fn published_index(output: &Directory) -> Option<PublishedIndex> {
    let file = output.open_file(ROOT_FILE_NAME).ok()?;
    let mut bytes = Vec::new();
    file.take(MAX_INDEX_BYTES).read_to_end(&mut bytes).ok()?;
    match read_sitemap(&bytes) {
        Ok(SitemapDocument::Index(children)) => Some(PublishedIndex {
            children,
            ours: is_written_by_sitemapper(&bytes),
        }),
        Ok(SitemapDocument::UrlSet(_)) | Err(_) => None,
    }
}

/// The file name an index entry names: the last segment of its `<loc>`, when it is a name
/// sitemapper gives.
fn child_name(child: &SitemapEntry) -> Option<&str> {
    child
        .loc
        .rsplit('/')
        .next()
        .filter(|name| is_plain_sitemap_name(name))
}

/// The names the output directory says an earlier run published, besides the numbered
/// children any name tells: the children of an index sitemapper wrote, and the text files of
/// the same names (written with them when both formats are); the names in the list an
/// earlier version kept.
fn earlier_names(output: &Directory) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    if let Some(index) = published_index(output).filter(|index| index.ours) {
        for name in index.children.iter().filter_map(child_name) {
            let stem = name
                .strip_suffix(".xml.gz")
                .or_else(|| name.strip_suffix(".xml"));
            names.extend(stem.map(|stem| format!("{stem}.txt")));
            names.insert(name.to_string());
        }
    }
    names.extend(earlier_list(output));
    names
}

/// The names in the list an earlier version kept, each a plain file name; read only when
/// it is a regular file.
fn earlier_list(output: &Directory) -> Vec<String> {
    let mut text = String::new();
    let read = output
        .open_file(EARLIER_PUBLISHED_LIST)
        .and_then(|file| file.take(MAX_LIST_BYTES).read_to_string(&mut text));
    if read.is_err() {
        return Vec::new();
    }
    text.lines()
        .filter(|name| is_plain_sitemap_name(name))
        .map(str::to_string)
        .collect()
}

/// The names of the sitemap files published in `output_directory`: those an earlier run
/// published as the files say (see the module's doc), and `sitemap.xml`, `sitemap.txt` and
/// numbered children that are there.
pub fn published_names(output_directory: &Path) -> BTreeSet<String> {
    let Ok(output) = Directory::open(output_directory) else {
        return BTreeSet::new();
    };
    let mut names = earlier_names(&output);
    for name in output.names().unwrap_or_default() {
        if name == ROOT_FILE_NAME || name == TEXT_ROOT_FILE_NAME || child_format(&name).is_some() {
            names.insert(name);
        }
    }
    names
}

/// Whether two files hold the same bytes.
fn same_bytes(left: std::fs::File, right: std::fs::File) -> std::io::Result<bool> {
    if left.metadata()?.len() != right.metadata()?.len() {
        return Ok(false);
    }
    let mut left = std::io::BufReader::with_capacity(64 * 1024, left);
    let mut right = std::io::BufReader::with_capacity(64 * 1024, right);
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

/// `sitemap-NNNNN.xml`, `sitemap-NNNNN.xml.gz` or `sitemap-NNNNN.txt`: the names of the
/// children of a site not split, which a run recognises as its own without an index.
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
