//! Sites built by real static site generators (mdBook, MkDocs Material, VitePress, Hugo,
//! Jekyll; tests/fixtures/generated/), crawled as served by nginx: the listing is exactly the
//! pages a search engine should index, read as served and with `--render auto`, and a
//! redeploy that re-dates every file moves no `<lastmod>`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use jiff::Timestamp;

use crate::fixture::{Server, Site};
use crate::harness::{chromium, crawl, lastmods, listed_urls, summary_json};
use crate::schema::assert_all_valid;
use crate::static_site::StaticSite;

/// The most pages `--render auto` may render on a generated site: its pages link to each
/// other in their HTML, so rendering finds nothing new, and `auto` renders only one page of
/// each kind whose scripts seem to build it (docs/rendering.md, "What `--render auto` decides").
const MAX_RENDERED_PAGES: u64 = 3;

/// When the site was deployed, then deployed again unchanged, then with one page edited.
const DEPLOYED: &str = "2026-03-02T09:00:00Z";
const REDEPLOYED: &str = "2026-03-09T09:00:00Z";
const EDITED: &str = "2026-03-16T09:00:00Z";

/// One generator's fixture: `tests/fixtures/generated/NAME/{site,expected.txt}`.
#[derive(Debug, Clone, Copy)]
struct Generated {
    name: &'static str,
    /// The origin the site was built for (its `site_url`, `baseURL`, `url`), as build.sh
    /// sets it; served rewritten to the fixture server's.
    built_for: Option<&'static str>,
}

const MDBOOK: Generated = Generated {
    name: "mdbook",
    built_for: None,
};
const MKDOCS: Generated = Generated {
    name: "mkdocs",
    built_for: Some("https://lantern-docs.example.com/"),
};
const VITEPRESS: Generated = Generated {
    name: "vitepress",
    built_for: Some("https://quill.example.com"),
};
const HUGO: Generated = Generated {
    name: "hugo",
    built_for: Some("https://journal.example.com/"),
};
const JEKYLL: Generated = Generated {
    name: "jekyll",
    built_for: Some("https://workbench.example.com"),
};

impl Generated {
    fn directory(self) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/generated")
            .join(self.name)
    }

    /// The site as deployed at `modified`, at the host's root.
    fn deployed(self, modified: &str) -> StaticSite {
        let site = StaticSite::new(&self.directory().join("site"), time(modified));
        match self.built_for {
            Some(origin) => site.built_for(origin),
            None => site,
        }
    }

    /// The paths of expected.txt, relative to the site's root.
    fn expected_paths(self) -> Vec<String> {
        let file = self.directory().join("expected.txt");
        let text = std::fs::read_to_string(&file)
            .unwrap_or_else(|error| panic!("read {}: {error}", file.display()));
        text.lines()
            .filter(|line| !line.is_empty())
            .map(str::to_string)
            .collect()
    }

    /// The URLs a correct crawl of the site served at `server`, under `mount`, lists.
    fn expected_urls(self, server: &Server, mount: &str) -> BTreeSet<String> {
        self.expected_paths()
            .iter()
            .map(|path| server.url(&format!("{mount}{path}")))
            .collect()
    }
}

fn time(text: &str) -> Timestamp {
    text.parse().expect("a valid time")
}

/// `2026-03-02T09:00:00+00:00`, as `<lastmod>` writes `time`.
fn lastmod(time: &str) -> String {
    time.replace('Z', "+00:00")
}

/// Crawls the whole site, deployed once, read as served.
fn assert_read_as_served_lists_exactly_its_pages(generated: Generated) {
    let server = generated.deployed(DEPLOYED).site().serve();
    let out = tempfile::tempdir().unwrap();
    let run = crawl(&server.url("/"), out.path(), &["--render", "never"]);
    run.assert_success();
    assert_eq!(
        listed_urls(out.path()),
        generated.expected_urls(&server, ""),
        "{} read as served\n{}",
        generated.name,
        run.stderr
    );
    assert_all_valid(out.path());
}

