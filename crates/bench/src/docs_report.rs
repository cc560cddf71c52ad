//! The documentation benchmark's results as a Markdown section for BENCHMARKS.md: per site
//! and binary, what `--render auto` and `--render never` listed and cost, whether they listed
//! the same URLs, and whether `auto` kept within its bound of `never`'s wall time.

use std::collections::BTreeSet;
use std::fmt::Write;
use std::time::Duration;

use crate::docs::{DocsResult, ModeRuns, SiteResult};
use crate::report::{median, spread};

/// `auto`'s median wall time may be at most this many times `never`'s ...
const BOUND_FACTOR: f64 = 2.0;

/// ... plus this many seconds (starting a browser costs about a second on its own).
const BOUND_SECONDS: f64 = 3.0;

/// Examples of URLs listed by one mode only that the table names.
const EXAMPLES: usize = 2;

impl ModeRuns {
    pub(crate) fn wall_seconds(&self) -> Vec<f64> {
        self.walls.iter().map(Duration::as_secs_f64).collect()
    }

    fn runs(&self) -> usize {
        self.walls.len() + self.stopped.len()
    }

    /// The median wall time with its range; the runs stopped at the limit said as such.
    pub(crate) fn wall(&self) -> String {
        let stopped = self.stopped.first().map(|stopped| {
            format!(
                "stopped after {:.0} s in {} of {} runs",
                stopped.after.as_secs_f64(),
                self.stopped.len(),
                self.runs()
            )
        });
        match (self.walls.is_empty(), stopped) {
            (_, None) => spread(&self.wall_seconds(), 2),
            (true, Some(stopped)) => stopped,
            (false, Some(stopped)) => format!("{}; {stopped}", spread(&self.wall_seconds(), 2)),
        }
    }

    fn listed(&self) -> String {
        let counts: Vec<f64> = self.listed.iter().map(|urls| urls.len() as f64).collect();
        or_dash(&counts, 0)
    }

    fn visited(&self) -> String {
        let pages: Vec<f64> = self.visited.iter().map(|&pages| pages as f64).collect();
        or_dash(&pages, 0)
    }

    pub(crate) fn rendered(&self) -> String {
        let pages: Vec<f64> = self.rendered.iter().map(|&pages| pages as f64).collect();
        or_dash(&pages, 0)
    }

    pub(crate) fn browser_peak(&self) -> String {
        match (self.browser_peak_mib.is_empty(), self.walls.is_empty()) {
            (false, _) => spread(&self.browser_peak_mib, 1),
            (true, false) => "none".to_string(),
            (true, true) => "-".to_string(),
        }
    }
}

/// The median and range of `values`, or `-` when there are none.
fn or_dash(values: &[f64], digits: usize) -> String {
    if values.is_empty() {
        "-".to_string()
    } else {
        spread(values, digits)
    }
}

impl SiteResult {
    /// Whether every finished run of both modes listed the same URLs as the first finished
    /// run of `never`.
    fn same_urls(&self) -> String {
        let Some(reference) = self.never.listed.first() else {
            return "unknown: no run of `never` finished".to_string();
        };
        if self.auto.listed.is_empty() {
            return "unknown: no run of `auto` finished".to_string();
        }
        let differing = [("auto", &self.auto.listed), ("never", &self.never.listed)]
            .into_iter()
            .flat_map(|(mode, runs)| runs.iter().map(move |listed| (mode, listed)))
            .find(|(_, listed)| *listed != reference);
        match differing {
            None => format!("identical ({} URLs)", reference.len()),
            Some((mode, listed)) => format!(
                "DIFFERENT: `never` listed {}, a run of `{mode}` {}; only that run: {}; only `never`: {}",
                reference.len(),
                listed.len(),
                examples(listed, reference),
                examples(reference, listed)
            ),
        }
    }

    /// Whether `auto`'s median wall time is within the bound of `never`'s.
    fn bound(&self) -> String {
        within_bound(&self.auto, &self.never, BOUND_FACTOR, BOUND_SECONDS)
    }

    fn row(&self) -> String {
        format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            self.site.directory,
            self.site.generator,
            self.html_files,
            self.binary,
            self.never.wall(),
            self.never.listed(),
            self.auto.wall(),
            self.auto.listed(),
            self.same_urls(),
            self.auto.visited(),
            self.auto.rendered(),
            self.auto.browser_peak(),
            self.bound()
        )
    }
}

/// Whether `auto`'s median wall time is at most `factor` times `never`'s plus `seconds`.
pub(crate) fn within_bound(auto: &ModeRuns, never: &ModeRuns, factor: f64, seconds: f64) -> String {
    if never.walls.is_empty() {
        return "unknown: no run of `never` finished".to_string();
    }
    let bound = factor * median(&never.wall_seconds()) + seconds;
    if let Some(stopped) = auto.stopped.first() {
        return format!(
            "NOT met: stopped after {:.0} s > {bound:.2} s",
            stopped.after.as_secs_f64()
        );
    }
    let auto = median(&auto.wall_seconds());
    if auto <= bound {
        format!("met: {auto:.2} s ≤ {bound:.2} s")
    } else {
        format!("NOT met: {auto:.2} s > {bound:.2} s")
    }
}

/// How many URLs `listed` has that `other` lacks, with the first few.
fn examples(listed: &BTreeSet<String>, other: &BTreeSet<String>) -> String {
    let only: Vec<&String> = listed.difference(other).collect();
    let shown: Vec<String> = only
        .iter()
        .take(EXAMPLES)
        .map(|url| format!("`{url}`"))
        .collect();
    if shown.is_empty() {
        "0".to_string()
    } else {
        format!("{} (e.g. {})", only.len(), shown.join(", "))
    }
}

