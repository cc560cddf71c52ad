//! Sites built by real static site generators (mdBook, MkDocs Material, VitePress, Hugo,
//! Jekyll, Next.js, Docusaurus, Astro Starlight, Sphinx with furo, Eleventy, SvelteKit;
//! tests/fixtures/generated/), crawled as served by nginx: the
//! listing is exactly the pages a search engine should index, read as served and with
//! `--render auto`, and a redeploy that re-dates every file moves no `<lastmod>`. Where a
//! site's script draws links its HTML does not hold, reading it as served lists exactly the
//! pages its HTML reaches (served.txt), the pages only the script links are named, and
//! rendering every page lists them all.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::Instant;

use jiff::Timestamp;

use crate::audit::csv_rows;
use crate::fixture::{Server, Site};
use crate::harness::{
    chromium, crawl, lastmods, listed_urls, read_sitemap, sitemapper, summary_json,
};
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
const NEXTJS: Generated = Generated {
    name: "nextjs",
    built_for: Some("https://harbor.example.com"),
};
const HUGO_MENU: Generated = Generated {
    name: "hugo-menu",
    built_for: Some("https://pantry.example.com/"),
};
const DOCUSAURUS: Generated = Generated {
    name: "docusaurus",
    built_for: Some("https://compass-docs.example.com"),
};
const STARLIGHT: Generated = Generated {
    name: "starlight",
    built_for: Some("https://beacon-docs.example.com"),
};
const SPHINX: Generated = Generated {
    name: "sphinx",
    built_for: Some("https://tidewater-docs.example.com/"),
};
const ELEVENTY: Generated = Generated {
    name: "eleventy",
    built_for: Some("https://fieldnotes.example.com"),
};
const SVELTEKIT: Generated = Generated {
    name: "sveltekit",
    built_for: Some("https://orchard.example.com"),
};

/// The Next.js export's tag pages: the client component of `/tags/` links them once it has
/// fetched `/tags.json`; its HTML as served shows "Loading tags…" instead.
const NEXTJS_SCRIPT_ONLY: [&str; 6] = [
    "/tags/announcements/",
    "/tags/caching/",
    "/tags/configuration/",
    "/tags/deploys/",
    "/tags/performance/",
    "/tags/releases/",
];

/// The Hugo site's section lists, taxonomy lists and terms: only the menu that `/js/menu.js`
/// draws from `/index.json` into every page's empty `<nav id="menu">` links them.
const HUGO_MENU_SCRIPT_ONLY: [&str; 12] = [
    "/categories/",
    "/categories/baking/",
    "/categories/basics/",
    "/categories/cooking/",
    "/guides/",
    "/notes/",
    "/recipes/",
    "/tags/",
    "/tags/bread/",
    "/tags/quick/",
    "/tags/soup/",
    "/tags/storage/",
];

