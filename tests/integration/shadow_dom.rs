//! Links inside shadow roots: a menu made of web components (custom elements that attach a
//! shadow root), built by script and read from the rendered DOM, or written in the HTML as a
//! declarative shadow root (`<template shadowrootmode>`), which the browser shows.

use std::collections::BTreeSet;

use crate::fixture::{Route, Server, Site};
use crate::harness::{chromium, crawl, crawl_rendered, listed_urls};

/// `<site-nav>` attaches an open shadow root holding a link and a `<nav-group>`, which
/// attaches an open shadow root of its own holding another; `<private-menu>` attaches a
/// closed one, out of reach of any script but its own.
const COMPONENTS: &str = r#"
customElements.define('nav-group', class extends HTMLElement {
  constructor() {
    super();
    this.attachShadow({ mode: 'open' }).innerHTML = '<a href="/products">Products</a><slot></slot>';
  }
});
customElements.define('site-nav', class extends HTMLElement {
  constructor() {
    super();
    this.attachShadow({ mode: 'open' }).innerHTML =
      '<nav><a href="/about">About</a> <nav-group>More</nav-group></nav>';
  }
});
customElements.define('private-menu', class extends HTMLElement {
  constructor() {
    super();
    this.attachShadow({ mode: 'closed' }).innerHTML = '<a href="/closed">Closed</a>';
  }
});
"#;

fn components_site() -> Site {
    let page = |title: &str| {
        format!(
            r#"<!doctype html><html><head><title>{title}</title><script src="/components.js"></script></head>
            <body><site-nav></site-nav><private-menu></private-menu><main>{title}</main></body></html>"#
        )
    };
    Site::new()
        .route(
            "/components.js",
            Route::new(200, COMPONENTS).header("Content-Type", "text/javascript"),
        )
        .page("/", &page("Home"))
        .page("/about", &page("About"))
        .page("/products", &page("Products"))
        .page("/closed", &page("Closed"))
}

fn expected(server: &Server, paths: &[&str]) -> BTreeSet<String> {
    paths.iter().map(|path| server.url(path)).collect()
}

#[test]
fn links_in_open_shadow_roots_are_read_from_the_rendered_dom() {
    let Some(browser) = chromium() else { return };
    let browser = browser.to_str().expect("utf-8");
    for mode in ["always", "auto"] {
        let server = components_site().serve();
        let out = tempfile::tempdir().expect("tempdir");
        let run = crawl(
            &server.url("/"),
            out.path(),
            &["--chrome", browser, "--render", mode],
        );
        run.assert_success();
        assert_eq!(
            listed_urls(out.path()),
            expected(&server, &["/", "/about", "/products"]),
            "--render {mode}: a closed shadow root cannot be read, an open one can however deep\n{}",
            run.stderr
        );
    }
}

#[test]
fn a_declarative_shadow_root_as_served_is_read_and_no_shell() {
    let Some(browser) = chromium() else { return };
    let home = r#"<!doctype html><html><head><title>Home</title><script src="/analytics.js"></script></head>
        <body><site-nav><template shadowrootmode="open"><a href="/about">About</a>
          <nav-group><template shadowrootmode="open"><a href="/products">Products</a></template></nav-group>
        </template></site-nav>
        <private-menu><template shadowrootmode="closed"><a href="/closed">Closed</a></template></private-menu>
        <template><a href="/inert">Not shown</a></template></body></html>"#;
    let server = Site::new()
        .route(
            "/analytics.js",
            Route::new(200, "window.seen = true;").header("Content-Type", "text/javascript"),
        )
        .page("/", home)
        .page("/about", "About")
        .page("/products", "Products")
        .page("/closed", "Closed")
        .page("/inert", "Inert")
        .serve();
    let (out, run, summary) = crawl_rendered(&server, &browser);
    assert_eq!(
        listed_urls(out.path()),
        expected(&server, &["/", "/about", "/products", "/closed"]),
        "the browser shows a declarative shadow root, open or closed; a plain template is inert\n{}",
        run.stderr
    );
    let rendering = &summary["rendering"];
    assert_eq!(
        (&rendering["templates_probed"], &rendering["rendered"]),
        (&serde_json::json!(0), &serde_json::json!(0)),
        "its links are in the HTML: the page is no shell to render: {rendering}"
    );
}

#[test]
fn the_rendered_dom_is_cut_at_max_body_size_in_bytes() {
    let Some(browser) = chromium() else { return };
    let script = r#"<script>document.addEventListener('DOMContentLoaded', () => {
        document.body.insertAdjacentHTML('beforeend', '<p>' + '\u00e9'.repeat(2000) + '</p><a href="/beyond">Beyond</a>');
    });</script>"#;
    let server = Site::new()
        .page("/", &format!(r#"{script}<a href="/before">Before</a>"#))
        .page("/before", "Before")
        .page("/beyond", "Beyond")
        .serve();
    let out = tempfile::tempdir().expect("tempdir");
    let browser = browser.to_str().expect("utf-8");
    let run = crawl(
        &server.url("/"),
        out.path(),
        &[
            "--chrome",
            browser,
            "--render",
            "always",
            "--max-body-size",
            "4096",
        ],
    );
    run.assert_success();
    assert_eq!(
        listed_urls(out.path()),
        expected(&server, &["/", "/before"]),
        "2000 characters of two bytes each take the link past 4096 bytes\n{}",
        run.stderr
    );
}
