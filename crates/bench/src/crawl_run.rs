//! One crawl by the real `sitemapper` binary, as a user runs it: its wall time, and the CPU
//! time and peak memory it reports about itself; then the URLs it listed.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use sitemapper_sitemap::{SitemapDocument, read_sitemap};

/// What one crawl measured.
#[derive(Debug, Clone)]
pub(crate) struct CrawlMeasure {
    pub wall: Duration,
    pub cpu_seconds: f64,
    pub peak_rss_mib: f64,
    pub listed: BTreeSet<String>,
}

pub(crate) fn crawl(binary: &Path, seed: &str, concurrency: usize) -> anyhow::Result<CrawlMeasure> {
    let out = tempfile::tempdir().context("output directory")?;
    let started = Instant::now();
    let output = Command::new(binary)
        .args(["crawl", seed, "--out"])
        .arg(out.path())
        .args(["--concurrency", &concurrency.to_string()])
        .env("NO_COLOR", "1")
        .output()
        .with_context(|| format!("run {}", binary.display()))?;
    let wall = started.elapsed();
    let stderr = String::from_utf8_lossy(&output.stderr);
    if !output.status.success() {
        bail!("sitemapper failed: {stderr}");
    }
    let number_after = |prefix: &str| -> anyhow::Result<f64> {
        stderr
            .lines()
            .find_map(|line| line.strip_prefix(prefix))
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|number| number.parse().ok())
            .with_context(|| format!("no {prefix:?} line in the summary:\n{stderr}"))
    };
    Ok(CrawlMeasure {
        wall,
        cpu_seconds: number_after("CPU time: ")?,
        peak_rss_mib: number_after("Peak memory: ")?,
        listed: listed_urls(out.path())?,
    })
}

/// Every `<loc>` under `out`: sitemap.xml, and its children when it is an index.
fn listed_urls(out: &Path) -> anyhow::Result<BTreeSet<String>> {
    let read = |name: &str| -> anyhow::Result<SitemapDocument> {
        let bytes = std::fs::read(out.join(name)).with_context(|| format!("read {name}"))?;
        read_sitemap(&bytes).with_context(|| format!("parse {name}"))
    };
    let mut listed = BTreeSet::new();
    match read("sitemap.xml")? {
        SitemapDocument::UrlSet(entries) => {
            listed.extend(entries.into_iter().map(|entry| entry.loc))
        }
        SitemapDocument::Index(children) => {
            for child in children {
                let name = child.loc.rsplit('/').next().unwrap_or_default().to_string();
                if let SitemapDocument::UrlSet(entries) = read(&name)? {
                    listed.extend(entries.into_iter().map(|entry| entry.loc));
                }
            }
        }
    }
    Ok(listed)
}
