//! The frontier: URLs waiting to be fetched, and the set of every URL ever queued.
//!
//! The seen-set holds 128-bit fingerprints of normalized URLs, not the URLs themselves, so its
//! memory is a small constant per URL. It is shared with fetch jobs, which claim redirect targets
//! in it so that a URL reached by several paths is fetched once. The queue keeps a bounded
//! number of URLs in memory, each as its text alone, and spills the rest (see
//! [`FrontierSpill`]). What each URL costs is in docs/design.md (Memory).

use std::collections::{HashMap, VecDeque};
use std::hash::{BuildHasher, Hasher};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use dashmap::DashSet;
use url::Url;

/// A URL taken from the frontier for its fetch.
#[derive(Debug, Clone)]
pub(crate) struct QueuedUrl {
    pub url: Url,
    pub depth: u32,
    pub referrer: Option<Url>,
    /// Same-shaped ancestors in a row (see `traps`).
    pub chain: u32,
}

/// A URL waiting in memory: its text, parsed again when it is taken (a parsed URL is 88
/// bytes besides its text), and where it stands. Its referrer is kept by the frontier's owner,
/// which can replace it with a nearer one until the URL is taken.
#[derive(Debug)]
struct Waiting {
    url: Box<str>,
    depth: u32,
    chain: u32,
}

#[derive(Debug, Default)]
pub(crate) struct SeenSet {
    fingerprints: DashSet<u128, FingerprintHasherBuilder>,
    /// Counted apart: the set's own `len` visits every shard.
    count: AtomicU64,
}

impl SeenSet {
    /// Records `url`; true when it was not seen before.
    pub(crate) fn insert(&self, url: &Url) -> bool {
        self.insert_fingerprint(fingerprint(url.as_str()))
    }

    /// Records the URL of `fingerprint` (see [`fingerprint`]); true when it was not seen
    /// before.
    pub(crate) fn insert_fingerprint(&self, fingerprint: u128) -> bool {
        let new = self.fingerprints.insert(fingerprint);
        if new {
            self.count.fetch_add(1, Ordering::Relaxed);
        }
        new
    }

    pub(crate) fn contains(&self, url: &Url) -> bool {
        self.fingerprints.contains(&fingerprint(url.as_str()))
    }

    pub(crate) fn len(&self) -> u64 {
        self.count.load(Ordering::Relaxed)
    }
}

/// A 128-bit fingerprint: XXH3-128. Collisions among a few million URLs are vanishingly
/// unlikely (about n²/2¹²⁹); a site that forged two colliding URLs of its own would only hide
/// one of its pages from its own sitemap. Fingerprints live only in memory for one crawl.
pub(crate) fn fingerprint(text: &str) -> u128 {
    xxhash_rust::xxh3::xxh3_128(text.as_bytes())
}

/// Every queued URL's depth and the text of its referrer, by [`referrer_key`].
pub(crate) type ReferrerMap = HashMap<u64, (u32, Arc<str>), FingerprintHasherBuilder>;

/// A queued URL's key in a [`ReferrerMap`]: 64 bits of its [`fingerprint`]. Two of a million
/// queued URLs share one with a chance of about 3 in 10⁸, and would then share a referrer;
/// the seen-set, which decides what is fetched, keeps all 128.
pub(crate) fn referrer_key(fingerprint: u128) -> u64 {
    fingerprint as u64
}

/// The fingerprints are already uniformly distributed: hashing them again would be wasted work.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct FingerprintHasherBuilder;

#[derive(Debug, Default)]
pub(crate) struct FingerprintHasher(u64);

impl BuildHasher for FingerprintHasherBuilder {
    type Hasher = FingerprintHasher;

    fn build_hasher(&self) -> FingerprintHasher {
        FingerprintHasher::default()
    }
}

impl Hasher for FingerprintHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for byte in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(*byte);
        }
    }

    fn write_u64(&mut self, value: u64) {
        self.0 = value;
    }

    fn write_u128(&mut self, value: u128) {
        self.0 = (value as u64) ^ ((value >> 64) as u64);
    }
}

