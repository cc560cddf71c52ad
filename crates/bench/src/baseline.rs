//! The fetch-only baseline: the same HTTP client at the same concurrency fetching every URL
//! the crawl fetches, reading whole bodies and parsing nothing. The crawl's speed is reported
//! as a ratio of this, which the machine's noise affects alike.

use std::time::{Duration, Instant};

use anyhow::Context;
use futures_util::StreamExt;

/// Fetches `urls` with `concurrency` requests in flight; returns the wall time.
pub(crate) fn fetch_all(urls: &[String], concurrency: usize) -> anyhow::Result<Duration> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("baseline runtime")?;
    let _ = rustls::crypto::ring::default_provider().install_default();
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(concurrency)
        .build()
        .context("baseline client")?;
    let started = Instant::now();
    let failures = runtime.block_on(async {
        futures_util::stream::iter(urls)
            .map(|url| {
                let client = client.clone();
                async move {
                    let response = client.get(url).send().await.ok()?;
                    response.bytes().await.ok().map(|body| body.len())
                }
            })
            .buffer_unordered(concurrency)
            .filter(|fetched| std::future::ready(fetched.is_none()))
            .count()
            .await
    });
    let elapsed = started.elapsed();
    anyhow::ensure!(
        failures == 0,
        "the baseline failed to fetch {failures} URLs"
    );
    Ok(elapsed)
}
