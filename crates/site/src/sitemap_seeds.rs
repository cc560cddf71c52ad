//! The sitemaps protocol for a crawl that seeds from the site's own sitemaps
//! (`--seed-sitemaps`): the crawl fetches each sitemap, and this reader, over the walk and
//! the reader `validate` and the audit use, says what it holds and which sitemap comes next
//! (each once, indexes followed to a bounded depth and count, gzip by its magic number).
//! What it read can be kept for the audit, which compares the crawl with the same sitemaps
//! and so need not fetch them again.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use sitemapper_crawl::{HostMap, NoSeeds, SitemapReader, SitemapWalk};
use sitemapper_sitemap::{
    IndexWalk, MAX_BYTES_PER_FILE, SitemapDocument, SitemapId, SitemapKey,
    is_written_by_sitemapper, read_sitemap,
};
use url::Url;

use crate::sitemap_source::{gunzip_if_gzip, listed_sitemaps};

/// Reads the sitemaps a crawl fetches.
#[derive(Debug)]
pub(crate) struct SeedSitemaps {
    host_map: HostMap,
    kept: Option<ReadSitemaps>,
}

impl SeedSitemaps {
    /// A reader whose indexes' sitemaps on a production host (`--map-host`) are read on
    /// its staging copy, as the crawl reads pages; with `kept`, what it reads is kept there.
    pub(crate) fn new(host_map: HostMap, kept: Option<ReadSitemaps>) -> SeedSitemaps {
        SeedSitemaps { host_map, kept }
    }
}

impl SitemapReader for SeedSitemaps {
    fn walk(&self, roots: Vec<Url>) -> Box<dyn SitemapWalk> {
        Box::new(SeedWalk {
            walk: IndexWalk::new(roots.into_iter().map(|url| (SitemapKey::url(&url), url))),
            reading: None,
            host_map: self.host_map.clone(),
            kept: self.kept.clone(),
        })
    }

    fn max_bytes(&self) -> usize {
        // Only a 16-bit target holds less than 50 MiB: there, no more can be read anyway.
        usize::try_from(MAX_BYTES_PER_FILE).unwrap_or(usize::MAX)
    }
}

/// The sitemaps a crawl read as seeds, by URL (on the staging host, with `--map-host`),
/// until the audit takes them.
#[derive(Debug, Clone, Default)]
pub struct ReadSitemaps(Arc<Mutex<HashMap<SitemapKey, SitemapDocument>>>);

impl ReadSitemaps {
    /// The document the crawl read at `url`, if it did; taken out.
    pub fn take(&self, url: &Url) -> Option<SitemapDocument> {
        let mut documents = self.0.lock().ok()?;
        documents.remove(&SitemapKey::url(url))
    }

    fn keep(&self, url: &Url, document: &SitemapDocument) {
        if let Ok(mut documents) = self.0.lock() {
            documents.insert(SitemapKey::url(url), document.clone());
        }
    }
}

/// One walk through the site's sitemaps.
#[derive(Debug)]
struct SeedWalk {
    walk: IndexWalk<Url>,
    /// The sitemap handed out last, and its place in the walk.
    reading: Option<(Url, SitemapId)>,
    host_map: HostMap,
    kept: Option<ReadSitemaps>,
}

impl SitemapWalk for SeedWalk {
    fn next_to_read(&mut self) -> Option<Url> {
        let visit = self.walk.next_to_read()?;
        self.reading = Some((visit.source.clone(), visit.id));
        Some(visit.source)
    }

