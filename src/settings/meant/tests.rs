use super::*;

fn meant(seed: &str) -> Option<String> {
    SeedMistake::of(seed).map(|mistake| match mistake {
        SeedMistake::NoScheme(url) => url.to_string(),
        SeedMistake::FilePath(folder) => format!("serve {}", folder.display()),
    })
}

#[test]
fn a_host_without_its_scheme_is_the_url_meant() {
    let cases = [
        ("example.com", "https://example.com/"),
        ("www.example.com/blog/", "https://www.example.com/blog/"),
        ("example.com:443", "https://example.com/"),
        ("example.com:8080", "http://example.com:8080/"),
        ("127.0.0.1:8000", "http://127.0.0.1:8000/"),
        ("127.0.0.1", "http://127.0.0.1/"),
        ("localhost:3000", "http://localhost:3000/"),
        ("localhost", "http://localhost/"),
        ("app.localhost:5173/docs", "http://app.localhost:5173/docs"),
        ("[::1]:8080", "http://[::1]:8080/"),
        ("192.168.1.20", "https://192.168.1.20/"),
        ("  example.com ", "https://example.com/"),
    ];
    for (seed, url) in cases {
        assert_eq!(meant(seed).as_deref(), Some(url), "{seed}");
    }
}

#[test]
fn a_file_path_is_a_folder_to_serve() {
    let directory = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
    let page = directory.path().join("about");
    std::fs::write(&page, "<p>about</p>").unwrap_or_else(|error| panic!("{error}"));
    let shown = directory.path().display().to_string();
    let cases = [
        ("./index.html", "serve ."),
        ("index.html", "serve ."),
        ("site/INDEX.HTM", "serve site"),
        ("../site", "serve ../site"),
        ("/var/www/html/", "serve /var/www/html/"),
        ("~/site/index.html", "serve ~/site"),
        ("file:///srv/site/index.html", "serve /srv/site"),
    ];
    for (seed, folder) in cases {
        assert_eq!(meant(seed).as_deref(), Some(folder), "{seed}");
    }
    // Found on disk, whatever it looks like: a folder is served as it is, a file's folder.
    assert_eq!(meant(&shown), Some(format!("serve {shown}")));
    assert_eq!(
        meant(&page.display().to_string()),
        Some(format!("serve {shown}"))
    );
}

#[test]
fn urls_and_what_cannot_be_told_have_no_suggestion() {
    for seed in [
        "https://example.com/",
        "http://127.0.0.1:8000/",
        "ftp://example.com/",
        "mailto:someone@example.com",
        "user:secret@example.com",
        "example",
        "example.com:port",
        "example.com:99999",
        "two words.com",
        "",
    ] {
        assert_eq!(meant(seed), None, "{seed}");
    }
}

#[test]
fn the_mistakes_read_as_one_line_with_what_to_type() {
    let host = SeedMistake::of("example.com").map(|mistake| mistake.to_string());
    assert_eq!(
        host.as_deref(),
        Some("is not a URL: did you mean https://example.com/?")
    );
    let page = SeedMistake::of("./my site/index.html").map(|mistake| mistake.to_string());
    assert_eq!(
        page.as_deref(),
        Some(
            "is a file path, not a URL: serve its folder (python3 -m http.server 8000 \
             --directory './my site') and crawl http://localhost:8000/"
        )
    );
}

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
