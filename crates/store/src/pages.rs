//! Pages: one row per URL ever seen, replaced each time a run sees it again.

use std::collections::{HashMap, HashSet};

use jiff::Timestamp;
use rusqlite::{OptionalExtension, params};

use crate::error::{StoreError, sql_error};
use crate::page_rows::{PAGE_COLUMN_COUNT, PAGE_COLUMNS, not_listed_page, page_record};
use crate::record::{ListedPage, NotListedPage, PageRecord, ReasonCount};
use crate::run_id::RunId;
use crate::runs::timestamp;
use crate::store::Store;
use crate::verdict::{Reason, Verdict};
use crate::verdict::{hint_column, served_columns};

/// One row per URL. `lastmod` is the one rule of docs/design.md, lastmod, where history decides:
/// - a page that answered 304 Not Modified keeps it;
/// - with nothing to compare (no fingerprint now, or none recorded: a row of an older
///   release, a page that was not HTML), a valid `Last-Modified` stands, else it stays;
/// - the same fingerprint as recorded keeps it, even when `Last-Modified` moved: a static
///   site's redeploy re-dates every file without changing one (`lastmod_kept` says so). The
///   recorded one is compared with this run's of its version: the current one (`?15`,
///   version `?35`), or the legacy one computed for the purpose (`?36`, version `?37`), so
///   that a new fingerprint function moves no lastmod; with neither, there is nothing to
///   compare;
/// - another fingerprint takes `Last-Modified` when it is newer than the recorded lastmod,
///   else the time this run saw the change.
///
/// A page seen for the first time takes its `Last-Modified`, or none: nothing is invented.
const UPSERT: &str = "INSERT INTO pages (url, depth, referrer, status, content_type, html_ok, verdict,
        reason, detail, target, canonical, last_modified, lastmod, etag, fetched_at, fingerprint, title,
        revalidated, first_seen_run, last_seen_run, description, elapsed_ms, body_bytes, truncated,
        invalid_canonicals, conflicting_canonicals, rendering, served_canonical, served_noindex,
        h1_count, h1, lang, images_without_alt, images_without_alt_examples, insecure_resources,
        lastmod_kept, failure, fingerprint_version, word_count, failed_runs, signals, canonical_from,
        noindex_from)
    VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?18,
        ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27, ?28, ?29, ?30, ?31, ?32, ?33, 0, ?34, ?35, ?38,
        ?39, ?40, ?41, ?42)
    ON CONFLICT (url) DO UPDATE SET depth = excluded.depth, referrer = excluded.referrer, status = excluded.status,
        failed_runs = CASE WHEN ?39 THEN pages.failed_runs + 1 ELSE 0 END,
        kept_status = NULL, kept_failure = NULL,
        content_type = excluded.content_type, html_ok = excluded.html_ok,
        verdict = excluded.verdict, reason = excluded.reason, detail = excluded.detail,
        failure = excluded.failure, target = excluded.target,
        canonical = excluded.canonical, last_modified = excluded.last_modified,
        lastmod = CASE
            WHEN excluded.revalidated THEN pages.lastmod
            WHEN pages.fingerprint IS NULL
                 OR (CASE pages.fingerprint_version WHEN ?35 THEN ?15 WHEN ?37 THEN ?36 END) IS NULL
                THEN coalesce(excluded.last_modified, pages.lastmod)
            WHEN pages.fingerprint
                 = (CASE pages.fingerprint_version WHEN ?35 THEN ?15 WHEN ?37 THEN ?36 END)
                THEN pages.lastmod
            WHEN excluded.last_modified IS NOT NULL
                 AND (pages.lastmod IS NULL OR excluded.last_modified > pages.lastmod)
                THEN excluded.last_modified
            ELSE coalesce(excluded.fetched_at, pages.lastmod)
        END,
        lastmod_kept = CASE
            WHEN excluded.revalidated = 0
                 AND pages.fingerprint
                     = (CASE pages.fingerprint_version WHEN ?35 THEN ?15 WHEN ?37 THEN ?36 END)
                 AND excluded.last_modified IS NOT NULL
                 AND excluded.last_modified IS NOT pages.last_modified
                 AND excluded.last_modified IS NOT pages.lastmod THEN 1
            ELSE 0
        END,
        etag = excluded.etag, fetched_at = excluded.fetched_at,
        fingerprint = CASE WHEN excluded.revalidated OR excluded.fingerprint IS NULL
                           THEN pages.fingerprint ELSE excluded.fingerprint END,
        fingerprint_version = CASE WHEN excluded.revalidated OR excluded.fingerprint IS NULL
                                   THEN pages.fingerprint_version ELSE excluded.fingerprint_version END,
        title = excluded.title, revalidated = excluded.revalidated, last_seen_run = excluded.last_seen_run,
        description = excluded.description, elapsed_ms = excluded.elapsed_ms,
        body_bytes = CASE WHEN excluded.revalidated THEN pages.body_bytes ELSE excluded.body_bytes END,
        truncated = CASE WHEN excluded.revalidated THEN pages.truncated ELSE excluded.truncated END,
        invalid_canonicals = excluded.invalid_canonicals,
        conflicting_canonicals = excluded.conflicting_canonicals,
        rendering = CASE WHEN excluded.revalidated THEN pages.rendering ELSE excluded.rendering END,
        served_canonical = CASE WHEN excluded.revalidated THEN pages.served_canonical
                                ELSE excluded.served_canonical END,
        served_noindex = CASE WHEN excluded.revalidated THEN pages.served_noindex
                              ELSE excluded.served_noindex END,
        h1_count = CASE WHEN excluded.revalidated THEN pages.h1_count ELSE excluded.h1_count END,
        h1 = CASE WHEN excluded.revalidated THEN pages.h1 ELSE excluded.h1 END,
        lang = CASE WHEN excluded.revalidated THEN pages.lang ELSE excluded.lang END,
        images_without_alt = CASE WHEN excluded.revalidated THEN pages.images_without_alt
                                  ELSE excluded.images_without_alt END,
        images_without_alt_examples = CASE WHEN excluded.revalidated
                                           THEN pages.images_without_alt_examples
                                           ELSE excluded.images_without_alt_examples END,
        insecure_resources = CASE WHEN excluded.revalidated THEN pages.insecure_resources
                                  ELSE excluded.insecure_resources END,
        word_count = CASE WHEN excluded.revalidated THEN pages.word_count
                          ELSE excluded.word_count END,
        signals = CASE WHEN excluded.revalidated THEN pages.signals ELSE excluded.signals END,
        canonical_from = CASE WHEN excluded.revalidated THEN pages.canonical_from
                              ELSE excluded.canonical_from END,
        noindex_from = CASE WHEN excluded.revalidated THEN pages.noindex_from
                            ELSE excluded.noindex_from END";

