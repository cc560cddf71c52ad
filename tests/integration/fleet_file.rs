//! The fleet file as the commands read it: two sites naming one output directory, however
//! written, are a usage error before anything runs.

use crate::harness::{assert_one_line_error, sitemapper};

#[test]
fn two_sites_publishing_into_one_place_are_a_usage_error_naming_both() {
    let directory = tempfile::tempdir().unwrap();
    let root = directory.path().canonicalize().unwrap();
    let fleet = root.join("fleet.toml");
    std::fs::write(
        &fleet,
        format!(
            "[defaults]\nevery = \"1d\"\n\n[[site]]\nname = \"first\"\nurl = \"http://127.0.0.1:9/\"\n\
             out = \"o/common\"\n\n[[site]]\nname = \"second\"\nurl = \"http://127.0.0.1:9/b/\"\n\
             out = \"{}/o/x/../common\"\n",
            root.display()
        ),
    )
    .unwrap();
    for command in [&["fleet", "run"][..], &["fleet", "status"][..]] {
        let mut args = command.to_vec();
        args.push(fleet.to_str().unwrap());
        let run = sitemapper(&args);
        assert_eq!(run.code, 2, "{command:?}: {}", run.stderr);
        assert_one_line_error(&run.stderr);
        assert!(
            run.stderr.contains("site \"second\", line 9")
                && run.stderr.contains("also the site \"first\"'s (line 4"),
            "{}",
            run.stderr
        );
    }
    assert!(!root.join("o").exists(), "nothing ran");
}
