//! What `explain` asks of one URL beyond its row: how its status changed, which runs listed
//! it, and how it is linked.

use jiff::Timestamp;
use rusqlite::{OptionalExtension, params};

use crate::error::StoreError;
use crate::link_record::LinkKind;
use crate::run_id::RunId;
use crate::runs::timestamp;
use crate::store::Store;
use crate::verdict::FailureKind;

/// What a page answered until a run saw it answer otherwise.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatusChange {
    /// The run that saw the new status.
    pub run: RunId,
    /// The status it had until then; `None` when a request got no response.
    pub status: Option<u16>,
    /// For a request without a response, its kind.
    pub failure: Option<FailureKind>,
}

/// One of the listings kept that lists a URL.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Listing {
    /// The run.
    pub run: RunId,
    /// The `<lastmod>` it was listed with.
    pub lastmod: Option<Timestamp>,
}

/// When a page was seen, and the `<lastmod>` its row holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageTimes {
    /// The run that first recorded it.
    pub first_seen: RunId,
    /// The last run that recorded it.
    pub last_seen: RunId,
    /// Its `<lastmod>`, as the last run that recorded it decided.
    pub lastmod: Option<Timestamp>,
    /// The last fetch served a new `Last-Modified` over the same content, and the lastmod was
    /// kept.
    pub lastmod_kept: bool,
    /// The row stands as an earlier run recorded it through a failure that may pass: the
    /// status this run got (`None` for no response)...
    pub kept_status: Option<u16>,
    /// ... or the kind of failure of its request.
    pub kept_failure: Option<FailureKind>,
}

impl Store {
    /// When `url` was seen and its `<lastmod>`, if it was ever recorded.
    pub fn page_times(&self, url: &str) -> Result<Option<PageTimes>, StoreError> {
        self.connection
            .query_row(
                "SELECT first_seen_run, last_seen_run, lastmod, lastmod_kept, kept_status,
                        kept_failure
                 FROM pages WHERE url = ?1",
                params![url],
                |row| {
                    Ok(PageTimes {
                        first_seen: RunId(row.get(0)?),
                        last_seen: RunId(row.get(1)?),
                        lastmod: row.get::<_, Option<i64>>(2)?.and_then(timestamp),
                        lastmod_kept: row.get(3)?,
                        kept_status: row.get(4)?,
                        kept_failure: row.get(5)?,
                    })
                },
            )
            .optional()
            .map_err(|source| self.sql_error(source))
    }

    /// How `url`'s status changed, oldest first (see the schema's migration 21).
    pub fn status_changes(&self, url: &str) -> Result<Vec<StatusChange>, StoreError> {
        let mut statement = self
            .connection
            .prepare_cached(
                "SELECT run, status, failure FROM status_changes WHERE url = ?1 ORDER BY run",
            )
            .map_err(|source| self.sql_error(source))?;
        statement
            .query_map(params![url], |row| {
                Ok(StatusChange {
                    run: RunId(row.get(0)?),
                    status: row.get(1)?,
                    failure: row.get(2)?,
                })
            })
            .and_then(Iterator::collect)
            .map_err(|source| self.sql_error(source))
    }

    /// The runs whose listings are kept (the last 30) that list `url`, newest first.
    pub fn listings_of(&self, url: &str) -> Result<Vec<Listing>, StoreError> {
        // One lookup of the primary key per run, not a scan of every listing.
        let mut statement = self
            .connection
            .prepare_cached(
                "SELECT runs.id, listed.lastmod FROM runs
                     JOIN listed ON listed.run = runs.id AND listed.url = ?1
                 ORDER BY runs.id DESC",
            )
            .map_err(|source| self.sql_error(source))?;
        statement
            .query_map(params![url], |row| {
                Ok(Listing {
                    run: RunId(row.get(0)?),
                    lastmod: row.get::<_, Option<i64>>(1)?.and_then(timestamp),
                })
            })
            .and_then(Iterator::collect)
            .map_err(|source| self.sql_error(source))
    }

    /// The kinds of the links recorded from `source` to `target`.
    pub fn link_kinds(&self, source: &str, target: &str) -> Result<Vec<LinkKind>, StoreError> {
        let mut statement = self
            .connection
            .prepare_cached(
                "SELECT links.kind FROM links
                 WHERE links.source = (SELECT id FROM urls WHERE url = ?1)
                   AND links.target = (SELECT id FROM urls WHERE url = ?2)
                 ORDER BY links.kind",
            )
            .map_err(|source| self.sql_error(source))?;
        statement
            .query_map(params![source, target], |row| row.get(0))
            .and_then(Iterator::collect)
            .map_err(|source| self.sql_error(source))
    }

