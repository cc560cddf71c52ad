//! The resources of the site its pages load (images, scripts, style sheets) and what the
//! audit's check of each found: its status or failure, its size and an image's width. Only
//! the latest checked run's are kept: an earlier audit's findings are kept with the audit.

use rusqlite::params;

use crate::StoreError;
use crate::link_record::LinkKind;
use crate::run_id::RunId;
use crate::store::Store;
use crate::verdict::FailureKind;

/// What the check of one resource found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceCheck {
    /// The resource's URL.
    pub url: String,
    /// What the pages load it as: an image, a script or a style sheet (the first in that
    /// order when they load it as several).
    pub kind: LinkKind,
    /// The final status, when it answered.
    pub status: Option<u16>,
    /// Why it could not be fetched, when it did not answer.
    pub failure: Option<(FailureKind, String)>,
    /// Its size in bytes, when known.
    pub bytes: Option<u64>,
    /// An image's width in pixels, when read.
    pub width: Option<u32>,
}

impl ResourceCheck {
    /// It answered 400 or more, or could not be fetched.
    pub fn is_broken(&self) -> bool {
        self.failure.is_some() || self.status.is_some_and(|status| status >= 400)
    }
}

/// What one page loads of the checked resources, in all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageWeight {
    /// The page.
    pub url: String,
    /// Its HTML's bytes.
    pub html_bytes: u64,
    /// The bytes of the checked resources it loads whose size is known.
    pub resource_bytes: u64,
    /// How many of them.
    pub resources: u64,
}

impl Store {
    /// The distinct resources that pages of `run` load, with what they load each as, sorted
    /// by URL, leaving out the URLs the run crawled as pages.
    pub fn site_resources(&self, run: RunId) -> Result<Vec<(String, LinkKind)>, StoreError> {
        let numbers = [LinkKind::Image, LinkKind::ScriptFile, LinkKind::Stylesheet]
            .map(|kind| kind.number().to_string())
            .join(", ");
        let sql = format!(
            "SELECT targets.url, min(links.kind)
             FROM pages JOIN urls AS sources ON sources.url = pages.url
                 JOIN links ON links.source = sources.id
                 JOIN urls AS targets ON targets.id = links.target
             WHERE pages.last_seen_run = ?1 AND links.kind IN ({numbers})
               AND NOT EXISTS (SELECT 1 FROM pages AS crawled
                               WHERE crawled.url = targets.url AND crawled.last_seen_run = ?1)
             GROUP BY targets.url
             ORDER BY 1"
        );
        let mut statement = self
            .connection
            .prepare(&sql)
            .map_err(|source| self.sql_error(source))?;
        statement
            .query_map(params![run.0], |row| Ok((row.get(0)?, row.get(1)?)))
            .and_then(Iterator::collect)
            .map_err(|source| self.sql_error(source))
    }

    /// Records the checks of `run`'s resources, replacing any earlier run's.
    pub fn record_resource_checks(
        &mut self,
        run: RunId,
        checks: &[ResourceCheck],
    ) -> Result<(), StoreError> {
        let path = self.path.clone();
        let transaction = self
            .connection
            .transaction()
            .map_err(|source| crate::error::sql_error(&path, source))?;
        let written = (|| -> rusqlite::Result<()> {
            transaction.execute("DELETE FROM resource_checks", [])?;
            let mut insert = transaction.prepare_cached(
                "INSERT OR REPLACE INTO resource_checks
                     (run, url, kind, status, failure, detail, bytes, width)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            )?;
            for check in checks {
                let id = self.url_ids.id(&transaction, &check.url)?;
                insert.execute(params![
                    run.0,
                    id,
                    check.kind,
                    check.status,
                    check.failure.as_ref().map(|(kind, _)| *kind),
                    check.failure.as_ref().map(|(_, detail)| detail.as_str()),
                    check
                        .bytes
                        .map(|bytes| i64::try_from(bytes).unwrap_or(i64::MAX)),
                    check.width,
                ])?;
            }
            Ok(())
        })();
        let written = written.and_then(|()| transaction.commit());
        self.url_ids.settle(written.is_ok());
        written.map_err(|source| crate::error::sql_error(&path, source))
    }

    /// The checks of `run`'s resources, sorted by URL; empty when the run's were not checked.
    pub fn resource_checks(&self, run: RunId) -> Result<Vec<ResourceCheck>, StoreError> {
        let mut statement = self
            .connection
            .prepare(
                "SELECT urls.url, checks.kind, checks.status, checks.failure, checks.detail,
                        checks.bytes, checks.width
                 FROM resource_checks AS checks JOIN urls ON urls.id = checks.url
                 WHERE checks.run = ?1
                 ORDER BY urls.url",
            )
            .map_err(|source| self.sql_error(source))?;
        statement
            .query_map(params![run.0], |row| {
                let failure: Option<FailureKind> = row.get(3)?;
                let detail: Option<String> = row.get(4)?;
                Ok(ResourceCheck {
                    url: row.get(0)?,
                    kind: row.get(1)?,
                    status: row.get(2)?,
                    failure: failure.map(|kind| (kind, detail.unwrap_or_default())),
                    bytes: row
                        .get::<_, Option<i64>>(5)?
                        .map(|bytes| bytes.max(0) as u64),
                    width: row.get(6)?,
                })
            })
            .and_then(Iterator::collect)
            .map_err(|source| self.sql_error(source))
    }