impl Store {
    /// Records a batch of pages for `run` in one transaction. A URL seen before keeps its
    /// `first_seen_run`; everything else is replaced.
    /// A page that failed in a way that may pass, where the store keeps such pages
    /// ([`Store::keep_failed_pages`]), keeps its row as it was (`kept.rs`).
    pub fn record_pages(&mut self, run: RunId, pages: &[PageRecord]) -> Result<(), StoreError> {
        let path = self.path.clone();
        let sql_error = |source| StoreError::Sql {
            path: path.clone(),
            source,
        };
        let keep = self.keep;
        let transaction = self.connection.transaction().map_err(sql_error)?;
        let written = (|| -> rusqlite::Result<()> {
            let kept = match keep {
                Some(keep) => crate::kept::keep_failed(&transaction, run, keep, pages)?,
                None => std::collections::HashSet::new(),
            };
            let remaining: Vec<PageRecord>;
            let pages = if kept.is_empty() {
                pages
            } else {
                remaining = pages
                    .iter()
                    .filter(|page| !kept.contains(page.url.as_str()))
                    .cloned()
                    .collect();
                &remaining
            };
            let mut statement = transaction.prepare_cached(UPSERT)?;
            for page in pages {
                let served = served_columns(&page.served_differences);
                let details = page.details.as_ref();
                let lines = |values: &[String]| (!values.is_empty()).then(|| values.join("\n"));
                statement.execute(params![
                    page.url,
                    page.depth,
                    page.referrer,
                    page.status,
                    page.content_type,
                    page.html_ok,
                    page.verdict,
                    page.reason,
                    page.detail,
                    page.target,
                    page.canonical,
                    page.last_modified.map(|time| time.as_second()),
                    page.etag,
                    page.fetched_at.map(|time| time.as_second()),
                    page.fingerprint
                        .as_ref()
                        .map(|fingerprint| &fingerprint.hex),
                    page.title,
                    page.revalidated,
                    run.0,
                    page.description,
                    page.elapsed_ms
                        .map(|value| i64::try_from(value).unwrap_or(i64::MAX)),
                    page.body_bytes
                        .map(|value| i64::try_from(value).unwrap_or(i64::MAX)),
                    page.truncated,
                    hint_column(&page.ignored_hints, true),
                    hint_column(&page.ignored_hints, false),
                    page.rendering,
                    served.0,
                    served.1,
                    details.map(|details| details.h1_count),
                    details.and_then(|details| details.h1.as_deref()),
                    details.and_then(|details| details.lang.as_deref()),
                    details.map(|details| details.images_without_alt),
                    details.and_then(|details| lines(&details.images_without_alt_examples)),
                    details.and_then(|details| lines(&details.insecure_resources)),
                    page.failure,
                    page.fingerprint
                        .as_ref()
                        .map(|fingerprint| fingerprint.version),
                    page.legacy_fingerprint
                        .as_ref()
                        .map(|fingerprint| &fingerprint.hex),
                    page.legacy_fingerprint
                        .as_ref()
                        .map(|fingerprint| fingerprint.version),
                    details.and_then(|details| details.word_count),
                    page.failed_transiently,
                    details.and_then(|details| details.signals.as_deref()),
                    page.canonical_from.bits(),
                    page.noindex_from.bits(),
                ])?;
            }
            crate::links::write_links(&transaction, &mut self.url_ids, pages)?;
            let mut forget_images =
                transaction.prepare_cached("DELETE FROM images WHERE page = ?1")?;
            let mut image = transaction
                .prepare_cached("INSERT OR IGNORE INTO images (page, image) VALUES (?1, ?2)")?;
            for page in pages {
                let Some(images) = &page.images else {
                    continue;
                };
                forget_images.execute(params![page.url])?;
                for url in images {
                    image.execute(params![page.url, url])?;
                }
            }
            crate::structured::write_structured(&transaction, pages)?;
            let mut forget_alternates =
                transaction.prepare_cached("DELETE FROM alternates WHERE page = ?1")?;
            let mut alternate = transaction.prepare_cached(
                "INSERT OR IGNORE INTO alternates (page, hreflang, href) VALUES (?1, ?2, ?3)",
            )?;
            for page in pages {
                let Some(alternates) = &page.alternates else {
                    continue;
                };
                forget_alternates.execute(params![page.url])?;
                for (hreflang, href) in alternates {
                    alternate.execute(params![page.url, hreflang, href])?;
                }
            }
            Ok(())
        })()
        .and_then(|()| transaction.commit());
        self.url_ids.settle(written.is_ok());
        written.map_err(sql_error)
    }

