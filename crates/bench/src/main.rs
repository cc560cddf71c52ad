//! `sitemapper-bench`: generates deterministic sites, serves them on 127.0.0.1, crawls them
//! with the release `sitemapper` binary beside this one, and reports speed, CPU, memory and
//! correctness against a fetch-only baseline measured in the same run.

mod baseline;
mod crawl_run;
mod report;
mod server;
mod site;

use std::path::PathBuf;

use anyhow::Context;
use clap::Parser;

use crate::report::CaseResult;
use crate::server::Server;
use crate::site::GeneratedSite;

#[derive(Debug, Parser)]
#[command(
    name = "sitemapper-bench",
    about = "Benchmark sitemapper against generated sites"
)]
struct Options {
    /// Site sizes, in pages.
    #[arg(long, value_delimiter = ',', default_value = "10000,100000,1000000")]
    cases: Vec<u64>,
    /// Runs per case (the million-page case runs once).
    #[arg(long, default_value_t = 3)]
    runs: usize,
    /// Requests in flight, for the crawl and the baseline alike.
    #[arg(long, default_value_t = 8)]
    concurrency: usize,
    /// Where to write the Markdown results.
    #[arg(long, default_value = "BENCHMARKS.md")]
    output: PathBuf,
    /// Only serve a generated site of this many pages, for profiling a crawl by hand.
    #[arg(long, value_name = "PAGES")]
    serve: Option<u64>,
}

fn main() -> anyhow::Result<()> {
    let options = Options::parse();
    if let Some(pages) = options.serve {
        let server = Server::start(GeneratedSite::new(pages), 1)?;
        say(&format!(
            "serving {pages} pages at {} until killed",
            server.url("/")
        ));
        loop {
            std::thread::park();
        }
    }
    let binary = std::env::current_exe()?.with_file_name("sitemapper");
    anyhow::ensure!(
        binary.is_file(),
        "{} is missing: build it with `cargo build --release --workspace`",
        binary.display()
    );
    let mut results = Vec::new();
    for &pages in &options.cases {
        let result = run_case(&binary, pages, &options)?;
        say(&result.row());
        results.push(result);
    }
    let date = jiff::Timestamp::now().strftime("%Y-%m-%d").to_string();
    let text = report::markdown(&results, &report::machine(), &date, options.concurrency);
    std::fs::write(&options.output, &text)
        .with_context(|| format!("write {}", options.output.display()))?;
    say(&text);
    Ok(())
}

fn run_case(binary: &std::path::Path, pages: u64, options: &Options) -> anyhow::Result<CaseResult> {
    let site = GeneratedSite::new(pages);
    let server = Server::start(site, 2)?;
    let fetched_urls: Vec<String> = site
        .fetched_paths()
        .iter()
        .map(|path| server.url(path))
        .collect();
    let expected: std::collections::BTreeSet<String> = site
        .expected_paths()
        .iter()
        .map(|path| server.url(path))
        .collect();
    let runs = if pages > 200_000 {
        1
    } else {
        options.runs.max(1)
    };
    let mut result = CaseResult {
        pages,
        fetched: fetched_urls.len(),
        runs,
        crawl_wall: Vec::new(),
        baseline_wall: Vec::new(),
        cpu_seconds: Vec::new(),
        peak_rss_mib: Vec::new(),
        mismatch: None,
    };
    for run in 0..runs {
        // Baseline and crawl alternate, so that drift in the machine's load hits both.
        if pages <= 200_000 {
            let wall = baseline::fetch_all(&fetched_urls, options.concurrency)?;
            say(&format!(
                "{pages} pages, run {}: baseline {:.2} s",
                run + 1,
                wall.as_secs_f64()
            ));
            result.baseline_wall.push(wall);
        }
        let measure = crawl_run::crawl(binary, &server.url("/"), options.concurrency, &[])?;
        // The static site has no scripts: a browser here would be a bug, and its cost would be
        // missing from the figures below.
        anyhow::ensure!(
            !measure.summary.browser_ran(),
            "the crawl of the static site of {pages} pages used a browser: {:?}",
            measure.summary
        );
        say(&format!(
            "{pages} pages, run {}: crawl {:.2} s, {:.2} CPU s, {:.1} MiB",
            run + 1,
            measure.wall.as_secs_f64(),
            measure.summary.cpu_seconds,
            measure.summary.peak_rss_mib
        ));
        if measure.listed != expected && result.mismatch.is_none() {
            let missing: Vec<&String> = expected.difference(&measure.listed).take(3).collect();
            let extra: Vec<&String> = measure.listed.difference(&expected).take(3).collect();
            result.mismatch = Some(format!(
                "{} listed, {} expected; missing e.g. {missing:?}, extra e.g. {extra:?}",
                measure.listed.len(),
                expected.len()
            ));
        }
        result.crawl_wall.push(measure.wall);
        result.cpu_seconds.push(measure.summary.cpu_seconds);
        result.peak_rss_mib.push(measure.summary.peak_rss_mib);
    }
    Ok(result)
}

#[expect(clippy::print_stdout, reason = "the benchmark reports on stdout")]
fn say(text: &str) {
    println!("{text}");
}
