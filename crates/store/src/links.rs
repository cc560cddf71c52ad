//! Links between pages, typed: what an incremental recrawl follows again on 304, and the link
//! graph of the audit (who links where, through what, with which text).

use std::sync::LazyLock;

use rusqlite::{OptionalExtension, Transaction, params};

use crate::error::StoreError;
use crate::link_record::{LinkKind, LinkRecord};
use crate::record::PageRecord;
use crate::run_id::RunId;
use crate::script_links::template_column;
use crate::store::Store;
use crate::urls::UrlIds;
use crate::verdict::Verdict;

/// [`Store::followed_links_of`]'s query, written once: it runs for every page a recrawl
/// revalidates.
static FOLLOWED_LINKS_OF: LazyLock<String> = LazyLock::new(|| {
    format!(
        "SELECT target FROM links
         WHERE source = (SELECT id FROM urls WHERE url = ?1) AND kind IN ({})",
        LinkKind::refollowed_numbers()
    )
});

/// [`write_links`]'s insert of [`LINKS_PER_INSERT`] rows, written once.
static INSERT_MANY_LINKS: LazyLock<String> = LazyLock::new(|| {
    format!(
        "INSERT OR IGNORE INTO links (source, target, kind) VALUES {}",
        vec!["(?1, ?, ?)"; LINKS_PER_INSERT].join(", ")
    )
});

/// One link of the graph, borrowed from its row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GraphLink<'a> {
    /// The linking page.
    pub source: &'a str,
    /// Where it leads.
    pub target: &'a str,
    /// What it is.
    pub kind: LinkKind,
    /// Its text.
    pub anchor: Option<&'a str>,
    /// Its `rel` holds `nofollow`.
    pub nofollow: bool,
}

/// Links inserted by one statement: a page's links go in a few statements, not one each.
const LINKS_PER_INSERT: usize = 32;

/// Replaces the recorded links of every page of `pages` that carries links (in the
/// recorder's transaction); the first link of a kind from a page to a target keeps its text.
/// A sitemap's entries stay: a sitemap of the site that is also linked as a page keeps both.
pub(crate) fn write_links(
    transaction: &Transaction<'_>,
    url_ids: &mut UrlIds,
    pages: &[PageRecord],
) -> rusqlite::Result<()> {
    let sitemap = LinkKind::Sitemap;
    let mut forget =
        transaction.prepare_cached("DELETE FROM links WHERE source = ?1 AND kind != ?2")?;
    let mut forget_details =
        transaction.prepare_cached("DELETE FROM link_details WHERE source = ?1 AND kind != ?2")?;
    let mut insert_many = transaction.prepare_cached(&INSERT_MANY_LINKS)?;
    let mut insert = transaction
        .prepare_cached("INSERT OR IGNORE INTO links (source, target, kind) VALUES (?1, ?2, ?3)")?;
    let mut insert_details = transaction.prepare_cached(
        "INSERT OR IGNORE INTO link_details (source, target, kind, anchor, nofollow)
         VALUES (?1, ?2, ?3, ?4, ?5)",
    )?;
    let mut forget_template =
        transaction.prepare_cached("DELETE FROM page_templates WHERE page = ?1")?;
    let mut template = transaction
        .prepare_cached("INSERT OR REPLACE INTO page_templates (page, template) VALUES (?1, ?2)")?;
    let mut rows: Vec<(i64, i64)> = Vec::new();
    for page in pages {
        let Some(links) = &page.links else {
            continue;
        };
        let source = url_ids.id(transaction, &page.url)?;
        forget.execute(params![source, sitemap])?;
        forget_details.execute(params![source, sitemap])?;
        match page.template {
            Some(number) => template.execute(params![source, template_column(number)])?,
            None => forget_template.execute(params![source])?,
        };
        rows.clear();
        for link in links {
            let target = url_ids.id(transaction, &link.target)?;
            rows.push((target, link.kind.number()));
            if link.anchor.is_some() || link.nofollow {
                insert_details.execute(params![
                    source,
                    target,
                    link.kind,
                    link.anchor,
                    link.nofollow
                ])?;
            }
        }
        // Sorted, each link once: the rows go in key order, with no duplicate to ignore.
        rows.sort_unstable();
        rows.dedup();
        let mut chunks = rows.chunks_exact(LINKS_PER_INSERT);
        for chunk in &mut chunks {
            insert_many.raw_bind_parameter(1, source)?;
            for (index, (target, kind)) in chunk.iter().enumerate() {
                insert_many.raw_bind_parameter(2 + 2 * index, target)?;
                insert_many.raw_bind_parameter(3 + 2 * index, kind)?;
            }
            insert_many.raw_execute()?;
        }
        for (target, kind) in chunks.remainder() {
            insert.execute(params![source, target, kind])?;
        }
    }
    Ok(())
}

