//! A directory held open, and the files made, read, moved and removed in it by name relative
//! to that handle.
//!
//! The output directory is a web root, which other users (a CMS, a deploy user) may be able
//! to write, and a nightly run may be root's: a name in it can be a link planted there so
//! that the run writes through it into any file of the system. So nothing in it is looked
//! up again by path once the directory is open: a file is created new and never through a
//! link (`O_CREAT | O_EXCL | O_NOFOLLOW`), read only when it is a regular file
//! (`O_NOFOLLOW`, and `O_NONBLOCK` so that a FIFO planted at the name cannot hold the run),
//! put in place by `renameat` (which replaces a link itself, never the file it points to),
//! and removed by `unlinkat` (which never follows one). A file that replaces another is
//! written whole under a new name of its own ([`NewFile`]) and renamed over the name, so
//! that a reader sees the old file or the new one, never half of one. The directory itself
//! is opened as the user named it: a link the user chose as `--out` or `--report` is the
//! user's to choose.
//!
//! The audit's report directory is such a directory too (its files and the CI files are
//! written through [`NewFile`]), as the output directory of sitemaps is.

use std::fs::File;
use std::io;
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};

use rustix::fs::{AtFlags, CWD, Dir, FileType, Mode, OFlags, Stat};
use rustix::io::Errno;

/// The permissions a created file asks for; the user's umask narrows them, as it would for
/// any file the user writes.
const FILE_MODE: u32 = 0o666;

/// The start of the name a [`NewFile`] is written under: hidden, and recognisable as ours.
const NEW_FILE_PREFIX: &str = ".sitemapper-new-";

/// A directory open for the files in it, with the path it was opened by (for messages).
#[derive(Debug)]
pub struct Directory {
    path: PathBuf,
    handle: OwnedFd,
}

/// What stands at a name in a directory, a link not followed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Occupant {
    /// Nothing: the name is free.
    Nothing,
    /// A regular file.
    File,
    /// A symbolic link, wherever it points.
    Link,
    /// A directory.
    Directory,
    /// A FIFO, a socket or a device.
    Other,
}

impl Directory {
    /// Opens the directory at `path`, following links on the way as the user's own path
    /// does.
    pub fn open(path: &Path) -> io::Result<Directory> {
        let handle = rustix::fs::openat(
            CWD,
            path,
            OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Mode::empty(),
        )?;
        Ok(Directory {
            path: path.to_path_buf(),
            handle,
        })
    }

    /// Opens the directory at `path` when its last component is a directory itself, not a
    /// link to one: for a directory of the program's own, whose name another user may have
    /// replaced by a link.
    pub(crate) fn open_not_through_link(path: &Path) -> io::Result<Directory> {
        let handle = rustix::fs::openat(
            CWD,
            path,
            OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::empty(),
        )?;
        Ok(Directory {
            path: path.to_path_buf(),
            handle,
        })
    }

    /// The path it was opened by.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// The path of `name` in it, for messages.
    pub fn join(&self, name: &str) -> PathBuf {
        self.path.join(name)
    }

    /// Makes the directory `name` in it, readable by its owner only; fails when the name
    /// is taken, by anything.
    pub(crate) fn make_private_directory(&self, name: &str) -> io::Result<()> {
        rustix::fs::mkdirat(&self.handle, name, Mode::RWXU)?;
        Ok(())
    }

    /// Opens the directory `name` in it, not through a link.
    pub(crate) fn directory(&self, name: &str) -> io::Result<Directory> {
        let handle = rustix::fs::openat(
            &self.handle,
            name,
            OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::empty(),
        )?;
        Ok(Directory {
            path: self.join(name),
            handle,
        })
    }

    /// Creates the file `name` for writing, new: whatever stood at the name (a file, a
    /// link) is removed first, never written through; a directory there is an error.
    pub(crate) fn create(&self, name: &str) -> io::Result<File> {
        let create = || {
            rustix::fs::openat(
                &self.handle,
                name,
                OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
                Mode::from_raw_mode(FILE_MODE),
            )
        };
        match create() {
            Err(Errno::EXIST) if self.occupant(name)? != Occupant::Directory => {
                self.remove(name)?;
                // Taken again since: refused, never followed.
                Ok(File::from(create()?))
            }
            created => Ok(File::from(created?)),
        }
    }

