//! Chaos: a site on raw TCP that stalls, resets, cuts bodies short, loops its redirects and lies
//! in its headers, and changes between nightly runs over one crawl database; after every run
//! the sitemap must list exactly what the responses actually served justify.
//!
//! Every choice is drawn from [`SEED`] and the run, path and attempt it is for, so the same
//! seed serves the same site the same way (given the same requests); a failure message names
//! the seed, the run, the URL and every response served for it. The oracle never
//! models the crawler's retries: the server records what it did with every request it received,
//! and the last request for a URL in a run decides what that URL is.

mod misbehaviour;
mod oracle;
mod server;
mod site;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use jiff::Timestamp;
use sitemapper_store::{Store, StoreError};

use crate::harness::{Run, lastmods, listed_urls, peak_memory_mib, sitemap_files, sitemapper};
use crate::schema::assert_all_valid;

use misbehaviour::Behaviour;
use oracle::{Expected, LastmodHistory, changes};
use server::{ChaosServer, Served};

/// The seed of every random choice. Another value explores another site and other failures.
const SEED: u64 = 0x5EED_C4A0_2024_0001;
/// Nightly runs over the same crawl database and output directory.
const RUNS: u64 = 5;
/// In this run the seed URL resets every connection: the run must fail (exit code 1) and
/// leave the previous sitemap as it was.
const SEED_FAILS_IN_RUN: u64 = 2;

/// `--retries`: one retry shows whether a failure is retried, and keeps stalls cheap.
const RETRIES: u64 = 1;
/// Short deadlines keep the stalls cheap; local answers take milliseconds, so a response the
/// server sent in full is never given up on. The request budget stops a runaway crawl.
///
/// The oracle maps the site as served, each night on its own: a URL that fails is not listed,
/// whatever an earlier night listed (`--keep-failed 0`), and a night that loses most of the
/// sitemap still publishes (`--max-shrink 100`). What a bad night keeps is
/// `bad_night::five_nights_of_random_failures_never_drop_a_healthy_page_and_report_only_real_changes`'s.
const CRAWL_FLAGS: &[&str] = &[
    "--timeout",
    "1.5",
    "--connect-timeout",
    "1",
    "--max-requests",
    "500",
    "--keep-failed",
    "0",
    "--max-shrink",
    "100",
];
/// Requests a run may send before the test calls it runaway (retries included).
const MAX_REQUESTS_PER_RUN: usize = 500;
/// The summary's peak memory must stay under this; a crawl of this site needs a fraction.
const MEMORY_BOUND_MIB: f64 = 300.0;

/// One night's run and everything a failure message needs to reproduce it.
#[derive(Debug)]
struct Night<'a> {
    run: u64,
    server: &'a ChaosServer,
    served: Vec<Served>,
    crawl: Run,
}

