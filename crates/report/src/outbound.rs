//! The report's links to other sites: one row per outbound URL with what its check found
//! (docs/audit.md, Outbound links), for report.json and outbound.csv.

use std::path::Path;

use sitemapper_audit::{OUTBOUND_LINK_KINDS, OutboundResult};
use sitemapper_store::{OutboundOutcome, RunId, Store, StoreError};

use crate::error::ReportError;
use crate::model::OutboundRow;

/// The columns of outbound.csv.
pub(crate) const OUTBOUND_COLUMNS: [&str; 8] = [
    "url",
    "status",
    "final_url",
    "result",
    "referrers",
    "checked_at",
    "cached",
    "detail",
];

/// The outbound URLs of `run`, by URL, each with its check as the run has it.
pub(crate) fn outbound_rows(store: &Store, run: RunId) -> Result<Vec<OutboundRow>, StoreError> {
    let links = store.outbound_links(run)?;
    if links.is_empty() {
        return Ok(Vec::new());
    }
    let referrers = store.outbound_referrers(run, &OUTBOUND_LINK_KINDS)?;
    Ok(links
        .into_iter()
        .map(|link| {
            let result = OutboundResult::of(&link.url, link.check.as_ref());
            let check = link.check.as_ref();
            let status = check.and_then(|check| match check.outcome {
                OutboundOutcome::Answered { status }
                | OutboundOutcome::UnusableRedirect { status } => Some(status),
                OutboundOutcome::Failed { .. }
                | OutboundOutcome::Disallowed
                | OutboundOutcome::TooManyRedirects => None,
            });
            let detail = check
                .map(|check| match &check.outcome {
                    OutboundOutcome::Failed { detail, .. } => detail.clone(),
                    OutboundOutcome::UnusableRedirect { .. } => {
                        "a redirect without a usable Location".to_string()
                    }
                    OutboundOutcome::TooManyRedirects => "too many redirects".to_string(),
                    OutboundOutcome::Answered { .. } | OutboundOutcome::Disallowed => String::new(),
                })
                .unwrap_or_default();
            OutboundRow {
                referrers: referrers.get(&link.url).map_or(0, Vec::len),
                status,
                final_url: check.and_then(|check| check.final_url.clone()),
                result: result.as_str(),
                outcome: result,
                detail,
                checked_at: check
                    .map(|check| check.checked_at.strftime("%Y-%m-%d %H:%M UTC").to_string()),
                cached: link.from_cache,
                url: link.url,
            }
        })
        .collect())
}

/// Writes outbound.csv: one row per outbound URL, its columns [`OUTBOUND_COLUMNS`]; with
/// `bom`, a UTF-8 byte order mark first.
pub(crate) fn write_outbound(
    rows: &[OutboundRow],
    path: &Path,
    bom: bool,
) -> Result<(), ReportError> {
    super::new_file::write_new(path, |file| {
        let mut csv = super::files::start_csv(file, bom)?;
        csv.write_row(OUTBOUND_COLUMNS)?;
        for row in rows {
            let status = row.status.map(|status| status.to_string());
            let referrers = row.referrers.to_string();
            csv.write_row([
                row.url.as_str(),
                status.as_deref().unwrap_or_default(),
                row.final_url.as_deref().unwrap_or_default(),
                row.result,
                referrers.as_str(),
                row.checked_at.as_deref().unwrap_or_default(),
                if row.cached { "true" } else { "false" },
                row.detail.as_str(),
            ])?;
        }
        csv.finish()?;
        Ok(())
    })
}
