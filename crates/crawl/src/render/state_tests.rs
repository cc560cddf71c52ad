//! The rules of `--render auto` in `state`, on templates, probes, unfinished pages and what a
//! template learns, driven without a browser.

use super::*;
use crate::render::browser::{BoxFuture, BrowserReport, RenderRequest, RenderedPage};
use sitemapper_extract::ShellSignals;

fn url(path: &str) -> Url {
    Url::parse(&format!("https://example.com{path}")).unwrap()
}

#[derive(Debug)]
struct NoBrowser;

impl Renderer for NoBrowser {
    fn render<'a>(
        &'a self,
        _request: RenderRequest<'a>,
    ) -> BoxFuture<'a, Result<RenderedPage, RenderFailure>> {
        Box::pin(async { Err(RenderFailure::Failed("not a browser".to_string())) })
    }

    fn report(&self) -> BrowserReport {
        BrowserReport::default()
    }
}

fn signals(scripts: &[&str], inline: u32) -> ShellSignals {
    ShellSignals {
        scripts: scripts.len() as u32 + inline,
        script_names: scripts.iter().map(|name| name.to_string()).collect(),
        ..ShellSignals::default()
    }
}

fn page(path: &str, shell: bool) -> Candidate {
    Candidate {
        url: url(path),
        depth: 1,
        referrer: Some(url("/")),
        shell,
        empty: false,
        unfinished: None,
    }
}

#[test]
fn a_page_drawn_by_a_framework_is_empty_without_its_scripts_a_scripted_menu_is_not() {
    let mut shell = signals(&["app.js"], 0);
    shell.empty_mount = Some("<div id=\"app\">".to_string());
    assert!(is_empty_without_scripts(&shell, true));
    shell.empty_mount = Some("<mdbook-sidebar-scrollbox>".to_string());
    assert!(
        !is_empty_without_scripts(&shell, true),
        "its links are there"
    );
    assert!(is_empty_without_scripts(&shell, false), "no link at all");
    shell.noscript_asks_for_javascript = true;
    assert!(is_empty_without_scripts(&shell, true));
    assert!(
        !is_empty_without_scripts(&signals(&[], 0), false),
        "no script"
    );
}

fn paths(pages: &[Candidate]) -> Vec<&str> {
    pages.iter().map(|page| page.url.path()).collect()
}

#[test]
fn pages_that_run_the_same_scripts_share_a_template() {
    let top = Template::of(&signals(&["toc.js", "book.js"], 1));
    let deep = Template::of(&signals(&["book.js", "toc.js", "toc.js"], 1));
    assert_eq!(top, deep, "order and repeats do not matter");
    assert_ne!(top, Template::of(&signals(&["toc.js", "book.js"], 0)));
    assert_ne!(top, Template::of(&signals(&["catalog.js"], 1)));
    assert_eq!(Template::of(&signals(&[], 0)), None, "nothing to render");
}

