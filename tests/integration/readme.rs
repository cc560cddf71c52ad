//! The README's quick starts, run as a reader would run them, against a local site standing
//! for https://example.com/: each command does what the README says, and prints what the
//! README shows under `<!-- output of: COMMAND -->`, times, sizes and dates aside.
//!
//! `SITEMAPPER_BLESS=1 cargo test --test integration readme` writes the outputs into the
//! README instead of comparing them, for a change that means to change what they say.

use crate::fixture::{Route, Server, Site};
use crate::harness::{Run, repository_file, sitemapper_command};

/// What the README calls the site.
const README_ORIGIN: &str = "https://example.com";

fn readme_path() -> std::path::PathBuf {
    repository_file("README.md")
}

/// When the site's pages were written, and when the second night's changes were.
const FIRST_DEPLOY: &str = "Tue, 05 Nov 2024 09:30:00 GMT";
const SECOND_DEPLOY: &str = "Wed, 20 Nov 2024 08:00:00 GMT";

/// A page of the quick-start site: its title, text and links, written at the first deploy.
fn page(title: &str, text: &str, links: &[&str]) -> Route {
    page_of(FIRST_DEPLOY, title, text, links)
}

/// A page written at `written`.
fn page_of(written: &str, title: &str, text: &str, links: &[&str]) -> Route {
    let anchors: String = links
        .iter()
        .map(|link| format!("<li><a href=\"{link}\">{link}</a></li>"))
        .collect();
    Route::html(&format!(
        "<!doctype html><html lang=\"en\"><head><title>{title}</title>\
         <meta name=\"description\" content=\"{text}\"></head>\
         <body><h1>{title}</h1><p>{text}</p><ul>{anchors}</ul></body></html>"
    ))
    .header("Last-Modified", written)
}

/// The site on its first night; on the second (`later`), a third post is published and the
/// about page rewritten.
fn example_site(later: bool) -> Site {
    let mut posts = vec!["/blog/first-post", "/blog/second-post"];
    if later {
        posts.push("/blog/third-post");
    }
    let mut blog_links = posts.clone();
    blog_links.extend(["/", "/drafts/"]);
    let (about, changed) = if later {
        ("Who we are, since 2009.", SECOND_DEPLOY)
    } else {
        ("Who we are.", FIRST_DEPLOY)
    };
    let mut site = Site::new()
        .route(
            "/",
            page(
                "Example",
                "The example site.",
                &["/about", "/blog/", "/contact", "/old-offer"],
            ),
        )
        .route(
            "/about",
            page_of(
                changed,
                "About us, the people behind the site",
                about,
                &["/", "/team"],
            ),
        )
        .route(
            "/team",
            page("Our team of writers", "The team.", &["/about"]),
        )
        .route(
            "/blog/",
            page_of(
                changed,
                "The blog of the example site",
                "Posts.",
                &blog_links,
            ),
        )
        .route(
            "/drafts/",
            page("Drafts", "Not ready.", &["/blog/"]).header("X-Robots-Tag", "noindex"),
        )
        .route("/contact", Route::redirect(301, "/about"));
    for post in posts {
        let written = if post.ends_with("third-post") {
            SECOND_DEPLOY
        } else {
            FIRST_DEPLOY
        };
        site = site.route(
            post,
            page_of(
                written,
                &format!("A post: {post}"),
                "A post of the blog.",
                &["/blog/"],
            ),
        );
    }
    site
}

/// The README's quick-start outputs: each `<!-- output of: COMMAND -->` and the text block
/// under it, with where the block's text starts and ends in the README.
#[derive(Debug)]
struct ShownOutput {
    command: String,
    text: String,
    range: std::ops::Range<usize>,
}

fn shown_outputs(readme: &str) -> Vec<ShownOutput> {
    let marker = "<!-- output of: ";
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(at) = readme[from..].find(marker) {
        let start = from + at + marker.len();
        let end = start + readme[start..].find(" -->").expect("a marker ends");
        let command = readme[start..end].to_string();
        let fence = end
            + readme[end..]
                .find("```text\n")
                .expect("a text block follows");
        let text_start = fence + "```text\n".len();
        let text_end = text_start + readme[text_start..].find("```").expect("the block ends");
        found.push(ShownOutput {
            command,
            text: readme[text_start..text_end].to_string(),
            range: text_start..text_end,
        });
        from = text_end;
    }
    found
}

