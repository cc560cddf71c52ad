//! Two sites cannot publish into one directory, however its path is written: relative or
//! absolute, with `.` and `..`, or through a symlink.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::path::Path;

use sitemapper_fleet::Fleet;

/// The error of the fleet file `fleet.toml` in `directory` with two sites of these `out`s.
fn two_sites_error(directory: &Path, first_out: &str, second_out: &str) -> String {
    let text = format!(
        "[[site]]\nname = \"a\"\nurl = \"https://a.example/\"\nout = \"{first_out}\"\n\n\
         [[site]]\nname = \"b\"\nurl = \"https://b.example/\"\nout = \"{second_out}\"\n"
    );
    match Fleet::parse(&directory.join("fleet.toml"), &text) {
        Ok(fleet) => panic!("accepted: {:?}", fleet.sites),
        Err(error) => error.to_string(),
    }
}

#[test]
fn a_relative_out_and_an_absolute_one_with_dots_are_one_place() {
    let root = tempfile::tempdir().unwrap();
    let directory = root.path().canonicalize().unwrap();
    let absolute = format!("{}/o/x/../common", directory.display());
    let message = two_sites_error(&directory, "o/common", &absolute);
    assert_eq!(
        message,
        format!(
            "invalid fleet file {fleet}, site \"b\", line 6: `out` {absolute} is also the site \
             \"a\"'s (line 1, `out` {dir}/o/common; both are {dir}/o/common): each site needs a \
             directory of its own",
            fleet = directory.join("fleet.toml").display(),
            dir = directory.display()
        )
    );
    // The same with `./` and a directory that exists.
    std::fs::create_dir_all(directory.join("o/common")).unwrap();
    let message = two_sites_error(&directory, "./o/common/", "o/./common");
    assert!(message.contains("site \"b\", line 6"), "{message}");
    // Different places pass.
    let text = "[[site]]\nurl = \"https://a.example/\"\nout = \"o/a\"\n\
                [[site]]\nurl = \"https://b.example/\"\nout = \"o/x/../b\"\n";
    assert!(Fleet::parse(&directory.join("fleet.toml"), text).is_ok());
}

#[cfg(unix)]
#[test]
fn a_symlink_to_a_directory_is_that_directory() {
    let root = tempfile::tempdir().unwrap();
    let directory = root.path().canonicalize().unwrap();
    std::fs::create_dir_all(directory.join("real/sitemaps")).unwrap();
    std::os::unix::fs::symlink(directory.join("real/sitemaps"), directory.join("link")).unwrap();
    let message = two_sites_error(&directory, "real/sitemaps/site", "link/site");
    assert!(
        message.contains(&format!(
            "site \"b\", line 6: `out` {dir}/link/site is also the site \"a\"'s (line 1, `out` \
             {dir}/real/sitemaps/site; both are {dir}/real/sitemaps/site)",
            dir = directory.display()
        )),
        "{message}"
    );
    // The symlink itself, with nothing below it.
    let message = two_sites_error(&directory, "real/sitemaps", "link");
    assert!(message.contains("site \"b\", line 6"), "{message}");
}