#[test]
fn auto_judges_each_template_by_one_page_once_links_run_out() {
    let state = RenderState::new(RenderMode::Auto, Some(Arc::new(NoBrowser)));
    let docs = Template::of(&signals(&["toc.js"], 1));
    let catalog = Template::of(&signals(&["catalog.js"], 0));
    let sidebar = Some(ShellReason::EmptyMount("<mdbook-sidebar>".to_string()));
    for path in ["/b", "/a", "/c"] {
        let call = state.decide(page(path, true), docs.clone(), sidebar.clone(), None);
        assert_eq!(call, None);
    }
    let no_shell = Template::of(&signals(&["analytics.js"], 0));
    for path in ["/x", "/y", "/z", "/w"] {
        assert_eq!(
            state.decide(page(path, false), no_shell.clone(), None, None),
            None
        );
    }
    let shell = Some(ShellReason::EmptyMount("<div id=\"app\">".to_string()));
    for (path, looks_like_a_shell) in [("/shop/", true), ("/shop/2", false)] {
        let reason = shell.clone().filter(|_| looks_like_a_shell);
        let call = state.decide(
            page(path, looks_like_a_shell),
            catalog.clone(),
            reason,
            None,
        );
        assert_eq!(call, None, "read as served until links run out");
    }
    assert_eq!(state.decide(page("/plain", false), None, None, None), None);

    let probes = state.take_probes();
    let probed: Vec<&str> = probes.iter().map(|(_, page, _)| page.url.path()).collect();
    let template = |call: &RenderCall| match call {
        RenderCall::Probe(template) => template.clone(),
        other => panic!("a probe: {other:?}"),
    };
    assert_eq!(
        probed,
        ["/a", "/shop/"],
        "templates with shells, most pages first; the first shell in URL order"
    );
    assert!(
        state.take_probes().is_empty(),
        "each template is judged once"
    );
    let docs_template = &template(&probes[0].0);
    let catalog_template = &template(&probes[1].0);
    let none = HashSet::new();
    assert_eq!(
        paths(&state.judge(docs_template, false, &none)),
        Vec::<&str>::new()
    );
    // A page of a template being judged waits with the others.
    assert_eq!(
        state.decide(page("/shop/1", false), catalog.clone(), None, None),
        None
    );
    assert_eq!(
        paths(&state.judge(catalog_template, true, &none)),
        ["/shop/1", "/shop/2"]
    );

    assert_eq!(state.decide(page("/d", false), docs, None, None), None);
    assert_eq!(
        state.decide(page("/shop/3", false), catalog.clone(), None, None),
        Some(RenderCall::Every(catalog.clone()))
    );
    let forced = catalog.map(RenderCall::Again);
    let again = state.decide(page("/shop/2", false), None, None, forced.clone());
    assert_eq!(again, forced);
    state.found(4);
    let report = state.finish();
    assert_eq!(report.decision, SiteDecision::Renders);
    assert_eq!((report.templates_probed, report.templates_rendered), (2, 1));
    assert_eq!((report.html_pages, report.found_urls), (13, 4));
}

#[test]
fn auto_stops_judging_after_fruitless_probes() {
    let state = RenderState::new(RenderMode::Auto, Some(Arc::new(NoBrowser)));
    let templates = MAX_FRUITLESS_PROBES + 2;
    for index in 0..templates {
        let name = format!("page-{index}.js");
        let template = Template::of(&signals(&[name.as_str()], 0));
        let shell = Some(ShellReason::NoLinks);
        state.decide(page(&format!("/{index}"), true), template, shell, None);
    }
    let probes = state.take_probes();
    assert_eq!(probes.len() as u64, MAX_FRUITLESS_PROBES);
    for (call, _, _) in &probes {
        let RenderCall::Probe(template) = call else {
            panic!("a probe: {call:?}");
        };
        state.judge(template, false, &HashSet::new());
    }
    assert!(state.take_probes().is_empty());
    let report = state.finish();
    assert_eq!(report.decision, SiteDecision::ReadAsServed);
    assert_eq!(report.templates_probed, MAX_FRUITLESS_PROBES);
}

fn served(body: &str) -> (ResponseFacts, ServedPage) {
    let facts = ResponseFacts {
        status: 200,
        content_type: Some("text/html".to_string()),
        last_modified: None,
        etag: None,
        fetched_at: jiff::Timestamp::UNIX_EPOCH,
        elapsed: std::time::Duration::ZERO,
        body_bytes: body.len(),
        truncated: false,
        revalidated: false,
    };
    let page = ServedPage {
        headers: sitemapper_extract::ResponseHeaders::default(),
        body: body.as_bytes().to_vec(),
    };
    (facts, page)
}

#[test]
fn the_page_that_stands_for_its_template_is_rendered_from_its_kept_response() {
    let state = RenderState::new(RenderMode::Auto, Some(Arc::new(NoBrowser)));
    let template = Template::of(&signals(&["app.js"], 0)).unwrap();
    for path in ["/b", "/a", "/c"] {
        let shell = Some(ShellReason::NoLinks);
        state.decide(page(path, true), Some(template.clone()), shell, None);
        let (facts, served) = served(path);
        state.offer(&template, &url(path), &facts, served);
    }
    let probes = state.take_probes();
    let [(_, probe, Some(kept))] = probes.as_slice() else {
        panic!("one probe with its response: {probes:?}");
    };
    assert_eq!(probe.url.path(), "/a");
    assert_eq!(
        kept.served.body, b"/a",
        "the first shell in URL order was kept"
    );
    assert_eq!(state.learned().kept_bytes, 0, "nothing is kept once taken");
}

