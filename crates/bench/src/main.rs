//! `sitemapper-bench`: generates deterministic sites, serves them on 127.0.0.1, crawls them
//! with the release `sitemapper` binary beside this one, and reports speed, CPU, memory and
//! correctness against a fetch-only baseline measured in the same run; and, on request, the
//! cost of rendering pages in the browser (`--render-cases`, `--render-static`), of rendering
//! on the Rust toolchain's own generated documentation (`--docs`), of crawling a fleet of
//! sites, alone and from a queue (`--fleet`), or of keeping a crawl database night after
//! night (`--nightly`).

mod adaptive;
mod audit;
mod baseline;
mod binary;
mod cpu_account;
mod crawl_run;
mod docs;
mod docs_report;
mod fleet;
mod fleet_processes;
mod fleet_report;
mod fleet_scale;
mod generated;
mod mixed;
mod nginx;
mod nightly;
mod nightly_report;
mod process_tree;
mod psql;
mod render;
mod render_report;
mod report;
mod same_output;
mod server;
mod site;
mod spa;
mod stop;
mod web;
mod web_assets;
mod web_served;
mod wide;

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Context;
use clap::Parser;

use crate::binary::{Binary, say};
use crate::render::RenderSettings;
use crate::report::CaseResult;
use crate::server::Server;
use crate::site::GeneratedSite;
use crate::spa::SinglePageApp;
use crate::web::WebSite;
use crate::web_served::{CompressedWebSite, Encodings};

