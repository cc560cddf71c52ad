//! The summary printed at the end of a crawl, on stderr (stdout stays free for data): what the
//! run started from, how far it went and what stopped it, what is listed and why the rest is
//! not, which files were written, and what changed since the previous run.

use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::path::{Path, PathBuf};

use sitemapper_crawl::{BrowserReport, Refusal, RenderMode, SiteDecision, TrapKind};
use sitemapper_store::{Reason, ReasonCount, Verdict};
use url::Url;

use sitemapper_site::{NotListedGroup, ScopeStatement, SiteRun};

use crate::settings::{CrawlSettings, OutputTarget};

/// The most sitemap files the text summary names one by one.
const MAX_FILES_SHOWN: usize = 40;

/// The summary of one finished, published run.
#[derive(Debug)]
pub(crate) struct Report<'a> {
    crawled: &'a SiteRun,
    settings: &'a CrawlSettings,
}

impl<'a> Report<'a> {
    pub(crate) fn new(crawled: &'a SiteRun, settings: &'a CrawlSettings) -> Report<'a> {
        Report { crawled, settings }
    }

    /// Prints the summary, part after part, in one lock of stderr.
    pub(crate) fn print(&self) -> anyhow::Result<()> {
        let mut out = std::io::stderr().lock();
        self.print_start(&mut out)?;
        super::staging::print_access(&mut out, self.settings)?;
        self.print_totals(&mut out)?;
        self.print_limits_reached(&mut out)?;
        self.print_pace(&mut out)?;
        self.print_concurrency(&mut out)?;
        self.print_urls_cut(&mut out)?;
        self.print_sitemap_seeds(&mut out)?;
        self.print_rendering(&mut out)?;
        self.print_listing(&mut out)?;
        super::staging::print_canonicals_elsewhere(
            &mut out,
            &self.crawled.store,
            self.crawled.run,
            &self.crawled.summary.scope.root,
            &self.settings.site.crawl.host_map,
        )?;
        self.print_files(&mut out)?;
        self.print_changes(&mut out)?;
        self.print_indexnow(&mut out)?;
        print_resources(&mut out, self.crawled.summary.render.browser.as_ref())?;
        Ok(())
    }

    /// Where the run started: the scope first, a redirected seed, a resumed run, the
    /// robots.txt files read.
    fn print_start(&self, out: &mut impl Write) -> std::io::Result<()> {
        let notes = &self.crawled.notes;
        let scope = &self.crawled.summary.scope;
        writeln!(out, "{}.", ScopeStatement(scope))?;
        if let Some(from) = &scope.moved_from {
            writeln!(
                out,
                "The seed redirected: crawled {} instead of {from}.",
                scope.root
            )?;
        }
        if self.crawled.resumed {
            writeln!(
                out,
                "Resumed run #{} where it was interrupted.",
                self.crawled.run.0
            )?;
        }
        for (origin, policy) in &notes.robots {
            writeln!(out, "robots.txt of {origin}: {policy}")?;
        }
        Ok(())
    }

    fn print_totals(&self, out: &mut impl Write) -> std::io::Result<()> {
        let summary = &self.crawled.summary;
        writeln!(
            out,
            "Crawled {} in {:.1}s: {} pages visited, {} requests, {} URLs discovered.",
            summary.scope.root,
            self.crawled.started.elapsed().as_secs_f64(),
            summary.pages_visited,
            summary.requests,
            summary.urls_discovered,
        )
    }

    /// The limits that stopped the crawl before it ran out of URLs.
    fn print_limits_reached(&self, out: &mut impl Write) -> std::io::Result<()> {
        let summary = &self.crawled.summary;
        if summary.left_by_max_pages > 0 {
            writeln!(
                out,
                "Stopped by --max-pages: {} queued URLs not visited.",
                summary.left_by_max_pages
            )?;
        }
        if summary.beyond_max_urls > 0 {
            writeln!(
                out,
                "Stopped discovering at --max-urls {}: {} links to new URLs not followed.",
                self.settings.site.crawl.max_urls, summary.beyond_max_urls
            )?;
        }
        if summary.request_budget_exhausted {
            writeln!(
                out,
                "Stopped by --max-requests: the request budget ran out."
            )?;
        }
        Ok(())
    }

    fn print_pace(&self, out: &mut impl Write) -> std::io::Result<()> {
        if let Some(pace) = self.pace() {
            writeln!(out, "Pace: {pace}.")?;
        }
        Ok(())
    }

    /// How `--concurrency auto` adapted; a fixed limit is what the user set, and goes unsaid.
    fn print_concurrency(&self, out: &mut impl Write) -> std::io::Result<()> {
        let report = &self.crawled.summary.concurrency;
        if !report.adaptive {
            return Ok(());
        }
        let cuts = match report.decreases {
            0 => "never cut".to_string(),
            1 => "cut once".to_string(),
            cuts => format!("cut {cuts} times"),
        };
        writeln!(
            out,
            "Concurrency (auto): {} requests at once at the end, {} at most, {cuts}.",
            report.final_limit, report.max_reached
        )
    }

    /// Which pace applied between two requests to one host, and where it came from.
    fn pace(&self) -> Option<String> {
        if let Some(delay) = self.settings.site.crawl.delay {
            return Some(format!(
                "{}s between requests to one host, from --delay (robots.txt Crawl-delay not used)",
                delay.as_secs_f64()
            ));
        }
        self.crawled.notes.crawl_delay.then(|| {
            format!(
                "robots.txt Crawl-delay (at most {}s), see above",
                self.settings.site.crawl.max_crawl_delay.as_secs()
            )
        })
    }

    /// The URLs the crawl cut short or rewrote on the way: traps, session parameters,
    /// links deeper than --max-depth.
    fn print_urls_cut(&self, out: &mut impl Write) -> std::io::Result<()> {
        let summary = &self.crawled.summary;
        for trap in &summary.traps {
            let what = match trap.kind {
                TrapKind::RepeatedSegments => "paths repeating a segment",
                TrapKind::PatternChain => "an endless chain of same-shaped pages",
            };
            writeln!(
                out,
                "Crawler trap cut short ({what}): {} URLs not followed, such as {}",
                trap.urls_cut, trap.example
            )?;
        }
        if !summary.session_parameters.is_empty() {
            writeln!(
                out,
                "Session parameters detected and stripped from every URL: {}.",
                summary.session_parameters.join(", ")
            )?;
        }
        if summary.beyond_max_depth > 0 {
            writeln!(
                out,
                "Not followed, deeper than --max-depth: {} links.",
                summary.beyond_max_depth
            )?;
        }
        Ok(())
    }

    /// What the site's own sitemaps added, when they seeded the crawl.
    fn print_sitemap_seeds(&self, out: &mut impl Write) -> anyhow::Result<()> {
        let Some(seeding) = &self.crawled.summary.sitemap_seeding else {
            return Ok(());
        };
        if seeding.not_reached && seeding.read == 0 {
            writeln!(
                out,
                "The site's sitemaps were not read: the crawl stopped before its links ran out."
            )?;
            return Ok(());
        }
        let only_there = self
            .crawled
            .store
            .listed_only_from_sitemaps(self.crawled.run)?;
        writeln!(
            out,
            "The site's sitemaps: {} read, {} skipped, {} unreadable; they added {} URLs no link had led to.",
            seeding.read, seeding.skipped, seeding.unreadable, seeding.urls_queued
        )?;
        writeln!(
            out,
            "Listed only from the site's sitemaps (no link of a crawled page leads there): {only_there}."
        )?;
        Ok(())
    }

    /// What rendering in the browser did, and what it could not do.
    fn print_rendering(&self, out: &mut impl Write) -> std::io::Result<()> {
        let render = &self.crawled.summary.render;
        let tried = render.rendered + render.timed_out + render.failed;
        if tried > 0 {
            let why = match (render.mode, render.decision) {
                (RenderMode::Always, _) => "--render always".to_string(),
                (_, SiteDecision::Renders) => {
                    let probed = render.templates_probed;
                    let kinds = if probed == 1 { "kind" } else { "kinds" };
                    let builds = if render.templates_rendered == 1 { "builds" } else { "build" };
                    format!(
                        "{} of {probed} {kinds} of page (pages that load the same scripts) {builds} links in JavaScript",
                        render.templates_rendered
                    )
                }
                (_, SiteDecision::ReadAsServed) if render.templates_probed == 1 => {
                    "one page stood for the others that load the same scripts, and linked to nothing the HTML does not reach, so the others were read as served".to_string()
                }
                (_, SiteDecision::ReadAsServed) => format!(
                    "one page of each of {} kinds of page (pages that load the same scripts) linked to nothing the HTML does not reach, so the others were read as served",
                    render.templates_probed
                ),
                (_, SiteDecision::Undecided) => "these pages looked built by JavaScript".to_string(),
            };
            writeln!(
                out,
                "Rendered {tried} of {} HTML pages: {why}.",
                render.html_pages
            )?;
            let urls = if render.found_urls == 1 {
                "URL"
            } else {
                "URLs"
            };
            writeln!(
                out,
                "  Rendering found {} {urls} that the HTML did not link to.",
                render.found_urls
            )?;
        }
        if render.timed_out > 0 {
            writeln!(
                out,
                "  {} pages did not settle within --render-timeout {}s: read as served (render-timeout).",
                render.timed_out,
                self.settings.site.render.timeout.as_secs_f64()
            )?;
        }
        if render.failed > 0 {
            writeln!(
                out,
                "  {} pages failed to render: read as served.",
                render.failed
            )?;
        }
        if let Some(browser) = &render.browser
            && browser.restarts > 0
        {
            writeln!(
                out,
                "  The browser crashed and was started again {} times.",
                browser.restarts
            )?;
        }
        if render.not_rendered > 0 {
            let why = match &render.unavailable {
                Some(reason) => format!("the browser could not render ({reason})"),
                None => {
                    "no browser was found (install chromium, or pass --chrome PATH)".to_string()
                }
            };
            let example = render
                .first_shell
                .as_ref()
                .map(|(url, reason)| format!(", such as {url} ({reason})"))
                .unwrap_or_default();
            writeln!(
                out,
                "Not rendered: {} pages that needed it{example}, because {why}: the sitemap may be incomplete.",
                render.not_rendered
            )?;
        }
        let requests = &render.requests;
        for (refusal, count) in &requests.refused {
            writeln!(
                out,
                "  The browser was refused {}.",
                refused_requests(*refusal, *count, requests.disallowed.first())
            )?;
        }
        if let Some(browser) = &render.browser
            && browser.not_from_a_page > 0
        {
            writeln!(
                out,
                "  The browser was refused {} requests no rendered page made (its own, or a page's after it was read).",
                browser.not_from_a_page
            )?;
        }
        if !requests.other_hosts.is_empty() {
            let total: u64 = requests.other_hosts.values().sum();
            writeln!(
                out,
                "  The browser fetched {total} scripts, styles and data from {} other hosts (-v lists them).",
                requests.other_hosts.len()
            )?;
        }
        if !render.hash_routes.is_empty() {
            let shown: Vec<&str> = render
                .hash_routes
                .iter()
                .take(3)
                .map(String::as_str)
                .collect();
            writeln!(
                out,
                "Hash routes not listed: {} ({}{}). What follows # never reaches the server, so a sitemap cannot name them; routes served as paths (the History API) are listed.",
                render.hash_routes.len(),
                shown.join(", "),
                if render.hash_routes.len() > shown.len() {
                    ", ..."
                } else {
                    ""
                }
            )?;
        }
        Ok(())
    }

    /// How many URLs are listed, and why the others are not, with the first URLs of each
    /// reason and the page that linked to each.
    fn print_listing(&self, out: &mut impl Write) -> anyhow::Result<()> {
        let counts = self.crawled.store.reason_counts(self.crawled.run)?;
        let listed: u64 = counts
            .iter()
            .filter(|count| count.verdict == Verdict::Indexable)
            .map(|count| count.count)
            .sum();
        writeln!(out, "Listed: {listed} URLs.")?;
        let not_listed = &self.crawled.not_listed;
        if !not_listed.groups.is_empty() {
            writeln!(out, "Not listed:")?;
            for group in &not_listed.groups {
                writeln!(out, "  {:>7}  {}", group.count, group.code())?;
                self.print_examples(out, group)?;
            }
            if let Some(OutputTarget::Path(path)) = &self.settings.site.list_not_listed {
                writeln!(
                    out,
                    "All {} URLs not listed, with their reasons and referrers: {}",
                    not_listed.total(),
                    path.display()
                )?;
            }
        }
        print_listed_as_themselves(out, &counts)?;
        Ok(())
    }

    /// The first URLs of a reason, each with the page it was found on (the URL that
    /// redirected to it, for a redirect's target), and where to see the rest.
    fn print_examples(&self, out: &mut impl Write, group: &NotListedGroup) -> std::io::Result<()> {
        for example in &group.examples {
            match &example.referrer {
                Some(referrer) => writeln!(out, "             {}  (from {referrer})", example.url)?,
                None => writeln!(out, "             {}  (the seed)", example.url)?,
            }
        }
        let more = group.count - group.examples.len() as u64;
        if more > 0 {
            let all = match &self.settings.site.list_not_listed {
                Some(OutputTarget::Path(path)) => format!(" in {}", path.display()),
                Some(OutputTarget::Stdout) => " on stdout".to_string(),
                None => ": --list-not-listed FILE".to_string(),
            };
            writeln!(out, "             … and {more} more{all}")?;
        }
        Ok(())
    }

    /// The sitemap files written, and the stale ones of an earlier run removed.
    fn print_files(&self, out: &mut impl Write) -> std::io::Result<()> {
        let (written, published) = &self.crawled.published;
        let OutputTarget::Path(directory) = &self.settings.site.out else {
            let urls: u64 = written.iter().map(|written| written.urls).sum();
            return writeln!(out, "Printed the sitemap on stdout: {urls} URLs.");
        };
        let kind = if written.iter().any(|written| written.is_index) {
            "sitemap index and children"
        } else if written.len() > 1 || written.iter().any(|written| written.files.len() > 1) {
            "sitemaps"
        } else {
            "sitemap"
        };
        writeln!(out, "Wrote {kind} to {}:", directory.display())?;
        let unchanged: HashSet<&Path> = published.unchanged.iter().map(PathBuf::as_path).collect();
        let urls: HashMap<&str, u64> = written
            .iter()
            .flat_map(|written| &written.children)
            .map(|child| (child.name.as_str(), child.urls))
            .collect();
        let names: Vec<&String> = written.iter().flat_map(|written| &written.files).collect();
        let width = names.iter().map(|name| name.len()).max().unwrap_or(0);
        // A site split into thousands of files lists the first of them and the index here;
        // --summary json lists them all.
        let shown = if names.len() > MAX_FILES_SHOWN {
            MAX_FILES_SHOWN - 1
        } else {
            names.len()
        };
        let mut hidden = 0;
        for (position, name) in names.iter().enumerate() {
            if position >= shown && urls.contains_key(name.as_str()) {
                hidden += 1;
                continue;
            }
            let what = match urls.get(name.as_str()) {
                Some(1) => "1 URL".to_string(),
                Some(count) => format!("{count} URLs"),
                None => "index".to_string(),
            };
            let same = if unchanged.contains(directory.join(name).as_path()) {
                " (unchanged)"
            } else {
                ""
            };
            writeln!(out, "  {name:<width$}  {what}{same}")?;
        }
        if hidden > 0 {
            writeln!(
                out,
                "  ... and {hidden} more files ({} unchanged in all; --summary json lists each)",
                unchanged.len()
            )?;
        }
        for file in &published.removed_stale {
            writeln!(out, "  removed stale {}", file.display())?;
        }
        Ok(())
    }

    /// What is unchanged since the pages were last fetched (a 304, or the same content
    /// re-dated), and what changed since the previous run.
    fn print_changes(&self, out: &mut impl Write) -> std::io::Result<()> {
        let revalidated = self.crawled.summary.revalidated;
        if revalidated > 0 {
            writeln!(
                out,
                "Unchanged (304 Not Modified, not downloaded): {revalidated} pages."
            )?;
        }
        let kept = self.crawled.lastmod_kept;
        if kept > 0 {
            writeln!(
                out,
                "{kept} pages served a new Last-Modified with the same content: lastmod kept."
            )?;
        }
        let changes = &self.crawled.changes;
        match changes.previous {
            Some(previous) => {
                let counts = changes.counts();
                writeln!(
                    out,
                    "Since run #{}: {} added, {} removed, {} changed.",
                    previous.0, counts.added, counts.removed, counts.changed
                )?;
            }
            None if self.settings.site.state.is_some() => {
                writeln!(
                    out,
                    "First run in {}: no changes to report.",
                    self.crawled.store.path().display()
                )?;
            }
            None => {}
        }
        Ok(())
    }

    fn print_indexnow(&self, out: &mut impl Write) -> std::io::Result<()> {
        if let Some(notified) = &self.crawled.notified {
            writeln!(out, "{notified}")?;
        }
        Ok(())
    }
}