/// The shell line of the README's crontab entry: what follows its five time fields.
fn crontab_command(readme: &str) -> String {
    readme
        .lines()
        .find(|line| line.starts_with("17 3 * * * sitemapper "))
        .expect("the README has a crontab line")
        .splitn(6, ' ')
        .nth(5)
        .unwrap()
        .to_string()
}

/// The systemd unit's command, without the binary's directory.
fn systemd_command(readme: &str) -> String {
    readme
        .lines()
        .find_map(|line| line.strip_prefix("ExecStart=/usr/local/bin/"))
        .expect("the README has a systemd unit")
        .to_string()
}

/// Where the quick starts run: a directory standing for `/` and the current directory.
struct Machine {
    root: tempfile::TempDir,
    server: Server,
}

impl Machine {
    fn new() -> Machine {
        let root = tempfile::tempdir().unwrap();
        for directory in ["var/www/html", "var/lib/sitemapper"] {
            std::fs::create_dir_all(root.path().join(directory)).unwrap();
        }
        Machine {
            root,
            server: example_site(false).serve(),
        }
    }

    /// The README's line as it runs here: the site's URL is the local server's, and the
    /// absolute paths are under this machine's root.
    fn local(&self, line: &str) -> String {
        line.replace(&format!("{README_ORIGIN}/"), &self.server.url("/"))
            .replace(" /var/", &format!(" {}/var/", self.root.path().display()))
    }

    /// What the README would show for `text`: the other way round. Times, sizes and dates
    /// stay as printed; they are made neutral when compared.
    fn as_shown(&self, text: &str) -> String {
        let origin = self.server.url("/");
        text.replace(&origin, &format!("{README_ORIGIN}/"))
            .replace(origin.trim_end_matches('/'), README_ORIGIN)
            .replace(&format!("{}/", self.root.path().display()), "/")
    }

    /// Runs a README shell line: `sitemapper ARGS` (the only kind the quick starts have),
    /// its site taken for the public site it stands for.
    fn run(&self, line: &str) -> Run {
        let mut command = self.command(line);
        command.env("SITEMAPPER_TEST_PUBLIC_ADDRESSES", "127.0.0.1");
        command.output().expect("run sitemapper").into()
    }

    /// Runs a README shell line whose site is served on this machine, as it is.
    fn run_on_this_machine(&self, line: &str) -> Run {
        self.command(line).output().expect("run sitemapper").into()
    }

    fn command(&self, line: &str) -> std::process::Command {
        let local = self.local(line);
        let words: Vec<&str> = local.split_whitespace().collect();
        assert_eq!(words[0], "sitemapper", "{line}");
        let mut command = sitemapper_command(&words[1..]);
        command.current_dir(self.root.path());
        command
    }
}

/// `text` with what changes from run to run replaced: dates, durations, memory, rates.
fn neutral(text: &str) -> String {
    let patterns = [
        (
            r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2})?(Z|[+-]\d{2}:?\d{2})?",
            "DATE",
        ),
        (r"\d+(\.\d+)? ?(ms|s|MiB|KiB|GiB|kB|KB|MB)\b", "N$2"),
        (r"\b\d+(\.\d+)? (pages|requests|URLs)/s\b", "N $2/s"),
        // Seconds in a table (`runs`): counts are whole numbers.
        (r"\b\d+\.\d+\b", "N.N"),
    ];
    patterns
        .iter()
        .fold(text.to_string(), |text, (pattern, replacement)| {
            regex::Regex::new(pattern)
                .unwrap()
                .replace_all(&text, *replacement)
                .into_owned()
        })
}

