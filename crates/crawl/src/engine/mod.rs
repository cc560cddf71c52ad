//! The crawl loop: one task owns the frontier, fetch jobs run in a bounded set, and the crawl
//! ends when both are empty (docs/design.md, Data flow).
//!
//! A [`Crawler`] is configured (`crawler`), then run (`run`): it visits the seed alone first
//! (`seed`), because its redirects may move the scope and its failure ends the crawl; then the
//! frontier's owner (`owner`) runs fetch jobs (`visit`, which follows redirects, and `page`,
//! which turns the response a chain ends on into an outcome, reading it in `rendering` and
//! `extraction`) until nothing is left. What a job works on and hands back is in `job`; what
//! the jobs share is in `context`.

mod context;
mod crawler;
mod extraction;
mod job;
mod owner;
mod page;
mod progress;
mod rendering;
mod run;
mod seed;
mod sitemap_seeds;
mod summary;
mod visit;

pub use crawler::{CrawlStopper, Crawler};
pub use progress::CrawlProgress;
pub use summary::CrawlSummary;