/// The section: what was crawled and how, the table, and how to measure again.
pub(crate) fn markdown(result: &DocsResult, machine: &str, date: &str, command: &str) -> String {
    let settings = &result.settings;
    let mut text = String::new();
    let _ = writeln!(
        text,
        "## Generated documentation: the Rust toolchain's own\n"
    );
    let _ = writeln!(
        text,
        "Measured {date} on: {machine}. nginx, crawler and browser (Debian's Chromium, \
         headless) share the machine. Concurrency {}, {} browser tabs \
         (`--render-concurrency`). Medians of {} runs, with the range in brackets; the modes \
         (and binaries) of a site ran in turn, each taking the lead in turn.\n",
        settings.render.concurrency,
        settings.render.tabs,
        settings.render.runs.max(1)
    );
    let _ = writeln!(
        text,
        "The sites: the `rust-docs` component's html directory (`{}`), served as it is by nginx \
         on 127.0.0.1 (the whole directory, as a documentation host serves it; nginx ignores \
         query strings, as static servers do), each crawled from its directory (`/book/`, \
         ...), which is its scope. `book`, `cargo` and `reference` are mdBook books: every \
         page's sidebar is drawn by a script into an empty `<mdbook-sidebar-scrollbox>`, and \
         pages link to each other (previous and next, and in the text). `alloc` is the API \
         documentation of a crate by rustdoc: scripts fill its toolbar (an empty \
         `<rustdoc-toolbar>`: search, settings, help) and the sidebar of a module's items. \
         Generated static sites, where rendering has nothing to add: both modes should list \
         the same URLs.\n",
        result.directory.display()
    );
    let _ = writeln!(
        text,
        "\"Listed\" is the number of URLs in the sitemap; \"same URLs\" compares the URLs every \
         finished run of both modes listed. Pages visited, pages rendered and the browser's \
         peak memory (its processes' private pages summed, the browser's code counted once) \
         come from sitemapper's summary. A crawl still running after {:.0} s was stopped \
         (SIGTERM: nothing published, no summary; the pages it had visited are from its last \
         line). The bound asked of `auto`: its median wall time at most {BOUND_FACTOR:.0} times \
         `never`'s plus {BOUND_SECONDS:.0} s.\n",
        settings.limit.as_secs_f64()
    );
    let _ = writeln!(
        text,
        "| site | generator | HTML files | binary | `never`: wall (s) | `never`: listed | `auto`: wall (s) | `auto`: listed | same URLs | `auto`: pages visited | `auto`: pages rendered | `auto`: browser peak (MiB) | auto ≤ {BOUND_FACTOR:.0} × never + {BOUND_SECONDS:.0} s |"
    );
    let _ = writeln!(
        text,
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
    );
    for site in &result.sites {
        let _ = writeln!(text, "{}", site.row());
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
    use crate::crawl_run::Stopped;
    use crate::docs::SITES;

    fn runs(walls: &[f64], listed: &[&[&str]]) -> ModeRuns {
        ModeRuns {
            walls: walls
                .iter()
                .map(|&wall| Duration::from_secs_f64(wall))
                .collect(),
            listed: listed
                .iter()
                .map(|urls| urls.iter().map(|url| url.to_string()).collect())
                .collect(),
            ..ModeRuns::default()
        }
    }

    fn site(auto: ModeRuns, never: ModeRuns) -> SiteResult {
        SiteResult {
            site: SITES[0],
            html_files: 3,
            binary: "this build".to_string(),
            auto,
            never,
        }
    }

    #[test]
    fn the_same_urls_in_both_modes_within_the_bound() {
        let result = site(
            runs(&[3.0, 3.5, 2.5], &[&["/a", "/b"][..]; 3]),
            runs(&[0.2, 0.1, 0.3], &[&["/a", "/b"][..]; 3]),
        );
        assert_eq!(result.same_urls(), "identical (2 URLs)");
        assert_eq!(result.bound(), "met: 3.00 s ≤ 3.40 s");
    }

    #[test]
    fn urls_listed_by_one_mode_only_are_named() {
        let result = site(
            runs(&[9.0], &[&["/a", "/a?search=", "/b"]]),
            runs(&[1.0], &[&["/a", "/b"]]),
        );
        assert_eq!(
            result.same_urls(),
            "DIFFERENT: `never` listed 2, a run of `auto` 3; only that run: 1 (e.g. `/a?search=`); only `never`: 0"
        );
        assert_eq!(result.bound(), "NOT met: 9.00 s > 5.00 s");
    }

    #[test]
    fn a_stopped_crawl_fails_the_bound_and_lists_nothing() {
        let mut auto = ModeRuns::default();
        auto.stopped.push(Stopped {
            after: Duration::from_secs(120),
            pages: Some(333),
        });
        auto.visited.push(333);
        let result = site(auto, runs(&[0.1], &[&["/a"]]));
        assert_eq!(result.same_urls(), "unknown: no run of `auto` finished");
        assert_eq!(result.bound(), "NOT met: stopped after 120 s > 3.20 s");
        assert_eq!(result.auto.wall(), "stopped after 120 s in 1 of 1 runs");
        assert_eq!(result.auto.listed(), "-");
        assert_eq!(result.auto.browser_peak(), "-");
    }
}
