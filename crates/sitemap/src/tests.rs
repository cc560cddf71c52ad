//! Tests of writing and publishing, on real files, validated against the official schemas.

use std::io::Read;
use std::path::Path;

use jiff::Timestamp;

use super::*;

fn options(max_urls: usize, max_bytes: u64, gzip: bool) -> WriteOptions {
    WriteOptions {
        limits: Limits::new(max_urls, max_bytes).unwrap(),
        gzip,
        base_url: "https://example.com/".to_string(),
        format: Format::Xml,
        images: false,
        alternates: false,
    }
}

fn time(text: &str) -> Timestamp {
    text.parse().unwrap()
}

fn locs(count: usize) -> Vec<String> {
    (0..count)
        .map(|index| format!("https://example.com/page/{index:04}"))
        .collect()
}

/// Writes `locs` (with a lastmod on every third) into `directory`.
fn write(directory: &Path, locs: &[String], options: WriteOptions) -> Written {
    let mut writer = ChunkedWriter::new(directory, options).unwrap();
    for (index, loc) in locs.iter().enumerate() {
        let lastmod =
            (index % 3 == 0).then(|| Timestamp::from_second(1_700_000_000 + index as i64).unwrap());
        writer.push(&Entry::new(loc, lastmod)).unwrap();
    }
    writer.finish().unwrap()
}

fn read(path: &Path) -> String {
    let bytes = std::fs::read(path).unwrap();
    if path.extension().is_some_and(|extension| extension == "gz") {
        let mut text = String::new();
        flate2::read::GzDecoder::new(bytes.as_slice())
            .read_to_string(&mut text)
            .unwrap();
        text
    } else {
        String::from_utf8(bytes).unwrap()
    }
}

fn count_urls(path: &Path) -> usize {
    read(path).matches("<url>").count()
}

/// Validates with xmllint against schemas/all.xsd; skipped without xmllint unless CI.
fn assert_valid(path: &Path) {
    let schema = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../schemas/all.xsd");
    match std::process::Command::new("xmllint")
        .args(["--nonet", "--noout", "--schema"])
        .arg(&schema)
        .arg(path)
        .output()
    {
        Ok(output) => assert!(
            output.status.success(),
            "{} is invalid: {}",
            path.display(),
            String::from_utf8_lossy(&output.stderr)
        ),
        Err(error) if std::env::var_os("CI").is_some() => {
            panic!("xmllint is required under CI: {error}")
        }
        Err(error) => eprintln!("skipping schema validation: xmllint unavailable ({error})"),
    }
}

#[test]
fn a_small_set_is_one_sitemap_xml() {
    let directory = tempfile::tempdir().unwrap();
    let mut writer = ChunkedWriter::new(
        directory.path(),
        WriteOptions {
            limits: Limits::default(),
            gzip: false,
            base_url: "https://example.com/".into(),
            format: Format::Xml,
            images: false,
            alternates: false,
        },
    )
    .unwrap();
    writer
        .push(&Entry::new(
            "https://example.com/",
            Some(time("2024-01-02T03:04:05Z")),
        ))
        .unwrap();
    writer
        .push(&Entry::new("https://example.com/a?x=1&y=2", None))
        .unwrap();
    let written = writer.finish().unwrap();
    assert_eq!(
        written,
        Written {
            files: vec!["sitemap.xml".into()],
            urls: 2,
            is_index: false,
            format: Format::Xml,
        }
    );
    let path = directory.path().join("sitemap.xml");
    insta::assert_snapshot!("single_urlset", read(&path));
    assert_valid(&path);
}

#[test]
fn a_url_limit_makes_children_and_an_index() {
    let directory = tempfile::tempdir().unwrap();
    let written = write(
        directory.path(),
        &locs(7),
        options(3, MAX_BYTES_PER_FILE, false),
    );
    assert_eq!(
        written.files,
        [
            "sitemap-00001.xml",
            "sitemap-00002.xml",
            "sitemap-00003.xml",
            "sitemap.xml"
        ]
    );
    assert!(written.is_index);
    let counts: Vec<usize> = written.files[..3]
        .iter()
        .map(|name| count_urls(&directory.path().join(name)))
        .collect();
    assert_eq!(counts, [3, 3, 1]);
    let index = read(&directory.path().join("sitemap.xml"));
    insta::assert_snapshot!("index_of_three", index);
    for name in &written.files {
        assert_valid(&directory.path().join(name));
    }
}