    /// Opens the regular file `name` for reading; a link, a FIFO or anything else at the
    /// name is an error, never opened through.
    pub(crate) fn open_file(&self, name: &str) -> io::Result<File> {
        let handle = rustix::fs::openat(
            &self.handle,
            name,
            OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC,
            Mode::empty(),
        )?;
        if FileType::from_raw_mode(rustix::fs::fstat(&handle)?.st_mode) != FileType::RegularFile {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{} is not a regular file", self.join(name).display()),
            ));
        }
        // `O_NONBLOCK` changes nothing for a regular file's reads.
        Ok(File::from(handle))
    }

    /// What stands at `name`, a link not followed.
    pub fn occupant(&self, name: &str) -> io::Result<Occupant> {
        let stat = match self.stat(name) {
            Ok(stat) => stat,
            Err(Errno::NOENT) => return Ok(Occupant::Nothing),
            Err(error) => return Err(error.into()),
        };
        Ok(match FileType::from_raw_mode(stat.st_mode) {
            FileType::RegularFile => Occupant::File,
            FileType::Symlink => Occupant::Link,
            FileType::Directory => Occupant::Directory,
            FileType::Fifo
            | FileType::Socket
            | FileType::CharacterDevice
            | FileType::BlockDevice
            | FileType::Unknown => Occupant::Other,
        })
    }

    /// Creates a new file under a name of its own in this directory, never through a link,
    /// to be written and then put at `name` by [`NewFile::persist`]. What stands at `name`
    /// is not touched until then.
    pub fn new_file(&self, name: &str) -> io::Result<NewFile<'_>> {
        let mut attempts = 0;
        loop {
            let temporary = new_file_name(name);
            match rustix::fs::openat(
                &self.handle,
                temporary.as_str(),
                OFlags::RDWR | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
                Mode::from_raw_mode(FILE_MODE),
            ) {
                Ok(handle) => {
                    return Ok(NewFile {
                        directory: self,
                        name: name.to_string(),
                        temporary,
                        file: File::from(handle),
                        persisted: false,
                    });
                }
                // Taken: another name is tried, never the file found there.
                Err(Errno::EXIST) if attempts < 8 => attempts += 1,
                Err(error) => return Err(error.into()),
            }
        }
    }

    /// Moves `name` to `to_name` in `to`, replacing what stands there (a link is replaced
    /// itself), atomically.
    pub(crate) fn rename(&self, name: &str, to: &Directory, to_name: &str) -> io::Result<()> {
        rustix::fs::renameat(&self.handle, name, &to.handle, to_name)?;
        Ok(())
    }

    /// Removes the name `name` (a file, a link: never what a link points to).
    pub(crate) fn remove(&self, name: &str) -> io::Result<()> {
        rustix::fs::unlinkat(&self.handle, name, AtFlags::empty())?;
        Ok(())
    }

    /// Removes the directory `name` when it is `directory` and empty; leaves whatever else
    /// stands at the name now.
    pub(crate) fn remove_directory(&self, name: &str, directory: &Directory) -> io::Result<()> {
        let (standing, ours) = (self.stat(name)?, rustix::fs::fstat(&directory.handle)?);
        if (standing.st_dev, standing.st_ino) != (ours.st_dev, ours.st_ino) {
            return Err(io::Error::new(
                io::ErrorKind::AlreadyExists,
                format!("{} was replaced", self.join(name).display()),
            ));
        }
        rustix::fs::unlinkat(&self.handle, name, AtFlags::REMOVEDIR)?;
        Ok(())
    }

    /// Whether this directory's owner is the user this process runs as.
    pub(crate) fn is_own(&self) -> io::Result<bool> {
        Ok(rustix::fs::fstat(&self.handle)?.st_uid == rustix::process::geteuid().as_raw())
    }

    /// Whether the owner of `name` (a link not followed) is the user this process runs as.
    pub(crate) fn is_own_entry(&self, name: &str) -> io::Result<bool> {
        Ok(self.stat(name)?.st_uid == rustix::process::geteuid().as_raw())
    }

    /// The names in it that are UTF-8 (no name sitemapper gives is anything else).
    pub(crate) fn names(&self) -> io::Result<Vec<String>> {
        let mut names = Vec::new();
        for entry in Dir::read_from(&self.handle)? {
            let entry = entry?;
            let Ok(name) = entry.file_name().to_str() else {
                continue;
            };
            if name != "." && name != ".." {
                names.push(name.to_string());
            }
        }
        Ok(names)
    }

    fn stat(&self, name: &str) -> Result<Stat, Errno> {
        rustix::fs::statat(&self.handle, name, AtFlags::SYMLINK_NOFOLLOW)
    }
}

