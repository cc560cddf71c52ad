//! The audit's outbound links: the URLs outside the site that a run's pages link to, and the
//! check of each, kept with its time so that a later audit reuses a recent one instead of
//! asking the other site again. Which URLs are outbound and how a check is made are the
//! caller's; here they are rows.

use std::collections::{BTreeMap, HashMap};

use jiff::Timestamp;
use rusqlite::params;

use crate::error::StoreError;
use crate::link_record::LinkKind;
use crate::run_id::RunId;
use crate::runs::timestamp;
use crate::store::Store;
use crate::verdict::{FailureKind, UnknownCode};

/// What the check of an outbound URL found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OutboundOutcome {
    /// Its redirects ended on a response with this status.
    Answered {
        /// The status.
        status: u16,
    },
    /// A request got no response.
    Failed {
        /// What kind of failure.
        failure: FailureKind,
        /// Why, in words.
        detail: String,
    },
    /// robots.txt of its host disallows it (or a URL it redirects to): not requested.
    Disallowed,
    /// A redirect whose `Location` leads nowhere, with the redirect's status.
    UnusableRedirect {
        /// The redirect's status.
        status: u16,
    },
    /// More redirects in a row than are followed.
    TooManyRedirects,
}

impl OutboundOutcome {
    /// The stable code the database keeps.
    fn code(&self) -> &'static str {
        match self {
            OutboundOutcome::Answered { .. } => "answered",
            OutboundOutcome::Failed { .. } => "failed",
            OutboundOutcome::Disallowed => "disallowed",
            OutboundOutcome::UnusableRedirect { .. } => "unusable-redirect",
            OutboundOutcome::TooManyRedirects => "too-many-redirects",
        }
    }

    /// The status the database keeps beside the code, if any.
    fn status(&self) -> Option<u16> {
        match self {
            OutboundOutcome::Answered { status } | OutboundOutcome::UnusableRedirect { status } => {
                Some(*status)
            }
            OutboundOutcome::Failed { .. }
            | OutboundOutcome::Disallowed
            | OutboundOutcome::TooManyRedirects => None,
        }
    }

    /// The outcome of a row: its code, status, failure kind and detail.
    fn read(
        code: &str,
        status: Option<u16>,
        failure: Option<FailureKind>,
        detail: Option<String>,
    ) -> Option<OutboundOutcome> {
        Some(match code {
            "answered" => OutboundOutcome::Answered { status: status? },
            "failed" => OutboundOutcome::Failed {
                failure: failure?,
                detail: detail.unwrap_or_default(),
            },
            "disallowed" => OutboundOutcome::Disallowed,
            "unusable-redirect" => OutboundOutcome::UnusableRedirect { status: status? },
            "too-many-redirects" => OutboundOutcome::TooManyRedirects,
            _ => return None,
        })
    }
}

/// One check of an outbound URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutboundCheck {
    /// What it found.
    pub outcome: OutboundOutcome,
    /// Where its redirects led (the URL that answered, failed or was disallowed), when that
    /// is not the URL itself.
    pub final_url: Option<String>,
    /// When it was made.
    pub checked_at: Timestamp,
}

/// An outbound URL of a run, with its check as the run has it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutboundLink {
    /// The URL linked to.
    pub url: String,
    /// Its check; `None` when the run did not check it (it was stopped first).
    pub check: Option<OutboundCheck>,
    /// Whether the run reused an earlier check instead of making one.
    pub from_cache: bool,
}

impl Store {
    /// The distinct targets of the links of `kinds` from pages of `run`, sorted.
    pub fn link_targets(&self, run: RunId, kinds: &[LinkKind]) -> Result<Vec<String>, StoreError> {
        let numbers: Vec<String> = kinds.iter().map(|kind| kind.number().to_string()).collect();
        let sql = format!(
            "SELECT DISTINCT targets.url
             FROM pages JOIN urls AS sources ON sources.url = pages.url
                 JOIN links ON links.source = sources.id
                 JOIN urls AS targets ON targets.id = links.target
             WHERE pages.last_seen_run = ?1 AND links.kind IN ({})
             ORDER BY 1",
            numbers.join(", ")
        );
        let mut statement = self
            .connection
            .prepare(&sql)
            .map_err(|source| self.sql_error(source))?;
        statement
            .query_map(params![run.0], |row| row.get(0))
            .and_then(Iterator::collect)
            .map_err(|source| self.sql_error(source))
    }

    /// Records `urls` as the outbound links of `run`, none of them checked yet. Only the
    /// latest run's are kept: an earlier audit's findings are kept with the audit.
    pub fn record_outbound_links(&mut self, run: RunId, urls: &[String]) -> Result<(), StoreError> {
        let path = self.path.clone();
        let transaction = self
            .connection
            .transaction()
            .map_err(|source| crate::error::sql_error(&path, source))?;
        let written = (|| -> rusqlite::Result<()> {
            transaction.execute("DELETE FROM outbound_links", [])?;
            let mut insert = transaction.prepare_cached(
                "INSERT OR IGNORE INTO outbound_links (run, url) VALUES (?1, ?2)",
            )?;
            for url in urls {
                let id = self.url_ids.id(&transaction, url)?;
                insert.execute(params![run.0, id])?;
            }
            Ok(())
        })();
        let written = written.and_then(|()| transaction.commit());
        self.url_ids.settle(written.is_ok());
        written.map_err(|source| crate::error::sql_error(&path, source))
    }

