//! Following sitemap indexes into the sitemaps they list (sitemaps.org 0.9): each sitemap is
//! read once however often it is listed, cycles and repeats are found, and both the nesting
//! followed and the number of sitemaps followed are bounded, so that a hostile index costs
//! bounded requests. The caller reads; the walk decides what to read next.

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::path::{Path, PathBuf};

use url::Url;

use crate::limits::MAX_URLS_PER_FILE;

/// Sitemaps followed at most through indexes in one walk: as many as one index may list
/// (sitemaps.org: "Sitemap index files may not list more than 50,000 Sitemaps").
pub const MAX_LISTED_SITEMAPS: usize = MAX_URLS_PER_FILE;

/// Levels of index whose sitemaps are followed: the first index, and one index inside it.
/// sitemaps.org has an index list sitemaps, not indexes, and Google reads no nested index;
/// one level is still followed so that what it lists is checked, and no deeper.
pub const MAX_INDEX_DEPTH: usize = 2;

/// What makes two listings name the same sitemap.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum SitemapKey {
    /// A sitemap on the web, by its URL as [`SitemapKey::url`] writes it.
    Url(String),
    /// A sitemap on disk, by its path as [`SitemapKey::file`] resolves it.
    File(PathBuf),
}

impl SitemapKey {
    /// A URL as parsed (scheme and host lower-cased, default port and dot-segments removed:
    /// RFC 3986 6.2.2 and 6.2.3), without its fragment, which never reaches the server (RFC
    /// 3986 3.5).
    pub fn url(url: &Url) -> SitemapKey {
        let mut url = url.clone();
        url.set_fragment(None);
        SitemapKey::Url(url.into())
    }

    /// A file by its canonical path (symbolic links and `..` resolved); as given when it
    /// cannot be resolved, since reading it will fail and say so.
    pub fn file(path: &Path) -> SitemapKey {
        SitemapKey::File(std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf()))
    }
}

/// A sitemap handed out by [`IndexWalk::next_to_read`], to be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SitemapId(usize);

/// The next sitemap to read: where it is, and how many indexes led to it (0 for a root).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Visit<T> {
    /// What to hand back to [`IndexWalk::follow`] when the sitemap turns out to be an index.
    pub id: SitemapId,
    /// Where the sitemap is, as the caller gave it.
    pub source: T,
    /// How many indexes led to the sitemap: 0 for a root.
    pub depth: usize,
}

/// One `<loc>` of an index: the sitemap it names, and the line it is on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed<T> {
    /// What makes the sitemap the same as one listed elsewhere.
    pub key: SitemapKey,
    /// Where the sitemap is, as the caller will read it.
    pub source: T,
    /// The line of the `<loc>` in the index.
    pub line: usize,
}

/// How much a problem counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Severity {
    /// Against the protocol, or a part of the sitemaps left unread.
    Error,
    /// Allowed, but wasteful.
    Warning,
}

/// Something wrong in how indexes list sitemaps, at a `<loc>` of an index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexProblem<T> {
    /// The index holding the `<loc>`.
    pub index: T,
    /// The line of the `<loc>`.
    pub line: usize,
    /// What is wrong.
    pub kind: IndexProblemKind<T>,
}

/// What is wrong in how an index lists sitemaps; written as a sentence by `Display`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IndexProblemKind<T> {
    /// The index lists itself or an index it was reached through: the sitemaps from the one
    /// listed again to this index, and the one listed again. Not read again; reported once
    /// per index.
    Cycle(Vec<T>),
    /// A sitemap listed before, by this index or another (`first`: where, unless it was a
    /// root). sitemaps.org does not forbid it; it is read once, and reported once per index.
    Repeated {
        /// The sitemap listed again.
        child: T,
        /// The index and line that listed it first.
        first: Option<(T, usize)>,
    },
    /// The sitemap listed here is itself an index; `followed` tells whether its own
    /// sitemaps are read (they are not beyond [`MAX_INDEX_DEPTH`]).
    NestedIndex {
        /// The index listed.
        child: T,
        /// Whether its sitemaps are read.
        followed: bool,
    },
    /// More than [`MAX_LISTED_SITEMAPS`] listed through indexes: this one and every later new
    /// one are not read (reported once per walk).
    TooMany,
}

impl<T> IndexProblemKind<T> {
    /// How much the problem counts: a repeat is a warning, anything else an error.
    pub fn severity(&self) -> Severity {
        match self {
            IndexProblemKind::Repeated { .. } => Severity::Warning,
            IndexProblemKind::Cycle(_)
            | IndexProblemKind::NestedIndex { .. }
            | IndexProblemKind::TooMany => Severity::Error,
        }
    }
}

