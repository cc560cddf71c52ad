//! A directory of static files served as nginx serves one (`root DIR; index index.html;`),
//! so that tests crawl what static site generators really wrote.
//!
//! - `DIR/a/b.html` answers at `/a/b.html`, `DIR/a/index.html` at `/a/` too; `/a` answers
//!   301 to `/a/` for every directory, and `/a/` without an index 403 (no autoindex).
//! - A query string does not change the file served.
//! - Content-Type comes from the extension (nginx's `mime.types`; `application/octet-stream`
//!   otherwise), with no charset, as nginx sends it by default.
//! - `Last-Modified` is the file's modification time, which the test sets: every file of a
//!   deploy gets the same one, so a redeploy re-dates every file whatever its content. The
//!   `ETag` is nginx's: the modification time and the size in hexadecimal, so it changes
//!   with a redeploy too. The fixture server answers `If-None-Match` and `If-Modified-Since`
//!   with 304 when they match these exactly (`not_modified` in fixture.rs).
//! - Any other path answers 404, with the site's own `404.html` when it has one (nginx's
//!   `error_page 404 /404.html;`, which every generator's deploy guide sets).
//!
//! A site built for its production origin (`https://docs.example.com/` in its canonicals and
//! its sitemap.xml) is served with that origin rewritten to the fixture server's, as nginx's
//! `sub_filter` does on a staging host: the files stay exactly as the generator wrote them.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use jiff::Timestamp;

use crate::fixture::{Route, Server, Site};

/// Names the fixture server replaces in every body it serves (fixture.rs): a generated file
/// that held one would not be served as written.
const SERVER_NAMES: [&str; 3] = ["{origin}", "{host}", "{port}"];

/// The extensions whose files are text, where the production origin is rewritten.
const TEXT_EXTENSIONS: [&str; 6] = ["html", "xml", "txt", "js", "css", "json"];

/// A generator's output directory, published on a web server.
#[derive(Debug, Clone)]
pub(crate) struct StaticSite {
    directory: PathBuf,
    /// Where the site's root is served: `""` for the host's root, `"/book"` for `/book/`.
    mount: String,
    /// The origin the site was built for, without a trailing slash.
    built_for: Option<String>,
    /// When every file was last modified (deployed).
    modified: Timestamp,
    /// Files whose content or date differ from the directory's: path under it -> both.
    replaced: BTreeMap<String, (Vec<u8>, Timestamp)>,
}

impl StaticSite {
    /// Serves `directory` at the host's root, every file last modified at `modified`.
    pub(crate) fn new(directory: &Path, modified: Timestamp) -> StaticSite {
        StaticSite {
            directory: directory.to_path_buf(),
            mount: String::new(),
            built_for: None,
            modified,
            replaced: BTreeMap::new(),
        }
    }

    /// Rewrites `origin` (`https://docs.example.com/`), the one the site was built for, to
    /// the fixture server's origin in every text file served.
    pub(crate) fn built_for(mut self, origin: &str) -> StaticSite {
        self.built_for = Some(origin.trim_end_matches('/').to_string());
        self
    }

    /// Serves the site under `prefix` (`/book`) instead of at the host's root.
    pub(crate) fn mounted_at(mut self, prefix: &str) -> StaticSite {
        assert!(
            prefix.starts_with('/') && !prefix.ends_with('/'),
            "a mount point is a path without a trailing slash: {prefix}"
        );
        self.mount = prefix.to_string();
        self
    }

    /// Serves `contents`, last modified at `modified`, instead of the file at `path` (under
    /// the directory, `guide/index.html`): one page edited and deployed alone.
    pub(crate) fn replace(
        mut self,
        path: &str,
        contents: Vec<u8>,
        modified: Timestamp,
    ) -> StaticSite {
        assert!(
            self.directory.join(path).is_file(),
            "{path} is not a file of {}",
            self.directory.display()
        );
        self.replaced.insert(path.to_string(), (contents, modified));
        self
    }

    /// A fixture site serving only these files.
    pub(crate) fn site(&self) -> Site {
        self.add_to(Site::new())
    }