    /// The checks of outbound URLs made at `since` or later, by URL.
    pub fn outbound_checks_since(
        &self,
        since: Timestamp,
    ) -> Result<HashMap<String, OutboundCheck>, StoreError> {
        let mut statement = self
            .connection
            .prepare(
                "SELECT urls.url, checks.outcome, checks.status, checks.failure, checks.detail,
                        checks.final_url, checks.checked_at
                 FROM outbound_checks AS checks JOIN urls ON urls.id = checks.url
                 WHERE checks.checked_at >= ?1",
            )
            .map_err(|source| self.sql_error(source))?;
        statement
            .query_map(params![since.as_second()], |row| {
                Ok((row.get::<_, String>(0)?, read_check(row, 1)?))
            })
            .and_then(Iterator::collect)
            .map_err(|source| self.sql_error(source))
    }

    /// Records `check` of the outbound URL `url` of `run`, made now: kept for later audits,
    /// and the run's result for `url`.
    pub fn record_outbound_check(
        &mut self,
        run: RunId,
        url: &str,
        check: &OutboundCheck,
    ) -> Result<(), StoreError> {
        let (failure, detail) = match &check.outcome {
            OutboundOutcome::Failed { failure, detail } => (Some(*failure), Some(detail.as_str())),
            OutboundOutcome::Answered { .. }
            | OutboundOutcome::Disallowed
            | OutboundOutcome::UnusableRedirect { .. }
            | OutboundOutcome::TooManyRedirects => (None, None),
        };
        let path = self.path.clone();
        let transaction = self
            .connection
            .transaction()
            .map_err(|source| crate::error::sql_error(&path, source))?;
        let written = (|| -> rusqlite::Result<()> {
            let id = self.url_ids.id(&transaction, url)?;
            transaction.execute(
                "INSERT OR REPLACE INTO outbound_checks
                     (url, checked_at, outcome, status, failure, detail, final_url)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                params![
                    id,
                    check.checked_at.as_second(),
                    check.outcome.code(),
                    check.outcome.status(),
                    failure,
                    detail,
                    check.final_url
                ],
            )?;
            transaction.execute(
                "INSERT OR REPLACE INTO outbound_links (run, url, from_cache) VALUES (?1, ?2, 0)",
                params![run.0, id],
            )?;
            Ok(())
        })();
        let written = written.and_then(|()| transaction.commit());
        self.url_ids.settle(written.is_ok());
        written.map_err(|source| crate::error::sql_error(&path, source))
    }

    /// Records that `run` reused the check of `url` that the database holds.
    pub fn reuse_outbound_check(&mut self, run: RunId, url: &str) -> Result<(), StoreError> {
        self.connection
            .execute(
                "UPDATE outbound_links SET from_cache = 1
                 WHERE run = ?1 AND url = (SELECT id FROM urls WHERE url = ?2)",
                params![run.0, url],
            )
            .map(|_| ())
            .map_err(|source| self.sql_error(source))
    }

    /// The outbound links of `run`, sorted by URL, each with its check as the run has it.
    pub fn outbound_links(&self, run: RunId) -> Result<Vec<OutboundLink>, StoreError> {
        let mut statement = self
            .connection
            .prepare(
                "SELECT urls.url, checks.outcome, checks.status, checks.failure, checks.detail,
                        checks.final_url, checks.checked_at, outbound_links.from_cache
                 FROM outbound_links JOIN urls ON urls.id = outbound_links.url
                     LEFT JOIN outbound_checks AS checks ON checks.url = outbound_links.url
                         AND outbound_links.from_cache IS NOT NULL
                 WHERE outbound_links.run = ?1
                 ORDER BY urls.url",
            )
            .map_err(|source| self.sql_error(source))?;
        statement
            .query_map(params![run.0], |row| {
                let checked = row.get::<_, Option<String>>(1)?.is_some();
                Ok(OutboundLink {
                    url: row.get(0)?,
                    check: if checked {
                        Some(read_check(row, 1)?)
                    } else {
                        None
                    },
                    from_cache: row.get::<_, Option<bool>>(7)?.unwrap_or(false),
                })
            })
            .and_then(Iterator::collect)
            .map_err(|source| self.sql_error(source))
    }

