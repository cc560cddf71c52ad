//! Crawler traps: URL spaces a site generates without end (docs/design.md, Bad input). Three
//! signals, checked by the frontier's owner before a link is queued:
//!
//! - repeated path segments (`/a/b/a/b/a/b`, the mark of a relative link resolved against
//!   itself over and over);
//! - a chain of same-shaped pages, each found only on the one before it: an endless calendar
//!   (`/calendar/2024/01` -> `/calendar/2024/02` -> ...) or a "next" link that never ends. The
//!   shape is the URL with digit runs and query values blanked; the chain is how many of its
//!   ancestors in a row had the same shape;
//! - session identifiers: a query parameter whose long random values change on every response
//!   for the same page. Once seen with three such values on one page, the parameter is
//!   stripped from every later URL, so the pages it multiplied collapse back into one.

use std::collections::{BTreeMap, HashMap, HashSet};

use sitemapper_extract::looks_like_a_token;
use url::Url;

/// A segment repeated this many times in one path marks a trap.
const MAX_SEGMENT_REPEATS: usize = 3;

/// Distinct random values of one parameter on one page that make it a session parameter.
const SESSION_VALUES: u8 = 3;

/// Pages tracked at once for session parameters. A site that makes fresh pages without end
/// would grow the table without end; a session parameter shows within a few pages, so
/// forgetting everything when the table is full loses nothing that matters.
const MAX_SESSION_CANDIDATES: usize = 100_000;

/// Distinct trap shapes reported; further ones are counted in one report per kind.
const MAX_TRAP_REPORTS: usize = 1_000;

/// Which kind of trap a URL was cut from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum TrapKind {
    /// A path that repeats one segment (`/a/b/a/b/a/b`).
    RepeatedSegments,
    /// A chain of same-shaped pages, each found only on the one before (an endless calendar).
    PatternChain,
}

/// One trap, as reported at the end of a crawl.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrapReport {
    /// Which kind of trap.
    pub kind: TrapKind,
    /// The first URL cut.
    pub example: String,
    /// URLs not followed because of it.
    pub urls_cut: u64,
}

/// The frontier owner's trap state. Single-threaded: only the owner touches it.
#[derive(Debug)]
pub(crate) struct TrapGuard {
    max_chain: u32,
    /// `(kind, shape)` -> report, so that one calendar is one report however many URLs it cut.
    reports: BTreeMap<(TrapKind, String), TrapReport>,
    /// Parameters learned to be session identifiers.
    session_parameters: HashSet<String>,
    /// `(page without the parameter, parameter)` -> distinct random values seen.
    session_candidates: HashMap<(String, String), Vec<String>>,
    /// Reused for the shapes of links: no allocation per link.
    scratch: String,
}

/// The shape of the page whose links are checked: computed once for all of them.
#[derive(Debug)]
pub(crate) struct PageShape {
    host: Option<String>,
    shape: String,
}

impl PageShape {
    pub(crate) fn of(page: &Url) -> PageShape {
        let mut shape = String::new();
        shape_into(&mut shape, page);
        PageShape {
            host: page.host_str().map(str::to_string),
            shape,
        }
    }
}

/// What the guard decided for one link.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum LinkCheck {
    /// Queue it, with its chain length.
    Follow {
        chain: u32,
    },
    Cut(TrapKind),
}

impl TrapGuard {
    /// `max_chain` 0 turns the chain limit off.
    pub(crate) fn new(max_chain: u32) -> TrapGuard {
        TrapGuard {
            max_chain,
            reports: BTreeMap::new(),
            session_parameters: HashSet::new(),
            session_candidates: HashMap::new(),
            scratch: String::new(),
        }
    }

