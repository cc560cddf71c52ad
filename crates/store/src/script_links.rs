//! The links a template's scripts draw on every one of its pages, learned from renders
//! (docs/design.md, `--render`): recorded as links of each page of that template, of a kind
//! of their own ([`LinkKind::Script`]), and the depth of the run's pages settled again with
//! them. A chapter that a sidebar drawn by a script links from the start page is one click
//! away for a visitor, whatever the HTML as served says.

use rusqlite::{Transaction, params};

use crate::error::StoreError;
use crate::link_record::LinkKind;
use crate::run_id::RunId;
use crate::store::Store;

impl Store {
    /// Records the links of each template of `templates`, `(template, links)`, as links of
    /// every page of `run` recorded with it ([`PageRecord::template`](crate::PageRecord)),
    /// but the page itself and the targets it links to for visitors already. Then settles the
    /// depth of the run's pages with them: each is the fewest clicks from a page of depth 0
    /// over the links recorded that a crawler follows, when that is fewer than the crawl's,
    /// its referrer then the first page in URL order one click nearer. Returns how many links
    /// it recorded.
    pub fn record_script_links(
        &mut self,
        run: RunId,
        templates: &[(u64, Vec<String>)],
    ) -> Result<u64, StoreError> {
        let path = self.path().to_path_buf();
        let transaction = self
            .connection
            .transaction()
            .map_err(|source| crate::error::sql_error(&path, source))?;
        let written = (|| -> rusqlite::Result<u64> {
            let mut added = 0;
            {
                let mut insert = transaction.prepare(&format!(
                    "INSERT OR IGNORE INTO links (source, target, kind)
                     SELECT templated.page, ?2, ?3 FROM page_templates AS templated
                         JOIN urls AS sources ON sources.id = templated.page
                         JOIN pages ON pages.url = sources.url
                     WHERE templated.template = ?1 AND pages.last_seen_run = ?4
                       AND templated.page != ?2
                       AND NOT EXISTS (SELECT 1 FROM links AS own
                                       WHERE own.source = templated.page AND own.target = ?2
                                         AND own.kind IN ({}))",
                    LinkKind::visited_numbers()
                ))?;
                for (template, links) in templates {
                    let template = template_column(*template);
                    for link in links {
                        let target = self.url_ids.id(&transaction, link)?;
                        let rows =
                            insert.execute(params![template, target, LinkKind::Script, run.0])?;
                        added += rows as u64;
                    }
                }
            }
            if added > 0 {
                settle_depths(&transaction, run)?;
            }
            Ok(added)
        })();
        let written = written.and_then(|added| transaction.commit().map(|()| added));
        self.url_ids.settle(written.is_ok());
        written.map_err(|source| crate::error::sql_error(&path, source))
    }
}

/// A template's number as its column holds it: SQLite's integers are signed, and the
/// number's bits are kept as they are.
pub(crate) fn template_column(number: u64) -> i64 {
    number as i64
}

/// Settles the depth of `run`'s pages over the links recorded: each is the fewest clicks
/// from a page of depth 0 over the links a crawler follows ([`LinkKind::leads_crawl`], a
/// script's included; a redirect costs no click, as in the crawl), when that is fewer than
/// the crawl found, and its referrer then the first page in URL order at the depth before.
/// Breadth first, a level at a time, in temporary tables: nothing grows in memory with the
/// site. A depth never grows: the crawl's own is the shortest over the links it followed.
fn settle_depths(transaction: &Transaction<'_>, run: RunId) -> rusqlite::Result<()> {
    transaction.execute_batch(
        "CREATE TEMP TABLE run_pages (id INTEGER PRIMARY KEY);
         CREATE TEMP TABLE reach (id INTEGER PRIMARY KEY, depth INTEGER NOT NULL, referrer TEXT);",
    )?;
    transaction.execute(
        "INSERT INTO temp.run_pages (id)
         SELECT urls.id FROM pages JOIN urls ON urls.url = pages.url
         WHERE pages.last_seen_run = ?1",
        params![run.0],
    )?;
    transaction.execute(
        "INSERT INTO temp.reach (id, depth)
         SELECT urls.id, 0 FROM pages JOIN urls ON urls.url = pages.url
         WHERE pages.last_seen_run = ?1 AND pages.depth = 0",
        params![run.0],
    )?;
    let clicks: Vec<String> = LinkKind::ALL
        .into_iter()
        .filter(|kind| kind.leads_crawl() && *kind != LinkKind::Redirect)
        .map(|kind| kind.number().to_string())
        .collect();
    let step = |kinds: &str| {
        format!(
            "INSERT OR IGNORE INTO temp.reach (id, depth, referrer)
             SELECT links.target, ?2, min(sources.url)
             FROM temp.reach JOIN temp.run_pages ON run_pages.id = reach.id
                 JOIN links ON links.source = reach.id
                 JOIN urls AS sources ON sources.id = reach.id
             WHERE reach.depth = ?1 AND links.kind IN ({kinds})
             GROUP BY links.target"
        )
    };
    let mut redirect = transaction.prepare(&step(&LinkKind::Redirect.number().to_string()))?;
    let mut click = transaction.prepare(&step(&clicks.join(", ")))?;
    for depth in 0_i64.. {
        while redirect.execute(params![depth, depth])? > 0 {}
        if click.execute(params![depth, depth + 1])? == 0 {
            break;
        }
    }
    let shallower: Vec<(String, i64, Option<String>)> = {
        let mut select = transaction.prepare(
            "SELECT pages.url, reach.depth, reach.referrer
             FROM temp.reach JOIN urls ON urls.id = reach.id JOIN pages ON pages.url = urls.url
             WHERE pages.last_seen_run = ?1 AND reach.depth < pages.depth",
        )?;
        select
            .query_map(params![run.0], |row| {
                Ok((row.get(0)?, row.get(1)?, row.get(2)?))
            })?
            .collect::<rusqlite::Result<_>>()?
    };
    let mut update =
        transaction.prepare("UPDATE pages SET depth = ?2, referrer = ?3 WHERE url = ?1")?;
    for (url, depth, referrer) in &shallower {
        update.execute(params![url, depth, referrer])?;
    }
    drop((redirect, click, update));
    transaction.execute_batch("DROP TABLE temp.run_pages; DROP TABLE temp.reach;")
}

