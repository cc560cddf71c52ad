//! The crawl database as the crawler's history: what the last run found for a URL, so that a
//! recrawl revalidates it with a conditional request and reuses it on 304.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard, PoisonError, RwLock};

use sitemapper_crawl::{Exclusion, Fingerprint, History, PreviousPage, Verdict};
use sitemapper_store::{PageRecord, Reason, Store, Verdict as Recorded};
use url::Url;

/// Link targets kept parsed at most: about 20 MB.
const PARSED_TARGETS: usize = 100_000;

/// Connections of their own to the crawl database (WAL lets them read while the recorder
/// writes), one per core: the crawl's workers look pages up at once, each on a connection
/// that is free.
#[derive(Debug)]
pub(crate) struct StoreHistory {
    stores: Vec<Mutex<Store>>,
    /// The URLs links lead to, by id, as parsed once: most pages of a site link to the same
    /// menu and to pages others link to, and parsing a URL costs more than looking it up.
    targets: RwLock<HashMap<i64, Url>>,
    /// The database held no page when the run began: a first crawl, with nothing to look up.
    empty: bool,
}

impl StoreHistory {
    /// A history over `stores` (at least one).
    pub(crate) fn new(stores: Vec<Store>) -> StoreHistory {
        // Unreadable, it is taken for not empty: each lookup then says why it failed.
        let empty = stores
            .first()
            .is_none_or(|store| store.has_no_pages().unwrap_or(false));
        StoreHistory {
            stores: stores.into_iter().map(Mutex::new).collect(),
            targets: RwLock::default(),
            empty,
        }
    }

    /// The URLs of the link targets `ids`, parsed once each (up to [`PARSED_TARGETS`]).
    /// A target that cannot be read or parsed is left out: the page it is on is still
    /// revalidated, and the link is found again when the page changes.
    fn targets_of(&self, store: &Store, ids: &[i64]) -> Vec<Url> {
        let mut targets = Vec::with_capacity(ids.len());
        let mut missing = Vec::new();
        {
            let parsed = self.targets.read().unwrap_or_else(PoisonError::into_inner);
            for id in ids {
                match parsed.get(id) {
                    Some(url) => targets.push(url.clone()),
                    None => missing.push(*id),
                }
            }
        }
        let mut read = Vec::with_capacity(missing.len());
        for id in missing {
            if let Some(url) = store
                .url_of(id)
                .inspect_err(|error| tracing::debug!(%error, "a link's target cannot be read"))
                .ok()
                .flatten()
                .and_then(|text| Url::parse(&text).ok())
            {
                read.push((id, url));
            }
        }
        if !read.is_empty() {
            let mut parsed = self.targets.write().unwrap_or_else(PoisonError::into_inner);
            for (id, url) in read {
                if parsed.len() < PARSED_TARGETS {
                    parsed.insert(id, url.clone());
                }
                targets.push(url);
            }
        }
        targets
    }

    /// A connection no other worker holds, or, when all are taken, the one `url` falls on.
    fn connection(&self, url: &Url) -> Option<MutexGuard<'_, Store>> {
        if let Some(free) = self.stores.iter().find_map(|store| store.try_lock().ok()) {
            return Some(free);
        }
        let index = url.as_str().len() % self.stores.len().max(1);
        self.stores
            .get(index)?
            .lock()
            .inspect_err(|_| tracing::debug!(%url, "the history's connection is poisoned"))
            .ok()
    }
}

