//! The sitemap files: which file each listed page of a run goes into (a placement kept for
//! the writing only), and for each file published, a digest of its content and the time that
//! content last changed, which the index gives as the file's `<lastmod>`.

use std::collections::HashMap;

use jiff::Timestamp;
use rusqlite::params;

use crate::error::StoreError;
use crate::record::ListedPage;
use crate::run_id::RunId;
use crate::runs::timestamp;
use crate::store::Store;
use crate::verdict::Verdict;

/// One published sitemap file, as recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SitemapFileRecord {
    /// Its name in the output directory.
    pub name: String,
    /// A digest of its uncompressed content.
    pub digest: u64,
    /// When its content last changed.
    pub changed_at: Timestamp,
}

impl Store {
    /// The sitemap files recorded by the last run that published, by name.
    pub fn sitemap_files(&self) -> Result<HashMap<String, SitemapFileRecord>, StoreError> {
        let mut statement = self
            .connection
            .prepare_cached("SELECT name, digest, changed_at FROM sitemap_files")
            .map_err(|source| self.sql_error(source))?;
        let rows = statement
            .query_map([], |row| {
                Ok((
                    row.get::<_, String>(0)?,
                    row.get::<_, i64>(1)?,
                    row.get::<_, i64>(2)?,
                ))
            })
            .map_err(|source| self.sql_error(source))?;
        let mut files = HashMap::new();
        for row in rows {
            let (name, digest, changed_at) = row.map_err(|source| self.sql_error(source))?;
            let Some(changed_at) = timestamp(changed_at) else {
                continue;
            };
            files.insert(
                name.clone(),
                SitemapFileRecord {
                    name,
                    digest: digest as u64,
                    changed_at,
                },
            );
        }
        Ok(files)
    }

    /// Replaces the record of the published sitemap files with `files`.
    pub fn record_sitemap_files(&mut self, files: &[SitemapFileRecord]) -> Result<(), StoreError> {
        let path = self.path.clone();
        let sql_error = |source| crate::error::sql_error(&path, source);
        let transaction = self.connection.transaction().map_err(sql_error)?;
        transaction
            .execute("DELETE FROM sitemap_files", [])
            .map_err(sql_error)?;
        {
            let mut insert = transaction
                .prepare_cached(
                    "INSERT OR REPLACE INTO sitemap_files (name, digest, changed_at)
                     VALUES (?1, ?2, ?3)",
                )
                .map_err(sql_error)?;
            for file in files {
                insert
                    .execute(params![
                        file.name,
                        file.digest as i64,
                        file.changed_at.as_second()
                    ])
                    .map_err(sql_error)?;
            }
        }
        transaction.commit().map_err(sql_error)
    }