impl<T: fmt::Display> fmt::Display for IndexProblemKind<T> {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IndexProblemKind::Cycle(cycle) => {
                let path: Vec<String> = cycle.iter().map(ToString::to_string).collect();
                let path = path.join(" -> ");
                write!(
                    formatter,
                    "a cycle of sitemap indexes: {path}; not read again"
                )
            }
            IndexProblemKind::Repeated {
                child,
                first: Some((index, line)),
            } => write!(
                formatter,
                "{child} is listed again (first at {index}:{line}); read once"
            ),
            IndexProblemKind::Repeated { child, first: None } => {
                write!(formatter, "{child} is listed again; read once")
            }
            IndexProblemKind::NestedIndex { child, followed } => {
                write!(
                    formatter,
                    "{child} is a sitemap index inside an index (sitemaps.org: an index lists sitemaps; search engines may not read a nested one)"
                )?;
                if !*followed {
                    write!(formatter, "; nested too deep, its sitemaps are not read")?;
                }
                Ok(())
            }
            IndexProblemKind::TooMany => write!(
                formatter,
                "more than {MAX_LISTED_SITEMAPS} sitemaps listed through indexes; the rest are not read"
            ),
        }
    }
}

/// One sitemap the walk knows: what to read it with, and the index `<loc>` that first
/// listed it (`None` for a root).
#[derive(Debug)]
struct Node<T> {
    source: T,
    depth: usize,
    listing: Option<(usize, usize)>,
}

/// The sitemaps to read, depth first in the order listed, each at most once.
#[derive(Debug)]
pub struct IndexWalk<T> {
    nodes: Vec<Node<T>>,
    known: HashMap<SitemapKey, usize>,
    /// Nodes not read yet, the next on top.
    pending: Vec<usize>,
    /// Sitemaps admitted through indexes, against [`MAX_LISTED_SITEMAPS`].
    followed: usize,
    too_many_reported: bool,
}

impl<T: Clone> IndexWalk<T> {
    /// A walk from `roots` (the sitemap given, or those robots.txt names); a root named twice
    /// is read once.
    pub fn new(roots: impl IntoIterator<Item = (SitemapKey, T)>) -> IndexWalk<T> {
        let mut walk = IndexWalk {
            nodes: Vec::new(),
            known: HashMap::new(),
            pending: Vec::new(),
            followed: 0,
            too_many_reported: false,
        };
        for (key, source) in roots {
            if !walk.known.contains_key(&key) {
                let id = walk.add(key, source, 0, None);
                walk.pending.push(id);
            }
        }
        walk.pending.reverse();
        walk
    }

    /// The next sitemap to read, or `None` when every one is read.
    pub fn next_to_read(&mut self) -> Option<Visit<T>> {
        let id = self.pending.pop()?;
        let node = &self.nodes[id];
        Some(Visit {
            id: SitemapId(id),
            source: node.source.clone(),
            depth: node.depth,
        })
    }

    /// `index` was read and is an index listing `listed`: queues the sitemaps not seen
    /// before (read next, in the order listed) and returns the problems found. A sitemap
    /// listed again is reported once per index, however often the index repeats it, so
    /// that a hostile index costs a bounded report.
    pub fn follow(
        &mut self,
        index: SitemapId,
        listed: impl IntoIterator<Item = Listed<T>>,
    ) -> Vec<IndexProblem<T>> {
        let SitemapId(index) = index;
        let mut problems: Vec<IndexProblem<T>> = self.nesting(index).into_iter().collect();
        let mut reported = HashSet::new();
        let mut admitted = Vec::new();
        for child in listed {
            if let Some(&known) = self.known.get(&child.key) {
                if reported.insert(known) {
                    problems.push(self.listed_again(index, known, child));
                }
                continue;
            }
            match self.admit(index, child) {
                Ok(Some(id)) => admitted.push(id),
                Ok(None) => {}
                Err(problem) => problems.push(problem),
            }
        }
        self.pending.extend(admitted.into_iter().rev());
        problems
    }

    fn add(
        &mut self,
        key: SitemapKey,
        source: T,
        depth: usize,
        listing: Option<(usize, usize)>,
    ) -> usize {
        let id = self.nodes.len();
        self.nodes.push(Node {
            source,
            depth,
            listing,
        });
        self.known.insert(key, id);
        id
    }

    /// An index below a root is nested: reported at the `<loc>` that listed it.
    fn nesting(&self, index: usize) -> Option<IndexProblem<T>> {
        let node = &self.nodes[index];
        let (parent, line) = node.listing?;
        Some(IndexProblem {
            index: self.nodes[parent].source.clone(),
            line,
            kind: IndexProblemKind::NestedIndex {
                child: node.source.clone(),
                followed: node.depth < MAX_INDEX_DEPTH,
            },
        })
    }

