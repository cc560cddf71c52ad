//! The oracle: what the sitemap and the change report must say, from the responses the
//! server actually served.

use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};

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
    /// and that response was a complete 200 HTML page that is not noindex (README, "What it
    /// lists"). A redirect is never listed itself, and a loop lists nothing.
    pub(super) fn from_served(served: &[Served]) -> Expected {
        let last: HashMap<&str, &Delivered> = served
            .iter()
            .map(|served| (served.path.as_str(), &served.delivered))
            .collect();
        let mut reachable = BTreeSet::from(["/".to_string()]);
        let mut queue = VecDeque::from(["/".to_string()]);
        let mut listed = BTreeMap::new();
        while let Some(path) = queue.pop_front() {
            let onward = match last.get(path.as_str()) {
                Some(Delivered::Html {
                    body,
                    last_modified,
                }) => {
                    if !is_noindex(body) {
                        listed.insert(path.clone(), w3c_datetime(*last_modified));
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
