//! The writer: streams `<url>` entries into the files a [`Plan`] decided (`sitemap-00001.xml`,
//! `sitemap-blog.xml`, ...), then writes `sitemap.xml`: the single file renamed, or the index,
//! with each child's `<lastmod>` as the caller knows it. The text format (one URL per line)
//! goes into `.txt` files the same way, without an index: a single file is `sitemap.txt`.
//!
//! The directory is opened once, when the first file is, and not through a link at its last
//! component (it is the staging directory, whose name sits in a web root others may write);
//! every file is made relative to it, new, never through a link ([`crate::directory`]).

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use flate2::write::GzEncoder;
use flate2::{Compression, GzBuilder};
use jiff::Timestamp;

use xxhash_rust::xxh3::Xxh3;

use crate::directory::Directory;
use crate::error::SitemapError;
use crate::limits::MAX_URLS_PER_FILE;
use crate::options::{Format, WriteOptions};
use crate::plan::Plan;
use crate::xml::{
    Entry, INDEX_FOOTER, INDEX_HEADER, URLSET_FOOTER, push_sitemap, push_url, urlset_header,
};

/// The name of the file that is the sitemap, or the index over its children.
pub const ROOT_FILE_NAME: &str = "sitemap.xml";

/// The root file of the text format.
pub const TEXT_ROOT_FILE_NAME: &str = "sitemap.txt";

/// What was written: file names in the directory, the index (`sitemap.xml`) last.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Written {
    /// The names of the files written in the directory; the root file, when there is one, last.
    pub files: Vec<String>,
    /// The files that hold URLs (the index aside), with what each holds.
    pub children: Vec<WrittenChild>,
    /// The pages' entries written, over all files (the news sitemap's aside).
    pub urls: u64,
    /// Whether `sitemap.xml` is an index over the other files.
    pub is_index: bool,
    /// The format of the files.
    pub format: Format,
}

/// One file of URLs written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WrittenChild {
    /// Its name in the directory.
    pub name: String,
    /// The group it belongs to (see [`crate::PlannedFile::group`]); empty when not split.
    pub group: String,
    /// The URLs it holds.
    pub urls: u64,
    /// The newest `<lastmod>` of its entries.
    pub newest: Option<Timestamp>,
    /// The xxh3 hash of its uncompressed content: equal digests, equal files.
    pub digest: u64,
}

/// Writes entries into the files of a [`Plan`], one file after the other: the entries of a
/// file are pushed together, in URL order, and files in the plan's order.
#[derive(Debug)]
pub struct SitemapWriter<'plan> {
    directory: PathBuf,
    /// The directory, open once the first file is written.
    opened: Option<Directory>,
    options: WriteOptions,
    plan: &'plan Plan,
    current: Option<Chunk>,
    children: Vec<WrittenChild>,
    entry: String,
    urls: u64,
    header: String,
    footer: &'static str,
    news: Option<WrittenChild>,
}

struct Chunk {
    file: u32,
    name: String,
    path: PathBuf,
    sink: Sink,
    digest: Xxh3,
    bytes: u64,
    urls: u64,
    newest: Option<Timestamp>,
}

/// The files of URLs, written; the index is not yet.
#[derive(Debug)]
pub struct Staged {
    directory: Directory,
    options: WriteOptions,
    children: Vec<WrittenChild>,
    urls: u64,
    grouped: bool,
}

/// One sink per file being written: the encoder's state lives on the heap.
pub(crate) enum Sink {
    Plain(BufWriter<File>),
    Gzip(Box<GzEncoder<BufWriter<File>>>),
}

impl std::fmt::Debug for Sink {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str(match self {
            Sink::Plain(_) => "Sink::Plain",
            Sink::Gzip(_) => "Sink::Gzip",
        })
    }
}

impl Sink {
    pub(crate) fn write_all(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        match self {
            Sink::Plain(writer) => writer.write_all(bytes),
            Sink::Gzip(writer) => writer.write_all(bytes),
        }
    }

    pub(crate) fn close(self) -> std::io::Result<()> {
        let mut writer = match self {
            Sink::Plain(writer) => writer,
            Sink::Gzip(writer) => writer.finish()?,
        };
        writer.flush()?;
        writer.get_ref().sync_all()
    }
}