    /// docs/design.md, Inclusion: a canonical whose target is broken (not seen in this run, or not a
    /// 200 HTML page or document: a 200 recorded `not-html`) is ignored, and the page is listed as itself, keeping its target and the
    /// reason `broken-canonical` for the audit. A target that is itself canonicalised is a chain,
    /// resolved to its final self-canonical page. A chain that comes back on itself has no such
    /// page: the smallest URL of the loop is listed, with the reason `canonical-loop`, so that
    /// the content is listed exactly once.
    pub fn resolve_canonicals(&mut self, run: RunId) -> Result<(), StoreError> {
        let transaction = self
            .connection
            .transaction()
            .map_err(|source| sql_error(&self.path, source))?;
        transaction
            .execute(
                "UPDATE pages SET verdict = ?2, reason = ?3
                 WHERE last_seen_run = ?1 AND verdict = ?4 AND target IS NOT NULL
                   AND NOT EXISTS (SELECT 1 FROM pages AS target_page
                                   WHERE target_page.url = pages.target
                                     AND target_page.last_seen_run = ?1 AND target_page.status = 200
                                     AND (target_page.html_ok = 1 OR target_page.reason IS NOT ?5))",
                params![
                    run.0,
                    Verdict::Indexable,
                    Reason::BrokenCanonical,
                    Verdict::Canonicalised,
                    Reason::NotHtml
                ],
            )
            .map_err(|source| sql_error(&self.path, source))?;
        // Only a page whose target is canonicalised too can be in a loop: the rest (on most
        // sites every canonicalised page, pointing at a page listed) stays on disk.
        let targets: HashMap<String, String> = {
            let mut statement = transaction
                .prepare(
                    "SELECT pages.url, pages.target FROM pages
                     JOIN pages AS target_page ON target_page.url = pages.target
                     WHERE pages.last_seen_run = ?1 AND pages.verdict = ?2
                       AND pages.target IS NOT NULL
                       AND target_page.last_seen_run = ?1 AND target_page.verdict = ?2
                       AND target_page.target IS NOT NULL",
                )
                .map_err(|source| sql_error(&self.path, source))?;
            statement
                .query_map(params![run.0, Verdict::Canonicalised], |row| {
                    Ok((row.get(0)?, row.get(1)?))
                })
                .and_then(Iterator::collect)
                .map_err(|source| sql_error(&self.path, source))?
        };
        for url in loop_representatives(&targets) {
            transaction
                .execute(
                    "UPDATE pages SET verdict = ?2, reason = ?3 WHERE url = ?1",
                    params![url, Verdict::Indexable, Reason::CanonicalLoop],
                )
                .map_err(|source| sql_error(&self.path, source))?;
        }
        transaction
            .commit()
            .map_err(|source| sql_error(&self.path, source))
    }

