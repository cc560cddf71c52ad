//! A page's row read back: the columns selected and the record they make.

use jiff::Timestamp;
use rusqlite::Row;

use crate::record::{Fingerprint, HintPlaces, NotListedPage, PageDetails, PageRecord};
use crate::runs::timestamp;
use crate::verdict::{hints_from_columns, served_from_columns};

/// The columns [`page_record`] reads, in its order.
pub(crate) const PAGE_COLUMNS: &str =
    "url, depth, referrer, status, content_type, html_ok, verdict, reason, detail,
    target, canonical, last_modified, etag, fetched_at, fingerprint, title, revalidated,
    description, elapsed_ms, body_bytes, truncated, invalid_canonicals, conflicting_canonicals,
    rendering, served_canonical, served_noindex, h1_count, h1, lang, images_without_alt,
    images_without_alt_examples, insecure_resources, failure, fingerprint_version, word_count,
    signals, canonical_from, noindex_from";

/// How many columns [`PAGE_COLUMNS`] names: a query may add its own after them.
pub(crate) const PAGE_COLUMN_COUNT: usize = 38;

/// A page row selected with [`PAGE_COLUMNS`].
pub(crate) fn page_record(row: &Row<'_>) -> rusqlite::Result<PageRecord> {
    let seconds = |index| -> rusqlite::Result<Option<Timestamp>> {
        Ok(row.get::<_, Option<i64>>(index)?.and_then(timestamp))
    };
    let count = |index| -> rusqlite::Result<Option<u64>> {
        Ok(row
            .get::<_, Option<i64>>(index)?
            .map(|value| value.max(0) as u64))
    };
    Ok(PageRecord {
        url: row.get(0)?,
        depth: row.get(1)?,
        referrer: row.get(2)?,
        status: row.get(3)?,
        content_type: row.get(4)?,
        html_ok: row.get(5)?,
        verdict: row.get(6)?,
        reason: row.get(7)?,
        detail: row.get(8)?,
        failure: row.get(32)?,
        target: row.get(9)?,
        canonical: row.get(10)?,
        canonical_from: HintPlaces::from_bits(row.get(36)?),
        noindex_from: HintPlaces::from_bits(row.get(37)?),
        last_modified: seconds(11)?,
        etag: row.get(12)?,
        fetched_at: seconds(13)?,
        fingerprint: row
            .get::<_, Option<String>>(14)?
            .map(|hex| -> rusqlite::Result<Fingerprint> {
                // Rows of releases before fingerprints had a version are of the first.
                let version = row.get::<_, Option<u32>>(33)?.unwrap_or(1);
                Ok(Fingerprint { version, hex })
            })
            .transpose()?,
        legacy_fingerprint: None,
        // Kept rows say so in their own columns (`kept.rs`).
        failed_transiently: false,
        title: row.get(15)?,
        revalidated: row.get(16)?,
        description: row.get(17)?,
        elapsed_ms: count(18)?,
        body_bytes: count(19)?,
        truncated: row.get(20)?,
        ignored_hints: hints_from_columns(row.get(21)?, row.get(22)?),
        links: None,
        template: None,
        images: None,
        alternates: None,
        structured: None,
        rendering: row.get(23)?,
        served_differences: served_from_columns(row.get(24)?, row.get(25)?),
        details: page_details(row)?,
    })
}

/// The details columns of a page row selected with [`PAGE_COLUMNS`]; `None` when they were
/// not read.
fn page_details(row: &Row<'_>) -> rusqlite::Result<Option<PageDetails>> {
    let Some(h1_count) = row.get::<_, Option<u32>>(26)? else {
        return Ok(None);
    };
    let lines = |index| -> rusqlite::Result<Vec<String>> {
        Ok(row
            .get::<_, Option<String>>(index)?
            .map(|text| text.split('\n').map(String::from).collect())
            .unwrap_or_default())
    };
    Ok(Some(PageDetails {
        h1_count,
        h1: row.get(27)?,
        lang: row.get(28)?,
        images_without_alt: row.get::<_, Option<u32>>(29)?.unwrap_or(0),
        images_without_alt_examples: lines(30)?,
        insecure_resources: lines(31)?,
        word_count: row.get(34)?,
        signals: row.get(35)?,
    }))
}

/// A row of `url, verdict, reason, status, referrer`, borrowed from the row.
pub(crate) fn not_listed_page<'row>(row: &'row Row<'_>) -> rusqlite::Result<NotListedPage<'row>> {
    let text = |index| -> rusqlite::Result<Option<&'row str>> {
        Ok(row.get_ref(index)?.as_str_or_null()?)
    };
    Ok(NotListedPage {
        url: text(0)?.unwrap_or_default(),
        verdict: row.get(1)?,
        reason: row.get(2)?,
        status: row.get(3)?,
        referrer: text(4)?,
    })
}
