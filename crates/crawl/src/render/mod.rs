//! Pages built by JavaScript: what the crawl asks of a browser, and when (docs/design.md,
//! Behaviour rules, `--render`).
//!
//! The crawl defines the [`Renderer`] it needs and never depends on a browser: the binary hands
//! it one (`crates/render` drives Chromium). Every request the browser makes, of any kind, is
//! handed to the crawl's [`RequestGate`], which makes it with the crawl's fetcher when the
//! crawl's rules allow: robots.txt, the address policy, pace and the request budget hold for
//! the browser as for the crawler.
//!
//! With [`RenderMode::Auto`], rendering is worth its cost only where it finds URLs that the
//! crawl as served would never reach, judged against everything the crawl knows, not against
//! one page's own links (a generated site draws its menu with a script, yet its pages link to
//! each other):
//! 1. The site is crawled as served. Pages that run scripts are grouped by [`Template`]: the
//!    file names of the scripts they load.
//! 2. Once no link leads anywhere new (the site's own sitemaps read too, when they are), one
//!    page of each template that has pages looking like an application shell (see
//!    [`ShellReason`]) is rendered: its first such page in URL order.
//! 3. A template whose page links, once rendered, to URLs the crawl has not met at all, or
//!    whose canonical or noindex differ from its HTML's, renders: its pages read so far are
//!    rendered again, and those found later are rendered as they come. Any other template is
//!    read as served.
//! 4. The URLs rendering found are crawled the same way, and templates first seen among them
//!    are judged when links run out again. Templates whose pages are empty without their
//!    scripts (a framework's mount element, a `<noscript>` asking for JavaScript, no link at
//!    all) are judged first, then the largest; after [`MAX_FRUITLESS_PROBES`] templates that
//!    found nothing, the rest are read as served.
//! 5. A page whose HTML shows it is unfinished (a loading text, a busy element, an empty
//!    list: `Unfinished`) is rendered for itself once links run out, whatever its template,
//!    two of a template at a time; after [`MAX_FRUITLESS_UNFINISHED`] such renders of one
//!    template in a row that found nothing, its other unfinished pages are read as served.
//! 6. A template that renders is rendered while its renders add links beyond the template's
//!    (those every one of its renders added: a menu, not a page's own links): after
//!    [`RENDERS_TO_LEARN`] in a row that added none and changed no directive, its script-drawn
//!    links are learned and its other pages read as served.
//! 7. Where the crawl records links, a probe that found nothing but added links the crawl knew (a
//!    sidebar a script draws) calls for a second page of its template ([`RenderCall`]`::Confirm`): if it finds nothing either,
//!    the links both added are the template's. The links a template's scripts draw on every page,
//!    once two renders or more agree on them, are links of each of its pages: the crawl names
//!    each page's template ([`crate::PageOutcome::template`]) and, once it ends, the links
//!    ([`crate::CrawlEvent::ScriptLinks`]), for the crawl database to record with every page.
//!
//! What the crawl and the browser ask of each other is in `browser`; the mode, why a page looks
//! like a shell, and the report in `report`; what `--render auto` learns of a site in `state`.

mod browser;
mod report;
mod state;
mod template;

pub use browser::{
    BoxFuture, BrowserReport, GateError, Refusal, RenderFailure, RenderRequest, RenderedPage,
    Renderer, RequestGate, RequestLog,
};
pub(crate) use report::shell_reason;
pub use report::{RenderMode, RenderReport, ShellReason, SiteDecision};
pub(crate) use state::RenderState;
pub use state::{MAX_FRUITLESS_PROBES, MAX_FRUITLESS_UNFINISHED, RENDERS_TO_LEARN};
pub(crate) use template::{
    Candidate, KeptPage, RenderCall, ServedPage, Template, is_empty_without_scripts,
};
