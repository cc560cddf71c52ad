//! Claims: a worker takes a due site (or one whose worker's lease expired), keeps it by
//! renewing its lease, saves the site's crawl database as it goes, and releases it with the
//! run's record. Every write names the claim's lease number and changes nothing once another
//! worker has claimed the site.

use std::time::Duration;

use jiff::Timestamp;
use tokio_postgres::Client;

use super::connection::{CHANNEL, Queue, epoch_seconds, persist};
use super::error::QueueError;
use crate::file::SiteSpec;
use crate::queue::sites::Definition;
use crate::record::{RunRecord, RunResult, next_due};

/// Runs of a site kept in the registry.
const RUNS_KEPT: i64 = 50;

/// A site a worker holds.
#[derive(Debug, Clone)]
pub struct Claim {
    /// The site's row in the registry.
    pub site_id: i64,
    /// The fencing token: the number of this claim of the site.
    pub lease: i64,
    /// Who holds it.
    pub worker: String,
    /// The site.
    pub site: SiteSpec,
    /// Continue the site's interrupted run (its last worker died or handed it back).
    pub resume: bool,
    /// The generation of the crawl database the registry holds for the site (0: none).
    pub state_generation: i64,
    /// The worker whose lease expired, when this claim takes the site over from it.
    pub taken_over_from: Option<String>,
}

/// How a worker lets go of a site.
#[derive(Debug, Clone)]
pub enum Release {
    /// The run ended (succeeded, failed, or interrupted for good): recorded, and the site
    /// scheduled by its result.
    Finished(RunRecord),
    /// The worker stops (SIGTERM) before the run ends: the site is due again at once, and
    /// its next run continues this one.
    HandedBack,
}

/// What a claim came to.
#[derive(Debug, Clone)]
pub enum Claimed {
    /// A site, now this worker's.
    Site(Box<Claim>),
    /// Nothing is due.
    NothingDue,
    /// Sites are due, but each is on a server that other crawls keep at its limit: the next
    /// release (a notification) may free one.
    ServersBusy,
}

/// How many sites are claimed together as candidates: the first whose server is under its
/// limit is taken, the others are let go at once.
const CANDIDATES: i64 = 16;

impl Queue {
    /// Claims one site: first a site whose worker's lease expired (its run is continued),
    /// then the site due longest. `None`: nothing is due. No limit of crawls per server.
    pub async fn claim(&self, worker: &str, lease: Duration) -> Result<Option<Claim>, QueueError> {
        let claimed = self
            .claim_per_server(worker, lease, u32::MAX, |url| async move { url })
            .await?;
        Ok(match claimed {
            Claimed::Site(claim) => Some(*claim),
            Claimed::NothingDue | Claimed::ServersBusy => None,
        })
    }

    /// Claims one site, as [`Queue::claim`], but only one on a server (the key `server_of`
    /// gives a site's URL: the address its host resolves to) that fewer than `per_server`
    /// sites are being crawled on, by any worker. The count and the claim are one
    /// transaction, and claims on one server take its lock in turn, so that two workers never
    /// both take the last place.
    pub async fn claim_per_server<F, Server>(
        &self,
        worker: &str,
        lease: Duration,
        per_server: u32,
        server_of: F,
    ) -> Result<Claimed, QueueError>
    where
        F: Fn(String) -> Server + Sync,
        Server: Future<Output = String> + Send,
    {
        let seconds = lease.as_secs_f64();
        let per_server = i64::from(per_server);
        let found = persist!(self, "claim a site", |client| claim_once(
            client, worker, seconds, per_server, &server_of
        ))?;
        let row = match found {
            Found::Row(row) => row,
            Found::NothingDue => return Ok(Claimed::NothingDue),
            Found::ServersBusy => return Ok(Claimed::ServersBusy),
        };
        let name: String = row.get("name");
        let definition: String = row.get("definition");
        let site =
            Definition::read(&name, &definition).map_err(|error| QueueError::Definition {
                at: self.at.clone(),
                site: name.clone(),
                error,
            })?;
        let taken_over_from: Option<String> = row.get("previous");
        Ok(Claimed::Site(Box::new(Claim {
            site_id: row.get("id"),
            lease: row.get("lease"),
            worker: worker.to_string(),
            site,
            resume: row.get::<_, bool>("resume") || taken_over_from.is_some(),
            state_generation: row.get("state_generation"),
            taken_over_from,
        })))
    }

