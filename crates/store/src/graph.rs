//! Queries over one run's link graph and hreflang alternates, for the audit: who links to a
//! URL, which alternates have no return link, every URL's verdict.

use std::collections::HashMap;

use rusqlite::{Row, params};

use crate::error::StoreError;
use crate::run_id::RunId;
use crate::store::Store;
use crate::verdict::{Reason, Verdict};

/// `(page, hreflang, href)` as the page declares it.
pub type DeclaredAlternate = (String, String, String);

impl Store {
    /// Every hreflang alternate declared by a page of `run`.
    pub fn declared_alternates(&self, run: RunId) -> Result<Vec<DeclaredAlternate>, StoreError> {
        self.rows(
            "SELECT alternates.page, alternates.hreflang, alternates.href FROM alternates
                JOIN pages ON pages.url = alternates.page AND pages.last_seen_run = ?1
             ORDER BY 1, 2, 3",
            run,
        )
    }

    /// The hreflang alternates declared by pages of `run` whose target does not declare the
    /// page back, ordered by page, hreflang and target.
    pub fn alternates_without_return(
        &self,
        run: RunId,
    ) -> Result<Vec<DeclaredAlternate>, StoreError> {
        self.rows(
            "SELECT declared.page, declared.hreflang, declared.href FROM alternates AS declared
                JOIN pages ON pages.url = declared.page AND pages.last_seen_run = ?1
             WHERE declared.href != declared.page
               AND NOT EXISTS (SELECT 1 FROM alternates AS back
                               WHERE back.page = declared.href AND back.href = declared.page)
             ORDER BY 1, 2, 3",
            run,
        )
    }

    /// `url -> (verdict, reason)` of every URL `run` recorded.
    pub fn verdicts(
        &self,
        run: RunId,
    ) -> Result<HashMap<String, (Verdict, Option<Reason>)>, StoreError> {
        let mut statement = self
            .connection
            .prepare("SELECT url, verdict, reason FROM pages WHERE last_seen_run = ?1")
            .map_err(|source| self.sql_error(source))?;
        statement
            .query_map(params![run.0], |row| {
                Ok((row.get(0)?, (row.get(1)?, row.get(2)?)))
            })
            .and_then(Iterator::collect)
            .map_err(|source| self.sql_error(source))
    }

    /// The rows of a query over one run, as tuples.
    fn rows<T>(&self, sql: &str, run: RunId) -> Result<Vec<T>, StoreError>
    where
        T: for<'row> TryFrom<&'row Row<'row>, Error = rusqlite::Error>,
    {
        let mut statement = self
            .connection
            .prepare(sql)
            .map_err(|source| self.sql_error(source))?;
        statement
            .query_map(params![run.0], |row| T::try_from(row))
            .and_then(Iterator::collect)
            .map_err(|source| self.sql_error(source))
    }
}
