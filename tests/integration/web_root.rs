//! The output directory is a web root, which others may be able to write: a link planted at
//! any name sitemapper writes, reads or removes there (each sitemap file of every kind, a
//! stale child, the names earlier versions kept their bookkeeping at) is replaced or left,
//! never written through, and nothing but the sitemap files is left there. A `--out` that is
//! itself a link is the user's choice, and is followed.

use std::collections::BTreeMap;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

use jiff::{SignedDuration, Timestamp};

use crate::fixture::{Route, Server, Site};
use crate::harness::{assert_one_line_error, crawl, listed_urls};

/// Every page's `Last-Modified`: the same site, byte-identical files on every run.
const MODIFIED: &str = "Mon, 01 Jan 2024 00:00:00 GMT";

/// The names where earlier versions kept their bookkeeping in the output directory.
const BOOKKEEPING: [&str; 2] = [".sitemapper-lock", ".sitemapper-files"];

/// The kinds of output, each a crawl's flags: one file in each format; numbered gzip
/// children; files split by section, with their text twins and the news sitemap.
const OUTPUTS: [&[&str]; 3] = [
    &["--format", "xml,txt"],
    &["--max-urls-per-file", "2", "--gzip"],
    &[
        "--split-by",
        "section",
        "--format",
        "xml,txt",
        "--news",
        "The Fixture Times",
    ],
];