impl<'plan> SitemapWriter<'plan> {
    /// A writer of `plan`'s files into `directory`, which must exist and be a directory
    /// itself, not a link to one; no file is created before the first entry.
    pub fn new(directory: &Path, options: WriteOptions, plan: &'plan Plan) -> SitemapWriter<'plan> {
        let (header, footer) = match options.format {
            Format::Xml => (urlset_header(&options), URLSET_FOOTER),
            Format::Text => (String::new(), ""),
        };
        SitemapWriter {
            directory: directory.to_path_buf(),
            opened: None,
            options,
            plan,
            current: None,
            children: Vec::new(),
            entry: String::with_capacity(512),
            urls: 0,
            header,
            footer,
            news: None,
        }
    }

    /// Lists the news sitemap that [`crate::write_news`] wrote in the same directory after
    /// the pages' files: `sitemap.xml` is then an index, even over one file of pages.
    pub fn add_news(&mut self, news: WrittenChild) {
        self.news = Some(news);
    }

    /// Appends an entry to file number `file` of the plan, closing the previous file when
    /// this is the first entry of the next one.
    pub fn push(&mut self, file: u32, entry: &Entry<'_>) -> Result<(), SitemapError> {
        self.entry.clear();
        match self.options.format {
            Format::Xml => push_url(&mut self.entry, entry),
            Format::Text => {
                self.entry.push_str(entry.loc);
                self.entry.push('\n');
            }
        }
        if self
            .current
            .as_ref()
            .is_some_and(|chunk| chunk.file != file)
        {
            self.close_current()?;
        }
        if self.current.is_none() {
            self.current = Some(self.open_chunk(file)?);
        }
        let entry_bytes = self.entry.len() as u64;
        let footer_bytes = self.footer.len() as u64;
        let limits = self.options.limits;
        let Some(chunk) = self.current.as_mut() else {
            return Ok(());
        };
        // The plan was made with these sizes; entries that do not match it would pass the
        // limits, which no file may do.
        if chunk.urls >= limits.max_urls as u64
            || chunk.bytes + entry_bytes + footer_bytes > limits.max_bytes
        {
            return Err(SitemapError::OffPlan {
                loc: entry.loc.to_string(),
                file: chunk.name.clone(),
            });
        }
        chunk.write(self.entry.as_bytes())?;
        chunk.urls += 1;
        chunk.newest = chunk.newest.max(entry.lastmod);
        self.urls += 1;
        Ok(())
    }

    fn open_chunk(&mut self, file: u32) -> Result<Chunk, SitemapError> {
        let planned = self
            .plan
            .files()
            .get(file as usize)
            .filter(|_| self.children.len() <= file as usize)
            .ok_or_else(|| SitemapError::OffPlan {
                loc: String::new(),
                file: format!("number {file}"),
            })?;
        let extension = match (self.options.format, self.options.gzip) {
            (Format::Text, _) => "txt",
            (Format::Xml, true) => "xml.gz",
            (Format::Xml, false) => "xml",
        };
        let name = format!("{}.{extension}", planned.stem);
        let path = self.directory.join(&name);
        let directory = match &mut self.opened {
            Some(directory) => directory,
            opened => opened.insert(Directory::open_not_through_link(&self.directory).map_err(
                |source| SitemapError::Write {
                    path: self.directory.clone(),
                    source,
                },
            )?),
        };
        let sink = open_sink(
            directory,
            &name,
            self.options.gzip && self.options.format == Format::Xml,
        )?;
        let mut chunk = Chunk {
            file,
            name,
            path,
            sink,
            digest: Xxh3::new(),
            bytes: 0,
            urls: 0,
            newest: None,
        };
        chunk.write(self.header.as_bytes())?;
        Ok(chunk)
    }

    fn close_current(&mut self) -> Result<(), SitemapError> {
        if let Some(mut chunk) = self.current.take() {
            chunk.write(self.footer.as_bytes())?;
            chunk.sink.close().map_err(|source| SitemapError::Write {
                path: chunk.path.clone(),
                source,
            })?;
            let group = self
                .plan
                .files()
                .get(chunk.file as usize)
                .map(|planned| planned.group.clone())
                .unwrap_or_default();
            self.children.push(WrittenChild {
                name: chunk.name,
                group,
                urls: chunk.urls,
                newest: chunk.newest,
                digest: chunk.digest.digest(),
            });
        }
        Ok(())
    }

    /// Closes the last file. An uncompressed site in one ungrouped file becomes
    /// `sitemap.xml` (or `sitemap.txt`) itself.
    pub fn finish(mut self) -> Result<Staged, SitemapError> {
        self.close_current()?;
        let directory = match self.opened.take() {
            Some(directory) if !self.children.is_empty() => directory,
            // No file was opened, so the directory was not either.
            Some(_) | None => return Err(SitemapError::NoEntries),
        };
        let single_root = match self.options.format {
            Format::Xml => (!self.options.gzip).then_some(ROOT_FILE_NAME),
            Format::Text => Some(TEXT_ROOT_FILE_NAME),
        };
        let grouped = self.plan.is_grouped();
        let alone = self.news.is_none();
        if let (1, Some(root), false, true) = (self.children.len(), single_root, grouped, alone) {
            directory
                .rename(&self.children[0].name, &directory, root)
                .map_err(|source| SitemapError::Write {
                    path: directory.join(root),
                    source,
                })?;
            self.children[0].name = root.to_string();
        }
        if let Some(news) = self.news.take() {
            if self.children.len() >= MAX_URLS_PER_FILE {
                return Err(SitemapError::TooManyFiles {
                    max: MAX_URLS_PER_FILE,
                });
            }
            self.children.push(news);
        }
        Ok(Staged {
            directory,
            options: self.options,
            children: self.children,
            urls: self.urls,
            grouped,
        })
    }
}

/// Creates the file `name` in `directory`, gzipped or not.
pub(crate) fn open_sink(
    directory: &Directory,
    name: &str,
    gzip: bool,
) -> Result<Sink, SitemapError> {
    let created = directory
        .create(name)
        .map_err(|source| SitemapError::Write {
            path: directory.join(name),
            source,
        })?;
    let created = BufWriter::new(created);
    Ok(if gzip {
        // No file name and a zero mtime in the gzip header: identical input, identical bytes.
        Sink::Gzip(Box::new(
            GzBuilder::new()
                .mtime(0)
                .write(created, Compression::default()),
        ))
    } else {
        Sink::Plain(created)
    })
}

impl std::fmt::Debug for Chunk {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("Chunk")
            .field("name", &self.name)
            .field("bytes", &self.bytes)
            .field("urls", &self.urls)
            .finish_non_exhaustive()
    }
}