/// The links a crawler follows that lead to the URL `?1` from pages of run `?2`, joined to
/// their source's page (`pages`), for an `EXISTS` or a `SELECT`.
fn followed_links_to(kinds: &str) -> String {
    format!(
        "FROM links JOIN urls AS sources ON sources.id = links.source
             JOIN pages ON pages.url = sources.url
         WHERE links.target = (SELECT id FROM urls WHERE url = ?1) AND pages.last_seen_run = ?2
           AND links.kind IN ({kinds})"
    )
}

impl Store {
    /// Records the URLs the site's sitemap `sitemap` lists, in place of those it listed when
    /// it was last read, as links of kind [`LinkKind::Sitemap`].
    pub fn record_sitemap_links(
        &mut self,
        sitemap: &str,
        targets: &[String],
    ) -> Result<(), StoreError> {
        let path = self.path.clone();
        let sql_error = |source| StoreError::Sql {
            path: path.clone(),
            source,
        };
        let transaction = self.connection.transaction().map_err(sql_error)?;
        let written = (|| -> rusqlite::Result<()> {
            let source = self.url_ids.id(&transaction, sitemap)?;
            let mut forget =
                transaction.prepare_cached("DELETE FROM links WHERE source = ?1 AND kind = ?2")?;
            forget.execute(params![source, LinkKind::Sitemap])?;
            let mut insert = transaction.prepare_cached(
                "INSERT OR IGNORE INTO links (source, target, kind) VALUES (?1, ?2, ?3)",
            )?;
            for target in targets {
                let target = self.url_ids.id(&transaction, target)?;
                insert.execute(params![source, target, LinkKind::Sitemap])?;
            }
            Ok(())
        })()
        .and_then(|()| transaction.commit());
        self.url_ids.settle(written.is_ok());
        written.map_err(sql_error)
    }

    /// Builds the index of links by target, if it is not there, for the queries that ask
    /// who links to a URL (the audit's, and the summary of a crawl seeded from the site's
    /// sitemaps). It is built when one first asks, not kept up to date link by link while a
    /// crawl writes them: built at once, it costs a fraction of that, and a crawl that no one
    /// asks about (a scheduled one, most nights) never builds it.
    pub(crate) fn index_links(&self) -> Result<(), StoreError> {
        if self.links_indexed.get() {
            return Ok(());
        }
        self.connection
            .execute_batch("CREATE INDEX IF NOT EXISTS links_by_target ON links (target, kind)")
            .map_err(|source| self.sql_error(source))?;
        self.links_indexed.set(true);
        Ok(())
    }

