//! The crawl database as the crawler's history: what the last run found for a URL, so that a
//! recrawl revalidates it with a conditional request and reuses it on 304.

use std::sync::Mutex;

use sitemapper_crawl::{Exclusion, History, PreviousPage, Verdict};
use sitemapper_store::{PageRecord, Store};
use url::Url;

/// A second connection to the crawl database (WAL lets it read while the recorder writes).
#[derive(Debug)]
pub struct StoreHistory {
    store: Mutex<Store>,
}

impl StoreHistory {
    pub fn new(store: Store) -> StoreHistory {
        StoreHistory {
            store: Mutex::new(store),
        }
    }
}

impl History for StoreHistory {
    fn previous(&self, url: &Url) -> Option<PreviousPage> {
        let store = self.store.lock().ok()?;
        let page = store.page(url.as_str()).ok()??;
        if page.status != Some(200) || !page.html_ok {
            return None;
        }
        let links = store
            .links_of(url.as_str())
            .ok()?
            .iter()
            .filter_map(|link| Url::parse(link).ok())
            .collect();
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
            fingerprint: page.fingerprint,
            links,
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
    Some(match (page.verdict, page.reason.as_deref()) {
        (sitemapper_store::Verdict::Indexable, Some("broken-canonical" | "canonical-loop"))
        | (sitemapper_store::Verdict::Canonicalised, _) => Verdict::Canonicalised { to: target()? },
        (sitemapper_store::Verdict::Indexable, _) => Verdict::Indexable,
        (sitemapper_store::Verdict::Redirect, _) => Verdict::Redirect { to: target()? },
        (sitemapper_store::Verdict::Excluded, Some("session-parameter")) => Verdict::Indexable,
        (sitemapper_store::Verdict::Excluded, Some("noindex")) => {
            Verdict::Excluded(Exclusion::NoIndex)
        }
        (sitemapper_store::Verdict::Excluded, Some("canonical-out-of-scope")) => {
            Verdict::Excluded(Exclusion::CanonicalOutOfScope(target()?))
        }
        // Anything else depends on more than the page: fetch it again.
        (sitemapper_store::Verdict::Excluded, _) => return None,
    })
}