/// The most pages `--render auto` may render on the Hugo site whose every page loads the same
/// menu script: the menu is the same everywhere, so a few renders find all of its links.
const HUGO_MENU_MAX_RENDERED_PAGES: u64 = 6;

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
        self.paths("expected.txt")
    }

    /// The paths of `list` (expected.txt, served.txt), relative to the site's root.
    fn paths(self, list: &str) -> Vec<String> {
        let file = self.directory().join(list);
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

    /// The URLs the site's HTML as served reaches from `/`, running no script (served.txt).
    fn served_urls(self, server: &Server) -> BTreeSet<String> {
        self.paths("served.txt")
            .iter()
            .map(|path| server.url(path))
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

/// Crawls a site whose script draws links its HTML does not hold, read as served: exactly
/// the pages its HTML reaches (served.txt), which are expected.txt without `script_only`.
fn assert_read_as_served_lists_exactly_what_its_html_reaches(
    generated: Generated,
    script_only: &[&str],
) {
    let server = generated.deployed(DEPLOYED).site().serve();
    let served = generated.served_urls(&server);
    let script_only: BTreeSet<String> = script_only.iter().map(|path| server.url(path)).collect();
    let expected = generated.expected_urls(&server, "");
    assert_eq!(
        expected
            .difference(&served)
            .cloned()
            .collect::<BTreeSet<_>>(),
        script_only,
        "{}: served.txt is expected.txt without the pages only a script links",
        generated.name
    );
    assert!(
        served.is_subset(&expected),
        "{}: served.txt names a page that expected.txt does not",
        generated.name
    );

    let out = tempfile::tempdir().unwrap();
    let run = crawl(&server.url("/"), out.path(), &["--render", "never"]);
    run.assert_success();
    assert_eq!(
        listed_urls(out.path()),
        served,
        "{} read as served: its HTML's pages, none that only a script links\n{}",
        generated.name,
        run.stderr
    );
    assert_all_valid(out.path());
}

/// Crawls the whole site with `--render auto` and the installed browser, and asserts that it
/// lists exactly expected.txt; returns the summary's `rendering`, or `None` when no browser
/// is installed.
/// Returns the summary's `rendering` and what the crawl said on stderr, with `-v`.
fn assert_auto_lists_exactly_its_pages(
    generated: Generated,
) -> Option<(serde_json::Value, String)> {
    let browser = chromium()?;
    let server = generated.deployed(DEPLOYED).site().serve();
    let out = tempfile::tempdir().unwrap();
    let browser = browser.to_str().expect("a UTF-8 path");
    let started = Instant::now();
    let run = crawl(
        &server.url("/"),
        out.path(),
        &["--chrome", browser, "--summary", "json", "-v"],
    );
    let elapsed = started.elapsed();
    let summary = summary_json(&run);
    let rendering = summary["rendering"].clone();
    eprintln!(
        "{}: rendered {} of {} HTML pages ({} timed out, {} failed), decision {}, browser \
         started {}, found {} URLs, in {elapsed:.1?}",
        generated.name,
        rendering["rendered"],
        rendering["html_pages"],
        rendering["timed_out"],
        rendering["failed"],
        rendering["decision"],
        rendering["browser_started"],
        rendering["found_urls"],
    );
    let listed = listed_urls(out.path());
    let expected = generated.expected_urls(&server, "");
    assert_eq!(
        listed,
        expected,
        "{} with --render auto: missing {:?}, unexpected {:?}\n{}",
        generated.name,
        expected.difference(&listed).collect::<Vec<_>>(),
        listed.difference(&expected).collect::<Vec<_>>(),
        run.stderr
    );
    assert_all_valid(out.path());
    // A browser that could not start would make "few pages rendered" true for nothing.
    assert!(
        rendering["unavailable"].is_null(),
        "the browser could not render: {}",
        rendering["unavailable"]
    );
    Some((rendering, run.stderr))
}

/// Crawls the whole site rendering every page (`--render always`) with the installed browser:
/// exactly expected.txt, which shows that what a script draws is there to be found.
fn assert_always_lists_exactly_its_pages(generated: Generated) {
    let Some(browser) = chromium() else { return };
    let server = generated.deployed(DEPLOYED).site().serve();
    let out = tempfile::tempdir().unwrap();
    let browser = browser.to_str().expect("a UTF-8 path");
    let run = crawl(
        &server.url("/"),
        out.path(),
        &["--chrome", browser, "--render", "always"],
    );
    run.assert_success();
    assert_eq!(
        listed_urls(out.path()),
        generated.expected_urls(&server, ""),
        "{} with --render always\n{}",
        generated.name,
        run.stderr
    );
    assert_all_valid(out.path());
}

/// The pages `--render auto` rendered, from the summary's `rendering`.
fn rendered_pages(rendering: &serde_json::Value) -> u64 {
    rendering["rendered"].as_u64().expect("rendering.rendered")
}

/// Crawls the whole site with `--render auto` and the installed browser: the same listing,
/// and at most [`MAX_RENDERED_PAGES`] pages rendered.
fn assert_auto_lists_exactly_its_pages_and_renders_few(generated: Generated) {
    let Some((rendering, stderr)) = assert_auto_lists_exactly_its_pages(generated) else {
        return;
    };
    let rendered = rendered_pages(&rendering);
    assert_eq!(
        rendering["found_urls"], 0,
        "{}: rendering found URLs the HTML does not link to\n{stderr}",
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
fn docusaurus_read_as_served_lists_exactly_its_pages() {
    // Rendered on the server: the navbar, the docs sidebar and the blog's links are in the HTML.
    assert_read_as_served_lists_exactly_its_pages(DOCUSAURUS);
}

#[test]
fn starlight_read_as_served_lists_exactly_its_pages() {
    // Rendered by Astro: the sidebar's groups and the pages' links are in the HTML.
    assert_read_as_served_lists_exactly_its_pages(STARLIGHT);
}

#[test]
fn sphinx_furo_read_as_served_lists_exactly_its_pages() {
    // `/` is `index.html`, whose canonical names `/index.html`.
    assert_read_as_served_lists_exactly_its_pages(SPHINX);
}

#[test]
fn eleventy_read_as_served_lists_exactly_its_pages() {
    assert_read_as_served_lists_exactly_its_pages(ELEVENTY);
}

#[test]
fn sveltekit_read_as_served_lists_exactly_its_pages() {
    // Prerendered: the links its client-side router follows are in the HTML.
    assert_read_as_served_lists_exactly_its_pages(SVELTEKIT);
}

#[test]
fn nextjs_read_as_served_lists_its_html_pages_but_not_the_tags_its_script_draws() {
    assert_read_as_served_lists_exactly_what_its_html_reaches(NEXTJS, &NEXTJS_SCRIPT_ONLY);
}

#[test]
fn hugo_menu_read_as_served_lists_its_html_pages_but_not_the_menus_sections_and_terms() {
    assert_read_as_served_lists_exactly_what_its_html_reaches(HUGO_MENU, &HUGO_MENU_SCRIPT_ONLY);
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

#[test]
fn docusaurus_with_render_auto_lists_exactly_its_pages_and_renders_few() {
    assert_auto_lists_exactly_its_pages_and_renders_few(DOCUSAURUS);
}

#[test]
fn starlight_with_render_auto_lists_exactly_its_pages_and_renders_few() {
    assert_auto_lists_exactly_its_pages_and_renders_few(STARLIGHT);
}

#[test]
fn sphinx_furo_with_render_auto_lists_exactly_its_pages_and_renders_few() {
    assert_auto_lists_exactly_its_pages_and_renders_few(SPHINX);
}

#[test]
fn eleventy_with_render_auto_lists_exactly_its_pages_and_renders_few() {
    assert_auto_lists_exactly_its_pages_and_renders_few(ELEVENTY);
}

#[test]
fn sveltekit_with_render_auto_lists_exactly_its_pages_and_renders_few() {
    assert_auto_lists_exactly_its_pages_and_renders_few(SVELTEKIT);
}

#[test]
fn nextjs_rendering_every_page_lists_the_tag_pages_its_script_draws() {
    assert_always_lists_exactly_its_pages(NEXTJS);
}

#[test]
fn hugo_menu_rendering_every_page_lists_the_menus_sections_and_terms() {
    assert_always_lists_exactly_its_pages(HUGO_MENU);
}

#[test]
fn nextjs_with_render_auto_lists_the_tag_pages_its_script_draws() {
    // Only `/tags/` differs from its HTML once rendered; listing its tags needs that page
    // rendered, whichever pages besides it are.
    assert_auto_lists_exactly_its_pages(NEXTJS);
}

#[test]
fn hugo_menu_with_render_auto_lists_the_menus_pages_and_renders_few() {
    let Some((rendering, _)) = assert_auto_lists_exactly_its_pages(HUGO_MENU) else {
        return;
    };
    let rendered = rendered_pages(&rendering);
    assert!(
        rendered <= HUGO_MENU_MAX_RENDERED_PAGES,
        "hugo-menu: --render auto rendered {rendered} of {} HTML pages (at most \
         {HUGO_MENU_MAX_RENDERED_PAGES} expected: every page draws the same menu); decision {}",
        rendering["html_pages"],
        rendering["decision"],
    );
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

/// An audit of `server`'s site with `--render RENDER` and the installed browser, the links to
/// other sites not checked (no request leaves the machine).
fn audit_generated(server: &Server, render: &str, browser: &Path) -> tempfile::TempDir {
    let report = tempfile::tempdir().unwrap();
    let seed = server.url("/");
    let args = [
        "audit",
        &seed,
        "--report",
        report.path().to_str().unwrap(),
        "--check-external=false",
        "--render",
        render,
        "--chrome",
        browser.to_str().unwrap(),
    ];
    sitemapper(&args).assert_success();
    report
}

/// The depth of every page of an audit's pages.csv, by path.
fn audited_depths(report: &Path, server: &Server) -> BTreeMap<String, u32> {
    csv_rows(&report.join("pages.csv"))
        .into_iter()
        .map(|row| {
            let path = row["url"].trim_start_matches(&server.origin()).to_string();
            (path, row["depth"].parse().unwrap())
        })
        .collect()
}

/// The kinds of the findings of an audit's findings.csv.
fn finding_kinds(report: &Path) -> BTreeSet<String> {
    csv_rows(&report.join("findings.csv"))
        .into_iter()
        .map(|row| row["kind"].clone())
        .collect()
}

#[test]
fn mdbook_audit_counts_the_sidebar_its_script_draws_every_chapter_one_click_deep() {
    let Some(browser) = chromium() else {
        return;
    };
    let server = MDBOOK.deployed(DEPLOYED).site().serve();
    // As served, the chapters are reached through the table of contents and from one
    // chapter to the next: up to 5 clicks deep.
    let served = audit_generated(&server, "never", &browser);
    let depths = audited_depths(served.path(), &server);
    assert!(
        depths.values().any(|depth| *depth >= 4),
        "as served: {depths:?}"
    );
    assert!(finding_kinds(served.path()).contains("too-deep"));

    let rendered = audit_generated(&server, "auto", &browser);
    let depths = audited_depths(rendered.path(), &server);
    assert_eq!(
        depths.len(),
        MDBOOK.expected_paths().len() + 1,
        "{depths:?}"
    );
    for (path, depth) in &depths {
        let expected = u32::from(path != "/");
        assert_eq!(
            *depth, expected,
            "{path}: the sidebar links it from every page"
        );
    }
    assert!(!finding_kinds(rendered.path()).contains("too-deep"));
    let links = csv_rows(&rendered.path().join("links.csv"));
    let path = |url: &str| url.trim_start_matches(&server.origin()).to_string();
    let source = "/guide/workers.html";
    let of_source = |kind: &str| -> BTreeSet<String> {
        links
            .iter()
            .filter(|link| path(&link["source"]) == source && link["kind"] == kind)
            .map(|link| path(&link["target"]))
            .collect()
    };
    let (anchors, drawn) = (of_source("a"), of_source("script"));
    assert!(!drawn.is_empty(), "{source} was read as served");
    assert!(
        anchors.is_disjoint(&drawn),
        "a link its HTML has is not drawn"
    );
    // The start page is the introduction's copy: the sidebar names the introduction.
    for chapter in MDBOOK
        .expected_paths()
        .into_iter()
        .filter(|path| path != "/")
    {
        assert!(
            chapter == source || anchors.contains(&chapter) || drawn.contains(&chapter),
            "{source} links {chapter} through the sidebar its script draws"
        );
    }
    assert!(!drawn.contains(source), "no page links itself");
}

#[test]
fn mdbook_priority_by_depth_counts_the_sidebar_its_script_draws() {
    let Some(browser) = chromium() else {
        return;
    };
    let server = MDBOOK.deployed(DEPLOYED).site().serve();
    let browser = browser.to_str().unwrap();
    let priorities = |render: &str| -> BTreeMap<String, usize> {
        let out = tempfile::tempdir().unwrap();
        let args = [
            "--chrome",
            browser,
            "--priority",
            "depth",
            "--render",
            render,
        ];
        crawl(&server.url("/"), out.path(), &args).assert_success();
        assert_all_valid(out.path());
        let xml = read_sitemap(&out.path().join("sitemap.xml"));
        let mut priorities = BTreeMap::new();
        for entry in xml.split("<url>").skip(1) {
            let priority = entry.split("<priority>").nth(1).unwrap();
            let priority = &priority[..priority.find('<').unwrap()];
            *priorities.entry(priority.to_string()).or_default() += 1;
        }
        priorities
    };
    let served = priorities("never");
    assert!(served.len() > 3, "1 to 5 clicks deep as served: {served:?}");
    let chapters = MDBOOK.expected_paths().len() - 1;
    assert_eq!(
        priorities("auto"),
        BTreeMap::from([("0.80".to_string(), chapters), ("1.00".to_string(), 1)]),
        "every chapter one click from the start page's sidebar"
    );
}