    /// `site` with these files added, and this site's answer to paths nothing else serves.
    pub(crate) fn add_to(&self, mut site: Site) -> Site {
        let mut files = BTreeMap::new();
        let mut directories = vec![String::new()];
        self.collect(&self.directory, "", &mut files, &mut directories);
        let mut routes: BTreeMap<String, Route> = BTreeMap::new();
        for (path, route) in &files {
            routes.insert(format!("{}/{path}", self.mount), route.clone());
        }
        for directory in &directories {
            let url_path = format!("{}/{directory}", self.mount);
            let index = files.get(&format!("{directory}index.html")).cloned();
            // nginx without autoindex forbids listing a directory that has no index.
            let forbidden = || html_route(403, "<html><body>403 Forbidden</body></html>");
            routes.insert(url_path.clone(), index.unwrap_or_else(forbidden));
            let without_slash = url_path.trim_end_matches('/');
            if !without_slash.is_empty() {
                routes.insert(without_slash.to_string(), Route::redirect(301, &url_path));
            }
        }
        let not_found = files.get("404.html").map(|route| {
            let mut route = route.clone();
            route.status = 404;
            route
        });
        for (path, route) in &routes {
            site = site.route(path, route.clone());
        }
        let routes = Arc::new(routes);
        let inside = format!("{}/", self.mount);
        site.generated(move |target| {
            let path = target.split('?').next().unwrap_or_default();
            if let Some(route) = routes.get(path) {
                return Some(route.clone());
            }
            if path.starts_with(&inside) {
                return not_found.clone();
            }
            None
        })
    }

    /// Reads every file under `directory` (`relative` from the root, ending in `/` unless
    /// empty) into a route, and notes every directory.
    fn collect(
        &self,
        directory: &Path,
        relative: &str,
        files: &mut BTreeMap<String, Route>,
        directories: &mut Vec<String>,
    ) {
        let mut entries: Vec<_> = std::fs::read_dir(directory)
            .unwrap_or_else(|error| panic!("read {}: {error}", directory.display()))
            .map(|entry| entry.expect("directory entry").path())
            .collect();
        entries.sort();
        for entry in entries {
            let name = entry
                .file_name()
                .and_then(|name| name.to_str())
                .expect("a UTF-8 file name");
            let path = format!("{relative}{name}");
            if entry.is_dir() {
                directories.push(format!("{path}/"));
                self.collect(&entry, &format!("{path}/"), files, directories);
            } else {
                let (contents, modified) = match self.replaced.get(&path) {
                    Some((contents, modified)) => (contents.clone(), *modified),
                    None => (
                        std::fs::read(&entry).expect("read a site file"),
                        self.modified,
                    ),
                };
                files.insert(path.clone(), self.file_route(&path, contents, modified));
            }
        }
    }

    fn file_route(&self, path: &str, contents: Vec<u8>, modified: Timestamp) -> Route {
        let extension = path.rsplit_once('.').map_or("", |(_, extension)| extension);
        // nginx's ETag: "mtime-size", both in hexadecimal, of the file on disk.
        let etag = format!("\"{:x}-{:x}\"", modified.as_second(), contents.len());
        let mut body = contents;
        if let Ok(text) = std::str::from_utf8(&body) {
            for name in SERVER_NAMES {
                assert!(
                    !text.contains(name),
                    "{path} holds {name}, which the fixture server would replace"
                );
            }
            if let Some(origin) = &self.built_for
                && TEXT_EXTENSIONS.contains(&extension)
            {
                body = text
                    .replace(origin.as_str(), &format!("{{origin}}{}", self.mount))
                    .into_bytes();
            }
        }
        Route::new(200, "")
            .bytes(body)
            .header("Content-Type", content_type(extension))
            .header("Last-Modified", &http_date(modified))
            .header("ETag", &etag)
    }
}

fn html_route(status: u16, body: &str) -> Route {
    Route::new(status, body).header("Content-Type", "text/html")
}

/// `Tue, 02 Jan 2024 03:04:05 GMT` (RFC 9110 section 5.6.7).
fn http_date(time: Timestamp) -> String {
    jiff::fmt::rfc2822::DateTimePrinter::new()
        .timestamp_to_rfc9110_string(&time)
        .expect("a time a file can have")
}

