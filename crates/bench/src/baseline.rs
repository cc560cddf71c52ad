//! The fetch-only baseline: the same HTTP client at the same concurrency fetching every URL
//! the crawl fetches, reading whole bodies and parsing nothing. The crawl's speed is reported
//! as a ratio of this, which the machine's noise affects alike; its CPU time is the floor of
//! what a crawler with this client can spend on the same requests.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::Context;
use futures_util::StreamExt;

use crate::cpu_account::own_ticks;
use crate::process_tree::TICKS;

/// What one fetch of every URL took.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Fetched {
    pub wall: Duration,
    /// User and system time of the threads that fetched (the runtime's and this one).
    pub cpu_seconds: f64,
}

/// Fetches `urls` with `concurrency` requests in flight.
pub(crate) fn fetch_all(urls: &[String], concurrency: usize) -> anyhow::Result<Fetched> {
    let threads: Arc<Mutex<Vec<String>>> = Arc::new(Mutex::new(vec![this_thread()?]));
    let runtime = {
        let threads = Arc::clone(&threads);
        tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .on_thread_start(move || {
                if let (Ok(thread), Ok(mut threads)) = (this_thread(), threads.lock()) {
                    threads.push(thread);
                }
            })
            .build()
            .context("baseline runtime")?
    };
    let _ = rustls::crypto::ring::default_provider().install_default();
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(concurrency)
        .build()
        .context("baseline client")?;
    let ticks_before = ticks_of(&threads);
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
    let wall = started.elapsed();
    let ticks = ticks_of(&threads).saturating_sub(ticks_before);
    anyhow::ensure!(
        failures == 0,
        "the baseline failed to fetch {failures} URLs"
    );
    Ok(Fetched {
        wall,
        cpu_seconds: ticks as f64 / TICKS,
    })
}

/// The `/proc` path of the calling thread (`PID/task/TID`).
fn this_thread() -> anyhow::Result<String> {
    let link = std::fs::read_link("/proc/thread-self").context("reading /proc/thread-self")?;
    Ok(link.to_string_lossy().into_owned())
}

/// The CPU time so far of the threads listed, in clock ticks (threads that ended count
/// nothing: the runtime's live until it is dropped).
fn ticks_of(threads: &Mutex<Vec<String>>) -> u64 {
    let threads = threads
        .lock()
        .map(|threads| threads.clone())
        .unwrap_or_default();
    threads
        .iter()
        .filter_map(|thread| std::fs::read_to_string(format!("/proc/{thread}/stat")).ok())
        .filter_map(|stat| own_ticks(&stat))
        .sum()
}
