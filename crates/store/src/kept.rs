//! Pages kept through a failure that may pass (docs/design.md, Fetching and politeness): a URL
//! the last complete run listed that now answers 5xx or 429, times out, or cannot be
//! connected to keeps its row as that run left it (verdict, lastmod, links, images,
//! alternates, structured data), so that it stays listed and nothing reports it removed. Only
//! `last_seen_run`, how the crawl came to it this time, and how it failed change. After
//! [`KeepFailed::runs`] runs in a row it is recorded as it answered, like any failure, and
//! the run that drops it says so ([`Store::kept_pages`]).

use std::collections::HashSet;

use rusqlite::{OptionalExtension, Transaction, params};

use crate::error::StoreError;
use crate::page_rows::{PAGE_COLUMNS, page_record};
use crate::record::PageRecord;
use crate::run_id::RunId;
use crate::store::{KeepFailed, Store};
use crate::verdict::{FailureKind, Reason, Verdict};

/// How a kept page failed this time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TransientCause {
    /// It answered this status (429, or a 5xx).
    Status(u16),
    /// It gave no answer, in this way.
    Failure(FailureKind),
}

impl std::fmt::Display for TransientCause {
    /// `503`, `timeout`, `connection`: how a summary counts them.
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TransientCause::Status(status) => write!(formatter, "{status}"),
            TransientCause::Failure(FailureKind::Timeout) => formatter.write_str("timeout"),
            TransientCause::Failure(FailureKind::Connect) => formatter.write_str("connection"),
            TransientCause::Failure(FailureKind::Body) => formatter.write_str("body cut short"),
            TransientCause::Failure(other) => formatter.write_str(other.code()),
        }
    }
}

/// What a run kept, and what it dropped after too many failures.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KeptPages {
    /// The run whose listing the kept pages come from.
    pub from: Option<RunId>,
    /// Kept pages by how they failed this time, most first.
    pub kept: Vec<(TransientCause, u64)>,
    /// Pages the last complete run listed that failed once too often and are no longer
    /// listed, by how they failed this time, most first.
    pub dropped: Vec<(TransientCause, u64)>,
}

impl KeptPages {
    /// Pages kept.
    pub fn kept_count(&self) -> u64 {
        self.kept.iter().map(|(_, count)| count).sum()
    }

    /// Pages dropped.
    pub fn dropped_count(&self) -> u64 {
        self.dropped.iter().map(|(_, count)| count).sum()
    }
}

/// The URLs a run requested, and those that failed in a way that may pass.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TransientFailures {
    /// URLs requested (a response, or a failure to get one).
    pub requested: u64,
    /// Of them, failed in a way that may pass, after the retries.
    pub failed: u64,
    /// How they failed, most first.
    pub causes: Vec<(TransientCause, u64)>,
}

/// How a failed page is recorded, as a cause.
fn cause_of(page: &PageRecord) -> Option<TransientCause> {
    match (page.status, page.failure) {
        (Some(status), _) => Some(TransientCause::Status(status)),
        (None, Some(failure)) => Some(TransientCause::Failure(failure)),
        (None, None) => None,
    }
}

/// Keeps the rows of the `pages` that failed transiently and that `keep.from` listed, unless
/// they have failed `keep.runs` runs in a row already; returns their URLs, which the caller
/// then leaves as they are.
pub(crate) fn keep_failed<'a>(
    transaction: &Transaction<'_>,
    run: RunId,
    keep: KeepFailed,
    pages: &'a [PageRecord],
) -> rusqlite::Result<HashSet<&'a str>> {
    let mut kept = HashSet::new();
    if keep.runs == 0 {
        return Ok(kept);
    }
    let mut statement = transaction.prepare_cached(
        "UPDATE pages SET last_seen_run = ?2, depth = ?3, referrer = ?4,
            failed_runs = failed_runs + 1, kept_status = ?5, kept_failure = ?6
         WHERE url = ?1 AND verdict = ?7 AND failed_runs < ?8
           AND EXISTS (SELECT 1 FROM listed WHERE run = ?9 AND listed.url = ?1)",
    )?;
    for page in pages.iter().filter(|page| page.failed_transiently) {
        let Some(cause) = cause_of(page) else {
            continue;
        };
        let (status, failure) = match cause {
            TransientCause::Status(status) => (Some(status), None),
            TransientCause::Failure(failure) => (None, Some(failure)),
        };
        let updated = statement.execute(params![
            page.url,
            run.0,
            page.depth,
            page.referrer,
            status,
            failure,
            Verdict::Indexable,
            keep.runs,
            keep.from.0,
        ])?;
        if updated > 0 {
            kept.insert(page.url.as_str());
        }
    }
    Ok(kept)
}

