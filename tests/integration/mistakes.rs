//! The mistakes of a first run, each refused before any request with what was meant: a seed
//! without its scheme or given as a file, an `--out` naming the sitemap file, a config or
//! fleet key mistyped; and a run refused because another holds the lock names that run.

use std::path::Path;
use std::process::{Child, Stdio};
use std::time::Duration;

use crate::fixture::{Route, Server, Site};
use crate::harness::{
    Run, assert_one_line_error, crawl, listed_urls, sitemapper, sitemapper_command,
};

fn home() -> Server {
    Site::new().page("/", "<p>home</p>").serve()
}

/// A usage error of one line, the one expected, with nothing asked of `server`.
fn assert_refused(run: &Run, line: &str, server: &Server) {
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert_one_line_error(&run.stderr);
    assert_eq!(run.stderr.trim_end(), format!("error: {line}"));
    assert!(server.requests().is_empty(), "{:?}", server.targets());
}

fn run_in(directory: &Path, args: &[&str]) -> Run {
    sitemapper_command(args)
        .current_dir(directory)
        .output()
        .expect("run sitemapper")
        .into()
}

#[test]
fn a_seed_without_its_scheme_names_the_url_meant() {
    let server = home();
    let out = tempfile::tempdir().unwrap();
    let host = server.host();
    let run = crawl(&host, out.path(), &[]);
    assert_refused(
        &run,
        &format!("the seed {host} is not a URL: did you mean http://{host}/?"),
        &server,
    );
    assert!(std::fs::read_dir(out.path()).unwrap().next().is_none());

    let run = crawl("example.com", out.path(), &[]);
    assert_refused(
        &run,
        "the seed example.com is not a URL: did you mean https://example.com/?",
        &server,
    );
    let report = out.path().join("report");
    let run = sitemapper(&["audit", "example.com", "--report", report.to_str().unwrap()]);
    assert_refused(
        &run,
        "the seed example.com is not a URL: did you mean https://example.com/?",
        &server,
    );
    assert!(!report.exists());

    let port = server.host().rsplit_once(':').unwrap().1.to_string();
    let config = out.path().join("sitemapper.toml");
    std::fs::write(&config, format!("url = \"localhost:{port}\"\n")).unwrap();
    let run = sitemapper(&["--config", config.to_str().unwrap(), "crawl"]);
    assert_refused(
        &run,
        &format!("the seed localhost:{port} is not a URL: did you mean http://localhost:{port}/?"),
        &server,
    );

    // The URL suggested is one the crawl takes.
    crawl(&format!("http://{host}/"), out.path(), &[]).assert_success();
    assert_eq!(listed_urls(out.path()).len(), 1);
}

#[test]
fn a_seed_that_is_a_file_names_the_folder_to_serve() {
    let server = home();
    let directory = tempfile::tempdir().unwrap();
    let site = directory.path().join("site");
    std::fs::create_dir(&site).unwrap();
    std::fs::write(site.join("index.html"), "<p>home</p>").unwrap();
    let serve = |folder: &str| {
        format!(
            "is a file path, not a URL: serve its folder (python3 -m http.server 8000 \
             --directory {folder}) and crawl http://localhost:8000/"
        )
    };
    let run = run_in(&site, &["crawl", "./index.html", "--out", "out"]);
    assert_refused(
        &run,
        &format!("the seed ./index.html {}", serve(".")),
        &server,
    );
    let run = run_in(directory.path(), &["crawl", "site", "--out", "out"]);
    assert_refused(&run, &format!("the seed site {}", serve("site")), &server);
    let page = site.join("index.html");
    let run = run_in(directory.path(), &["crawl", page.to_str().unwrap()]);
    assert_refused(
        &run,
        &format!(
            "the seed {} {}",
            page.display(),
            serve(site.to_str().unwrap())
        ),
        &server,
    );
    assert!(!directory.path().join("out").exists() && !site.join("out").exists());
}

#[test]
fn a_fleet_sites_url_without_its_scheme_names_the_url_meant() {
    let server = home();
    let directory = tempfile::tempdir().unwrap();
    let fleet = directory.path().join("fleet.toml");
    let host = server.host();
    std::fs::write(
        &fleet,
        format!("[defaults]\nout = \"out/{{name}}\"\n\n[[site]]\nurl = \"{host}\"\n"),
    )
    .unwrap();
    let run = sitemapper(&["fleet", "run", fleet.to_str().unwrap()]);
    assert_refused(
        &run,
        &format!(
            "invalid fleet file {}, line 5: `url` \"{host}\" is not a URL: did you mean \
             http://{host}/?",
            fleet.display()
        ),
        &server,
    );
}