#[test]
fn without_a_browser_shells_are_counted_not_rendered() {
    let state = RenderState::new(RenderMode::Auto, None);
    let template = Template::of(&signals(&["app.js"], 0));
    for path in ["/", "/a"] {
        let shell = Some(ShellReason::NoLinks);
        let call = state.decide(page(path, true), template.clone(), shell, None);
        assert_eq!(call, None);
    }
    assert_eq!(state.decide(page("/b", false), template, None, None), None);
    assert!(state.take_probes().is_empty());
    let report = state.finish();
    assert_eq!(report.not_rendered, 2);
    assert_eq!(
        report
            .first_shell
            .map(|(url, _)| url.path().to_string())
            .as_deref(),
        Some("/")
    );
}

#[test]
fn an_unavailable_browser_stops_rendering() {
    let state = RenderState::new(RenderMode::Always, Some(Arc::new(NoBrowser)));
    let call = state.decide(page("/", false), None, None, None);
    assert_eq!(call, Some(RenderCall::Every(None)));
    state.failed(&RenderFailure::Unavailable("crashed 4 times".to_string()));
    assert_eq!(state.decide(page("/a", false), None, None, None), None);
    let report = state.finish();
    assert_eq!(report.not_rendered, 1);
    assert_eq!(report.unavailable.as_deref(), Some("crashed 4 times"));
}

fn unfinished(path: &str) -> Candidate {
    Candidate {
        unfinished: Some(Unfinished::Loading("Loading tags…".to_string())),
        ..page(path, false)
    }
}

fn urls(paths: &[&str]) -> HashSet<Url> {
    paths.iter().map(|path| url(path)).collect()
}

#[test]
fn a_page_that_shows_it_is_unfinished_is_rendered_for_itself_whatever_its_template() {
    let state = RenderState::new(RenderMode::Auto, Some(Arc::new(NoBrowser)));
    // One template for the whole site (every page loads the same scripts), no shell.
    let site = Template::of(&signals(&["webpack.js", "main.js"], 2));
    for path in ["/", "/docs/", "/blog/"] {
        assert_eq!(
            state.decide(page(path, false), site.clone(), None, None),
            None
        );
    }
    assert_eq!(
        state.decide(unfinished("/tags/"), site.clone(), None, None),
        None
    );
    let probes = state.take_probes();
    let [(RenderCall::Unfinished(template), probe, None)] = probes.as_slice() else {
        panic!("the unfinished page alone: {probes:?}");
    };
    assert_eq!(
        (Some(template), probe.url.path()),
        (site.as_ref(), "/tags/")
    );
    state.judge_unfinished(template, true);
    assert!(state.take_probes().is_empty(), "rendered once");
    assert_eq!(
        state.decide(page("/tags/a/", false), site, None, None),
        None,
        "the template itself is not rendered for one page's sign"
    );
}

#[test]
fn unfinished_pages_of_one_template_stop_once_their_renders_find_nothing() {
    let state = RenderState::new(RenderMode::Auto, Some(Arc::new(NoBrowser)));
    let site = Template::of(&signals(&["site.js"], 0));
    for path in ["/e", "/d", "/c", "/b", "/a"] {
        state.decide(unfinished(path), site.clone(), None, None);
    }
    let first = state.take_probes();
    let paths: Vec<&str> = first.iter().map(|(_, page, _)| page.url.path()).collect();
    assert_eq!(paths, ["/a", "/b"], "two at a time, in URL order");
    let template = site.unwrap();
    state.judge_unfinished(&template, false);
    state.judge_unfinished(&template, true);
    let second = state.take_probes();
    assert_eq!(
        second.len(),
        2,
        "a render that found something keeps them coming"
    );
    state.judge_unfinished(&template, false);
    state.judge_unfinished(&template, false);
    assert!(
        state.take_probes().is_empty(),
        "after {MAX_FRUITLESS_UNFINISHED} fruitless renders in a row the sign is the \
         template's: /e is read as served"
    );
    let report = state.finish();
    assert_eq!(report.templates_probed, 0);
}