impl Night<'_> {
    /// Every request the server received for `path` in this run, in order.
    fn history(&self, path: &str) -> String {
        let lines: Vec<String> = self
            .served
            .iter()
            .filter(|served| served.path == path)
            .map(|served| format!("      {served}"))
            .collect();
        if lines.is_empty() {
            "      (never requested)".to_string()
        } else {
            lines.join("\n")
        }
    }

    fn fail(&self, problems: &[String]) -> ! {
        panic!(
            "chaos seed {SEED:#x}, run {} of {RUNS}: {} problem(s):\n{}\n--- sitemapper exited with {}; stderr:\n{}",
            self.run,
            problems.len(),
            problems.join("\n"),
            self.crawl.code,
            self.crawl.stderr
        );
    }

    /// A problem with `path`, with its served history.
    fn problem(&self, path: &str, what: &str) -> String {
        format!(
            "  {} ({path}): {what}\n    served:\n{}",
            self.server.url(path),
            self.history(path)
        )
    }

    fn assert_no_panic(&self) {
        if self.crawl.stderr.contains("panicked") {
            self.fail(&["  the crawler panicked".to_string()]);
        }
    }

    /// The crawler requested every reachable URL, and nothing else but robots.txt.
    fn check_requests(&self, expected: &Expected) -> Vec<String> {
        let requested: BTreeSet<&str> = self
            .served
            .iter()
            .map(|served| served.path.as_str())
            .collect();
        let mut problems = Vec::new();
        if self.served.len() >= MAX_REQUESTS_PER_RUN {
            problems.push(format!("  runaway: {} requests", self.served.len()));
        }
        for path in &expected.reachable {
            if !requested.contains(path.as_str()) {
                problems.push(self.problem(path, "reachable, but never requested"));
            }
        }
        for path in requested {
            if path != "/robots.txt" && !expected.reachable.contains(path) {
                problems.push(
                    self.problem(path, "requested, but no served link or redirect led to it"),
                );
            }
        }
        problems
    }

    /// Each URL is requested once, and again only after a failure the crawler retries, up to
    /// `--retries` times.
    fn check_retries(&self) -> Vec<String> {
        let mut behaviours: BTreeMap<&str, Vec<Behaviour>> = BTreeMap::new();
        for served in &self.served {
            behaviours
                .entry(served.path.as_str())
                .or_default()
                .push(served.behaviour);
        }
        let attempts = usize::try_from(RETRIES).unwrap() + 1;
        let mut problems = Vec::new();
        for (path, behaviours) in behaviours {
            let Some((last, earlier)) = behaviours.split_last() else {
                continue;
            };
            if behaviours.len() > attempts {
                problems.push(self.problem(path, "requested more often than 1 + --retries"));
            }
            if let Some(final_answer) = earlier.iter().find(|behaviour| !behaviour.is_retried()) {
                let what = format!("requested again after {final_answer:?}, which is not retried");
                problems.push(self.problem(path, &what));
            }
            if last.is_retried() && behaviours.len() < attempts {
                let what = format!("not retried after {last:?}");
                problems.push(self.problem(path, &what));
            }
        }
        problems
    }

    /// The sitemap lists exactly the expected URLs, each with the lastmod the served responses
    /// give it over the runs.
    fn check_listing(&self, expected: &Expected, out: &Path) -> Vec<String> {
        let listed = lastmods(out);
        let wanted: BTreeMap<String, Option<String>> = expected
            .listed
            .iter()
            .map(|(path, lastmod)| (self.server.url(path), Some(lastmod.clone())))
            .collect();
        let urls: BTreeSet<&String> = listed.keys().chain(wanted.keys()).collect();
        let path_of = |url: &str| {
            url.strip_prefix(&self.server.url(""))
                .unwrap_or(url)
                .to_string()
        };
        urls.into_iter()
            .filter(|url| listed.get(*url) != wanted.get(*url))
            .map(|url| {
                let what = format!(
                    "{}, expected {}",
                    describe_listing(listed.get(url)),
                    describe_listing(wanted.get(url))
                );
                self.problem(&path_of(url), &what)
            })
            .collect()
    }
}

fn describe_listing(entry: Option<&Option<String>>) -> String {
    match entry {
        None => "not listed".to_string(),
        Some(None) => "listed without lastmod".to_string(),
        Some(Some(lastmod)) => format!("listed with lastmod {lastmod}"),
    }
}

/// What a successful run published, to compare the next one with.
#[derive(Debug)]
struct Published {
    sitemap: Vec<u8>,
    changes: Vec<u8>,
    listed: BTreeMap<String, String>,
}

/// The files of one nightly job: the same output directory, database and report every night.
#[derive(Debug)]
struct Job {
    out: PathBuf,
    state: PathBuf,
    changes: PathBuf,
}

impl Job {
    fn crawl(&self, server: &ChaosServer) -> Run {
        let mut args = vec![
            "crawl".to_string(),
            server.url("/"),
            "--out".to_string(),
            path_text(&self.out),
            "--state".to_string(),
            path_text(&self.state),
            "--report-changes".to_string(),
            path_text(&self.changes),
        ];
        args.extend(["--retries".to_string(), RETRIES.to_string()]);
        args.extend(CRAWL_FLAGS.iter().map(|flag| flag.to_string()));
        sitemapper(&args.iter().map(String::as_str).collect::<Vec<_>>())
    }

    /// The lastmod the crawl database holds for each path the last run recorded.
    fn recorded_lastmods(&self, server: &ChaosServer) -> HashMap<String, Option<Timestamp>> {
        let store = Store::open(&self.state).unwrap();
        let Some(run) = store.latest_run().unwrap() else {
            return HashMap::new();
        };
        let origin = server.url("");
        let mut lastmods = HashMap::new();
        store
            .for_each_page(run, |page, lastmod| -> Result<(), StoreError> {
                let path = page.url.strip_prefix(&origin).unwrap_or(&page.url);
                lastmods.insert(path.to_string(), lastmod);
                Ok(())
            })
            .unwrap();
        lastmods
    }

    fn published(&self, listed: BTreeMap<String, String>) -> Published {
        Published {
            sitemap: std::fs::read(self.out.join("sitemap.xml")).unwrap(),
            changes: std::fs::read(&self.changes).unwrap(),
            listed,
        }
    }
}

fn path_text(path: &Path) -> String {
    path.to_str().expect("utf-8 path").to_string()
}

/// The failing run: exit code 1, and the previous sitemap and report left byte for byte.
/// `problems`: those found already.
fn check_refused(night: &Night<'_>, job: &Job, previous: &Published, mut problems: Vec<String>) {
    problems.extend(night.check_retries());
    if night.crawl.code != 1 {
        problems.push(format!(
            "  the seed failed, yet the exit code is {}",
            night.crawl.code
        ));
    }
    if std::fs::read(job.out.join("sitemap.xml")).unwrap() != previous.sitemap {
        problems.push("  the previous sitemap.xml was not left as it was".to_string());
    }
    if std::fs::read(&job.changes).unwrap() != previous.changes {
        problems.push("  the previous change report was not left as it was".to_string());
    }
    if !problems.is_empty() {
        night.fail(&problems);
    }
}