    /// Unlists the pages of `run` whose URL carries one of `parameters` (session identifiers
    /// found during the crawl: the same pages without them were crawled too). Returns how many.
    pub fn exclude_session_urls(
        &mut self,
        run: RunId,
        parameters: &[String],
    ) -> Result<u64, StoreError> {
        let mut excluded = 0;
        for parameter in parameters {
            excluded += self
                .connection
                .execute(
                    "UPDATE pages SET verdict = ?3, reason = ?4, detail = ?2
                     WHERE last_seen_run = ?1 AND verdict = ?5
                       AND (instr(url, '?' || ?2 || '=') > 0 OR instr(url, '&' || ?2 || '=') > 0)",
                    params![
                        run.0,
                        parameter,
                        Verdict::Excluded,
                        Reason::SessionParameter,
                        Verdict::Indexable
                    ],
                )
                .map_err(|source| self.sql_error(source))?;
        }
        Ok(excluded as u64)
    }

    /// How many pages `run` fetched whose `Last-Modified` moved while their content did not,
    /// so that their lastmod was kept: a redeploy that re-dated files without changing them.
    pub fn kept_lastmod_count(&self, run: RunId) -> Result<u64, StoreError> {
        self.connection
            .query_row(
                "SELECT count(*) FROM pages WHERE last_seen_run = ?1 AND lastmod_kept = 1",
                params![run.0],
                |row| row.get::<_, i64>(0),
            )
            .map(|count| count.max(0) as u64)
            .map_err(|source| self.sql_error(source))
    }

    /// How many pages `run` lists.
    pub fn listed_count(&self, run: RunId) -> Result<u64, StoreError> {
        self.connection
            .query_row(
                "SELECT count(*) FROM pages WHERE last_seen_run = ?1 AND verdict = ?2",
                params![run.0, Verdict::Indexable],
                |row| row.get::<_, i64>(0),
            )
            .map(|count| count.max(0) as u64)
            .map_err(|source| self.sql_error(source))
    }