/// Indexable pages listed under their own URL although they name another canonical.
fn print_listed_as_themselves(out: &mut impl Write, counts: &[ReasonCount]) -> std::io::Result<()> {
    for count in counts
        .iter()
        .filter(|count| count.verdict == Verdict::Indexable)
    {
        let why = match count.reason {
            None => continue,
            Some(Reason::BrokenCanonical) => "their canonical target is broken".to_string(),
            Some(Reason::CanonicalLoop) => {
                "their canonicals form a loop (one page per loop)".to_string()
            }
            Some(other) => other.to_string(),
        };
        writeln!(out, "Listed as themselves because {why}: {}.", count.count)?;
    }
    Ok(())
}

/// What the run cost this process, and the browser, where the platform tells.
fn print_resources(out: &mut impl Write, browser: Option<&BrowserReport>) -> std::io::Result<()> {
    let mib = |bytes: u64| bytes as f64 / (1024.0 * 1024.0);
    if let Some(peak) = crate::memory::peak_rss_bytes() {
        match browser.and_then(|browser| browser.peak_memory) {
            Some(browser) => writeln!(
                out,
                "Peak memory: {:.1} MiB, and {:.1} MiB for the browser's processes.",
                mib(peak),
                mib(browser)
            )?,
            None => writeln!(out, "Peak memory: {:.1} MiB.", mib(peak))?,
        }
    }
    if let Some(seconds) = crate::memory::cpu_seconds() {
        match crate::memory::children_cpu_seconds()
            .filter(|_| browser.is_some_and(|browser| browser.started))
        {
            Some(browser) => writeln!(
                out,
                "CPU time: {seconds:.2} s, and {browser:.2} s for the browser."
            )?,
            None => writeln!(out, "CPU time: {seconds:.2} s.")?,
        }
    }
    Ok(())
}

/// What the browser was refused `count` times, for `refusal`, in words.
fn refused_requests(refusal: Refusal, count: u64, disallowed: Option<&Url>) -> String {
    match refusal {
        Refusal::RobotsDisallowed => {
            let example = disallowed
                .map(|url| format!(", such as {url}"))
                .unwrap_or_default();
            format!("{count} requests robots.txt disallows (never sent){example}")
        }
        Refusal::PrivateAddress => format!("{count} requests to private networks (never sent)"),
        Refusal::NotHttp => format!("{count} requests that are not http(s)"),
        Refusal::RequestBudget => format!("{count} requests to the site past --max-requests"),
        Refusal::OtherHostBudget => {
            format!("{count} requests to other hosts past --render-other-host-requests (per page)")
        }
        Refusal::Method => {
            format!("{count} requests whose method may change the server (PUT, DELETE, ...)")
        }
        Refusal::WebSocket => format!("{count} WebSockets"),
    }
}
