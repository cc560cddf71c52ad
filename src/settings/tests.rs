mod numeric;

use clap::Parser;

use super::*;
use crate::cli::{Cli, Command};

fn merged(flags: &[&str], config: &str) -> MergedOptions {
    let argv = ["sitemapper", "crawl", "https://e.com/"]
        .iter()
        .chain(flags);
    let Command::Crawl(args) = Cli::try_parse_from(argv)
        .unwrap_or_else(|error| panic!("{error}"))
        .command
    else {
        panic!("not a crawl command");
    };
    let file = toml::from_str(config).unwrap_or_else(|error| panic!("{error}"));
    MergedOptions::merge(*args, file).unwrap_or_else(|error| panic!("{error}"))
}

#[test]
fn every_option_of_every_command_is_a_key_of_the_config_file() {
    let command = crate::cli::command();
    let commands = std::iter::once(&command).chain(
        command
            .get_subcommands()
            .filter(|command| !matches!(command.get_name(), "completions" | "man")),
    );
    let mut checked = 0;
    for command in commands {
        for long in command.get_arguments().filter_map(clap::Arg::get_long) {
            if matches!(long, "help" | "version" | "config") {
                continue;
            }
            // A key of the wrong type is an error too, but not an unknown field.
            let error = toml::from_str::<ConfigFile>(&format!("{long} = 0"))
                .err()
                .map(|error| error.to_string())
                .unwrap_or_default();
            assert!(
                !error.contains("unknown field"),
                "`{} --{long}` has no config key: {error}",
                command.get_name()
            );
            checked += 1;
        }
    }
    assert!(checked > 40, "{checked} options checked");
    let unknown = toml::from_str::<ConfigFile>("no-such-option = 0").err();
    assert!(unknown.is_some_and(|error| error.to_string().contains("unknown field")));
}