    /// Visits the pages `run` lists, ordered by URL (bytewise, so the output is deterministic),
    /// one row at a time: memory does not grow with the number of pages.
    pub fn for_each_listed<E: From<StoreError>>(
        &self,
        run: RunId,
        mut visit: impl FnMut(ListedPage<'_>) -> Result<(), E>,
    ) -> Result<(), E> {
        let mut statement = self
            .connection
            .prepare_cached(
                "SELECT url, lastmod, depth, lang FROM pages WHERE last_seen_run = ?1 AND verdict = ?2 ORDER BY url",
            )
            .map_err(|source| self.sql_error(source))?;
        let mut rows = statement
            .query(params![run.0, Verdict::Indexable])
            .map_err(|source| self.sql_error(source))?;
        while let Some(row) = rows.next().map_err(|source| self.sql_error(source))? {
            let url = row
                .get_ref(0)
                .and_then(|value| value.as_str().map_err(Into::into));
            let url = url.map_err(|source| self.sql_error(source))?;
            let lastmod: Option<i64> = row.get(1).map_err(|source| self.sql_error(source))?;
            let depth: u32 = row.get(2).map_err(|source| self.sql_error(source))?;
            let lang = row
                .get_ref(3)
                .and_then(|value| value.as_str_or_null().map_err(Into::into))
                .map_err(|source| self.sql_error(source))?;
            visit(ListedPage {
                url,
                lastmod: lastmod.and_then(timestamp),
                depth,
                lang,
            })?;
        }
        Ok(())
    }

    /// The pages of `run` counted by verdict and reason, largest group first.
    pub fn reason_counts(&self, run: RunId) -> Result<Vec<ReasonCount>, StoreError> {
        let mut statement = self
            .connection
            .prepare_cached(
                "SELECT verdict, reason, count(*) AS pages FROM pages WHERE last_seen_run = ?1
                 GROUP BY verdict, reason ORDER BY pages DESC, verdict, reason",
            )
            .map_err(|source| self.sql_error(source))?;
        statement
            .query_map(params![run.0], |row| {
                Ok(ReasonCount {
                    verdict: row.get(0)?,
                    reason: row.get(1)?,
                    count: row.get::<_, i64>(2)?.max(0) as u64,
                })
            })
            .and_then(Iterator::collect)
            .map_err(|source| self.sql_error(source))
    }

    /// Visits the pages `run` does not list, ordered by URL (bytewise), one row at a time:
    /// what a run leaves out can be listed in full, or sampled, without holding it in memory.
    pub fn for_each_not_listed<E: From<StoreError>>(
        &self,
        run: RunId,
        mut visit: impl FnMut(NotListedPage<'_>) -> Result<(), E>,
    ) -> Result<(), E> {
        let mut statement = self
            .connection
            .prepare_cached(
                "SELECT url, verdict, reason, status, referrer FROM pages
                 WHERE last_seen_run = ?1 AND verdict != ?2 ORDER BY url",
            )
            .map_err(|source| self.sql_error(source))?;
        let mut rows = statement
            .query(params![run.0, Verdict::Indexable])
            .map_err(|source| self.sql_error(source))?;
        while let Some(row) = rows.next().map_err(|source| self.sql_error(source))? {
            let page = not_listed_page(row).map_err(|source| self.sql_error(source))?;
            visit(page)?;
        }
        Ok(())
    }

    /// Visits the canonical target of every page of `run` left out because its canonical is
    /// out of the crawl's scope (another host, or outside the seed's directory), one row at a
    /// time, in no particular order.
    pub fn for_each_out_of_scope_canonical<E: From<StoreError>>(
        &self,
        run: RunId,
        mut visit: impl FnMut(&str) -> Result<(), E>,
    ) -> Result<(), E> {
        let mut statement = self
            .connection
            .prepare_cached(
                "SELECT target FROM pages
                 WHERE last_seen_run = ?1 AND reason = ?2 AND target IS NOT NULL",
            )
            .map_err(|source| self.sql_error(source))?;
        let mut rows = statement
            .query(params![run.0, Reason::CanonicalOutOfScope])
            .map_err(|source| self.sql_error(source))?;
        while let Some(row) = rows.next().map_err(|source| self.sql_error(source))? {
            let target: String = row.get(0).map_err(|source| self.sql_error(source))?;
            visit(&target)?;
        }
        Ok(())
    }

    /// Visits every page `run` recorded with the lastmod written for it, ordered by URL, one
    /// row at a time.
    pub fn for_each_page<E: From<StoreError>>(
        &self,
        run: RunId,
        mut visit: impl FnMut(PageRecord, Option<Timestamp>) -> Result<(), E>,
    ) -> Result<(), E> {
        let mut statement = self
            .connection
            .prepare(&format!(
                "SELECT {PAGE_COLUMNS}, lastmod FROM pages WHERE last_seen_run = ?1 ORDER BY url"
            ))
            .map_err(|source| self.sql_error(source))?;
        let mut rows = statement
            .query(params![run.0])
            .map_err(|source| self.sql_error(source))?;
        while let Some(row) = rows.next().map_err(|source| self.sql_error(source))? {
            let page = page_record(row).map_err(|source| self.sql_error(source))?;
            let lastmod: Option<i64> = row
                .get(PAGE_COLUMN_COUNT)
                .map_err(|source| self.sql_error(source))?;
            visit(page, lastmod.and_then(timestamp))?;
        }
        Ok(())
    }

    /// The images `page` shows, ordered by URL.
    pub fn images_of(&self, page: &str) -> Result<Vec<String>, StoreError> {
        let mut statement = self
            .connection
            .prepare_cached("SELECT image FROM images WHERE page = ?1 ORDER BY image")
            .map_err(|source| self.sql_error(source))?;
        statement
            .query_map(params![page], |row| row.get(0))
            .and_then(Iterator::collect)
            .map_err(|source| self.sql_error(source))
    }

    /// The `(hreflang, href)` alternates `page` declares whose target `run` lists, ordered.
    pub fn listed_alternates_of(
        &self,
        run: RunId,
        page: &str,
    ) -> Result<Vec<(String, String)>, StoreError> {
        let mut statement = self
            .connection
            .prepare_cached(
                "SELECT alternates.hreflang, alternates.href FROM alternates
                    JOIN pages ON pages.url = alternates.href
                 WHERE alternates.page = ?1 AND pages.last_seen_run = ?2 AND pages.verdict = ?3
                 ORDER BY alternates.hreflang, alternates.href",
            )
            .map_err(|source| self.sql_error(source))?;
        statement
            .query_map(params![page, run.0, Verdict::Indexable], |row| {
                Ok((row.get(0)?, row.get(1)?))
            })
            .and_then(Iterator::collect)
            .map_err(|source| self.sql_error(source))
    }

    /// Every time `url`'s lastmod was seen to change, oldest first.
    pub fn change_times(&self, url: &str) -> Result<Vec<Timestamp>, StoreError> {
        let mut statement = self
            .connection
            .prepare_cached("SELECT changed_at FROM changes WHERE url = ?1 ORDER BY changed_at")
            .map_err(|source| self.sql_error(source))?;
        let seconds: Vec<i64> = statement
            .query_map(params![url], |row| row.get(0))
            .and_then(Iterator::collect)
            .map_err(|source| self.sql_error(source))?;
        Ok(seconds.into_iter().filter_map(timestamp).collect())
    }

    /// Everything recorded about `url`, if it was ever seen.
    pub fn page(&self, url: &str) -> Result<Option<PageRecord>, StoreError> {
        let mut statement = self
            .connection
            .prepare_cached(&format!("SELECT {PAGE_COLUMNS} FROM pages WHERE url = ?1"))
            .map_err(|source| self.sql_error(source))?;
        statement
            .query_row(params![url], page_record)
            .optional()
            .map_err(|source| self.sql_error(source))
    }
}

/// The smallest URL of every cycle in the canonical graph (`url -> target`).
fn loop_representatives(targets: &HashMap<String, String>) -> Vec<&str> {
    let mut done: HashSet<&str> = HashSet::new();
    let mut representatives = Vec::new();
    for start in targets.keys() {
        let mut path: Vec<&str> = Vec::new();
        let mut current = start.as_str();
        while !done.contains(current) {
            if let Some(position) = path.iter().position(|seen| *seen == current) {
                if let Some(smallest) = path[position..].iter().min() {
                    representatives.push(*smallest);
                }
                break;
            }
            path.push(current);
            match targets.get(current) {
                Some(next) => current = next,
                None => break,
            }
        }
        done.extend(path);
    }
    representatives.sort_unstable();
    representatives
}
