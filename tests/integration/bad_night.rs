//! A bad night never makes a worse sitemap (docs/design.md, Fetching and politeness; Output):
//! nightly runs over one crawl database and one output directory against a site that has a
//! bad night. A URL the last complete run listed that fails in a way that may pass stays
//! listed, the pages behind it are still visited, nothing reports it removed until it has
//! failed `--keep-failed` runs in a row; a definitive answer acts at once; a run that would
//! lose most of the sitemap, or whose requests mostly failed, publishes nothing and exits 7.

use std::collections::BTreeSet;
use std::path::Path;

use crate::fixture::{Route, Server, Site};
use crate::harness::{
    Draws, assert_one_line_error, crawl, lastmods, listed_urls, sitemapper, summary_json,
};
use crate::schema::assert_all_valid;

/// The exit status of a run that published nothing so as not to make the sitemap worse.
const NOT_PUBLISHED: i32 = 7;

const MODIFIED: &str = "Tue, 02 Jan 2024 03:04:05 GMT";

fn links_to(paths: &[&str]) -> String {
    paths
        .iter()
        .map(|path| format!("<a href=\"{path}\">{path}</a>"))
        .collect()
}

/// A dated page: its lastmod shows whether the entry is the one a run kept.
fn dated(body: &str) -> Route {
    Route::html(body).header("Last-Modified", MODIFIED)
}

/// A home page, an about page, and a docs section whose three pages only the section links
/// to; `changed` replaces the answer of some paths.
fn docs_site(changed: &[(&str, Route)]) -> Site {
    let mut routes = vec![
        ("/", dated(&links_to(&["/about", "/docs/"]))),
        ("/about", dated("<p>about</p>")),
        (
            "/docs/",
            dated(&links_to(&["/docs/a", "/docs/b", "/docs/c"])),
        ),
        ("/docs/a", dated("<p>a</p>")),
        ("/docs/b", dated("<p>b</p>")),
        ("/docs/c", dated("<p>c</p>")),
    ];
    for (path, route) in changed {
        let slot = routes
            .iter_mut()
            .find(|(known, _)| known == path)
            .unwrap_or_else(|| panic!("{path} is not a page of the site"));
        slot.1 = route.clone();
    }
    routes
        .into_iter()
        .fold(Site::new(), |site, (path, route)| site.route(path, route))
}

/// One night's run: `--state`, `--report-changes`, as the README's nightly line (no retry
/// unless `extra` asks for them).
fn night(server: &Server, out: &Path, state: &Path, extra: &[&str]) -> crate::harness::Run {
    let report = out.with_extension("changes.json");
    let seed = server.url("/");
    let mut args = vec![
        "crawl",
        &seed,
        "--out",
        out.to_str().unwrap(),
        "--state",
        state.to_str().unwrap(),
        "--report-changes",
        report.to_str().unwrap(),
    ];
    if !extra.contains(&"--retries") {
        args.extend(["--retries", "0"]);
    }
    args.extend_from_slice(extra);
    sitemapper(&args)
}

/// The change report the last night wrote beside `out`: (added, removed, changed).
fn changes(out: &Path) -> (Vec<String>, Vec<String>, Vec<String>) {
    let report = out.with_extension("changes.json");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(report).unwrap()).unwrap();
    let urls = |key: &str| -> Vec<String> {
        json[key]
            .as_array()
            .unwrap_or_else(|| panic!("{key} in {json}"))
            .iter()
            .map(|url| url.as_str().unwrap().to_string())
            .collect()
    };
    (urls("added"), urls("removed"), urls("changed"))
}

fn urls(server: &Server, paths: &[&str]) -> BTreeSet<String> {
    paths.iter().map(|path| server.url(path)).collect()
}

const EVERY_PAGE: [&str; 6] = ["/", "/about", "/docs/", "/docs/a", "/docs/b", "/docs/c"];

