//! The resources an assistant reads: the JSON of each audit report and every published
//! sitemap file found in the allowed directories, as `file://` URIs.

use std::io::Read;
use std::path::{Path, PathBuf};

use url::Url;

use crate::paths::AllowedDirs;

/// How deep below an allowed directory reports and sitemaps are looked for.
const MAX_DEPTH: usize = 4;

/// At most this many directories are read while looking.
const MAX_DIRECTORIES: usize = 2_000;

/// At most this many bytes of a resource are read (after decompression).
const MAX_BYTES: u64 = 64 * 1024 * 1024;

/// A file offered as a resource.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Offered {
    /// Its `file://` URI.
    pub uri: String,
    /// Its path relative to its allowed directory.
    pub name: String,
    /// What it is.
    pub description: &'static str,
    /// Its content type.
    pub mime: &'static str,
}

/// What a file is, when it is one the server offers.
fn kind(name: &str) -> Option<(&'static str, &'static str)> {
    if name == "report.json" {
        return Some((
            "An audit's report as data: score, findings, pages",
            "application/json",
        ));
    }
    if !name.starts_with("sitemap") {
        return None;
    }
    if name.ends_with(".xml") || name.ends_with(".xml.gz") {
        Some((
            "A published sitemap or sitemap index (XML)",
            "application/xml",
        ))
    } else if name.ends_with(".txt") {
        Some(("A published sitemap (text: one URL a line)", "text/plain"))
    } else {
        None
    }
}

/// The reports and sitemaps in the allowed directories, sorted by URI.
pub(crate) fn offered(dirs: &AllowedDirs) -> Vec<Offered> {
    let mut found = Vec::new();
    let mut read = 0;
    for root in dirs.roots() {
        let mut pending: Vec<(PathBuf, usize)> = vec![(root.clone(), 0)];
        while let Some((directory, depth)) = pending.pop() {
            read += 1;
            if read > MAX_DIRECTORIES {
                break;
            }
            let Ok(entries) = std::fs::read_dir(&directory) else {
                continue;
            };
            for entry in entries.flatten() {
                let name = entry.file_name().to_string_lossy().into_owned();
                if name.starts_with('.') {
                    continue;
                }
                let Ok(file_type) = entry.file_type() else {
                    continue;
                };
                let path = entry.path();
                if file_type.is_dir() && depth < MAX_DEPTH {
                    pending.push((path, depth + 1));
                } else if file_type.is_file()
                    && let Some((description, mime)) = kind(&name)
                    && let Ok(uri) = Url::from_file_path(&path)
                {
                    found.push(Offered {
                        uri: uri.to_string(),
                        name: path
                            .strip_prefix(root)
                            .unwrap_or(&path)
                            .display()
                            .to_string(),
                        description,
                        mime,
                    });
                }
            }
        }
    }
    found.sort_by(|a, b| a.uri.cmp(&b.uri));
    found.dedup_by(|a, b| a.uri == b.uri);
    found
}

/// The text of the resource at `uri` and its content type: a report or a sitemap in an
/// allowed directory, gunzipped.
pub(crate) fn read(dirs: &AllowedDirs, uri: &str) -> Result<(String, &'static str), String> {
    let path = Url::parse(uri)
        .ok()
        .filter(|url| url.scheme() == "file")
        .and_then(|url| url.to_file_path().ok())
        .ok_or_else(|| format!("{uri} is not a file:// URI of this server's resources"))?;
    let path = dirs.check(&path).map_err(|refused| refused.to_string())?;
    let name = path
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    let (_, mime) = kind(&name)
        .ok_or_else(|| format!("{} is neither a report nor a sitemap", path.display()))?;
    Ok((read_text(&path, name.ends_with(".gz"))?, mime))
}

fn read_text(path: &Path, gzipped: bool) -> Result<String, String> {
    let file = std::fs::File::open(path).map_err(|error| format!("{}: {error}", path.display()))?;
    let mut bytes = Vec::new();
    let read = if gzipped {
        flate2::read::GzDecoder::new(file)
            .take(MAX_BYTES)
            .read_to_end(&mut bytes)
    } else {
        file.take(MAX_BYTES).read_to_end(&mut bytes)
    };
    read.map_err(|error| format!("{}: {error}", path.display()))?;
    String::from_utf8(bytes).map_err(|_| format!("{} is not UTF-8 text", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_and_sitemaps_are_offered_and_nothing_else_is_read() {
        let base = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
        let write = |path: &str, text: &[u8]| {
            let path = base.path().join(path);
            std::fs::create_dir_all(path.parent().unwrap_or(base.path()))
                .unwrap_or_else(|error| panic!("{error}"));
            std::fs::write(path, text).unwrap_or_else(|error| panic!("{error}"));
        };
        write("audit/report.json", b"{\"score\": 90}");
        write("site/sitemap.xml", b"<urlset/>");
        let mut gzipped = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut gzipped, b"<urlset>gz</urlset>")
            .unwrap_or_else(|error| panic!("{error}"));
        write(
            "site/sitemap-1.xml.gz",
            &gzipped.finish().unwrap_or_else(|error| panic!("{error}")),
        );
        write("site/notes.txt", b"private");
        write(".hidden/sitemap.xml", b"<urlset/>");
        let dirs = AllowedDirs::new(&[base.path().to_path_buf()])
            .unwrap_or_else(|error| panic!("{error}"));

        let names: Vec<String> = offered(&dirs).into_iter().map(|offer| offer.name).collect();
        assert_eq!(
            names,
            [
                "audit/report.json",
                "site/sitemap-1.xml.gz",
                "site/sitemap.xml"
            ]
        );
        let uri = |path: &str| {
            Url::from_file_path(dirs.roots()[0].join(path))
                .unwrap_or_else(|()| panic!("{path}"))
                .to_string()
        };
        assert_eq!(
            read(&dirs, &uri("site/sitemap-1.xml.gz")),
            Ok(("<urlset>gz</urlset>".to_string(), "application/xml"))
        );
        assert!(read(&dirs, &uri("site/notes.txt")).is_err());
        assert!(read(&dirs, "file:///etc/passwd").is_err());
        assert!(read(&dirs, "https://e.com/sitemap.xml").is_err());
    }
}
