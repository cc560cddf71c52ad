//! Publishing into an output directory others can write: links planted at every name
//! sitemapper writes, reads or removes there are never followed, and which files are its own
//! is read from what it published (the index), or from the list an earlier version kept.

use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::{Path, PathBuf};

use crate::tests::{locs, options, time, write, write_grouped};
use crate::*;

const VICTIM: &[u8] = b"a file outside the output directory\n";

/// A file outside any output directory, in a directory of its own.
fn victim_file() -> (tempfile::TempDir, PathBuf) {
    let directory = tempfile::tempdir().unwrap();
    let path = directory.path().join("victim");
    std::fs::write(&path, VICTIM).unwrap();
    (directory, path)
}

fn is_link(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|metadata| metadata.file_type().is_symlink())
}

fn is_regular_file(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|metadata| metadata.file_type().is_file())
}

fn names_in(directory: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(directory)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// `(group, URL)` pairs as entries.
fn entries<'a>(pages: &'a [(&'a str, String)]) -> Vec<(&'a str, Entry<'a>)> {
    pages
        .iter()
        .map(|(group, loc)| (*group, Entry::new(loc, Some(time("2024-01-01T00:00:00Z")))))
        .collect()
}

fn pages(groups: &[&'static str]) -> Vec<(&'static str, String)> {
    groups
        .iter()
        .flat_map(|&group| {
            (0..2).map(move |index| (group, format!("https://example.com/{group}/{index}")))
        })
        .collect()
}

/// Publishes the pages of `groups` (two each, split by group) in `formats` into `output`.
fn publish_groups(output: &Path, groups: &[&'static str], formats: &[Format]) -> Published {
    let staging = StagingDir::create_in(output).unwrap();
    let pages = pages(groups);
    let written: Vec<Written> = formats
        .iter()
        .map(|&format| {
            let options = WriteOptions {
                format,
                ..options(MAX_URLS_PER_FILE, MAX_BYTES_PER_FILE, false)
            };
            write_grouped(staging.path(), &entries(&pages), options).unwrap()
        })
        .collect();
    staging
        .publish(&written.iter().collect::<Vec<_>>())
        .unwrap()
}

/// Publishes `count` URLs, two a file.
fn publish_urls(output: &Path, count: usize) -> Published {
    let staging = StagingDir::create_in(output).unwrap();
    let written = write(
        staging.path(),
        &locs(count),
        options(2, MAX_BYTES_PER_FILE, false),
    );
    staging.publish(&[&written]).unwrap()
}

#[test]
fn a_link_at_every_name_published_is_replaced_and_what_it_points_to_is_untouched() {
    let output = tempfile::tempdir().unwrap();
    let (_elsewhere, victim) = victim_file();
    // Learn the names and bytes of what will be written.
    let scratch = tempfile::tempdir().unwrap();
    let expected = write(
        scratch.path(),
        &locs(7),
        options(2, MAX_BYTES_PER_FILE, false),
    );
    assert!(expected.files.len() > 2, "{:?}", expected.files);
    // One name's link points to a file holding exactly the bytes to publish: the same
    // bytes behind a link are not "published".
    let (_twin_directory, twin) = victim_file();
    let first = &expected.files[0];
    std::fs::copy(scratch.path().join(first), &twin).unwrap();
    let twin_bytes = std::fs::read(&twin).unwrap();
    symlink(&twin, output.path().join(first)).unwrap();
    for name in &expected.files[1..] {
        symlink(&victim, output.path().join(name)).unwrap();
    }
    symlink(&victim, output.path().join(".sitemapper-files")).unwrap();

    let published = publish_urls(output.path(), 7);

    assert_eq!(std::fs::read(&victim).unwrap(), VICTIM);
    assert_eq!(std::fs::read(&twin).unwrap(), twin_bytes);
    assert_eq!(
        published.files.len(),
        expected.files.len(),
        "every link replaced"
    );
    assert!(published.unchanged.is_empty());
    for name in &expected.files {
        let path = output.path().join(name);
        assert!(is_regular_file(&path), "{name} is the file itself now");
        assert_eq!(
            std::fs::read(&path).unwrap(),
            std::fs::read(scratch.path().join(name)).unwrap()
        );
    }
    assert_eq!(names_in(output.path()), {
        let mut names = expected.files.clone();
        names.sort();
        names
    });
}

#[test]
fn a_link_at_a_stale_name_is_left_alone_and_not_followed() {
    let output = tempfile::tempdir().unwrap();
    let (_elsewhere, victim) = victim_file();
    let first = publish_urls(output.path(), 9);
    let children: Vec<PathBuf> = first
        .files
        .iter()
        .filter(|path| !path.ends_with("sitemap.xml"))
        .cloned()
        .collect();
    let (linked, rest) = children.split_first().unwrap();
    std::fs::remove_file(linked).unwrap();
    symlink(&victim, linked).unwrap();

    let second = publish_urls(output.path(), 1);

    assert_eq!(std::fs::read(&victim).unwrap(), VICTIM);
    assert!(is_link(linked), "not sitemapper's file: left where it is");
    let mut rest = rest.to_vec();
    rest.sort();
    assert_eq!(second.removed_stale, rest);
}

#[test]
fn a_directory_at_a_name_to_publish_is_refused_before_any_file_moves() {
    let output = tempfile::tempdir().unwrap();
    std::fs::write(output.path().join("sitemap.xml"), "previous").unwrap();
    let scratch = tempfile::tempdir().unwrap();
    let expected = write(
        scratch.path(),
        &locs(5),
        options(2, MAX_BYTES_PER_FILE, false),
    );
    let blocked = expected.files.last().unwrap();
    assert_eq!(blocked, "sitemap.xml");
    std::fs::remove_file(output.path().join("sitemap.xml")).unwrap();
    std::fs::create_dir(output.path().join("sitemap.xml")).unwrap();

    let staging = StagingDir::create_in(output.path()).unwrap();
    let written = write(
        staging.path(),
        &locs(5),
        options(2, MAX_BYTES_PER_FILE, false),
    );
    let error = staging.publish(&[&written]).unwrap_err();

    assert!(
        matches!(&error, SitemapError::DirectoryInTheWay { path } if path.ends_with("sitemap.xml")),
        "{error}"
    );
    assert_eq!(
        error.to_string(),
        format!(
            "cannot publish {}: a directory stands there, and sitemapper replaces only files",
            output.path().join("sitemap.xml").display()
        )
    );
    assert_eq!(names_in(output.path()), ["sitemap.xml"], "nothing moved");
}

#[test]
fn the_files_of_an_earlier_split_are_known_from_the_index_it_published() {
    let output = tempfile::tempdir().unwrap();
    publish_groups(output.path(), &["blog", "docs"], &[Format::Xml]);
    std::fs::write(output.path().join("sitemap-notes.xml"), "the user's").unwrap();

    let published = publish_groups(output.path(), &["blog"], &[Format::Xml]);

    assert_eq!(
        published.removed_stale,
        [output.path().join("sitemap-docs.xml")]
    );
    assert_eq!(
        names_in(output.path()),
        ["sitemap-blog.xml", "sitemap-notes.xml", "sitemap.xml"]
    );

    // An index sitemapper did not write (no mark) says nothing of what is sitemapper's.
    std::fs::write(
        output.path().join("sitemap.xml"),
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<sitemapindex xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n  <sitemap><loc>https://example.com/sitemap-notes.xml</loc></sitemap>\n</sitemapindex>\n",
    )
    .unwrap();
    let published = publish_groups(output.path(), &["docs"], &[Format::Xml]);
    assert!(published.removed_stale.is_empty(), "{published:?}");
    assert!(output.path().join("sitemap-notes.xml").exists());
}

#[test]
fn the_text_files_written_with_an_index_are_known_by_its_names() {
    let output = tempfile::tempdir().unwrap();
    publish_groups(
        output.path(),
        &["blog", "docs"],
        &[Format::Xml, Format::Text],
    );
    assert!(output.path().join("sitemap-docs.txt").exists());

    let published = publish_groups(output.path(), &["blog"], &[Format::Xml, Format::Text]);

    assert_eq!(
        published.removed_stale,
        [
            output.path().join("sitemap-docs.txt"),
            output.path().join("sitemap-docs.xml")
        ]
    );
}

#[test]
fn the_list_an_earlier_version_kept_is_read_then_removed() {
    let output = tempfile::tempdir().unwrap();
    // What an earlier version left: a split's child, its list, and the user's own file.
    std::fs::write(output.path().join("sitemap-blog.xml"), "an earlier child").unwrap();
    std::fs::write(output.path().join("sitemap-notes.xml"), "the user's").unwrap();
    std::fs::write(output.path().join("passwd"), "not a sitemap").unwrap();
    std::fs::write(
        output.path().join(".sitemapper-files"),
        "sitemap-blog.xml\nsitemap.xml\n../passwd\npasswd\n",
    )
    .unwrap();
    assert!(published_names(output.path()).contains("sitemap-blog.xml"));

    let published = publish_urls(output.path(), 1);

    assert_eq!(
        published.removed_stale,
        [output.path().join("sitemap-blog.xml")]
    );
    assert_eq!(
        names_in(output.path()),
        ["passwd", "sitemap-notes.xml", "sitemap.xml"],
        "the list is gone; only names it gives that sitemapper writes were its own"
    );
}

#[test]
fn a_list_at_a_link_is_not_read_and_the_link_is_removed() {
    let output = tempfile::tempdir().unwrap();
    let (_elsewhere, victim) = victim_file();
    std::fs::write(&victim, "sitemap-notes.xml\n").unwrap();
    std::fs::write(output.path().join("sitemap-notes.xml"), "the user's").unwrap();
    symlink(&victim, output.path().join(".sitemapper-files")).unwrap();
    assert!(!published_names(output.path()).contains("sitemap-notes.xml"));

    let published = publish_urls(output.path(), 1);

    assert!(published.removed_stale.is_empty());
    assert_eq!(std::fs::read(&victim).unwrap(), b"sitemap-notes.xml\n");
    assert_eq!(
        names_in(output.path()),
        ["sitemap-notes.xml", "sitemap.xml"]
    );
}

#[test]
fn a_published_index_behind_a_link_is_not_read() {
    let output = tempfile::tempdir().unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    publish_urls(elsewhere.path(), 7);
    symlink(
        elsewhere.path().join("sitemap.xml"),
        output.path().join("sitemap.xml"),
    )
    .unwrap();
    let staging = StagingDir::create_in(output.path()).unwrap();
    assert!(staging.published_lastmods().is_empty());
    assert!(!staging.is_published("sitemap.xml"));
    let standing = StagingDir::create_in(elsewhere.path()).unwrap();
    assert!(
        !standing.published_lastmods().is_empty(),
        "read where it is a file"
    );
}

#[test]
fn the_staging_directory_is_private_and_removed() {
    let output = tempfile::tempdir().unwrap();
    let staging = StagingDir::create_in(output.path()).unwrap();
    let path = staging.path().to_path_buf();
    let mode = std::fs::symlink_metadata(&path)
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o700);
    std::fs::write(path.join("sitemap.xml"), "written, never published").unwrap();
    drop(staging);
    assert!(names_in(output.path()).is_empty());
}

#[test]
fn only_staging_directories_of_this_user_are_removed_as_abandoned() {
    let output = tempfile::tempdir().unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    std::fs::write(elsewhere.path().join("kept"), "kept").unwrap();
    let killed = output.path().join(".sitemapper-staging-killed");
    std::fs::create_dir(&killed).unwrap();
    std::fs::write(killed.join("sitemap-00002.xml"), "half").unwrap();
    symlink(
        elsewhere.path(),
        output.path().join(".sitemapper-staging-link"),
    )
    .unwrap();
    std::fs::write(output.path().join(".sitemapper-staging-file"), "a file").unwrap();

    let removed = StagingDir::remove_abandoned(output.path());

    assert_eq!(removed, [killed]);
    assert_eq!(
        names_in(output.path()),
        [".sitemapper-staging-file", ".sitemapper-staging-link"]
    );
    assert_eq!(names_in(elsewhere.path()), ["kept"]);
}

#[test]
fn the_writer_does_not_write_into_a_link_at_its_directory() {
    let holder = tempfile::tempdir().unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    let link = holder.path().join("staging");
    symlink(elsewhere.path(), &link).unwrap();
    let options = options(2, MAX_BYTES_PER_FILE, false);
    let mut planner = Planner::new(&options);
    let entry = Entry::new("https://example.com/", None);
    planner.add("", &entry).unwrap();
    let plan = planner.plan().unwrap();
    let mut writer = SitemapWriter::new(&link, options.clone(), &plan);
    let error = writer.push(0, &entry).unwrap_err();
    assert!(matches!(error, SitemapError::Write { .. }), "{error}");
    let article = NewsEntry {
        loc: "https://example.com/news".to_string(),
        title: "News".to_string(),
        language: "en".to_string(),
        publication_date: time("2024-01-01T00:00:00Z"),
    };
    assert!(write_news(&link, &options, "The Times", vec![article]).is_err());
    assert!(names_in(elsewhere.path()).is_empty());
}