    /// Learns session parameters from `url` and strips the ones known. Call before dedup.
    pub(crate) fn strip_sessions(&mut self, url: &mut Url) {
        let Some(query) = url.query() else {
            return;
        };
        let query = query.to_string();
        for (name, value) in url.query_pairs() {
            if self.session_parameters.contains(name.as_ref()) || !looks_like_a_token(&value) {
                continue;
            }
            let mut without = url.clone();
            without.set_query(query_without(&query, |candidate| candidate == name).as_deref());
            if self.session_candidates.len() >= MAX_SESSION_CANDIDATES {
                self.session_candidates.clear();
            }
            let values = self
                .session_candidates
                .entry((without.to_string(), name.to_string()))
                .or_default();
            if values.len() < usize::from(SESSION_VALUES)
                && !values.iter().any(|seen| *seen == value)
            {
                values.push(value.to_string());
            }
            if values.len() >= usize::from(SESSION_VALUES) {
                tracing::warn!(parameter = %name, "session parameter detected: stripped from every URL");
                self.session_parameters.insert(name.to_string());
            }
        }
        if !self.session_parameters.is_empty() {
            let stripped = query_without(&query, |name| self.session_parameters.contains(name));
            url.set_query(stripped.as_deref());
        }
    }

    /// Decides whether `link`, found on the page of shape `page` (whose chain is
    /// `page_chain`), is followed.
    pub(crate) fn check(&mut self, page: &PageShape, page_chain: u32, link: &Url) -> LinkCheck {
        if has_repeated_segments(link.path()) {
            return self.cut(TrapKind::RepeatedSegments, link);
        }
        self.scratch.clear();
        shape_into(&mut self.scratch, link);
        let chain = if page.host.as_deref() == link.host_str() && page.shape == self.scratch {
            page_chain + 1
        } else {
            0
        };
        if self.max_chain > 0 && chain > self.max_chain {
            return self.cut(TrapKind::PatternChain, link);
        }
        LinkCheck::Follow { chain }
    }

    fn cut(&mut self, kind: TrapKind, link: &Url) -> LinkCheck {
        let mut key = (kind, shape(link));
        if self.reports.len() >= MAX_TRAP_REPORTS && !self.reports.contains_key(&key) {
            key.1 = "*".to_string();
        }
        let report = self.reports.entry(key).or_insert_with(|| TrapReport {
            kind,
            example: link.to_string(),
            urls_cut: 0,
        });
        report.urls_cut += 1;
        LinkCheck::Cut(kind)
    }

    pub(crate) fn session_parameters(&self) -> Vec<String> {
        let mut names: Vec<String> = self.session_parameters.iter().cloned().collect();
        names.sort();
        names
    }

    pub(crate) fn reports(&self) -> Vec<TrapReport> {
        self.reports.values().cloned().collect()
    }
}

/// The raw query without the parameters `drop` names; other parameters keep their exact
/// encoding.
fn query_without(query: &str, drop: impl Fn(&str) -> bool) -> Option<String> {
    let kept: Vec<&str> = query
        .split('&')
        .filter(|pair| {
            let name = pair.split('=').next().unwrap_or_default();
            let name = percent_encoding::percent_decode_str(name).decode_utf8_lossy();
            !drop(&name)
        })
        .collect();
    (!kept.is_empty()).then(|| kept.join("&"))
}

fn has_repeated_segments(path: &str) -> bool {
    // Paths have few segments: counting by scanning beats hashing here, and allocates nothing.
    let segments = || path.split('/').filter(|segment| !segment.is_empty());
    segments().enumerate().any(|(index, segment)| {
        segments()
            .skip(index)
            .filter(|other| *other == segment)
            .count()
            >= MAX_SEGMENT_REPEATS
    })
}

/// The URL's path and query with digit runs and query values blanked.
fn shape(url: &Url) -> String {
    let mut shape = String::new();
    shape_into(&mut shape, url);
    shape
}

/// Appends the shape of `url` to `shape`.
fn shape_into(shape: &mut String, url: &Url) {
    let mut in_digits = false;
    for character in url.path().chars() {
        if character.is_ascii_digit() {
            if !in_digits {
                shape.push('#');
            }
            in_digits = true;
        } else {
            shape.push(character);
            in_digits = false;
        }
    }
    if url.query().is_some() {
        shape.push('?');
        let mut names: Vec<String> = url
            .query_pairs()
            .map(|(name, _)| name.into_owned())
            .collect();
        names.sort();
        shape.push_str(&names.join("&"));
    }
}

