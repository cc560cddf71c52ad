use super::*;

fn meant(arguments: &[&str]) -> Option<String> {
    let root = super::super::command();
    let arguments: Vec<OsString> = std::iter::once("sitemapper")
        .chain(arguments.iter().copied())
        .map(OsString::from)
        .collect();
    let error = root.clone().try_get_matches_from(arguments.clone()).err()?;
    match with_flag_meant(error, &root, arguments).get(ContextKind::SuggestedArg) {
        Some(ContextValue::String(flag)) => Some(flag.clone()),
        _ => None,
    }
}

#[test]
fn a_typo_names_the_nearest_flag_of_its_own_command() {
    let cases = [
        (&["crawl", "http://x/", "--otu", "x"][..], Some("--out")),
        (&["crawl", "http://x/", "--ot", "x"][..], Some("--out")),
        (
            &["crawl", "http://x/", "--MAX_PAGES", "5"][..],
            Some("--max-pages"),
        ),
        (&["crawl", "http://x/", "--qiuet"][..], Some("--quiet")),
        (&["audit", "http://x/", "--pfd"][..], Some("--pdf")),
        (&["fleet", "run", "fleet.toml", "--lal"][..], Some("--all")),
        (&["fleet", "status", "--chekc"][..], Some("--check")),
        (&["worker", "--naem", "a"][..], Some("--name")),
        (&["--qiuet", "crawl", "http://x/"][..], Some("--quiet")),
    ];
    for (arguments, flag) in cases {
        assert_eq!(meant(arguments).as_deref(), flag, "{arguments:?}");
    }
}

#[test]
fn a_flag_nothing_is_near_is_not_named() {
    assert_eq!(meant(&["crawl", "http://x/", "--xyzzy"]), None);
    // `--all` is a flag of fleet run, not of crawl.
    assert_eq!(meant(&["crawl", "http://x/", "--lal"]), None);
}

#[test]
fn nearness_is_one_edit_in_three_characters() {
    let flags = ["out", "max-pages", "delay", "gzip"];
    let cases = [
        ("otu", Some("out")),
        ("ou", Some("out")),
        ("max-pagse", Some("max-pages")),
        ("mx-pgs", None),
        ("deley", Some("delay")),
        ("speed", None),
    ];
    for (typed, flag) in cases {
        assert_eq!(nearest_name(typed, flags), flag, "{typed}");
    }
}
