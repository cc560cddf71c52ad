//! The queue's tables, created and upgraded by numbered migrations, each applied once, in
//! order, in one transaction under an advisory lock (so that workers starting together do
//! not apply one twice).

use tokio_postgres::Client;

/// The migrations, in order: migration N (from 1) brings the schema to version N.
const MIGRATIONS: &[&str] = &[
    // 1: sites with their lease, their crawl databases, and their runs.
    "CREATE TABLE fleet_sites (
        id bigserial PRIMARY KEY,
        name text NOT NULL UNIQUE,
        -- The site as the fleet file gives it (JSON): URL, output, schedule, crawl options.
        definition text NOT NULL,
        next_due timestamptz NOT NULL,
        -- Counts claims: the fencing token every write of the claimer names.
        lease bigint NOT NULL DEFAULT 0,
        leased_by text,
        lease_expires timestamptz,
        -- The last run stopped midway: the next one continues it.
        resume boolean NOT NULL DEFAULT false,
        state_generation bigint NOT NULL DEFAULT 0
    );
    CREATE INDEX fleet_sites_due ON fleet_sites (next_due) WHERE leased_by IS NULL;
    CREATE INDEX fleet_sites_leases ON fleet_sites (lease_expires) WHERE leased_by IS NOT NULL;
    CREATE TABLE fleet_state (
        site_id bigint PRIMARY KEY REFERENCES fleet_sites (id) ON DELETE CASCADE,
        generation bigint NOT NULL,
        -- The site's crawl database (SQLite), gzip-compressed.
        database bytea NOT NULL,
        saved_at timestamptz NOT NULL
    );
    CREATE TABLE fleet_runs (
        id bigserial PRIMARY KEY,
        site_id bigint NOT NULL REFERENCES fleet_sites (id) ON DELETE CASCADE,
        -- The claim that ran it: one run per claim, however often its record is sent.
        lease bigint NOT NULL,
        worker text NOT NULL,
        started timestamptz NOT NULL,
        finished timestamptz NOT NULL,
        result text NOT NULL,
        listed bigint NOT NULL,
        added bigint NOT NULL,
        removed bigint NOT NULL,
        changed bigint NOT NULL,
        requests bigint NOT NULL,
        error text,
        UNIQUE (site_id, lease)
    );
    CREATE INDEX fleet_runs_by_site ON fleet_runs (site_id, id);",
    // 2: the server of each site's last claim, so that claims keep to `--per-server` crawls
    // a server. A row counts as a crawl while the claim it names holds the site.
    "CREATE TABLE fleet_crawls (
        site_id bigint PRIMARY KEY REFERENCES fleet_sites (id) ON DELETE CASCADE,
        -- The address the site's host resolved to (`host:NAME` when it did not).
        server text NOT NULL,
        -- The claim that took it.
        lease bigint NOT NULL
    );
    CREATE INDEX fleet_crawls_by_server ON fleet_crawls (server);
    -- Claims read the due sites in the order (next_due, id): a site synced with thousands of
    -- others, due at the same instant, is found without sorting them all.
    DROP INDEX fleet_sites_due;
    CREATE INDEX fleet_sites_due ON fleet_sites (next_due, id) WHERE leased_by IS NULL;",
];

/// The key of the advisory lock migrations take (any constant the fleet owns).
const MIGRATION_LOCK: i64 = 0x5349_5445_4d41_5050;

/// Brings the database to the newest schema. A database from a newer build is refused.
pub(super) async fn migrate(client: &mut Client) -> Result<(), MigrationError> {
    let transaction = client.transaction().await?;
    transaction
        .execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])
        .await?;
    transaction
        .batch_execute("CREATE TABLE IF NOT EXISTS fleet_schema (version integer NOT NULL)")
        .await?;
    let version: i32 = transaction
        .query_one("SELECT coalesce(max(version), 0) FROM fleet_schema", &[])
        .await?
        .get(0);
    let known = i32::try_from(MIGRATIONS.len()).unwrap_or(i32::MAX);
    if version > known {
        return Err(MigrationError::TooNew {
            found: version,
            known,
        });
    }
    for (number, migration) in (1..).zip(MIGRATIONS).skip(version.unsigned_abs() as usize) {
        transaction.batch_execute(migration).await?;
        transaction
            .execute("INSERT INTO fleet_schema (version) VALUES ($1)", &[&number])
            .await?;
        tracing::info!(version = number, "fleet queue schema migrated");
    }
    transaction.commit().await?;
    Ok(())
}

/// Why the schema could not be brought up to date.
#[derive(Debug, thiserror::Error)]
pub(super) enum MigrationError {
    #[error(
        "the queue was set up by a newer sitemapper (schema version {found}, this one knows up to {known})"
    )]
    TooNew { found: i32, known: i32 },
    #[error(transparent)]
    Database(#[from] tokio_postgres::Error),
}