impl Chunk {
    fn write(&mut self, bytes: &[u8]) -> Result<(), SitemapError> {
        self.digest.update(bytes);
        self.bytes += bytes.len() as u64;
        write(&mut self.sink, &self.path, bytes)
    }
}

impl Staged {
    /// The files of URLs written, in the plan's order.
    pub fn children(&self) -> &[WrittenChild] {
        &self.children
    }

    /// Writes `sitemap.xml`, the index over the children, when there is to be one (XML in
    /// several files, gzip, or groups; never for text), with each child's `<lastmod>` as
    /// `lastmod` gives it.
    pub fn write_index(
        self,
        lastmod: impl Fn(&WrittenChild) -> Option<Timestamp>,
    ) -> Result<Written, SitemapError> {
        let format = self.options.format;
        let mut files: Vec<String> = self
            .children
            .iter()
            .map(|child| child.name.clone())
            .collect();
        let is_root = |name: &str| name == ROOT_FILE_NAME || name == TEXT_ROOT_FILE_NAME;
        let is_index = format == Format::Xml
            && (self.grouped || self.children.len() > 1 || !is_root(&self.children[0].name));
        if is_index {
            self.write_index_file(&lastmod)?;
            files.push(ROOT_FILE_NAME.to_string());
        }
        Ok(Written {
            files,
            children: self.children,
            urls: self.urls,
            is_index,
            format,
        })
    }

    fn write_index_file(
        &self,
        lastmod: &impl Fn(&WrittenChild) -> Option<Timestamp>,
    ) -> Result<(), SitemapError> {
        let path = self.directory.join(ROOT_FILE_NAME);
        let created =
            self.directory
                .create(ROOT_FILE_NAME)
                .map_err(|source| SitemapError::Write {
                    path: path.clone(),
                    source,
                })?;
        let mut sink = Sink::Plain(BufWriter::new(created));
        write(&mut sink, &path, INDEX_HEADER.as_bytes())?;
        let mut entry = String::new();
        for child in &self.children {
            entry.clear();
            push_sitemap(
                &mut entry,
                &format!("{}{}", self.options.base_url, child.name),
                lastmod(child),
            );
            write(&mut sink, &path, entry.as_bytes())?;
        }
        write(&mut sink, &path, INDEX_FOOTER.as_bytes())?;
        sink.close()
            .map_err(|source| SitemapError::Write { path, source })
    }
}

fn write(sink: &mut Sink, path: &Path, bytes: &[u8]) -> Result<(), SitemapError> {
    sink.write_all(bytes).map_err(|source| SitemapError::Write {
        path: path.to_path_buf(),
        source,
    })
}