#[derive(Debug, Parser)]
#[command(
    name = "sitemapper-bench",
    about = "Benchmark sitemapper against generated sites"
)]
struct Options {
    /// Sizes, in pages, of the plain generated site (uncompressed pages, few links)
    /// [default: 10000,100000,1000000, unless another benchmark is asked for].
    #[arg(long, value_delimiter = ',')]
    cases: Option<Vec<u64>>,
    /// Sizes, in pages, of the site that looks like the web (15 to 60 KB pages with 50 to 150
    /// links), served gzip-compressed, brotli-compressed, and by nginx from files when the
    /// machine has nginx [default: 10000, unless another benchmark is asked for].
    #[arg(long, value_delimiter = ',', value_name = "PAGES")]
    web: Option<Vec<u64>>,
    /// Another sitemapper binary (an earlier build) to crawl every case with too, in turn
    /// with this one, for a comparison measured in the same run.
    #[arg(long, value_name = "BINARY")]
    before: Option<PathBuf>,
    /// Instead of the other cases, check that this build writes the same files as `--before`
    /// on the plain and the web-like site of this many pages, crawled with the options that
    /// change the files and audited (the section is printed, and written only to `--output`).
    #[arg(long, value_name = "PAGES", requires = "before")]
    same_output: Option<u64>,
    /// Sizes, in pages, of the generated single-page application, crawled with
    /// `--render auto` and `--render never`.
    #[arg(long, value_delimiter = ',', value_name = "PAGES")]
    render_cases: Vec<u64>,
    /// Size, in pages, of the static site crawled with `--render auto` and `--render never`
    /// (auto must start no browser there).
    #[arg(long, value_name = "PAGES")]
    render_static: Option<u64>,
    /// Sizes, in pages, of the mixed site: the static site of STATIC pages with the
    /// application of APP pages beside it, crawled with `--render auto` and `--render never`
    /// (auto must render the application's pages alone).
    #[arg(long, value_delimiter = ',', value_name = "STATIC,APP")]
    render_mixed: Vec<u64>,
    /// Browser tabs for the rendering benchmark (`--render-concurrency`).
    #[arg(long, default_value_t = 2)]
    render_concurrency: usize,
    /// Runs per case (the million-page case runs once).
    #[arg(long, default_value_t = 3)]
    runs: usize,
    /// Requests in flight, for the crawl and the baseline alike.
    #[arg(long, default_value_t = 8)]
    concurrency: usize,
    /// Where to write the Markdown results [default: BENCHMARKS.md when only `--cases` run;
    /// the rendering section, meant to be pasted into BENCHMARKS.md, is only printed unless
    /// this is given].
    #[arg(long)]
    output: Option<PathBuf>,
    /// Only serve a generated site of this many pages, for profiling a crawl by hand.
    #[arg(long, value_name = "PAGES")]
    serve: Option<u64>,
    /// Only serve the generated single-page application of this many pages.
    #[arg(long, value_name = "PAGES", conflicts_with = "serve")]
    serve_app: Option<u64>,
    /// Only serve the site that looks like the web, of this many pages, gzip-compressed
    /// (compressed as each page is asked for above 200,000 pages).
    #[arg(long, value_name = "PAGES", conflicts_with_all = ["serve", "serve_app"])]
    serve_web: Option<u64>,
    /// Instead of the other cases, crawl a fleet of this many generated sites, each on its own
    /// port, with `sitemapper fleet run`, with one `sitemapper crawl` per site (and with
    /// workers on `--queue`), by this build and `--before`.
    #[arg(long, value_name = "SITES", conflicts_with_all = ["cases", "render_cases", "render_static", "render_mixed"])]
    fleet: Option<usize>,
    /// Pages of each site of the fleet.
    #[arg(long, value_name = "PAGES", default_value_t = 500)]
    fleet_pages: u64,
    /// The fleet's queue, postgres://USER:PASSWORD@HOST/DATABASE, for the cases of workers
    /// (one, then three), or for `fleet sync` and the queue's status with `--fleet-scale`;
    /// sitemapper's tables in it are dropped before every run.
    #[arg(long, value_name = "URL")]
    queue: Option<String>,
    /// Instead of the other cases, read fleet files of these many sites (parse, `fleet
    /// status`, and with `--queue` `fleet sync` and the queue's status), crawling nothing (the
    /// section is printed, and written only to `--output`).
    #[arg(
        long,
        value_delimiter = ',',
        value_name = "SITES",
        conflicts_with_all = ["cases", "web", "render_cases", "render_static", "render_mixed", "fleet"]
    )]
    fleet_scale: Vec<usize>,
    /// Instead of the other cases, crawl a server that slows down under load with fixed
    /// concurrency settings and with `--concurrency auto` (the section is printed, and written
    /// only to `--output`).
    #[arg(long, conflicts_with_all = ["cases", "web", "render_cases", "render_static", "render_mixed", "fleet"])]
    adaptive: bool,
    /// Instead of the other cases, crawl the Rust toolchain's own documentation (the rust-docs
    /// component: three mdBook books and the `alloc` crate's API), served by nginx, with
    /// `--render auto` and `--render never` (the section is printed, and written only to
    /// `--output`).
    #[arg(long, conflicts_with_all = ["cases", "web", "render_cases", "render_static", "render_mixed", "fleet", "adaptive"])]
    docs: bool,
    /// Instead of the other cases, crawl each fixture site of tests/fixtures/generated (built
    /// by its generator), served by nginx, with `--render auto` and `--render never` (the
    /// section is printed, and written only to `--output`).
    #[arg(long, conflicts_with_all = ["cases", "web", "render_cases", "render_static", "render_mixed", "fleet", "adaptive", "docs"])]
    generated: bool,
    /// Instead of the other cases, audit the site that looks like the web, of this many
    /// pages, by this build and `--before` in turn: wall time, CPU time, peak memory and
    /// findings (the section is printed, and written only to `--output`).
    #[arg(long, value_name = "PAGES", conflicts_with_all = ["cases", "web", "render_cases", "render_static", "render_mixed", "fleet", "adaptive", "docs", "generated"])]
    audit: Option<u64>,
    /// Instead of the other cases, crawl the site that looks like the web at these sizes, in
    /// pages, where one level holds most of the site: the peak memory of a plain crawl and of
    /// one with `--state` against docs/design.md's bounds, and every depth and referrer
    /// against the site's breadth-first walk, up to 200,000 pages (the section is printed,
    /// and written only to `--output`).
    #[arg(long, value_delimiter = ',', value_name = "PAGES", conflicts_with_all = ["cases", "web", "render_cases", "render_static", "render_mixed", "fleet", "adaptive", "docs", "generated", "audit"])]
    wide: Vec<u64>,
    /// The documentation's html directory [default: share/doc/rust/html under
    /// `rustc --print sysroot`].
    #[arg(long, value_name = "DIRECTORY", requires = "docs")]
    docs_dir: Option<PathBuf>,
    /// Seconds a crawl of the documentation may run before it is stopped (and reported as
    /// stopped).
    #[arg(long, value_name = "SECONDS", default_value_t = 120)]
    docs_timeout: u64,
    /// Instead of the other cases, measure the crawl database (`--state`) on the generated
    /// site of this many pages, served with validators: a plain crawl, a first crawl into a
    /// new database, a recrawl of the unchanged site and one with 1% of the pages changed
    /// (the section is printed, and written only to `--output`).
    #[arg(
        long,
        value_name = "PAGES",
        conflicts_with_all = ["cases", "web", "render_cases", "render_static", "render_mixed", "fleet", "adaptive", "docs", "same_output"]
    )]
    nightly: Option<u64>,
    /// Pages of the web-like site the crawl database is measured on too (plain crawl, first
    /// crawl, unchanged recrawl); 0 for none.
    #[arg(
        long,
        value_name = "PAGES",
        default_value_t = 10_000,
        requires = "nightly"
    )]
    nightly_web: u64,
}

