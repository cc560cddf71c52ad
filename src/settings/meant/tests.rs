use std::path::Path;

use super::*;

#[test]
fn an_out_named_as_a_sitemap_file_names_its_directory() {
    let error = |out: &str| {
        check_out_directory(Path::new(out))
            .err()
            .map(|error| error.to_string())
    };
    assert_eq!(
        error("sitemap.xml").as_deref(),
        Some(
            "--out sitemap.xml names a file; --out is the directory sitemap.xml is written \
             into: did you mean --out .?"
        )
    );
    assert!(
        error("/var/www/sitemap.xml.gz").is_some_and(|error| error.ends_with("--out /var/www?"))
    );
    assert!(error("public/Sitemap.TXT").is_some_and(|error| error.ends_with("--out public?")));
    for out in ["-", ".", "public", "/var/www/html", "sitemaps.d"] {
        assert_eq!(error(out), None, "{out}");
    }
    let directory = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
    let file = directory.path().join("afile");
    std::fs::write(&file, "").unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(
        error(&file.display().to_string()),
        Some(format!(
            "--out {} is a file, not a directory: give the directory the sitemaps are \
             written into",
            file.display()
        ))
    );
}