    /// The sitemaps of the site that list `url` (links of kind [`LinkKind::Sitemap`]), sorted.
    pub fn sitemaps_listing(&self, url: &str) -> Result<Vec<String>, StoreError> {
        self.index_links()?;
        let mut statement = self
            .connection
            .prepare_cached(
                "SELECT sources.url FROM links JOIN urls AS sources ON sources.id = links.source
                 WHERE links.target = (SELECT id FROM urls WHERE url = ?1) AND links.kind = ?2
                 ORDER BY sources.url",
            )
            .map_err(|source| self.sql_error(source))?;
        statement
            .query_map(params![url, LinkKind::Sitemap], |row| row.get(0))
            .and_then(Iterator::collect)
            .map_err(|source| self.sql_error(source))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{HintPlaces, PageRecord};
    use crate::store::KeepFailed;
    use crate::tests::{at, fetched};
    use crate::verdict::{Reason, Verdict};

    /// Records `pages` as a new complete run, with its listing.
    fn complete_run(store: &mut Store, pages: &[PageRecord]) -> RunId {
        crate::tests::complete_run(store, pages).0
    }

    fn answering(url: &str, status: u16) -> PageRecord {
        PageRecord {
            status: Some(status),
            html_ok: false,
            content_type: None,
            reason: Some(Reason::HttpStatus(status)),
            failed_transiently: status >= 500,
            ..PageRecord::new(url, Verdict::Excluded)
        }
    }

    #[test]
    fn a_status_is_recorded_when_it_changes_and_a_kept_failure_counts() {
        let directory = tempfile::tempdir().unwrap();
        let mut store = Store::open(&directory.path().join("crawl.db")).unwrap();
        let page = || fetched("https://e.com/a", "aaaa", Some(1_000), 2_000);
        let first = complete_run(&mut store, &[page()]);
        let second = complete_run(&mut store, &[page()]);
        assert_eq!(store.status_changes("https://e.com/a").unwrap(), vec![]);

        store.keep_failed_pages(Some(KeepFailed {
            from: second,
            runs: 2,
        }));
        let third = complete_run(&mut store, &[answering("https://e.com/a", 503)]);
        let fourth = complete_run(&mut store, &[page()]);
        let fifth = complete_run(&mut store, &[answering("https://e.com/a", 404)]);

        let change = |run, status| StatusChange {
            run,
            status: Some(status),
            failure: None,
        };
        assert_eq!(
            store.status_changes("https://e.com/a").unwrap(),
            vec![change(third, 200), change(fourth, 503), change(fifth, 200)]
        );
        let listed: Vec<RunId> = store
            .listings_of("https://e.com/a")
            .unwrap()
            .into_iter()
            .map(|listing| listing.run)
            .collect();
        assert_eq!(listed, vec![fourth, third, second, first]);
        assert_eq!(
            store.listings_of("https://e.com/a").unwrap()[0].lastmod,
            Some(at(1_000))
        );
        let times = store.page_times("https://e.com/a").unwrap().unwrap();
        assert_eq!((times.first_seen, times.last_seen), (first, fifth));
        assert_eq!(times.kept_status, None);
    }

    #[test]
    fn where_hints_were_found_is_kept_through_a_revalidation() {
        let directory = tempfile::tempdir().unwrap();
        let mut store = Store::open(&directory.path().join("crawl.db")).unwrap();
        let both = HintPlaces {
            header: true,
            html: true,
        };
        let page = PageRecord {
            canonical: Some("https://e.com/b".to_string()),
            canonical_from: both,
            noindex_from: HintPlaces {
                header: false,
                html: true,
            },
            ..fetched("https://e.com/a", "aaaa", None, 2_000)
        };
        complete_run(&mut store, &[page]);
        let revalidated = PageRecord {
            revalidated: true,
            ..fetched("https://e.com/a", "aaaa", None, 3_000)
        };
        complete_run(&mut store, &[revalidated]);
        let row = store.page("https://e.com/a").unwrap().unwrap();
        assert_eq!(row.canonical_from, both);
        assert!(row.noindex_from.html && !row.noindex_from.header);
        assert!(HintPlaces::default().is_none());
    }

    #[test]
    fn the_published_directory_is_remembered() {
        let directory = tempfile::tempdir().unwrap();
        let mut store = Store::open(&directory.path().join("crawl.db")).unwrap();
        assert_eq!(store.published_to().unwrap(), None);
        store.record_published_to("/srv/www").unwrap();
        store.record_published_to("/srv/site").unwrap();
        assert_eq!(store.page_times("https://e.com/").unwrap(), None);
        assert_eq!(store.published_to().unwrap().as_deref(), Some("/srv/site"));
    }
}