    /// A sitemap the walk knows, listed again by `index`: a cycle, or a repeat.
    fn listed_again(&self, index: usize, known: usize, child: Listed<T>) -> IndexProblem<T> {
        let kind = match self.cycle(index, known) {
            Some(cycle) => IndexProblemKind::Cycle(cycle),
            None => IndexProblemKind::Repeated {
                child: child.source,
                first: self.nodes[known]
                    .listing
                    .map(|(parent, line)| (self.nodes[parent].source.clone(), line)),
            },
        };
        IndexProblem {
            index: self.nodes[index].source.clone(),
            line: child.line,
            kind,
        }
    }

    /// A sitemap not known yet: its id when it is to be read, `None` when it is not (beyond
    /// the nesting followed, or the limit already reported), or the limit reached.
    fn admit(&mut self, index: usize, child: Listed<T>) -> Result<Option<usize>, IndexProblem<T>> {
        let depth = self.nodes[index].depth + 1;
        if depth > MAX_INDEX_DEPTH {
            return Ok(None);
        }
        if self.followed >= MAX_LISTED_SITEMAPS {
            if self.too_many_reported {
                return Ok(None);
            }
            self.too_many_reported = true;
            return Err(IndexProblem {
                index: self.nodes[index].source.clone(),
                line: child.line,
                kind: IndexProblemKind::TooMany,
            });
        }
        self.followed += 1;
        let listing = Some((index, child.line));
        Ok(Some(self.add(child.key, child.source, depth, listing)))
    }