    /// Extends the lease by `lease` from now. `false`: the claim is lost (expired and taken,
    /// or the site removed); the worker must stop the site's run.
    pub async fn renew(&self, claim: &Claim, lease: Duration) -> Result<bool, QueueError> {
        let seconds = lease.as_secs_f64();
        let renewed = persist!(self, "renew a lease", |client| client.execute(
            "UPDATE fleet_sites SET lease_expires = now() + make_interval(secs => $3)
             WHERE id = $1 AND lease = $2 AND leased_by = $4",
            &[&claim.site_id, &claim.lease, &seconds, &claim.worker],
        ))?;
        Ok(renewed == 1)
    }

    /// The site's crawl database as the registry holds it: its generation and gzip bytes.
    pub async fn state(&self, site_id: i64) -> Result<Option<(i64, Vec<u8>)>, QueueError> {
        let row = persist!(self, "read a site's crawl database", |client| client
            .query_opt(
                "SELECT generation, database FROM fleet_state WHERE site_id = $1",
                &[&site_id],
            ))?;
        Ok(row.map(|row| (row.get(0), row.get(1))))
    }

    /// Saves the site's crawl database (gzip bytes) while the claim holds: its new
    /// generation, or `None` when the claim is lost.
    pub async fn checkpoint(
        &self,
        claim: &Claim,
        database: &[u8],
    ) -> Result<Option<i64>, QueueError> {
        persist!(self, "save a site's crawl database", |client| async {
            let transaction = client.transaction().await?;
            let Some(generation) = lock_claimed(&transaction, claim).await? else {
                return Ok(None);
            };
            let generation = save_state(&transaction, claim.site_id, generation, database).await?;
            transaction.commit().await?;
            Ok(Some(generation))
        })
    }

    /// Lets go of the site: records the run (once, however often this is retried), saves
    /// its crawl database if given, and schedules it. Returns the generation of the crawl
    /// database the registry now holds, or `None` when the claim was lost and nothing was
    /// written.
    pub async fn release(
        &self,
        claim: &Claim,
        release: &Release,
        database: Option<&[u8]>,
    ) -> Result<Option<i64>, QueueError> {
        persist!(self, "record a run", |client| release_once(
            client, claim, release, database
        ))
    }
}

/// What one attempt at a claim found.
enum Found {
    Row(tokio_postgres::Row),
    NothingDue,
    ServersBusy,
}

/// The servers at their limit: the server of each claim whose lease holds, counted.
const BUSY_SERVERS: &str = "SELECT c.server FROM fleet_sites s
     JOIN fleet_crawls c ON c.site_id = s.id AND c.lease = s.lease
     WHERE s.leased_by IS NOT NULL AND s.lease_expires > now()
     GROUP BY c.server HAVING count(*) >= $1";