#[test]
fn the_index_lastmod_is_the_newest_of_its_child() {
    let directory = tempfile::tempdir().unwrap();
    let mut writer =
        ChunkedWriter::new(directory.path(), options(2, MAX_BYTES_PER_FILE, false)).unwrap();
    let entries = [
        ("https://example.com/a", Some(time("2024-03-01T00:00:00Z"))),
        ("https://example.com/b", Some(time("2024-05-01T00:00:00Z"))),
        ("https://example.com/c", None),
    ];
    for (loc, lastmod) in entries {
        writer.push(&Entry::new(loc, lastmod)).unwrap();
    }
    writer.finish().unwrap();
    let index = read(&directory.path().join("sitemap.xml"));
    assert!(index.contains("<loc>https://example.com/sitemap-00001.xml</loc>\n    <lastmod>2024-05-01T00:00:00+00:00</lastmod>"), "{index}");
    assert!(
        index.contains("<loc>https://example.com/sitemap-00002.xml</loc>\n  </sitemap>"),
        "no lastmod for a child without any: {index}"
    );
}

#[test]
fn a_byte_limit_is_never_passed_even_at_the_boundary() {
    let directory = tempfile::tempdir().unwrap();
    let all = locs(400);
    // The limit holds exactly eighty entries: header + 80 entries + footer.
    let mut entry = String::new();
    xml::push_url(&mut entry, &Entry::new(&all[1], None));
    let header = xml::urlset_header(false, false);
    let exact = (header.len() + 80 * entry.len() + xml::URLSET_FOOTER.len()) as u64;
    assert!(exact >= MIN_BYTES_PER_FILE);
    let limit = exact;
    let mut writer =
        ChunkedWriter::new(directory.path(), options(MAX_URLS_PER_FILE, limit, false)).unwrap();
    for loc in &all {
        writer.push(&Entry::new(loc, None)).unwrap();
    }
    let written = writer.finish().unwrap();
    let mut total = 0;
    for name in &written.files[..written.files.len() - 1] {
        let path = directory.path().join(name);
        let size = std::fs::metadata(&path).unwrap().len();
        assert!(size <= limit, "{name}: {size} > {limit}");
        // Full files are filled to within one entry of the limit.
        if name != &written.files[written.files.len() - 2] {
            assert!(
                size + entry.len() as u64 > limit,
                "{name} could have held another entry"
            );
        }
        total += count_urls(&path);
    }
    assert_eq!(total, 400);
    assert_eq!(written.urls, 400);
    assert_eq!(
        written.files.len(),
        5 + 1,
        "400 entries, 80 a file, and the index"
    );
}

#[test]
fn an_entry_larger_than_a_file_is_an_error() {
    let directory = tempfile::tempdir().unwrap();
    let mut writer =
        ChunkedWriter::new(directory.path(), options(10, MIN_BYTES_PER_FILE, false)).unwrap();
    let huge = format!("https://example.com/{}", "&".repeat(2000));
    let error = writer.push(&Entry::new(&huge, None)).unwrap_err();
    assert!(
        matches!(error, SitemapError::EntryTooLarge { .. }),
        "{error}"
    );
}

#[test]
fn a_maximal_url_fits_in_the_smallest_file() {
    let directory = tempfile::tempdir().unwrap();
    let mut writer =
        ChunkedWriter::new(directory.path(), options(10, MIN_BYTES_PER_FILE, false)).unwrap();
    let longest = format!("https://example.com/{}", "a".repeat(2048 - 20));
    assert_eq!(longest.len(), 2048);
    writer
        .push(&Entry::new(&longest, Some(time("2024-01-01T00:00:00Z"))))
        .unwrap();
    writer.finish().unwrap();
}