/// A queued URL as it is kept outside memory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpilledUrl {
    /// The normalized URL.
    pub url: String,
    /// Clicks from the seed.
    pub depth: u32,
    /// The length of the chain of same-shaped pages it ends (see `traps`).
    pub chain: u32,
}

/// Where the frontier keeps queued URLs beyond its memory budget: a first-in, first-out
/// queue on disk (the crawl database, in the binary). On a site that makes new links without
/// end the queue grows by a thousand URLs per page; on disk that costs nothing that matters.
pub trait FrontierSpill: Send + Sync + std::fmt::Debug {
    /// Appends `urls`, in order, after every URL appended before.
    fn push(&self, urls: &[SpilledUrl]) -> Result<(), SpillError>;
    /// Removes and returns up to `max` of the oldest URLs.
    fn pop(&self, max: usize) -> Result<Vec<SpilledUrl>, SpillError>;
}

/// Why a spill could not keep URLs or give them back: its storage's own error, whatever the
/// storage is.
#[derive(Debug, thiserror::Error)]
#[error(transparent)]
pub struct SpillError(pub Box<dyn std::error::Error + Send + Sync>);

impl SpillError {
    /// The storage's error.
    pub fn new(error: impl std::error::Error + Send + Sync + 'static) -> SpillError {
        SpillError(Box::new(error))
    }
}

/// URLs kept in memory before the frontier spills; about 100 bytes each.
pub(crate) const MEMORY_BUDGET: usize = 50_000;
/// URLs written to or read from the spill at once.
const SPILL_BATCH: usize = 5_000;

/// Breadth-first queue: pages are fetched roughly in order of depth, so a URL's recorded depth
/// is its shortest click distance from the seed. Beyond [`MEMORY_BUDGET`] URLs, newer URLs
/// go to the spill (when there is one) and come back in order once the older ones are done:
/// the oldest are in `memory`, then those spilled, then those in `outgoing`.
#[derive(Debug)]
pub(crate) struct Frontier {
    memory: VecDeque<Waiting>,
    /// Waiting to be written to the spill, as one batch.
    outgoing: Vec<Waiting>,
    spilled: usize,
    spill: Option<Arc<dyn FrontierSpill>>,
    /// URLs the spill did not give back.
    lost: u64,
    /// Whether reading the spill back failed.
    unreadable: bool,
}

impl Frontier {
    pub(crate) fn new(spill: Option<Arc<dyn FrontierSpill>>) -> Frontier {
        Frontier {
            memory: VecDeque::new(),
            outgoing: Vec::new(),
            spilled: 0,
            spill,
            lost: 0,
            unreadable: false,
        }
    }

    /// Queues `url`, `depth` clicks from the seed, ending a chain of `chain` same-shaped pages.
    pub(crate) fn push(&mut self, url: &Url, depth: u32, chain: u32) {
        let item = Waiting {
            url: url.as_str().into(),
            depth,
            chain,
        };
        let in_order = self.spilled == 0 && self.outgoing.is_empty();
        if self.spill.is_none() || (in_order && self.memory.len() < MEMORY_BUDGET) {
            self.memory.push_back(item);
            return;
        }
        self.outgoing.push(item);
        // A batch is written when it is full; after a failed write, the spill is tried again
        // each time another batch has come in, not on every URL.
        if self.outgoing.len().is_multiple_of(SPILL_BATCH) {
            self.flush();
        }
    }

    /// The depth of the URL [`Frontier::pop`] gives next.
    pub(crate) fn peek_depth(&mut self) -> Option<u32> {
        if self.memory.is_empty() {
            self.refill();
        }
        self.memory.front().map(|item| item.depth)
    }

    /// The next URL, without its referrer (the owner keeps it). A text that no longer
    /// parses (it was a URL when queued) is counted as lost.
    pub(crate) fn pop(&mut self) -> Option<QueuedUrl> {
        loop {
            if self.memory.is_empty() {
                self.refill();
            }
            let item = self.memory.pop_front()?;
            match Url::parse(&item.url) {
                Ok(url) => {
                    return Some(QueuedUrl {
                        url,
                        depth: item.depth,
                        referrer: None,
                        chain: item.chain,
                    });
                }
                Err(_) => self.lost += 1,
            }
        }
    }