impl Store {
    /// From now on, pages recorded as failed in a way that may pass keep what `keep.from`
    /// listed for them (see the module); `None`: they are recorded as they answered.
    pub fn keep_failed_pages(&mut self, keep: Option<KeepFailed>) {
        self.keep = keep;
    }

    /// What `run` kept of the listing of `from`, the last complete run before it, and what
    /// it dropped from it after too many failures in a row.
    pub fn kept_pages(&self, run: RunId, from: Option<RunId>) -> Result<KeptPages, StoreError> {
        let Some(from) = from else {
            return Ok(KeptPages::default());
        };
        Ok(KeptPages {
            from: Some(from),
            kept: self.cause_counts(
                "SELECT kept_status, kept_failure, count(*) FROM pages
                 WHERE last_seen_run = ?1 AND verdict = ?2 AND failed_runs > 0
                 GROUP BY 1, 2",
                params![run.0, Verdict::Indexable],
            )?,
            dropped: self.cause_counts(
                "SELECT status, failure, count(*) FROM pages
                 WHERE last_seen_run = ?1 AND verdict != ?2 AND failed_runs > 0
                   AND url IN (SELECT url FROM listed WHERE run = ?3)
                 GROUP BY 1, 2",
                params![run.0, Verdict::Indexable, from.0],
            )?,
        })
    }

    /// How many URLs `run` requested, and how many of them failed in a way that may pass
    /// (kept or not), by cause: a run in which most failed so is a failed run, not a small
    /// sitemap.
    pub fn transient_failures(&self, run: RunId) -> Result<TransientFailures, StoreError> {
        let (requested, failed) = self
            .connection
            .query_row(
                "SELECT count(*), coalesce(sum(failed_runs > 0), 0) FROM pages
                 WHERE last_seen_run = ?1 AND (status IS NOT NULL OR reason = ?2)",
                params![run.0, Reason::FetchError],
                |row| Ok((row.get::<_, i64>(0)?, row.get::<_, i64>(1)?)),
            )
            .map_err(|source| self.sql_error(source))?;
        // A kept row holds the answer of the run it is kept from; how it failed now is aside.
        let causes = self.cause_counts(
            "SELECT CASE WHEN verdict = ?2 THEN kept_status ELSE status END,
                    CASE WHEN verdict = ?2 THEN kept_failure ELSE failure END, count(*)
             FROM pages WHERE last_seen_run = ?1 AND failed_runs > 0
             GROUP BY 1, 2",
            params![run.0, Verdict::Indexable],
        )?;
        Ok(TransientFailures {
            requested: requested.max(0) as u64,
            failed: failed.max(0) as u64,
            causes,
        })
    }

    /// The row of `url` when `run` saw it.
    pub fn page_seen_in(&self, run: RunId, url: &str) -> Result<Option<PageRecord>, StoreError> {
        self.connection
            .prepare_cached(&format!(
                "SELECT {PAGE_COLUMNS} FROM pages WHERE url = ?1 AND last_seen_run = ?2"
            ))
            .and_then(|mut statement| {
                statement
                    .query_row(params![url, run.0], page_record)
                    .optional()
            })
            .map_err(|source| self.sql_error(source))
    }

