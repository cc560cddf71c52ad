use super::*;
use crate::settings::ConfigFile;
use crate::settings::file::config_keys;

#[test]
fn the_keys_are_the_config_files_fields() {
    let keys = field_names::<ConfigFile>();
    for key in [
        "url",
        "out",
        "max-pages",
        "strip-param",
        "strip-params",
        "once",
    ] {
        assert!(keys.contains(&key), "{key} in {keys:?}");
    }
    for key in keys {
        assert!(
            toml::from_str::<ConfigFile>(&format!("{key} = []"))
                .err()
                .is_none_or(|error| !error.to_string().contains("unknown field")),
            "{key}"
        );
    }
}

#[test]
fn a_typo_names_its_nearest_key_and_nonsense_none() {
    let keys = config_keys().iter().copied();
    let cases = [
        ("max-pagse", Some("max-pages")),
        ("max_pages", Some("max-pages")),
        ("MAX-URLS-PER-FILE", Some("max-urls-per-file")),
        ("concurency", Some("concurrency")),
        ("otu", Some("out")),
        ("gzp", Some("gzip")),
        ("delya", Some("delay")),
        ("exlude", Some("exclude")),
        ("speed", None),
        ("foo", None),
        ("crawl", None),
    ];
    for (typed, meant) in cases {
        assert_eq!(nearest_key(typed, keys.clone()), meant, "{typed}");
    }
}
