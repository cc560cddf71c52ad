//! Versioned schema migrations: `PRAGMA user_version` holds how many have been applied, so an
//! old database opens with a newer sitemapper. New releases append to `MIGRATIONS`, never edit.

use std::path::Path;

use rusqlite::Connection;

use crate::error::StoreError;

pub(crate) const MIGRATIONS: &[&str] = &[
    // 1: runs and pages.
    "CREATE TABLE runs (
        id INTEGER PRIMARY KEY,
        seed TEXT NOT NULL,
        started_at INTEGER NOT NULL,
        finished_at INTEGER,
        status TEXT NOT NULL,
        pages_seen INTEGER,
        pages_listed INTEGER
    );
    CREATE TABLE pages (
        url TEXT PRIMARY KEY,
        depth INTEGER NOT NULL,
        referrer TEXT,
        status INTEGER,
        final_url TEXT,
        content_type TEXT,
        html_ok INTEGER NOT NULL,
        verdict TEXT NOT NULL,
        reason TEXT,
        detail TEXT,
        target TEXT,
        canonical TEXT,
        last_modified INTEGER,
        lastmod INTEGER,
        etag TEXT,
        fingerprint TEXT,
        fetched_at INTEGER,
        first_seen_run INTEGER NOT NULL REFERENCES runs(id),
        last_seen_run INTEGER NOT NULL REFERENCES runs(id)
    );
    CREATE INDEX pages_by_run ON pages (last_seen_run, verdict);",
    // 2: incremental recrawls. The page's title and whether it was revalidated (304); the
    // links it was followed through (for 304 pages, and the audit); every URL listed by each
    // run (for the change report); every observed change of a page's lastmod.
    "ALTER TABLE pages ADD COLUMN title TEXT;
    ALTER TABLE pages ADD COLUMN revalidated INTEGER NOT NULL DEFAULT 0;
    CREATE TABLE links (
        source TEXT NOT NULL,
        target TEXT NOT NULL,
        PRIMARY KEY (source, target)
    ) WITHOUT ROWID;
    CREATE TABLE listed (
        run INTEGER NOT NULL REFERENCES runs(id),
        url TEXT NOT NULL,
        lastmod INTEGER,
        PRIMARY KEY (run, url)
    ) WITHOUT ROWID;
    CREATE TABLE changes (
        url TEXT NOT NULL,
        changed_at INTEGER NOT NULL,
        PRIMARY KEY (url, changed_at)
    ) WITHOUT ROWID;
    CREATE TRIGGER lastmod_inserted AFTER INSERT ON pages WHEN NEW.lastmod IS NOT NULL
    BEGIN
        INSERT OR IGNORE INTO changes (url, changed_at) VALUES (NEW.url, NEW.lastmod);
    END;
    CREATE TRIGGER lastmod_changed AFTER UPDATE OF lastmod ON pages
        WHEN NEW.lastmod IS NOT NULL AND NEW.lastmod IS NOT OLD.lastmod
    BEGIN
        INSERT OR IGNORE INTO changes (url, changed_at) VALUES (NEW.url, NEW.lastmod);
    END;
    ALTER TABLE runs ADD COLUMN requests INTEGER;
    ALTER TABLE runs ADD COLUMN revalidated INTEGER;
    ALTER TABLE runs ADD COLUMN added INTEGER;
    ALTER TABLE runs ADD COLUMN removed INTEGER;
    ALTER TABLE runs ADD COLUMN changed INTEGER;",
    // 3: sitemap extensions: the images each page shows, its hreflang alternates.
    "CREATE TABLE images (
        page TEXT NOT NULL,
        image TEXT NOT NULL,
        PRIMARY KEY (page, image)
    ) WITHOUT ROWID;
    CREATE TABLE alternates (
        page TEXT NOT NULL,
        hreflang TEXT NOT NULL,
        href TEXT NOT NULL,
        PRIMARY KEY (page, hreflang, href)
    ) WITHOUT ROWID;",
    // 4: for the audit: response time and size, the meta description, and a link index by
    // target (who links to a broken page).
    "ALTER TABLE pages ADD COLUMN elapsed_ms INTEGER;
    ALTER TABLE pages ADD COLUMN body_bytes INTEGER;
    ALTER TABLE pages ADD COLUMN truncated INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE pages ADD COLUMN description TEXT;
    CREATE INDEX links_by_target ON links (target);",
    // 5: the scope the database belongs to (one key-value row: `scope`), and the queued URLs
    // a crawl keeps on disk beyond its memory budget, first in, first out.
    "CREATE TABLE meta (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL
    ) WITHOUT ROWID;
    CREATE TABLE frontier (
        position INTEGER PRIMARY KEY,
        url TEXT NOT NULL,
        depth INTEGER NOT NULL,
        referrer TEXT,
        chain INTEGER NOT NULL
    );",
    // 6: the canonical hints a page gave that were ignored get columns of their own, one
    // value per line, instead of sharing `detail` with error messages as "invalid canonical:
    // a b; conflicting canonicals: c d" (rows written before are converted); `final_url`,
    // never written, goes.
    "ALTER TABLE pages ADD COLUMN invalid_canonicals TEXT;
    ALTER TABLE pages ADD COLUMN conflicting_canonicals TEXT;
    UPDATE pages SET
        invalid_canonicals = CASE WHEN substr(detail, 1, 19) = 'invalid canonical: ' THEN
            replace(substr(detail, 20, CASE WHEN instr(detail, '; conflicting canonicals: ') > 0
                                        THEN instr(detail, '; conflicting canonicals: ') - 20
                                        ELSE length(detail) END), ' ', char(10)) END,
        conflicting_canonicals = CASE
            WHEN substr(detail, 1, 24) = 'conflicting canonicals: ' THEN
                replace(substr(detail, 25), ' ', char(10))
            WHEN substr(detail, 1, 19) = 'invalid canonical: '
                 AND instr(detail, '; conflicting canonicals: ') > 0 THEN
                replace(substr(detail, instr(detail, '; conflicting canonicals: ') + 26), ' ', char(10))
            END
    WHERE detail IS NOT NULL
      AND coalesce(reason, '') NOT IN ('fetch-error', 'invalid-redirect', 'session-parameter');
    UPDATE pages SET detail = NULL
    WHERE invalid_canonicals IS NOT NULL OR conflicting_canonicals IS NOT NULL;
    ALTER TABLE pages DROP COLUMN final_url;",
    // 7: pages rendered in a browser: how that went, and what the HTML as served said
    // otherwise about the canonical ('' for none) and noindex (NULL where the two agree).
    "ALTER TABLE pages ADD COLUMN rendering TEXT;
    ALTER TABLE pages ADD COLUMN served_canonical TEXT;
    ALTER TABLE pages ADD COLUMN served_noindex INTEGER;",
    // 8: for the audit. Links get a kind (`a`, `canonical`, `redirect`, `hreflang`, `image`,
    // `iframe`, `refresh`), their anchor text and nofollow; links older releases recorded
    // are `a`, except a canonicalised page's link to its target, which was its canonical.
    // What a page says on itself: headings, language, images without alt text, resources
    // loaded over http. Every audit's score, and its findings (kept for the last audits).
    "CREATE TABLE typed_links (
        source TEXT NOT NULL,
        target TEXT NOT NULL,
        kind TEXT NOT NULL,
        anchor TEXT,
        nofollow INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (source, target, kind)
    ) WITHOUT ROWID;
    INSERT INTO typed_links (source, target, kind)
        SELECT links.source, links.target,
               CASE WHEN EXISTS (SELECT 1 FROM pages WHERE pages.url = links.source
                                   AND pages.verdict = 'canonicalised'
                                   AND pages.target = links.target)
                    THEN 'canonical' ELSE 'a' END
        FROM links;
    DROP TABLE links;
    ALTER TABLE typed_links RENAME TO links;
    CREATE INDEX links_by_target ON links (target);
    ALTER TABLE pages ADD COLUMN h1_count INTEGER;
    ALTER TABLE pages ADD COLUMN h1 TEXT;
    ALTER TABLE pages ADD COLUMN lang TEXT;
    ALTER TABLE pages ADD COLUMN images_without_alt INTEGER;
    ALTER TABLE pages ADD COLUMN images_without_alt_examples TEXT;
    ALTER TABLE pages ADD COLUMN insecure_resources TEXT;
    CREATE TABLE audits (
        run INTEGER PRIMARY KEY REFERENCES runs(id),
        finished_at INTEGER NOT NULL,
        score INTEGER NOT NULL
    );
    CREATE TABLE audit_findings (
        run INTEGER NOT NULL REFERENCES audits(run),
        code TEXT NOT NULL,
        url TEXT NOT NULL,
        detail TEXT NOT NULL,
        PRIMARY KEY (run, code, url, detail)
    ) WITHOUT ROWID;",
    // 9: the values of custom extractions (`--extract NAME=SELECTOR`): per page and name, in
    // document order.
    "CREATE TABLE extracted (
        page TEXT NOT NULL,
        name TEXT NOT NULL,
        position INTEGER NOT NULL,
        value TEXT NOT NULL,
        PRIMARY KEY (page, name, position)
    ) WITHOUT ROWID;",
    // 10: the sitemap files published, each with a digest of its content and the time that
    // content last changed (the index's `<lastmod>` of the file).
    "CREATE TABLE sitemap_files (
        name TEXT PRIMARY KEY,
        digest INTEGER NOT NULL,
        changed_at INTEGER NOT NULL
    );",
    // 11: whether the page's last fetch served a new `Last-Modified` over the same content,
    // so that its lastmod was kept (a redeploy that re-dates every file): counted per run for
    // the summary. Rows written before have nothing to report.
    "ALTER TABLE pages ADD COLUMN lastmod_kept INTEGER NOT NULL DEFAULT 0;",
    // 12: what kind of failure left a page without a response (reason `fetch-error`), as a
    // code beside the detail's words. Rows written before have only the words.
    "ALTER TABLE pages ADD COLUMN failure TEXT;",
    // 13: links as rows of integers. Every URL a link names is stored once, in `urls`, and a
    // link is `(source, target, kind)` of ids and a kind number (`LinkKind::number`); its
    // anchor text and nofollow, which only an audit reads, go to `link_details`, for the
    // links that have them. The index of links by target is built when a query first needs
    // it (`Store::index_links`), not kept up to date link by link while a crawl writes them.
    // Rows are converted with INSERT ... SELECT, which streams: memory stays bounded however
    // many links the database holds. Stored fingerprints get their version: those written
    // before are version 1.
    "CREATE TABLE urls (
        id INTEGER PRIMARY KEY,
        url TEXT NOT NULL UNIQUE
    );
    INSERT INTO urls (url) SELECT url FROM pages ORDER BY rowid;
    INSERT OR IGNORE INTO urls (url) SELECT source FROM links;
    INSERT OR IGNORE INTO urls (url) SELECT target FROM links;
    CREATE TABLE link_rows (
        source INTEGER NOT NULL,
        target INTEGER NOT NULL,
        kind INTEGER NOT NULL,
        PRIMARY KEY (source, target, kind)
    ) WITHOUT ROWID;
    CREATE TABLE link_details (
        source INTEGER NOT NULL,
        target INTEGER NOT NULL,
        kind INTEGER NOT NULL,
        anchor TEXT,
        nofollow INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (source, target, kind)
    ) WITHOUT ROWID;
    CREATE TEMPORARY VIEW link_kind_numbers (code, number) AS
        VALUES ('a', 1), ('canonical', 2), ('hreflang', 3), ('iframe', 4), ('image', 5),
               ('redirect', 6), ('refresh', 7), ('sitemap', 8);
    INSERT INTO link_rows (source, target, kind)
        SELECT sources.id, targets.id, kinds.number
        FROM links
            JOIN urls AS sources ON sources.url = links.source
            JOIN urls AS targets ON targets.url = links.target
            JOIN link_kind_numbers AS kinds ON kinds.code = links.kind
        ORDER BY 1, 2, 3;
    INSERT INTO link_details (source, target, kind, anchor, nofollow)
        SELECT sources.id, targets.id, kinds.number, links.anchor, links.nofollow
        FROM links
            JOIN urls AS sources ON sources.url = links.source
            JOIN urls AS targets ON targets.url = links.target
            JOIN link_kind_numbers AS kinds ON kinds.code = links.kind
        WHERE links.anchor IS NOT NULL OR links.nofollow != 0
        ORDER BY 1, 2, 3;
    DROP VIEW link_kind_numbers;
    DROP TABLE links;
    ALTER TABLE link_rows RENAME TO links;
    ALTER TABLE pages ADD COLUMN fingerprint_version INTEGER;
    UPDATE pages SET fingerprint_version = 1 WHERE fingerprint IS NOT NULL;",
    // 14: the words of a page's visible text, read with its details (an audit's). Rows
    // written before have no count.
    "ALTER TABLE pages ADD COLUMN word_count INTEGER;",
    // 15: the audit's outbound links. `outbound_checks`: the last check of each URL outside
    // the site, with its time (seconds since the epoch), what it found as a code
    // (`OutboundOutcome`), the status or the failure's kind and words, and where its
    // redirects led; kept across runs, so that a later audit reuses a recent one.
    // `outbound_links`: the outbound URLs of the latest audited run, and whether the run
    // checked each (0), reused a check (1), or neither (NULL).
    "CREATE TABLE outbound_checks (
        url INTEGER PRIMARY KEY REFERENCES urls(id),
        checked_at INTEGER NOT NULL,
        outcome TEXT NOT NULL,
        status INTEGER,
        failure TEXT,
        detail TEXT,
        final_url TEXT
    );
    CREATE TABLE outbound_links (
        run INTEGER NOT NULL REFERENCES runs(id),
        url INTEGER NOT NULL REFERENCES urls(id),
        from_cache INTEGER,
        PRIMARY KEY (run, url)
    ) WITHOUT ROWID;",
    // 16: the structured data a page declares (JSON-LD, microdata, its videos), as the JSON
    // the extractor's `StructuredData` writes; only for pages whose crawl read it.
    "CREATE TABLE structured_data (
        page TEXT PRIMARY KEY,
        data TEXT NOT NULL
    ) WITHOUT ROWID;",
    // 17: failures that may pass (5xx, 429, a timeout, a connection). `failed_runs`: the
    // runs in a row in which the URL failed so; a URL the last complete run listed keeps its
    // row through them (`kept.rs`), and `kept_status` or `kept_failure` says how it failed
    // this time. Rows written before have failed no run in a row.
    "ALTER TABLE pages ADD COLUMN failed_runs INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE pages ADD COLUMN kept_status INTEGER;
    ALTER TABLE pages ADD COLUMN kept_failure TEXT;",
    // 18: the template of a page whose links are recorded, as the crawl numbers it
    // (`PageRecord::template`), written and replaced with its links: the links a template's
    // scripts draw on every page, learned from renders, are recorded for each of its pages
    // (`LinkKind::Script`, number 9).
    "CREATE TABLE page_templates (
        page INTEGER PRIMARY KEY REFERENCES urls(id),
        template INTEGER NOT NULL
    );
    CREATE INDEX page_templates_by_template ON page_templates (template);",
    // 19: what an audit's checks of accessibility, phones, sharing, security and weight
    // read of a page, as the JSON the extractor's `PageSignals` writes; read with its
    // details. Rows written before have none.
    "ALTER TABLE pages ADD COLUMN signals TEXT;",
    // 20: the audit's check of the resources of the site its pages load (images, scripts,
    // style sheets; `LinkKind` numbers 5, 10 and 11): the status or the failure's kind and
    // words, the size and an image's width. Only the latest checked run's are kept.
    "CREATE TABLE resource_checks (
        run INTEGER NOT NULL REFERENCES runs(id),
        url INTEGER NOT NULL REFERENCES urls(id),
        kind INTEGER NOT NULL,
        status INTEGER,
        failure TEXT,
        detail TEXT,
        bytes INTEGER,
        width INTEGER,
        PRIMARY KEY (run, url)
    ) WITHOUT ROWID;",
    // 21: what `explain` tells of a page. Where its canonical and its noindex were found
    // (`HintPlaces`: 1 a header, 2 the HTML, 3 both; NULL for none). `status_changes`: a
    // page's status (or its failure's kind, for a request without a response) until the run
    // that saw another, written only when it changes, so that a site that does not change
    // costs nothing; a row kept through a failure that may pass counts how it failed.
    "ALTER TABLE pages ADD COLUMN canonical_from INTEGER;
    ALTER TABLE pages ADD COLUMN noindex_from INTEGER;
    CREATE TABLE status_changes (
        url TEXT NOT NULL,
        run INTEGER NOT NULL,
        status INTEGER,
        failure TEXT,
        PRIMARY KEY (url, run)
    ) WITHOUT ROWID;
    CREATE TRIGGER status_changed AFTER UPDATE OF status, failure, kept_status, kept_failure
        ON pages
        WHEN coalesce(NEW.kept_status, NEW.status) IS NOT coalesce(OLD.kept_status, OLD.status)
          OR coalesce(NEW.kept_failure, NEW.failure) IS NOT coalesce(OLD.kept_failure, OLD.failure)
    BEGIN
        INSERT OR REPLACE INTO status_changes (url, run, status, failure)
        VALUES (NEW.url, NEW.last_seen_run, coalesce(OLD.kept_status, OLD.status),
                coalesce(OLD.kept_failure, OLD.failure));
    END;",
];

