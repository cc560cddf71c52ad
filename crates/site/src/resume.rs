//! The crawl database as where an interrupted run stood: the crawl reads the URLs it finished
//! and the links it left to follow a batch at a time, through a connection of its own.

use sitemapper_crawl::{ResumeError, ResumeSource};
use sitemapper_store::{ResumeCursor, Store};
use url::Url;

/// Rows read from the database at a time.
const BATCH: usize = 2048;

/// A connection to the crawl database and how far the reading has come.
#[derive(Debug)]
pub(crate) struct StoreResume {
    store: Store,
    cursor: ResumeCursor,
}

impl StoreResume {
    pub(crate) fn new(store: Store, cursor: ResumeCursor) -> StoreResume {
        StoreResume { store, cursor }
    }
}

impl ResumeSource for StoreResume {
    fn finished(&mut self) -> Result<Vec<Url>, ResumeError> {
        // A URL that no longer parses cannot be requested again either way: it is skipped.
        loop {
            let batch = self
                .store
                .next_finished(&mut self.cursor, BATCH)
                .map_err(ResumeError::new)?;
            if batch.is_empty() {
                return Ok(Vec::new());
            }
            let urls: Vec<Url> = batch
                .iter()
                .filter_map(|url| Url::parse(url).ok())
                .collect();
            if !urls.is_empty() {
                return Ok(urls);
            }
        }
    }

    fn pending(&mut self) -> Result<Vec<(Url, u32, Url)>, ResumeError> {
        loop {
            let batch = self
                .store
                .next_pending(&mut self.cursor, BATCH)
                .map_err(ResumeError::new)?;
            if batch.is_empty() {
                return Ok(Vec::new());
            }
            let links: Vec<(Url, u32, Url)> = batch
                .iter()
                .filter_map(|link| {
                    Some((
                        Url::parse(&link.source).ok()?,
                        link.depth,
                        Url::parse(&link.target).ok()?,
                    ))
                })
                .collect();
            if !links.is_empty() {
                return Ok(links);
            }
        }
    }
}
