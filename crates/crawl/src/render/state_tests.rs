//! The rules of `--render auto` in `state`, on templates, probes, unfinished pages and what a
//! template learns, driven without a browser.

use super::*;
use crate::render::browser::{BoxFuture, BrowserReport, RenderRequest, RenderedPage};
use crate::render::template::is_empty_without_scripts;
use sitemapper_extract::ShellSignals;
use sitemapper_extract::Unfinished;

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

/// The paths of pages to render again for their template's judgement.
fn again(calls: &[(RenderCall, Candidate)]) -> Vec<&str> {
    calls
        .iter()
        .map(|(call, page)| {
            assert!(matches!(call, RenderCall::Again(_)), "{call:?}");
            page.url.path()
        })
        .collect()
}

#[test]
fn pages_that_run_the_same_scripts_share_a_template() {
    let top = Template::of(&signals(&["toc.js", "book.js"], 1));
    let deep = Template::of(&signals(&["book.js", "toc.js", "toc.js"], 1));
    assert_eq!(top, deep, "order and repeats do not matter");
    let key = |template: Option<Template>| template.unwrap().key();
    assert_eq!(key(top.clone()), key(deep.clone()));
    assert_ne!(
        key(top.clone()),
        key(Template::of(&signals(&["toc.js", "book.js"], 0)))
    );
    assert_eq!(
        key(top.clone()),
        0x3b33_bdac_8a83_8004,
        "the same number in every crawl: a page's record keeps it across runs"
    );
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
        again(&state.judge(docs_template, false, &none)),
        Vec::<&str>::new()
    );
    // A page of a template being judged waits with the others.
    assert_eq!(
        state.decide(page("/shop/1", false), catalog.clone(), None, None),
        None
    );
    assert_eq!(
        again(&state.judge(catalog_template, true, &none)),
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

/// Notes a render of a page of `template` that drew `added` beyond its HTML's links to the
/// site, `served`, as the crawl does for each render of a template.
fn drew(state: &RenderState, template: &Template, served: &[&str], added: &HashSet<Url>) {
    let mut rendered = urls(served);
    rendered.extend(added.iter().cloned());
    state.draw(template, &rendered, added);
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
    drew(&state, template, &["/home"], &menu);
    let calls = state.judge(template, true, &menu);
    assert_eq!(again(&calls), ["/b", "/c", "/d", "/e", "/f"]);
    assert!(state.renders_again(&RenderCall::Again(template.clone())));
    // A render that adds a link of its page's own starts the count again, and the
    // template's links are those every render added.
    for (added, differs) in [
        (urls(&["/tags/", "/posts/"]), false),
        (urls(&["/tags/", "/authors/"]), false),
        (urls(&["/tags/"]), false),
        (urls(&["/tags/"]), true),
    ] {
        drew(&state, template, &["/home"], &added);
        state.learn(template, &added, differs);
    }
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
        drew(&state, template, &["/home"], &urls(&["/tags/"]));
        state.learn(template, &urls(&["/tags/"]), false);
    }
    assert!(!state.renders_again(&RenderCall::Again(template.clone())));
    assert_eq!(state.decide(page("/g", false), menu_page, None, None), None);
    assert_eq!(
        state.script_links(),
        [ScriptLinks {
            template: template.key(),
            links: vec![url("/tags/")],
        }],
        "what every render showed and a script drew counts as links of each of its pages: \
         not /home, in every page's HTML"
    );
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
    drew(&state, template, &[], &drawn(0));
    state.judge(template, true, &drawn(0));
    for page_number in 1..40 {
        drew(&state, template, &[], &drawn(page_number));
        state.learn(template, &drawn(page_number), false);
        assert!(
            state.renders_again(&RenderCall::Again(template.clone())),
            "render {page_number}: each page draws links of its own"
        );
    }
    assert_eq!(state.finish().templates_learned, 0);
    let [drawn_on_every_page] = state.script_links().try_into().unwrap();
    assert_eq!(
        drawn_on_every_page.links,
        [url("/"), url("/about"), url("/docs")],
        "the header it draws on every page, not the pages' own links"
    );
}

