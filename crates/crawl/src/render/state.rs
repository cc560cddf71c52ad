//! What `--render auto` learns of a site as it is crawled (the rule is in the module above):
//! where it stands on each template (`template`: what pages are to rendering), the pages kept
//! to stand for them, what rendering them decided and drew; and the rendering state a crawl's
//! jobs share.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

use url::Url;

use super::browser::{RenderFailure, Renderer, RequestLog};
use super::report::{RenderMode, RenderReport, ShellReason, SiteDecision};
use super::template::{Candidate, KeptPage, RenderCall, ServedPage, Template};
use crate::event::{ResponseFacts, ScriptLinks};

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

/// Renders in a row of a rendering template that add no link its earlier renders had not
/// already found, after which its script-drawn links are learned and its other pages read as
/// served. Three: a menu drawn the same on every page shows itself by the second render;
/// three make it a rule rather than a coincidence of two pages.
pub const RENDERS_TO_LEARN: u32 = 3;

/// Renders in a row of one template's unfinished pages that find nothing, after which its
/// other unfinished pages are read as served: the sign is its template's, not the page's.
pub const MAX_FRUITLESS_UNFINISHED: u32 = 2;

/// Unfinished pages kept, over all templates, to be rendered once links run out; about 200
/// bytes each. Beyond, such a page is read as served.
const MAX_UNFINISHED: usize = 10_000;

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
    /// Its probe found nothing new but added links the crawl knew: a second page renders
    /// now, and the `links` both added are those its scripts draw on every page. Pages that
    /// come meanwhile wait with it.
    Confirming {
        pages: Vec<Candidate>,
        links: HashSet<Url>,
    },
    /// Its pages build links or directives in JavaScript: every one is rendered, while its
    /// renders add links beyond the template's. `learned`: the links every one of its renders
    /// added to its page's HTML so far; `stale`: renders in a row that added none beyond those.
    Renders { learned: HashSet<Url>, stale: u32 },
    /// Its renders kept adding the same links ([`RENDERS_TO_LEARN`] in a row): its script
    /// draws them on every page, and the crawl knows them. Its other pages are read as served.
    Learned,
    /// Rendering its pages finds nothing the crawl does not know.
    ReadAsServed,
}

/// What the renders of one template drew: the links to the site in every rendered DOM so far,
/// and of those the ones a script added to its page's HTML on one render or more. A sidebar a
/// script draws links every page, the one rendered too, though the HTML of each has a few of
/// them (its neighbours): what every render shows and scripts draw, not what every render
/// added. Bounded by the links of its first render.
#[derive(Debug, Default)]
struct Drawn {
    every: HashSet<Url>,
    scripted: HashSet<Url>,
    renders: u32,
}

impl Drawn {
    fn add(&mut self, rendered: &HashSet<Url>, added: &HashSet<Url>) {
        if self.renders == 0 {
            self.every = rendered.clone();
        } else {
            self.every.retain(|link| rendered.contains(link));
        }
        self.scripted.extend(added.iter().cloned());
        self.scripted.retain(|link| self.every.contains(link));
        self.renders += 1;
    }
}

/// What the crawl learned, in [`RenderMode::Auto`].
#[derive(Debug, Default)]
struct Learning {
    templates: HashMap<Template, Judgement>,
    candidates: usize,
    kept_bytes: usize,
    fruitless: u64,
    /// Pages read as served that show they are unfinished, to be rendered once links run
    /// out, with their template.
    unfinished: Vec<(Template, Candidate)>,
    /// Renders in a row of each template's unfinished pages that found nothing.
    unfinished_fruitless: HashMap<Template, u32>,
    /// What the renders of each template drew (see [`Drawn`]).
    drawn: HashMap<Template, Drawn>,
    /// The browser cannot render any more.
    unavailable: bool,
}

