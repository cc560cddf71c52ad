//! The wide site (`--wide`): the site that looks like the web at a size where one level of the
//! crawl holds most of the site (every page links to about 70 pages anywhere in it, so the
//! third level of 100,000 pages is over 90,000 URLs queued at once). It measures the peak
//! memory of a plain crawl and of one with `--state` against the bounds of docs/design.md
//! (Memory), and checks every URL's depth and referrer in the crawl database against the
//! site's own breadth-first walk: depth the shortest click path, referrer the parent one level
//! nearer the seed that comes first in URL order.
//!
//! Up to [`PRECOMPRESSED_UP_TO`] pages the bodies are compressed ahead, as for the other web
//! cases; beyond, each is rendered and compressed as it is asked for (gzip at level 1), which
//! costs the server CPU but no memory.

use std::collections::HashMap;
use std::path::Path;

use anyhow::Context;

use crate::binary::{Binary, say};
use crate::crawl_run::{CrawlMeasure, crawl};
use crate::report::{listing_mismatch, runs_sentence, spread};
use crate::server::Server;
use crate::web::WebSite;
use crate::web_served::{CompressedWebSite, Encodings};

/// Sites up to this many pages are served from bodies compressed ahead.
pub(crate) const PRECOMPRESSED_UP_TO: u64 = 200_000;

/// Sites up to this many pages have their depths checked: the walk renders every page once.
const DEPTHS_CHECKED_UP_TO: u64 = 200_000;

/// The memory bound of a crawl of `pages` pages, in MB (10⁶ bytes): a plain crawl of 100,000
/// pages 100 MB, of more (up to a million) 250 MB, one with `--state` 150 MB.
fn bound_mb(pages: u64, state: bool) -> f64 {
    match (state, pages <= 100_000) {
        (true, _) => 150.0,
        (false, true) => 100.0,
        (false, false) => 250.0,
    }
}

/// Every URL a crawl fetches (path and query) with its breadth-first depth and referrer (the
/// parent one level nearer that comes first in URL order; none for the seed).
pub(crate) fn breadth_first(site: &WebSite) -> HashMap<String, (u32, Option<String>)> {
    let mut walked: HashMap<String, (u32, Option<String>)> = HashMap::new();
    walked.insert("/".to_string(), (0, None));
    let mut level = vec!["/".to_string()];
    let mut depth = 0;
    while !level.is_empty() {
        let mut next = Vec::new();
        for page in &level {
            let Some(document) = site.document(page.split('?').next().unwrap_or_default()) else {
                continue;
            };
            for target in site.links_of(page, &site.render(document)) {
                match walked.get_mut(&target) {
                    None => {
                        walked.insert(target.clone(), (depth + 1, Some(page.clone())));
                        next.push(target);
                    }
                    Some((found, Some(referrer))) if *found == depth + 1 && page < referrer => {
                        *referrer = page.clone();
                    }
                    Some(_) => {}
                }
            }
        }
        level = next;
        depth += 1;
    }
    walked
}

/// How the depths and referrers a crawl recorded differ from the walk's, with a few examples,
/// or `None` when every one is the same. `prefix` is what the crawl's URLs have before the
/// path.
fn depth_mismatch(
    database: &Path,
    prefix: &str,
    walked: &HashMap<String, (u32, Option<String>)>,
) -> anyhow::Result<Option<String>> {
    let connection = rusqlite::Connection::open(database).context("open the crawl database")?;
    let mut select = connection.prepare("SELECT url, depth, referrer FROM pages")?;
    let rows = select.query_map([], |row| {
        Ok((
            row.get::<_, String>(0)?,
            row.get::<_, u32>(1)?,
            row.get::<_, Option<String>>(2)?,
        ))
    })?;
    let (mut recorded, mut wrong) = (0_usize, Vec::new());
    let mut wrong_count = 0_usize;
    for row in rows {
        let (url, depth, referrer) = row?;
        let path = url.strip_prefix(prefix).unwrap_or(&url).to_string();
        let referrer = referrer.map(|referrer| {
            referrer
                .strip_prefix(prefix)
                .unwrap_or(&referrer)
                .to_string()
        });
        recorded += 1;
        let expected = walked.get(&path);
        if expected != Some(&(depth, referrer.clone())) {
            wrong_count += 1;
            if wrong.len() < 3 {
                wrong.push(format!(
                    "{path}: depth {depth} from {referrer:?}, expected {expected:?}"
                ));
            }
        }
    }
    Ok(match (wrong_count, recorded == walked.len()) {
        (0, true) => None,
        _ => Some(format!(
            "{wrong_count} of {recorded} recorded URLs differ ({} walked), e.g. {wrong:?}",
            walked.len()
        )),
    })
}