    /// URLs waiting, in memory and on disk.
    pub(crate) fn len(&self) -> usize {
        self.memory.len() + self.spilled + self.outgoing.len()
    }

    /// URLs the spill failed to give back: still on disk but unreadable, or missing. Call
    /// when the crawl is over.
    pub(crate) fn lost(&self) -> u64 {
        let unreadable = if self.unreadable { self.spilled } else { 0 };
        self.lost + unreadable as u64
    }

    /// Writes `outgoing` to the spill. When the spill fails (a full disk), the URLs stay in
    /// memory: memory grows, but nothing is lost.
    fn flush(&mut self) {
        let Some(spill) = &self.spill else {
            return;
        };
        let batch: Vec<SpilledUrl> = self
            .outgoing
            .iter()
            .map(|item| SpilledUrl {
                url: item.url.to_string(),
                depth: item.depth,
                chain: item.chain,
            })
            .collect();
        match spill.push(&batch) {
            Ok(()) => {
                self.spilled += batch.len();
                self.outgoing.clear();
            }
            Err(error) => {
                tracing::warn!(%error, urls = batch.len(), "cannot spill queued URLs; they stay in memory");
            }
        }
    }

    /// Brings the oldest waiting URLs into memory: from the spill first, then those not yet
    /// written to it. URLs the spill cannot give back are counted as lost once the rest is
    /// done (see [`Frontier::lost`]).
    fn refill(&mut self) {
        if self.spilled > 0
            && let Some(spill) = &self.spill
        {
            match spill.pop(SPILL_BATCH) {
                Ok(batch) if !batch.is_empty() => {
                    self.spilled = self.spilled.saturating_sub(batch.len());
                    self.memory.extend(batch.into_iter().map(|spilled| Waiting {
                        url: spilled.url.into_boxed_str(),
                        depth: spilled.depth,
                        chain: spilled.chain,
                    }));
                    return;
                }
                Ok(_) => {
                    tracing::error!(urls = self.spilled, "spilled URLs missing from the spill");
                    self.lost += self.spilled as u64;
                    self.spilled = 0;
                }
                Err(error) => {
                    tracing::error!(%error, urls = self.spilled, "cannot read spilled URLs back");
                    self.unreadable = true;
                }
            }
        }
        self.memory.extend(self.outgoing.drain(..));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_seen_set_remembers_urls() {
        let seen = SeenSet::default();
        let url = Url::parse("http://e.com/a").unwrap_or_else(|error| panic!("{error}"));
        let other = Url::parse("http://e.com/b").unwrap_or_else(|error| panic!("{error}"));
        assert!(seen.insert(&url));
        assert!(!seen.insert(&url));
        assert!(seen.insert(&other));
        assert_eq!(seen.len(), 2);
    }

    /// A spill in memory, to test the order the frontier keeps across it.
    #[derive(Debug, Default)]
    struct QueueSpill(std::sync::Mutex<VecDeque<SpilledUrl>>);

    impl FrontierSpill for QueueSpill {
        fn push(&self, urls: &[SpilledUrl]) -> Result<(), SpillError> {
            let mut queue = self
                .0
                .lock()
                .map_err(|_| SpillError::new(std::io::Error::other("poisoned")))?;
            queue.extend(urls.iter().cloned());
            Ok(())
        }

        fn pop(&self, max: usize) -> Result<Vec<SpilledUrl>, SpillError> {
            let mut queue = self
                .0
                .lock()
                .map_err(|_| SpillError::new(std::io::Error::other("poisoned")))?;
            let count = max.min(queue.len());
            Ok(queue.drain(..count).collect())
        }
    }

    /// Queues `http://e.com/INDEX`.
    fn push(frontier: &mut Frontier, index: usize) {
        let url =
            Url::parse(&format!("http://e.com/{index}")).unwrap_or_else(|error| panic!("{error}"));
        frontier.push(&url, 1, 0);
    }

    #[test]
    fn the_frontier_keeps_its_order_across_the_spill_and_bounds_its_memory() {
        let spill = Arc::new(QueueSpill::default());
        let mut frontier = Frontier::new(Some(spill.clone()));
        let total = MEMORY_BUDGET + 3 * SPILL_BATCH + 17;
        for index in 0..total / 2 {
            push(&mut frontier, index);
        }
        assert!(frontier.memory.len() <= MEMORY_BUDGET);
        // Pops and pushes interleaved, as the crawl does them.
        let mut popped = Vec::new();
        for index in total / 2..total {
            push(&mut frontier, index);
            if index.is_multiple_of(2) {
                popped.extend(frontier.pop());
            }
            assert!(frontier.memory.len() <= MEMORY_BUDGET + SPILL_BATCH);
        }
        assert_eq!(frontier.len() + popped.len(), total);
        while let Some(item) = frontier.pop() {
            popped.push(item);
        }
        let paths: Vec<String> = popped
            .iter()
            .map(|item| item.url.path().to_string())
            .collect();
        let expected: Vec<String> = (0..total).map(|index| format!("/{index}")).collect();
        assert_eq!(paths, expected);
        assert_eq!(frontier.lost(), 0);
        assert!(
            spill
                .0
                .lock()
                .map(|queue| queue.is_empty())
                .unwrap_or(false)
        );
    }

    /// A spill that fails to write, or to read back.
    #[derive(Debug, Default)]
    struct BrokenSpill {
        queue: QueueSpill,
        fails_to_write: bool,
    }

    impl FrontierSpill for BrokenSpill {
        fn push(&self, urls: &[SpilledUrl]) -> Result<(), SpillError> {
            if self.fails_to_write {
                return Err(SpillError::new(std::io::Error::other("disk full")));
            }
            self.queue.push(urls)
        }

        fn pop(&self, _max: usize) -> Result<Vec<SpilledUrl>, SpillError> {
            Err(SpillError::new(std::io::Error::other("disk broken")))
        }
    }

    #[test]
    fn a_spill_that_cannot_write_keeps_the_urls_in_memory() {
        let spill = Arc::new(BrokenSpill {
            fails_to_write: true,
            ..BrokenSpill::default()
        });
        let mut frontier = Frontier::new(Some(spill));
        let total = MEMORY_BUDGET + 2 * SPILL_BATCH + 3;
        for index in 0..total {
            push(&mut frontier, index);
        }
        let mut count = 0;
        while let Some(item) = frontier.pop() {
            assert_eq!(item.url.path(), format!("/{count}"));
            count += 1;
        }
        assert_eq!((count, frontier.lost()), (total, 0));
    }

    #[test]
    fn urls_a_spill_cannot_give_back_are_counted_as_lost() {
        let mut frontier = Frontier::new(Some(Arc::new(BrokenSpill::default())));
        let total = MEMORY_BUDGET + SPILL_BATCH + 3;
        for index in 0..total {
            push(&mut frontier, index);
        }
        let popped = std::iter::from_fn(|| frontier.pop()).count();
        assert_eq!(popped, MEMORY_BUDGET + 3);
        assert_eq!(frontier.lost(), SPILL_BATCH as u64);
    }

    #[test]
    fn without_a_spill_everything_stays_in_memory() {
        let mut frontier = Frontier::new(None);
        for index in 0..MEMORY_BUDGET + 10 {
            push(&mut frontier, index);
        }
        assert_eq!(frontier.memory.len(), MEMORY_BUDGET + 10);
        assert_eq!(
            frontier.pop().map(|item| item.url.path().to_string()),
            Some("/0".to_string())
        );
    }

    #[test]
    fn fingerprints_are_stable() {
        assert_eq!(fingerprint("http://e.com/a"), fingerprint("http://e.com/a"));
        assert_ne!(fingerprint("http://e.com/a"), fingerprint("http://e.com/b"));
    }
}
