use clap::Parser;

use super::*;
use crate::cli::{Cli, Command};

/// `sitemapper audit https://e.com/ --report r FLAGS` with `config` as the config file.
fn audit_settings(flags: &[&str], config: &str) -> anyhow::Result<AuditSettings> {
    let argv = ["sitemapper", "audit", "https://e.com/", "--report", "r"]
        .iter()
        .chain(flags);
    let Command::Audit(args) = Cli::try_parse_from(argv)
        .unwrap_or_else(|error| panic!("{error}"))
        .command
    else {
        panic!("not an audit command");
    };
    let file = toml::from_str(config).unwrap_or_else(|error| panic!("{error}"));
    AuditSettings::resolve(*args, file)
}

fn error(flags: &[&str], config: &str) -> String {
    audit_settings(flags, config)
        .err()
        .unwrap_or_else(|| panic!("{flags:?} {config:?} was accepted"))
        .to_string()
}

#[test]
fn extractions_are_parsed_once_in_the_order_given() {
    let settings = audit_settings(
        &[
            "--extract",
            "price=.price",
            "--extract",
            "sku=[data-sku]@data-sku",
        ],
        "",
    )
    .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(settings.options.extract_names, ["price", "sku"]);
    let extractions = &settings.crawl.site.crawl.extractions;
    assert_eq!(extractions.len(), 2);
    assert_eq!(extractions[1].attribute(), Some("data-sku"));
    // The flags replace the config file's list.
    let from_file = audit_settings(&[], r#"extract = ["heading=h1", "price=.price"]"#)
        .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(from_file.options.extract_names, ["heading", "price"]);
    let replaced = audit_settings(&["--extract", "sku=.sku"], r#"extract = ["heading=h1"]"#)
        .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(replaced.options.extract_names, ["sku"]);
    assert!(
        audit_settings(&[], "").is_ok_and(|settings| settings.options.extract_names.is_empty())
    );
}

#[test]
fn a_bad_extraction_names_the_value_and_what_is_wrong() {
    for (flags, expected) in [
        (
            &["--extract", "price"][..],
            "invalid --extract \"price\": expected NAME=CSS-SELECTOR",
        ),
        (
            &["--extract", "=.price"][..],
            "invalid --extract \"=.price\": the name \"\" must be letters, digits, '_' or '-'",
        ),
        (
            &["--extract", "pr ice=.price"][..],
            "invalid --extract \"pr ice=.price\": the name \"pr ice\" must be",
        ),
        (
            &["--extract", "price=.price["][..],
            "invalid --extract \"price=.price[\": the selector does not parse: ",
        ),
        (
            &["--extract", "URL=a@href"][..],
            "invalid --extract \"URL=a@href\": \"URL\" is a column of pages.csv already",
        ),
        (
            &["--extract", "a=h1", "--extract", "A=h2"][..],
            "invalid --extract \"A=h2\": the name \"A\" is given twice",
        ),
    ] {
        let error = error(flags, "");
        assert!(error.starts_with(expected), "{flags:?}: {error}");
        assert!(!error.contains('\n'), "one line: {error}");
    }
    let from_file = error(&[], r#"extract = ["x=::"]"#);
    assert!(
        from_file.starts_with("invalid --extract \"x=::\""),
        "{from_file}"
    );
}

#[test]
fn given_sitemaps_are_absolute_http_urls() {
    let settings = audit_settings(&["--sitemap", "https://e.com/feeds/map.xml"], "")
        .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(
        settings
            .options
            .sitemaps
            .iter()
            .map(Url::as_str)
            .collect::<Vec<_>>(),
        ["https://e.com/feeds/map.xml"]
    );
    let from_file = audit_settings(&[], r#"sitemap = ["http://e.com/a.xml.gz"]"#)
        .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(from_file.options.sitemaps.len(), 1);
    assert!(audit_settings(&[], "").is_ok_and(|settings| settings.options.sitemaps.is_empty()));
    for given in ["/sitemap.xml", "ftp://e.com/sitemap.xml", "sitemap.xml"] {
        let error = error(&["--sitemap", given], "");
        assert!(
            error.starts_with(&format!("invalid --sitemap {given:?}")),
            "{error}"
        );
    }
}