#[test]
fn the_quick_starts_do_what_the_readme_says() {
    let readme = std::fs::read_to_string(readme_path()).unwrap();
    let machine = Machine::new();
    let mut actual: Vec<(String, String)> = Vec::new();

    // Map a site: the sitemap is written, and the summary is the README's.
    let map = "sitemapper crawl https://example.com/ --out ./public";
    let run = machine.run(map);
    run.assert_success();
    let sitemap = std::fs::read_to_string(machine.root.path().join("public/sitemap.xml")).unwrap();
    for listed in ["/", "/about", "/team", "/blog/", "/blog/first-post"] {
        assert!(
            sitemap.contains(&format!("<loc>{}</loc>", machine.server.url(listed))),
            "{listed} listed:\n{sitemap}"
        );
    }
    actual.push((map.to_string(), machine.as_shown(&run.stderr)));

    // A folder on disk, served by `python3 -m http.server 8000` in the README: here the
    // fixture server serves the site, on another port of this machine. The sitemap names
    // the public URLs, and nothing is said of the local ones.
    let folder = readme
        .lines()
        .find(|line| line.starts_with("sitemapper crawl http://localhost:8000/ "))
        .expect("the README crawls a folder served on localhost");
    let served = machine.server.url("/");
    let served = served.trim_end_matches('/');
    let folder = folder.replace("http://localhost:8000", served);
    let run = machine.run_on_this_machine(&folder);
    run.assert_success();
    let sitemap = std::fs::read_to_string(machine.root.path().join("site/sitemap.xml")).unwrap();
    assert!(
        sitemap.contains(&format!("<loc>{README_ORIGIN}/about</loc>")) && !sitemap.contains(served),
        "{folder}:\n{sitemap}"
    );
    assert!(!run.stderr.contains("Warning:"), "{folder}: {}", run.stderr);
    // Without the mapping, the summary says what it would have published, once.
    let unmapped = folder
        .split(" --map-host ")
        .next()
        .unwrap_or_default()
        .to_string();
    let run = machine.run_on_this_machine(&unmapped);
    run.assert_success();
    let warnings: Vec<&str> = run
        .stderr
        .lines()
        .filter(|line| line.starts_with("Warning:"))
        .collect();
    assert!(
        warnings.len() == 1 && warnings[0].contains("--map-host"),
        "{unmapped}: {}",
        run.stderr
    );

    // Every night: the crontab's command and the unit's are one, quiet when it succeeds.
    let nightly = crontab_command(&readme);
    assert_eq!(
        nightly,
        systemd_command(&readme),
        "crontab and systemd run one command"
    );
    let first = machine.run(&nightly);
    first.assert_success();
    assert_eq!((first.stdout.as_str(), first.stderr.as_str()), ("", ""));
    machine.server.change(example_site(true));
    let second = machine.run(&nightly);
    second.assert_success();
    assert_eq!((second.stdout.as_str(), second.stderr.as_str()), ("", ""));
    let published =
        std::fs::read_to_string(machine.root.path().join("var/www/html/sitemap.xml")).unwrap();
    assert!(published.contains("/blog/third-post</loc>"), "{published}");
    let changes =
        std::fs::read_to_string(machine.root.path().join("var/lib/sitemapper/changes.json"))
            .unwrap();
    actual.push((
        "cat /var/lib/sitemapper/changes.json".to_string(),
        machine.as_shown(&changes),
    ));
    let runs_line = "sitemapper runs --state /var/lib/sitemapper/example.db";
    let runs = machine.run(runs_line);
    runs.assert_success();
    actual.push((runs_line.to_string(), machine.as_shown(&runs.stdout)));

    // Audit: the summary is the README's, and the report holds the files it names.
    let audit = "sitemapper audit https://example.com/ --report ./client-audit";
    let run = machine.run(audit);
    run.assert_success();
    for file in [
        "report.html",
        "report.xlsx",
        "findings.csv",
        "pages.csv",
        "links.csv",
        "outbound.csv",
        "report.json",
        "crawl.db",
        "sitemap.xml",
    ] {
        assert!(
            machine
                .root
                .path()
                .join("client-audit")
                .join(file)
                .is_file(),
            "the report directory holds {file}"
        );
    }
    actual.push((audit.to_string(), machine.as_shown(&run.stderr)));

    // The CI gate: the site's broken link fails the step (exit code 4), and the findings
    // are in the SARIF file the next step uploads.
    let gate = ci_command(&readme);
    let run = machine.run(&gate);
    assert_eq!(run.code, 4, "{gate}: {}", run.stderr);
    let sarif: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(machine.root.path().join("sitemapper.sarif")).unwrap(),
    )
    .unwrap();
    assert!(
        sarif["runs"][0]["results"]
            .as_array()
            .unwrap()
            .iter()
            .any(|result| result["ruleId"] == "broken-link" && result["level"] == "error"),
        "{sarif}"
    );
    assert!(readme.contains("sarif_file: sitemapper.sarif"));

    compare_or_bless(&readme, &actual);
}