#[test]
fn a_night_of_503s_on_a_section_page_keeps_the_section_and_the_pages_behind_it() {
    let server = docs_site(&[]).serve();
    let directory = tempfile::tempdir().unwrap();
    let out = directory.path().join("out");
    let state = directory.path().join("crawl.db");
    night(&server, &out, &state, &[]).assert_success();
    let before = std::fs::read(out.join("sitemap.xml")).unwrap();
    let lastmods_before = lastmods(&out);

    server.change(docs_site(&[(
        "/docs/",
        Route::new(503, "deploying").header("Retry-After", "0"),
    )]));
    let run = night(&server, &out, &state, &["--summary", "json"]);

    let summary = summary_json(&run);
    assert_eq!(listed_urls(&out), urls(&server, &EVERY_PAGE));
    assert_eq!(
        lastmods(&out),
        lastmods_before,
        "the kept entries are as they were"
    );
    assert_eq!(std::fs::read(out.join("sitemap.xml")).unwrap(), before);
    assert_eq!(changes(&out), (vec![], vec![], vec![]));
    for path in ["/docs/a", "/docs/b", "/docs/c"] {
        let target = path.to_string();
        assert!(
            server
                .targets()
                .iter()
                .filter(|seen| **seen == target)
                .count()
                == 2,
            "{path} is visited again through the links recorded for /docs/"
        );
    }
    assert_eq!(summary["kept"]["urls"], 1, "{summary}");
    assert_eq!(summary["kept"]["from_run"], 1, "{summary}");
    assert_eq!(summary["kept"]["causes"]["503"], 1, "{summary}");
    assert_eq!(summary["kept"]["dropped"], 0, "{summary}");

    // The text summary says so, and `runs` records no removal.
    let run = night(&server, &out, &state, &[]);
    run.assert_success();
    assert!(
        run.stderr
            .contains("Kept 1 URL from run #2 that failed this time (503: 1)."),
        "{}",
        run.stderr
    );
    assert_eq!(changes(&out), (vec![], vec![], vec![]));
    let runs = sitemapper(&["runs", "--state", state.to_str().unwrap()]);
    runs.assert_success();
    assert_all_valid(&out);
}

#[test]
fn a_410_removes_its_page_alone() {
    let server = docs_site(&[]).serve();
    let directory = tempfile::tempdir().unwrap();
    let out = directory.path().join("out");
    let state = directory.path().join("crawl.db");
    night(&server, &out, &state, &[]).assert_success();

    server.change(docs_site(&[("/docs/b", Route::new(410, "gone"))]));
    let run = night(&server, &out, &state, &[]);

    run.assert_success();
    let mut expected = urls(&server, &EVERY_PAGE);
    expected.remove(&server.url("/docs/b"));
    assert_eq!(listed_urls(&out), expected);
    assert_eq!(changes(&out), (vec![], vec![server.url("/docs/b")], vec![]));
    assert!(!run.stderr.contains("Kept"), "{}", run.stderr);
}

#[test]
fn keep_failed_drops_a_url_after_n_nights_and_says_why() {
    let server = docs_site(&[]).serve();
    let directory = tempfile::tempdir().unwrap();
    let out = directory.path().join("out");
    let state = directory.path().join("crawl.db");
    night(&server, &out, &state, &["--keep-failed", "2"]).assert_success();
    server.change(docs_site(&[("/docs/c", Route::new(500, "broken"))]));

    for kept_night in 1..=2 {
        let run = night(&server, &out, &state, &["--keep-failed", "2"]);
        run.assert_success();
        assert_eq!(
            listed_urls(&out),
            urls(&server, &EVERY_PAGE),
            "night {kept_night}"
        );
        assert_eq!(
            changes(&out),
            (vec![], vec![], vec![]),
            "night {kept_night}"
        );
        assert!(run.stderr.contains("(500: 1)."), "{}", run.stderr);
    }
    let run = night(&server, &out, &state, &["--keep-failed", "2"]);

    run.assert_success();
    assert!(!listed_urls(&out).contains(&server.url("/docs/c")));
    assert_eq!(changes(&out), (vec![], vec![server.url("/docs/c")], vec![]));
    assert!(
        run.stderr.contains(
            "Dropped 1 URL that failed more than 2 runs in a row (--keep-failed), reported removed (500: 1)."
        ),
        "{}",
        run.stderr
    );

    // Back the next night: listed again, and reported added.
    server.change(docs_site(&[]));
    night(&server, &out, &state, &["--keep-failed", "2"]).assert_success();
    assert_eq!(listed_urls(&out), urls(&server, &EVERY_PAGE));
    assert_eq!(changes(&out), (vec![server.url("/docs/c")], vec![], vec![]));
}

/// A shop whose home page links to a catalogue of 20 products; `menu` says whether it does.
fn shop(menu: bool) -> Site {
    let products: Vec<String> = (1..=20).map(|n| format!("/product-{n}")).collect();
    let product_paths: Vec<&str> = products.iter().map(String::as_str).collect();
    let home = if menu {
        links_to(&product_paths)
    } else {
        "<p>Our catalogue is loading...</p>".to_string()
    };
    products.iter().fold(
        Site::new().page("/", &home).page("/about", "<p>about</p>"),
        |site, path| site.page(path, &format!("<p>{path}</p><a href=\"/about\">about</a>")),
    )
}