/// A file written under a name of its own in a directory, put at its name by
/// [`NewFile::persist`], or removed when dropped before.
#[derive(Debug)]
pub struct NewFile<'a> {
    directory: &'a Directory,
    name: String,
    temporary: String,
    file: File,
    persisted: bool,
}

impl NewFile<'_> {
    /// The file, open for writing (and reading, and seeking).
    pub fn file(&mut self) -> &mut File {
        &mut self.file
    }

    /// Renames the file written over whatever stands at its name, atomically: a link or a
    /// special file there is replaced itself, never written through (and said in a
    /// warning); a directory there is an error, and stays.
    pub fn persist(mut self) -> io::Result<()> {
        let replaced = self.directory.occupant(&self.name)?;
        if replaced == Occupant::Directory {
            return Err(io::Error::new(
                io::ErrorKind::IsADirectory,
                format!(
                    "a directory stands at {}, and sitemapper replaces only files",
                    self.directory.join(&self.name).display()
                ),
            ));
        }
        self.directory
            .rename(&self.temporary, self.directory, &self.name)?;
        self.persisted = true;
        if matches!(replaced, Occupant::Link | Occupant::Other) {
            tracing::warn!(
                path = %self.directory.join(&self.name).display(),
                "a link or a special file stood at a file's name: replaced by the file, not \
                 written through"
            );
        }
        Ok(())
    }
}

/// Removes the file not put in place: a failed write leaves no half file.
impl Drop for NewFile<'_> {
    fn drop(&mut self) {
        if !self.persisted {
            let _ = self.directory.remove(&self.temporary);
        }
    }
}

/// A name for a new file to become `name`, unguessable: another user cannot take it first.
fn new_file_name(name: &str) -> String {
    use std::hash::BuildHasher;
    // The keys of a `RandomState` come from the system's randomness.
    let random = std::hash::RandomState::new().hash_one(name);
    format!("{NEW_FILE_PREFIX}{random:016x}-{name}")
}

#[cfg(test)]
mod tests {
    use std::io::{Read, Write};
    use std::os::unix::fs::symlink;

    use super::*;

    /// A directory with a victim file outside it, and a link to the victim at `name`.
    fn planted(name: &str) -> (tempfile::TempDir, tempfile::TempDir, PathBuf) {
        let directory = tempfile::tempdir().unwrap();
        let elsewhere = tempfile::tempdir().unwrap();
        let victim = elsewhere.path().join("victim");
        std::fs::write(&victim, "the victim's bytes").unwrap();
        symlink(&victim, directory.path().join(name)).unwrap();
        (directory, elsewhere, victim)
    }

    #[test]
    fn a_file_created_at_a_link_replaces_the_link_and_leaves_its_target_alone() {
        let (directory, _elsewhere, victim) = planted("sitemap.xml");
        let opened = Directory::open(directory.path()).unwrap();
        assert_eq!(opened.occupant("sitemap.xml").unwrap(), Occupant::Link);
        opened
            .create("sitemap.xml")
            .unwrap()
            .write_all(b"ours")
            .unwrap();
        assert_eq!(std::fs::read(&victim).unwrap(), b"the victim's bytes");
        assert_eq!(opened.occupant("sitemap.xml").unwrap(), Occupant::File);
        assert_eq!(
            std::fs::read(directory.path().join("sitemap.xml")).unwrap(),
            b"ours"
        );
    }

    #[test]
    fn a_link_a_fifo_or_a_directory_is_never_read_as_a_file() {
        let (directory, _elsewhere, _victim) = planted("sitemap.xml");
        std::fs::create_dir(directory.path().join("sitemap.txt")).unwrap();
        let opened = Directory::open(directory.path()).unwrap();
        assert!(opened.open_file("sitemap.xml").is_err());
        assert!(opened.open_file("sitemap.txt").is_err());
        assert!(opened.open_file("missing.xml").is_err());
        std::fs::write(directory.path().join("plain.xml"), "plain").unwrap();
        let mut text = String::new();
        opened
            .open_file("plain.xml")
            .unwrap()
            .read_to_string(&mut text)
            .unwrap();
        assert_eq!(text, "plain");
    }