/// A site of two sections and a recent news article, every page dated.
fn site() -> Site {
    let paths = ["/blog/a", "/blog/b", "/docs/a", "/docs/b", "/news/today"];
    let links: String = paths
        .iter()
        .map(|path| format!(r#"<a href="{path}">{path}</a>"#))
        .collect();
    let published = Timestamp::now() - SignedDuration::from_hours(2);
    let article = format!(
        r#"<html lang="en"><head><title>Today</title><script type="application/ld+json">{{"@context": "https://schema.org", "@type": "NewsArticle", "headline": "Today", "datePublished": "{published}"}}</script></head><body>Today.</body></html>"#
    );
    let mut site = Site::new().route(
        "/",
        Route::html(&format!("<title>Home</title>{links}")).header("Last-Modified", MODIFIED),
    );
    for path in paths {
        let body = if path == "/news/today" {
            article.clone()
        } else {
            format!("<title>{path}</title><p>{path}</p>")
        };
        site = site.route(path, Route::html(&body).header("Last-Modified", MODIFIED));
    }
    site
}

/// Each entry of `directory` by name: its bytes when it is a regular file, `None` for
/// anything else (a link, a directory).
fn entries(directory: &Path) -> BTreeMap<String, Option<Vec<u8>>> {
    std::fs::read_dir(directory)
        .unwrap()
        .map(|entry| {
            let entry = entry.unwrap();
            let name = entry.file_name().to_string_lossy().into_owned();
            let is_file = entry.file_type().unwrap().is_file();
            (name, is_file.then(|| std::fs::read(entry.path()).unwrap()))
        })
        .collect()
}

/// `entries` with the `<lastmod>` lines of an index left out: a child whose name held
/// another file (a link's target, which the web server served there) has changed now.
fn without_index_lastmods(
    mut entries: BTreeMap<String, Option<Vec<u8>>>,
) -> BTreeMap<String, Option<Vec<u8>>> {
    if let Some(Some(index)) = entries.get_mut("sitemap.xml") {
        let text = String::from_utf8(index.clone()).unwrap();
        if text.contains("<sitemapindex") {
            *index = text
                .lines()
                .filter(|line| !line.contains("<lastmod>"))
                .flat_map(|line| [line, "\n"])
                .collect::<String>()
                .into_bytes();
        }
    }
    entries
}

/// What a crawl of `server` with `flags` publishes in a directory of its own.
fn published(server: &Server, flags: &[&str]) -> BTreeMap<String, Option<Vec<u8>>> {
    let out = tempfile::tempdir().unwrap();
    crawl(&server.url("/"), out.path(), flags).assert_success();
    let published = entries(out.path());
    assert!(
        published.keys().all(|name| name.starts_with("sitemap")),
        "{:?}",
        published.keys()
    );
    published
}

/// Files outside any output directory, each with its own bytes, that links point to.
struct Victims {
    directory: tempfile::TempDir,
    bytes: BTreeMap<PathBuf, Vec<u8>>,
}

impl Victims {
    fn new() -> Victims {
        Victims {
            directory: tempfile::tempdir().unwrap(),
            bytes: BTreeMap::new(),
        }
    }

    /// Plants at `link` a link to a new victim holding `bytes`.
    fn plant(&mut self, link: &Path, bytes: &[u8]) {
        let victim = self
            .directory
            .path()
            .join(format!("victim-{}", self.bytes.len()));
        std::fs::write(&victim, bytes).unwrap();
        symlink(&victim, link).unwrap();
        self.bytes.insert(victim, bytes.to_vec());
    }

    fn assert_untouched(&self) {
        assert_eq!(
            self.bytes.len(),
            std::fs::read_dir(self.directory.path()).unwrap().count()
        );
        for (victim, bytes) in &self.bytes {
            assert_eq!(
                &std::fs::read(victim).unwrap(),
                bytes,
                "{} was written through a link",
                victim.display()
            );
        }
    }
}

#[test]
fn a_link_at_every_name_a_crawl_writes_is_replaced_and_never_written_through() {
    let server = site().serve();
    let mut every_name = Vec::new();
    for flags in OUTPUTS {
        let expected = published(&server, flags);
        every_name.extend(expected.keys().cloned());
        let out = tempfile::tempdir().unwrap();
        let mut victims = Victims::new();
        for name in expected.keys() {
            victims.plant(
                &out.path().join(name),
                format!("{name}'s victim\n").as_bytes(),
            );
        }
        for name in BOOKKEEPING {
            victims.plant(
                &out.path().join(name),
                b"pid 1\nstarted 2024-01-01T00:00:00Z\n",
            );
        }
        // A link to the very bytes to publish is not the file published either.
        std::fs::remove_file(out.path().join("sitemap.xml")).unwrap();
        let same_bytes = expected["sitemap.xml"].clone().unwrap();
        victims.plant(&out.path().join("sitemap.xml"), &same_bytes);

        let run = crawl(&server.url("/"), out.path(), flags);

        run.assert_success();
        victims.assert_untouched();
        assert_eq!(
            without_index_lastmods(entries(out.path())),
            without_index_lastmods(expected),
            "{flags:?}: the sitemap files themselves, and nothing else\n{}",
            run.stderr
        );
        assert!(
            run.stderr
                .contains("a link or a special file stood at a sitemap's name"),
            "{}",
            run.stderr
        );
    }
    // Every kind of file was planted at.
    for name in [
        "sitemap.xml",
        "sitemap.txt",
        "sitemap-blog.xml",
        "sitemap-blog.txt",
        "sitemap-news.xml",
    ] {
        assert!(
            every_name.iter().any(|written| written == name),
            "{every_name:?}"
        );
    }
    assert!(
        every_name.iter().any(|name| name.ends_with(".xml.gz")),
        "{every_name:?}"
    );
}

#[test]
fn stale_children_are_removed_and_a_link_at_a_stale_name_is_left_unfollowed() {
    let server = site().serve();
    let out = tempfile::tempdir().unwrap();
    crawl(&server.url("/"), out.path(), &["--max-urls-per-file", "1"]).assert_success();
    let children: Vec<String> = entries(out.path())
        .into_keys()
        .filter(|name| name != "sitemap.xml")
        .collect();
    assert!(children.len() > 3, "{children:?}");
    let mut victims = Victims::new();
    let linked = &children[..2];
    for name in linked {
        let path = out.path().join(name);
        let bytes = std::fs::read(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        victims.plant(&path, &bytes);
    }
    victims.plant(
        &out.path().join(".sitemapper-files"),
        b"sitemap-00001.xml\n",
    );

    crawl(&server.url("/"), out.path(), &[]).assert_success();

    victims.assert_untouched();
    let mut expected = published(&server, &[]);
    for name in linked {
        // Not a file sitemapper wrote: left for the user, as any file of theirs.
        expected.insert(name.clone(), None);
    }
    assert_eq!(entries(out.path()), expected);
    assert_eq!(listed_urls(out.path()).len(), 6);
}

#[test]
fn a_database_and_an_output_directory_that_is_a_link_the_user_chose() {
    let server = site().serve();
    let holder = tempfile::tempdir().unwrap();
    let real = holder.path().join("www");
    std::fs::create_dir(&real).unwrap();
    let out = holder.path().join("current");
    symlink(&real, &out).unwrap();
    let state = tempfile::tempdir().unwrap();
    let database = state.path().join("crawl.db");
    let mut victims = Victims::new();
    victims.plant(&state.path().join("crawl.db.sitemapper-lock"), b"pid 1\n");
    victims.plant(&real.join(".sitemapper-lock"), b"pid 1\n");

    crawl(
        &server.url("/"),
        &out,
        &["--state", database.to_str().unwrap()],
    )
    .assert_success();

    victims.assert_untouched();
    assert_eq!(entries(&real), published(&server, &[]));
    assert_eq!(
        entries(state.path()).into_keys().collect::<Vec<_>>(),
        ["crawl.db"],
        "no record beside the database"
    );
}

#[test]
fn the_list_of_files_an_earlier_version_kept_is_read_once_and_removed() {
    let server = site().serve();
    let out = tempfile::tempdir().unwrap();
    crawl(&server.url("/"), out.path(), &["--split-by", "section"]).assert_success();
    let split: Vec<String> = entries(out.path())
        .into_keys()
        .filter(|name| name != "sitemap.xml")
        .collect();
    // An earlier version's output: its children named by its list, not by an index of
    // sitemapper's; and a file of the user's.
    let list: String = split.iter().map(|name| format!("{name}\n")).collect();
    std::fs::write(out.path().join(".sitemapper-files"), list).unwrap();
    std::fs::write(out.path().join("sitemap.xml"), "an earlier index").unwrap();
    std::fs::write(out.path().join("sitemap-notes.xml"), "the user's").unwrap();

    crawl(&server.url("/"), out.path(), &[]).assert_success();

    let mut expected = published(&server, &[]);
    expected.insert(
        "sitemap-notes.xml".to_string(),
        Some(b"the user's".to_vec()),
    );
    assert_eq!(
        entries(out.path()),
        expected,
        "{split:?} removed, and the list"
    );
}

#[test]
fn a_directory_at_a_sitemap_name_is_refused_and_nothing_moves() {
    let server = site().serve();
    let out = tempfile::tempdir().unwrap();
    std::fs::create_dir(out.path().join("sitemap.xml")).unwrap();

    let run = crawl(&server.url("/"), out.path(), &[]);

    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_one_line_error(&run.stderr);
    assert!(
        run.stderr.contains(&format!(
            "cannot publish {}: a directory stands there, and sitemapper replaces only files",
            out.path().join("sitemap.xml").display()
        )),
        "{}",
        run.stderr
    );
    assert_eq!(
        entries(out.path()),
        BTreeMap::from([("sitemap.xml".to_string(), None)])
    );
}
