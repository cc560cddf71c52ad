//! Where an interrupted crawl stood, read back a batch at a time: it continues from there
//! instead of starting over, and however large the crawl was, only a batch is held in memory
//! (what the links still to follow add goes to the frontier, which spills beyond its budget).

use url::Url;

/// Where an interrupted crawl stood, as the crawl database keeps it (`crates/site`
/// implements it over the store). Each call gives the next batch; an empty one, the end.
pub trait ResumeSource: Send + std::fmt::Debug {
    /// URLs already done: not requested again (the seed excepted, which restores the scope).
    fn finished(&mut self) -> Result<Vec<Url>, ResumeError>;
    /// `(source, source depth, target)`: links of finished pages to URLs not done yet,
    /// grouped by source.
    fn pending(&mut self) -> Result<Vec<(Url, u32, Url)>, ResumeError>;
}

/// Why where the crawl stood cannot be read: its storage's own error, whatever the storage is.
#[derive(Debug, thiserror::Error)]
#[error(transparent)]
pub struct ResumeError(pub Box<dyn std::error::Error + Send + Sync>);

impl ResumeError {
    /// The storage's error.
    pub fn new(error: impl std::error::Error + Send + Sync + 'static) -> ResumeError {
        ResumeError(Box::new(error))
    }
}
