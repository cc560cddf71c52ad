//! What pages are to rendering: the template a page is made from, a page kept to be rendered
//! later, a response kept with it, and why one page is rendered.

use sitemapper_extract::Unfinished;
use url::Url;

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

    /// The template as a number, the same in every crawl of any site: what a page's record
    /// names it by ([`crate::PageOutcome::template`]).
    pub(crate) fn key(&self) -> u64 {
        let mut text = self.scripts.join("\n");
        text.push_str(if self.inline { "\n+inline" } else { "\n" });
        xxhash_rust::xxh3::xxh3_64(text.as_bytes())
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
    /// What shows the page unfinished until a script has run, if anything does: such a page
    /// is rendered for itself, whatever its template.
    pub unfinished: Option<Unfinished>,
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
    /// The mode renders every page as it is fetched, or its template's decision does (the
    /// template, in [`RenderMode::Auto`]).
    Every(Option<Template>),
    /// The page stands for its template, which this render judges.
    Probe(Template),
    /// Its template was found to need rendering after the page was read as served.
    Again(Template),
    /// The page shows it is unfinished (see [`Candidate::unfinished`]): rendered for itself
    /// after it was read as served; its template counts what such renders find.
    Unfinished(Template),
    /// Its template's probe added links the crawl knew: this second page tells the links
    /// its scripts draw on every page from the probe's own.
    Confirm(Template),
}

impl RenderCall {
    /// Whether the page was recorded as served earlier in the crawl: its record is
    /// replaced, and its content fingerprint stays its HTML's (the fingerprint says whether
    /// the content served changed between runs, and each run records this page the same way).
    pub(crate) fn rerenders(&self) -> bool {
        !matches!(self, RenderCall::Every(_))
    }
}
