//! The protocol's limits (sitemaps.org): the size of one sitemap file (at most 50,000 URLs and
//! 52,428,800 bytes uncompressed), configurable downward, and the length of one URL.

use crate::error::SitemapError;

/// The most URLs one sitemap file may hold, and the most sitemaps one index may list
/// (sitemaps.org: "no more than 50,000 URLs").
pub const MAX_URLS_PER_FILE: usize = 50_000;
/// The most bytes one sitemap file may take uncompressed (sitemaps.org: "no larger than 50MB
/// (52,428,800 bytes)").
pub const MAX_BYTES_PER_FILE: u64 = 52_428_800;
/// The smallest byte limit accepted: enough for the XML declaration, the `<urlset>` tags and
/// one entry with a URL of [`MAX_URL_LENGTH`] characters and a `<lastmod>`.
pub const MIN_BYTES_PER_FILE: u64 = 4096;

/// The longest URL a sitemap may hold (sitemaps.org, "XML tag definitions", `<loc>`: "less
/// than 2,048 characters"; a URL of exactly 2,048 is accepted here). Measured in bytes, which
/// are the characters of a percent-encoded URL.
pub const MAX_URL_LENGTH: usize = 2048;

/// How much one sitemap file holds at most: the protocol's limits, or lower ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// URLs per file, from 1 to [`MAX_URLS_PER_FILE`].
    pub(crate) max_urls: usize,
    /// Uncompressed bytes per file, from [`MIN_BYTES_PER_FILE`] to [`MAX_BYTES_PER_FILE`].
    pub(crate) max_bytes: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_urls: MAX_URLS_PER_FILE,
            max_bytes: MAX_BYTES_PER_FILE,
        }
    }
}

impl Limits {
    /// Limits of `max_urls` URLs and `max_bytes` bytes per file; an error when either is
    /// outside what the protocol allows or too small to hold one entry.
    pub fn new(max_urls: usize, max_bytes: u64) -> Result<Limits, SitemapError> {
        if !(1..=MAX_URLS_PER_FILE).contains(&max_urls) {
            return Err(SitemapError::InvalidLimits(format!(
                "URLs per file must be between 1 and {MAX_URLS_PER_FILE}, not {max_urls}"
            )));
        }
        if !(MIN_BYTES_PER_FILE..=MAX_BYTES_PER_FILE).contains(&max_bytes) {
            return Err(SitemapError::InvalidLimits(format!(
                "bytes per file must be between {MIN_BYTES_PER_FILE} and {MAX_BYTES_PER_FILE}, not {max_bytes}"
            )));
        }
        Ok(Limits {
            max_urls,
            max_bytes,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_are_checked_against_the_protocol() {
        assert!(Limits::new(1, MIN_BYTES_PER_FILE).is_ok());
        assert_eq!(
            Limits::new(MAX_URLS_PER_FILE, MAX_BYTES_PER_FILE).ok(),
            Some(Limits::default())
        );
        for (urls, bytes) in [
            (0, MAX_BYTES_PER_FILE),
            (MAX_URLS_PER_FILE + 1, MAX_BYTES_PER_FILE),
            (10, MAX_BYTES_PER_FILE + 1),
            (10, MIN_BYTES_PER_FILE - 1),
        ] {
            let error = Limits::new(urls, bytes)
                .err()
                .map(|error| error.to_string());
            assert!(
                error.is_some_and(|message| message.starts_with("invalid sitemap limits")),
                "{urls} {bytes}"
            );
        }
    }
}
