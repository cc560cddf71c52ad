//! The oracle: what the sitemap and the change report must say, from the responses the
//! server actually served.

use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};

use jiff::Timestamp;
use sitemapper_extract::{Document, ExtractOptions, ResponseHeaders};
use url::Url;

use super::misbehaviour::{Delivered, w3c_datetime};
use super::server::Served;
use super::site::is_noindex;

/// The links a parser finds in `body`: complete `<a href="...">` tags only, since a tag cut
/// by the end of the input is dropped (HTML5 tokenization, "eof-in-tag").
fn links_in(body: &[u8]) -> Vec<String> {
    let text = String::from_utf8_lossy(body);
    text.split("<a href=\"")
        .skip(1)
        .filter_map(|rest| {
            let (target, after) = rest.split_once('"')?;
            after.starts_with('>').then(|| target.to_string())
        })
        .collect()
}

/// The last response served for each path in a run: what the crawler records of it.
fn last_responses(served: &[Served]) -> HashMap<&str, &Delivered> {
    served
        .iter()
        .map(|served| (served.path.as_str(), &served.delivered))
        .collect()
}

/// A page's `<lastmod>` as the crawl database must hold it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Lastmod {
    /// This time, known from what was served.
    At(Timestamp),
    /// When the run saw the page's content change: some time during that run.
    SeenThisRun,
}

/// What the crawl database keeps of a page for its `<lastmod>`, followed from run to run.
#[derive(Debug)]
struct Recorded {
    fingerprint: Option<String>,
    lastmod: Option<Lastmod>,
}

/// The `<lastmod>` of every page over the nightly runs of one crawl database, by the rule of
/// docs/cron.md ("`<lastmod>` stays true and stable"): a page seen for the first time takes its
/// `Last-Modified`; content decides after that. Whether two responses carry the same content
/// is the content fingerprint's to say (visible text and links), which the oracle takes from
/// the extraction crate as the crawler does; the rule over it is the oracle's own.
#[derive(Debug, Default)]
pub(super) struct LastmodHistory {
    pages: HashMap<String, Recorded>,
}

impl LastmodHistory {
    /// Applies the last response of each path in a run. A lastmod that only the run's clock
    /// can give stays open until [`LastmodHistory::settle`].
    pub(super) fn record_run(&mut self, served: &[Served], url_of: impl Fn(&str) -> String) {
        for (path, delivered) in last_responses(served) {
            let (fingerprint, header) = match delivered {
                Delivered::Html {
                    body,
                    last_modified,
                } => (Some(fingerprint(&url_of(path), body)), Some(*last_modified)),
                Delivered::NotHtml { last_modified } => (None, *last_modified),
                Delivered::Redirect { .. } | Delivered::Status(_) | Delivered::Nothing => {
                    (None, None)
                }
            };
            let Some(page) = self.pages.get_mut(path) else {
                self.pages.insert(
                    path.to_string(),
                    Recorded {
                        fingerprint,
                        lastmod: header.map(Lastmod::At),
                    },
                );
                continue;
            };
            page.lastmod = match (&page.fingerprint, &fingerprint) {
                (Some(was), Some(now)) if was == now => page.lastmod,
                (Some(_), Some(_)) => match (header, page.lastmod) {
                    (Some(header), Some(Lastmod::At(lastmod))) if header > lastmod => {
                        Some(Lastmod::At(header))
                    }
                    (Some(header), None) => Some(Lastmod::At(header)),
                    _ => Some(Lastmod::SeenThisRun),
                },
                _ => header.map(Lastmod::At).or(page.lastmod),
            };
            if fingerprint.is_some() {
                page.fingerprint = fingerprint;
            }
        }
    }