#[test]
fn the_seed_can_come_from_the_config_file() {
    let Command::Crawl(args) = Cli::try_parse_from(["sitemapper", "crawl"])
        .unwrap_or_else(|error| panic!("{error}"))
        .command
    else {
        panic!("not a crawl command");
    };
    let file: ConfigFile =
        toml::from_str(r#"url = "https://e.com/""#).unwrap_or_else(|error| panic!("{error}"));
    let merged = MergedOptions::merge(*args, file).unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(merged.seed, "https://e.com/");
}

#[test]
fn a_flag_beats_the_config_file_which_beats_the_default() {
    assert_eq!(merged(&["--retries", "5"], "retries = 4").retries, 5);
    assert_eq!(merged(&[], "retries = 4").retries, 4);
    assert_eq!(merged(&[], "").retries, CrawlConfig::default().retries);
}

#[test]
fn concurrency_is_a_number_or_auto_from_the_flag_or_the_config_file() {
    let auto = "concurrency = \"auto\"";
    for (flags, config, expected) in [
        (&[][..], "", CrawlConfig::default().concurrency),
        (&["--concurrency", "auto"][..], "", Concurrency::Auto),
        (&["--concurrency", "AUTO"][..], "", Concurrency::Auto),
        (&[][..], auto, Concurrency::Auto),
        (&[][..], "concurrency = 3", Concurrency::Fixed(3)),
        (&["--concurrency", "5"][..], auto, Concurrency::Fixed(5)),
        (
            &["--concurrency", "auto"][..],
            "concurrency = 5",
            Concurrency::Auto,
        ),
    ] {
        assert_eq!(
            merged(flags, config).concurrency,
            expected,
            "{flags:?} {config}"
        );
    }
    // Bad values: tests/integration/cli.rs (the flag's one-line error, the file's line).
    assert!(toml::from_str::<ConfigFile>("concurrency = 1.5").is_err());
}

#[test]
fn a_switch_is_on_when_the_flag_or_the_config_file_turns_it_on() {
    assert!(merged(&["--gzip"], "gzip = false").gzip);
    assert!(merged(&[], "gzip = true").gzip);
    assert!(!merged(&[], "").gzip);
}

#[test]
fn a_repeated_flag_replaces_the_config_files_list() {
    let both = merged(&["--include", "a", "--include", "b"], r#"include = ["c"]"#);
    assert_eq!(both.include, ["a", "b"]);
    assert_eq!(merged(&[], r#"include = ["c"]"#).include, ["c"]);
    assert!(merged(&[], "").include.is_empty());
}

#[test]
fn an_empty_list_of_parameters_in_the_config_file_strips_none() {
    assert!(merged(&[], "strip-param = []").strip_parameters.is_empty());
    assert!(merged(&[], "strip-params = []").strip_parameters.is_empty());
    assert_eq!(
        merged(&[], "").strip_parameters,
        CrawlConfig::default().strip_parameters
    );
}

#[test]
fn a_dash_is_stdout_and_only_one_option_may_write_there() {
    let settings = |flags: &[&str]| merged(flags, "").check();
    let out =
        settings(&["--out", "-", "--format", "txt"]).unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(out.site.out, OutputTarget::Stdout);
    let list = settings(&["--list-not-listed", "-"]).unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(list.site.list_not_listed, Some(OutputTarget::Stdout));
    assert_eq!(list.site.out, OutputTarget::Path(PathBuf::from(".")));
    let summary = merged(&[], "summary = \"json\"\nlist-not-listed = \"-\"").check();
    let error = summary
        .err()
        .map(|error| error.to_string())
        .unwrap_or_default();
    assert!(
        error.starts_with("--list-not-listed -, --summary json all write to stdout"),
        "{error}"
    );
    for flags in [
        &["--out", "-", "--format", "xml,txt"][..],
        &["--out", "-", "--gzip"][..],
        &["--out", "-", "--report-changes", "-"][..],
    ] {
        assert!(settings(flags).is_err(), "{flags:?}");
    }
}

#[test]
fn site_options_are_checked_without_repeating_secrets() {
    let error = |flags: &[&str]| {
        merged(flags, "")
            .check()
            .err()
            .unwrap_or_else(|| panic!("{flags:?} was accepted"))
            .to_string()
    };
    let header = error(&["--header", "X-Token s3cret"]);
    assert!(header.starts_with("invalid --header"), "{header}");
    assert!(!header.contains("s3cret"), "{header}");
    let auth = error(&["--basic-auth", "s3cret"]);
    assert!(auth.starts_with("invalid --basic-auth"), "{auth}");
    assert!(!auth.contains("s3cret"), "{auth}");
    assert!(error(&["--cookie", "a b"]).starts_with("invalid --cookie"));
    assert!(error(&["--proxy", "ftp://p"]).starts_with("invalid --proxy"));
    assert!(error(&["--map-host", "a.example"]).starts_with("invalid --map-host"));
    assert!(
        error(&["--basic-auth", "u:p", "--header", "Authorization: Bearer x"])
            .contains("cannot both")
    );
    let missing = error(&["--cacert", "/nonexistent/ca.pem"]);
    assert!(missing.starts_with("cannot read --cacert"), "{missing}");
}

#[test]
fn site_options_come_from_the_config_file_too() {
    let options = merged(
        &[],
        r#"
        header = ["X-A: 1"]
        basic-auth = "u:p"
        cookie = ["a=1"]
        proxy = "http://proxy:3128"
        insecure = true
        map-host = ["staging.e.com=www.e.com"]
        "#,
    );
    let settings = options.check().unwrap_or_else(|error| panic!("{error}"));
    let crawl = &settings.site.crawl;
    assert_eq!(crawl.access.headers.len(), 1);
    assert!(crawl.access.basic_auth.is_some());
    assert_eq!(crawl.access.cookies.len(), 1);
    assert_eq!(crawl.network.proxy_hosts, ["proxy"]);
    assert!(crawl.network.accept_invalid_certificates);
    assert!(!crawl.host_map.is_empty());
}

#[test]
fn formats_default_to_xml_and_are_written_xml_first_once_each() {
    assert_eq!(merged(&[], "format = []").formats, [FormatName::Xml]);
    let names = merged(&["--format", "txt,xml,txt"], "").formats;
    assert_eq!(formats(&names), [Format::Xml, Format::Text]);
}