#[test]
fn a_run_that_would_lose_most_of_the_sitemap_publishes_nothing_with_and_without_state() {
    for with_state in [true, false] {
        let server = shop(true).serve();
        let directory = tempfile::tempdir().unwrap();
        let out = directory.path().join("out");
        let state = directory.path().join("crawl.db");
        let state_flags: Vec<&str> = if with_state {
            vec!["--state", state.to_str().unwrap()]
        } else {
            Vec::new()
        };
        crawl(&server.url("/"), &out, &state_flags).assert_success();
        let before = std::fs::read(out.join("sitemap.xml")).unwrap();

        // A deploy breaks the menu: the products are there, but nothing links to them.
        server.change(shop(false));
        let run = crawl(&server.url("/"), &out, &state_flags);

        assert_eq!(run.code, NOT_PUBLISHED, "{}", run.stderr);
        assert_one_line_error(&run.stderr);
        assert!(
            run.stderr.contains(
                "not published: 21 of 22 URLs would go (21 were not found this time); --max-shrink 100 publishes anyway"
            ),
            "{}",
            run.stderr
        );
        assert!(run.stderr.contains("left as it was"), "{}", run.stderr);
        assert_eq!(std::fs::read(out.join("sitemap.xml")).unwrap(), before);

        // The operator who means it says so.
        let mut flags = state_flags.clone();
        flags.extend(["--max-shrink", "100%"]);
        crawl(&server.url("/"), &out, &flags).assert_success();
        assert_eq!(listed_urls(&out), urls(&server, &["/"]));
    }
}

#[test]
fn a_small_loss_within_max_shrink_publishes() {
    let server = shop(true).serve();
    let directory = tempfile::tempdir().unwrap();
    let out = directory.path().join("out");
    crawl(&server.url("/"), &out, &[]).assert_success();
    // Two products go (404): fewer than 10 URLs, which even --max-shrink 0 lets through.
    let mut site = shop(true);
    for gone in ["/product-3", "/product-4"] {
        site = site.route(gone, Route::new(404, "gone"));
    }
    server.change(site);

    crawl(&server.url("/"), &out, &["--max-shrink", "0"]).assert_success();

    assert_eq!(listed_urls(&out).len(), 20);
}

#[test]
fn a_run_whose_requests_mostly_failed_is_a_failed_run_not_a_small_sitemap() {
    let server = shop(true).serve();
    let directory = tempfile::tempdir().unwrap();
    let out = directory.path().join("out");
    crawl(&server.url("/"), &out, &[]).assert_success();
    let before = std::fs::read(out.join("sitemap.xml")).unwrap();
    let mut site = shop(true);
    for n in 1..=15 {
        site = site.route(&format!("/product-{n}"), Route::new(503, "overloaded"));
    }
    server.change(site);

    // No crawl database: nothing to keep, but nothing published either.
    let run = crawl(&server.url("/"), &out, &["--max-shrink", "90"]);

    assert_eq!(run.code, NOT_PUBLISHED, "{}", run.stderr);
    assert_one_line_error(&run.stderr);
    assert!(
        run.stderr
            .contains("not published: 15 of 22 URLs requested failed and may pass (503: 15)"),
        "{}",
        run.stderr
    );
    assert_eq!(std::fs::read(out.join("sitemap.xml")).unwrap(), before);
}

#[test]
fn a_failed_run_leaves_no_output_directory_it_created() {
    let directory = tempfile::tempdir().unwrap();
    let out = directory.path().join("never-published");
    // Nothing listens on port 9 of loopback: the seed is unreachable.
    let run = crawl("http://127.0.0.1:9/", &out, &[]);

    assert_ne!(run.code, 0);
    assert!(
        !out.exists(),
        "the failed run left {} behind",
        out.display()
    );
}

/// True 30 times in 100: the chaos is the same on every run.
fn fails(draws: &mut Draws) -> bool {
    draws.next() % 100 < 30
}

