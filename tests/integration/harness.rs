//! Running the binary and reading what it wrote, so that tests read like a spec.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The result of one `sitemapper` invocation.
#[derive(Debug)]
pub(crate) struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    pub(crate) fn assert_success(&self) -> &Run {
        assert_eq!(
            self.code, 0,
            "sitemapper failed.\nstdout:\n{}\nstderr:\n{}",
            self.stdout, self.stderr
        );
        self
    }
}

impl From<std::process::Output> for Run {
    fn from(output: std::process::Output) -> Run {
        Run {
            code: output.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        }
    }
}

/// A file of the repository, by its path from the repository's root.
pub(crate) fn repository_file(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

/// `sitemapper ARGS` with a clean environment for the network (no proxies) and logging.
pub(crate) fn sitemapper_command(args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_sitemapper"));
    command
        .args(args)
        .env_remove("RUST_LOG")
        .env_remove("HTTP_PROXY")
        .env_remove("http_proxy")
        .env_remove("HTTPS_PROXY")
        .env_remove("https_proxy")
        .env_remove("ALL_PROXY")
        .env_remove("all_proxy")
        .env("NO_COLOR", "1");
    // Options set in the test runner's environment must not change what a test asserts.
    for (name, _) in std::env::vars_os() {
        if name.to_str().is_some_and(|name| {
            name.starts_with("SITEMAPPER_") && name != "SITEMAPPER_TEST_PUBLIC_ADDRESSES"
        }) {
            command.env_remove(name);
        }
    }
    // A test's traffic stays on loopback: an audit checks the links to other sites (which a
    // fixture page may name, as `https://elsewhere.example/`) only where a test asks for it
    // with `--check-external`.
    command.env("SITEMAPPER_CHECK_EXTERNAL", "false");
    command
}

/// Runs `sitemapper ARGS` (see [`sitemapper_command`]).
pub(crate) fn sitemapper(args: &[&str]) -> Run {
    sitemapper_command(args)
        .output()
        .expect("run sitemapper")
        .into()
}

/// Crawls `seed` into `out` with fast-failing retries, plus `extra` flags.
pub(crate) fn crawl(seed: &str, out: &Path, extra: &[&str]) -> Run {
    let out = out.to_str().expect("utf-8 path");
    let mut args = vec!["crawl", seed, "--out", out, "--retries", "0"];
    args.extend_from_slice(extra);
    sitemapper(&args)
}

/// The text of a sitemap file, gunzipped when it ends in `.gz`.
pub(crate) fn read_sitemap(path: &Path) -> String {
    let bytes =
        std::fs::read(path).unwrap_or_else(|error| panic!("read {}: {error}", path.display()));
    if path.extension().is_some_and(|extension| extension == "gz") {
        let mut text = String::new();
        flate2::read::GzDecoder::new(bytes.as_slice())
            .read_to_string(&mut text)
            .expect("gunzip");
        text
    } else {
        String::from_utf8(bytes).expect("utf-8 sitemap")
    }
}

/// The `<loc>` values of an XML sitemap or index, in order, unescaped.
pub(crate) fn locs(xml: &str) -> Vec<String> {
    xml.split("<loc>")
        .skip(1)
        .map(|rest| rest.split("</loc>").next().unwrap_or_default())
        .map(|loc| {
            loc.replace("&amp;", "&")
                .replace("&apos;", "'")
                .replace("&quot;", "\"")
                .replace("&lt;", "<")
                .replace("&gt;", ">")
        })
        .collect()
}

/// Every URL listed under `out`: from `sitemap.xml`, following the index into its children.
pub(crate) fn listed_urls(out: &Path) -> BTreeSet<String> {
    let root = read_sitemap(&out.join("sitemap.xml"));
    if root.contains("<sitemapindex") {
        locs(&root)
            .iter()
            .flat_map(|child| {
                let name = child.rsplit('/').next().unwrap_or_default();
                locs(&read_sitemap(&out.join(name)))
            })
            .collect()
    } else {
        locs(&root).into_iter().collect()
    }
}

/// `loc -> lastmod` of the sitemap in `out` (a single `sitemap.xml`, not an index).
pub(crate) fn lastmods(out: &Path) -> BTreeMap<String, Option<String>> {
    let xml = read_sitemap(&out.join("sitemap.xml"));
    xml.split("<url>")
        .skip(1)
        .map(|entry| {
            let field = |name: &str| {
                entry
                    .split(&format!("<{name}>"))
                    .nth(1)
                    .and_then(|rest| rest.split(&format!("</{name}>")).next())
                    .map(str::to_string)
            };
            (field("loc").unwrap(), field("lastmod"))
        })
        .collect()
}

/// `Peak memory: 12.3 MiB.` from the summary.
pub(crate) fn peak_memory_mib(stderr: &str) -> f64 {
    stderr
        .lines()
        .find_map(|line| line.strip_prefix("Peak memory: "))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|number| number.parse().ok())
        .unwrap_or_else(|| panic!("no peak memory in the summary:\n{stderr}"))
}

