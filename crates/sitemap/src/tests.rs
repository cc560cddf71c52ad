//! Tests of writing and publishing, on real files, validated against the official schemas.

use std::io::Read;
use std::path::Path;

use jiff::Timestamp;

use super::*;

pub(crate) fn options(max_urls: usize, max_bytes: u64, gzip: bool) -> WriteOptions {
    WriteOptions {
        limits: Limits::new(max_urls, max_bytes).unwrap(),
        gzip,
        base_url: "https://example.com/".to_string(),
        format: Format::Xml,
        images: false,
        alternates: false,
        videos: false,
        news: false,
    }
}

pub(crate) fn time(text: &str) -> Timestamp {
    text.parse().unwrap()
}

pub(crate) fn locs(count: usize) -> Vec<String> {
    (0..count)
        .map(|index| format!("https://example.com/page/{index:04}"))
        .collect()
}

/// Writes `entries` (in URL order, with their group) into `directory` as the crawl does:
/// plans the files, writes each file's entries, then the index with each child's newest
/// `<lastmod>`.
pub(crate) fn write_grouped(
    directory: &Path,
    entries: &[(&str, Entry<'_>)],
    options: WriteOptions,
) -> Result<Written, SitemapError> {
    let mut planner = Planner::new(&options);
    for (group, entry) in entries {
        planner.add(group, entry)?;
    }
    let plan = planner.plan()?;
    let mut order: Vec<usize> = (0..entries.len()).collect();
    order.sort_by_key(|&index| plan.placement()[index]);
    let mut writer = SitemapWriter::new(directory, options, &plan);
    for index in order {
        writer.push(plan.placement()[index], &entries[index].1)?;
    }
    writer.finish()?.write_index(|child| child.newest)
}

/// Writes `locs` (with a lastmod on every third) into `directory`.
pub(crate) fn write(directory: &Path, locs: &[String], options: WriteOptions) -> Written {
    let lastmods: Vec<Option<Timestamp>> = (0..locs.len())
        .map(|index| {
            (index % 3 == 0).then(|| Timestamp::from_second(1_700_000_000 + index as i64).unwrap())
        })
        .collect();
    let entries: Vec<(&str, Entry<'_>)> = locs
        .iter()
        .zip(&lastmods)
        .map(|(loc, lastmod)| ("", Entry::new(loc, *lastmod)))
        .collect();
    write_grouped(directory, &entries, options).unwrap()
}

pub(crate) fn read(path: &Path) -> String {
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

/// Validates with xmllint against schemas/all.xsd; skipped without xmllint unless CI.
pub(crate) fn assert_valid(path: &Path) {
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

/// The `<loc>`s (or lines) of one written file, in file order.
fn locs_in(path: &Path) -> Vec<String> {
    let text = read(path);
    if path.extension().is_some_and(|extension| extension == "txt") {
        return text.lines().map(str::to_string).collect();
    }
    text.split("<loc>")
        .skip(1)
        .map(|rest| rest.split("</loc>").next().unwrap().to_string())
        .collect()
}

/// Every loc is in exactly one child; each child is in URL order, within the limits, and
/// valid; returns the URL count of each child.
fn assert_children_hold(
    directory: &Path,
    written: &Written,
    expected: &[String],
    limits: (usize, u64),
) -> Vec<usize> {
    let mut seen = Vec::new();
    let mut counts = Vec::new();
    for child in &written.children {
        let path = directory.join(&child.name);
        let in_file = locs_in(&path);
        assert!(in_file.is_sorted(), "{}: not in URL order", child.name);
        assert!(
            in_file.len() <= limits.0,
            "{}: {} URLs",
            child.name,
            in_file.len()
        );
        let size = std::fs::metadata(&path).unwrap().len();
        if !child.name.ends_with(".gz") {
            assert!(size <= limits.1, "{}: {size} bytes", child.name);
        }
        assert_eq!(in_file.len() as u64, child.urls, "{}", child.name);
        counts.push(in_file.len());
        seen.extend(in_file);
        if written.format == Format::Xml {
            assert_valid(&path);
        }
    }
    seen.sort();
    let mut expected = expected.to_vec();
    expected.sort();
    assert_eq!(seen, expected, "each URL in exactly one file");
    counts
}

fn is_numbered_child(name: &str) -> bool {
    let stem = name.split('.').next().unwrap();
    stem.strip_prefix("sitemap-")
        .is_some_and(|number| number.len() == 5 && number.bytes().all(|b| b.is_ascii_digit()))
}

#[test]
fn a_small_set_is_one_sitemap_xml() {
    let directory = tempfile::tempdir().unwrap();
    let entries = [
        (
            "",
            Entry::new("https://example.com/", Some(time("2024-01-02T03:04:05Z"))),
        ),
        ("", Entry::new("https://example.com/a?x=1&y=2", None)),
    ];
    let written = write_grouped(
        directory.path(),
        &entries,
        options(MAX_URLS_PER_FILE, MAX_BYTES_PER_FILE, false),
    )
    .unwrap();
    assert_eq!(written.files, ["sitemap.xml"]);
    assert_eq!((written.urls, written.is_index), (2, false));
    assert_eq!(written.children.len(), 1);
    assert_eq!(written.children[0].name, "sitemap.xml");
    let path = directory.path().join("sitemap.xml");
    insta::assert_snapshot!("single_urlset", read(&path));
    assert_valid(&path);
}

#[test]
fn a_url_limit_makes_children_by_hash_and_an_index() {
    let directory = tempfile::tempdir().unwrap();
    let all = locs(40);
    let written = write(
        directory.path(),
        &all,
        options(8, MAX_BYTES_PER_FILE, false),
    );
    assert!(written.is_index);
    assert_eq!(
        written.files.last().map(String::as_str),
        Some("sitemap.xml")
    );
    let counts = assert_children_hold(directory.path(), &written, &all, (8, MAX_BYTES_PER_FILE));
    assert!(counts.len() >= 5, "{counts:?}");
    assert!(
        written
            .children
            .iter()
            .all(|child| is_numbered_child(&child.name))
    );
    let index = read(&directory.path().join("sitemap.xml"));
    for child in &written.children {
        assert!(index.contains(&format!("<loc>https://example.com/{}</loc>", child.name)));
    }
    assert_valid(&directory.path().join("sitemap.xml"));
}

#[test]
fn a_new_url_moves_no_other_url_to_another_file() {
    let limits = options(16, MAX_BYTES_PER_FILE, false);
    let before = tempfile::tempdir().unwrap();
    let all = locs(100);
    let first = write(before.path(), &all, limits.clone());
    let files_of = |directory: &Path, written: &Written| -> Vec<(String, Vec<String>)> {
        written
            .children
            .iter()
            .map(|child| (child.name.clone(), locs_in(&directory.join(&child.name))))
            .collect()
    };
    let old = files_of(before.path(), &first);
    for added in [
        "https://example.com/new",
        "https://example.com/page/0049b",
        "https://example.com/a",
    ] {
        let after = tempfile::tempdir().unwrap();
        let mut grown = all.clone();
        grown.push(added.to_string());
        grown.sort();
        let second = write(after.path(), &grown, limits.clone());
        let new = files_of(after.path(), &second);
        let gone: Vec<&String> = old
            .iter()
            .filter(|file| !new.contains(file))
            .map(|(name, _)| name)
            .collect();
        assert_eq!(
            gone.len(),
            1,
            "only the file {added} falls in changes (grows, or splits in two): {gone:?}"
        );
        assert!(new.len() - old.len() <= 1);
    }
}

#[test]
fn groups_are_named_files_split_only_when_too_large() {
    let directory = tempfile::tempdir().unwrap();
    let blog = locs(3)
        .into_iter()
        .map(|loc| loc.replace("/page/", "/blog/"))
        .collect::<Vec<_>>();
    let products = locs(9)
        .into_iter()
        .map(|loc| loc.replace("/page/", "/products/"))
        .collect::<Vec<_>>();
    let mut entries: Vec<(&str, Entry<'_>)> = Vec::new();
    entries.extend(blog.iter().map(|loc| ("Blog", Entry::new(loc, None))));
    entries.extend(
        products
            .iter()
            .map(|loc| ("products", Entry::new(loc, None))),
    );
    let written = write_grouped(
        directory.path(),
        &entries,
        options(4, MAX_BYTES_PER_FILE, false),
    )
    .unwrap();
    assert!(written.is_index);
    let names: Vec<&str> = written
        .children
        .iter()
        .map(|child| child.name.as_str())
        .collect();
    assert_eq!(names[0], "sitemap-blog.xml");
    assert!(
        names[1..]
            .iter()
            .all(|name| name.starts_with("sitemap-products-")),
        "{names:?}"
    );
    assert!(names.len() >= 4, "{names:?}");
    assert_eq!(written.children[0].group, "blog");
    let mut all = blog.clone();
    all.extend(products.clone());
    assert_children_hold(directory.path(), &written, &all, (4, MAX_BYTES_PER_FILE));

    let one = tempfile::tempdir().unwrap();
    let written = write_grouped(
        one.path(),
        &entries[..1],
        options(4, MAX_BYTES_PER_FILE, false),
    )
    .unwrap();
    assert_eq!(
        written.files,
        ["sitemap-blog.xml", "sitemap.xml"],
        "a split site has an index even for one group"
    );
}

#[test]
fn the_index_lastmod_is_what_the_caller_gives_each_child() {
    let directory = tempfile::tempdir().unwrap();
    let options = options(MAX_URLS_PER_FILE, MAX_BYTES_PER_FILE, false);
    let entries = [
        (
            "a",
            Entry::new("https://example.com/a", Some(time("2024-03-01T00:00:00Z"))),
        ),
        (
            "a",
            Entry::new("https://example.com/b", Some(time("2024-05-01T00:00:00Z"))),
        ),
        ("c", Entry::new("https://example.com/c", None)),
    ];
    let mut planner = Planner::new(&options);
    for (group, entry) in &entries {
        planner.add(group, entry).unwrap();
    }
    let plan = planner.plan().unwrap();
    let mut writer = SitemapWriter::new(directory.path(), options, &plan);
    for (index, (_, entry)) in entries.iter().enumerate() {
        writer.push(plan.placement()[index], entry).unwrap();
    }
    let staged = writer.finish().unwrap();
    assert_eq!(
        staged.children()[0].newest,
        Some(time("2024-05-01T00:00:00Z"))
    );
    assert_eq!(staged.children()[1].newest, None);
    staged
        .write_index(|child| (child.name == "sitemap-a.xml").then(|| time("2024-06-01T00:00:00Z")))
        .unwrap();
    let index = read(&directory.path().join("sitemap.xml"));
    assert!(index.contains("<loc>https://example.com/sitemap-a.xml</loc>\n    <lastmod>2024-06-01T00:00:00+00:00</lastmod>"), "{index}");
    assert!(
        index.contains("<loc>https://example.com/sitemap-c.xml</loc>\n  </sitemap>"),
        "no lastmod where none is given: {index}"
    );
}

#[test]
fn a_byte_limit_is_never_passed() {
    let directory = tempfile::tempdir().unwrap();
    let all = locs(400);
    // The limit holds exactly eighty entries: header + 80 entries + footer.
    let mut entry = String::new();
    xml::push_url(&mut entry, &Entry::new(&all[1], None));
    let header = xml::urlset_header(&options(MAX_URLS_PER_FILE, MAX_BYTES_PER_FILE, false));
    let limit = (header.len() + 80 * entry.len() + xml::URLSET_FOOTER.len()) as u64;
    assert!(limit >= MIN_BYTES_PER_FILE);
    let written = write(
        directory.path(),
        &all,
        options(MAX_URLS_PER_FILE, limit, false),
    );
    let counts = assert_children_hold(directory.path(), &written, &all, (MAX_URLS_PER_FILE, limit));
    assert!(counts.len() >= 5, "{counts:?}");
    assert_eq!(written.urls, 400);
}

#[test]
fn an_entry_larger_than_a_file_is_an_error() {
    let mut planner = Planner::new(&options(10, MIN_BYTES_PER_FILE, false));
    let huge = format!("https://example.com/{}", "&".repeat(2000));
    let error = planner.add("", &Entry::new(&huge, None)).unwrap_err();
    assert!(
        matches!(error, SitemapError::EntryTooLarge { .. }),
        "{error}"
    );
}

#[test]
fn a_maximal_url_fits_in_the_smallest_file() {
    let directory = tempfile::tempdir().unwrap();
    let longest = format!("https://example.com/{}", "a".repeat(2048 - 20));
    assert_eq!(longest.len(), 2048);
    let entries = [("", Entry::new(&longest, Some(time("2024-01-01T00:00:00Z"))))];
    write_grouped(
        directory.path(),
        &entries,
        options(10, MIN_BYTES_PER_FILE, false),
    )
    .unwrap();
}

#[test]
fn gzip_children_decompress_to_the_plain_files_and_the_index_is_always_there() {
    let plain = tempfile::tempdir().unwrap();
    let zipped = tempfile::tempdir().unwrap();
    let all = locs(12);
    let written_plain = write(plain.path(), &all, options(3, MAX_BYTES_PER_FILE, false));
    let written_zipped = write(zipped.path(), &all, options(3, MAX_BYTES_PER_FILE, true));
    assert_eq!(written_plain.children.len(), written_zipped.children.len());
    for (plain_child, zipped_child) in written_plain.children.iter().zip(&written_zipped.children) {
        assert_eq!(format!("{}.gz", plain_child.name), zipped_child.name);
        assert_eq!(
            read(&plain.path().join(&plain_child.name)),
            read(&zipped.path().join(&zipped_child.name))
        );
        assert_eq!(
            plain_child.digest, zipped_child.digest,
            "the digest is of the content"
        );
    }
    assert_children_hold(
        zipped.path(),
        &written_zipped,
        &all,
        (3, MAX_BYTES_PER_FILE),
    );

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
    let planner = Planner::new(&options(10, MAX_BYTES_PER_FILE, false));
    assert!(matches!(planner.plan(), Err(SitemapError::NoEntries)));
}

#[test]
fn entries_off_the_plan_are_refused() {
    let directory = tempfile::tempdir().unwrap();
    let options = options(1, MAX_BYTES_PER_FILE, false);
    let mut planner = Planner::new(&options);
    planner
        .add("", &Entry::new("https://example.com/a", None))
        .unwrap();
    planner
        .add("", &Entry::new("https://example.com/b", None))
        .unwrap();
    let plan = planner.plan().unwrap();
    assert_eq!(plan.files().len(), 2);
    let mut writer = SitemapWriter::new(directory.path(), options, &plan);
    writer
        .push(0, &Entry::new("https://example.com/a", None))
        .unwrap();
    let error = writer
        .push(0, &Entry::new("https://example.com/b", None))
        .unwrap_err();
    assert!(matches!(error, SitemapError::OffPlan { .. }), "{error}");
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
        written
            .files
            .iter()
            .map(|name| output.path().join(name))
            .collect::<Vec<_>>()
    );
    let mut stale: Vec<_> = [
        "sitemap-00001.xml",
        "sitemap-00002.xml.gz",
        "sitemap-00009.xml",
    ]
    .into_iter()
    .filter(|name| !written.files.iter().any(|file| file == name))
    .map(|name| output.path().join(name))
    .collect();
    stale.sort();
    assert_eq!(published.removed_stale, stale);
    let mut names: Vec<String> = std::fs::read_dir(output.path())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let mut expected = written.files.clone();
    expected.extend(["robots.txt".to_string(), "sitemap-notes.txt".to_string()]);
    expected.sort();
    assert_eq!(
        names, expected,
        "the sitemap's files and the user's, nothing else"
    );
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
    let entries = [
        (
            "",
            Entry {
                changefreq: Some(ChangeFreq::Weekly),
                priority: Some(1.0),
                images: &images,
                alternates: &alternates,
                ..Entry::new("https://example.com/", Some(time("2024-01-02T03:04:05Z")))
            },
        ),
        (
            "",
            Entry {
                priority: Some(0.8f64.powi(3)),
                ..Entry::new("https://example.com/de/", None)
            },
        ),
    ];
    write_grouped(directory.path(), &entries, options).unwrap();
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
    let all = locs(12);
    let entries: Vec<(&str, Entry<'_>)> = all
        .iter()
        .map(|loc| {
            (
                "",
                Entry {
                    images: &images,
                    ..Entry::new(loc, None)
                },
            )
        })
        .collect();
    let written = write_grouped(directory.path(), &entries, options).unwrap();
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
    let all = locs(9);
    let written = write(several.path(), &all, text);
    assert!(!written.is_index);
    assert_eq!(written.files.len(), written.children.len(), "no index");
    assert!(
        written
            .files
            .iter()
            .all(|name| is_numbered_child(name) && name.ends_with(".txt"))
    );
    assert_children_hold(several.path(), &written, &all, (2, MAX_BYTES_PER_FILE));
}

#[test]
fn publishing_leaves_unchanged_files_alone_and_reads_back_the_index() {
    let output = tempfile::tempdir().unwrap();
    let all = locs(30);
    let publish = |locs: &[String]| {
        let staging = StagingDir::create_in(output.path()).unwrap();
        let lastmods = staging.published_lastmods();
        let entries: Vec<(&str, Entry<'_>)> = locs
            .iter()
            .map(|loc| ("", Entry::new(loc, Some(time("2024-01-01T00:00:00Z")))))
            .collect();
        let written = write_grouped(
            staging.path(),
            &entries,
            options(8, MAX_BYTES_PER_FILE, false),
        )
        .unwrap();
        let published = staging.publish(&[&written]).unwrap();
        (written, published, lastmods)
    };
    let (first, published, lastmods) = publish(&all);
    assert!(lastmods.is_empty());
    assert_eq!(published.files.len(), first.files.len());
    let (_, again, lastmods) = publish(&all);
    assert!(
        again.files.is_empty(),
        "nothing changed, nothing moved: {:?}",
        again.files
    );
    assert_eq!(again.unchanged.len(), first.files.len());
    for child in &first.children {
        assert_eq!(
            lastmods.get(&child.name).copied(),
            child.newest,
            "{}",
            child.name
        );
    }
    let mut fewer = all.clone();
    fewer.remove(7);
    let (_, third, _) = publish(&fewer);
    assert_eq!(
        third.files.len(),
        1,
        "the child that lost a URL moves; the index, whose lastmods are the same, stays: {:?}",
        third.files
    );
}