#[cfg(test)]
fn same_shape(first: &Url, second: &Url) -> bool {
    first.host_str() == second.host_str() && shape(first) == shape(second)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(text: &str) -> Url {
        Url::parse(text).unwrap_or_else(|error| panic!("{text}: {error}"))
    }

    #[test]
    fn repeated_segments_are_a_trap() {
        assert!(has_repeated_segments("/a/b/a/b/a/b"));
        assert!(has_repeated_segments("/sub/sub/sub/"));
        assert!(!has_repeated_segments("/2024/01/01/post"));
        assert!(!has_repeated_segments("/a/b/c/d/e/f/g/h"));
    }

    #[test]
    fn shapes_blank_digits_and_query_values() {
        assert_eq!(
            shape(&url("http://e.com/calendar/2024/01")),
            "/calendar/#/#"
        );
        assert_eq!(
            shape(&url("http://e.com/c?month=2024-01&view=m")),
            "/c?month&view"
        );
        assert!(same_shape(
            &url("http://e.com/c?month=2024-01"),
            &url("http://e.com/c?month=2024-02")
        ));
        assert!(!same_shape(
            &url("http://e.com/blog/post-1"),
            &url("http://e.com/about")
        ));
    }

    #[test]
    fn a_chain_of_same_shaped_pages_is_cut_at_the_limit() {
        let mut guard = TrapGuard::new(3);
        let mut chain = 0;
        for month in 1..=3 {
            let page = url(&format!("http://e.com/cal/{month}"));
            let next = url(&format!("http://e.com/cal/{}", month + 1));
            match guard.check(&PageShape::of(&page), chain, &next) {
                LinkCheck::Follow { chain: next_chain } => chain = next_chain,
                LinkCheck::Cut(kind) => panic!("cut early: {kind:?}"),
            }
        }
        assert_eq!(
            guard.check(
                &PageShape::of(&url("http://e.com/cal/4")),
                chain,
                &url("http://e.com/cal/5")
            ),
            LinkCheck::Cut(TrapKind::PatternChain)
        );
        assert_eq!(
            guard.check(
                &PageShape::of(&url("http://e.com/cal/4")),
                chain,
                &url("http://e.com/about")
            ),
            LinkCheck::Follow { chain: 0 },
            "another shape starts a new chain"
        );
        let reports = guard.reports();
        assert_eq!(reports.len(), 1);
        assert_eq!(reports[0].example, "http://e.com/cal/5");
    }

    #[test]
    fn session_parameters_are_learned_and_stripped() {
        let mut guard = TrapGuard::new(0);
        let mut stripped = Vec::new();
        for token in [
            "a1b2c3d4e5f6g7h8",
            "a1b2c3d4e5f6g7h8",
            "z9y8x7w6v5u4t3s2",
            "q1w2e3r4t5y6u7i8",
            "m1n2b3v4c5x6z7l8",
        ] {
            let mut link = url(&format!("http://e.com/page?id=7&sid2={token}"));
            guard.strip_sessions(&mut link);
            stripped.push(link.to_string());
        }
        assert_eq!(stripped[1], "http://e.com/page?id=7&sid2=a1b2c3d4e5f6g7h8");
        assert_eq!(stripped[2], "http://e.com/page?id=7&sid2=z9y8x7w6v5u4t3s2");
        assert_eq!(stripped[4], "http://e.com/page?id=7");
        assert_eq!(guard.session_parameters(), ["sid2"]);

        let mut pages = url("http://e.com/list?page=2");
        for _ in 0..5 {
            guard.strip_sessions(&mut pages);
        }
        assert_eq!(
            pages.as_str(),
            "http://e.com/list?page=2",
            "short values are kept"
        );
    }
}