#[test]
fn an_out_naming_the_sitemap_file_names_its_directory() {
    let server = home();
    let directory = tempfile::tempdir().unwrap();
    let public = directory.path().join("public");
    let sitemap = public.join("sitemap.xml");
    let run = crawl(&server.url("/"), &sitemap, &[]);
    assert_refused(
        &run,
        &format!(
            "--out {} names a file; --out is the directory sitemap.xml is written into: did \
             you mean --out {}?",
            sitemap.display(),
            public.display()
        ),
        &server,
    );
    assert!(!public.exists(), "nothing written");

    let run = run_in(
        directory.path(),
        &["crawl", &server.url("/"), "--out", "sitemap.xml.gz"],
    );
    assert_refused(
        &run,
        "--out sitemap.xml.gz names a file; --out is the directory sitemap.xml is written into: \
         did you mean --out .?",
        &server,
    );
    std::fs::write(
        directory.path().join("sitemapper.toml"),
        format!("url = \"{}\"\nout = \"public/urls.txt\"\n", server.url("/")),
    )
    .unwrap();
    let run = run_in(directory.path(), &["crawl"]);
    assert_refused(
        &run,
        "--out public/urls.txt names a file; --out is the directory sitemap.xml is written \
         into: did you mean --out public?",
        &server,
    );
    std::fs::remove_file(directory.path().join("sitemapper.toml")).unwrap();

    let file = directory.path().join("afile");
    std::fs::write(&file, "mine").unwrap();
    let run = crawl(&server.url("/"), &file, &[]);
    assert_refused(
        &run,
        &format!(
            "--out {} is a file, not a directory: give the directory the sitemaps are written \
             into",
            file.display()
        ),
        &server,
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "mine");
}

#[test]
fn a_mistyped_config_key_names_the_nearest_key_or_where_the_keys_are() {
    let server = home();
    let directory = tempfile::tempdir().unwrap();
    let config = directory.path().join("sitemapper.toml");
    let url = server.url("/");
    std::fs::write(&config, format!("url = \"{url}\"\nmax-pagse = 3\n")).unwrap();
    let run = run_in(directory.path(), &["crawl"]);
    assert_refused(
        &run,
        "invalid config file sitemapper.toml, line 2: unknown key `max-pagse`: did you mean \
         `max-pages`?",
        &server,
    );
    std::fs::write(&config, format!("url = \"{url}\"\n\nspeed = \"fast\"\n")).unwrap();
    let run = run_in(directory.path(), &["crawl"]);
    assert_refused(
        &run,
        "invalid config file sitemapper.toml, line 3: unknown key `speed`: each key is an \
         option's long name, as `sitemapper crawl --help` lists them (config/example.toml has \
         them all)",
        &server,
    );
}

#[test]
fn a_mistyped_fleet_key_names_the_nearest_key_or_what_a_site_takes() {
    let server = home();
    let directory = tempfile::tempdir().unwrap();
    let fleet = directory.path().join("fleet.toml");
    let write = |key: &str| {
        std::fs::write(
            &fleet,
            format!(
                "[defaults]\nout = \"out/{{name}}\"\n\n[[site]]\nname = \"home\"\nurl = \"{}\"\n{key} = \"1h\"\n",
                server.url("/")
            ),
        )
        .unwrap();
    };
    let prefix = format!(
        "invalid fleet file {}, site \"home\", line 7",
        fleet.display()
    );
    write("evry");
    let run = sitemapper(&["fleet", "run", fleet.to_str().unwrap()]);
    assert_refused(
        &run,
        &format!("{prefix}: unknown option `evry`: did you mean `every`?"),
        &server,
    );
    write("user_agent");
    let run = sitemapper(&["fleet", "run", fleet.to_str().unwrap()]);
    assert_refused(
        &run,
        &format!("{prefix}: unknown option `user_agent`: did you mean `user-agent`?"),
        &server,
    );
    write("speed");
    let run = sitemapper(&["fleet", "run", fleet.to_str().unwrap()]);
    assert_refused(
        &run,
        &format!(
            "{prefix}: unknown option `speed`: a site takes `name`, `url`, `out`, `every`, \
             `cron`, `retry`, `publish` and the crawl's options, as `sitemapper crawl --help` \
             lists them (config/fleet.example.toml shows a fleet)"
        ),
        &server,
    );
}