/// The type nginx's `mime.types` gives an extension.
fn content_type(extension: &str) -> &'static str {
    match extension {
        "html" | "htm" => "text/html",
        "css" => "text/css",
        "xml" => "text/xml",
        "txt" => "text/plain",
        "js" => "application/javascript",
        "json" => "application/json",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "ico" => "image/x-icon",
        "woff" => "font/woff",
        "woff2" => "font/woff2",
        _ => "application/octet-stream",
    }
}

/// The status code, the headers (names lower-cased) and the body of `GET path`, over a
/// connection of its own.
fn get(
    server: &Server,
    path: &str,
    headers: &[(&str, &str)],
) -> (u16, Vec<(String, String)>, String) {
    let mut stream = TcpStream::connect(server.host()).unwrap();
    let mut request = format!(
        "GET {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n",
        server.host()
    );
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    stream.write_all(request.as_bytes()).unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    let (head, body) = response.split_once("\r\n\r\n").unwrap();
    let mut lines = head.lines();
    let status = lines
        .next()
        .unwrap()
        .split(' ')
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let headers = lines
        .filter_map(|line| line.split_once(": "))
        .map(|(name, value)| (name.to_ascii_lowercase(), value.to_string()))
        .collect();
    (status, headers, body.to_string())
}

fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(header, _)| header == name)
        .map(|(_, value)| value.as_str())
}

#[test]
fn a_directory_is_served_as_nginx_serves_it() {
    let directory = tempfile::tempdir().unwrap();
    let write = |path: &str, text: &str| {
        let file = directory.path().join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, text).unwrap();
    };
    let home = r#"<link rel="canonical" href="https://docs.example.com/">"#;
    write("index.html", home);
    write("guide/index.html", "guide");
    write("guide/page.html", "page");
    write("assets/style.css", "body {}");
    write("404.html", "the site's own 404");
    let modified = "2026-03-02T09:00:00Z".parse().unwrap();
    let server = StaticSite::new(directory.path(), modified)
        .built_for("https://docs.example.com/")
        .mounted_at("/docs")
        .site()
        .serve();

    let (status, headers, body) = get(&server, "/docs/", &[]);
    assert_eq!(status, 200);
    assert_eq!(
        body,
        format!(r#"<link rel="canonical" href="{}/docs/">"#, server.origin())
    );
    assert_eq!(header(&headers, "content-type"), Some("text/html"));
    assert_eq!(
        header(&headers, "last-modified"),
        Some("Mon, 02 Mar 2026 09:00:00 GMT")
    );
    let etag = header(&headers, "etag").unwrap().to_string();
    assert_eq!(
        etag,
        format!("\"{:x}-{:x}\"", 1_772_442_000, home.len()),
        "nginx's: the file's time and size on disk"
    );

    assert_eq!(get(&server, "/docs/", &[("If-None-Match", &etag)]).0, 304);
    let (status, headers, _) = get(&server, "/docs/guide", &[]);
    assert_eq!(
        (status, header(&headers, "location")),
        (301, Some("/docs/guide/"))
    );
    assert_eq!(get(&server, "/docs/guide/", &[]).2, "guide");
    assert_eq!(get(&server, "/docs/guide/index.html", &[]).2, "guide");
    assert_eq!(
        get(&server, "/docs/guide/page.html?from=menu", &[]).2,
        "page"
    );
    let (status, headers, _) = get(&server, "/docs/assets/style.css", &[]);
    assert_eq!(
        (status, header(&headers, "content-type")),
        (200, Some("text/css"))
    );
    assert_eq!(get(&server, "/docs/assets/", &[]).0, 403, "no autoindex");
    let (status, _, body) = get(&server, "/docs/missing.html", &[]);
    assert_eq!((status, body.as_str()), (404, "the site's own 404"));
    let (status, _, body) = get(&server, "/elsewhere", &[]);
    assert_eq!(status, 404);
    assert_ne!(
        body, "the site's own 404",
        "outside the site, the host's own 404"
    );
}