    /// Visits the pages `run` lists file by file: `placement` gives, for each listed page in
    /// URL order (the order of [`Store::for_each_listed`]), the number of its file. Files
    /// come in increasing number, and the pages of one file in URL order; memory stays flat,
    /// since SQLite orders them through a temporary table.
    pub fn for_each_listed_in_files<E: From<StoreError>>(
        &self,
        run: RunId,
        placement: &[u32],
        mut visit: impl FnMut(u32, ListedPage<'_>) -> Result<(), E>,
    ) -> Result<(), E> {
        let sql_error = |source| self.sql_error(source);
        self.connection
            .execute_batch(
                "CREATE TEMP TABLE IF NOT EXISTS placement (key INTEGER PRIMARY KEY, page INTEGER NOT NULL);
                 DELETE FROM temp.placement;",
            )
            .map_err(sql_error)?;
        {
            let transaction = self.connection.unchecked_transaction().map_err(sql_error)?;
            let mut pages = transaction
                .prepare_cached(
                    "SELECT rowid FROM pages WHERE last_seen_run = ?1 AND verdict = ?2 ORDER BY url",
                )
                .map_err(sql_error)?;
            let mut insert = transaction
                .prepare_cached("INSERT INTO temp.placement (key, page) VALUES (?1, ?2)")
                .map_err(sql_error)?;
            let mut rows = pages
                .query(params![run.0, Verdict::Indexable])
                .map_err(sql_error)?;
            let mut position: usize = 0;
            while let Some(row) = rows.next().map_err(sql_error)? {
                let page: i64 = row.get(0).map_err(sql_error)?;
                let file = placement
                    .get(position)
                    .copied()
                    .ok_or_else(|| StoreError::Corrupt {
                        path: self.path.clone(),
                        detail: "more listed pages than were placed in sitemap files".to_string(),
                    })?;
                let key = (i64::from(file) << 32) | position as i64;
                insert.execute(params![key, page]).map_err(sql_error)?;
                position += 1;
            }
            if position != placement.len() {
                return Err(StoreError::Corrupt {
                    path: self.path.clone(),
                    detail: "fewer listed pages than were placed in sitemap files".to_string(),
                }
                .into());
            }
            drop(rows);
            drop(insert);
            drop(pages);
            transaction.commit().map_err(sql_error)?;
        }
        let mut statement = self
            .connection
            .prepare_cached(
                "SELECT placement.key >> 32, pages.url, pages.lastmod, pages.depth, pages.lang
                 FROM temp.placement JOIN pages ON pages.rowid = placement.page
                 ORDER BY placement.key",
            )
            .map_err(sql_error)?;
        let mut rows = statement.query([]).map_err(sql_error)?;
        while let Some(row) = rows.next().map_err(sql_error)? {
            let file: i64 = row.get(0).map_err(sql_error)?;
            let url = row
                .get_ref(1)
                .and_then(|value| value.as_str().map_err(Into::into))
                .map_err(sql_error)?;
            let lastmod: Option<i64> = row.get(2).map_err(sql_error)?;
            let depth: u32 = row.get(3).map_err(sql_error)?;
            let lang = row
                .get_ref(4)
                .and_then(|value| value.as_str_or_null().map_err(Into::into))
                .map_err(sql_error)?;
            visit(
                u32::try_from(file).unwrap_or(u32::MAX),
                ListedPage {
                    url,
                    lastmod: lastmod.and_then(timestamp),
                    depth,
                    lang,
                },
            )?;
        }
        drop(rows);
        drop(statement);
        self.connection
            .execute("DELETE FROM temp.placement", [])
            .map_err(sql_error)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tests::{at, open, page};

    #[test]
    fn listed_pages_come_file_by_file_in_url_order_within_each() {
        let (_directory, mut store) = open();
        let run = store.begin_run("https://e.com/").unwrap();
        let urls = [
            "https://e.com/a",
            "https://e.com/b",
            "https://e.com/c",
            "https://e.com/d",
        ];
        let pages: Vec<_> = urls
            .iter()
            .map(|url| page(url, Verdict::Indexable))
            .collect();
        store.record_pages(run, &pages).unwrap();
        store
            .record_pages(run, &[page("https://e.com/x", Verdict::Excluded)])
            .unwrap();
        let mut visited = Vec::new();
        for _ in 0..2 {
            visited.clear();
            store
                .for_each_listed_in_files(
                    run,
                    &[1, 0, 1, 0],
                    |file, page| -> Result<(), StoreError> {
                        visited.push((file, page.url.to_string()));
                        Ok(())
                    },
                )
                .unwrap();
        }
        assert_eq!(
            visited,
            [
                (0, "https://e.com/b".to_string()),
                (0, "https://e.com/d".to_string()),
                (1, "https://e.com/a".to_string()),
                (1, "https://e.com/c".to_string()),
            ],
            "the same each time: the placement table starts empty"
        );
        let short =
            store.for_each_listed_in_files(run, &[0, 0], |_, _| -> Result<(), StoreError> {
                Ok(())
            });
        assert!(matches!(short, Err(StoreError::Corrupt { .. })));
    }

    #[test]
    fn the_files_published_are_recorded_and_replaced() {
        let (_directory, mut store) = open();
        assert!(store.sitemap_files().unwrap().is_empty());
        let record = |name: &str, digest: u64, seconds: i64| SitemapFileRecord {
            name: name.to_string(),
            digest,
            changed_at: at(seconds),
        };
        store
            .record_sitemap_files(&[
                record("sitemap-a.xml", u64::MAX, 10),
                record("sitemap-b.xml", 2, 20),
            ])
            .unwrap();
        let files = store.sitemap_files().unwrap();
        assert_eq!(
            files["sitemap-a.xml"],
            record("sitemap-a.xml", u64::MAX, 10)
        );
        assert_eq!(files.len(), 2);
        store
            .record_sitemap_files(&[record("sitemap-c.xml", 3, 30)])
            .unwrap();
        let files = store.sitemap_files().unwrap();
        assert_eq!(files.keys().collect::<Vec<_>>(), ["sitemap-c.xml"]);
    }
}