impl Options {
    fn renders(&self) -> bool {
        !self.render_cases.is_empty()
            || self.render_static.is_some()
            || !self.render_mixed.is_empty()
    }
}

fn main() -> anyhow::Result<()> {
    let options = Options::parse();
    let server = match (options.serve, options.serve_app, options.serve_web) {
        (Some(pages), _, _) => Some((pages, Server::start(GeneratedSite::new(pages), 1)?)),
        (None, Some(pages), _) => Some((pages, Server::start(SinglePageApp { pages }, 1)?)),
        (None, None, Some(pages)) if pages > wide::PRECOMPRESSED_UP_TO => {
            let site = CompressedWebSite::live(WebSite { pages });
            Some((pages, Server::start(site, 1)?))
        }
        (None, None, Some(pages)) => {
            let site = CompressedWebSite::new(WebSite { pages }, Encodings::Gzip);
            Some((pages, Server::start(site, 1)?))
        }
        (None, None, None) => None,
    };
    if let Some((pages, server)) = server {
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
    anyhow::ensure!(
        options.queue.is_none() || options.fleet.is_some() || !options.fleet_scale.is_empty(),
        "--queue is for --fleet and --fleet-scale"
    );
    if let Some(sites) = options.fleet {
        return run_fleet(&binary, sites, &options);
    }
    if !options.fleet_scale.is_empty() {
        return run_fleet_scale(&binary, &options);
    }
    if options.adaptive {
        let date = jiff::Timestamp::now().strftime("%Y-%m-%d").to_string();
        let text = adaptive::run(&binary, options.runs.max(1), &report::machine(), &date)?;
        return publish(&text, options.output.as_deref());
    }
    let binaries = binaries(&binary, &options)?;
    if let Some(pages) = options.nightly {
        return run_nightly(&binaries, pages, &options);
    }
    if !options.wide.is_empty() {
        let runs = options.runs.max(1);
        let results = wide::run(&binaries, &options.wide, runs, options.concurrency)?;
        let sizes: Vec<String> = options.wide.iter().map(u64::to_string).collect();
        let mut command = format!("sitemapper-bench --wide {}", sizes.join(","));
        if options.before.is_some() {
            command.push_str(" --before BEFORE");
        }
        command.push_str(&format!(" --runs {runs}"));
        let date = jiff::Timestamp::now().strftime("%Y-%m-%d").to_string();
        let text = wide::markdown(
            &results,
            &report::machine(),
            &date,
            &command,
            options.concurrency,
        );
        return publish(&text, options.output.as_deref());
    }
    if let Some(pages) = options.same_output {
        let text = same_output::run(&binaries, pages)?;
        return publish(&text, options.output.as_deref());
    }
    if options.docs {
        return run_docs(&binaries, &options);
    }
    if options.generated {
        return run_generated(&binaries, &options);
    }
    if let Some(pages) = options.audit {
        let date = jiff::Timestamp::now().strftime("%Y-%m-%d").to_string();
        let text = audit::run(
            &binaries,
            pages,
            options.runs.max(1),
            options.concurrency,
            &report::machine(),
            &date,
        )?;
        return publish(&text, options.output.as_deref());
    }
    let only_other = options.renders();
    let cases = match &options.cases {
        Some(cases) => cases.clone(),
        None if only_other || options.web.is_some() => Vec::new(),
        None => vec![10_000, 100_000, 1_000_000],
    };
    let web = match &options.web {
        Some(web) => web.clone(),
        None if only_other || options.cases.is_some() => Vec::new(),
        None => vec![10_000],
    };
    let date = jiff::Timestamp::now().strftime("%Y-%m-%d").to_string();
    let machine = report::machine();
    let mut text = String::new();
    let mut results = Vec::new();
    for &pages in &cases {
        let site = GeneratedSite::new(pages);
        let server = Server::start(site, 2)?;
        let served = ServedCase {
            label: "plain".to_string(),
            pages,
            seed: server.url("/"),
            fetched: site
                .fetched_paths()
                .iter()
                .map(|path| server.url(path))
                .collect(),
            expected: site
                .expected_paths()
                .iter()
                .map(|path| server.url(path))
                .collect(),
        };
        results.extend(run_case(&binaries, &served, &options)?);
    }
    for &pages in &web {
        results.extend(run_web_cases(&binaries, pages, &options)?);
    }
    if !results.is_empty() {
        text.push_str(&report::markdown(
            &results,
            &machine,
            &date,
            options.concurrency,
        ));
    }
    if options.renders() {
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(&run_rendering(&binaries, &options, &machine, &date)?);
    }
    let output = match &options.output {
        Some(output) => Some(output.clone()),
        None if options.renders() => None,
        None => Some(PathBuf::from("BENCHMARKS.md")),
    };
    if let Some(output) = output {
        // The sections measured by other cases, pasted below the main table, stay.
        let existing = std::fs::read_to_string(&output).unwrap_or_default();
        let written = with_sections_kept(&text, &existing);
        std::fs::write(&output, written).with_context(|| format!("write {}", output.display()))?;
    }
    say(&text);
    Ok(())
}

/// `text`, the main cases' results, followed by the sections of `existing` (from its first
/// `## ` heading on): a run of the main cases replaces their table, not what other cases
/// measured.
fn with_sections_kept(text: &str, existing: &str) -> String {
    let sections = existing
        .match_indices("\n## ")
        .next()
        .map_or("", |(start, _)| &existing[start + 1..]);
    if sections.is_empty() {
        return text.to_string();
    }
    format!("{}\n\n{sections}", text.trim_end())
}

/// The binaries to measure: this build's, and the one given with `--before`.
fn binaries(binary: &Path, options: &Options) -> anyhow::Result<Vec<Binary>> {
    let mut binaries = vec![Binary {
        label: "this build".to_string(),
        path: binary.to_path_buf(),
    }];
    if let Some(before) = &options.before {
        anyhow::ensure!(before.is_file(), "{} is not a file", before.display());
        binaries.push(Binary {
            label: "before".to_string(),
            path: before.clone(),
        });
    }
    Ok(binaries)
}

/// A section that is printed, and written only to `output` when given.
fn publish(text: &str, output: Option<&Path>) -> anyhow::Result<()> {
    if let Some(output) = output {
        std::fs::write(output, text).with_context(|| format!("write {}", output.display()))?;
    }
    say(text);
    Ok(())
}

/// How the documentation and the generated sites are crawled; `directory`, the
/// documentation's.
fn docs_settings(options: &Options, directory: Option<PathBuf>) -> docs::DocsSettings {
    docs::DocsSettings {
        render: RenderSettings {
            runs: options.runs.max(1),
            concurrency: options.concurrency,
            tabs: options.render_concurrency,
        },
        limit: Duration::from_secs(options.docs_timeout),
        directory,
    }
}

/// The documentation benchmark: its section is printed, and written only to `--output`.
fn run_docs(binaries: &[Binary], options: &Options) -> anyhow::Result<()> {
    let settings = docs_settings(options, options.docs_dir.clone());
    let Some(result) = docs::run(binaries, &settings)? else {
        return Ok(());
    };
    let mut command = "sitemapper-bench --docs".to_string();
    if let Some(directory) = &options.docs_dir {
        command.push_str(&format!(" --docs-dir {}", directory.display()));
    }
    if options.before.is_some() {
        command.push_str(" --before BEFORE");
    }
    command.push_str(&format!(
        " --docs-timeout {} --runs {}",
        options.docs_timeout, settings.render.runs
    ));
    let date = jiff::Timestamp::now().strftime("%Y-%m-%d").to_string();
    let text = docs_report::markdown(&result, &report::machine(), &date, &command);
    publish(&text, options.output.as_deref())
}

/// The generated sites' benchmark: its section is printed, and written only to `--output`.
fn run_generated(binaries: &[Binary], options: &Options) -> anyhow::Result<()> {
    let settings = docs_settings(options, None);
    let directory = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/generated");
    let Some(results) = generated::run(binaries, &settings, &directory)? else {
        return Ok(());
    };
    let mut command = "sitemapper-bench --generated".to_string();
    if options.before.is_some() {
        command.push_str(" --before BEFORE");
    }
    command.push_str(&format!(" --runs {}", settings.render.runs));
    let date = jiff::Timestamp::now().strftime("%Y-%m-%d").to_string();
    let text = generated::markdown(&results, &settings, &report::machine(), &date, &command);
    publish(&text, options.output.as_deref())
}

/// The crawl database's benchmark: its section is printed, and written only to `--output`.
fn run_nightly(binaries: &[Binary], pages: u64, options: &Options) -> anyhow::Result<()> {
    let settings = nightly::NightlySettings {
        pages,
        web_pages: options.nightly_web,
        runs: options.runs.max(1),
        concurrency: options.concurrency,
    };
    let result = nightly::run(binaries, &settings)?;
    let mut command = format!(
        "sitemapper-bench --nightly {pages} --nightly-web {}",
        settings.web_pages
    );
    if options.before.is_some() {
        command.push_str(" --before BEFORE");
    }
    if settings.concurrency != 8 {
        command.push_str(&format!(" --concurrency {}", settings.concurrency));
    }
    command.push_str(&format!(" --runs {}", settings.runs));
    let date = jiff::Timestamp::now().strftime("%Y-%m-%d").to_string();
    let text = nightly_report::markdown(&result, &report::machine(), &date, &command);
    publish(&text, options.output.as_deref())
}

/// The fleet benchmark: its section is printed, and written only to `--output`.
fn run_fleet(binary: &Path, sites: usize, options: &Options) -> anyhow::Result<()> {
    let settings = fleet::FleetSettings {
        sites,
        pages: options.fleet_pages,
        runs: options.runs.max(1),
        concurrency: options.concurrency,
        queue: options.queue.clone(),
    };
    let result = fleet::run(&binaries(binary, options)?, &settings)?;
    let mut command = format!(
        "sitemapper-bench --fleet {sites} --fleet-pages {}",
        settings.pages
    );
    if options.before.is_some() {
        command.push_str(" --before BEFORE");
    }
    if let Some(queue) = &settings.queue {
        command.push_str(&format!(" --queue {}", without_password(queue)));
    }
    if settings.concurrency != 8 {
        command.push_str(&format!(" --concurrency {}", settings.concurrency));
    }
    command.push_str(&format!(" --runs {}", settings.runs));
    let date = jiff::Timestamp::now().strftime("%Y-%m-%d").to_string();
    let text = fleet_report::markdown(&result, &report::machine(), &date, &command);
    publish(&text, options.output.as_deref())
}

/// The fleet file at scale: its section is printed, and written only to `--output`.
fn run_fleet_scale(binary: &Path, options: &Options) -> anyhow::Result<()> {
    let settings = fleet_scale::ScaleSettings {
        sizes: options.fleet_scale.clone(),
        runs: options.runs.max(1),
        queue: options.queue.clone(),
    };
    let results = fleet_scale::run(binary, &settings)?;
    let sizes: Vec<String> = settings.sizes.iter().map(usize::to_string).collect();
    let mut command = format!("sitemapper-bench --fleet-scale {}", sizes.join(","));
    if let Some(queue) = &settings.queue {
        command.push_str(&format!(" --queue {}", without_password(queue)));
    }
    command.push_str(&format!(" --runs {}", settings.runs));
    let date = jiff::Timestamp::now().strftime("%Y-%m-%d").to_string();
    let text = fleet_scale::markdown(&results, &settings, &report::machine(), &date, &command);
    publish(&text, options.output.as_deref())
}

/// `url` with its password, if any, replaced by `PASSWORD`, for the report.
fn without_password(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(mut parsed) if parsed.password().is_some() => {
            let _ = parsed.set_password(Some("PASSWORD"));
            parsed.to_string()
        }
        Ok(parsed) => parsed.to_string(),
        Err(_) => "URL".to_string(),
    }
}