    fn take_in(&mut self, sitemap: &Url, body: Vec<u8>) -> Result<Vec<String>, NoSeeds> {
        let id = match &self.reading {
            Some((reading, id)) if reading == sitemap => *id,
            _ => {
                return Err(NoSeeds::Unreadable(
                    "not the sitemap the walk handed out".to_string(),
                ));
            }
        };
        let body = gunzip_if_gzip(body).map_err(|error| NoSeeds::Unreadable(error.to_string()))?;
        let document =
            read_sitemap(&body).map_err(|error| NoSeeds::Unreadable(error.to_string()))?;
        if let Some(kept) = &self.kept {
            let crawled = self.host_map.to_crawled(sitemap);
            kept.keep(crawled.as_ref().unwrap_or(sitemap), &document);
        }
        // Kept for the audit, which compares the crawl with whatever the site serves; not a
        // source of seeds, and an index of this kind is not followed.
        if is_written_by_sitemapper(&body) {
            return Err(NoSeeds::WrittenBySitemapper);
        }
        match document {
            SitemapDocument::UrlSet(entries) => {
                Ok(entries.into_iter().map(|entry| entry.loc).collect())
            }
            SitemapDocument::Index(entries) => {
                let listed = listed_sitemaps(sitemap, entries, &self.host_map);
                for problem in self.walk.follow(id, listed) {
                    tracing::debug!(index = %problem.index, line = problem.line, "{}", problem.kind);
                }
                Ok(Vec::new())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(text: &str) -> Url {
        Url::parse(text).unwrap_or_else(|error| panic!("{text}: {error}"))
    }

    fn gzip(bytes: &[u8]) -> Vec<u8> {
        use std::io::Write;
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        encoder
            .write_all(bytes)
            .unwrap_or_else(|error| panic!("{error}"));
        encoder.finish().unwrap_or_else(|error| panic!("{error}"))
    }

    #[test]
    fn an_index_leads_to_its_sitemaps_once_and_a_gzip_child_is_read() {
        let reader = SeedSitemaps::new(HostMap::default(), None);
        let mut walk = reader.walk(vec![url("https://e.com/index.xml")]);
        let index = url("https://e.com/index.xml");
        assert_eq!(walk.next_to_read(), Some(index.clone()));
        let listed = walk.take_in(
            &index,
            b"<sitemapindex><sitemap><loc>/a.xml.gz</loc></sitemap><sitemap><loc>https://e.com/a.xml.gz</loc></sitemap><sitemap><loc>https://e.com/index.xml</loc></sitemap></sitemapindex>".to_vec(),
        );
        assert_eq!(listed, Ok(Vec::new()));
        let child = url("https://e.com/a.xml.gz");
        assert_eq!(walk.next_to_read(), Some(child.clone()));
        let body = gzip(b"<urlset><url><loc>https://e.com/page</loc></url></urlset>");
        assert_eq!(
            walk.take_in(&child, body),
            Ok(vec!["https://e.com/page".to_string()])
        );
        assert_eq!(walk.next_to_read(), None, "each sitemap once, no cycle");
    }

    #[test]
    fn what_is_not_a_sitemap_says_why() {
        let reader = SeedSitemaps::new(HostMap::default(), None);
        let root = url("https://e.com/sitemap.xml");
        let mut walk = reader.walk(vec![root.clone()]);
        assert_eq!(walk.next_to_read(), Some(root.clone()));
        let read = walk.take_in(&root, b"<html><body>Not found</body></html>".to_vec());
        assert!(
            matches!(&read, Err(NoSeeds::Unreadable(problem)) if problem.contains("<html>")),
            "{read:?}"
        );
    }

    #[test]
    fn what_sitemapper_wrote_is_no_seed_and_its_index_is_not_followed() {
        let reader = SeedSitemaps::new(HostMap::default(), None);
        let root = url("https://e.com/sitemap.xml");
        let mut walk = reader.walk(vec![root.clone()]);
        assert_eq!(walk.next_to_read(), Some(root.clone()));
        let index = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!-- written by sitemapper -->\n<sitemapindex xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\"><sitemap><loc>https://e.com/sitemap-00002.xml.gz</loc></sitemap></sitemapindex>";
        let read = walk.take_in(&root, gzip(index.as_bytes()));
        assert_eq!(read, Err(NoSeeds::WrittenBySitemapper));
        assert_eq!(walk.next_to_read(), None, "its children are not read");
    }
}
