//! Audits: each audit's health score, and its findings, so that the next audit of the site
//! can say what is new and what was fixed, and the score's trend.

use jiff::Timestamp;
use rusqlite::params;

use crate::error::{StoreError, sql_error};
use crate::run_id::RunId;
use crate::runs::timestamp;
use crate::store::Store;

/// The findings of this many audits are kept; older ones keep only their score.
pub const AUDITS_KEPT: i64 = 10;

/// One audit of the site.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AuditRecord {
    /// The crawl run it audited.
    pub run: RunId,
    /// When it was recorded.
    pub finished_at: Timestamp,
    /// Its health score, 0 to 100.
    pub score: u32,
}

/// One finding of an audit, as kept for the next one.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RecordedFinding {
    /// The finding kind's stable code.
    pub code: String,
    /// The URL it is about.
    pub url: String,
    /// Its particulars.
    pub detail: String,
}

impl Store {
    /// Records the audit of `run`: its score and its findings (replacing an earlier record of
    /// the same run), and forgets the findings of audits older than the last [`AUDITS_KEPT`].
    pub fn record_audit(
        &mut self,
        run: RunId,
        score: u32,
        findings: &[RecordedFinding],
    ) -> Result<(), StoreError> {
        let transaction = self
            .connection
            .transaction()
            .map_err(|source| sql_error(&self.path, source))?;
        (|| -> rusqlite::Result<()> {
            transaction.execute("DELETE FROM audit_findings WHERE run = ?1", params![run.0])?;
            transaction.execute(
                "INSERT OR REPLACE INTO audits (run, finished_at, score) VALUES (?1, ?2, ?3)",
                params![run.0, Timestamp::now().as_second(), score],
            )?;
            {
                let mut insert = transaction.prepare_cached(
                    "INSERT OR IGNORE INTO audit_findings (run, code, url, detail)
                     VALUES (?1, ?2, ?3, ?4)",
                )?;
                for finding in findings {
                    insert.execute(params![run.0, finding.code, finding.url, finding.detail])?;
                }
            }
            transaction.execute(
                "DELETE FROM audit_findings WHERE run NOT IN
                    (SELECT run FROM audits ORDER BY run DESC LIMIT ?1)",
                params![AUDITS_KEPT],
            )?;
            Ok(())
        })()
        .and_then(|()| transaction.commit())
        .map_err(|source| sql_error(&self.path, source))
    }

    /// The newest audit before `run` whose findings are kept.
    pub fn previous_audit(&self, run: RunId) -> Result<Option<AuditRecord>, StoreError> {
        Ok(self
            .audits()?
            .into_iter()
            .rev()
            .find(|audit| audit.run < run))
    }

    /// Every audit recorded, oldest first.
    pub fn audits(&self) -> Result<Vec<AuditRecord>, StoreError> {
        let mut statement = self
            .connection
            .prepare_cached("SELECT run, finished_at, score FROM audits ORDER BY run")
            .map_err(|source| self.sql_error(source))?;
        let rows: Vec<(i64, i64, u32)> = statement
            .query_map([], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))
            .and_then(Iterator::collect)
            .map_err(|source| self.sql_error(source))?;
        Ok(rows
            .into_iter()
            .filter_map(|(run, finished_at, score)| {
                Some(AuditRecord {
                    run: RunId(run),
                    finished_at: timestamp(finished_at)?,
                    score,
                })
            })
            .collect())
    }

    /// The findings recorded for the audit of `run`, ordered by code, URL and detail.
    pub fn audit_findings(&self, run: RunId) -> Result<Vec<RecordedFinding>, StoreError> {
        let mut statement = self
            .connection
            .prepare_cached(
                "SELECT code, url, detail FROM audit_findings WHERE run = ?1 ORDER BY 1, 2, 3",
            )
            .map_err(|source| self.sql_error(source))?;
        statement
            .query_map(params![run.0], |row| {
                Ok(RecordedFinding {
                    code: row.get(0)?,
                    url: row.get(1)?,
                    detail: row.get(2)?,
                })
            })
            .and_then(Iterator::collect)
            .map_err(|source| self.sql_error(source))
    }
}