impl History for StoreHistory {
    fn previous(&self, url: &Url) -> Option<PreviousPage> {
        if self.empty {
            return None;
        }
        // Without its history a page is fetched in full: slower, never wrong; said at debug level.
        let (page, followed) = {
            let store = self.connection(url)?;
            let page = store
                .page(url.as_str())
                .inspect_err(|error| tracing::debug!(%url, %error, "the history cannot be read"))
                .ok()??;
            // A 200 that was neither a page nor a document the crawl read has a verdict no
            // revalidation can reuse (`content_verdict`): its links are not looked up.
            if page.status != Some(200) || content_verdict(&page).is_none() {
                return None;
            }
            let ids = store
                .followed_links_of(url.as_str())
                .inspect_err(
                    |error| tracing::debug!(%url, %error, "the history's links cannot be read"),
                )
                .ok()?;
            (page, self.targets_of(&store, &ids))
        };
        Some(PreviousPage {
            verdict: content_verdict(&page)?,
            etag: page.etag,
            last_modified: page.last_modified,
            content_type: page.content_type,
            canonical: page
                .canonical
                .and_then(|canonical| Url::parse(&canonical).ok()),
            title: page.title,
            description: page.description,
            fingerprint: page.fingerprint.map(|fingerprint| Fingerprint {
                version: fingerprint.version,
                hex: fingerprint.hex,
            }),
            followed,
        })
    }
}

/// The verdict the page's own content gave, before the site-wide steps (canonical
/// resolution, session parameters) changed what is recorded.
fn content_verdict(page: &PageRecord) -> Option<Verdict> {
    let target = || {
        page.target
            .as_deref()
            .and_then(|target| Url::parse(target).ok())
    };
    Some(match (page.verdict, page.reason) {
        (Recorded::Indexable, Some(Reason::BrokenCanonical | Reason::CanonicalLoop))
        | (Recorded::Canonicalised, _) => Verdict::Canonicalised { to: target()? },
        (Recorded::Indexable, _) => Verdict::Indexable,
        (Recorded::Redirect, _) => Verdict::Redirect { to: target()? },
        (Recorded::Excluded, Some(Reason::SessionParameter)) => Verdict::Indexable,
        (Recorded::Excluded, Some(Reason::NoIndex)) => Verdict::Excluded(Exclusion::NoIndex),
        (Recorded::Excluded, Some(Reason::CanonicalOutOfScope)) => {
            Verdict::Excluded(Exclusion::CanonicalOutOfScope(target()?))
        }
        // Anything else depends on more than the page: fetch it again.
        (Recorded::Excluded, _) => return None,
    })
}

#[cfg(test)]
mod tests {
    use jiff::Timestamp;
    use sitemapper_store::{LinkKind, LinkRecord};

    use super::*;

    fn url(text: &str) -> Url {
        Url::parse(text).unwrap_or_else(|error| panic!("{text}: {error}"))
    }

    fn at(text: &str) -> Timestamp {
        text.parse()
            .unwrap_or_else(|error| panic!("{text}: {error}"))
    }

    /// `url` as a run records a page that answered 200 with HTML and listed it.
    fn fetched(url: &str) -> PageRecord {
        PageRecord {
            depth: 1,
            referrer: Some("https://e.com/".to_string()),
            content_type: Some("text/html; charset=utf-8".to_string()),
            fetched_at: Some(at("2024-05-02T08:00:00Z")),
            elapsed_ms: Some(12),
            body_bytes: Some(2048),
            ..PageRecord::new(url, Recorded::Indexable)
        }
    }

    fn link(target: &str, kind: LinkKind, anchor: Option<&str>, nofollow: bool) -> LinkRecord {
        LinkRecord {
            target: target.to_string(),
            kind,
            anchor: anchor.map(str::to_string),
            nofollow,
        }
    }

    /// A history over a new crawl database in which one run recorded `pages`.
    fn history_of(pages: &[PageRecord]) -> (tempfile::TempDir, StoreHistory) {
        let directory = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
        let database = directory.path().join("crawl.db");
        let mut store = Store::open(&database).unwrap_or_else(|error| panic!("{error}"));
        let run = store
            .begin_run("https://e.com/")
            .unwrap_or_else(|error| panic!("{error}"));
        store
            .record_pages(run, pages)
            .unwrap_or_else(|error| panic!("{error}"));
        // The history reads through a connection of its own, as in a run.
        let history = StoreHistory::new(vec![
            Store::open(&database).unwrap_or_else(|error| panic!("{error}")),
        ]);
        (directory, history)
    }