/// One crawl of the wide site.
#[derive(Debug)]
struct WideRun {
    measure: CrawlMeasure,
    /// With `--state`: how the depths differ from the walk, when they were checked.
    depths: Option<Option<String>>,
}

/// The runs of one binary, one way of crawling, on one size.
#[derive(Debug)]
pub(crate) struct WideResult {
    pages: u64,
    /// URLs fetched: those the walk met, or beyond it those the crawl visited.
    fetched: usize,
    binary: String,
    state: bool,
    runs: Vec<WideRun>,
    listing: Option<String>,
}

/// Crawls the wide site of each size in `sizes` by each binary in turn, plainly and with
/// `--state`, `runs` times (once above [`PRECOMPRESSED_UP_TO`] pages).
pub(crate) fn run(
    binaries: &[Binary],
    sizes: &[u64],
    runs: usize,
    concurrency: usize,
) -> anyhow::Result<Vec<WideResult>> {
    let mut results = Vec::new();
    for &pages in sizes {
        let site = WebSite { pages };
        let server = if pages <= PRECOMPRESSED_UP_TO {
            say(&format!("wide: compressing {pages} pages"));
            Server::start(CompressedWebSite::new(site, Encodings::Gzip), 2)?
        } else {
            Server::start(CompressedWebSite::live(site), 2)?
        };
        let prefix = server.url("");
        let checked = pages <= DEPTHS_CHECKED_UP_TO;
        let walked = if checked {
            say(&format!("wide: walking {pages} pages breadth first"));
            breadth_first(&site)
        } else {
            HashMap::new()
        };
        let expected = site
            .expected_paths()
            .iter()
            .map(|path| server.url(path))
            .collect();
        let runs = if pages > PRECOMPRESSED_UP_TO {
            1
        } else {
            runs.max(1)
        };
        let mut these: Vec<WideResult> = Vec::new();
        for state in [false, true] {
            for binary in binaries {
                these.push(WideResult {
                    pages,
                    fetched: walked.len(),
                    binary: binary.label.clone(),
                    state,
                    runs: Vec::new(),
                    listing: None,
                });
            }
        }
        for round in 0..runs {
            // Each crawl takes the lead in turn.
            let count = these.len();
            for turn in 0..count {
                let index = (turn + round) % count;
                let binary = &binaries[index % binaries.len()];
                let result = &mut these[index];
                say(&format!(
                    "wide {pages}: {} crawl by {}",
                    if result.state { "--state" } else { "plain" },
                    binary.label
                ));
                let database = tempfile::tempdir().context("database directory")?;
                let path = database.path().join("crawl.db");
                let mut extra = vec!["--render".to_string(), "never".to_string()];
                if result.state {
                    extra.extend(["--state".to_string(), path.display().to_string()]);
                }
                let measure = crawl(&binary.path, &server.url("/"), concurrency, &extra, false)?;
                let depths = (result.state && checked)
                    .then(|| depth_mismatch(&path, &prefix, &walked))
                    .transpose()?;
                result.listing = result
                    .listing
                    .take()
                    .or_else(|| listing_mismatch(&expected, &measure.listed));
                if !checked {
                    result.fetched = measure.summary.pages_visited.unwrap_or_default() as usize;
                }
                result.runs.push(WideRun { measure, depths });
            }
        }
        results.extend(these);
    }
    Ok(results)
}

