//! What `--render auto` learns of a site as it is crawled (the rule is in the module above):
//! the templates its pages are made from, the pages kept to stand for them, and what rendering
//! one of them decided; and the rendering state a crawl's jobs share.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use url::Url;

use super::browser::{RenderFailure, Renderer, RequestLog};
use super::report::{RenderMode, RenderReport, ShellReason, SiteDecision};
use crate::event::ResponseFacts;

/// Pages made from one template, as the crawl tells them apart: the file names of the
/// scripts they load (a page deep in the site loads `../toc.js`, one at the top `toc.js`),
/// and whether they run scripts written into the page. Only what scripts do can differ
/// between a page's HTML and its rendered DOM, so pages that run the same scripts are
/// judged together.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct Template {
    scripts: Vec<String>,
    inline: bool,
}

impl Template {
    /// The template of a page with `shell`'s signals; none for a page that runs no script,
    /// which rendering cannot change.
    pub(crate) fn of(shell: &sitemapper_extract::ShellSignals) -> Option<Template> {
        if shell.scripts == 0 {
            return None;
        }
        let mut scripts = shell.script_names.clone();
        scripts.sort_unstable();
        scripts.dedup();
        Some(Template {
            inline: shell.scripts as usize > shell.script_names.len(),
            scripts,
        })
    }
}

/// A page read as served that may be rendered once its template is judged: enough to visit
/// it again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Candidate {
    pub url: Url,
    pub depth: u32,
    pub referrer: Option<Url>,
    /// Its HTML looks like an application shell: the best page to judge its template by.
    pub shell: bool,
    /// Its HTML is empty without its scripts (see [`is_empty_without_scripts`]), a stronger
    /// sign than an empty custom element (a menu a script draws) alone.
    pub empty: bool,
}

/// Whether a page that looks like a shell is empty without its scripts: an empty mount
/// element of a framework (`<div id="root">`), a `<noscript>` asking for JavaScript, or no
/// link to the site at all. A generated site whose menu a script draws into a custom element
/// (mdBook's sidebar, rustdoc's toolbar) shows its pages and links without it.
pub(crate) fn is_empty_without_scripts(
    shell: &sitemapper_extract::ShellSignals,
    has_site_links: bool,
) -> bool {
    let framework_mount = shell
        .empty_mount
        .as_deref()
        .is_some_and(|element| element.contains(" id="));
    shell.scripts > 0 && (framework_mount || shell.noscript_asks_for_javascript || !has_site_links)
}

/// A response as extraction and the browser read it.
#[derive(Debug, Clone)]
pub(crate) struct ServedPage {
    pub headers: sitemapper_extract::ResponseHeaders,
    /// The body as received (decompressed).
    pub body: Vec<u8>,
}

/// A page read as served, kept to be rendered without requesting it again.
#[derive(Debug, Clone)]
pub(crate) struct KeptPage {
    pub facts: ResponseFacts,
    pub served: ServedPage,
}

/// Why one page is rendered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum RenderCall {
    /// The mode, or its template's decision, renders every such page as it is fetched.
    Every,
    /// The page stands for its template, which this render judges.
    Probe(Template),
    /// Its template was found to need rendering after the page was read as served.
    Again,
}

impl RenderCall {
    /// Whether the page was recorded as served earlier in the crawl: its record is
    /// replaced, and its content fingerprint stays its HTML's (the fingerprint says whether
    /// the content served changed between runs, and each run records this page the same way).
    pub(crate) fn rerenders(&self) -> bool {
        !matches!(self, RenderCall::Every)
    }
}

/// Hash routes kept for the summary.
const MAX_HASH_ROUTES: usize = 1000;

/// Templates judged to need nothing before rendering stops looking: a site with many
/// templates costs at most this many renders that find nothing. Two: one round of the
/// browser's two tabs. A generated site is one template or a few, each page of rustdoc's
/// trait pages a template of its own (a data script per page); pages built by a framework
/// (empty without their scripts) are judged first.
pub const MAX_FRUITLESS_PROBES: u64 = 2;

/// Pages kept, over all templates not judged yet, to be rendered if their template needs
/// it; about 200 bytes each.
const MAX_CANDIDATES: usize = 50_000;

/// The bodies kept, over all templates, of the pages that will stand for them: beyond, a
/// page is requested again to be rendered.
const MAX_KEPT_BYTES: usize = 32 * 1024 * 1024;