    #[test]
    fn a_recorded_page_comes_back_with_its_validators_verdict_and_the_links_to_follow() {
        let page = PageRecord {
            etag: Some("\"v1\"".to_string()),
            last_modified: Some(at("2024-05-01T12:30:00Z")),
            canonical: Some("https://e.com/guide".to_string()),
            title: Some("Guide".to_string()),
            description: Some("How to".to_string()),
            fingerprint: Some(sitemapper_store::Fingerprint {
                version: 1,
                hex: "9f86d081".to_string(),
            }),
            links: Some(vec![
                link(
                    "https://e.com/about",
                    LinkKind::Anchor,
                    Some("About"),
                    false,
                ),
                link("https://e.com/private", LinkKind::Anchor, None, true),
                link("https://e.com/fr/guide", LinkKind::Hreflang, None, false),
                link(
                    "https://e.com/logo.png",
                    LinkKind::Image,
                    Some("Logo"),
                    false,
                ),
                link("https://e.com/frame", LinkKind::Iframe, None, false),
            ]),
            ..fetched("https://e.com/guide")
        };
        let (_directory, history) = history_of(&[page]);
        let previous = history
            .previous(&url("https://e.com/guide"))
            .unwrap_or_else(|| panic!("the recorded page has no previous page"));
        assert!(previous.can_revalidate());
        assert_eq!(previous.etag.as_deref(), Some("\"v1\""));
        assert_eq!(previous.last_modified, Some(at("2024-05-01T12:30:00Z")));
        assert_eq!(
            previous.content_type.as_deref(),
            Some("text/html; charset=utf-8")
        );
        assert_eq!(previous.verdict, Verdict::Indexable);
        assert_eq!(previous.canonical, Some(url("https://e.com/guide")));
        assert_eq!(previous.title.as_deref(), Some("Guide"));
        assert_eq!(previous.description.as_deref(), Some("How to"));
        assert_eq!(
            previous.fingerprint,
            Some(Fingerprint {
                version: 1,
                hex: "9f86d081".to_string()
            })
        );
        assert!(
            previous.has_legacy_fingerprint(),
            "version 1 is the legacy one"
        );
        // What a 304 follows again: not the image, and the canonical through the verdict.
        let mut followed: Vec<&str> = previous.followed.iter().map(Url::as_str).collect();
        followed.sort_unstable();
        assert_eq!(
            followed,
            [
                "https://e.com/about",
                "https://e.com/fr/guide",
                "https://e.com/frame",
                "https://e.com/private",
            ]
        );
    }

    #[test]
    fn a_page_without_validators_comes_back_but_cannot_be_revalidated() {
        let (_directory, history) = history_of(&[fetched("https://e.com/plain")]);
        let previous = history
            .previous(&url("https://e.com/plain"))
            .unwrap_or_else(|| panic!("the recorded page has no previous page"));
        assert!(!previous.can_revalidate());
        assert!(previous.followed.is_empty());
    }

    #[test]
    fn a_redirect_recorded_as_a_link_of_a_page_is_not_given_back_as_one() {
        // An instant meta refresh answered 200: its target is recorded as a redirect link.
        let page = PageRecord {
            verdict: Recorded::Redirect,
            target: Some("https://e.com/new".to_string()),
            links: Some(vec![
                link("https://e.com/new", LinkKind::Redirect, None, false),
                link("https://e.com/about", LinkKind::Anchor, None, false),
            ]),
            ..fetched("https://e.com/old")
        };
        let (_directory, history) = history_of(&[page]);
        let previous = history
            .previous(&url("https://e.com/old"))
            .unwrap_or_else(|| panic!("the recorded page has no previous page"));
        assert_eq!(
            previous.verdict,
            Verdict::Redirect {
                to: url("https://e.com/new")
            }
        );
        assert_eq!(previous.followed, [url("https://e.com/about")]);
    }

