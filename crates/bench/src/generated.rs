//! The generated-sites benchmark: the fixture sites of `tests/fixtures/generated/`, each built
//! by its generator (mdBook, MkDocs, VitePress, Hugo, Jekyll, Next.js, Docusaurus, ...; see
//! its README), each served by nginx at the root of an origin of its own and crawled from `/`
//! with `--render auto` and `--render never` in turn, the origin it was built for mapped to
//! the server's (`--map-host`). Whether each mode lists exactly what it should (`auto`: every
//! page a visitor reaches, expected.txt; `never`: what the HTML as served reaches, served.txt
//! where a script draws links, else expected.txt too), and whether `auto` keeps within twice
//! `never`'s time plus 6 s.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::Context;

use crate::binary::{Binary, say};
use crate::docs::{BinaryRuns, DocsSettings, ModeRuns, count_html_files, crawl_modes};
use crate::docs_report::within_bound;
use crate::nginx::Nginx;

/// `auto`'s median wall time may be at most this many times `never`'s ...
const BOUND_FACTOR: f64 = 2.0;

/// ... plus this many seconds: a browser's start and a few pages rendered.
const BOUND_SECONDS: f64 = 6.0;

/// One fixture site.
#[derive(Debug, Clone)]
pub(crate) struct GeneratedSite {
    /// Its directory under `tests/fixtures/generated/`.
    pub name: String,
    /// The origin it was built for (its canonicals and sitemap name it), if any.
    pub origin: Option<String>,
    /// The paths `auto` lists (expected.txt).
    pub expected: BTreeSet<String>,
    /// The paths `never` lists (served.txt, else expected.txt).
    pub served: BTreeSet<String>,
    /// HTML files of its output.
    pub html_files: usize,
}

/// One site's runs by each binary.
#[derive(Debug, Clone)]
pub(crate) struct GeneratedResult {
    pub site: GeneratedSite,
    pub runs: Vec<BinaryRuns>,
}

/// Crawls every fixture site under `directory` with each of `binaries`; `None`, said why,
/// when nginx is missing.
pub(crate) fn run(
    binaries: &[Binary],
    settings: &DocsSettings,
    directory: &Path,
) -> anyhow::Result<Option<Vec<GeneratedResult>>> {
    let Some(nginx_binary) = Nginx::binary() else {
        say("generated: skipped, nginx is not installed (Debian: apt-get install nginx-light)");
        return Ok(None);
    };
    let mut results = Vec::new();
    for site in fixtures(directory)? {
        let nginx = Nginx::serve(&nginx_binary, &directory.join(&site.name).join("site"))?;
        let seed = nginx.url("/");
        let extra: Vec<String> = site
            .origin
            .iter()
            .flat_map(|origin| {
                let served = seed.trim_end_matches('/');
                ["--map-host".to_string(), format!("{served}={origin}")]
            })
            .collect();
        say(&format!("generated, {}: serving at {seed}", site.name));
        let what = format!("generated, {}", site.name);
        let runs = crawl_modes(binaries, settings, &what, &seed, &extra)?;
        results.push(GeneratedResult { site, runs });
    }
    Ok(Some(results))
}

/// The fixture sites under `directory`: each directory with a `site/` and an `expected.txt`,
/// in name order, with the origin `build.sh` built it for.
fn fixtures(directory: &Path) -> anyhow::Result<Vec<GeneratedSite>> {
    let script = std::fs::read_to_string(directory.join("build.sh"))
        .with_context(|| format!("read {}", directory.join("build.sh").display()))?;
    let mut names: Vec<PathBuf> = std::fs::read_dir(directory)
        .with_context(|| format!("read {}", directory.display()))?
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| path.join("site").is_dir() && path.join("expected.txt").is_file())
        .collect();
    names.sort();
    let mut sites = Vec::new();
    for path in names {
        let name = path
            .file_name()
            .and_then(|name| name.to_str())
            .context("a fixture's name")?
            .to_string();
        let expected = paths(&path.join("expected.txt"))?;
        let served = match path.join("served.txt") {
            served if served.is_file() => paths(&served)?,
            _ => expected.clone(),
        };
        sites.push(GeneratedSite {
            origin: origin_of(&script, &name),
            html_files: count_html_files(&path.join("site"))?,
            name,
            expected,
            served,
        });
    }
    Ok(sites)
}

/// The paths of a list, one a line.
fn paths(file: &Path) -> anyhow::Result<BTreeSet<String>> {
    let text = std::fs::read_to_string(file).with_context(|| format!("read {}", file.display()))?;
    Ok(text
        .lines()
        .filter(|line| !line.is_empty())
        .map(str::to_string)
        .collect())
}

/// The origin build.sh's `ORIGIN` table gives `name` (`[name]="https://host/"`), without its
/// trailing slash; none when it is empty or absent.
fn origin_of(script: &str, name: &str) -> Option<String> {
    let key = format!("[{name}]=\"");
    let table = &script[script.find("declare -A ORIGIN=(")?..];
    let table = &table[..table.find("\n)")?];
    let line = table
        .lines()
        .find(|line| line.trim_start().starts_with(&key))?;
    let value = line.trim_start()[key.len()..].split('"').next()?;
    let origin = value.trim_end_matches('/');
    (!origin.is_empty()).then(|| origin.to_string())
}

