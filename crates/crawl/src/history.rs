//! What earlier runs recorded, for an incremental recrawl: the validators of a conditional
//! request and, when the server answers 304 Not Modified, the verdict and links to reuse
//! without downloading or parsing the page again.

use jiff::Timestamp;
use url::Url;

use crate::event::{Fingerprint, Verdict};

/// One URL as an earlier run left it.
#[derive(Debug, Clone)]
pub struct PreviousPage {
    /// The `ETag` it was served with.
    pub etag: Option<String>,
    /// The valid `Last-Modified` it was served with.
    pub last_modified: Option<Timestamp>,
    /// Its `Content-Type`.
    pub content_type: Option<String>,
    /// The verdict its content gave, before canonicals were resolved across the site.
    pub verdict: Verdict,
    /// Its canonical hint, normalized.
    pub canonical: Option<Url>,
    /// Its `<title>`.
    pub title: Option<String>,
    /// Its meta description.
    pub description: Option<String>,
    /// The fingerprint of its visible text and links.
    pub fingerprint: Option<Fingerprint>,
    /// Where the links it is followed through lead (its anchors, frames, refreshes and
    /// alternates; none for a nofollow page): what a 304 follows again.
    pub followed: Vec<Url>,
}

impl PreviousPage {
    /// Whether a conditional request can be made: a validator to send.
    pub fn can_revalidate(&self) -> bool {
        self.etag.is_some() || self.last_modified.is_some()
    }

    /// Whether its fingerprint is of the function of releases before fingerprints had a
    /// version: read again, the page's content is fingerprinted by that function too, to be
    /// compared with it.
    pub fn has_legacy_fingerprint(&self) -> bool {
        self.fingerprint.as_ref().is_some_and(|fingerprint| {
            fingerprint.version == sitemapper_extract::LEGACY_FINGERPRINT_VERSION
        })
    }
}

/// The crawl database as the crawler sees it: looked up once per URL, before its request.
pub trait History: Send + Sync + std::fmt::Debug {
    /// The page `url` was when last fetched as a 200 HTML page or document, if it was (the
    /// crawl decides whether a document's record may stand in this run).
    fn previous(&self, url: &Url) -> Option<PreviousPage>;
}
