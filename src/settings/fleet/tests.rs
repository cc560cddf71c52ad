use super::*;

fn settings(text: &str) -> anyhow::Result<CrawlSettings> {
    let fleet = Fleet::parse(Path::new("f.toml"), text)?;
    let run = SiteRun {
        state: Path::new("/tmp/state.db"),
        resume: true,
    };
    CrawlSettings::for_fleet_site(&fleet.path, &fleet.sites[0], run)
}

fn error(text: &str) -> String {
    match settings(text) {
        Ok(_) => panic!("accepted:\n{text}"),
        Err(error) => format!("{error:#}"),
    }
}

#[test]
fn a_site_takes_crawl_options_and_the_fleet_sets_the_rest() {
    let settings = settings(
        "[defaults]\nconcurrency = 3\nout = \"/srv/{name}\"\n[[site]]\nurl = \"https://a.example/\"\nmax-pages = 9\ngzip = true\n",
    )
    .unwrap_or_else(|error| panic!("{error:#}"));
    assert_eq!(
        settings.site.crawl.concurrency,
        sitemapper_crawl::Concurrency::Fixed(3)
    );
    assert_eq!(settings.site.crawl.max_pages, Some(9));
    assert!(settings.site.gzip);
    assert!(settings.site.resume);
    assert_eq!(settings.site.state, Some(PathBuf::from("/tmp/state.db")));
    assert_eq!(settings.site.out.path(), Some(Path::new("/srv/a.example")));
    let auto = self::settings(
        "[defaults]\nout = \"/srv/{name}\"\n[[site]]\nurl = \"https://a.example/\"\nconcurrency = \"auto\"\n",
    )
    .unwrap_or_else(|error| panic!("{error:#}"));
    assert_eq!(
        auto.site.crawl.concurrency,
        sitemapper_crawl::Concurrency::Auto
    );
}

#[test]
fn a_wrong_option_in_defaults_is_blamed_on_defaults_not_the_first_site() {
    let message = error(
        "[defaults]\nout = \"/o/{name}\"\nmax-pagez = 5\n[[site]]\nurl = \"https://a.example/\"\n",
    );
    assert_eq!(
        message,
        "invalid fleet file f.toml, [defaults], line 3: unknown option `max-pagez`: \
         did you mean `max-pages`?"
    );
    let message = error(
        "[defaults]\nout = \"/o/{name}\"\ndelay = -1\n[[site]]\nurl = \"https://a.example/\"\n",
    );
    assert!(
        message.starts_with("invalid fleet file f.toml, [defaults], line 3: "),
        "{message}"
    );
}

#[test]
fn a_wrong_option_names_the_site_and_its_line() {
    let base = "[defaults]\nout = \"/o/{name}\"\n[[site]]\nurl = \"https://a.example/\"\n";
    let message = error(&format!("{base}concurency = 3\n"));
    assert_eq!(
        message,
        "invalid fleet file f.toml, site \"a.example\", line 5: unknown option `concurency`: \
         did you mean `concurrency`?"
    );
    let message = error(&format!("{base}concurrency = \"three\"\n"));
    assert!(
        message.ends_with(
            "line 5: invalid value: string \"three\", expected a number of requests or auto"
        ),
        "{message}"
    );
    let message = error(&format!("{base}max-pages = \"nine\"\n"));
    assert!(message.contains("line 5: invalid type"), "{message}");
    let message = error(&format!("{base}state = \"x.db\"\n"));
    assert!(
        message.contains("line 5: `state` cannot be set for a site"),
        "{message}"
    );
    let message = error(&format!("{base}concurrency = 0\n"));
    assert!(
        message
            .ends_with("line 5: concurrency must be a whole number from 1 to 256, or auto, not 0"),
        "{message}"
    );
    let message =
        error("[defaults]\nout = \"/o\"\ndelay = -1\n[[site]]\nurl = \"https://a.example/\"\n");
    assert!(
        message.ends_with(
            "[defaults], line 3: delay must be a number of seconds from 0 to 86400, not -1"
        ),
        "the default's own line: {message}"
    );
}