#[test]
fn a_rendering_template_learns_the_links_its_script_draws_and_stops_rendering() {
    let state = RenderState::new(RenderMode::Auto, Some(Arc::new(NoBrowser)));
    let menu_page = Template::of(&signals(&["menu.js"], 0));
    let reason = Some(ShellReason::EmptyMount("<nav id=\"menu\">".to_string()));
    for path in ["/a", "/b", "/c", "/d", "/e", "/f"] {
        state.decide(page(path, true), menu_page.clone(), reason.clone(), None);
    }
    let probes = state.take_probes();
    let [(RenderCall::Probe(template), _, _)] = probes.as_slice() else {
        panic!("one probe: {probes:?}");
    };
    let menu = urls(&["/tags/", "/categories/", "/posts/"]);
    let again = state.judge(template, true, &menu);
    assert_eq!(paths(&again), ["/b", "/c", "/d", "/e", "/f"]);
    assert!(state.renders_again(&RenderCall::Again(template.clone())));
    // A render that adds a link of its page's own starts the count again, and the
    // template's links are those every render added.
    state.learn(template, &urls(&["/tags/", "/posts/"]), false);
    state.learn(template, &urls(&["/tags/", "/authors/"]), false);
    state.learn(template, &urls(&["/tags/"]), false);
    state.learn(template, &urls(&["/tags/"]), true);
    assert!(
        state.renders_again(&RenderCall::Again(template.clone())),
        "a render whose directives differ found something"
    );
    for _ in 0..RENDERS_TO_LEARN {
        assert_eq!(
            state.decide(page("/new", false), menu_page.clone(), None, None),
            Some(RenderCall::Every(menu_page.clone())),
            "renders until learned"
        );
        state.learn(template, &urls(&["/tags/"]), false);
    }
    assert!(!state.renders_again(&RenderCall::Again(template.clone())));
    assert_eq!(state.decide(page("/g", false), menu_page, None, None), None);
    let report = state.finish();
    assert_eq!(report.decision, SiteDecision::Renders);
    assert_eq!(
        (report.templates_rendered, report.templates_learned),
        (1, 1)
    );
}

#[test]
fn an_application_whose_pages_draw_links_of_their_own_is_never_learned() {
    let state = RenderState::new(RenderMode::Auto, Some(Arc::new(NoBrowser)));
    let app = Template::of(&signals(&["app.js"], 0));
    for page_number in 0..20 {
        let reason = Some(ShellReason::NoLinks);
        state.decide(
            page(&format!("/page/{page_number}"), true),
            app.clone(),
            reason,
            None,
        );
    }
    let probes = state.take_probes();
    let [(RenderCall::Probe(template), _, _)] = probes.as_slice() else {
        panic!("one probe: {probes:?}");
    };
    // Every page draws the same header and links to two pages of its own, all of which
    // the crawl knows once a few pages were rendered.
    let header = ["/", "/about", "/docs"];
    let drawn = |page_number: usize| {
        let mut links: Vec<String> = header.iter().map(ToString::to_string).collect();
        links.push(format!("/page/{}", page_number % 7));
        links.push(format!("/page/{}", (page_number + 3) % 7));
        links.iter().map(|path| url(path)).collect::<HashSet<Url>>()
    };
    state.judge(template, true, &drawn(0));
    for page_number in 1..40 {
        state.learn(template, &drawn(page_number), false);
        assert!(
            state.renders_again(&RenderCall::Again(template.clone())),
            "render {page_number}: each page draws links of its own"
        );
    }
    assert_eq!(state.finish().templates_learned, 0);
}
