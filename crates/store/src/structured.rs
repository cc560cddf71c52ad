//! The structured data each page declares, as the JSON the extractor writes (the store does
//! not read it): a page read again replaces it, a page revalidated (304) keeps it, since
//! nothing was read.

use rusqlite::{Transaction, params};

use crate::error::StoreError;
use crate::record::PageRecord;
use crate::run_id::RunId;
use crate::store::Store;

/// Writes the structured data of the pages that carry some (`Some`), within the caller's
/// transaction: an empty text forgets what was recorded.
pub(crate) fn write_structured(
    transaction: &Transaction<'_>,
    pages: &[PageRecord],
) -> rusqlite::Result<()> {
    let mut forget = transaction.prepare_cached("DELETE FROM structured_data WHERE page = ?1")?;
    let mut insert = transaction
        .prepare_cached("INSERT OR REPLACE INTO structured_data (page, data) VALUES (?1, ?2)")?;
    for page in pages {
        match page.structured.as_deref() {
            None => {}
            Some("") => {
                forget.execute(params![page.url])?;
            }
            Some(json) => {
                insert.execute(params![page.url, json])?;
            }
        }
    }
    Ok(())
}

impl Store {
    /// The structured data recorded for `page`, as JSON.
    pub fn structured_of(&self, page: &str) -> Result<Option<String>, StoreError> {
        let mut statement = self
            .connection
            .prepare_cached("SELECT data FROM structured_data WHERE page = ?1")
            .map_err(|source| self.sql_error(source))?;
        let mut rows = statement
            .query(params![page])
            .map_err(|source| self.sql_error(source))?;
        match rows.next().map_err(|source| self.sql_error(source))? {
            Some(row) => row.get(0).map_err(|source| self.sql_error(source)),
            None => Ok(None),
        }
    }

    /// Calls `visit` with the URL and the structured data (JSON) of each page `run` saw that
    /// has some, in URL order.
    pub fn for_each_structured<E: From<StoreError>>(
        &self,
        run: RunId,
        mut visit: impl FnMut(&str, &str) -> Result<(), E>,
    ) -> Result<(), E> {
        let mut statement = self
            .connection
            .prepare_cached(
                "SELECT structured_data.page, structured_data.data FROM structured_data
                    JOIN pages ON pages.url = structured_data.page
                 WHERE pages.last_seen_run = ?1
                 ORDER BY structured_data.page",
            )
            .map_err(|source| self.sql_error(source))?;
        let mut rows = statement
            .query(params![run.0])
            .map_err(|source| self.sql_error(source))?;
        while let Some(row) = rows.next().map_err(|source| self.sql_error(source))? {
            let page: String = row.get(0).map_err(|source| self.sql_error(source))?;
            let data: String = row.get(1).map_err(|source| self.sql_error(source))?;
            visit(&page, &data)?;
        }
        Ok(())
    }
}