#[cfg(test)]
mod tests {
    use crate::tests::{open, page};
    use crate::*;

    const TEMPLATE: u64 = 0xfeed_beef_0000_0001;

    fn links(kind: LinkKind, targets: &[&str]) -> Vec<LinkRecord> {
        targets
            .iter()
            .map(|target| LinkRecord {
                target: format!("https://e.com{target}"),
                kind,
                anchor: None,
                nofollow: false,
            })
            .collect()
    }

    fn at(path: &str, depth: u32, template: Option<u64>, anchors: &[&str]) -> PageRecord {
        PageRecord {
            depth,
            referrer: (depth > 0).then(|| "https://e.com/".to_string()),
            template,
            links: Some(links(LinkKind::Anchor, anchors)),
            ..page(&format!("https://e.com{path}"), Verdict::Indexable)
        }
    }

    fn depth_and_referrer(store: &Store, path: &str) -> (u32, String) {
        let page = store
            .page(&format!("https://e.com{path}"))
            .unwrap()
            .unwrap();
        let referrer = page.referrer.unwrap_or_default();
        (
            page.depth,
            referrer.trim_start_matches("https://e.com").to_string(),
        )
    }

    #[test]
    fn links_a_template_s_scripts_draw_are_each_page_s_and_settle_depth_breadth_first() {
        let (_directory, mut store) = open();
        let run = store.begin_run("https://e.com/").unwrap();
        // As served, the start page reaches its chapters through a table of contents.
        let redirect = PageRecord {
            depth: 2,
            links: Some(links(LinkKind::Redirect, &["/moved"])),
            ..page("https://e.com/old", Verdict::Redirect)
        };
        let pages = [
            at("/", 0, Some(TEMPLATE), &["/toc"]),
            at("/toc", 1, None, &["/ch1", "/ch2", "/old"]),
            at("/ch1", 2, Some(TEMPLATE), &["/ch2", "/ch1/deep"]),
            at("/ch2", 2, Some(TEMPLATE), &[]),
            at("/ch1/deep", 3, None, &["/ch1/deeper"]),
            at("/ch1/deeper", 4, None, &[]),
            redirect,
            at("/moved", 2, None, &[]),
        ];
        store.record_pages(run, &pages).unwrap();
        let drawn = ["/", "/ch1", "/ch2", "/old"].map(|path| format!("https://e.com{path}"));
        let added = store
            .record_script_links(run, &[(TEMPLATE, drawn.to_vec()), (7, drawn.to_vec())])
            .unwrap();
        // Each of the three pages gets the three others; /ch1 links /ch2 already.
        assert_eq!(added, 3 + 3 + 3 - 1);
        let script_targets = |path: &str| -> Vec<String> {
            let mut targets: Vec<String> = store
                .links_of(&format!("https://e.com{path}"))
                .unwrap()
                .into_iter()
                .filter(|link| link.kind == LinkKind::Script)
                .map(|link| link.target.trim_start_matches("https://e.com").to_string())
                .collect();
            targets.sort();
            targets
        };
        assert_eq!(
            script_targets("/ch1"),
            ["/", "/old"],
            "not itself, nor twice"
        );
        assert_eq!(script_targets("/"), ["/ch1", "/ch2", "/old"]);
        assert!(script_targets("/toc").is_empty(), "not of the template");
        assert_eq!(
            store.referrers(run, "https://e.com/ch2").unwrap(),
            ["https://e.com/", "https://e.com/ch1", "https://e.com/toc"],
            "a visitor follows them"
        );

        let expected = [
            ("/", (0, "")),
            ("/toc", (1, "/")),
            ("/ch1", (1, "/")),
            ("/ch2", (1, "/")),
            ("/old", (1, "/")),
            ("/moved", (1, "/old")),
            ("/ch1/deep", (2, "/ch1")),
            ("/ch1/deeper", (3, "/ch1/deep")),
        ];
        for (path, (depth, referrer)) in expected {
            assert_eq!(
                depth_and_referrer(&store, path),
                (depth, referrer.to_string()),
                "{path}"
            );
        }
    }

    #[test]
    fn a_depth_never_grows_and_pages_of_earlier_runs_get_no_links() {
        let (_directory, mut store) = open();
        let earlier = store.begin_run("https://e.com/").unwrap();
        store
            .record_pages(earlier, &[at("/gone", 1, Some(TEMPLATE), &[])])
            .unwrap();
        let run = store.begin_run("https://e.com/").unwrap();
        // Reached through the site's sitemap at depth 1, which no link of the store says.
        let pages = [
            at("/", 0, Some(TEMPLATE), &[]),
            at("/listed", 1, None, &[]),
            at("/far", 3, None, &[]),
        ];
        store.record_pages(run, &pages).unwrap();
        let drawn = vec!["https://e.com/far".to_string()];
        assert_eq!(
            store
                .record_script_links(run, &[(TEMPLATE, drawn)])
                .unwrap(),
            1
        );
        assert_eq!(depth_and_referrer(&store, "/far"), (1, "/".to_string()));
        assert_eq!(depth_and_referrer(&store, "/listed"), (1, "/".to_string()));
        assert!(store.links_of("https://e.com/gone").unwrap().is_empty());
    }
}