/// The path (and query) of a URL listed.
fn path_of(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(url) => match url.query() {
            Some(query) => format!("{}?{query}", url.path()),
            None => url.path().to_string(),
        },
        Err(_) => url.to_string(),
    }
}

/// Whether every finished run listed exactly `expected`; the first difference said.
fn exactness(runs: &ModeRuns, expected: &BTreeSet<String>) -> String {
    if runs.listed.is_empty() {
        return "unknown: no run finished".to_string();
    }
    for listed in &runs.listed {
        let listed: BTreeSet<String> = listed.iter().map(|url| path_of(url)).collect();
        if &listed != expected {
            let missing: Vec<&String> = expected.difference(&listed).take(3).collect();
            let extra: Vec<&String> = listed.difference(expected).take(3).collect();
            return format!(
                "NOT exact: {} of {}, missing {missing:?}, extra {extra:?}",
                listed.len(),
                expected.len()
            );
        }
    }
    format!("exact ({})", expected.len())
}

/// The section for BENCHMARKS.md.
pub(crate) fn markdown(
    results: &[GeneratedResult],
    settings: &DocsSettings,
    machine: &str,
    date: &str,
    command: &str,
) -> String {
    let mut text = String::new();
    let _ = writeln!(
        text,
        "## Generated sites: the fixtures, as served by nginx\n"
    );
    let _ = writeln!(
        text,
        "Measured {date} on: {machine}. nginx, crawler and browser (Debian's Chromium, \
         headless) share the machine. Concurrency {}, {} browser tabs. Medians of {} runs, the \
         range in brackets; the modes (and binaries) of a site ran in turn, each taking the \
         lead in turn. Each site of `tests/fixtures/generated/` (its README says what each \
         exercises) is served as built by nginx at the root of its own port, and crawled from \
         `/` with the origin it was built for mapped to the server's (`--map-host`). \
         `auto` should list every page a visitor reaches (expected.txt), `never` what the HTML \
         as served reaches (served.txt where a script draws links, else the same), within \
         {BOUND_FACTOR:.0} × `never` + {BOUND_SECONDS:.0} s. A crawl running after {:.0} s is \
         stopped.\n",
        settings.render.concurrency,
        settings.render.tabs,
        settings.render.runs.max(1),
        settings.limit.as_secs_f64()
    );
    let _ = writeln!(
        text,
        "| site | HTML files | binary | `never`: wall (s) | `never`: listed | `auto`: wall (s) | `auto`: listed | `auto`: pages rendered | `auto`: browser peak (MiB) | auto ≤ {BOUND_FACTOR:.0} × never + {BOUND_SECONDS:.0} s |"
    );
    let _ = writeln!(
        text,
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
    );
    for result in results {
        for runs in &result.runs {
            let _ = writeln!(
                text,
                "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                result.site.name,
                result.site.html_files,
                runs.binary,
                runs.never.wall(),
                exactness(&runs.never, &result.site.served),
                runs.auto.wall(),
                exactness(&runs.auto, &result.site.expected),
                runs.auto.rendered(),
                runs.auto.browser_peak(),
                within_bound(&runs.auto, &runs.never, BOUND_FACTOR, BOUND_SECONDS)
            );
        }
    }
    let _ = writeln!(
        text,
        "\nTo measure again: `cargo build --release --workspace && target/release/{command}`."
    );
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_origin_a_site_was_built_for_is_read_from_build_sh() {
        let script = "x\ndeclare -A ORIGIN=(\n    [mdbook]=\"\"\n    [hugo]=\"https://journal.example.com/\"\n    [hugo-menu]=\"https://pantry.example.com/\"\n)\n[other]=\"https://no.example.com\"\n";
        assert_eq!(origin_of(script, "mdbook"), None);
        assert_eq!(
            origin_of(script, "hugo").as_deref(),
            Some("https://journal.example.com")
        );
        assert_eq!(
            origin_of(script, "hugo-menu").as_deref(),
            Some("https://pantry.example.com")
        );
        assert_eq!(origin_of(script, "other"), None, "outside the table");
    }

    #[test]
    fn listings_are_compared_by_path() {
        let expected: BTreeSet<String> = ["/", "/a/"].map(String::from).into();
        let runs = |urls: &[&str]| ModeRuns {
            listed: vec![urls.iter().map(|url| url.to_string()).collect()],
            ..ModeRuns::default()
        };
        assert_eq!(
            exactness(&runs(&["https://e.com/", "https://e.com/a/"]), &expected),
            "exact (2)"
        );
        assert_eq!(
            exactness(&runs(&["https://e.com/", "https://e.com/b?x=1"]), &expected),
            "NOT exact: 2 of 2, missing [\"/a/\"], extra [\"/b?x=1\"]"
        );
    }
}