fn run_rendering(
    binaries: &[Binary],
    options: &Options,
    machine: &str,
    date: &str,
) -> anyhow::Result<String> {
    let settings = RenderSettings {
        runs: options.runs.max(1),
        concurrency: options.concurrency,
        tabs: options.render_concurrency,
    };
    let mut apps = Vec::new();
    for &pages in &options.render_cases {
        apps.push(render::app_case(binaries, pages, settings)?);
    }
    let statics = options
        .render_static
        .map(|pages| render::static_case(binaries, pages, settings))
        .transpose()?;
    let mixed = match options.render_mixed[..] {
        [] => None,
        [static_pages, app_pages] => Some(render::mixed_case(
            binaries,
            (static_pages, app_pages),
            settings,
        )?),
        _ => anyhow::bail!("--render-mixed takes two sizes: STATIC,APP"),
    };
    let mut command = "sitemapper-bench".to_string();
    if !options.render_cases.is_empty() {
        let cases: Vec<String> = options.render_cases.iter().map(u64::to_string).collect();
        command.push_str(&format!(" --render-cases {}", cases.join(",")));
    }
    if let Some(pages) = options.render_static {
        command.push_str(&format!(" --render-static {pages}"));
    }
    if let [static_pages, app_pages] = options.render_mixed[..] {
        command.push_str(&format!(" --render-mixed {static_pages},{app_pages}"));
    }
    if options.before.is_some() {
        command.push_str(" --before BEFORE");
    }
    command.push_str(&format!(" --runs {}", settings.runs));
    Ok(render_report::markdown(
        &apps,
        statics.as_ref(),
        mixed.as_ref(),
        settings,
        machine,
        date,
        &command,
    ))
}

