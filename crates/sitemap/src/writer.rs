//! The chunked writer: streams `<url>` entries into `sitemap-00001.xml`, `sitemap-00002.xml`,
//! ... within the limits, then writes `sitemap.xml`: the single file renamed, or the index.
//! The text format (one URL per line) chunks the same way into `.txt` files, without an
//! index: a single file is `sitemap.txt`.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use flate2::write::GzEncoder;
use flate2::{Compression, GzBuilder};
use jiff::Timestamp;

use crate::SitemapError;
use crate::limits::{Limits, MAX_URLS_PER_FILE};
use crate::xml::{
    Entry, INDEX_FOOTER, INDEX_HEADER, URLSET_FOOTER, push_sitemap, push_url, urlset_header,
};

/// The name of the file that is the sitemap, or the index over its children.
pub const ROOT_FILE_NAME: &str = "sitemap.xml";

/// The root file of the text format.
pub const TEXT_ROOT_FILE_NAME: &str = "sitemap.txt";

/// Which sitemap format a writer produces.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Format {
    /// sitemaps.org XML, with an index over several files.
    #[default]
    Xml,
    /// One URL per line, UTF-8; several files are not indexed.
    Text,
}

/// How a [`ChunkedWriter`] writes: format, limits, compression, and the extensions declared.
#[derive(Debug, Clone)]
pub struct WriteOptions {
    /// How much one file holds at most.
    pub limits: Limits,
    /// Write `.xml.gz` children; the index `sitemap.xml` stays uncompressed.
    pub gzip: bool,
    /// Absolute URL ending in `/` under which the files are published.
    pub base_url: String,
    /// XML or text.
    pub format: Format,
    /// Entries carry `<image:image>` elements: declare the namespace.
    pub images: bool,
    /// Entries carry `<xhtml:link>` alternates: declare the namespace.
    pub alternates: bool,
}

/// What `finish` wrote: file names in the directory, the index (`sitemap.xml`) last.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Written {
    /// The names of the files written in the directory; the root file, when there is one, last.
    pub files: Vec<String>,
    /// The entries written, over all files.
    pub urls: u64,
    /// Whether `sitemap.xml` is an index over the other files.
    pub is_index: bool,
    /// The format of the files.
    pub format: Format,
}

/// Writes entries, pushed in URL order, into size-limited files in one directory.
#[derive(Debug)]
pub struct ChunkedWriter {
    directory: PathBuf,
    options: WriteOptions,
    current: Option<Chunk>,
    finished: Vec<FinishedChunk>,
    entry: String,
    urls: u64,
    header: String,
    footer: &'static str,
}

#[derive(Debug)]
struct Chunk {
    name: String,
    path: PathBuf,
    sink: Sink,
    bytes: u64,
    urls: usize,
    newest: Option<Timestamp>,
}

#[derive(Debug)]
struct FinishedChunk {
    name: String,
    newest: Option<Timestamp>,
}

enum Sink {
    Plain(BufWriter<File>),
    Gzip(GzEncoder<BufWriter<File>>),
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
    fn write_all(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        match self {
            Sink::Plain(writer) => writer.write_all(bytes),
            Sink::Gzip(writer) => writer.write_all(bytes),
        }
    }

    fn close(self) -> std::io::Result<()> {
        let mut writer = match self {
            Sink::Plain(writer) => writer,
            Sink::Gzip(writer) => writer.finish()?,
        };
        writer.flush()?;
        writer.get_ref().sync_all()
    }
}

impl ChunkedWriter {
    /// A writer into `directory`, which must exist; no file is created before the first entry.
    pub fn new(directory: &Path, options: WriteOptions) -> Result<ChunkedWriter, SitemapError> {
        let (header, footer) = match options.format {
            Format::Xml => (
                urlset_header(options.images, options.alternates),
                URLSET_FOOTER,
            ),
            Format::Text => (String::new(), ""),
        };
        Ok(ChunkedWriter {
            directory: directory.to_path_buf(),
            options,
            current: None,
            finished: Vec::new(),
            entry: String::with_capacity(512),
            urls: 0,
            header,
            footer,
        })
    }