    #[test]
    fn a_fifo_is_refused_at_once_rather_than_waited_on() {
        let directory = tempfile::tempdir().unwrap();
        let opened = Directory::open(directory.path()).unwrap();
        rustix::fs::mknodat(
            &opened.handle,
            "sitemap.xml",
            FileType::Fifo,
            Mode::RUSR | Mode::WUSR,
            0,
        )
        .unwrap();
        assert_eq!(opened.occupant("sitemap.xml").unwrap(), Occupant::Other);
        assert!(opened.open_file("sitemap.xml").is_err());
    }

    #[test]
    fn a_directory_at_a_name_to_create_is_an_error_and_stays() {
        let directory = tempfile::tempdir().unwrap();
        std::fs::create_dir(directory.path().join("sitemap.xml")).unwrap();
        let opened = Directory::open(directory.path()).unwrap();
        assert!(opened.create("sitemap.xml").is_err());
        assert!(directory.path().join("sitemap.xml").is_dir());
    }

    #[test]
    fn a_new_file_replaces_a_link_at_its_name_and_leaves_its_target_alone() {
        let (directory, _elsewhere, victim) = planted("report.html");
        let opened = Directory::open(directory.path()).unwrap();
        let mut new = opened.new_file("report.html").unwrap();
        new.file().write_all(b"ours").unwrap();
        // Until it is put in place, the link stands and nothing is written through it.
        assert_eq!(opened.occupant("report.html").unwrap(), Occupant::Link);
        new.persist().unwrap();
        assert_eq!(std::fs::read(&victim).unwrap(), b"the victim's bytes");
        assert_eq!(opened.occupant("report.html").unwrap(), Occupant::File);
        assert_eq!(
            std::fs::read(directory.path().join("report.html")).unwrap(),
            b"ours"
        );
        assert_eq!(opened.names().unwrap(), ["report.html"]);
    }

    #[test]
    fn a_new_file_not_put_in_place_leaves_nothing_and_a_directory_stays() {
        let directory = tempfile::tempdir().unwrap();
        std::fs::create_dir(directory.path().join("report.json")).unwrap();
        let opened = Directory::open(directory.path()).unwrap();
        let mut new = opened.new_file("report.json").unwrap();
        new.file().write_all(b"ours").unwrap();
        assert!(new.persist().is_err());
        drop(opened.new_file("report.csv").unwrap());
        assert!(directory.path().join("report.json").is_dir());
        assert_eq!(opened.names().unwrap(), ["report.json"]);
    }

    #[test]
    fn removing_a_link_removes_the_link_only() {
        let (directory, _elsewhere, victim) = planted("sitemap-00002.xml");
        let opened = Directory::open(directory.path()).unwrap();
        opened.remove("sitemap-00002.xml").unwrap();
        assert_eq!(
            opened.occupant("sitemap-00002.xml").unwrap(),
            Occupant::Nothing
        );
        assert_eq!(std::fs::read(&victim).unwrap(), b"the victim's bytes");
    }

    #[test]
    fn a_directory_of_its_own_is_not_opened_through_a_link() {
        let directory = tempfile::tempdir().unwrap();
        let real = directory.path().join("real");
        std::fs::create_dir(&real).unwrap();
        symlink(&real, directory.path().join("link")).unwrap();
        assert!(Directory::open_not_through_link(&real).is_ok());
        assert!(Directory::open_not_through_link(&directory.path().join("link")).is_err());
        // The user's own path may pass through a link.
        assert!(Directory::open(&directory.path().join("link")).is_ok());
        let opened = Directory::open(directory.path()).unwrap();
        assert!(opened.directory("link").is_err());
        let child = opened.directory("real").unwrap();
        // A directory that another one replaced at its name is left alone.
        std::fs::rename(&real, directory.path().join("moved")).unwrap();
        std::fs::create_dir(&real).unwrap();
        assert!(opened.remove_directory("real", &child).is_err());
        assert!(real.is_dir());
    }
}
