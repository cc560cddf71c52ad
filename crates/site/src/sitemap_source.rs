//! What reading a sitemap takes besides fetching it (which the crawl's [`Fetcher`] does, up
//! to the protocol's size limit): gzip undone by its magic number, and an index's children
//! resolved for its walk.
//!
//! [`Fetcher`]: sitemapper_crawl::Fetcher

use std::io::Read;

use sitemapper_crawl::HostMap;
use sitemapper_sitemap::{Listed, MAX_BYTES_PER_FILE, SitemapEntry, SitemapKey};
use url::Url;

/// Why a gzip body cannot be read as a sitemap.
#[derive(Debug, thiserror::Error)]
pub enum GunzipError {
    /// It is not valid gzip.
    #[error("bad gzip: {0}")]
    Bad(std::io::Error),
    /// It expands past the protocol's limit of bytes.
    #[error("larger than {0} bytes uncompressed")]
    TooLarge(usize),
}

/// `bytes` decompressed when they are gzip (by their magic number, whatever the name says),
/// up to the protocol's 50 MiB.
pub fn gunzip_if_gzip(bytes: Vec<u8>) -> Result<Vec<u8>, GunzipError> {
    if !bytes.starts_with(&[0x1f, 0x8b]) {
        return Ok(bytes);
    }
    let limit = usize::try_from(MAX_BYTES_PER_FILE).unwrap_or(usize::MAX);
    let mut expanded = Vec::new();
    flate2::read::GzDecoder::new(bytes.as_slice())
        .take(MAX_BYTES_PER_FILE + 1)
        .read_to_end(&mut expanded)
        .map_err(GunzipError::Bad)?;
    if expanded.len() > limit {
        return Err(GunzipError::TooLarge(limit));
    }
    Ok(expanded)
}

/// The sitemaps an `index` lists, for its walk: each `<loc>` resolved against the index's
/// URL, and, when it names a production host (`--map-host`), read on its staging copy.
pub fn listed_sitemaps(
    index: &Url,
    entries: Vec<SitemapEntry>,
    host_map: &HostMap,
) -> impl Iterator<Item = Listed<Url>> {
    entries.into_iter().filter_map(move |entry| {
        let child = index.join(&entry.loc).ok()?;
        let child = host_map.to_crawled(&child).unwrap_or(child);
        Some(Listed {
            key: SitemapKey::url(&child),
            source: child,
            line: entry.line,
        })
    })
}
