//! Where an interrupted run stood, read back a batch at a time: the URLs it finished, and the
//! links of its pages to URLs it had not. However large the run, a batch is all that is held.

use rusqlite::params;

use crate::error::StoreError;
use crate::link_record::LinkKind;
use crate::run_id::RunId;
use crate::store::Store;

/// How far the reading of an interrupted run has come: the last row given of each kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResumeCursor {
    run: RunId,
    /// The `pages` rowid of the last finished URL given.
    finished_after: i64,
    /// The `(source, target, kind)` of the last link given.
    pending_after: (i64, i64, i64),
}

impl ResumeCursor {
    /// The start of `run`.
    pub fn new(run: RunId) -> ResumeCursor {
        ResumeCursor {
            run,
            finished_after: 0,
            pending_after: (0, 0, 0),
        }
    }
}

/// A link of a page the run finished to a URL it had not: work still to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingLink {
    /// The finished page.
    pub source: String,
    /// Its depth.
    pub depth: u32,
    /// Where the link leads.
    pub target: String,
}

impl Store {
    /// The next at most `max` URLs `cursor`'s run recorded, in the order they were first
    /// recorded; none once all were given.
    pub fn next_finished(
        &self,
        cursor: &mut ResumeCursor,
        max: usize,
    ) -> Result<Vec<String>, StoreError> {
        let mut statement = self
            .connection
            .prepare_cached(
                "SELECT rowid, url FROM pages WHERE last_seen_run = ?1 AND rowid > ?2
                 ORDER BY rowid LIMIT ?3",
            )
            .map_err(|source| self.sql_error(source))?;
        let rows: Vec<(i64, String)> = statement
            .query_map(
                params![cursor.run.0, cursor.finished_after, limit(max)],
                |row| Ok((row.get(0)?, row.get(1)?)),
            )
            .and_then(Iterator::collect)
            .map_err(|source| self.sql_error(source))?;
        if let Some((last, _)) = rows.last() {
            cursor.finished_after = *last;
        }
        Ok(rows.into_iter().map(|(_, url)| url).collect())
    }

    /// The next at most `max` links (a redirect's target among them) of pages `cursor`'s run
    /// recorded to URLs it has not recorded, grouped by source; none once all were given.
    /// The links are read in the order of the table's key, so each batch continues where the
    /// last ended.
    pub fn next_pending(
        &self,
        cursor: &mut ResumeCursor,
        max: usize,
    ) -> Result<Vec<PendingLink>, StoreError> {
        let (source, target, kind) = cursor.pending_after;
        // CROSS JOIN keeps the links the outer loop, read in key order from the cursor on.
        let mut statement = self
            .connection
            .prepare_cached(
                "SELECT links.source, links.target, links.kind,
                        sources.url, source_page.depth, targets.url
                 FROM links
                     CROSS JOIN urls AS sources ON sources.id = links.source
                     CROSS JOIN pages AS source_page ON source_page.url = sources.url
                     CROSS JOIN urls AS targets ON targets.id = links.target
                 WHERE (links.source, links.target, links.kind) > (?2, ?3, ?4)
                   AND links.kind != ?5
                   AND source_page.last_seen_run = ?1
                   AND NOT EXISTS (SELECT 1 FROM pages AS done
                                   WHERE done.url = targets.url AND done.last_seen_run = ?1)
                 ORDER BY links.source, links.target, links.kind
                 LIMIT ?6",
            )
            .map_err(|source| self.sql_error(source))?;
        let mut rows = statement
            .query(params![
                cursor.run.0,
                source,
                target,
                kind,
                LinkKind::Sitemap,
                limit(max)
            ])
            .map_err(|source| self.sql_error(source))?;
        let mut links = Vec::new();
        while let Some(row) = rows.next().map_err(|source| self.sql_error(source))? {
            let read = || -> rusqlite::Result<((i64, i64, i64), PendingLink)> {
                Ok((
                    (row.get(0)?, row.get(1)?, row.get(2)?),
                    PendingLink {
                        source: row.get(3)?,
                        depth: row.get(4)?,
                        target: row.get(5)?,
                    },
                ))
            };
            let (key, link) = read().map_err(|source| self.sql_error(source))?;
            cursor.pending_after = key;
            links.push(link);
        }
        Ok(links)
    }

    /// How many URLs `run` recorded.
    pub fn recorded_count(&self, run: RunId) -> Result<u64, StoreError> {
        self.connection
            .query_row(
                "SELECT count(*) FROM pages WHERE last_seen_run = ?1",
                params![run.0],
                |row| row.get::<_, i64>(0),
            )
            .map(|count| count.max(0) as u64)
            .map_err(|source| self.sql_error(source))
    }
}

/// A batch size as SQLite's LIMIT.
fn limit(max: usize) -> i64 {
    i64::try_from(max).unwrap_or(i64::MAX)
}

#[cfg(test)]
mod tests {
    use crate::tests::{open, page};
    use crate::*;

    fn anchor(target: &str) -> LinkRecord {
        LinkRecord {
            target: target.to_string(),
            kind: LinkKind::Anchor,
            anchor: None,
            nofollow: false,
        }
    }

    #[test]
    fn an_interrupted_run_is_read_back_a_batch_at_a_time() {
        let (_directory, mut store) = open();
        let earlier = store.begin_run("https://e.com/").unwrap();
        store
            .record_pages(earlier, &[page("https://e.com/gone", Verdict::Indexable)])
            .unwrap();
        let run = store.begin_run("https://e.com/").unwrap();
        let with_links = |url: &str, depth, targets: &[&str]| PageRecord {
            depth,
            links: Some(targets.iter().map(|target| anchor(target)).collect()),
            ..page(url, Verdict::Indexable)
        };
        store
            .record_pages(
                run,
                &[
                    with_links("https://e.com/", 0, &["https://e.com/a", "https://e.com/b"]),
                    with_links(
                        "https://e.com/a",
                        1,
                        &["https://e.com/", "https://e.com/c", "https://e.com/d"],
                    ),
                ],
            )
            .unwrap();
        store
            .record_sitemap_links(
                "https://e.com/sitemap.xml",
                &["https://e.com/e".to_string()],
            )
            .unwrap();

        let mut cursor = ResumeCursor::new(run);
        let mut finished = Vec::new();
        loop {
            let batch = store.next_finished(&mut cursor, 1).unwrap();
            if batch.is_empty() {
                break;
            }
            assert_eq!(batch.len(), 1);
            finished.extend(batch);
        }
        assert_eq!(
            finished,
            ["https://e.com/", "https://e.com/a"],
            "this run's only"
        );

        let mut pending = Vec::new();
        loop {
            let batch = store.next_pending(&mut cursor, 2).unwrap();
            if batch.is_empty() {
                break;
            }
            assert!(batch.len() <= 2);
            pending.extend(batch);
        }
        let pending: Vec<(&str, u32, &str)> = pending
            .iter()
            .map(|link| (link.source.as_str(), link.depth, link.target.as_str()))
            .collect();
        // Not the finished pages, not a sitemap's entries, not another run's pages.
        assert_eq!(
            pending,
            [
                ("https://e.com/", 0, "https://e.com/b"),
                ("https://e.com/a", 1, "https://e.com/c"),
                ("https://e.com/a", 1, "https://e.com/d"),
            ]
        );
        assert_eq!(store.recorded_count(run).unwrap(), 2);
    }
}