    /// Counts by cause, from a query that selects a status, a failure kind and a count,
    /// most first.
    fn cause_counts(
        &self,
        sql: &str,
        parameters: &[&dyn rusqlite::ToSql],
    ) -> Result<Vec<(TransientCause, u64)>, StoreError> {
        let mut statement = self
            .connection
            .prepare_cached(sql)
            .map_err(|source| self.sql_error(source))?;
        let rows = statement
            .query_map(parameters, |row| {
                Ok((
                    row.get::<_, Option<u16>>(0)?,
                    row.get::<_, Option<FailureKind>>(1)?,
                    row.get::<_, i64>(2)?,
                ))
            })
            .map_err(|source| self.sql_error(source))?;
        let mut counts = Vec::new();
        for row in rows {
            let (status, failure, count) = row.map_err(|source| self.sql_error(source))?;
            let cause = match (status, failure) {
                (Some(status), _) => TransientCause::Status(status),
                (None, Some(failure)) => TransientCause::Failure(failure),
                (None, None) => continue,
            };
            counts.push((cause, count.max(0) as u64));
        }
        counts.sort_by(|left, right| right.1.cmp(&left.1).then(left.0.cmp(&right.0)));
        Ok(counts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tests::{at, fetched};

    /// A run over `store` that records `pages`, lists what it may and completes.
    fn complete_run(store: &mut Store, pages: &[PageRecord]) -> RunId {
        crate::tests::complete_run(store, pages).0
    }

    /// `url` answering `status` this time, after its retries.
    fn failed(url: &str, status: u16) -> PageRecord {
        PageRecord {
            status: Some(status),
            html_ok: false,
            content_type: None,
            reason: Some(Reason::HttpStatus(status)),
            failed_transiently: true,
            ..PageRecord::new(url, Verdict::Excluded)
        }
    }

    #[test]
    fn a_listed_page_that_fails_is_kept_as_it_was_then_dropped_after_its_runs() {
        let directory = tempfile::tempdir().unwrap();
        let mut store = Store::open(&directory.path().join("crawl.db")).unwrap();
        let page = PageRecord {
            images: Some(vec!["https://e.com/a.png".to_string()]),
            ..fetched("https://e.com/a", "aaaa", Some(1_000), 2_000)
        };
        let listed = complete_run(&mut store, &[page]);
        let keep = |from| KeepFailed { from, runs: 1 };

        store.keep_failed_pages(Some(keep(listed)));
        let second = complete_run(&mut store, &[failed("https://e.com/a", 503)]);

        let row = store.page("https://e.com/a").unwrap().unwrap();
        assert_eq!(row.verdict, Verdict::Indexable);
        assert_eq!(row.status, Some(200));
        assert_eq!(row.last_modified, Some(at(1_000)));
        assert_eq!(store.images_of("https://e.com/a").unwrap().len(), 1);
        assert_eq!(store.listed_count(second).unwrap(), 1);
        let kept = store.kept_pages(second, Some(listed)).unwrap();
        assert_eq!(kept.kept, vec![(TransientCause::Status(503), 1)]);
        assert_eq!(kept.dropped_count(), 0);
        assert_eq!(store.change_report(second).unwrap().removed.len(), 0);

        store.keep_failed_pages(Some(keep(second)));
        let third = complete_run(&mut store, &[failed("https://e.com/a", 500)]);

        assert_eq!(store.listed_count(third).unwrap(), 0);
        let kept = store.kept_pages(third, Some(second)).unwrap();
        assert_eq!(kept.kept_count(), 0);
        assert_eq!(kept.dropped, vec![(TransientCause::Status(500), 1)]);
        assert_eq!(
            store.change_report(third).unwrap().removed,
            vec!["https://e.com/a".to_string()]
        );
    }

    #[test]
    fn a_page_the_last_run_did_not_list_is_recorded_as_it_answered() {
        let directory = tempfile::tempdir().unwrap();
        let mut store = Store::open(&directory.path().join("crawl.db")).unwrap();
        let listed = complete_run(&mut store, &[]);
        store.keep_failed_pages(Some(KeepFailed {
            from: listed,
            runs: 7,
        }));

        let run = complete_run(&mut store, &[failed("https://e.com/new", 503)]);

        assert_eq!(store.listed_count(run).unwrap(), 0);
        let failures = store.transient_failures(run).unwrap();
        assert_eq!((failures.requested, failures.failed), (1, 1));
        assert_eq!(failures.causes, vec![(TransientCause::Status(503), 1)]);
    }
}
