//! What one fetch job works on and hands back: the [`Hop`] of a redirect chain it is at, and
//! the [`Visit`] it returns to the frontier's owner, with how its chain ended ([`VisitEnd`]).

use std::collections::HashSet;

use sitemapper_extract::StructuredData;
use url::Url;

use crate::event::{Exclusion, PageOutcome, ResponseFacts, Verdict};
use crate::history::PreviousPage;
use crate::render::RenderCall;
use crate::robots::RobotsUnavailable;
use crate::scope::Scope;

/// What a fetch job hands back to the frontier's owner.
#[derive(Debug)]
pub(super) struct Visit {
    /// The depth of the queued URL the chain started from.
    pub depth: u32,
    /// The chain length of the page (see `traps`).
    pub chain: u32,
    /// The page whose links these are.
    pub page: Option<Url>,
    /// The links to follow from `page`; the frontier's owner normalizes them.
    pub links: Vec<Url>,
    /// Whether the chain ended in a successful response; why not, otherwise.
    pub end: VisitEnd,
    /// The scope the seed's redirects moved to, if they did.
    pub moved_scope: Option<Scope>,
    /// Of `links`, the pages of the site (normalized) only the rendered DOM links to.
    pub rendered_only: HashSet<Url>,
    /// The pages of the site (normalized) the rendered DOM links to.
    pub rendered_links: HashSet<Url>,
    /// The rendered DOM's canonical or noindex differ from the HTML's.
    pub render_differs: bool,
    /// Why the page was visited to be rendered, when it was.
    pub render_call: Option<RenderCall>,
    /// Why the page was rendered, when it was and its render succeeded.
    pub rendered_as: Option<RenderCall>,
}

/// How a visit's redirect chain ended: for the seed, whether the crawl can go on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum VisitEnd {
    /// A successful response ended the chain, or another visit reports where it led.
    Reached,
    /// robots.txt refused a URL of the chain; the text says which rules.
    Disallowed(String),
    /// robots.txt of a URL of the chain could not be read, which forbids its origin.
    RobotsUnavailable(RobotsUnavailable),
    /// The chain ended without a successful response, for this reason.
    Failed(String),
}

impl Visit {
    /// A visit that ended on `page`, whose links are to be followed.
    pub(super) fn found(page: Url, depth: u32, links: Vec<Url>, end: VisitEnd) -> Visit {
        Visit {
            depth,
            chain: 0,
            page: Some(page),
            links,
            end,
            moved_scope: None,
            rendered_only: HashSet::new(),
            rendered_links: HashSet::new(),
            render_differs: false,
            render_call: None,
            rendered_as: None,
        }
    }

    /// The visit, following the links an earlier run recorded for its page too (and its
    /// canonical or redirect target): the page failed in a way that may pass.
    pub(super) fn following(mut self, known: PreviousPage) -> Visit {
        self.links.extend(known.followed);
        if let Some(target) = known.verdict.target() {
            self.links.push(target.clone());
        }
        self
    }

    /// A visit that found no page to take links from.
    pub(super) fn ended(depth: u32, end: VisitEnd, moved_scope: Option<Scope>) -> Visit {
        Visit {
            depth,
            chain: 0,
            page: None,
            links: Vec::new(),
            end,
            moved_scope,
            rendered_only: HashSet::new(),
            rendered_links: HashSet::new(),
            render_differs: false,
            render_call: None,
            rendered_as: None,
        }
    }
}

/// One URL of a redirect chain, and how the crawl came to it.
#[derive(Debug)]
pub(super) struct Hop {
    pub url: Url,
    /// Clicks from the seed of the URL the chain started from.
    pub depth: u32,
    /// The page that linked to the chain's first URL, or the URL that redirected here.
    pub referrer: Option<Url>,
}

impl Hop {
    /// The hop's outcome when no request was made for it.
    pub(super) fn skipped(&self, exclusion: Exclusion) -> PageOutcome {
        PageOutcome::skipped(
            self.url.clone(),
            self.depth,
            self.referrer.clone(),
            exclusion,
        )
    }

    /// The hop's outcome when it answered with a redirect (`structured_data`: the crawl reads
    /// structured data). A redirect declares no structured data: when the crawl reads it,
    /// what was recorded for the URL is forgotten.
    pub(super) fn redirected(
        &self,
        structured_data: bool,
        facts: &ResponseFacts,
        verdict: Verdict,
    ) -> PageOutcome {
        PageOutcome {
            structured: structured_data.then(StructuredData::default),
            ..PageOutcome::fetched(
                self.url.clone(),
                self.depth,
                self.referrer.clone(),
                facts.clone(),
                verdict,
            )
        }
    }
}
