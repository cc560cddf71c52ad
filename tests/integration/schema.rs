//! Every file sitemapper writes validates against the official schemas (schemas/).

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::fixture::Site;
use crate::harness::{crawl, sitemap_files};

fn schema() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("schemas/all.xsd")
}

/// Validates `file` with xmllint. Without xmllint the check is skipped locally, but fails
/// under CI, where .ci/run installs it.
pub(crate) fn assert_valid(file: &Path) {
    let result = Command::new("xmllint")
        .args(["--nonet", "--noout", "--schema"])
        .arg(schema())
        .arg(file)
        .output();
    match result {
        Ok(output) => assert!(
            output.status.success(),
            "{} does not validate against all.xsd:\n{}",
            file.display(),
            String::from_utf8_lossy(&output.stderr)
        ),
        Err(error) if std::env::var_os("CI").is_some() => {
            panic!("xmllint is required under CI (apt-get install libxml2-utils): {error}")
        }
        Err(error) => eprintln!(
            "skipping schema validation of {}: xmllint unavailable ({error})",
            file.display()
        ),
    }
}

/// Validates every sitemap file in `out`.
pub(crate) fn assert_all_valid(out: &Path) {
    let files = sitemap_files(out);
    assert!(!files.is_empty(), "no sitemap files in {}", out.display());
    for file in files {
        assert_valid(&file);
    }
}

#[test]
fn the_schema_check_itself_rejects_an_invalid_file() {
    // Guards the guard: if validation silently passed everything, every test above would lie.
    if Command::new("xmllint").arg("--version").output().is_err()
        && std::env::var_os("CI").is_none()
    {
        return;
    }
    let invalid = Path::new(env!("CARGO_MANIFEST_DIR")).join("schemas/examples/invalid-urlset.xml");
    let result = std::panic::catch_unwind(|| assert_valid(&invalid));
    assert!(result.is_err(), "an invalid urlset passed validation");
}

#[test]
fn plain_chunked_and_gzip_outputs_validate() {
    let mut site = Site::new();
    let mut links = String::new();
    for index in 0..12 {
        links.push_str(&format!("<a href=\"/p{index}?a=1&amp;b=2\">p</a>"));
        site = site.route(
            &format!("/p{index}?a=1&b=2"),
            crate::fixture::Route::html("<title>p</title>")
                .header("Last-Modified", "Tue, 02 Jan 2024 03:04:05 GMT"),
        );
    }
    let server = site.page("/", &links).serve();
    for flags in [
        &[][..],
        &["--max-urls-per-file", "5"][..],
        &["--gzip", "--max-urls-per-file", "5"][..],
    ] {
        let out = tempfile::tempdir().unwrap();
        crawl(&server.url("/"), out.path(), flags).assert_success();
        assert_all_valid(out.path());
    }
}
