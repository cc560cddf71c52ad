//! The fleet file read from texts: defaults and sites, the mistakes and where they are
//! blamed, site names and places.

use super::*;

fn parse(text: &str) -> Result<Fleet, FleetFileError> {
    Fleet::parse(Path::new("fleet.toml"), text)
}

fn error(text: &str) -> String {
    match parse(text) {
        Ok(fleet) => panic!("accepted: {fleet:?}"),
        Err(error) => error.to_string(),
    }
}

#[test]
fn defaults_apply_and_a_site_overrides_them() {
    let fleet = parse(
        r#"
[defaults]
every = "12h"
out = "/srv/sitemaps/{name}"
concurrency = 4
delay = 0.5

[[site]]
url = "https://example.com/blog/"

[[site]]
name = "shop"
url = "https://shop.example/"
cron = "0 3 * * *"
concurrency = 2
publish = "true"
"#,
    )
    .unwrap_or_else(|error| panic!("{error}"));
    let blog = &fleet.sites[0];
    assert_eq!(blog.name, "example.com-blog");
    assert_eq!(blog.out, PathBuf::from("/srv/sitemaps/example.com-blog"));
    assert_eq!(blog.schedule.to_string(), "every 12h");
    assert_eq!(blog.options["concurrency"].value, toml::Value::Integer(4));
    assert_eq!(blog.options["concurrency"].line, 5);
    assert_eq!(
        blog.part_of(&blog.options["concurrency"]),
        FilePart::Defaults
    );
    assert!(!blog.options.contains_key("every"));
    assert_eq!(blog.line, 8);
    let shop = &fleet.sites[1];
    assert_eq!(shop.options["concurrency"].value, toml::Value::Integer(2));
    assert_eq!(
        shop.part_of(&shop.options["concurrency"]).to_string(),
        "site \"shop\", "
    );
    assert_eq!(shop.options["delay"].value, toml::Value::Float(0.5));
    assert_eq!(shop.schedule.to_string(), "cron 0 3 * * *");
    assert_eq!(shop.publish.as_deref(), Some("true"));
    assert_eq!(shop.retry, DEFAULT_RETRY);
}

#[test]
fn mistakes_name_the_site_and_the_line() {
    let text = "[defaults]\nout = \"/o/{name}\"\n\n[[site]]\nname = \"a\"\nurl = \"https://a.example/\"\nevery = \"soon\"\n";
    let message = error(text);
    assert!(
        message.contains("site \"a\", line 7") && message.contains("not a duration"),
        "{message}"
    );
    let message = error("[[site]]\nurl = \"https://a.example/\"\n");
    assert!(
        message.contains("site \"a.example\", line 1") && message.contains("out"),
        "{message}"
    );
    let message = error("[[site]]\nout = \"x\"\n");
    assert!(
        message.contains("line 1: the site has no `url`"),
        "{message}"
    );
    let message = error(
        "[defaults]\nout = \"/o\"\n[[site]]\nurl = \"https://a.example/\"\n[[site]]\nurl = \"https://a.example\"\n",
    );
    assert!(
        message.contains("line 5") && message.contains("taken by the site at line 3"),
        "{message}"
    );
    let message = error(
        "[defaults]\nout = \"/o\"\n[[site]]\nurl = \"https://a.example/\"\nevery = \"1h\"\ncron = \"0 * * * *\"\n",
    );
    assert!(message.contains("choose one"), "{message}");
    let message = error("[[site]]\nurl = 3\n");
    assert!(message.contains("`url` must be a string"), "{message}");
    let message = error("[defaults]\nout = \"/o\"\n[[site]]\nurl = \"ftp://a.example/\"\n");
    assert!(
        message.contains("line 4: `url` \"ftp://a.example/\" is not an http"),
        "{message}"
    );
    let message = error(
        "[[site]]\nurl = \"https://a.example/\"\nout = \"/o\"\n[[site]]\nurl = \"https://b.example/\"\nout = \"/o\"\n",
    );
    assert!(
        message.contains(
            "site \"b.example\", line 4: `out` /o is also the site \"a.example\"'s (line 1)"
        ),
        "{message}"
    );
    let message = error("[sites]\nurl = 3\n");
    assert!(message.contains("line 1"), "{message}");
    assert!(error("[defaults]\n").contains("no site"));
}

#[test]
fn a_mistake_in_the_defaults_is_blamed_on_the_defaults_not_a_site() {
    let sites = "\n[[site]]\nname = \"shop\"\nurl = \"https://shop.example/\"\n";
    let cases = [
        (
            "every = \"fortnightly\"",
            "\"fortnightly\" is not a duration",
        ),
        ("cron = \"bad\"", "cron expression \"bad\""),
        ("retry = \"soon\"", "\"soon\" is not a duration"),
        ("publish = 3", "`publish` must be a string"),
        (
            "name = \"all\"",
            "`name` names one site: it cannot be a default",
        ),
        ("url = \"https://a.example/\"", "`url` names one site"),
        ("every = \"1h\"\ncron = \"0 * * * *\"", "choose one"),
    ];
    for (default, said) in cases {
        let text = format!("[defaults]\nout = \"/o/{{name}}\"\n{default}\n{sites}");
        let message = error(&text);
        let line = if default.contains('\n') { 4 } else { 3 };
        assert!(
            message.starts_with(&format!(
                "invalid fleet file fleet.toml, [defaults], line {line}: "
            )) && message.contains(said),
            "{default}: {message}"
        );
    }
    // Also when every site sets its own: the file is wrong all the same.
    let text = format!("[defaults]\nevery = \"soon\"\n{sites}out = \"/o\"\nevery = \"1h\"\n");
    assert!(
        error(&text).contains("[defaults], line 2: "),
        "{}",
        error(&text)
    );
    // A site's own mistake is still the site's.
    let text = format!("[defaults]\nout = \"/o/{{name}}\"\n{sites}every = \"soon\"\n");
    assert!(
        error(&text).contains("site \"shop\", line 7: "),
        "{}",
        error(&text)
    );
}

#[test]
fn names_are_safe_for_files() {
    assert_eq!(
        name_from_url("http://127.0.0.1:8080/docs/v2/").as_deref(),
        Some("127.0.0.1_8080-docs-v2")
    );
    assert_eq!(
        name_from_url("https://user:pw@Example.COM/").as_deref(),
        Some("example.com")
    );
    assert_eq!(
        check_name("../etc").map_err(|error| error.to_string()),
        Err(
            "site name \"../etc\": use letters, digits, '.', '_' and '-', not starting with '.'"
                .to_string()
        )
    );
    assert_eq!(check_name(""), Err(SiteNameError::Length));
    assert_eq!(
        SiteNameError::Length.to_string(),
        "a site name has 1 to 100 characters"
    );
    assert!(check_name(".hidden").is_err());
    assert!(check_name("a/b").is_err());
    assert!(check_name("site_1.example-2").is_ok());
}

#[test]
fn a_relative_out_is_beside_the_fleet_file() {
    let text = "[[site]]\nurl = \"https://a.example/\"\nout = \"sitemaps/{name}\"\n";
    let fleet = Fleet::parse(Path::new("/etc/sitemapper/fleet.toml"), text)
        .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(
        fleet.sites[0].out,
        PathBuf::from("/etc/sitemapper/sitemaps/a.example")
    );
}
