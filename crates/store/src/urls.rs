//! URLs interned: every URL a link names is stored once, in `urls`, and links are rows of its
//! id. A crawl writes tens of links per page, most of them to URLs it has written before (the
//! menu on every page): the ids of the URLs met are remembered by a fingerprint of the URL, so
//! that a link costs no lookup in the database.

use std::collections::HashMap;

use rusqlite::{OptionalExtension, Transaction, params};

/// The fingerprints remembered at most: about 13 MiB. Beyond, a URL not remembered is looked
/// up in the database, which is slower but never wrong.
const REMEMBERED: usize = 450_000;

/// The ids of URLs met, by fingerprint; and which of them were met in the transaction under
/// way, to be forgotten if it is rolled back (taking the ids it gave with it).
#[derive(Debug, Default)]
pub(crate) struct UrlIds {
    known: HashMap<u128, i64>,
    pending: Vec<u128>,
}

impl UrlIds {
    /// The id of `url`, given it in `urls` if it has none yet.
    pub(crate) fn id(&mut self, transaction: &Transaction<'_>, url: &str) -> rusqlite::Result<i64> {
        let fingerprint = fingerprint(url);
        if let Some(id) = self.known.get(&fingerprint) {
            return Ok(*id);
        }
        let id = match lookup(transaction, url)? {
            Some(id) => id,
            None => {
                let mut insert =
                    transaction.prepare_cached("INSERT INTO urls (url) VALUES (?1)")?;
                insert.execute(params![url])?;
                transaction.last_insert_rowid()
            }
        };
        if self.known.len() < REMEMBERED {
            self.known.insert(fingerprint, id);
            self.pending.push(fingerprint);
        }
        Ok(id)
    }

    /// The transaction the ids were met in has ended: committed, they stand; rolled back,
    /// they are forgotten.
    pub(crate) fn settle(&mut self, committed: bool) {
        for fingerprint in self.pending.drain(..) {
            if !committed {
                self.known.remove(&fingerprint);
            }
        }
    }
}

/// The id `url` has, if it has one.
pub(crate) fn lookup(
    connection: &rusqlite::Connection,
    url: &str,
) -> rusqlite::Result<Option<i64>> {
    let mut select = connection.prepare_cached("SELECT id FROM urls WHERE url = ?1")?;
    select.query_row(params![url], |row| row.get(0)).optional()
}

/// A 128-bit fingerprint (XXH3-128): collisions among millions of URLs are vanishingly
/// unlikely (about n²/2¹²⁹), and it lives only in memory, for one connection.
fn fingerprint(url: &str) -> u128 {
    xxhash_rust::xxh3::xxh3_128(url.as_bytes())
}