/// Where the crawl stands on one template.
#[derive(Debug)]
enum Judgement {
    /// Not rendered yet: its pages so far (kept up to [`MAX_CANDIDATES`]), how many, how
    /// many look like application shells (only such a template is judged: its scripts build
    /// the page), and the response of the first of those in URL order, when kept.
    Pending {
        pages: Vec<Candidate>,
        count: u64,
        shells: u64,
        empty: u64,
        kept: Option<Box<(Url, KeptPage)>>,
    },
    /// One page renders now; pages that come meanwhile wait with it.
    Probing { pages: Vec<Candidate> },
    /// Its pages build links or directives in JavaScript: every one is rendered.
    Renders,
    /// Rendering its pages finds nothing the crawl does not know.
    ReadAsServed,
}

/// What the crawl learned, in [`RenderMode::Auto`].
#[derive(Debug, Default)]
struct Learning {
    templates: HashMap<Template, Judgement>,
    candidates: usize,
    kept_bytes: usize,
    fruitless: u64,
    /// The browser cannot render any more.
    unavailable: bool,
}

impl Learning {
    /// Notes a page of `template` read as served: rendered now when its template renders,
    /// kept for later while its template is not judged.
    fn note(&mut self, template: Template, page: Candidate) -> Option<RenderCall> {
        let room = self.candidates < MAX_CANDIDATES;
        let judgement = self
            .templates
            .entry(template)
            .or_insert_with(|| Judgement::Pending {
                pages: Vec::new(),
                count: 0,
                shells: 0,
                empty: 0,
                kept: None,
            });
        let (pages, shells_so_far) = match judgement {
            Judgement::ReadAsServed => return None,
            Judgement::Renders => return Some(RenderCall::Every),
            Judgement::Pending {
                pages,
                count,
                shells,
                empty,
                ..
            } => {
                *count += 1;
                *shells += u64::from(page.shell);
                *empty += u64::from(page.empty);
                (pages, *shells)
            }
            Judgement::Probing { pages } => (pages, 1),
        };
        // A page is kept only once its template has a shell, the only kind judged: the pages
        // of a template whose scripts never show are not held for nothing.
        if room && shells_so_far > 0 {
            pages.push(page);
            self.candidates += 1;
        }
        None
    }
}

/// The rendering state of one crawl, shared by its jobs.
#[derive(Debug)]
pub(crate) struct RenderState {
    mode: RenderMode,
    renderer: Option<Arc<dyn Renderer>>,
    learned: Mutex<Learning>,
    report: Mutex<RenderReport>,
}

impl RenderState {
    pub(crate) fn new(mode: RenderMode, renderer: Option<Arc<dyn Renderer>>) -> RenderState {
        RenderState {
            mode,
            learned: Mutex::default(),
            report: Mutex::new(RenderReport {
                mode,
                ..RenderReport::default()
            }),
            renderer,
        }
    }

    /// Whether rendering is off altogether.
    pub(crate) fn is_off(&self) -> bool {
        self.mode == RenderMode::Never
    }

    /// Decides whether `page`, an HTML page that answered 200 with `template`, is rendered
    /// now; `shell` is why its HTML looks like a shell, if it does. A page whose template is
    /// not judged yet is kept to be rendered if it turns out to need it. `forced` is the
    /// call that visits a page again to render it. Counts the page.
    pub(crate) fn decide(
        &self,
        page: Candidate,
        template: Option<Template>,
        shell: Option<ShellReason>,
        forced: Option<RenderCall>,
    ) -> Option<RenderCall> {
        let mut learned = self.learned();
        let mut report = self.report();
        if forced.is_none() {
            report.html_pages += 1;
        }
        if let Some(reason) = &shell
            && report.first_shell.is_none()
        {
            report.first_shell = Some((page.url.clone(), reason.clone()));
        }
        let url = page.url.clone();
        let call = match (self.mode, forced) {
            (RenderMode::Never, _) => None,
            (_, Some(forced)) => Some(forced),
            (RenderMode::Auto, None) => template.and_then(|template| learned.note(template, page)),
            (RenderMode::Always, None) => Some(RenderCall::Every),
        };
        let needed = call.is_some() || (self.mode == RenderMode::Auto && shell.is_some());
        if needed && (self.renderer.is_none() || learned.unavailable) {
            // Once: when the browser became unavailable, that was said already.
            if report.not_rendered == 0 && report.unavailable.is_none() {
                self.warn_not_rendered(&url, shell.as_ref());
            }
            report.not_rendered += 1;
            return None;
        }
        call
    }