    /// Settles the lastmods the run's clock gave with what the crawl database holds
    /// (`recorded`, by path), which must lie within the run (`from` to `to`). Returns the
    /// paths whose lastmod does not, with what it is.
    pub(super) fn settle(
        &mut self,
        recorded: &HashMap<String, Option<Timestamp>>,
        from: Timestamp,
        to: Timestamp,
    ) -> Vec<(String, String)> {
        let mut problems = Vec::new();
        for (path, page) in &mut self.pages {
            if page.lastmod != Some(Lastmod::SeenThisRun) {
                continue;
            }
            // The database keeps whole seconds.
            let earliest = Timestamp::from_second(from.as_second()).unwrap_or(from);
            match recorded.get(path).copied().flatten() {
                Some(seen) if earliest <= seen && seen <= to => {
                    page.lastmod = Some(Lastmod::At(seen));
                }
                other => {
                    problems.push((
                        path.clone(),
                        format!(
                            "changed content under an older Last-Modified: lastmod {other:?}, expected the time the run saw it ({earliest} to {to})"
                        ),
                    ));
                    page.lastmod = other.map(Lastmod::At);
                }
            }
        }
        problems
    }

    /// The lastmod `path` must have in the sitemap, as the sitemap writes it.
    fn lastmod_of(&self, path: &str) -> String {
        match self.pages.get(path).and_then(|page| page.lastmod) {
            Some(Lastmod::At(time)) => w3c_datetime(time),
            other => panic!("{path}: listed, yet its lastmod is {other:?}"),
        }
    }
}

/// The content fingerprint of a page served as `body` at `url`.
fn fingerprint(url: &str, body: &[u8]) -> String {
    let url = Url::parse(url).unwrap();
    let headers = ResponseHeaders {
        content_type: Some("text/html; charset=utf-8".to_string()),
        ..ResponseHeaders::default()
    };
    let document = Document {
        url: &url,
        body,
        headers: &headers,
    };
    sitemapper_extract::extract(&document, &ExtractOptions::default())
        .fingerprint
        .unwrap()
}

/// What one run's served responses justify.
#[derive(Debug)]
pub(super) struct Expected {
    /// Path -> lastmod of every page the sitemap must list.
    pub listed: BTreeMap<String, String>,
    /// Paths reachable from the seed through links of pages served well and served redirects.
    pub reachable: BTreeSet<String>,
}

impl Expected {
    /// The last request for a path decides what it is; a path is listed when it is reachable
    /// and that response was a complete 200 HTML page that is not noindex (docs/rules.md), with the lastmod `history` holds for it after the run. A redirect is never
    /// listed itself, and a loop lists nothing.
    pub(super) fn from_served(served: &[Served], history: &LastmodHistory) -> Expected {
        let last = last_responses(served);
        let mut reachable = BTreeSet::from(["/".to_string()]);
        let mut queue = VecDeque::from(["/".to_string()]);
        let mut listed = BTreeMap::new();
        while let Some(path) = queue.pop_front() {
            let onward = match last.get(path.as_str()) {
                Some(Delivered::Html { body, .. }) => {
                    if !is_noindex(body) {
                        listed.insert(path.clone(), history.lastmod_of(&path));
                    }
                    links_in(body)
                }
                Some(Delivered::Redirect { location }) => vec![location.clone()],
                _ => Vec::new(),
            };
            for next in onward {
                if reachable.insert(next.clone()) {
                    queue.push_back(next);
                }
            }
        }
        Expected { listed, reachable }
    }
}

/// The paths added, removed and changed (another lastmod) from `before` to `now`, as the
/// change report names them; the first run adds everything.
pub(super) fn changes(
    before: Option<&BTreeMap<String, String>>,
    now: &BTreeMap<String, String>,
) -> [(&'static str, Vec<String>); 3] {
    let empty = BTreeMap::new();
    let before = before.unwrap_or(&empty);
    let only_in = |one: &BTreeMap<String, String>, other: &BTreeMap<String, String>| {
        one.keys()
            .filter(|path| !other.contains_key(*path))
            .cloned()
            .collect()
    };
    let changed = now
        .iter()
        .filter(|(path, lastmod)| before.get(*path).is_some_and(|was| was != *lastmod))
        .map(|(path, _)| path.clone())
        .collect();
    [
        ("added", only_in(now, before)),
        ("removed", only_in(before, now)),
        ("changed", changed),
    ]
}
