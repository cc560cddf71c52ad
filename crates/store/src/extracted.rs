//! The values of the user's custom extractions (`--extract NAME=SELECTOR`), per page: the
//! ones its last fetch gave, in document order. A page read again replaces them; a page
//! revalidated (304) keeps them, since nothing was read.

use std::collections::{BTreeMap, HashMap};

use rusqlite::params;

use crate::error::StoreError;
use crate::run_id::RunId;
use crate::store::Store;

/// One page's extracted values, as recorded.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PageExtraction {
    /// The page's normalized URL (the key of its row in `pages`).
    pub page: String,
    /// `(name, values in document order)`, one entry per extraction; an extraction with no
    /// value may be left out.
    pub values: Vec<(String, Vec<String>)>,
}

/// Page URL -> extraction name -> values in document order.
pub type ExtractedByPage = HashMap<String, BTreeMap<String, Vec<String>>>;

impl Store {
    /// Replaces the extracted values of each page in `pages`, in one transaction.
    pub fn record_extracted(&mut self, pages: &[PageExtraction]) -> Result<(), StoreError> {
        let path = self.path.clone();
        let sql_error = |source| crate::error::sql_error(&path, source);
        let transaction = self.connection.transaction().map_err(sql_error)?;
        {
            let mut forget = transaction
                .prepare_cached("DELETE FROM extracted WHERE page = ?1")
                .map_err(sql_error)?;
            let mut insert = transaction
                .prepare_cached(
                    "INSERT OR REPLACE INTO extracted (page, name, position, value)
                     VALUES (?1, ?2, ?3, ?4)",
                )
                .map_err(sql_error)?;
            for page in pages {
                forget.execute(params![page.page]).map_err(sql_error)?;
                for (name, values) in &page.values {
                    for (position, value) in values.iter().enumerate() {
                        let position = i64::try_from(position).unwrap_or(i64::MAX);
                        insert
                            .execute(params![page.page, name, position, value])
                            .map_err(sql_error)?;
                    }
                }
            }
        }
        transaction.commit().map_err(sql_error)
    }

    /// The extracted values of one page: name -> values in document order. One page at a
    /// time keeps the memory of a large site's file bounded.
    pub fn extracted_of(&self, page: &str) -> Result<BTreeMap<String, Vec<String>>, StoreError> {
        let mut statement = self
            .connection
            .prepare_cached(
                "SELECT name, value FROM extracted WHERE page = ?1 ORDER BY name, position",
            )
            .map_err(|source| self.sql_error(source))?;
        let mut rows = statement
            .query(params![page])
            .map_err(|source| self.sql_error(source))?;
        let mut values: BTreeMap<String, Vec<String>> = BTreeMap::new();
        while let Some(row) = rows.next().map_err(|source| self.sql_error(source))? {
            let read = |index| -> Result<String, StoreError> {
                row.get(index).map_err(|source| self.sql_error(source))
            };
            values.entry(read(0)?).or_default().push(read(1)?);
        }
        Ok(values)
    }