    /// Keeps `served`, the response of `url`, a page of `template` that looks like a shell,
    /// when it is the first such page in URL order so far and the bodies kept leave room.
    pub(crate) fn offer(
        &self,
        template: &Template,
        url: &Url,
        facts: &ResponseFacts,
        served: ServedPage,
    ) {
        let mut learned = self.learned();
        let learning = &mut *learned;
        let Some(Judgement::Pending { kept, .. }) = learning.templates.get_mut(template) else {
            return;
        };
        if kept.as_ref().is_some_and(|kept| &kept.0 <= url) {
            return;
        }
        let freed = kept.as_ref().map_or(0, |kept| kept.1.served.body.len());
        let bytes = learning.kept_bytes - freed + served.body.len();
        if bytes > MAX_KEPT_BYTES {
            return;
        }
        learning.kept_bytes = bytes;
        let facts = facts.clone();
        *kept = Some(Box::new((url.clone(), KeptPage { facts, served })));
    }

    fn warn_not_rendered(&self, url: &Url, shell: Option<&ShellReason>) {
        let why = "no browser is installed (install chromium, or pass --chrome PATH)";
        match shell {
            Some(reason) => tracing::warn!(
                "{url} looks built by JavaScript ({reason}) but {why}: the sitemap may be incomplete"
            ),
            None => tracing::warn!("pages are not rendered: {why}: the sitemap may be incomplete"),
        }
    }

    /// The renderer, when pages can be rendered.
    pub(crate) fn renderer(&self) -> Option<&Arc<dyn Renderer>> {
        self.renderer.as_ref()
    }

    /// The pages to render next, each standing for a template not judged yet that has pages
    /// looking like application shells, once the crawl as served has run out of links (see
    /// the module's documentation): first the templates with pages that are empty without
    /// their scripts, then the templates with the most pages, and for each its first shell
    /// in URL order, with its response when it was kept. None when rendering
    /// is not automatic, the browser cannot render, or [`MAX_FRUITLESS_PROBES`] templates
    /// found nothing; the templates left are then read as served.
    pub(crate) fn take_probes(&self) -> Vec<(Template, Candidate, Option<KeptPage>)> {
        let mut learned = self.learned();
        if self.mode != RenderMode::Auto || self.renderer.is_none() || learned.unavailable {
            return Vec::new();
        }
        let mut pending: Vec<(bool, u64, Url, Template)> = learned
            .templates
            .iter()
            .filter_map(|(template, judgement)| match judgement {
                Judgement::Pending {
                    pages,
                    count,
                    shells,
                    empty,
                    ..
                } if *shells > 0 => {
                    let first = pages.iter().map(|page| &page.url).min()?;
                    Some((*empty > 0, *count, first.clone(), template.clone()))
                }
                _ => None,
            })
            .collect();
        pending.sort_by(|a, b| {
            (b.0.cmp(&a.0))
                .then_with(|| b.1.cmp(&a.1))
                .then_with(|| a.2.cmp(&b.2))
        });
        let room = MAX_FRUITLESS_PROBES.saturating_sub(learned.fruitless) as usize;
        let mut probes = Vec::new();
        for (index, (_, _, _, template)) in pending.into_iter().enumerate() {
            let Some(judgement) = learned.templates.get_mut(&template) else {
                continue;
            };
            if index >= room {
                *judgement = Judgement::ReadAsServed;
                continue;
            }
            let Judgement::Pending { pages, kept, .. } = judgement else {
                continue;
            };
            let mut pages = std::mem::take(pages);
            pages.sort_by(|a, b| b.shell.cmp(&a.shell).then_with(|| a.url.cmp(&b.url)));
            let probe = pages.remove(0);
            let kept = kept
                .take()
                .filter(|kept| kept.0 == probe.url)
                .map(|kept| kept.1);
            probes.push((template, probe, kept));
            *judgement = Judgement::Probing { pages };
        }
        learned.kept_bytes = 0;
        drop(learned);
        self.report().templates_probed += probes.len() as u64;
        probes
    }