#[test]
fn a_probe_that_adds_only_known_links_is_confirmed_by_a_second_page_before_they_count() {
    let state =
        RenderState::new(RenderMode::Auto, Some(Arc::new(NoBrowser))).with_script_links(true);
    let book = Template::of(&signals(&["toc.js", "book.js"], 1));
    let sidebar = Some(ShellReason::EmptyMount("<nav id=\"sidebar\">".to_string()));
    for path in ["/ch1", "/ch2", "/ch3", "/ch4"] {
        state.decide(page(path, true), book.clone(), sidebar.clone(), None);
    }
    let probes = state.take_probes();
    let [(RenderCall::Probe(template), probe, _)] = probes.as_slice() else {
        panic!("one probe: {probes:?}");
    };
    assert_eq!(probe.url.path(), "/ch1");
    // The sidebar links every chapter, the page itself too; the HTML of each links its
    // neighbours, which its render does not add.
    let first = urls(&["/ch1", "/ch3", "/ch4", "/ch1-notes"]);
    drew(&state, template, &["/ch2"], &first);
    let second = state.judge(template, false, &first);
    let [(RenderCall::Confirm(confirmed), chapter)] = second.as_slice() else {
        panic!("one page more: {second:?}");
    };
    assert_eq!((confirmed, chapter.url.path()), (template, "/ch2"));
    assert_eq!(
        state.decide(page("/ch5", true), book.clone(), sidebar, None),
        None,
        "a page that comes meanwhile waits"
    );
    let added = urls(&["/ch2", "/ch4", "/ch2-notes"]);
    drew(&state, template, &["/ch1", "/ch3"], &added);
    assert!(state.confirm(template, false, &added).is_empty());
    let [learned] = state.script_links().try_into().unwrap();
    assert_eq!(
        learned.links,
        [url("/ch1"), url("/ch2"), url("/ch3"), url("/ch4")],
        "what both pages show and a script drew, not each one's own"
    );
    let report = state.finish();
    assert_eq!(report.decision, SiteDecision::ReadAsServed);
    assert_eq!(report.templates_probed, 1);

    // A probe that added nothing, or a template of one page, calls for no second render.
    let state =
        RenderState::new(RenderMode::Auto, Some(Arc::new(NoBrowser))).with_script_links(true);
    let reason = Some(ShellReason::NoLinks);
    state.decide(page("/a", true), book.clone(), reason.clone(), None);
    state.decide(page("/b", true), book.clone(), reason, None);
    let probes = state.take_probes();
    let [(RenderCall::Probe(template), _, _)] = probes.as_slice() else {
        panic!("one probe: {probes:?}");
    };
    assert!(state.judge(template, false, &HashSet::new()).is_empty());
    assert!(state.script_links().is_empty());

    // A crawl that records no links has no use for them: no second render.
    let state = RenderState::new(RenderMode::Auto, Some(Arc::new(NoBrowser)));
    for path in ["/a", "/b"] {
        state.decide(
            page(path, true),
            book.clone(),
            Some(ShellReason::NoLinks),
            None,
        );
    }
    let probes = state.take_probes();
    let [(RenderCall::Probe(template), _, _)] = probes.as_slice() else {
        panic!("one probe: {probes:?}");
    };
    assert!(
        state
            .judge(template, false, &urls(&["/a", "/b"]))
            .is_empty()
    );

    let state =
        RenderState::new(RenderMode::Auto, Some(Arc::new(NoBrowser))).with_script_links(true);
    state.decide(
        page("/only", true),
        book.clone(),
        Some(ShellReason::NoLinks),
        None,
    );
    let probes = state.take_probes();
    let [(RenderCall::Probe(template), _, _)] = probes.as_slice() else {
        panic!("one probe: {probes:?}");
    };
    let added = urls(&["/a", "/b"]);
    drew(&state, template, &[], &added);
    assert!(
        state.judge(template, false, &added).is_empty(),
        "no other page"
    );
    assert!(
        state.script_links().is_empty(),
        "one render cannot tell a template's links from its page's own"
    );
}

#[test]
fn a_second_page_that_finds_new_links_makes_its_template_render() {
    let state =
        RenderState::new(RenderMode::Auto, Some(Arc::new(NoBrowser))).with_script_links(true);
    let shop = Template::of(&signals(&["shop.js"], 0));
    for path in ["/a", "/b", "/c", "/d"] {
        state.decide(
            page(path, true),
            shop.clone(),
            Some(ShellReason::NoLinks),
            None,
        );
    }
    let probes = state.take_probes();
    let [(RenderCall::Probe(template), _, _)] = probes.as_slice() else {
        panic!("one probe: {probes:?}");
    };
    let known = urls(&["/", "/cart"]);
    drew(&state, template, &[], &known);
    let calls = state.judge(template, false, &known);
    let [(RenderCall::Confirm(_), second)] = calls.as_slice() else {
        panic!("a second page: {calls:?}");
    };
    assert_eq!(second.url.path(), "/b");
    let added = urls(&["/", "/cart", "/b/items"]);
    drew(&state, template, &[], &added);
    let calls = state.confirm(template, true, &added);
    assert_eq!(again(&calls), ["/c", "/d"]);
    let report = state.finish();
    assert_eq!(report.decision, SiteDecision::Renders);
    assert_eq!(
        state.script_links(),
        [ScriptLinks {
            template: template.key(),
            links: vec![url("/"), url("/cart")],
        }],
        "two renders agree on what is drawn on every page"
    );
}
