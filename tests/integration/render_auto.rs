//! What `--render auto` decides page by page (docs/rendering.md, "What `--render auto`
//! decides"): the kind of page a script builds rendered and the rest read as served, a page
//! that shows it is unfinished rendered for itself, a menu drawn on every page learned after a
//! few renders, and a slow first request waited for.

use sitemapper_store::Rendering;

use crate::fixture::{Route, Site};
use crate::harness::{chromium, crawl, crawl_recorded, crawl_rendered, listed_urls, summary_json};
use crate::render::{SHELL, expected};

/// A site served as pages, with a menu drawn by script on every page (its links lead where
/// the pages' own links lead), and one section, the shop, whose list of items only a script
/// fills in from a JSON endpoint.
fn mixed_site() -> Site {
    let page = |body: &str| {
        format!(
            r#"<!doctype html><html><head><title>Docs</title><script src="/menu.js" defer></script></head>
            <body><site-menu></site-menu><main>{body}</main></body></html>"#
        )
    };
    let menu = r#"document.querySelector('site-menu').innerHTML =
        ['/', '/guide/', '/guide/install', '/about'].map((href) => `<a href="${href}">${href}</a>`).join(' ');"#;
    let shop = r#"<!doctype html><html><head><title>Shop</title><script src="/menu.js" defer></script>
        <script src="/shop.js" defer></script></head>
        <body><site-menu></site-menu><div id="app"></div><a href="/">Home</a></body></html>"#;
    let shop_script = r#"fetch('/api/items.json').then((response) => response.json()).then((items) => {
        document.getElementById('app').innerHTML =
            items.map((id) => `<a href="/shop/item-${id}">Item ${id}</a>`).join(' ');
    });"#;
    Site::new()
        .page(
            "/",
            &page(r#"<a href="/guide/">Guide</a> <a href="/shop/">Shop</a>"#),
        )
        .page("/guide/", &page(r#"<a href="/guide/install">Next</a>"#))
        .page("/guide/install", &page(r#"<a href="/about">Next</a>"#))
        .page("/about", &page(r#"<a href="/">Home</a>"#))
        .route(
            "/menu.js",
            Route::new(200, menu).header("Content-Type", "text/javascript"),
        )
        .page("/shop/", shop)
        .route(
            "/shop.js",
            Route::new(200, shop_script).header("Content-Type", "text/javascript"),
        )
        .route(
            "/api/items.json",
            Route::new(200, "[1, 2, 3]").header("Content-Type", "application/json"),
        )
        .page("/shop/item-1", &page("One"))
        .page("/shop/item-2", &page("Two"))
        .page("/shop/item-3", &page("Three"))
}

#[test]
fn auto_renders_the_section_scripts_build_and_reads_the_rest_as_served() {
    let Some(browser) = chromium() else { return };
    let server = mixed_site().serve();
    let out = tempfile::tempdir().expect("tempdir");
    let state = out.path().join("crawl.db");
    let browser = browser.to_str().expect("utf-8");
    let state_arg = state.to_str().expect("utf-8");
    let run = crawl(
        &server.url("/"),
        out.path(),
        &[
            "--chrome",
            browser,
            "--state",
            state_arg,
            "--summary",
            "json",
        ],
    );
    let summary = summary_json(&run);
    let pages = [
        "/",
        "/guide/",
        "/guide/install",
        "/about",
        "/shop/",
        "/shop/item-1",
        "/shop/item-2",
        "/shop/item-3",
    ];
    assert_eq!(listed_urls(out.path()), expected(&server, &pages));
    let rendering = &summary["rendering"];
    assert_eq!(rendering["found_urls"], 3, "{rendering}");
    assert_eq!(rendering["templates_probed"], 2, "{rendering}");
    assert_eq!(rendering["templates_rendered"], 1, "{rendering}");
    assert_eq!(
        rendering["rendered"], 3,
        "one page for the menu and a second to tell it from the page's own links, one for \
         the shop: {rendering}"
    );
    assert_eq!(rendering["templates_confirmed"], 1, "{rendering}");
    let store = sitemapper_store::Store::open(&state).expect("open the crawl database");
    let rendered: Vec<&str> = pages
        .iter()
        .copied()
        .filter(|path| {
            let page = store.page(&server.url(path)).unwrap().unwrap();
            page.rendering.is_some()
        })
        .collect();
    assert_eq!(
        rendered,
        ["/", "/about", "/shop/"],
        "the first page of each kind stands for it, the next in URL order confirms the menu"
    );
    // The menu's links are each page's, read as served or not, and settle the depths.
    let drawn: Vec<String> = store
        .links_of(&server.url("/guide/install"))
        .unwrap()
        .into_iter()
        .filter(|link| link.kind == sitemapper_store::LinkKind::Script)
        .map(|link| link.target)
        .collect();
    assert_eq!(
        drawn,
        [server.url("/"), server.url("/guide/")],
        "not /about, which its HTML links, nor itself"
    );
    let about = store.page(&server.url("/about")).unwrap().unwrap();
    assert_eq!(
        (about.depth, about.referrer),
        (1, Some(server.url("/"))),
        "three clicks as served, one through the menu"
    );
    let shop_requests = server
        .targets()
        .iter()
        .filter(|target| *target == "/shop/")
        .count();
    assert_eq!(
        shop_requests, 1,
        "a page rendered to judge its kind is requested once"
    );
}

/// A site whose pages link to each other in their HTML, one of which, `/tags/`, says
/// "Loading tags…" until its script fetches the tags and draws links to pages nothing else
/// links. Every page loads the same scripts: the site is one template, and no page looks like
/// an application shell.
fn site_with_an_unfinished_page() -> Site {
    let page = |title: &str, body: &str| {
        format!(
            r#"<!doctype html><html><head><title>{title}</title><script src="/runtime.js" defer></script>
            <script src="/main.js" defer></script></head>
            <body><nav><a href="/">Home</a> <a href="/docs/">Docs</a> <a href="/tags/">Tags</a></nav>
            <main>{body}</main></body></html>"#
        )
    };
    let main = r#"const list = document.getElementById('tags');
        if (list) {
          fetch('/tags.json').then((response) => response.json()).then((tags) => {
            list.innerHTML = tags.map((tag) => `<li><a href="/tags/${tag}/">${tag}</a></li>`).join('');
            document.getElementById('status').remove();
          });
        }"#;
    let mut site = Site::new()
        .page("/", &page("Home", "<p>Welcome.</p>"))
        .page(
            "/docs/",
            &page("Docs", r#"<a href="/docs/install/">Install</a>"#),
        )
        .page("/docs/install/", &page("Install", "<p>Steps.</p>"))
        .page(
            "/tags/",
            &page(
                "Tags",
                r#"<p id="status">Loading tags…</p><ul id="tags"><li hidden></li></ul>"#,
            ),
        )
        .route(
            "/runtime.js",
            Route::new(200, "window.ready = true;").header("Content-Type", "text/javascript"),
        )
        .route(
            "/main.js",
            Route::new(200, main).header("Content-Type", "text/javascript"),
        )
        .route(
            "/tags.json",
            Route::new(200, r#"["rust", "web", "cli"]"#).header("Content-Type", "application/json"),
        );
    for tag in ["rust", "web", "cli"] {
        site = site.page(&format!("/tags/{tag}/"), &page(tag, "<p>Posts.</p>"));
    }
    site
}

#[test]
fn a_page_that_shows_it_is_unfinished_is_rendered_and_its_links_listed() {
    let Some(browser) = chromium() else { return };
    let server = site_with_an_unfinished_page().serve();
    let (out, run, summary) = crawl_rendered(&server, &browser);
    let pages = [
        "/",
        "/docs/",
        "/docs/install/",
        "/tags/",
        "/tags/rust/",
        "/tags/web/",
        "/tags/cli/",
    ];
    assert_eq!(
        listed_urls(out.path()),
        expected(&server, &pages),
        "{}",
        run.stderr
    );
    let rendering = &summary["rendering"];
    assert_eq!(rendering["found_urls"], 3, "{rendering}");
    assert_eq!(rendering["unfinished_rendered"], 1, "{rendering}");
    assert_eq!(
        rendering["templates_probed"], 0,
        "no page looks like a shell: {rendering}"
    );
    assert_eq!(
        rendering["rendered"], 1,
        "the unfinished page alone: {rendering}"
    );
}

/// A site of `pages` pages whose menu a script draws on every page from a JSON index, into an
/// empty `<nav id="menu">`: the menu leads to the sections, which nothing else links.
fn site_with_a_scripted_menu(pages: usize) -> Site {
    let page = |title: &str, body: &str| {
        format!(
            r#"<!doctype html><html><head><title>{title}</title><script src="/js/menu.js" defer></script></head>
            <body><nav id="menu"></nav><main>{body}</main></body></html>"#
        )
    };
    let menu = r#"fetch('/index.json').then((response) => response.json()).then((index) => {
        document.getElementById('menu').innerHTML =
          index.map((entry) => `<a href="${entry}">${entry}</a>`).join(' ');
      });"#;
    let sections = ["/posts/", "/tags/", "/categories/"];
    let index = format!(
        "[{}]",
        sections
            .iter()
            .map(|section| format!("\"{section}\""))
            .collect::<Vec<_>>()
            .join(",")
    );
    let mut site = Site::new()
        .route(
            "/js/menu.js",
            Route::new(200, menu).header("Content-Type", "text/javascript"),
        )
        .route(
            "/index.json",
            Route::new(200, &index).header("Content-Type", "application/json"),
        );
    for section in sections {
        site = site.page(section, &page(section, r#"<a href="/">Home</a>"#));
    }
    for number in 0..pages {
        let next = (number + 1) % pages;
        let path = if number == 0 {
            "/".to_string()
        } else {
            format!("/page/{number}")
        };
        let next = if next == 0 {
            "/".to_string()
        } else {
            format!("/page/{next}")
        };
        site = site.page(
            &path,
            &page("Page", &format!(r#"<a href="{next}">Next</a>"#)),
        );
    }
    site
}

#[test]
fn a_menu_a_script_draws_on_every_page_is_learned_after_a_few_renders() {
    let Some(browser) = chromium() else { return };
    let pages = 30;
    let server = site_with_a_scripted_menu(pages).serve();
    let (out, run, summary) = crawl_rendered(&server, &browser);
    let mut paths: Vec<String> = (1..pages).map(|number| format!("/page/{number}")).collect();
    paths.extend(["/", "/posts/", "/tags/", "/categories/"].map(String::from));
    let paths: Vec<&str> = paths.iter().map(String::as_str).collect();
    assert_eq!(
        listed_urls(out.path()),
        expected(&server, &paths),
        "{}",
        run.stderr
    );
    let rendering = &summary["rendering"];
    assert_eq!(
        rendering["found_urls"], 3,
        "the three sections: {rendering}"
    );
    assert_eq!(rendering["templates_learned"], 1, "{rendering}");
    let rendered = rendering["rendered"].as_u64().expect("rendering.rendered");
    // The probe, then RENDERS_TO_LEARN renders that add nothing new, and those the two tabs
    // had begun meanwhile; not one render per page.
    let most = 1 + u64::from(sitemapper_crawl::RENDERS_TO_LEARN) + 2;
    assert!(
        rendered <= most,
        "{rendered} of {} pages rendered, at most {most} expected: {rendering}",
        pages + 3
    );
    eprintln!("rendered {rendered} of {} pages", pages + 3);
}

/// An application whose home page draws its links from `/api/slow.json`, which the server
/// answers after 5 s: more than a long poll's 3 s, less than the render timeout. Other pages
/// of the application ask for nothing and draw nothing.
const SLOW_APP: &str = r#"(async () => {
  if (location.pathname !== '/') return;
  const pages = await (await fetch('/api/slow.json')).json();
  document.getElementById('root').innerHTML =
    pages.map((href) => `<a href="${href}">${href}</a>`).join(' ');
})();"#;

#[test]
fn a_slow_first_request_is_waited_for_until_the_render_timeout() {
    let Some(browser) = chromium() else { return };
    let server = Site::new()
        .route("/robots.txt", Route::new(404, "Not found"))
        .route(
            "/app.js",
            Route::new(200, SLOW_APP).header("Content-Type", "text/javascript"),
        )
        .route(
            "/api/slow.json",
            Route::new(200, r#"["/drawn-late/1", "/drawn-late/2"]"#)
                .header("Content-Type", "application/json")
                .delay(std::time::Duration::from_secs(5)),
        )
        .generated(|_| Some(Route::html(SHELL)))
        .serve();
    let out = tempfile::tempdir().expect("tempdir");
    // The default --render auto and --render-timeout 10.
    let (run, store) = crawl_recorded(
        &server.url("/"),
        out.path(),
        &["--chrome", browser.to_str().expect("utf-8")],
    );
    run.assert_success();
    assert_eq!(
        listed_urls(out.path()),
        expected(&server, &["/", "/drawn-late/1", "/drawn-late/2"]),
        "{}",
        run.stderr
    );
    let home = store.page(&server.url("/")).unwrap().unwrap();
    assert_eq!(home.rendering, Some(Rendering::Rendered));
}