    /// Appends an entry, closing the current file first when the entry would not fit in it.
    pub fn push(&mut self, entry: &Entry<'_>) -> Result<(), SitemapError> {
        self.entry.clear();
        match self.options.format {
            Format::Xml => push_url(&mut self.entry, entry),
            Format::Text => {
                self.entry.push_str(entry.loc);
                self.entry.push('\n');
            }
        }
        let entry_bytes = self.entry.len() as u64;
        let limits = self.options.limits;
        let footer_bytes = self.footer.len() as u64;
        let fits = |chunk: &Chunk| {
            chunk.urls < limits.max_urls
                && chunk.bytes + entry_bytes + footer_bytes <= limits.max_bytes
        };
        if self.current.as_ref().is_some_and(|chunk| !fits(chunk)) {
            self.close_current()?;
        }
        if self.current.is_none() {
            let needed = (self.header.len() + self.footer.len()) as u64 + entry_bytes;
            if needed > limits.max_bytes {
                return Err(SitemapError::EntryTooLarge {
                    loc: entry.loc.to_string(),
                    needed,
                    limit: limits.max_bytes,
                });
            }
            self.current = Some(self.open_chunk()?);
        }
        let Some(chunk) = self.current.as_mut() else {
            return Ok(());
        };
        write(&mut chunk.sink, &chunk.path, self.entry.as_bytes())?;
        chunk.bytes += entry_bytes;
        chunk.urls += 1;
        chunk.newest = chunk.newest.max(entry.lastmod);
        self.urls += 1;
        Ok(())
    }

    fn open_chunk(&mut self) -> Result<Chunk, SitemapError> {
        let number = self.finished.len() + 1;
        if number > MAX_URLS_PER_FILE {
            return Err(SitemapError::TooManyFiles {
                max: MAX_URLS_PER_FILE,
            });
        }
        let extension = match (self.options.format, self.options.gzip) {
            (Format::Text, _) => "txt",
            (Format::Xml, true) => "xml.gz",
            (Format::Xml, false) => "xml",
        };
        let name = format!("sitemap-{number:05}.{extension}");
        let path = self.directory.join(&name);
        let file = File::create(&path).map_err(|source| SitemapError::Write {
            path: path.clone(),
            source,
        })?;
        let file = BufWriter::new(file);
        let mut sink = if self.options.gzip && self.options.format == Format::Xml {
            // No file name and a zero mtime in the gzip header: identical input, identical bytes.
            Sink::Gzip(
                GzBuilder::new()
                    .mtime(0)
                    .write(file, Compression::default()),
            )
        } else {
            Sink::Plain(file)
        };
        write(&mut sink, &path, self.header.as_bytes())?;
        Ok(Chunk {
            name,
            path,
            sink,
            bytes: self.header.len() as u64,
            urls: 0,
            newest: None,
        })
    }

    fn close_current(&mut self) -> Result<(), SitemapError> {
        if let Some(mut chunk) = self.current.take() {
            write(&mut chunk.sink, &chunk.path, self.footer.as_bytes())?;
            chunk.sink.close().map_err(|source| SitemapError::Write {
                path: chunk.path.clone(),
                source,
            })?;
            self.finished.push(FinishedChunk {
                name: chunk.name,
                newest: chunk.newest,
            });
        }
        Ok(())
    }

    /// Closes the last file and writes `sitemap.xml`: the only file itself when there is one
    /// uncompressed file, otherwise an index of all of them (always with gzip, so that the
    /// robots.txt `Sitemap:` line never changes).
    pub fn finish(mut self) -> Result<Written, SitemapError> {
        self.close_current()?;
        if self.finished.is_empty() {
            return Err(SitemapError::NoEntries);
        }
        let format = self.options.format;
        let single_root = match format {
            Format::Xml => (!self.options.gzip).then_some(ROOT_FILE_NAME),
            Format::Text => Some(TEXT_ROOT_FILE_NAME),
        };
        if let (1, Some(root)) = (self.finished.len(), single_root) {
            let from = self.directory.join(&self.finished[0].name);
            let to = self.directory.join(root);
            std::fs::rename(&from, &to)
                .map_err(|source| SitemapError::Write { path: to, source })?;
            return Ok(Written {
                files: vec![root.to_string()],
                urls: self.urls,
                is_index: false,
                format,
            });
        }
        let files: Vec<String> = self
            .finished
            .iter()
            .map(|chunk| chunk.name.clone())
            .collect();
        if format == Format::Text {
            return Ok(Written {
                files,
                urls: self.urls,
                is_index: false,
                format,
            });
        }
        self.write_index()?;
        let mut files = files;
        files.push(ROOT_FILE_NAME.to_string());
        Ok(Written {
            files,
            urls: self.urls,
            is_index: true,
            format,
        })
    }

    fn write_index(&self) -> Result<(), SitemapError> {
        let path = self.directory.join(ROOT_FILE_NAME);
        let file = File::create(&path).map_err(|source| SitemapError::Write {
            path: path.clone(),
            source,
        })?;
        let mut sink = Sink::Plain(BufWriter::new(file));
        write(&mut sink, &path, INDEX_HEADER.as_bytes())?;
        let mut entry = String::new();
        for chunk in &self.finished {
            entry.clear();
            push_sitemap(
                &mut entry,
                &format!("{}{}", self.options.base_url, chunk.name),
                chunk.newest,
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
