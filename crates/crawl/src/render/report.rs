//! When pages are rendered ([`RenderMode`]), why a page is taken for an application shell
//! ([`ShellReason`]), and what rendering did in a crawl ([`RenderReport`]).

use std::collections::BTreeSet;
use std::fmt;

use url::Url;

use super::browser::{BrowserReport, RequestLog};

/// When pages are rendered in a browser.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RenderMode {
    /// Never: the HTML as served is all the crawl reads.
    Never,
    /// Where the HTML alone hides the page, learned per site (see the module's documentation).
    #[default]
    Auto,
    /// Every HTML page that answers 200.
    Always,
}

/// Why the crawl takes a page for an application shell that only its scripts fill in. Every
/// reason requires a script that runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ShellReason {
    /// An empty mount element, as written (`<div id="root">`).
    EmptyMount(String),
    /// A `<noscript>` asking for JavaScript.
    NoscriptAsksForJavascript,
    /// No link to a page of the site at all.
    NoLinks,
}

impl fmt::Display for ShellReason {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ShellReason::EmptyMount(element) => {
                write!(formatter, "scripts and an empty {element}")
            }
            ShellReason::NoscriptAsksForJavascript => {
                formatter.write_str("scripts and a <noscript> asking for JavaScript")
            }
            ShellReason::NoLinks => formatter.write_str("scripts and no link to the site"),
        }
    }
}

/// What rendering decided for the site as a whole, in [`RenderMode::Auto`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SiteDecision {
    /// No page was rendered to decide: none ran scripts, or the crawl stopped first.
    #[default]
    Undecided,
    /// The pages of at least one template build, in JavaScript, links to URLs the crawl
    /// would not have found or directives their HTML lacks: those pages are rendered.
    Renders,
    /// Every template rendered found nothing the crawl did not know: pages read as served.
    ReadAsServed,
}

/// What rendering did in a crawl, for its summary.
#[derive(Debug, Clone, Default)]
pub struct RenderReport {
    /// The mode the crawl ran in.
    pub mode: RenderMode,
    /// What [`RenderMode::Auto`] decided for the site.
    pub decision: SiteDecision,
    /// HTML pages that answered 200 (those that could be rendered).
    pub html_pages: u64,
    /// Pages rendered.
    pub rendered: u64,
    /// Templates (pages that load the same scripts) one page of which was rendered to learn
    /// whether they need rendering.
    pub templates_probed: u64,
    /// Of those, the templates whose pages build links or directives in JavaScript: all
    /// their pages are rendered.
    pub templates_rendered: u64,
    /// Of those, the templates whose renders came to add the same links every time: their
    /// script-drawn links learned, their other pages were read as served.
    pub templates_learned: u64,
    /// Templates read as served whose probe added links the crawl knew: a second page of
    /// each was rendered to tell the links its scripts draw on every page from the probe's own.
    pub templates_confirmed: u64,
    /// Links that scripts draw on every page of a template, summed over the templates whose
    /// renders agreed on them: links of each page of its kind (`ScriptLinks`).
    pub script_links: u64,
    /// Pages rendered because they showed they were unfinished (a loading text, a busy
    /// element, an empty list), whatever their template.
    pub unfinished_rendered: u64,
    /// URLs that rendered pages linked to and the crawl had not met otherwise: what
    /// rendering found.
    pub found_urls: u64,
    /// Pages whose rendering timed out (their HTML as served was used).
    pub timed_out: u64,
    /// Pages whose rendering failed otherwise (their HTML as served was used).
    pub failed: u64,
    /// The first page that looked like an application shell, and why.
    pub first_shell: Option<(Url, ShellReason)>,
    /// Pages that needed rendering and were not rendered: no browser, or it gave up.
    pub not_rendered: u64,
    /// Why the browser could not render, when it could not.
    pub unavailable: Option<String>,
    /// What the browser requested and refused, over all pages.
    pub requests: RequestLog,
    /// Hash routes linked to (`#/about`): not URLs a sitemap can list.
    pub hash_routes: BTreeSet<String>,
    /// The browser's state, when there is one.
    pub browser: Option<BrowserReport>,
}

/// Whether a page's HTML looks like an application shell: a script runs, and the page is
/// empty without it (an empty mount element, a `<noscript>` asking for JavaScript, or no link
/// to the site; `has_site_links` says whether it links to a page of the site).
pub(crate) fn shell_reason(
    shell: &sitemapper_extract::ShellSignals,
    has_site_links: bool,
) -> Option<ShellReason> {
    if shell.scripts == 0 {
        return None;
    }
    if let Some(element) = &shell.empty_mount {
        Some(ShellReason::EmptyMount(element.clone()))
    } else if shell.noscript_asks_for_javascript {
        Some(ShellReason::NoscriptAsksForJavascript)
    } else if !has_site_links {
        Some(ShellReason::NoLinks)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sitemapper_extract::ShellSignals;

    #[test]
    fn a_shell_needs_a_script_and_an_empty_page() {
        let mut shell = ShellSignals {
            scripts: 0,
            empty_mount: Some("<div id=\"root\">".to_string()),
            noscript_asks_for_javascript: true,
            ..ShellSignals::default()
        };
        assert_eq!(shell_reason(&shell, false), None, "nothing would fill it");
        shell.scripts = 2;
        assert_eq!(
            shell_reason(&shell, true),
            Some(ShellReason::EmptyMount("<div id=\"root\">".to_string()))
        );
        shell.empty_mount = None;
        assert_eq!(
            shell_reason(&shell, true),
            Some(ShellReason::NoscriptAsksForJavascript)
        );
        shell.noscript_asks_for_javascript = false;
        assert_eq!(shell_reason(&shell, true), None);
        assert_eq!(shell_reason(&shell, false), Some(ShellReason::NoLinks));
    }
}