    /// When `known` is `index` or an index it was reached through: the cycle, from `known`
    /// down to `index` and back to `known`. Each step goes to a node added earlier, so the
    /// climb ends at a root.
    fn cycle(&self, index: usize, known: usize) -> Option<Vec<T>> {
        let mut path = vec![index];
        let mut current = index;
        while current != known {
            current = self.nodes[current].listing?.0;
            path.push(current);
        }
        path.reverse();
        path.push(known);
        Some(
            path.into_iter()
                .map(|id| self.nodes[id].source.clone())
                .collect(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(name: &str) -> SitemapKey {
        SitemapKey::Url(format!("https://e.com/{name}"))
    }

    fn listed(names: &[&str]) -> Vec<Listed<String>> {
        names
            .iter()
            .enumerate()
            .map(|(position, name)| Listed {
                key: key(name),
                source: (*name).to_string(),
                line: position + 2,
            })
            .collect()
    }

    /// Walks a site of indexes (`name -> listed names`; a name not there is a urlset) and
    /// returns what was read, in order, and every problem as `index:line: message`.
    fn walk(roots: &[&str], indexes: &[(&str, &[&str])]) -> (Vec<String>, Vec<String>) {
        let mut walk = IndexWalk::new(roots.iter().map(|name| (key(name), name.to_string())));
        let (mut read, mut problems) = (Vec::new(), Vec::new());
        while let Some(visit) = walk.next_to_read() {
            read.push(visit.source.clone());
            let Some((_, children)) = indexes.iter().find(|(name, _)| *name == visit.source) else {
                continue;
            };
            for problem in walk.follow(visit.id, listed(children)) {
                problems.push(format!(
                    "{}:{}: {}",
                    problem.index, problem.line, problem.kind
                ));
            }
        }
        (read, problems)
    }

    #[test]
    fn an_index_listing_itself_is_a_cycle_read_once() {
        let (read, problems) = walk(&["a"], &[("a", &["s1", "a", "s2"])]);
        assert_eq!(read, ["a", "s1", "s2"]);
        assert_eq!(
            problems,
            ["a:3: a cycle of sitemap indexes: a -> a; not read again"]
        );
    }

    #[test]
    fn two_indexes_listing_each_other_are_a_cycle() {
        let (read, problems) = walk(&["a"], &[("a", &["b"]), ("b", &["a", "s"])]);
        assert_eq!(read, ["a", "b", "s"]);
        assert_eq!(problems.len(), 2, "{problems:?}");
        assert!(problems[0].starts_with("a:2: b is a sitemap index inside an index"));
        assert_eq!(
            problems[1],
            "b:2: a cycle of sitemap indexes: a -> b -> a; not read again"
        );
    }

    #[test]
    fn a_child_listed_twice_or_by_two_indexes_is_read_once_with_a_warning() {
        let (read, problems) = walk(&["a"], &[("a", &["s", "b", "s"]), ("b", &["s"])]);
        assert_eq!(read, ["a", "s", "b"]);
        assert_eq!(
            problems[0],
            "a:4: s is listed again (first at a:2); read once"
        );
        assert!(problems[1].starts_with("a:3: b is a sitemap index inside an index"));
        assert_eq!(
            problems[2],
            "b:2: s is listed again (first at a:2); read once"
        );
    }

    #[test]
    fn a_sitemap_repeated_many_times_in_one_index_is_reported_once_there() {
        let mut children = vec!["a"; 1000];
        children.extend(vec!["s"; 1000]);
        let (read, problems) = walk(&["a"], &[("a", &children)]);
        assert_eq!(read, ["a", "s"]);
        assert_eq!(
            problems,
            [
                "a:2: a cycle of sitemap indexes: a -> a; not read again",
                "a:1003: s is listed again (first at a:1002); read once",
            ]
        );
    }

    #[test]
    fn only_a_repeat_is_a_warning() {
        let kinds = [
            IndexProblemKind::Cycle(vec!["a", "a"]),
            IndexProblemKind::Repeated {
                child: "s",
                first: None,
            },
            IndexProblemKind::NestedIndex {
                child: "b",
                followed: true,
            },
            IndexProblemKind::TooMany,
        ];
        let severities: Vec<Severity> = kinds.iter().map(IndexProblemKind::severity).collect();
        assert_eq!(
            severities,
            [
                Severity::Error,
                Severity::Warning,
                Severity::Error,
                Severity::Error
            ]
        );
    }

    #[test]
    fn a_cycle_through_a_sibling_is_a_repeat_and_roots_are_read_once() {
        // b and c list each other, but neither was reached through the other: each is a
        // sitemap listed again, read once.
        let (read, problems) = walk(
            &["a", "a"],
            &[("a", &["b", "c"]), ("b", &["c"]), ("c", &["b"])],
        );
        assert_eq!(read, ["a", "b", "c"]);
        assert!(problems.contains(&"b:2: c is listed again (first at a:3); read once".to_string()));
        assert!(problems.contains(&"c:2: b is listed again (first at a:2); read once".to_string()));
    }

    #[test]
    fn nesting_is_followed_one_level_and_cycles_below_it_are_still_found() {
        let (read, problems) = walk(&["a"], &[("a", &["b"]), ("b", &["c"]), ("c", &["a", "d"])]);
        assert_eq!(read, ["a", "b", "c"], "d, below c, is not read");
        assert!(problems[0].starts_with("a:2: b is a sitemap index inside an index"));
        assert!(problems[1].starts_with("b:2: c is a sitemap index inside an index"));
        assert!(
            problems[1].ends_with("; nested too deep, its sitemaps are not read"),
            "{problems:?}"
        );
        assert_eq!(
            problems[2],
            "c:2: a cycle of sitemap indexes: a -> b -> c -> a; not read again"
        );
        assert_eq!(problems.len(), 3);
    }

    #[test]
    fn the_sitemaps_followed_are_bounded() {
        let names: Vec<String> = (0..=MAX_LISTED_SITEMAPS + 5)
            .map(|number| format!("s{number}"))
            .collect();
        let mut walk = IndexWalk::new([(key("a"), "a".to_string()), (key("z"), "z".to_string())]);
        let mut read = 0;
        let mut problems = Vec::new();
        while let Some(visit) = walk.next_to_read() {
            read += 1;
            if visit.source == "a" || visit.source == "z" {
                let children = names.iter().map(|name| Listed {
                    key: key(name),
                    source: name.clone(),
                    line: 1,
                });
                problems.extend(walk.follow(visit.id, children));
            }
        }
        assert_eq!(read, 2 + MAX_LISTED_SITEMAPS);
        let too_many: Vec<_> = problems
            .iter()
            .filter(|problem| problem.kind == IndexProblemKind::TooMany)
            .collect();
        assert_eq!(too_many.len(), 1, "reported once");
        assert_eq!(too_many[0].index, "a");
    }

    #[test]
    fn keys_compare_urls_by_their_normalized_form() {
        let parse = |text: &str| Url::parse(text).unwrap_or_else(|error| panic!("{error}"));
        let same = [
            "https://e.com/sitemap.xml",
            "HTTPS://E.COM/sitemap.xml",
            "https://e.com:443/sitemap.xml",
            "https://e.com/x/../sitemap.xml",
            "https://e.com/sitemap.xml#part",
        ];
        for text in same {
            assert_eq!(
                SitemapKey::url(&parse(text)),
                SitemapKey::url(&parse(same[0])),
                "{text}"
            );
        }
        for text in ["https://e.com/Sitemap.xml", "http://e.com/sitemap.xml"] {
            assert_ne!(
                SitemapKey::url(&parse(text)),
                SitemapKey::url(&parse(same[0])),
                "{text}"
            );
        }
    }

    #[test]
    fn keys_compare_files_by_their_canonical_path() {
        let directory = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
        let file = directory.path().join("sitemap.xml");
        std::fs::write(&file, "x").unwrap_or_else(|error| panic!("{error}"));
        let roundabout = directory.path().join(".").join("sitemap.xml");
        assert_eq!(SitemapKey::file(&roundabout), SitemapKey::file(&file));
        let missing = directory.path().join("missing.xml");
        assert_eq!(
            SitemapKey::file(&missing),
            SitemapKey::File(missing.clone())
        );
    }
}