/// A crawl in the background, killed when the test ends however it ends.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn a_run_refused_by_the_lock_names_the_run_holding_it() {
    let mut site = Site::new().page("/", r#"<a href="/slow">slow</a>"#);
    site = site.route("/slow", Route::html("slow").delay(Duration::from_secs(30)));
    let server = site.serve();
    let out = tempfile::tempdir().unwrap();
    let other_out = tempfile::tempdir().unwrap();
    let state = out.path().join("crawl.db");
    let holder = Running(
        sitemapper_command(&[
            "crawl",
            &server.url("/"),
            "--out",
            out.path().to_str().unwrap(),
            "--state",
            state.to_str().unwrap(),
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap(),
    );
    server.wait_for(|seen| seen.iter().any(|seen| seen.target == "/slow"));
    let pid = holder.0.id();

    let refused = |run: Run, path: &Path| {
        assert_eq!(run.code, 3, "{}", run.stderr);
        assert_one_line_error(&run.stderr);
        let start = format!(
            "error: another sitemapper run is using {} (PID {pid}, started 2",
            path.display()
        );
        assert!(
            run.stderr.starts_with(&start)
                && run
                    .stderr
                    .trim_end()
                    .ends_with(" UTC); this one stops without touching it"),
            "{}",
            run.stderr
        );
    };
    refused(crawl(&server.url("/"), out.path(), &[]), out.path());
    let run = crawl(
        &server.url("/"),
        other_out.path(),
        &["--state", state.to_str().unwrap()],
    );
    refused(run, &state);

    // Killed, the holder leaves its record behind; the lock and the record go with it.
    drop(holder);
    let one_page = ["--max-pages", "1", "--state", state.to_str().unwrap()];
    crawl(&server.url("/"), other_out.path(), &one_page[..2]).assert_success();
    crawl(&server.url("/"), out.path(), &one_page).assert_success();
    assert!(!out.path().join(".sitemapper-lock").exists());
    assert!(!out.path().join("crawl.db.sitemapper-lock").exists());
}

#[test]
fn a_seed_on_port_0_is_a_usage_error() {
    let directory = tempfile::tempdir().unwrap();
    let out = directory.path().join("out");
    let run = crawl("http://127.0.0.1:0/", &out, &[]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert_one_line_error(&run.stderr);
    assert!(
        run.stderr
            .contains("the seed http://127.0.0.1:0/ names port 0, on which no server listens"),
        "{}",
        run.stderr
    );
    assert!(!out.exists());
}

#[test]
fn another_programs_database_given_as_state_is_refused_and_left_unchanged() {
    let server = home();
    let directory = tempfile::tempdir().unwrap();
    let database = directory.path().join("app.db");
    {
        let connection = rusqlite::Connection::open(&database).unwrap();
        connection
            .execute_batch("CREATE TABLE orders (id INTEGER PRIMARY KEY, total REAL);")
            .unwrap();
    }
    let before = std::fs::read(&database).unwrap();
    let out = directory.path().join("out");

    let run = crawl(
        &server.url("/"),
        &out,
        &["--state", database.to_str().unwrap()],
    );

    assert_refused(
        &run,
        &format!(
            "{} is another program's database (it holds tables sitemapper did not create: orders); it is left as it was: give a file of sitemapper's own",
            database.display()
        ),
        &server,
    );
    assert_eq!(std::fs::read(&database).unwrap(), before);
}

#[test]
fn a_file_size_limit_ends_the_run_with_one_line_and_the_previous_sitemap() {
    let links: String = (0..200)
        .map(|n| format!("<a href=\"/a-page-with-a-rather-long-name-{n}\">{n}</a>"))
        .collect();
    let server = Site::new()
        .page("/", &links)
        .generated(|_| Some(Route::html("<p>a page</p>")))
        .serve();
    let (out, previous) = crate::harness::previous_output();
    // 8 blocks of 512 bytes: the crawl database passes it long before the end. Without a
    // handler of its own, SIGXFSZ would end the process with no word of why.
    let mut command = std::process::Command::new("sh");
    command
        .args([
            "-c",
            "ulimit -f 8; exec \"$0\" crawl \"$1\" --out \"$2\" --quiet --retries 0",
        ])
        .arg(env!("CARGO_BIN_EXE_sitemapper"))
        .arg(server.url("/"))
        .arg(out.path())
        .env("NO_COLOR", "1")
        .env_remove("RUST_LOG");
    for (name, _) in std::env::vars_os() {
        if name
            .to_str()
            .is_some_and(|name| name.starts_with("SITEMAPPER_"))
        {
            command.env_remove(name);
        }
    }
    let run: Run = command.output().unwrap().into();

    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_one_line_error(&run.stderr);
    assert_eq!(
        std::fs::read(out.path().join("sitemap.xml")).unwrap(),
        previous
    );
}