    /// Whether `run` reached `url` by links: it is where the crawl started (depth 0), or a
    /// link a crawler follows ([`LinkKind::leads_crawl`]: an anchor, a frame, a refresh, a
    /// redirect, a canonical, an alternate) leads there from a page of `run`. A sitemap
    /// listing it does not count.
    pub fn is_reached_by_links(&self, run: RunId, url: &str) -> Result<bool, StoreError> {
        let sql = format!(
            "SELECT EXISTS (SELECT 1 FROM pages
                            WHERE url = ?1 AND last_seen_run = ?2 AND depth = 0)
                 OR EXISTS (SELECT 1 {})",
            followed_links_to(&LinkKind::followed_numbers())
        );
        self.index_links()?;
        let mut statement = self
            .connection
            .prepare_cached(&sql)
            .map_err(|source| self.sql_error(source))?;
        statement
            .query_row(params![url, run.0], |row| row.get(0))
            .map_err(|source| self.sql_error(source))
    }

    /// How many pages `run` lists that only the site's sitemaps led to: a sitemap lists
    /// them, and no link a crawler follows leads to them from a page of the run (the seed,
    /// where the crawl starts, is not one of them).
    pub fn listed_only_from_sitemaps(&self, run: RunId) -> Result<u64, StoreError> {
        let sql = format!(
            "SELECT count(*) FROM pages AS listed JOIN urls AS listed_url ON listed_url.url = listed.url
             WHERE listed.last_seen_run = ?1 AND listed.verdict = ?2 AND listed.depth > 0
               AND EXISTS (SELECT 1 FROM links WHERE links.target = listed_url.id
                                                 AND links.kind = ?3)
               AND NOT EXISTS (SELECT 1 FROM links JOIN urls AS sources ON sources.id = links.source
                                   JOIN pages ON pages.url = sources.url
                               WHERE links.target = listed_url.id AND pages.last_seen_run = ?1
                                 AND links.kind IN ({}))",
            LinkKind::followed_numbers()
        );
        self.index_links()?;
        self.connection
            .query_row(
                &sql,
                params![run.0, Verdict::Indexable, LinkKind::Sitemap],
                |row| row.get::<_, i64>(0),
            )
            .map(|count| count.max(0) as u64)
            .map_err(|source| self.sql_error(source))
    }

    /// The ids of the URLs the links a crawler follows from a page to discover others lead
    /// to, as `url` was last recorded: its anchors, frames, refreshes and alternates (not its
    /// canonical, which its verdict names, nor its images), in no particular order. What a
    /// recrawl follows again from a page that answered 304 Not Modified; [`Store::url_of`]
    /// gives each URL.
    pub fn followed_links_of(&self, url: &str) -> Result<Vec<i64>, StoreError> {
        let mut statement = self
            .connection
            .prepare_cached(&FOLLOWED_LINKS_OF)
            .map_err(|source| self.sql_error(source))?;
        statement
            .query_map(params![url], |row| row.get(0))
            .and_then(Iterator::collect)
            .map_err(|source| self.sql_error(source))
    }

    /// The URL a link's id stands for.
    pub fn url_of(&self, id: i64) -> Result<Option<String>, StoreError> {
        let mut statement = self
            .connection
            .prepare_cached("SELECT url FROM urls WHERE id = ?1")
            .map_err(|source| self.sql_error(source))?;
        statement
            .query_row(params![id], |row| row.get(0))
            .optional()
            .map_err(|source| self.sql_error(source))
    }

    /// The links `url` was last recorded with, by kind and target.
    pub fn links_of(&self, url: &str) -> Result<Vec<LinkRecord>, StoreError> {
        let mut statement = self
            .connection
            .prepare_cached(
                "SELECT targets.url, links.kind, details.anchor, coalesce(details.nofollow, 0)
                 FROM links JOIN urls AS targets ON targets.id = links.target
                     LEFT JOIN link_details AS details ON details.source = links.source
                         AND details.target = links.target AND details.kind = links.kind
                 WHERE links.source = (SELECT id FROM urls WHERE url = ?1)
                 ORDER BY links.kind, targets.url",
            )
            .map_err(|source| self.sql_error(source))?;
        statement
            .query_map(params![url], |row| {
                Ok(LinkRecord {
                    target: row.get(0)?,
                    kind: row.get(1)?,
                    anchor: row.get(2)?,
                    nofollow: row.get(3)?,
                })
            })
            .and_then(Iterator::collect)
            .map_err(|source| self.sql_error(source))
    }

    /// Visits every link of the pages `run` recorded, ordered by source, target and kind.
    /// The sources are read in the order of the URLs' index, so that only each page's own
    /// links are sorted, not every link of the site at once (`CROSS JOIN` keeps that order).
    pub fn for_each_link<E: From<StoreError>>(
        &self,
        run: RunId,
        mut visit: impl FnMut(GraphLink<'_>) -> Result<(), E>,
    ) -> Result<(), E> {
        let mut statement = self
            .connection
            .prepare(
                "SELECT sources.url, targets.url, links.kind, details.anchor,
                        coalesce(details.nofollow, 0)
                 FROM urls AS sources CROSS JOIN pages ON pages.url = sources.url
                     CROSS JOIN links ON links.source = sources.id
                     CROSS JOIN urls AS targets ON targets.id = links.target
                     LEFT JOIN link_details AS details ON details.source = links.source
                         AND details.target = links.target AND details.kind = links.kind
                 WHERE pages.last_seen_run = ?1
                 ORDER BY sources.url, targets.url, links.kind",
            )
            .map_err(|source| self.sql_error(source))?;
        let mut rows = statement
            .query(params![run.0])
            .map_err(|source| self.sql_error(source))?;
        while let Some(row) = rows.next().map_err(|source| self.sql_error(source))? {
            let text = |index| -> rusqlite::Result<Option<&str>> {
                Ok(row.get_ref(index)?.as_str_or_null()?)
            };
            let link = (|| -> rusqlite::Result<GraphLink<'_>> {
                Ok(GraphLink {
                    source: text(0)?.unwrap_or_default(),
                    target: text(1)?.unwrap_or_default(),
                    kind: row.get(2)?,
                    anchor: text(3)?,
                    nofollow: row.get(4)?,
                })
            })()
            .map_err(|source| self.sql_error(source))?;
            visit(link)?;
        }
        Ok(())
    }

    /// The pages of `run` that link to `url` for visitors to follow (by an anchor, a frame or
    /// a refresh: not by a canonical, an alternate or an image, nor a redirect), sorted.
    pub fn referrers(&self, run: RunId, url: &str) -> Result<Vec<String>, StoreError> {
        let sql = format!(
            "SELECT DISTINCT sources.url {} ORDER BY sources.url",
            followed_links_to(&LinkKind::visited_numbers())
        );
        self.index_links()?;
        let mut statement = self
            .connection
            .prepare_cached(&sql)
            .map_err(|source| self.sql_error(source))?;
        statement
            .query_map(params![url, run.0], |row| row.get(0))
            .and_then(Iterator::collect)
            .map_err(|source| self.sql_error(source))
    }

    /// Whether a URL of `run` redirects to `url`.
    pub fn is_redirect_target(&self, run: RunId, url: &str) -> Result<bool, StoreError> {
        let sql = format!(
            "SELECT EXISTS (SELECT 1 {})",
            followed_links_to(&LinkKind::Redirect.number().to_string())
        );
        self.index_links()?;
        let mut statement = self
            .connection
            .prepare_cached(&sql)
            .map_err(|source| self.sql_error(source))?;
        statement
            .query_row(params![url, run.0], |row| row.get(0))
            .map_err(|source| self.sql_error(source))
    }
}

#[cfg(test)]
mod tests {
    use crate::tests::{open, page};
    use crate::*;

    #[test]
    fn a_page_of_many_links_keeps_each_once() {
        let (_directory, mut store) = open();
        let run = store.begin_run("https://e.com/").unwrap();
        // More than one statement's worth, with every link named twice.
        let targets: Vec<String> = (0..75).map(|n| format!("https://e.com/{n}")).collect();
        let links = targets
            .iter()
            .chain(&targets)
            .map(|target| LinkRecord {
                target: target.clone(),
                kind: LinkKind::Anchor,
                anchor: None,
                nofollow: false,
            })
            .collect();
        let record = PageRecord {
            links: Some(links),
            ..page("https://e.com/", Verdict::Indexable)
        };
        store.record_pages(run, &[record]).unwrap();
        let recorded: Vec<String> = store
            .links_of("https://e.com/")
            .unwrap()
            .into_iter()
            .map(|link| link.target)
            .collect();
        let mut expected = targets.clone();
        expected.sort();
        assert_eq!(recorded, expected, "each once, by target");
    }
}