/// The sitemap files in `out` (sitemap.xml and its children), sorted.
pub(crate) fn sitemap_files(out: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(out)
        .expect("read out dir")
        .map(|entry| entry.expect("dir entry").path())
        .filter(|path| {
            path.file_name()
                .and_then(|name| name.to_str())
                .is_some_and(|name| {
                    name.starts_with("sitemap")
                        && (name.ends_with(".xml") || name.ends_with(".xml.gz"))
                })
        })
        .collect();
    files.sort();
    files
}

/// Crawls like [`crawl`], keeping the crawl database, and opens it.
pub(crate) fn crawl_recorded(
    seed: &str,
    out: &Path,
    extra: &[&str],
) -> (Run, sitemapper_store::Store) {
    let state = out.join("crawl.db");
    let mut args = vec!["--state", state.to_str().expect("utf-8 path")];
    args.extend_from_slice(extra);
    let run = crawl(seed, out, &args);
    let store = sitemapper_store::Store::open(&state).expect("open the crawl database");
    (run, store)
}

/// The verdict recorded for `url`, and the code of its reason as the database keeps it.
pub(crate) fn verdict_of(
    store: &sitemapper_store::Store,
    url: &str,
) -> (sitemapper_store::Verdict, Option<String>) {
    let page = store
        .page(url)
        .expect("read the crawl database")
        .unwrap_or_else(|| panic!("{url} is not recorded"));
    (page.verdict, page.reason.map(|reason| reason.to_string()))
}

/// An output directory holding a sitemap from an earlier run.
pub(crate) fn previous_output() -> (tempfile::TempDir, Vec<u8>) {
    let out = tempfile::tempdir().unwrap();
    let previous = b"<?xml version=\"1.0\"?><!-- the previous sitemap -->".to_vec();
    std::fs::write(out.path().join("sitemap.xml"), &previous).unwrap();
    (out, previous)
}

/// The `Warning:` lines of `stderr` but the one a crawl of a fixture site's own URLs gets:
/// they are on 127.0.0.1, which search engines cannot reach (see `access.rs`).
pub(crate) fn other_warnings(stderr: &str) -> Vec<&str> {
    stderr
        .lines()
        .filter(|line| line.starts_with("Warning: "))
        .filter(|line| !line.contains(", which search engines cannot reach; "))
        .collect()
}

/// Asserts that stderr holds one line, and that it is an error.
pub(crate) fn assert_one_line_error(stderr: &str) {
    let lines: Vec<&str> = stderr
        .lines()
        .filter(|line| !line.trim().is_empty())
        .collect();
    assert_eq!(lines.len(), 1, "expected one error line, got:\n{stderr}");
    assert!(lines[0].starts_with("error: "), "{stderr}");
}

/// The browser the tests render and measure with: Debian's chromium (installed by .ci/run).
/// Missing, the browser tests are skipped with a message, but not under CI.
pub(crate) fn chromium() -> Option<PathBuf> {
    let found = Command::new("sh")
        .args(["-c", "command -v chromium"])
        .output()
        .ok()
        .filter(|output| output.status.success())
        .map(|output| PathBuf::from(String::from_utf8_lossy(&output.stdout).trim()));
    if found.is_none() {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "chromium is required under CI (.ci/run installs it)"
        );
        eprintln!("skipping a browser test: chromium is not installed");
    }
    found
}

/// Crawls `server` from its root with the default `--render auto` and `browser`: the output
/// directory, the run and its JSON summary.
pub(crate) fn crawl_rendered(
    server: &crate::fixture::Server,
    browser: &Path,
) -> (tempfile::TempDir, Run, serde_json::Value) {
    let out = tempfile::tempdir().expect("tempdir");
    let browser = browser.to_str().expect("utf-8");
    let run = crawl(
        &server.url("/"),
        out.path(),
        &["--chrome", browser, "--summary", "json"],
    );
    let summary = summary_json(&run);
    (out, run, summary)
}

/// The summary a successful `--summary json` run printed on stdout.
pub(crate) fn summary_json(run: &Run) -> serde_json::Value {
    run.assert_success();
    serde_json::from_str(run.stdout.trim())
        .unwrap_or_else(|error| panic!("{error}: {}\n{}", run.stdout, run.stderr))
}

/// splitmix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number generators",
/// OOPSLA 2014): a small deterministic stream, the same for a seed on every machine.
pub(crate) struct Draws(pub(crate) u64);

impl Draws {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut mixed = self.0;
        mixed = (mixed ^ (mixed >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        mixed = (mixed ^ (mixed >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        mixed ^ (mixed >> 31)
    }

    /// A number in `low..high`.
    pub(crate) fn between(&mut self, low: usize, high: usize) -> usize {
        low + usize::try_from(self.next() % u64::try_from(high - low).expect("fits")).expect("fits")
    }
}
