//! What a user probably meant by a seed that cannot be what was written: the mistakes of a
//! first run. A seed typed as it is in a browser's address bar (`example.com`,
//! `127.0.0.1:8000`) lacks its scheme; a seed that is a file (`./index.html`) needs a server.
//! Each is said with what to type instead, on one line.

use std::net::IpAddr;
use std::path::{Path, PathBuf};

use url::Url;

/// A seed that is no http(s) URL, and what it was probably meant to be.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SeedMistake {
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
    pub fn of(seed: &str) -> Option<SeedMistake> {
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

/// `path` as one word of a shell command, quoted when it holds anything but the characters
/// paths are usually made of.
pub fn shell_word(path: &Path) -> String {
    let text = path.to_string_lossy();
    let plain = |character: char| character.is_alphanumeric() || "/._-+,:@%~=".contains(character);
    if !text.is_empty() && text.chars().all(plain) {
        text.into_owned()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meant(seed: &str) -> Option<String> {
        SeedMistake::of(seed).map(|mistake| match mistake {
            SeedMistake::NoScheme(url) => url.to_string(),
            SeedMistake::FilePath(folder) => format!("serve {}", folder.display()),
        })
    }

    #[test]
    fn a_host_without_its_scheme_is_the_url_meant() {
        let cases = [
            ("example.com", "https://example.com/"),
            ("www.example.com/blog/", "https://www.example.com/blog/"),
            ("example.com:443", "https://example.com/"),
            ("example.com:8080", "http://example.com:8080/"),
            ("127.0.0.1:8000", "http://127.0.0.1:8000/"),
            ("127.0.0.1", "http://127.0.0.1/"),
            ("localhost:3000", "http://localhost:3000/"),
            ("localhost", "http://localhost/"),
            ("app.localhost:5173/docs", "http://app.localhost:5173/docs"),
            ("[::1]:8080", "http://[::1]:8080/"),
            ("192.168.1.20", "https://192.168.1.20/"),
            ("  example.com ", "https://example.com/"),
        ];
        for (seed, url) in cases {
            assert_eq!(meant(seed).as_deref(), Some(url), "{seed}");
        }
    }

    #[test]
    fn a_file_path_is_a_folder_to_serve() {
        let directory = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
        let page = directory.path().join("about");
        std::fs::write(&page, "<p>about</p>").unwrap_or_else(|error| panic!("{error}"));
        let shown = directory.path().display().to_string();
        let cases = [
            ("./index.html", "serve ."),
            ("index.html", "serve ."),
            ("site/INDEX.HTM", "serve site"),
            ("../site", "serve ../site"),
            ("/var/www/html/", "serve /var/www/html/"),
            ("~/site/index.html", "serve ~/site"),
            ("file:///srv/site/index.html", "serve /srv/site"),
        ];
        for (seed, folder) in cases {
            assert_eq!(meant(seed).as_deref(), Some(folder), "{seed}");
        }
        // Found on disk, whatever it looks like: a folder is served as it is, a file's folder.
        assert_eq!(meant(&shown), Some(format!("serve {shown}")));
        assert_eq!(
            meant(&page.display().to_string()),
            Some(format!("serve {shown}"))
        );
    }

    #[test]
    fn urls_and_what_cannot_be_told_have_no_suggestion() {
        for seed in [
            "https://example.com/",
            "http://127.0.0.1:8000/",
            "ftp://example.com/",
            "mailto:someone@example.com",
            "user:secret@example.com",
            "example",
            "example.com:port",
            "example.com:99999",
            "two words.com",
            "",
        ] {
            assert_eq!(meant(seed), None, "{seed}");
        }
    }

    #[test]
    fn the_mistakes_read_as_one_line_with_what_to_type() {
        let host = SeedMistake::of("example.com").map(|mistake| mistake.to_string());
        assert_eq!(
            host.as_deref(),
            Some("is not a URL: did you mean https://example.com/?")
        );
        let page = SeedMistake::of("./my site/index.html").map(|mistake| mistake.to_string());
        assert_eq!(
            page.as_deref(),
            Some(
                "is a file path, not a URL: serve its folder (python3 -m http.server 8000 \
                 --directory './my site') and crawl http://localhost:8000/"
            )
        );
    }
}