async fn claim_once<F, Server>(
    client: &mut Client,
    worker: &str,
    lease_seconds: f64,
    per_server: i64,
    server_of: &F,
) -> Result<Found, tokio_postgres::Error>
where
    F: Fn(String) -> Server + Sync,
    Server: Future<Output = String> + Send,
{
    let transaction = client.transaction().await?;
    // Two short statements, each served by its own partial index, rather than one with OR:
    // expired leases first (their sites are mid-run), then the site due longest. A site whose
    // server was at its limit when it was last claimed is passed over while it still is.
    let mut busy = false;
    for candidates in [
        "SELECT s.id, s.name, s.definition, s.leased_by FROM fleet_sites s
         LEFT JOIN fleet_crawls c ON c.site_id = s.id
         WHERE s.leased_by IS NOT NULL AND s.lease_expires <= now()
           AND (c.server IS NULL OR c.server NOT IN (SELECT server FROM busy))
         ORDER BY s.lease_expires LIMIT $2 FOR UPDATE OF s SKIP LOCKED",
        "SELECT s.id, s.name, s.definition, s.leased_by FROM fleet_sites s
         LEFT JOIN fleet_crawls c ON c.site_id = s.id
         WHERE s.leased_by IS NULL AND s.next_due <= now()
           AND (c.server IS NULL OR c.server NOT IN (SELECT server FROM busy))
         ORDER BY s.next_due, s.id LIMIT $2 FOR UPDATE OF s SKIP LOCKED",
    ] {
        let statement = format!("WITH busy AS ({BUSY_SERVERS}) {candidates}");
        let rows = transaction
            .query(&statement, &[&per_server, &CANDIDATES])
            .await?;
        // The candidates' servers found together: a slow name costs its time once, not once
        // for each candidate after it.
        let servers = futures_util::future::join_all(rows.iter().map(|candidate| {
            let id: i64 = candidate.get("id");
            // A definition that cannot be read is claimed all the same, to be reported.
            let site = Definition::read(candidate.get("name"), candidate.get("definition"));
            async move {
                match site {
                    Ok(site) => server_of(site.url).await,
                    Err(_) => format!("site:{id}"),
                }
            }
        }))
        .await;
        for (candidate, server) in rows.into_iter().zip(servers) {
            let id: i64 = candidate.get("id");
            if !take_server(&transaction, &server, id, per_server).await? {
                busy = true;
                continue;
            }
            let row = transaction
                .query_one(
                    "UPDATE fleet_sites
                     SET lease = lease + 1, leased_by = $1,
                         lease_expires = now() + make_interval(secs => $2)
                     WHERE id = $3
                     RETURNING id, name, definition, lease, resume, state_generation,
                               $4::text AS previous",
                    &[
                        &worker,
                        &lease_seconds,
                        &id,
                        &candidate.get::<_, Option<String>>("leased_by"),
                    ],
                )
                .await?;
            transaction
                .execute(
                    "INSERT INTO fleet_crawls (site_id, server, lease) VALUES ($1, $2, $3)
                     ON CONFLICT (site_id) DO UPDATE SET server = excluded.server, lease = excluded.lease",
                    &[&id, &server, &row.get::<_, i64>("lease")],
                )
                .await?;
            transaction.commit().await?;
            return Ok(Found::Row(row));
        }
    }
    if !busy {
        // Every due site may have been passed over for its server before it was looked at.
        busy = transaction
            .query_one(
                "SELECT EXISTS (SELECT 1 FROM fleet_sites
                 WHERE (leased_by IS NULL AND next_due <= now())
                    OR (leased_by IS NOT NULL AND lease_expires <= now()))",
                &[],
            )
            .await?
            .get(0);
    }
    transaction.commit().await?;
    Ok(if busy {
        Found::ServersBusy
    } else {
        Found::NothingDue
    })
}

/// Whether site `id` may be crawled on `server`: fewer than `per_server` other claims that
/// hold are crawling there. Claims on one server take its lock (for the transaction) in turn;
/// one that finds it taken passes the site over rather than wait, so that two claims never
/// wait for each other's servers.
async fn take_server(
    transaction: &tokio_postgres::Transaction<'_>,
    server: &str,
    id: i64,
    per_server: i64,
) -> Result<bool, tokio_postgres::Error> {
    let locked: bool = transaction
        .query_one(
            "SELECT pg_try_advisory_xact_lock($1, hashtext($2))",
            &[&SERVER_LOCKS, &server],
        )
        .await?
        .get(0);
    if !locked {
        return Ok(false);
    }
    let crawling: i64 = transaction
        .query_one(
            "SELECT count(*) FROM fleet_crawls c
             JOIN fleet_sites s ON s.id = c.site_id AND s.lease = c.lease
             WHERE c.server = $1 AND c.site_id <> $2
               AND s.leased_by IS NOT NULL AND s.lease_expires > now()",
            &[&server, &id],
        )
        .await?
        .get(0);
    Ok(crawling < per_server)
}

/// The first key of the advisory locks of servers (the second is the server's hash).
const SERVER_LOCKS: i32 = 0x5345_5256;

/// Locks the site's row if the claim still holds it (or held it and already let go, when a
/// release is retried): its crawl database's generation, or `None`.
async fn lock_claimed(
    transaction: &tokio_postgres::Transaction<'_>,
    claim: &Claim,
) -> Result<Option<i64>, tokio_postgres::Error> {
    let row = transaction
        .query_opt(
            "SELECT state_generation FROM fleet_sites
             WHERE id = $1 AND lease = $2 AND (leased_by = $3 OR leased_by IS NULL)
             FOR UPDATE",
            &[&claim.site_id, &claim.lease, &claim.worker],
        )
        .await?;
    Ok(row.map(|row| row.get(0)))
}

