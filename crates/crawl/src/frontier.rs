//! The frontier: URLs waiting to be fetched, and the set of every URL ever queued.
//!
//! The seen-set holds 128-bit fingerprints of normalized URLs, not the URLs themselves, so its
//! memory is a small constant per URL. It is shared with fetch jobs, which claim redirect targets
//! in it so that a URL reached by several paths is fetched once.

use std::collections::VecDeque;
use std::hash::{BuildHasher, Hasher};

use dashmap::DashSet;
use url::Url;

/// A URL waiting for its fetch.
#[derive(Debug, Clone)]
pub(crate) struct QueuedUrl {
    pub url: Url,
    pub depth: u32,
    pub referrer: Option<Url>,
    /// Same-shaped ancestors in a row (see `traps`).
    pub chain: u32,
}

#[derive(Debug, Default)]
pub(crate) struct SeenSet {
    fingerprints: DashSet<u128, FingerprintHasherBuilder>,
}

impl SeenSet {
    /// Records `url`; true when it was not seen before.
    pub fn insert(&self, url: &Url) -> bool {
        self.fingerprints.insert(fingerprint(url.as_str()))
    }

    pub fn len(&self) -> usize {
        self.fingerprints.len()
    }
}

/// A 128-bit fingerprint: two SipHash runs with different salts. Collisions among a few
/// million URLs are vanishingly unlikely (about n²/2¹²⁹). Fingerprints live only in memory for
/// one crawl, so the hasher's output need not be stable across releases.
fn fingerprint(text: &str) -> u128 {
    let hash_with = |salt: u64| {
        let mut hasher = std::hash::DefaultHasher::new();
        hasher.write_u64(salt);
        hasher.write(text.as_bytes());
        hasher.finish()
    };
    u128::from(hash_with(0x5173_6d61_7070_6572)) << 64
        | u128::from(hash_with(0x7369_7465_6d61_7070))
}

/// The fingerprints are already uniformly distributed: hashing them again would be wasted work.
#[derive(Debug, Clone, Copy, Default)]
struct FingerprintHasherBuilder;

#[derive(Debug, Default)]
struct FingerprintHasher(u64);

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

    fn write_u128(&mut self, value: u128) {
        self.0 = (value as u64) ^ ((value >> 64) as u64);
    }
}

/// Breadth-first queue: pages are fetched roughly in order of depth, so a URL's recorded depth
/// is its shortest click distance from the seed.
#[derive(Debug, Default)]
pub(crate) struct Frontier {
    queue: VecDeque<QueuedUrl>,
}

impl Frontier {
    pub fn push(&mut self, item: QueuedUrl) {
        self.queue.push_back(item);
    }

    pub fn pop(&mut self) -> Option<QueuedUrl> {
        self.queue.pop_front()
    }

    pub fn len(&self) -> usize {
        self.queue.len()
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

    #[test]
    fn fingerprints_are_stable() {
        assert_eq!(fingerprint("http://e.com/a"), fingerprint("http://e.com/a"));
        assert_ne!(fingerprint("http://e.com/a"), fingerprint("http://e.com/b"));
    }
}