impl Learning {
    /// Notes a page of `template` read as served: rendered now when its template renders,
    /// kept for later while its template is not judged.
    fn note(&mut self, template: Template, page: Candidate) -> Option<RenderCall> {
        let room = self.candidates < MAX_CANDIDATES;
        let renders = matches!(
            self.templates.get(&template),
            Some(Judgement::Renders { .. })
        );
        if page.unfinished.is_some() && !renders && self.unfinished.len() < MAX_UNFINISHED {
            self.unfinished.push((template.clone(), page.clone()));
        }
        let judgement =
            self.templates
                .entry(template.clone())
                .or_insert_with(|| Judgement::Pending {
                    pages: Vec::new(),
                    count: 0,
                    shells: 0,
                    empty: 0,
                    kept: None,
                });
        let (pages, shells_so_far) = match judgement {
            Judgement::ReadAsServed | Judgement::Learned => return None,
            Judgement::Renders { .. } => return Some(RenderCall::Every(Some(template))),
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
            Judgement::Probing { pages } | Judgement::Confirming { pages, .. } => (pages, 1),
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

impl Learning {
    /// The unfinished pages to render now, but those in `probed`: of each template, at most
    /// [`MAX_FRUITLESS_UNFINISHED`] at a time, in URL order; none of a template whose last
    /// such renders found nothing (its other unfinished pages are read as served), nor of a
    /// template that renders (its pages are rendered anyway); those of a template judged
    /// now wait for its judgement.
    fn take_unfinished(
        &mut self,
        probed: &HashSet<Url>,
    ) -> Vec<(RenderCall, Candidate, Option<KeptPage>)> {
        let mut pending = std::mem::take(&mut self.unfinished);
        pending.sort_by(|a, b| a.1.url.cmp(&b.1.url));
        let mut taken: HashMap<Template, u32> = HashMap::new();
        let mut calls = Vec::new();
        for (template, page) in pending {
            let fruitless = self
                .unfinished_fruitless
                .get(&template)
                .copied()
                .unwrap_or(0);
            let judgement = self.templates.get(&template);
            let renders = matches!(judgement, Some(Judgement::Renders { .. }));
            if fruitless >= MAX_FRUITLESS_UNFINISHED || renders || probed.contains(&page.url) {
                continue;
            }
            // A template judged now may render all its pages: its unfinished ones wait.
            let probing = matches!(
                judgement,
                Some(Judgement::Probing { .. } | Judgement::Confirming { .. })
            );
            let count = taken.entry(template.clone()).or_default();
            if probing || *count >= MAX_FRUITLESS_UNFINISHED {
                self.unfinished.push((template, page));
                continue;
            }
            *count += 1;
            calls.push((RenderCall::Unfinished(template), page, None));
        }
        calls
    }
}

/// The rendering state of one crawl, shared by its jobs.
#[derive(Debug)]
pub(crate) struct RenderState {
    mode: RenderMode,
    renderer: Option<Arc<dyn Renderer>>,
    /// One for each tab of the browser: a page waits for one before it is rendered, and is
    /// read as served when what was learned meanwhile makes its render needless.
    turns: tokio::sync::Semaphore,
    learned: Mutex<Learning>,
    report: Mutex<RenderReport>,
    /// Whether the crawl records links, so that the links a template's scripts draw on every
    /// page count ([`RenderState::script_links`]): only then does a fruitless probe that added
    /// links call for a second page to tell them.
    counts_script_links: bool,
}

impl RenderState {
    pub(crate) fn new(mode: RenderMode, renderer: Option<Arc<dyn Renderer>>) -> RenderState {
        let tabs = renderer
            .as_ref()
            .map_or(1, |renderer| renderer.tabs().max(1));
        RenderState {
            mode,
            turns: tokio::sync::Semaphore::new(tabs),
            learned: Mutex::default(),
            report: Mutex::new(RenderReport {
                mode,
                ..RenderReport::default()
            }),
            renderer,
            counts_script_links: false,
        }
    }

    /// The state of a crawl that records links (`record_links`), or not: where it does, with
    /// rendering automatic, the links a template's scripts draw on every page count, and are
    /// worth a second render of a template read as served.
    pub(crate) fn with_script_links(self, record_links: bool) -> RenderState {
        RenderState {
            counts_script_links: record_links && self.mode == RenderMode::Auto,
            ..self
        }
    }

    /// Whether the links a template's scripts draw on every page count (see
    /// [`RenderState::with_script_links`]): each page is then named by its template.
    pub(crate) fn counts_script_links(&self) -> bool {
        self.counts_script_links
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
            (RenderMode::Always, None) => Some(RenderCall::Every(template)),
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

    /// How many pages the browser renders at once (1 without a browser).
    pub(crate) fn tabs(&self) -> usize {
        self.renderer.as_ref().map_or(1, |renderer| renderer.tabs())
    }

    /// Waits for a tab's turn to render a page for `call`: the turn, or `None` when its
    /// template's links were learned while it waited (the page is read as served).
    pub(crate) async fn turn(&self, call: &RenderCall) -> Option<tokio::sync::SemaphorePermit<'_>> {
        let turn = self.turns.acquire().await.ok()?;
        let template = match call {
            RenderCall::Every(Some(template)) | RenderCall::Again(template) => template,
            RenderCall::Every(None)
            | RenderCall::Probe(_)
            | RenderCall::Unfinished(_)
            | RenderCall::Confirm(_) => {
                return Some(turn);
            }
        };
        let learned = matches!(
            self.learned().templates.get(template),
            Some(Judgement::Learned)
        );
        (!learned).then_some(turn)
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
    pub(crate) fn take_probes(&self) -> Vec<(RenderCall, Candidate, Option<KeptPage>)> {
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
            probes.push((RenderCall::Probe(template), probe, kept));
            *judgement = Judgement::Probing { pages };
        }
        learned.kept_bytes = 0;
        let probed: HashSet<Url> = probes.iter().map(|(_, page, _)| page.url.clone()).collect();
        let unfinished = learned.take_unfinished(&probed);
        drop(learned);
        self.report().templates_probed += probes.len() as u64;
        probes.extend(unfinished);
        probes
    }

    /// Judges `template` by its probe: when it `found` URLs or directives the HTML did not
    /// give, its pages read as served so far are returned, in URL order, to be rendered
    /// again. `added` are the links its render added to its HTML's. A probe that found
    /// nothing but added links returns one more page of the template, to tell the links its
    /// scripts draw on every page from those of the probe's page alone
    /// ([`RenderState::confirm`]), when the crawl counts them (it records links).
    pub(crate) fn judge(
        &self,
        template: &Template,
        found: bool,
        added: &HashSet<Url>,
    ) -> Vec<(RenderCall, Candidate)> {
        let mut learned = self.learned();
        let Some(judgement) = learned.templates.get_mut(template) else {
            return Vec::new();
        };
        let mut pages = match judgement {
            Judgement::Probing { pages } | Judgement::Pending { pages, .. } => {
                std::mem::take(pages)
            }
            _ => Vec::new(),
        };
        if !found && !added.is_empty() && !pages.is_empty() && self.counts_script_links {
            pages.sort_by(|a, b| b.shell.cmp(&a.shell).then_with(|| a.url.cmp(&b.url)));
            let second = pages.remove(0);
            *judgement = Judgement::Confirming {
                pages,
                links: added.clone(),
            };
            learned.candidates = learned.candidates.saturating_sub(1);
            drop(learned);
            self.report().templates_confirmed += 1;
            return vec![(RenderCall::Confirm(template.clone()), second)];
        }
        self.settle(learned, template, found, added.clone(), pages)
    }

    /// Judges `template` by the second page its probe called for ([`RenderState::judge`]):
    /// when it `found` URLs or directives the HTML did not give, its pages read as served so
    /// far are returned to be rendered again; it is read as served otherwise (what both drew
    /// is [`RenderState::draw`]'s). `added`: the links this render added to its HTML's.
    pub(crate) fn confirm(
        &self,
        template: &Template,
        found: bool,
        added: &HashSet<Url>,
    ) -> Vec<(RenderCall, Candidate)> {
        let mut learned = self.learned();
        let Some(Judgement::Confirming { pages, links }) = learned.templates.get_mut(template)
        else {
            return Vec::new();
        };
        let pages = std::mem::take(pages);
        let mut links = std::mem::take(links);
        links.retain(|link| added.contains(link));
        self.settle(learned, template, found, links, pages)
    }

    /// Settles `template`, judged by its first renders: it renders when they `found`
    /// something, and its `pages` read as served so far are returned, in URL order, to be
    /// rendered again, `links` (those its renders all added) its links so far; it is read as
    /// served otherwise.
    fn settle(
        &self,
        mut learned: std::sync::MutexGuard<'_, Learning>,
        template: &Template,
        found: bool,
        links: HashSet<Url>,
        mut pages: Vec<Candidate>,
    ) -> Vec<(RenderCall, Candidate)> {
        if !found {
            learned.fruitless += 1;
        }
        learned.candidates = learned.candidates.saturating_sub(pages.len());
        let Some(judgement) = learned.templates.get_mut(template) else {
            return Vec::new();
        };
        if !found {
            *judgement = Judgement::ReadAsServed;
            return Vec::new();
        }
        *judgement = Judgement::Renders {
            learned: links,
            stale: 0,
        };
        // Its pages are rendered again: their own signs need no render of their own.
        learned
            .unfinished
            .retain(|(unfinished, _)| unfinished != template);
        drop(learned);
        self.report().templates_rendered += 1;
        tracing::info!(
            pages = pages.len(),
            "rendering found links the HTML did not give: pages made like it are rendered"
        );
        pages.sort_by(|a, b| a.url.cmp(&b.url));
        pages
            .into_iter()
            .map(|page| (RenderCall::Again(template.clone()), page))
            .collect()
    }

    /// Counts URLs that rendered pages linked to and the crawl had not met otherwise.
    pub(crate) fn found(&self, urls: u64) {
        self.report().found_urls += urls;
    }

    /// Learns from a render of a page of `template`, a rendering template: `added`, the
    /// links the render added to the page's HTML, and whether its canonical or noindex
    /// `differs` from the HTML's. The template's links are those every one of its renders
    /// added (a menu drawn on every page), not all the links its renders added: a template
    /// whose pages each draw links of their own keeps rendering, however many of those the
    /// crawl already knows. After [`RENDERS_TO_LEARN`] renders in a row that added no link
    /// beyond the template's, and changed no directive, its script-drawn links are learned
    /// and its other pages read as served.
    pub(crate) fn learn(&self, template: &Template, added: &HashSet<Url>, differs: bool) {
        let mut state = self.learned();
        let Some(judgement) = state.templates.get_mut(template) else {
            return;
        };
        let Judgement::Renders { learned, stale } = judgement else {
            return;
        };
        if differs || !added.is_subset(learned) {
            // What every render added: links of a page's own are not the template's.
            learned.retain(|link| added.contains(link));
            *stale = 0;
            return;
        }
        *stale += 1;
        if *stale < RENDERS_TO_LEARN {
            return;
        }
        tracing::info!(
            links = learned.len(),
            "rendering adds the same links to every page made like this: they are learned, and \
             its other pages are read as served"
        );
        *judgement = Judgement::Learned;
        drop(state);
        self.report().templates_learned += 1;
    }

    /// Counts the render of an unfinished page of `template`: whether it `found` URLs or
    /// directives the HTML did not give.
    pub(crate) fn judge_unfinished(&self, template: &Template, found: bool) {
        let mut learned = self.learned();
        let fruitless = learned
            .unfinished_fruitless
            .entry(template.clone())
            .or_default();
        *fruitless = if found { 0 } else { *fruitless + 1 };
    }

    /// Whether a page `call` renders again is still to be rendered: not when its template's
    /// links were learned meanwhile (it was read as served already).
    pub(crate) fn renders_again(&self, call: &RenderCall) -> bool {
        let RenderCall::Again(template) = call else {
            return true;
        };
        !matches!(
            self.learned().templates.get(template),
            Some(Judgement::Learned)
        )
    }

    /// Records a page rendered for `call` and what its browser tab requested.
    pub(crate) fn rendered(&self, requests: RequestLog, call: &RenderCall) {
        let mut report = self.report();
        report.rendered += 1;
        report.unfinished_rendered += u64::from(matches!(call, RenderCall::Unfinished(_)));
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

    /// Notes what a render of a page of `template` drew, for its probe, its second page, or
    /// as its template renders: `rendered`, the links to the site of its rendered DOM, and
    /// `added`, those not in its HTML.
    pub(crate) fn draw(&self, template: &Template, rendered: &HashSet<Url>, added: &HashSet<Url>) {
        let mut learned = self.learned();
        let drawn = learned.drawn.entry(template.clone()).or_default();
        drawn.add(rendered, added);
    }

    /// The links the scripts of each template draw on every one of its pages, as far as two
    /// renders or more of it tell (its probe and a second page; a template that renders, or
    /// learned): those every render showed, and scripts added on one or more. By template.
    pub(crate) fn script_links(&self) -> Vec<ScriptLinks> {
        let learned = self.learned();
        let mut all: Vec<ScriptLinks> = learned
            .drawn
            .iter()
            .filter(|(_, drawn)| drawn.renders >= 2 && !drawn.scripted.is_empty())
            .map(|(template, drawn)| {
                let mut links: Vec<Url> = drawn.scripted.iter().cloned().collect();
                links.sort();
                ScriptLinks {
                    template: template.key(),
                    links,
                }
            })
            .collect();
        all.sort_by_key(|links| links.template);
        all
    }

    /// What rendering did in the crawl.
    pub(crate) fn finish(&self) -> RenderReport {
        let learned = self.learned();
        let judged = |wanted: fn(&Judgement) -> bool| learned.templates.values().any(wanted);
        let renders = |judgement: &Judgement| {
            matches!(judgement, Judgement::Renders { .. } | Judgement::Learned)
        };
        let decision = if judged(renders) {
            SiteDecision::Renders
        } else if judged(|judgement| matches!(judgement, Judgement::ReadAsServed)) {
            SiteDecision::ReadAsServed
        } else {
            SiteDecision::Undecided
        };
        drop(learned);
        let script_links: usize = self
            .script_links()
            .iter()
            .map(|drawn| drawn.links.len())
            .sum();
        let mut report = self.report().clone();
        report.decision = decision;
        report.script_links = script_links as u64;
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
#[path = "state_tests.rs"]
mod tests;