/// Stores the next generation of the site's crawl database; returns it.
async fn save_state(
    transaction: &tokio_postgres::Transaction<'_>,
    site_id: i64,
    generation: i64,
    database: &[u8],
) -> Result<i64, tokio_postgres::Error> {
    let next = generation + 1;
    transaction
        .execute(
            "INSERT INTO fleet_state (site_id, generation, database, saved_at)
             VALUES ($1, $2, $3, now())
             ON CONFLICT (site_id) DO UPDATE
             SET generation = excluded.generation, database = excluded.database, saved_at = now()",
            &[&site_id, &next, &database],
        )
        .await?;
    transaction
        .execute(
            "UPDATE fleet_sites SET state_generation = $2 WHERE id = $1",
            &[&site_id, &next],
        )
        .await?;
    Ok(next)
}

async fn release_once(
    client: &mut Client,
    claim: &Claim,
    release: &Release,
    database: Option<&[u8]>,
) -> Result<Option<i64>, tokio_postgres::Error> {
    let transaction = client.transaction().await?;
    let Some(mut generation) = lock_claimed(&transaction, claim).await? else {
        return Ok(None);
    };
    let (resume, due) = match release {
        Release::Finished(run) => {
            let inserted = transaction
                .execute(
                    "INSERT INTO fleet_runs (site_id, lease, worker, started, finished, result,
                                             listed, added, removed, changed, requests, error)
                     VALUES ($1, $2, $3, to_timestamp($4), to_timestamp($5), $6, $7, $8, $9, $10, $11, $12)
                     ON CONFLICT (site_id, lease) DO NOTHING",
                    &[
                        &claim.site_id,
                        &claim.lease,
                        &claim.worker,
                        &epoch_seconds(run.started),
                        &epoch_seconds(run.finished),
                        &run.result.code(),
                        &count(run.listed),
                        &count(run.added),
                        &count(run.removed),
                        &count(run.changed),
                        &count(run.requests),
                        &run.error,
                    ],
                )
                .await?;
            if inserted == 0 {
                // Recorded by an earlier attempt whose commit's answer was lost.
                transaction.commit().await?;
                return Ok(Some(generation));
            }
            transaction
                .execute(
                    "DELETE FROM fleet_runs WHERE site_id = $1 AND id <= (
                         SELECT id FROM fleet_runs WHERE site_id = $1
                         ORDER BY id DESC LIMIT 1 OFFSET $2)",
                    &[&claim.site_id, &RUNS_KEPT],
                )
                .await?;
            let site = current_definition(&transaction, claim).await?;
            (
                run.result == RunResult::Interrupted,
                next_due(&site, Some(run)),
            )
        }
        Release::HandedBack => (true, Timestamp::UNIX_EPOCH),
    };
    if let Some(database) = database {
        generation = save_state(&transaction, claim.site_id, generation, database).await?;
    }
    transaction
        .execute(
            "UPDATE fleet_sites
             SET leased_by = NULL, lease_expires = NULL, resume = $2,
                 next_due = to_timestamp($3)
             WHERE id = $1",
            &[&claim.site_id, &resume, &epoch_seconds(due)],
        )
        .await?;
    transaction
        .batch_execute(&format!("NOTIFY {CHANNEL}"))
        .await?;
    transaction.commit().await?;
    Ok(Some(generation))
}

/// The site as the registry defines it now (a sync during the run may have changed its
/// schedule); the claim's copy if the stored one cannot be read.
async fn current_definition(
    transaction: &tokio_postgres::Transaction<'_>,
    claim: &Claim,
) -> Result<SiteSpec, tokio_postgres::Error> {
    let row = transaction
        .query_one(
            "SELECT definition FROM fleet_sites WHERE id = $1",
            &[&claim.site_id],
        )
        .await?;
    let definition: String = row.get(0);
    Ok(Definition::read(&claim.site.name, &definition).unwrap_or_else(|_| claim.site.clone()))
}

fn count(value: u64) -> i64 {
    i64::try_from(value).unwrap_or(i64::MAX)
}