    /// Judges `template` by its probe: when it `found` URLs or directives the HTML did not
    /// give, its pages read as served so far are returned, in URL order, to be rendered.
    pub(crate) fn judge(&self, template: &Template, found: bool) -> Vec<Candidate> {
        let mut learned = self.learned();
        if !found {
            learned.fruitless += 1;
        }
        let Some(judgement) = learned.templates.get_mut(template) else {
            return Vec::new();
        };
        let verdict = if found {
            Judgement::Renders
        } else {
            Judgement::ReadAsServed
        };
        let mut pages = match std::mem::replace(judgement, verdict) {
            Judgement::Probing { pages } | Judgement::Pending { pages, .. } => pages,
            Judgement::Renders | Judgement::ReadAsServed => Vec::new(),
        };
        learned.candidates = learned.candidates.saturating_sub(pages.len());
        drop(learned);
        if !found {
            return Vec::new();
        }
        self.report().templates_rendered += 1;
        tracing::info!(
            pages = pages.len(),
            "rendering found links the HTML did not give: pages made like it are rendered"
        );
        pages.sort_by(|a, b| a.url.cmp(&b.url));
        pages
    }

    /// Counts URLs that rendered pages linked to and the crawl had not met otherwise.
    pub(crate) fn found(&self, urls: u64) {
        self.report().found_urls += urls;
    }

    /// Records a rendered page and what its browser tab requested.
    pub(crate) fn rendered(&self, requests: RequestLog) {
        let mut report = self.report();
        report.rendered += 1;
        report.requests.absorb(requests);
    }

    /// Records a page whose rendering failed; `Unavailable` stops rendering for the run.
    pub(crate) fn failed(&self, failure: &RenderFailure) {
        let mut report = self.report();
        match failure {
            RenderFailure::TimedOut(requests) => {
                report.timed_out += 1;
                report.requests.absorb(requests.clone());
            }
            RenderFailure::Failed(_) => report.failed += 1,
            RenderFailure::Unavailable(reason) => {
                report.failed += 1;
                if report.unavailable.is_none() {
                    tracing::warn!(
                        "the browser cannot render ({reason}): the rest of the site is read as served"
                    );
                    report.unavailable = Some(reason.clone());
                }
                drop(report);
                self.learned().unavailable = true;
            }
        }
    }

    /// Keeps the hash routes a page links to.
    pub(crate) fn note_hash_routes(&self, routes: &[String]) {
        if routes.is_empty() {
            return;
        }
        let mut report = self.report();
        for route in routes {
            if report.hash_routes.len() >= MAX_HASH_ROUTES {
                break;
            }
            report.hash_routes.insert(route.clone());
        }
    }

    /// What rendering did in the crawl.
    pub(crate) fn finish(&self) -> RenderReport {
        let learned = self.learned();
        let judged = |wanted: fn(&Judgement) -> bool| learned.templates.values().any(wanted);
        let decision = if judged(|judgement| matches!(judgement, Judgement::Renders)) {
            SiteDecision::Renders
        } else if judged(|judgement| matches!(judgement, Judgement::ReadAsServed)) {
            SiteDecision::ReadAsServed
        } else {
            SiteDecision::Undecided
        };
        drop(learned);
        let mut report = self.report().clone();
        report.decision = decision;
        report.browser = self.renderer.as_ref().map(|renderer| renderer.report());
        report
    }

    fn learned(&self) -> std::sync::MutexGuard<'_, Learning> {
        self.learned
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
    }

    fn report(&self) -> std::sync::MutexGuard<'_, RenderReport> {
        self.report
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
    }
}

#[cfg(test)]
mod tests {
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
        assert_eq!(
            probed,
            ["/a", "/shop/"],
            "templates with shells, most pages first; the first shell in URL order"
        );
        assert!(
            state.take_probes().is_empty(),
            "each template is judged once"
        );
        let (docs_template, _, _) = &probes[0];
        let (catalog_template, _, _) = &probes[1];
        assert_eq!(
            paths(&state.judge(docs_template, false)),
            Vec::<&str>::new()
        );
        // A page of a template being judged waits with the others.
        assert_eq!(
            state.decide(page("/shop/1", false), catalog.clone(), None, None),
            None
        );
        assert_eq!(
            paths(&state.judge(catalog_template, true)),
            ["/shop/1", "/shop/2"]
        );

        assert_eq!(state.decide(page("/d", false), docs, None, None), None);
        assert_eq!(
            state.decide(page("/shop/3", false), catalog, None, None),
            Some(RenderCall::Every)
        );
        let forced = Some(RenderCall::Again);
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
        for (template, _, _) in &probes {
            state.judge(template, false);
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
        assert_eq!(call, Some(RenderCall::Every));
        state.failed(&RenderFailure::Unavailable("crashed 4 times".to_string()));
        assert_eq!(state.decide(page("/a", false), None, None, None), None);
        let report = state.finish();
        assert_eq!(report.not_rendered, 1);
        assert_eq!(report.unavailable.as_deref(), Some("crashed 4 times"));
    }
}