/// The section of BENCHMARKS.md.
pub(crate) fn markdown(
    results: &[WideResult],
    machine: &str,
    date: &str,
    command: &str,
    concurrency: usize,
) -> String {
    let runs = results.iter().map(|result| result.runs.len()).max();
    let mut text = format!(
        "## Memory on a wide site\n\nMeasured {date} on: {machine}. Server and crawler share the \
         machine. `{command}`. {}. `--render never`, concurrency {concurrency}. Peak RSS is the crawler's, \
         as its summary reports it; the bound is docs/design.md's (Memory), in MB (10⁶ bytes). \
         \"Depths\": every URL's depth and referrer in the crawl database against the site's \
         breadth-first walk.\n\n\
         | pages | URLs fetched | binary | crawl | wall (s) | CPU (s) | peak RSS (MiB) | bound (MB) | within | depths and referrers | listed |\n\
         | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n",
        runs_sentence(runs.unwrap_or(1), "crawl", "crawls")
    );
    for result in results {
        let walls: Vec<f64> = result
            .runs
            .iter()
            .map(|run| run.measure.wall.as_secs_f64())
            .collect();
        let cpu: Vec<f64> = result
            .runs
            .iter()
            .map(|run| run.measure.summary.cpu_seconds)
            .collect();
        let peaks: Vec<f64> = result
            .runs
            .iter()
            .map(|run| run.measure.summary.peak_rss_mib)
            .collect();
        let worst_mb = peaks.iter().copied().fold(0.0, f64::max) * 1.048_576;
        let bound = bound_mb(result.pages, result.state);
        let depths = if !result.state {
            "".to_string()
        } else {
            let checked: Vec<&Option<String>> = result
                .runs
                .iter()
                .filter_map(|run| run.depths.as_ref())
                .collect();
            match checked.iter().find_map(|mismatch| mismatch.as_ref()) {
                _ if checked.is_empty() => "not checked".to_string(),
                None => "exact".to_string(),
                Some(mismatch) => mismatch.clone(),
            }
        };
        text.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} | {bound:.0} | {} | {depths} | {} |\n",
            result.pages,
            result.fetched,
            result.binary,
            if result.state { "`--state`" } else { "plain" },
            spread(&walls, 2),
            spread(&cpu, 1),
            spread(&peaks, 1),
            if worst_mb <= bound { "yes" } else { "**no**" },
            result.listing.as_deref().unwrap_or("exact"),
        ));
    }
    text
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeSet, HashSet};

    use super::*;

    #[test]
    fn the_walk_gives_each_url_its_shortest_depth_and_its_first_parent_in_url_order() {
        let site = WebSite { pages: 400 };
        let walked = breadth_first(&site);
        let fetched: BTreeSet<String> = site.fetched_paths().into_iter().collect();
        let keys: BTreeSet<String> = walked.keys().cloned().collect();
        assert_eq!(keys, fetched);
        // Every page's targets, to check the walk against.
        let mut parents: HashMap<&str, Vec<&str>> = HashMap::new();
        let mut links: HashMap<&str, HashSet<String>> = HashMap::new();
        for page in walked.keys() {
            let path = page.split('?').next().unwrap_or_default();
            let document = site
                .document(path)
                .unwrap_or_else(|| panic!("{page} is no document"));
            links.insert(
                page,
                site.links_of(page, &site.render(document))
                    .into_iter()
                    .collect(),
            );
        }
        for (page, targets) in &links {
            for target in targets {
                parents.entry(target.as_str()).or_default().push(page);
            }
        }
        assert_eq!(walked.get("/"), Some(&(0, None)));
        let mut deepest = 0;
        for (url, (depth, referrer)) in walked.iter().filter(|(url, _)| url.as_str() != "/") {
            let referrer = referrer
                .as_deref()
                .unwrap_or_else(|| panic!("{url} has no referrer"));
            let nearer: Vec<&str> = parents[url.as_str()]
                .iter()
                .copied()
                .filter(|parent| walked[*parent].0 + 1 == *depth)
                .collect();
            assert!(
                parents[url.as_str()]
                    .iter()
                    .all(|parent| walked[*parent].0 + 1 >= *depth),
                "{url}: a parent is nearer than its depth {depth}"
            );
            assert_eq!(nearer.iter().min(), Some(&referrer), "{url}");
            deepest = deepest.max(*depth);
        }
        assert!(deepest >= 3, "the site is {deepest} levels deep");
    }
}