/// Crawls the whole site with `--render auto` and the installed browser: the same listing,
/// and at most [`MAX_RENDERED_PAGES`] pages rendered.
fn assert_auto_lists_exactly_its_pages_and_renders_few(generated: Generated) {
    let Some(browser) = chromium() else { return };
    let server = generated.deployed(DEPLOYED).site().serve();
    let out = tempfile::tempdir().unwrap();
    let browser = browser.to_str().expect("a UTF-8 path");
    let run = crawl(
        &server.url("/"),
        out.path(),
        &["--chrome", browser, "--summary", "json"],
    );
    let summary = summary_json(&run);
    assert_eq!(
        listed_urls(out.path()),
        generated.expected_urls(&server, ""),
        "{} with --render auto\n{}",
        generated.name,
        run.stderr
    );
    assert_all_valid(out.path());
    let rendering = &summary["rendering"];
    // A browser that could not start would make "few pages rendered" true for nothing.
    assert!(
        rendering["unavailable"].is_null(),
        "the browser could not render: {}",
        rendering["unavailable"]
    );
    let rendered = rendering["rendered"].as_u64().expect("rendering.rendered");
    eprintln!(
        "{}: rendered {rendered} of {} HTML pages, decision {}, browser started {}",
        generated.name,
        rendering["html_pages"],
        rendering["decision"],
        rendering["browser_started"]
    );
    assert_eq!(
        rendering["found_urls"], 0,
        "{}: rendering found URLs the HTML does not link to",
        generated.name
    );
    assert!(
        rendered <= MAX_RENDERED_PAGES,
        "{}: --render auto rendered {rendered} of {} HTML pages (at most {MAX_RENDERED_PAGES} \
         expected: its pages link to each other in their HTML); decision {}",
        generated.name,
        rendering["html_pages"],
        rendering["decision"],
    );
}

#[test]
fn mdbook_read_as_served_lists_exactly_its_chapters() {
    // Its sidebar is drawn by toc.js; the chapters are found through prev/next links.
    assert_read_as_served_lists_exactly_its_pages(MDBOOK);
}

#[test]
fn mkdocs_material_read_as_served_lists_exactly_its_pages() {
    assert_read_as_served_lists_exactly_its_pages(MKDOCS);
}

#[test]
fn vitepress_read_as_served_lists_exactly_its_pages() {
    assert_read_as_served_lists_exactly_its_pages(VITEPRESS);
}

#[test]
fn hugo_read_as_served_lists_exactly_its_pages() {
    assert_read_as_served_lists_exactly_its_pages(HUGO);
}

#[test]
fn jekyll_read_as_served_lists_exactly_its_pages() {
    assert_read_as_served_lists_exactly_its_pages(JEKYLL);
}

#[test]
fn mdbook_with_render_auto_lists_exactly_its_chapters_and_renders_few() {
    assert_auto_lists_exactly_its_pages_and_renders_few(MDBOOK);
}

#[test]
fn mkdocs_material_with_render_auto_lists_exactly_its_pages_and_renders_few() {
    assert_auto_lists_exactly_its_pages_and_renders_few(MKDOCS);
}

#[test]
fn vitepress_with_render_auto_lists_exactly_its_pages_and_renders_few() {
    assert_auto_lists_exactly_its_pages_and_renders_few(VITEPRESS);
}

#[test]
fn hugo_with_render_auto_lists_exactly_its_pages_and_renders_few() {
    assert_auto_lists_exactly_its_pages_and_renders_few(HUGO);
}

#[test]
fn jekyll_with_render_auto_lists_exactly_its_pages_and_renders_few() {
    assert_auto_lists_exactly_its_pages_and_renders_few(JEKYLL);
}

/// The chapter edited in the third deploy, and the paragraph that changes.
const EDITED_CHAPTER: &str = "guide/concurrency.html";
const EDITED_PARAGRAPH: (&str, &str) = (
    "Jobs that mostly wait on the network can use more; jobs that use a whole core should not.",
    "Jobs that mostly wait on the network can use four times as many; jobs that use a whole \
     core should not use more than one each.",
);