/// Every table any schema version made, migrations' passing ones included: a database with
/// any other table is another program's (`Store::check_ours`).
pub(crate) const TABLES: &[&str] = &[
    "alternates",
    "audit_findings",
    "audits",
    "changes",
    "extracted",
    "frontier",
    "images",
    "link_details",
    "link_rows",
    "links",
    "listed",
    "meta",
    "outbound_checks",
    "outbound_links",
    "page_templates",
    "pages",
    "resource_checks",
    "runs",
    "sitemap_files",
    "status_changes",
    "structured_data",
    "typed_links",
    "urls",
];

/// The schema version this build writes.
pub(crate) const LATEST_VERSION: i64 = MIGRATIONS.len() as i64;

pub(crate) fn migrate(connection: &mut Connection, path: &Path) -> Result<(), StoreError> {
    let sql_error = |source| StoreError::Sql {
        path: path.to_path_buf(),
        source,
    };
    let version: i64 = connection
        .query_row("PRAGMA user_version", [], |row| row.get(0))
        .map_err(sql_error)?;
    if version > LATEST_VERSION {
        return Err(StoreError::TooNew {
            path: path.to_path_buf(),
            found: version,
            known: LATEST_VERSION,
        });
    }
    for (index, migration) in MIGRATIONS
        .iter()
        .enumerate()
        .skip(usize::try_from(version).unwrap_or(0))
    {
        let transaction = connection.transaction().map_err(sql_error)?;
        transaction.execute_batch(migration).map_err(sql_error)?;
        // user_version does not take a bound parameter; the value is our own integer.
        transaction
            .execute_batch(&format!("PRAGMA user_version = {}", index + 1))
            .map_err(sql_error)?;
        transaction.commit().map_err(sql_error)?;
    }
    Ok(())
}