    #[test]
    fn an_unknown_url_has_no_previous_page() {
        let (_directory, history) = history_of(&[fetched("https://e.com/known")]);
        assert!(history.previous(&url("https://e.com/unknown")).is_none());
    }

    #[test]
    fn a_page_that_was_not_a_200_html_page_nor_a_document_has_no_previous_page() {
        let missing = PageRecord {
            status: Some(404),
            html_ok: false,
            verdict: Recorded::Excluded,
            reason: Some(Reason::HttpStatus(404)),
            etag: Some("\"gone\"".to_string()),
            ..fetched("https://e.com/missing")
        };
        let document = PageRecord {
            content_type: Some("application/pdf".to_string()),
            html_ok: false,
            verdict: Recorded::Excluded,
            reason: Some(Reason::NotHtml),
            etag: Some("\"pdf\"".to_string()),
            ..fetched("https://e.com/report.pdf")
        };
        let listed_document = PageRecord {
            content_type: Some("application/pdf".to_string()),
            html_ok: false,
            etag: Some("\"listed\"".to_string()),
            ..fetched("https://e.com/listed.pdf")
        };
        let (_directory, history) = history_of(&[missing, document, listed_document]);
        assert!(history.previous(&url("https://e.com/missing")).is_none());
        assert!(history.previous(&url("https://e.com/report.pdf")).is_none());
        let listed = history.previous(&url("https://e.com/listed.pdf"));
        assert_eq!(
            listed.map(|previous| (previous.verdict, previous.content_type)),
            Some((Verdict::Indexable, Some("application/pdf".to_string()))),
            "a document the crawl listed is revalidated"
        );
    }

    #[test]
    fn the_verdict_given_back_is_the_one_the_content_gave_before_the_site_wide_rules() {
        let other = "https://e.com/other";
        let outside = "https://elsewhere.example/";
        let cases = [
            (Recorded::Indexable, None, None, Some(Verdict::Indexable)),
            // Listed as itself because its canonical's target was broken: the content still
            // named the other page.
            (
                Recorded::Indexable,
                Some(Reason::BrokenCanonical),
                Some(other),
                Some(Verdict::Canonicalised { to: url(other) }),
            ),
            (
                Recorded::Indexable,
                Some(Reason::CanonicalLoop),
                Some(other),
                Some(Verdict::Canonicalised { to: url(other) }),
            ),
            (
                Recorded::Canonicalised,
                None,
                Some(other),
                Some(Verdict::Canonicalised { to: url(other) }),
            ),
            (
                Recorded::Redirect,
                None,
                Some(other),
                Some(Verdict::Redirect { to: url(other) }),
            ),
            // Unlisted for its session parameter, a site-wide rule: the content was listable.
            (
                Recorded::Excluded,
                Some(Reason::SessionParameter),
                None,
                Some(Verdict::Indexable),
            ),
            (
                Recorded::Excluded,
                Some(Reason::NoIndex),
                None,
                Some(Verdict::Excluded(Exclusion::NoIndex)),
            ),
            (
                Recorded::Excluded,
                Some(Reason::CanonicalOutOfScope),
                Some(outside),
                Some(Verdict::Excluded(Exclusion::CanonicalOutOfScope(url(
                    outside,
                )))),
            ),
            // A target that does not parse gives no verdict to reuse: the page is fetched again.
            (Recorded::Canonicalised, None, Some("not a URL"), None),
            (Recorded::Redirect, None, None, None),
            // Exclusions that depend on more than the page.
            (
                Recorded::Excluded,
                Some(Reason::PatternChainTrap),
                None,
                None,
            ),
            (Recorded::Excluded, Some(Reason::RequestBudget), None, None),
        ];
        for (verdict, reason, target, expected) in cases {
            let page = PageRecord {
                verdict,
                reason,
                target: target.map(str::to_string),
                ..fetched("https://e.com/page")
            };
            assert_eq!(
                content_verdict(&page),
                expected,
                "{verdict} {reason:?} {target:?}"
            );
        }
    }
}