/// A successful run: exit code 0, bounded memory, the requests, the listing, the files and
/// the change report all as the served responses say. `problems`: those found already.
fn check_published(
    night: &Night<'_>,
    job: &Job,
    history: &LastmodHistory,
    previous: Option<&Published>,
    mut problems: Vec<String>,
) -> Published {
    if night.crawl.code != 0 {
        night.fail(&[format!("  exit code {}, expected 0", night.crawl.code)]);
    }
    if !night.crawl.stderr.contains("Peak memory: ") {
        night.fail(&["  the summary has no peak memory".to_string()]);
    }
    let peak = peak_memory_mib(&night.crawl.stderr);
    if peak >= MEMORY_BOUND_MIB {
        night.fail(&[format!(
            "  peak memory {peak} MiB, bound {MEMORY_BOUND_MIB} MiB"
        )]);
    }
    let expected = Expected::from_served(&night.served, history);
    problems.extend(night.check_requests(&expected));
    problems.extend(night.check_retries());
    problems.extend(night.check_listing(&expected, &job.out));
    problems.extend(check_files(job));
    problems.extend(check_change_report(night, job, &expected, previous));
    if !problems.is_empty() {
        night.fail(&problems);
    }
    assert_valid_sitemaps(night, job);
    job.published(expected.listed)
}

/// The files validate against the official schemas (with xmllint; skipped locally without it).
fn assert_valid_sitemaps(night: &Night<'_>, job: &Job) {
    if let Err(panic) = std::panic::catch_unwind(|| assert_all_valid(&job.out)) {
        let message = panic
            .downcast_ref::<String>()
            .cloned()
            .unwrap_or_else(|| "invalid".to_string());
        night.fail(&[format!("  the sitemap does not validate: {message}")]);
    }
}

/// One `sitemap.xml`, a urlset, whose URLs are the ones the harness reads too.
fn check_files(job: &Job) -> Vec<String> {
    let mut problems = Vec::new();
    let files = sitemap_files(&job.out);
    if files != [job.out.join("sitemap.xml")] {
        problems.push(format!(
            "  sitemap files {files:?}, expected sitemap.xml alone"
        ));
    }
    let by_entry: BTreeSet<String> = lastmods(&job.out).into_keys().collect();
    if listed_urls(&job.out) != by_entry {
        problems.push("  the sitemap's <loc>s and <url> entries disagree".to_string());
    }
    problems
}

/// `--report-changes`: added, removed and changed against the previous successful run.
fn check_change_report(
    night: &Night<'_>,
    job: &Job,
    expected: &Expected,
    previous: Option<&Published>,
) -> Vec<String> {
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&job.changes).unwrap()).unwrap();
    let before = previous.map(|previous| &previous.listed);
    changes(before, &expected.listed)
        .into_iter()
        .filter_map(|(field, paths)| {
            let mut wanted: Vec<String> = paths.iter().map(|path| night.server.url(path)).collect();
            wanted.sort();
            let reported: Vec<String> = report[field]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|url| url.as_str().map(str::to_string))
                .collect();
            (reported != wanted)
                .then(|| format!("  change report {field}: {reported:?}, expected {wanted:?}"))
        })
        .collect()
}

#[test]
fn a_misbehaving_site_that_changes_every_night_is_mapped_as_served() {
    let server = ChaosServer::start();
    let directory = tempfile::tempdir().unwrap();
    let job = Job {
        out: directory.path().join("out"),
        state: directory.path().join("crawl.db"),
        changes: directory.path().join("changes.json"),
    };
    std::fs::create_dir(&job.out).unwrap();
    let mut previous: Option<Published> = None;
    let mut history = LastmodHistory::default();
    for run in 0..RUNS {
        server.begin_run(run);
        let started = Timestamp::now();
        let crawl = job.crawl(&server);
        let finished = Timestamp::now();
        let night = Night {
            run,
            server: &server,
            served: server.finish_run(),
            crawl,
        };
        night.assert_no_panic();
        history.record_run(&night.served, |path| server.url(path));
        let problems: Vec<String> = history
            .settle(&job.recorded_lastmods(&server), started, finished)
            .iter()
            .map(|(path, what)| night.problem(path, what))
            .collect();
        if run == SEED_FAILS_IN_RUN {
            let previous = previous.as_ref().expect("a run before the failing one");
            check_refused(&night, &job, previous, problems);
        } else {
            let published = check_published(&night, &job, &history, previous.as_ref(), problems);
            previous = Some(published);
        }
    }
}
