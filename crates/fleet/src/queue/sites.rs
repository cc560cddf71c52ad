//! The registry's sites: written from a fleet file (`fleet sync`), and read back for
//! `fleet status`.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use super::connection::{CHANNEL, Queue, epoch_seconds, from_epoch_seconds, persist};
use super::error::{DefinitionError, QueueError};
use crate::file::{SiteOption, SiteSpec, check_name};
use crate::record::{RunRecord, RunResult, SiteStatus};
use crate::schedule::Schedule;

/// What a sync changed in the registry.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct SyncCounts {
    /// Sites new to the registry.
    pub added: usize,
    /// Sites whose definition changed.
    pub changed: usize,
    /// Sites no longer in the fleet file, removed with their runs.
    pub removed: usize,
    /// Sites left as they were.
    pub unchanged: usize,
}

/// A site as the registry stores it (JSON): everything of its [`SiteSpec`] but the lines.
#[derive(Debug, Serialize, Deserialize)]
pub(super) struct Definition {
    url: String,
    out: PathBuf,
    schedule: String,
    retry_seconds: f64,
    publish: Option<String>,
    options: toml::Table,
}

impl Definition {
    fn write(site: &SiteSpec) -> String {
        let definition = Definition {
            url: site.url.clone(),
            out: site.out.clone(),
            schedule: site.schedule.to_string(),
            retry_seconds: site.retry.as_secs_f64(),
            publish: site.publish.clone(),
            options: site.options_table(),
        };
        // A struct of strings, numbers and a TOML table: always serializable.
        serde_json::to_string(&definition).unwrap_or_default()
    }

    /// The site named `name` from its stored definition.
    pub(super) fn read(name: &str, text: &str) -> Result<SiteSpec, DefinitionError> {
        // A name names files on the worker: whatever wrote the registry, it is checked.
        check_name(name)?;
        let definition: Definition = serde_json::from_str(text).map_err(DefinitionError::Json)?;
        let schedule: Schedule = definition.schedule.parse()?;
        let retry = Duration::try_from_secs_f64(definition.retry_seconds)
            .map_err(DefinitionError::Retry)?;
        Ok(SiteSpec {
            name: name.to_string(),
            url: definition.url,
            out: definition.out,
            schedule,
            retry,
            publish: definition.publish,
            options: definition
                .options
                .into_iter()
                .map(|(key, value)| {
                    let option = SiteOption {
                        value,
                        line: 0,
                        from_defaults: false,
                    };
                    (key, option)
                })
                .collect(),
            line: 0,
        })
    }
}