/// The command of the README's GitHub Actions step: the folded lines after `run: >`.
fn ci_command(readme: &str) -> String {
    let after = readme
        .split("run: >\n")
        .nth(1)
        .expect("the README has a GitHub Actions step");
    after
        .lines()
        .take_while(|line| line.starts_with("          "))
        .map(str::trim)
        .collect::<Vec<_>>()
        .join(" ")
}

/// Compares each output the README shows with the actual one of its command; with
/// `SITEMAPPER_BLESS=1`, writes the actual ones into the README instead.
fn compare_or_bless(readme: &str, actual: &[(String, String)]) {
    let shown = shown_outputs(readme);
    assert!(
        shown.len() >= 4,
        "the README shows the quick starts' outputs"
    );
    let bless = std::env::var("SITEMAPPER_BLESS").as_deref() == Ok("1");
    let mut blessed = readme.to_string();
    for block in shown.iter().rev() {
        let (_, output) = actual
            .iter()
            .find(|(command, _)| *command == block.command)
            .unwrap_or_else(|| panic!("the test runs `{}`", block.command));
        if bless {
            let mut output = output.clone();
            if !output.ends_with('\n') {
                output.push('\n');
            }
            blessed.replace_range(block.range.clone(), &output);
        } else {
            assert_eq!(
                neutral(block.text.trim_end()),
                neutral(output.trim_end()),
                "the README's output of `{}` is not what it prints (SITEMAPPER_BLESS=1 \
                 writes it)",
                block.command
            );
        }
    }
    if bless {
        std::fs::write(readme_path(), blessed).unwrap();
    }
}

#[test]
fn the_readme_is_short_and_its_exit_codes_are_the_manual_s() {
    let readme = std::fs::read_to_string(readme_path()).unwrap();
    let lines = readme.lines().count();
    assert!(lines <= 300, "README.md is {lines} lines");
    let setup = readme.find("## Setup").expect("a Setup section");
    let first_block = &readme[setup..];
    let block = &first_block[first_block.find("```sh\n").unwrap() + 6..];
    let commands: Vec<&str> = block[..block.find("```").unwrap()]
        .lines()
        .filter(|line| !line.starts_with('#') && !line.trim().is_empty())
        .collect();
    assert_eq!(
        commands,
        [
            "cargo run --release -- crawl https://example.com/ --out ./out",
            "cargo test --workspace"
        ],
        "the two setup commands come first under Setup"
    );
    let codes: Vec<String> = readme
        .lines()
        .filter_map(|line| line.strip_prefix("| "))
        .filter_map(|line| line.split(' ').next())
        .filter(|code| code.parse::<u8>().is_ok())
        .map(str::to_string)
        .collect();
    let manual = crate::harness::sitemapper(&["man"]).stdout;
    let section = &manual[manual.find(".SH \"EXIT STATUS\"").expect("EXIT STATUS")..];
    let section = &section[..section[1..]
        .find(".SH")
        .map_or(section.len(), |end| end + 1)];
    let documented: Vec<String> = section
        .lines()
        .filter_map(|line| line.strip_prefix(r"\fB"))
        .filter_map(|line| line.split(r"\fR").next())
        .map(str::to_string)
        .collect();
    assert_eq!(
        codes, documented,
        "the README's exit codes are the manual's"
    );
    for topic in [
        "rules",
        "output",
        "rendering",
        "cron",
        "big-sites",
        "staging",
        "fleets",
        "audit",
        "options",
        "summary-json",
    ] {
        let page = format!("docs/{topic}.md");
        assert!(
            readme.contains(&format!("]({page})")),
            "the README links {page}"
        );
        assert!(repository_file(&page).is_file(), "{page} exists");
    }
}