#[test]
fn gzip_children_decompress_to_the_plain_files_and_the_index_is_always_there() {
    let plain = tempfile::tempdir().unwrap();
    let zipped = tempfile::tempdir().unwrap();
    let written_plain = write(
        plain.path(),
        &locs(5),
        options(2, MAX_BYTES_PER_FILE, false),
    );
    let written_zipped = write(
        zipped.path(),
        &locs(5),
        options(2, MAX_BYTES_PER_FILE, true),
    );
    assert_eq!(
        written_zipped.files,
        [
            "sitemap-00001.xml.gz",
            "sitemap-00002.xml.gz",
            "sitemap-00003.xml.gz",
            "sitemap.xml"
        ]
    );
    for (plain_name, zipped_name) in written_plain
        .files
        .iter()
        .zip(&written_zipped.files)
        .take(3)
    {
        assert_eq!(
            read(&plain.path().join(plain_name)),
            read(&zipped.path().join(zipped_name))
        );
        assert_valid(&zipped.path().join(zipped_name));
    }
    assert!(read(&zipped.path().join("sitemap.xml")).contains("sitemap-00001.xml.gz"));

    let single = tempfile::tempdir().unwrap();
    let written = write(
        single.path(),
        &locs(1),
        options(2, MAX_BYTES_PER_FILE, true),
    );
    assert_eq!(
        written.files,
        ["sitemap-00001.xml.gz", "sitemap.xml"],
        "with gzip the index is written even for one child"
    );
    assert!(written.is_index);
}

#[test]
fn output_is_byte_identical_run_to_run() {
    for gzip in [false, true] {
        let first = tempfile::tempdir().unwrap();
        let second = tempfile::tempdir().unwrap();
        let written = write(first.path(), &locs(9), options(4, MAX_BYTES_PER_FILE, gzip));
        write(
            second.path(),
            &locs(9),
            options(4, MAX_BYTES_PER_FILE, gzip),
        );
        for name in &written.files {
            assert_eq!(
                std::fs::read(first.path().join(name)).unwrap(),
                std::fs::read(second.path().join(name)).unwrap(),
                "{name}"
            );
        }
    }
}

#[test]
fn no_entries_is_an_error() {
    let directory = tempfile::tempdir().unwrap();
    let writer =
        ChunkedWriter::new(directory.path(), options(10, MAX_BYTES_PER_FILE, false)).unwrap();
    assert!(matches!(writer.finish(), Err(SitemapError::NoEntries)));
}

#[test]
fn publishing_renames_into_place_and_removes_stale_children_only() {
    let output = tempfile::tempdir().unwrap();
    for name in [
        "sitemap-00001.xml",
        "sitemap-00009.xml",
        "sitemap-00002.xml.gz",
        "sitemap-notes.txt",
        "robots.txt",
    ] {
        std::fs::write(output.path().join(name), "old").unwrap();
    }
    let staging = StagingDir::create_in(output.path()).unwrap();
    let staging_path = staging.path().to_path_buf();
    assert!(
        staging_path.starts_with(output.path()),
        "staging lives on the output's filesystem"
    );
    let written = write(
        staging.path(),
        &locs(3),
        options(2, MAX_BYTES_PER_FILE, false),
    );
    let published = staging.publish(&[&written]).unwrap();
    assert_eq!(
        published.files,
        ["sitemap-00001.xml", "sitemap-00002.xml", "sitemap.xml"]
            .map(|name| output.path().join(name))
    );
    assert_eq!(
        published.removed_stale,
        ["sitemap-00002.xml.gz", "sitemap-00009.xml"].map(|name| output.path().join(name))
    );
    assert_eq!(count_urls(&output.path().join("sitemap-00001.xml")), 2);
    assert_eq!(
        std::fs::read_to_string(output.path().join("robots.txt")).unwrap(),
        "old"
    );
    assert_eq!(
        std::fs::read_to_string(output.path().join("sitemap-notes.txt")).unwrap(),
        "old"
    );
    assert!(!staging_path.exists(), "the staging directory is removed");
}

#[test]
fn an_abandoned_staging_directory_leaves_the_output_untouched() {
    let output = tempfile::tempdir().unwrap();
    std::fs::write(output.path().join("sitemap.xml"), "previous").unwrap();
    let staging = StagingDir::create_in(output.path()).unwrap();
    write(
        staging.path(),
        &locs(3),
        options(10, MAX_BYTES_PER_FILE, false),
    );
    drop(staging);
    let names: Vec<String> = std::fs::read_dir(output.path())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["sitemap.xml"]);
    assert_eq!(
        std::fs::read_to_string(output.path().join("sitemap.xml")).unwrap(),
        "previous"
    );
}