impl Queue {
    /// Makes the registry's sites those of `sites`: new ones added (due at once), changed ones
    /// updated (a new schedule counts from the last run), the others removed with their runs
    /// and crawl databases. Running it again with the same sites changes nothing.
    pub async fn sync(&self, sites: &[SiteSpec]) -> Result<SyncCounts, QueueError> {
        let wanted: BTreeMap<&str, (String, &SiteSpec)> = sites
            .iter()
            .map(|site| (site.name.as_str(), (Definition::write(site), site)))
            .collect();
        persist!(self, "sync the sites", |client| async {
            let transaction = client.transaction().await?;
            let rows = transaction
                .query(
                    "SELECT s.id, s.name, s.definition,
                            extract(epoch FROM (SELECT max(started) FROM fleet_runs r WHERE r.site_id = s.id))::float8
                     FROM fleet_sites s FOR UPDATE OF s",
                    &[],
                )
                .await?;
            let mut counts = SyncCounts::default();
            // Gathered first, then written in one statement a kind: a fleet of 100,000 sites
            // is a few round trips, not one a site.
            let mut removed: Vec<i64> = Vec::new();
            let mut updated = (Vec::<i64>::new(), Vec::<&str>::new());
            let mut rescheduled = (Vec::<i64>::new(), Vec::<&str>::new(), Vec::<f64>::new());
            let mut present = BTreeMap::new();
            for row in &rows {
                let id: i64 = row.get(0);
                let name: String = row.get(1);
                let stored: String = row.get(2);
                let last_started: Option<f64> = row.get(3);
                match wanted.get(name.as_str()) {
                    None => {
                        removed.push(id);
                        counts.removed += 1;
                    }
                    Some((definition, _)) if *definition == stored => counts.unchanged += 1,
                    Some((definition, site)) => {
                        let same_schedule = Definition::read(&name, &stored)
                            .is_ok_and(|old| old.schedule == site.schedule);
                        if same_schedule {
                            updated.0.push(id);
                            updated.1.push(definition);
                        } else {
                            let due = last_started
                                .map(|started| {
                                    site.schedule.next_after(from_epoch_seconds(started))
                                })
                                .unwrap_or(Timestamp::UNIX_EPOCH);
                            rescheduled.0.push(id);
                            rescheduled.1.push(definition);
                            rescheduled.2.push(epoch_seconds(due));
                        }
                        counts.changed += 1;
                    }
                }
                present.insert(name, id);
            }
            let mut added = (Vec::<&str>::new(), Vec::<&str>::new());
            for (name, (definition, _)) in &wanted {
                if !present.contains_key(*name) {
                    added.0.push(name);
                    added.1.push(definition);
                }
            }
            counts.added = added.0.len();
            if !removed.is_empty() {
                transaction
                    .execute("DELETE FROM fleet_sites WHERE id = ANY($1)", &[&removed])
                    .await?;
            }
            if !updated.0.is_empty() {
                transaction
                    .execute(
                        "UPDATE fleet_sites s SET definition = t.definition
                         FROM unnest($1::bigint[], $2::text[]) AS t(id, definition)
                         WHERE s.id = t.id",
                        &[&updated.0, &updated.1],
                    )
                    .await?;
            }
            if !rescheduled.0.is_empty() {
                transaction
                    .execute(
                        "UPDATE fleet_sites s SET definition = t.definition, next_due = to_timestamp(t.due)
                         FROM unnest($1::bigint[], $2::text[], $3::float8[]) AS t(id, definition, due)
                         WHERE s.id = t.id",
                        &[&rescheduled.0, &rescheduled.1, &rescheduled.2],
                    )
                    .await?;
            }
            if !added.0.is_empty() {
                transaction
                    .execute(
                        "INSERT INTO fleet_sites (name, definition, next_due)
                         SELECT name, definition, now() FROM unnest($1::text[], $2::text[]) AS t(name, definition)",
                        &[&added.0, &added.1],
                    )
                    .await?;
            }
            transaction
                .batch_execute(&format!("NOTIFY {CHANNEL}"))
                .await?;
            transaction.commit().await?;
            Ok(counts)
        })
    }

    /// Every site of the registry with its last run, by name.
    pub async fn status(&self) -> Result<Vec<SiteStatus>, QueueError> {
        let rows = persist!(self, "read the sites", |client| {
            client.query(
            "SELECT s.name, s.definition, extract(epoch FROM s.next_due)::float8, s.leased_by,
                    (SELECT count(*) FROM fleet_runs c WHERE c.site_id = s.id),
                    extract(epoch FROM r.started)::float8, extract(epoch FROM r.finished)::float8,
                    r.result, r.listed, r.added, r.removed, r.changed, r.requests, r.error, r.worker
             FROM fleet_sites s
             LEFT JOIN LATERAL (SELECT * FROM fleet_runs WHERE site_id = s.id ORDER BY id DESC LIMIT 1) r
             ON true
             ORDER BY s.name",
            &[],
        )
        })?;
        let mut sites = Vec::with_capacity(rows.len());
        for row in rows {
            let name: String = row.get(0);
            let site =
                Definition::read(&name, row.get(1)).map_err(|error| QueueError::Definition {
                    at: self.at.clone(),
                    site: name.clone(),
                    error,
                })?;
            let last = row.get::<_, Option<f64>>(5).map(|started| {
                let count = |index: usize| row.get::<_, i64>(index).unsigned_abs();
                RunRecord {
                    started: from_epoch_seconds(started),
                    finished: from_epoch_seconds(row.get(6)),
                    result: row.get::<_, String>(7).parse().unwrap_or(RunResult::Failed),
                    listed: count(8),
                    added: count(9),
                    removed: count(10),
                    changed: count(11),
                    requests: count(12),
                    error: row.get(13),
                    worker: row.get(14),
                }
            });
            sites.push(SiteStatus {
                name,
                url: site.url,
                schedule: site.schedule.to_string(),
                last,
                next_due: from_epoch_seconds(row.get(2)),
                running_on: row.get(3),
                runs: row.get::<_, i64>(4).unsigned_abs(),
                retry: site.retry,
            });
        }
        Ok(sites)
    }
}