    /// The extracted values of every page `run` recorded: page URL -> name -> values in
    /// document order. Pages without values are absent.
    pub fn extracted_values(&self, run: RunId) -> Result<ExtractedByPage, StoreError> {
        let mut statement = self
            .connection
            .prepare(
                "SELECT extracted.page, extracted.name, extracted.value FROM extracted
                    JOIN pages ON pages.url = extracted.page AND pages.last_seen_run = ?1
                 ORDER BY extracted.page, extracted.name, extracted.position",
            )
            .map_err(|source| self.sql_error(source))?;
        let mut rows = statement
            .query(params![run.0])
            .map_err(|source| self.sql_error(source))?;
        let mut values = ExtractedByPage::new();
        while let Some(row) = rows.next().map_err(|source| self.sql_error(source))? {
            let read = |index| -> Result<String, StoreError> {
                row.get(index).map_err(|source| self.sql_error(source))
            };
            let (page, name, value) = (read(0)?, read(1)?, read(2)?);
            values
                .entry(page)
                .or_default()
                .entry(name)
                .or_default()
                .push(value);
        }
        Ok(values)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::PageRecord;
    use crate::tests::{open, page};
    use crate::verdict::Verdict;

    fn extraction(page: &str, values: &[(&str, &[&str])]) -> PageExtraction {
        PageExtraction {
            page: page.to_string(),
            values: values
                .iter()
                .map(|(name, values)| {
                    let values = values.iter().map(|value| value.to_string()).collect();
                    (name.to_string(), values)
                })
                .collect(),
        }
    }

    fn by_name(values: &[(&str, &[&str])]) -> BTreeMap<String, Vec<String>> {
        extraction("", values).values.into_iter().collect()
    }

    #[test]
    fn values_come_back_per_page_and_name_in_document_order() {
        let (_directory, mut store) = open();
        let run = store.begin_run("https://e.com/").unwrap();
        let (product, plain) = ("https://e.com/product", "https://e.com/plain");
        store
            .record_pages(
                run,
                &[
                    page(product, Verdict::Indexable),
                    page(plain, Verdict::Indexable),
                ],
            )
            .unwrap();
        store
            .record_extracted(&[
                extraction(product, &[("price", &["9.99"]), ("tag", &["z", "a", "m"])]),
                extraction(plain, &[("price", &[]), ("tag", &[])]),
            ])
            .unwrap();
        let values = store.extracted_values(run).unwrap();
        assert_eq!(values.len(), 1, "{values:?}");
        let expected = by_name(&[("price", &["9.99"]), ("tag", &["z", "a", "m"])]);
        assert_eq!(values[product], expected);
        assert_eq!(store.extracted_of(product).unwrap(), expected);
        assert!(store.extracted_of(plain).unwrap().is_empty());
    }

    #[test]
    fn a_page_recorded_again_replaces_its_values_and_other_runs_do_not_see_them() {
        let (_directory, mut store) = open();
        let url = "https://e.com/product";
        let first = store.begin_run("https://e.com/").unwrap();
        store
            .record_pages(first, &[page(url, Verdict::Indexable)])
            .unwrap();
        store
            .record_extracted(&[extraction(url, &[("price", &["1", "2"]), ("sku", &["A"])])])
            .unwrap();
        store
            .record_extracted(&[extraction(url, &[("price", &["3"])])])
            .unwrap();
        assert_eq!(
            store.extracted_values(first).unwrap()[url],
            by_name(&[("price", &["3"])])
        );
        // A run that has not recorded the page has none of its values.
        let second = store.begin_run("https://e.com/").unwrap();
        assert!(store.extracted_values(second).unwrap().is_empty());
        // A revalidated page is recorded without values: those of its last fetch stand.
        let revalidated = PageRecord {
            revalidated: true,
            ..page(url, Verdict::Indexable)
        };
        store.record_pages(second, &[revalidated]).unwrap();
        assert_eq!(
            store.extracted_values(second).unwrap()[url],
            by_name(&[("price", &["3"])])
        );
    }

    #[test]
    fn a_database_from_before_extraction_gets_the_table() {
        let directory = tempfile::tempdir().unwrap();
        let path = directory.path().join("old.db");
        let before = crate::schema::MIGRATIONS
            .iter()
            .position(|migration| migration.contains("CREATE TABLE extracted"))
            .unwrap();
        {
            let connection = rusqlite::Connection::open(&path).unwrap();
            for migration in &crate::schema::MIGRATIONS[..before] {
                connection.execute_batch(migration).unwrap();
            }
            connection
                .execute_batch(&format!(
                    "PRAGMA user_version = {before};
                     INSERT INTO runs (id, seed, started_at, status) VALUES (1, 'https://e.com/', 0, 'complete');
                     INSERT INTO pages (url, depth, html_ok, verdict, first_seen_run, last_seen_run)
                        VALUES ('https://e.com/', 0, 1, 'indexable', 1, 1);"
                ))
                .unwrap();
        }
        let mut store = Store::open(&path).unwrap();
        assert!(store.extracted_values(RunId(1)).unwrap().is_empty());
        store
            .record_extracted(&[extraction("https://e.com/", &[("h1", &["Home"])])])
            .unwrap();
        assert_eq!(
            store.extracted_values(RunId(1)).unwrap()["https://e.com/"],
            by_name(&[("h1", &["Home"])])
        );
    }
}