/// A site of 5 sections of 5 pages; on a chaotic night every request (each attempt of each
/// URL, robots.txt and the home page aside) fails with a 5xx or 429 30 times in 100.
fn chaotic_site(night: u64, chaos: bool, extra_page: bool) -> Site {
    let mut draws = Draws(0x5EED_0BAD_0000 + night);
    let failure = |draws: &mut Draws| match draws.next() % 4 {
        0 => Route::new(503, "down for maintenance").header("Retry-After", "0"),
        1 => Route::new(502, "bad gateway"),
        2 => Route::new(500, "error"),
        _ => Route::new(429, "slow down").header("Retry-After", "0"),
    };
    let answer = |draws: &mut Draws, page: Route| -> Vec<Route> {
        if !chaos {
            return vec![page];
        }
        // Four attempts drawn; the last repeats for any further request.
        let mut attempts: Vec<Route> = (0..4)
            .map(|_| {
                if fails(draws) {
                    failure(draws)
                } else {
                    page.clone()
                }
            })
            .collect();
        attempts.push(page);
        attempts
    };
    let sections: Vec<String> = (1..=5).map(|n| format!("/section-{n}/")).collect();
    let section_paths: Vec<&str> = sections.iter().map(String::as_str).collect();
    let mut home = links_to(&section_paths);
    if extra_page {
        home.push_str(&links_to(&["/news"]));
    }
    let mut site = Site::new().route("/", dated(&home));
    if extra_page {
        site = site.sequence("/news", answer(&mut draws, dated("<p>news</p>")));
    }
    for section in &sections {
        let pages: Vec<String> = (1..=5).map(|n| format!("{section}page-{n}")).collect();
        let page_paths: Vec<&str> = pages.iter().map(String::as_str).collect();
        site = site.sequence(section, answer(&mut draws, dated(&links_to(&page_paths))));
        for page in &pages {
            site = site.sequence(page, answer(&mut draws, dated(&format!("<p>{page}</p>"))));
        }
    }
    site
}

#[test]
fn five_nights_of_random_failures_never_drop_a_healthy_page_and_report_only_real_changes() {
    let server = chaotic_site(0, false, false).serve();
    let directory = tempfile::tempdir().unwrap();
    let out = directory.path().join("out");
    let state = directory.path().join("crawl.db");
    let flags = ["--retries", "1", "--concurrency", "4"];
    night(&server, &out, &state, &flags).assert_success();
    let healthy = listed_urls(&out);
    assert_eq!(healthy.len(), 31);
    let mut failures_seen = 0;

    for night_number in 1..=5 {
        // On the third night a real change: a news page appears, and stays.
        let extra_page = night_number >= 3;
        server.change(chaotic_site(night_number, true, extra_page));
        let run = night(&server, &out, &state, &flags);

        run.assert_success();
        let listed = listed_urls(&out);
        let missing: Vec<&String> = healthy.difference(&listed).collect();
        assert!(
            missing.is_empty(),
            "night {night_number} dropped healthy pages {missing:?}\n{}",
            run.stderr
        );
        let (added, removed, changed) = changes(&out);
        assert_eq!(removed, Vec::<String>::new(), "night {night_number}");
        assert_eq!(changed, Vec::<String>::new(), "night {night_number}");
        let news = server.url("/news");
        if night_number == 3 || (night_number > 3 && !added.is_empty()) {
            // The news page is added the first night it answered; never anything else.
            assert!(
                added.iter().all(|url| *url == news),
                "night {night_number}: {added:?}"
            );
        } else {
            assert_eq!(added, Vec::<String>::new(), "night {night_number}");
        }
        if run.stderr.contains("that failed this time") {
            failures_seen += 1;
        }
        assert_all_valid(&out);
    }
    assert!(
        failures_seen >= 3,
        "the chaos kept pages on only {failures_seen} of 5 nights: it tests nothing"
    );
}

#[test]
fn in_a_fleet_a_bad_night_fails_the_site_with_its_cause_and_the_check_reports_it() {
    let server = shop(true).serve();
    let directory = tempfile::tempdir().unwrap();
    let out = directory.path().join("out");
    let fleet = crate::fleet::fleet_file(
        directory.path(),
        &out,
        &[("shop".to_string(), server.url("/"))],
        "",
    );
    sitemapper(&["fleet", "run", &fleet]).assert_success();
    let published = out.join("shop").join("sitemap.xml");
    let before = std::fs::read(&published).unwrap();

    server.change(shop(false));
    let run = sitemapper(&["fleet", "run", &fleet, "--all"]);

    assert_eq!(run.code, 5, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stderr.contains("not published: 21 of 22 URLs would go"),
        "{}",
        run.stderr
    );
    assert_eq!(std::fs::read(&published).unwrap(), before);
    let check = sitemapper(&["fleet", "status", "--check", &fleet]);
    assert_eq!(check.code, 1, "{}{}", check.stdout, check.stderr);
    let lines: Vec<&str> = check.stdout.lines().collect();
    assert_eq!(
        lines[0], "CRITICAL: 1 of 1 site failed or overdue: shop (failed)",
        "{}",
        check.stdout
    );
    assert!(
        lines[1].starts_with("shop: failed at ")
            && lines[1].contains("not published: 21 of 22 URLs would go"),
        "{}",
        lines[1]
    );
}
