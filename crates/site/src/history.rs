//! The crawl database as the crawler's history: what the last run found for a URL, so that a
//! recrawl revalidates it with a conditional request and reuses it on 304.

use std::sync::Mutex;

use sitemapper_crawl::{Exclusion, History, PageLink, PageLinkKind, PreviousPage, Verdict};
use sitemapper_store::{LinkKind, LinkRecord, PageRecord, Reason, Store, Verdict as Recorded};
use url::Url;

/// A second connection to the crawl database (WAL lets it read while the recorder writes).
#[derive(Debug)]
pub(crate) struct StoreHistory {
    store: Mutex<Store>,
}

impl StoreHistory {
    pub(crate) fn new(store: Store) -> StoreHistory {
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
            .into_iter()
            .filter_map(page_link)
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

/// The crawl's form of a recorded link of a page (a redirect is no link of a page).
fn page_link(link: LinkRecord) -> Option<PageLink> {
    Some(PageLink {
        url: Url::parse(&link.target).ok()?,
        kind: match link.kind {
            LinkKind::Anchor => PageLinkKind::Anchor,
            LinkKind::Canonical => PageLinkKind::Canonical,
            LinkKind::Hreflang => PageLinkKind::Hreflang,
            LinkKind::Image => PageLinkKind::Image,
            LinkKind::Iframe => PageLinkKind::Frame,
            LinkKind::Refresh => PageLinkKind::Refresh,
            LinkKind::Redirect | LinkKind::Sitemap => return None,
        },
        anchor: link.anchor,
        nofollow: link.nofollow,
    })
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
