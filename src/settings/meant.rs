//! What a user probably meant by a seed or an `--out` that cannot be what was written: the
//! mistakes of a first run. A seed typed as it is in a browser's address bar (`example.com`,
//! `127.0.0.1:8000`) lacks its scheme; a seed that is a file (`./index.html`) needs a server;
//! an `--out` ending in `sitemap.xml` names the file the run writes rather than the
//! directory it is written into. Each is refused before any request, with what to type
//! instead, on one line.

use std::net::IpAddr;
use std::path::{Path, PathBuf};

use anyhow::bail;
use url::Url;

/// A seed that is no http(s) URL, and what it was probably meant to be.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum SeedMistake {
    /// A host, with its port and path perhaps, typed without its scheme: the URL meant.
    NoScheme(Url),
    /// A file or a folder on this machine: the folder a local server would serve.
    FilePath(PathBuf),
}

/// The port the suggested local server listens on (`python3 -m http.server`'s own default).
const LOCAL_PORT: u16 = 8000;

impl SeedMistake {
    /// What `seed` was meant to be, when it is no http(s) URL and its meaning can be told.
    /// A seed longer than any URL sitemapper crawls is left to the crawl's own error.
    pub(super) fn of(seed: &str) -> Option<SeedMistake> {
        let seed = seed.trim();
        if seed.len() > sitemapper_sitemap::MAX_URL_LENGTH {
            return None;
        }
        if let Ok(url) = Url::parse(seed) {
            match url.scheme() {
                "http" | "https" => return None,
                "file" => return url.to_file_path().ok().map(|path| folder_of(&path)),
                // `localhost:3000` parses as a URL of the scheme `localhost`.
                _ if seed.contains("://") => return None,
                _ => {}
            }
        }
        if looks_like_a_path(seed) {
            return Some(folder_of(Path::new(seed)));
        }
        url_meant(seed).map(SeedMistake::NoScheme)
    }
}

/// How the error goes on after `the seed SEED `.
impl std::fmt::Display for SeedMistake {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SeedMistake::NoScheme(url) => write!(formatter, "is not a URL: did you mean {url}?"),
            SeedMistake::FilePath(folder) => write!(
                formatter,
                "is a file path, not a URL: serve its folder \
                 (python3 -m http.server {LOCAL_PORT} --directory {}) and crawl \
                 http://localhost:{LOCAL_PORT}/",
                shell_word(folder)
            ),
        }
    }
}

/// A path as people write them on a command line, a page's file name, or anything there.
fn looks_like_a_path(seed: &str) -> bool {
    let lowercase = seed.to_ascii_lowercase();
    ["./", "../", "/", "~"]
        .iter()
        .any(|start| seed.starts_with(start))
        || [".html", ".htm"]
            .iter()
            .any(|extension| lowercase.ends_with(extension))
        || Path::new(seed).exists()
}

/// The folder to serve for `path`: the folder itself, else the page's folder (`.` for a
/// page named alone). A path that does not exist is a folder when it has no extension.
fn folder_of(path: &Path) -> SeedMistake {
    let folder = if path.is_dir() || (!path.exists() && path.extension().is_none()) {
        path.to_path_buf()
    } else {
        match path.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
            _ => PathBuf::from("."),
        }
    };
    SeedMistake::FilePath(folder)
}

/// `https://HOST/...` for a host (a name with a dot, `localhost`, or an IP address) with
/// an optional port and path; `http://` for loopback, and for a port other than 443 (a
/// development server's, most often). Nothing with userinfo: the error would repeat it.
fn url_meant(seed: &str) -> Option<Url> {
    if seed.contains(['@', ' ']) {
        return None;
    }
    let authority_end = seed.find(['/', '?', '#']).unwrap_or(seed.len());
    let authority = &seed[..authority_end];
    let (host, port) = match authority.rsplit_once(':') {
        // `[::1]` alone also has colons: an IPv6 address ends in `]`.
        Some((host, port)) if !port.ends_with(']') => (host, Some(port.parse::<u16>().ok()?)),
        _ => (authority, None),
    };
    let address = host
        .trim_start_matches('[')
        .trim_end_matches(']')
        .parse::<IpAddr>()
        .ok();
    let lowercase = host.to_ascii_lowercase();
    let localhost = lowercase == "localhost" || lowercase.ends_with(".localhost");
    if address.is_none() && !localhost && !host.contains('.') {
        return None;
    }
    let loopback = localhost || address.is_some_and(|address| address.is_loopback());
    let scheme = if loopback || port.is_some_and(|port| port != 443) {
        "http"
    } else {
        "https"
    };
    Url::parse(&format!("{scheme}://{seed}"))
        .ok()
        .filter(Url::has_host)
}

/// `--out` is the directory the sitemaps are written into: a path ending as a sitemap file
/// does was meant as that file, and a file that exists cannot be the directory.
pub(super) fn check_out_directory(out: &Path) -> anyhow::Result<()> {
    if out.as_os_str() == "-" {
        return Ok(());
    }
    let name = out.to_string_lossy().to_ascii_lowercase();
    if [".xml", ".xml.gz", ".txt"]
        .iter()
        .any(|extension| name.ends_with(extension))
    {
        let parent = match out.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => parent,
            _ => Path::new("."),
        };
        bail!(
            "--out {} names a file; --out is the directory sitemap.xml is written into: \
             did you mean --out {}?",
            out.display(),
            shell_word(parent)
        );
    }
    if out.exists() && !out.is_dir() {
        bail!(
            "--out {} is a file, not a directory: give the directory the sitemaps are written into",
            out.display()
        );
    }
    Ok(())
}

/// `path` as one word of a shell command, quoted when it holds anything but the characters
/// paths are usually made of.
fn shell_word(path: &Path) -> String {
    let text = path.to_string_lossy();
    let plain = |character: char| character.is_alphanumeric() || "/._-+,:@%~=".contains(character);
    if !text.is_empty() && text.chars().all(plain) {
        text.into_owned()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests;