#[test]
fn a_redeploy_that_redates_every_file_moves_no_lastmod_and_an_edit_moves_its_page_alone() {
    let server = MDBOOK.deployed(DEPLOYED).site().serve();
    let out = tempfile::tempdir().unwrap();
    let state = out.path().join("state.db");
    let nightly = || {
        let run = crawl(
            &server.url("/"),
            out.path(),
            &["--state", state.to_str().unwrap(), "--render", "never"],
        );
        run.assert_success();
        run
    };
    let expected = MDBOOK.expected_urls(&server, "");
    let all_at = |time: &str| -> Vec<(String, Option<String>)> {
        expected
            .iter()
            .map(|url| (url.clone(), Some(lastmod(time))))
            .collect()
    };

    nightly();
    let first: Vec<_> = lastmods(out.path()).into_iter().collect();
    assert_eq!(first, all_at(DEPLOYED), "the first deploy's Last-Modified");

    // Generators write every file again on each build, and a deploy re-dates them all.
    server.change(MDBOOK.deployed(REDEPLOYED).site());
    let run = nightly();
    let second: Vec<_> = lastmods(out.path()).into_iter().collect();
    assert_eq!(
        second,
        all_at(DEPLOYED),
        "the same content redeployed keeps every lastmod\n{}",
        run.stderr
    );

    let chapter = MDBOOK.directory().join("site").join(EDITED_CHAPTER);
    let original = std::fs::read_to_string(&chapter).unwrap();
    assert!(original.contains(EDITED_PARAGRAPH.0), "{EDITED_CHAPTER}");
    let edited = original.replace(EDITED_PARAGRAPH.0, EDITED_PARAGRAPH.1);
    server.change(
        MDBOOK
            .deployed(REDEPLOYED)
            .replace(EDITED_CHAPTER, edited.into_bytes(), time(EDITED))
            .site(),
    );
    let run = nightly();
    let edited_url = server.url(&format!("/{EDITED_CHAPTER}"));
    let third: Vec<_> = lastmods(out.path()).into_iter().collect();
    let expected_third: Vec<_> = all_at(DEPLOYED)
        .into_iter()
        .map(|(url, deployed)| {
            let moved = (url == edited_url).then(|| lastmod(EDITED));
            (url, moved.or(deployed))
        })
        .collect();
    assert_eq!(
        third, expected_third,
        "the edited chapter alone takes its new date\n{}",
        run.stderr
    );
}

/// Where the scope test serves the book.
const BOOK_MOUNT: &str = "/book";

/// A host with the book under `/book/` and pages of its own around it, which link into the
/// book; the book's introduction links back to the host's home page (`/`), out of its scope.
/// `/bookshelf.html` shares the book's prefix without being under `/book/`.
fn host_with_the_book() -> Site {
    let host = Site::new()
        .page(
            "/",
            concat!(
                r#"<a href="/book/">Handbook</a> <a href="/blog/">Blog</a> "#,
                r#"<a href="/bookshelf.html">Bookshelf</a>"#
            ),
        )
        .page(
            "/blog/",
            r#"<a href="/">Home</a> <a href="/book/guide/workers.html">About workers</a>"#,
        )
        .page("/bookshelf.html", r#"<a href="/">Home</a>"#);
    MDBOOK
        .deployed(DEPLOYED)
        .mounted_at(BOOK_MOUNT)
        .add_to(host)
}

#[test]
fn a_seed_typed_without_its_trailing_slash_maps_the_book_under_it_alone() {
    let server = host_with_the_book().serve();
    let out = tempfile::tempdir().unwrap();
    let seed = server.url(BOOK_MOUNT);
    let run = crawl(&seed, out.path(), &["--render", "never"]);
    run.assert_success();
    assert_eq!(
        listed_urls(out.path()),
        MDBOOK.expected_urls(&server, BOOK_MOUNT),
        "the book's chapters, nothing of the host around it\n{}",
        run.stderr
    );
    let first_line = run.stderr.lines().next().unwrap_or_default();
    let scope = format!("Scope: {}{BOOK_MOUNT}/ and below", server.origin());
    assert!(
        first_line.contains(&scope),
        "the first line states the scope the redirect set ({scope}):\n{}",
        run.stderr
    );
}