    /// The pages of `run` that load each of its checked resources that is broken (400 or
    /// more, or no answer) or bigger than `bytes`, by resource URL, sorted: one query for
    /// them all.
    pub fn resource_loaders(
        &self,
        run: RunId,
        bytes: u64,
    ) -> Result<std::collections::BTreeMap<String, Vec<String>>, StoreError> {
        let numbers = [LinkKind::Image, LinkKind::ScriptFile, LinkKind::Stylesheet]
            .map(|kind| kind.number().to_string())
            .join(", ");
        let sql = format!(
            "SELECT DISTINCT targets.url, sources.url
             FROM resource_checks AS checks JOIN urls AS targets ON targets.id = checks.url
                 JOIN links ON links.target = checks.url AND links.kind IN ({numbers})
                 JOIN urls AS sources ON sources.id = links.source
                 JOIN pages ON pages.url = sources.url
             WHERE checks.run = ?1 AND pages.last_seen_run = ?1
               AND (checks.status >= 400 OR checks.failure IS NOT NULL OR checks.bytes > ?2)
             ORDER BY 1, 2"
        );
        let mut statement = self
            .connection
            .prepare(&sql)
            .map_err(|source| self.sql_error(source))?;
        let rows: Vec<(String, String)> = statement
            .query_map(
                params![run.0, i64::try_from(bytes).unwrap_or(i64::MAX)],
                |row| Ok((row.get(0)?, row.get(1)?)),
            )
            .and_then(Iterator::collect)
            .map_err(|source| self.sql_error(source))?;
        let mut loaders: std::collections::BTreeMap<String, Vec<String>> = Default::default();
        for (target, source) in rows {
            loaders.entry(target).or_default().push(source);
        }
        Ok(loaders)
    }

    /// The pages of `run` that load `url` as a link of `kinds`, sorted.
    pub fn link_sources(
        &self,
        run: RunId,
        url: &str,
        kinds: &[LinkKind],
    ) -> Result<Vec<String>, StoreError> {
        let numbers: Vec<String> = kinds.iter().map(|kind| kind.number().to_string()).collect();
        let sql = format!(
            "SELECT DISTINCT sources.url
             FROM urls AS targets JOIN links ON links.target = targets.id
                 JOIN urls AS sources ON sources.id = links.source
                 JOIN pages ON pages.url = sources.url
             WHERE targets.url = ?2 AND pages.last_seen_run = ?1 AND links.kind IN ({})
             ORDER BY 1",
            numbers.join(", ")
        );
        let mut statement = self
            .connection
            .prepare(&sql)
            .map_err(|source| self.sql_error(source))?;
        statement
            .query_map(params![run.0, url], |row| row.get(0))
            .and_then(Iterator::collect)
            .map_err(|source| self.sql_error(source))
    }

    /// What each page of `run` with HTML weighs with the checked resources it loads, sorted
    /// by URL; pages that load none of them weigh their HTML alone. The links are read from
    /// the resources' side (`links_by_target`): most of a page's links lead to pages.
    pub fn page_weights(&self, run: RunId) -> Result<Vec<PageWeight>, StoreError> {
        let numbers = [LinkKind::Image, LinkKind::ScriptFile, LinkKind::Stylesheet]
            .map(|kind| kind.number().to_string())
            .join(", ");
        let sql = format!(
            "SELECT pages.url, coalesce(pages.body_bytes, 0),
                    coalesce(loaded.bytes, 0), coalesce(loaded.resources, 0)
             FROM pages JOIN urls AS sources ON sources.url = pages.url
                 LEFT JOIN (
                     SELECT links.source AS source, sum(checks.bytes) AS bytes,
                         count(checks.bytes) AS resources
                     FROM resource_checks AS checks JOIN links ON links.target = checks.url
                         AND links.kind IN ({numbers})
                     WHERE checks.run = ?1
                     GROUP BY links.source
                 ) AS loaded ON loaded.source = sources.id
             WHERE pages.last_seen_run = ?1 AND pages.html_ok
             ORDER BY 1"
        );
        let mut statement = self
            .connection
            .prepare(&sql)
            .map_err(|source| self.sql_error(source))?;
        statement
            .query_map(params![run.0], |row| {
                Ok(PageWeight {
                    url: row.get(0)?,
                    html_bytes: row.get::<_, i64>(1)?.max(0) as u64,
                    resource_bytes: row.get::<_, i64>(2)?.max(0) as u64,
                    resources: row.get::<_, i64>(3)?.max(0) as u64,
                })
            })
            .and_then(Iterator::collect)
            .map_err(|source| self.sql_error(source))
    }
}