/// A site being served, and what a correct crawl of it fetches and lists.
#[derive(Debug)]
struct ServedCase {
    label: String,
    pages: u64,
    seed: String,
    fetched: Vec<String>,
    expected: std::collections::BTreeSet<String>,
}

/// The site that looks like the web, of `pages` pages: served gzip-compressed, then brotli
/// (or gzip) by the benchmark's server, then by nginx from files when nginx is there.
fn run_web_cases(
    binaries: &[Binary],
    pages: u64,
    options: &Options,
) -> anyhow::Result<Vec<CaseResult>> {
    let site = WebSite { pages };
    let fetched_paths = site.fetched_paths();
    let expected_paths = site.expected_paths();
    let served = |label: &str, url: &dyn Fn(&str) -> String| ServedCase {
        label: label.to_string(),
        pages,
        seed: url("/"),
        fetched: fetched_paths.iter().map(|path| url(path)).collect(),
        expected: expected_paths.iter().map(|path| url(path)).collect(),
    };
    let mut results = Vec::new();
    for (label, encodings) in [
        ("web, gzip", Encodings::Gzip),
        ("web, brotli", Encodings::BrotliOrGzip),
    ] {
        say(&format!("{label}: compressing {pages} pages"));
        let server = Server::start(CompressedWebSite::new(site, encodings), 2)?;
        let case = served(label, &|path| server.url(path));
        results.extend(run_case(binaries, &case, options)?);
    }
    match nginx::Nginx::binary() {
        Some(binary) => {
            say(&format!("web, nginx: writing {pages} pages"));
            let nginx = nginx::Nginx::start(&binary, site)?;
            let case = served("web, nginx gzip_static", &|path| nginx.url(path));
            results.extend(run_case(binaries, &case, options)?);
        }
        None => say("web, nginx: skipped, nginx is not installed"),
    }
    Ok(results)
}