#[test]
fn an_unwritable_output_directory_is_a_clear_error() {
    let directory = tempfile::tempdir().unwrap();
    let file = directory.path().join("file.txt");
    std::fs::write(&file, "a file, not a directory").unwrap();
    let error = StagingDir::create_in(&file.join("sub")).unwrap_err();
    assert!(
        error
            .to_string()
            .starts_with("cannot create output directory"),
        "{error}"
    );
    assert!(error.to_string().contains("file.txt"), "{error}");
}

#[test]
fn extensions_priority_and_changefreq_are_written_in_schema_order_and_validate() {
    let directory = tempfile::tempdir().unwrap();
    let mut options = options(MAX_URLS_PER_FILE, MAX_BYTES_PER_FILE, false);
    options.images = true;
    options.alternates = true;
    let mut writer = ChunkedWriter::new(directory.path(), options).unwrap();
    let images = vec![
        "https://cdn.example.net/a.jpg".to_string(),
        "https://example.com/b.png?size=2&v=1".to_string(),
    ];
    let alternates = vec![
        Alternate {
            hreflang: "de".into(),
            href: "https://example.com/de/".into(),
        },
        Alternate {
            hreflang: "en".into(),
            href: "https://example.com/".into(),
        },
        Alternate {
            hreflang: "x-default".into(),
            href: "https://example.com/".into(),
        },
    ];
    writer
        .push(&Entry {
            changefreq: Some(ChangeFreq::Weekly),
            priority: Some(1.0),
            images: &images,
            alternates: &alternates,
            ..Entry::new("https://example.com/", Some(time("2024-01-02T03:04:05Z")))
        })
        .unwrap();
    writer
        .push(&Entry {
            priority: Some(0.8f64.powi(3)),
            ..Entry::new("https://example.com/de/", None)
        })
        .unwrap();
    writer.finish().unwrap();
    let path = directory.path().join("sitemap.xml");
    insta::assert_snapshot!("with_extensions", read(&path));
    assert_valid(&path);
}

#[test]
fn extension_bytes_count_against_the_byte_limit() {
    let directory = tempfile::tempdir().unwrap();
    let images: Vec<String> = (0..20)
        .map(|index| format!("https://cdn.example.net/image-{index:03}.jpg"))
        .collect();
    let mut options = options(MAX_URLS_PER_FILE, MIN_BYTES_PER_FILE, false);
    options.images = true;
    let mut writer = ChunkedWriter::new(directory.path(), options).unwrap();
    for loc in locs(12) {
        writer
            .push(&Entry {
                images: &images,
                ..Entry::new(&loc, None)
            })
            .unwrap();
    }
    let written = writer.finish().unwrap();
    assert!(written.files.len() > 4, "{:?}", written.files);
    for name in &written.files {
        let path = directory.path().join(name);
        let size = std::fs::metadata(&path).unwrap().len();
        assert!(size <= MIN_BYTES_PER_FILE, "{name}: {size} bytes");
        assert_valid(&path);
    }
}

#[test]
fn the_text_format_is_one_url_per_line_chunked_without_an_index() {
    let single = tempfile::tempdir().unwrap();
    let mut text = options(MAX_URLS_PER_FILE, MAX_BYTES_PER_FILE, false);
    text.format = Format::Text;
    let written = write(single.path(), &locs(3), text.clone());
    assert_eq!(written.files, ["sitemap.txt"]);
    assert_eq!(
        read(&single.path().join("sitemap.txt")),
        "https://example.com/page/0000\nhttps://example.com/page/0001\nhttps://example.com/page/0002\n"
    );

    let several = tempfile::tempdir().unwrap();
    text.limits = Limits::new(2, MAX_BYTES_PER_FILE).unwrap();
    let written = write(several.path(), &locs(5), text);
    assert_eq!(
        written.files,
        [
            "sitemap-00001.txt",
            "sitemap-00002.txt",
            "sitemap-00003.txt"
        ]
    );
    assert!(!written.is_index);
    assert_eq!(
        read(&several.path().join("sitemap-00003.txt")),
        "https://example.com/page/0004\n"
    );
}