    /// The pages of `run` that link to each of its outbound URLs by a link of `kinds`,
    /// sorted.
    pub fn outbound_referrers(
        &self,
        run: RunId,
        kinds: &[LinkKind],
    ) -> Result<BTreeMap<String, Vec<String>>, StoreError> {
        let numbers: Vec<String> = kinds.iter().map(|kind| kind.number().to_string()).collect();
        let sql = format!(
            "SELECT DISTINCT targets.url, sources.url
             FROM outbound_links JOIN urls AS targets ON targets.id = outbound_links.url
                 JOIN links ON links.target = outbound_links.url
                 JOIN urls AS sources ON sources.id = links.source
                 JOIN pages ON pages.url = sources.url
             WHERE outbound_links.run = ?1 AND pages.last_seen_run = ?1
               AND links.kind IN ({})
             ORDER BY 1, 2",
            numbers.join(", ")
        );
        let mut statement = self
            .connection
            .prepare(&sql)
            .map_err(|source| self.sql_error(source))?;
        let rows: Vec<(String, String)> = statement
            .query_map(params![run.0], |row| Ok((row.get(0)?, row.get(1)?)))
            .and_then(Iterator::collect)
            .map_err(|source| self.sql_error(source))?;
        let mut referrers: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for (target, source) in rows {
            referrers.entry(target).or_default().push(source);
        }
        Ok(referrers)
    }
}

/// The check in the row's columns from `first`: outcome, status, failure, detail, final URL,
/// checked at.
fn read_check(row: &rusqlite::Row<'_>, first: usize) -> rusqlite::Result<OutboundCheck> {
    let code: String = row.get(first)?;
    let status: Option<u16> = row.get(first + 1)?;
    let failure: Option<FailureKind> = row.get(first + 2)?;
    let detail: Option<String> = row.get(first + 3)?;
    let outcome = OutboundOutcome::read(&code, status, failure, detail).ok_or_else(|| {
        rusqlite::Error::FromSqlConversionFailure(
            first,
            rusqlite::types::Type::Text,
            Box::new(UnknownCode {
                what: "outbound outcome",
                code: code.clone(),
            }),
        )
    })?;
    let checked_at: i64 = row.get(first + 5)?;
    Ok(OutboundCheck {
        outcome,
        final_url: row.get(first + 4)?,
        checked_at: timestamp(checked_at).unwrap_or(Timestamp::UNIX_EPOCH),
    })
}

#[cfg(test)]
mod tests {
    use crate::tests::{at, open, page};
    use crate::*;

    fn link(target: &str, kind: LinkKind) -> LinkRecord {
        LinkRecord {
            target: target.to_string(),
            kind,
            anchor: None,
            nofollow: false,
        }
    }

    #[test]
    fn checks_are_kept_with_their_time_and_each_run_says_which_it_used() {
        let (_directory, mut store) = open();
        let run = store.begin_run("https://e.com/").unwrap();
        let home = PageRecord {
            links: Some(vec![
                link("https://other.example/a", LinkKind::Anchor),
                link("https://other.example/logo.png", LinkKind::Image),
                link("https://other.example/canonical", LinkKind::Canonical),
                link("https://e.com/about", LinkKind::Anchor),
            ]),
            ..page("https://e.com/", Verdict::Indexable)
        };
        let about = PageRecord {
            links: Some(vec![link("https://other.example/a", LinkKind::Anchor)]),
            ..page("https://e.com/about", Verdict::Indexable)
        };
        store.record_pages(run, &[home, about]).unwrap();
        let kinds = [LinkKind::Anchor, LinkKind::Image];
        assert_eq!(
            store.link_targets(run, &kinds).unwrap(),
            [
                "https://e.com/about",
                "https://other.example/a",
                "https://other.example/logo.png"
            ]
        );
        let outbound = [
            "https://other.example/a".to_string(),
            "https://other.example/logo.png".to_string(),
        ];
        store.record_outbound_links(run, &outbound).unwrap();
        let gone = OutboundCheck {
            outcome: OutboundOutcome::Failed {
                failure: FailureKind::Timeout,
                detail: "timed out".to_string(),
            },
            final_url: None,
            checked_at: at(1_000),
        };
        store
            .record_outbound_check(run, &outbound[0], &gone)
            .unwrap();
        let links = store.outbound_links(run).unwrap();
        assert_eq!(links.len(), 2);
        assert_eq!(links[0].check.as_ref(), Some(&gone));
        assert!(!links[0].from_cache);
        assert_eq!(links[1].check, None, "not checked");
        let referrers = store.outbound_referrers(run, &kinds).unwrap();
        assert_eq!(
            referrers[&outbound[0]],
            ["https://e.com/", "https://e.com/about"]
        );
        assert_eq!(referrers[&outbound[1]], ["https://e.com/"]);

        let next = store.begin_run("https://e.com/").unwrap();
        store.record_outbound_links(next, &outbound).unwrap();
        assert!(store.outbound_checks_since(at(1_001)).unwrap().is_empty());
        let fresh = store.outbound_checks_since(at(1_000)).unwrap();
        assert_eq!(fresh.get(&outbound[0]), Some(&gone));
        store.reuse_outbound_check(next, &outbound[0]).unwrap();
        let links = store.outbound_links(next).unwrap();
        assert_eq!(links[0].check.as_ref(), Some(&gone));
        assert!(links[0].from_cache);
        assert!(
            store.outbound_links(run).unwrap().is_empty(),
            "only the latest run's"
        );
    }
}