/// Runs the fetch-only baseline and a crawl by each binary, in turn, `--runs` times (once
/// above 200,000 pages, without a baseline).
fn run_case(
    binaries: &[Binary],
    served: &ServedCase,
    options: &Options,
) -> anyhow::Result<Vec<CaseResult>> {
    let pages = served.pages;
    let runs = if pages > 200_000 {
        1
    } else {
        options.runs.max(1)
    };
    let mut results: Vec<CaseResult> = binaries
        .iter()
        .map(|binary| CaseResult {
            case: served.label.clone(),
            binary: binary.label.clone(),
            pages,
            fetched: served.fetched.len(),
            runs,
            crawl_wall: Vec::new(),
            baseline_wall: Vec::new(),
            baseline_cpu_seconds: Vec::new(),
            cpu_seconds: Vec::new(),
            peak_rss_mib: Vec::new(),
            mismatch: None,
        })
        .collect();
    for run in 0..runs {
        let name = format!("{} {pages} pages, run {}", served.label, run + 1);
        // Baseline and crawls alternate, each binary leading in turn, so that drift in the
        // machine's load hits all of them.
        if pages <= 200_000 {
            let fetched = baseline::fetch_all(&served.fetched, options.concurrency)?;
            say(&format!(
                "{name}: baseline {:.2} s, {:.2} CPU s",
                fetched.wall.as_secs_f64(),
                fetched.cpu_seconds
            ));
            for result in &mut results {
                result.baseline_wall.push(fetched.wall);
                result.baseline_cpu_seconds.push(fetched.cpu_seconds);
            }
        }
        for turn in 0..binaries.len() {
            let index = (run + turn) % binaries.len();
            let binary = &binaries[index];
            let measure =
                crawl_run::crawl(&binary.path, &served.seed, options.concurrency, &[], false)?;
            // The generated sites have no scripts: a browser here would be a bug, and its
            // cost would be missing from the figures below.
            anyhow::ensure!(
                !measure.summary.browser_ran(),
                "the crawl of {name} used a browser: {:?}",
                measure.summary
            );
            say(&format!(
                "{name}, {}: crawl {:.2} s, {:.2} CPU s, {:.1} MiB",
                binary.label,
                measure.wall.as_secs_f64(),
                measure.summary.cpu_seconds,
                measure.summary.peak_rss_mib
            ));
            let result = &mut results[index];
            if result.mismatch.is_none() {
                result.mismatch = report::listing_mismatch(&served.expected, &measure.listed);
            }
            result.crawl_wall.push(measure.wall);
            result.cpu_seconds.push(measure.summary.cpu_seconds);
            result.peak_rss_mib.push(measure.summary.peak_rss_mib);
        }
    }
    for result in &results {
        say(&result.row());
    }
    Ok(results)
}

#[cfg(test)]
mod tests {
    use super::with_sections_kept;

    #[test]
    fn a_run_of_the_main_cases_keeps_the_sections_below_their_table() {
        let existing = "# sitemapper benchmark\n\nold table\n\n## Fleets\n\nfleet figures\n";
        assert_eq!(
            with_sections_kept("# sitemapper benchmark\n\nnew table\n", existing),
            "# sitemapper benchmark\n\nnew table\n\n## Fleets\n\nfleet figures\n"
        );
        assert_eq!(
            with_sections_kept("new\n", "# sitemapper benchmark\n\nold table\n"),
            "new\n"
        );
        assert_eq!(with_sections_kept("new\n", ""), "new\n");
    }
}
