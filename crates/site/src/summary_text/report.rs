//! The summary printed at the end of a crawl, on stderr (stdout stays free for data): what the
//! run started from, how far it went and what stopped it, what is listed and why the rest is
//! not, which files were written, and what changed since the previous run. An audit's summary
//! begins with it. Every number that counts something is said through `count`, so that one
//! of a thing is singular.

use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::path::{Path, PathBuf};

use sitemapper_audit::{describe_incomplete_video, thousands};
use sitemapper_crawl::{BrowserReport, DocumentReport, TrapKind, suggested_mapping};
use sitemapper_store::{Reason, ReasonCount, TransientCause, Verdict};
use url::Url;

use super::access::print_access;
use super::rendering::write_rendering;
use crate::counted::count;
use crate::not_listed::NotListedGroup;
use crate::output_target::OutputTarget;
use crate::process_use::{children_cpu_seconds, cpu_seconds, peak_rss_bytes};
use crate::record::ScopeStatement;
use crate::run_facts::RunFacts;
use crate::settings::SiteSettings;
use crate::sitemap_story::SitemapStory;

/// The most sitemap files the text summary names one by one.
const MAX_FILES_SHOWN: usize = 40;

/// What became of the linked documents `--documents` selects: those listed by type, and
/// why the others are not.
pub fn documents_line(report: &DocumentReport) -> String {
    let listed: u64 = report.listed.values().sum();
    let not_listed: u64 = report.not_listed.values().sum();
    if listed + not_listed == 0 {
        return "Documents: none linked.".to_string();
    }
    let mut line = format!("Documents: {listed} listed");
    if listed > 0 {
        let kinds: Vec<String> = report
            .listed
            .iter()
            .map(|(kind, n)| format!("{kind} {n}"))
            .collect();
        line.push_str(&format!(" ({})", kinds.join(", ")));
    }
    if not_listed > 0 {
        let why: Vec<String> = report
            .not_listed
            .iter()
            .map(|(miss, n)| format!("{n} {}", miss.describe()))
            .collect();
        line.push_str(&format!(", {not_listed} not listed: {}", why.join(", ")));
    }
    line.push('.');
    line
}

/// The summary of one finished run: of a crawl, or of the crawl an audit made. The lines
/// about the sitemap published (its files, what changed in it, IndexNow) are said only when
/// the run published one: an audit that was given no `--out` keeps its sitemap beside the
/// report and publishes nothing.
#[derive(Debug)]
pub struct CrawlReport<'a> {
    facts: RunFacts<'a>,
    settings: &'a SiteSettings,
    /// The story of the site's sitemaps as the audit read them, told instead of the crawl's.
    audit_sitemaps: Option<String>,
}

impl<'a> CrawlReport<'a> {
    /// The summary of the run `facts` tell, made with `settings`.
    pub fn new(facts: RunFacts<'a>, settings: &'a SiteSettings) -> CrawlReport<'a> {
        CrawlReport {
            facts,
            settings,
            audit_sitemaps: None,
        }
    }

    /// The summary with the audit's story of the site's sitemaps in place of the crawl's:
    /// the audit read them all, the crawl only as seeds.
    pub fn with_audit_sitemaps(self, story: String) -> CrawlReport<'a> {
        CrawlReport {
            audit_sitemaps: Some(story),
            ..self
        }
    }

    /// Prints the summary of a crawl, part after part, in one lock of stderr.
    pub fn print(&self) -> std::io::Result<()> {
        let mut out = std::io::stderr().lock();
        self.write_run(&mut out)?;
        write_resources(&mut out, self.facts.crawl.render.browser.as_ref())?;
        Ok(())
    }

    /// Writes what the run did, up to what it cost (see [`write_resources`]).
    pub fn write_run(&self, out: &mut impl Write) -> std::io::Result<()> {
        self.print_start(out)?;
        print_access(out, self.settings)?;
        self.print_totals(out)?;
        self.print_limits_reached(out)?;
        self.print_pace(out)?;
        self.print_concurrency(out)?;
        self.print_urls_cut(out)?;
        self.print_sitemap_seeds(out)?;
        write_rendering(out, &self.facts.crawl.render, self.settings)?;
        self.print_listing(out)?;
        if let Some(documents) = &self.facts.crawl.documents {
            writeln!(out, "{}", documents_line(documents))?;
        }
        for elsewhere in &self.facts.canonicals_elsewhere {
            writeln!(out, "{}.", elsewhere.explain(&self.settings.crawl.host_map))?;
        }
        if self.settings.publishes_sitemaps {
            self.print_files(out)?;
            self.print_private_host(out)?;
        }
        self.print_media(out)?;
        self.print_changes(out)?;
        if self.settings.publishes_sitemaps
            && let Some(notified) = self.facts.notified
        {
            writeln!(out, "{notified}")?;
        }
        Ok(())
    }

    /// Where the run started: the scope first, a redirected seed, a resumed run, the
    /// robots.txt files read.
    fn print_start(&self, out: &mut impl Write) -> std::io::Result<()> {
        let scope = &self.facts.crawl.scope;
        writeln!(out, "{}.", ScopeStatement(scope))?;
        // The seed as typed, not the scope it would have had: `/blog` redirected to `/blog/`
        // was never a crawl of the site's root.
        if scope.moved_from.is_some() {
            writeln!(
                out,
                "The seed redirected: crawled {} instead of {}.",
                scope.root, scope.seed
            )?;
        }
        if let Some(run) = self.facts.resumed {
            writeln!(out, "Resumed run #{} where it was interrupted.", run.0)?;
        }
        for (origin, policy) in &self.facts.notes.robots {
            writeln!(out, "robots.txt of {origin}: {policy}")?;
        }
        Ok(())
    }

    fn print_totals(&self, out: &mut impl Write) -> std::io::Result<()> {
        let crawl = self.facts.crawl;
        writeln!(
            out,
            "Crawled {} in {:.1}s: {} visited, {}, {} discovered.",
            crawl.scope.root,
            self.facts.elapsed.as_secs_f64(),
            count(crawl.pages_visited, "page"),
            count(crawl.requests, "request"),
            count(crawl.urls_discovered, "URL"),
        )
    }

    /// The limits that stopped the crawl before it ran out of URLs.
    fn print_limits_reached(&self, out: &mut impl Write) -> std::io::Result<()> {
        let crawl = self.facts.crawl;
        if crawl.left_by_max_pages > 0 {
            writeln!(
                out,
                "Stopped by --max-pages: {} not visited.",
                count(crawl.left_by_max_pages, "queued URL")
            )?;
        }
        if crawl.beyond_max_urls > 0 {
            writeln!(
                out,
                "Stopped discovering at --max-urls {}: {} to new URLs not followed.",
                self.settings.crawl.max_urls,
                count(crawl.beyond_max_urls, "link")
            )?;
        }
        if crawl.request_budget_exhausted {
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
        let report = &self.facts.crawl.concurrency;
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
            "Concurrency (auto): {} at once at the end, {} at most, {cuts}.",
            count(report.final_limit, "request"),
            report.max_reached
        )
    }

    /// Which pace applied between two requests to one host, and where it came from.
    fn pace(&self) -> Option<String> {
        if let Some(delay) = self.settings.crawl.delay {
            return Some(format!(
                "{}s between requests to one host, from --delay (robots.txt Crawl-delay not used)",
                delay.as_secs_f64()
            ));
        }
        self.facts.notes.crawl_delay.then(|| {
            format!(
                "robots.txt Crawl-delay (at most {}s), see above",
                self.settings.crawl.max_crawl_delay.as_secs()
            )
        })
    }

    /// The URLs the crawl cut short or rewrote on the way: traps, session parameters,
    /// links deeper than --max-depth.
    fn print_urls_cut(&self, out: &mut impl Write) -> std::io::Result<()> {
        let crawl = self.facts.crawl;
        for trap in &crawl.traps {
            let what = match trap.kind {
                TrapKind::RepeatedSegments => "paths repeating a segment",
                TrapKind::PatternChain => "an endless chain of same-shaped pages",
            };
            writeln!(
                out,
                "Crawler trap cut short ({what}): {} not followed, such as {}",
                count(trap.urls_cut, "URL"),
                trap.example
            )?;
        }
        if !crawl.session_parameters.is_empty() {
            writeln!(
                out,
                "Session parameters detected and stripped from every URL: {}.",
                crawl.session_parameters.join(", ")
            )?;
        }
        if crawl.beyond_max_depth > 0 {
            writeln!(
                out,
                "Not followed, deeper than --max-depth: {}.",
                count(crawl.beyond_max_depth, "link")
            )?;
        }
        Ok(())
    }

    /// What the site's own sitemaps added, when they seeded the crawl.
    fn print_sitemap_seeds(&self, out: &mut impl Write) -> std::io::Result<()> {
        if let Some(story) = &self.audit_sitemaps {
            return writeln!(out, "{story}");
        }
        let Some(seeding) = &self.facts.crawl.sitemap_seeding else {
            return Ok(());
        };
        let Some(only_there) = self.facts.only_from_sitemaps else {
            return writeln!(
                out,
                "The site's sitemaps were not read: the crawl stopped before its links ran out."
            );
        };
        let story = SitemapStory {
            looked: seeding.looked,
            read: seeding.read,
            skipped: seeding.skipped,
            unreadable: seeding.unreadable,
            not_read: &seeding.not_read,
            added: Some(seeding.urls_queued),
        };
        writeln!(out, "{story}")?;
        if seeding.read == 0 {
            return Ok(());
        }
        writeln!(
            out,
            "Listed only from the site's sitemaps (no link of a crawled page leads there): {only_there}."
        )
    }

    /// How many URLs are listed, and why the others are not, with the first URLs of each
    /// reason and the page that linked to each.
    fn print_listing(&self, out: &mut impl Write) -> std::io::Result<()> {
        let counts = &self.facts.reason_counts;
        let listed: u64 = counts
            .iter()
            .filter(|count| count.verdict == Verdict::Indexable)
            .map(|count| count.count)
            .sum();
        writeln!(out, "Listed: {}.", count(listed, "URL"))?;
        let not_listed = self.facts.not_listed;
        if !not_listed.groups.is_empty() {
            writeln!(out, "Not listed:")?;
            for group in &not_listed.groups {
                writeln!(out, "  {:>7}  {}", group.count, group.code())?;
                self.print_examples(out, group)?;
            }
            if let Some(OutputTarget::Path(path)) = &self.settings.list_not_listed {
                writeln!(
                    out,
                    "The URLs not listed ({}), with their reasons and referrers: {}",
                    count(not_listed.total(), "URL"),
                    path.display()
                )?;
            }
        }
        print_listed_as_themselves(out, counts)
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
            let all = match &self.settings.list_not_listed {
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
        let (written, published) = (self.facts.written, self.facts.published);
        let OutputTarget::Path(directory) = &self.settings.out else {
            let urls: u64 = written.iter().map(|written| written.urls).sum();
            return writeln!(
                out,
                "Printed the sitemap on stdout: {}.",
                count(urls, "URL")
            );
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
        let mut hidden = 0_usize;
        for (position, name) in names.iter().enumerate() {
            if position >= shown && urls.contains_key(name.as_str()) {
                hidden += 1;
                continue;
            }
            let what = match urls.get(name.as_str()) {
                Some(urls) => count(*urls, "URL"),
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
                "  ... and {} ({} unchanged in all; --summary json lists each)",
                count(hidden, "more file"),
                unchanged.len()
            )?;
        }
        for file in &published.removed_stale {
            writeln!(out, "  removed stale {}", file.display())?;
        }
        Ok(())
    }

    /// A sitemap of URLs search engines cannot reach (a folder served on this machine, a
    /// staging host of the office's network) is of no use once submitted: said on one line,
    /// with the mapping that publishes the site's public URLs instead.
    fn print_private_host(&self, out: &mut impl Write) -> std::io::Result<()> {
        let scope = &self.facts.crawl.scope;
        let crawl = &self.settings.crawl;
        // The crawl tells whether the seed's host resolved to a private address; a seed
        // that redirected to another host says nothing of that one.
        let root_resolves_private = scope.private_network && scope.root.host() == scope.seed.host();
        let private = crawl.host_map.private_published_root(
            &scope.root,
            &crawl.addresses,
            root_resolves_private,
        );
        // The example origin always parses.
        let (Some(published), Ok(public)) = (private, Url::parse("https://www.example.com/"))
        else {
            return Ok(());
        };
        writeln!(
            out,
            "Warning: the sitemap lists URLs of {}, which search engines cannot reach; to \
             publish the site's public URLs, add --map-host {} (with the site's own origin).",
            published.origin().ascii_serialization(),
            suggested_mapping(&scope.root, &public)
        )
    }

    /// The video entries written and the videos left out (`--video`), the news sitemap's
    /// articles and the articles left out (`--news`).
    fn print_media(&self, out: &mut impl Write) -> std::io::Result<()> {
        let media = self.facts.media;
        if self.settings.video {
            write!(
                out,
                "Video entries: {} on {}",
                thousands(media.videos),
                count(media.video_pages, "page")
            )?;
            if media.videos_left_out == 0 {
                writeln!(out, ".")?;
            } else {
                writeln!(
                    out,
                    "; {} left out, lacking what an entry needs:",
                    count(media.videos_left_out, "video")
                )?;
                for (page, video) in &media.left_out {
                    writeln!(out, "  {page}: {}", describe_incomplete_video(video))?;
                }
                let unnamed = media.videos_left_out - media.left_out.len() as u64;
                if unnamed > 0 {
                    writeln!(out, "  ... and {} more", thousands(unnamed))?;
                }
            }
        }
        if let Some(news) = &media.news {
            match &news.file {
                Some(file) => write!(out, "News: {} in {file}", count(news.articles, "article"))?,
                None => write!(
                    out,
                    "News: no article published in the last 48 hours; no news sitemap written"
                )?,
            }
            if news.cut > 0 {
                write!(
                    out,
                    "; {} left out beyond the 1,000 newest",
                    count(news.cut, "older article")
                )?;
            }
            if news.without_language > 0 {
                write!(
                    out,
                    "; {} left out without a language (no <html lang>, no --news-language)",
                    count(news.without_language, "article")
                )?;
            }
            if news.without_title > 0 {
                write!(
                    out,
                    "; {} left out without a headline or <title>",
                    count(news.without_title, "article")
                )?;
            }
            writeln!(out, ".")?;
        }
        Ok(())
    }

    /// The URLs that failed this time and stay listed, and those dropped after failing too
    /// many runs in a row: `Kept 2 URLs from run #14 that failed this time (503: 2).`
    fn print_kept(&self, out: &mut impl Write) -> std::io::Result<()> {
        let kept = self.facts.kept;
        let Some(from) = kept.from else {
            return Ok(());
        };
        let causes = |counts: &[(TransientCause, u64)]| {
            counts
                .iter()
                .map(|(cause, count)| format!("{cause}: {count}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        if kept.kept_count() > 0 {
            writeln!(
                out,
                "Kept {} from run #{} that failed this time ({}).",
                count(kept.kept_count(), "URL"),
                from.0,
                causes(&kept.kept)
            )?;
        }
        if kept.dropped_count() > 0 {
            writeln!(
                out,
                "Dropped {} that failed more than {} in a row (--keep-failed), reported removed ({}).",
                count(kept.dropped_count(), "URL"),
                count(self.settings.keep_failed, "run"),
                causes(&kept.dropped)
            )?;
        }
        Ok(())
    }

    /// What is unchanged since the pages were last fetched (a 304), and, of a run that
    /// published its sitemap, what changed in it since the previous run.
    fn print_changes(&self, out: &mut impl Write) -> std::io::Result<()> {
        let revalidated = self.facts.crawl.revalidated;
        if revalidated > 0 {
            writeln!(
                out,
                "Unchanged (304 Not Modified, not downloaded): {}.",
                count(revalidated, "page")
            )?;
        }
        if !self.settings.publishes_sitemaps {
            return Ok(());
        }
        self.print_kept(out)?;
        let kept = self.facts.lastmod_kept;
        if kept > 0 {
            writeln!(
                out,
                "{} served a new Last-Modified with the same content: lastmod kept.",
                count(kept, "page")
            )?;
        }
        match self.facts.since {
            Some((previous, counts)) => writeln!(
                out,
                "Since run #{}: {} added, {} removed, {} changed.",
                previous.0, counts.added, counts.removed, counts.changed
            ),
            // The change report of a first run lists every URL as added: say so, rather
            // than that there is nothing to report.
            None if self.settings.state.is_some() && self.settings.report_changes.is_some() => {
                writeln!(
                    out,
                    "First run in {}: nothing to compare with; the change report lists every URL as added.",
                    self.facts.database.display()
                )
            }
            None if self.settings.state.is_some() => writeln!(
                out,
                "First run in {}: no changes to report.",
                self.facts.database.display()
            ),
            None => Ok(()),
        }
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

/// What the run cost this process, and the browser, where the platform tells: the summary's
/// last lines.
pub fn write_resources(
    out: &mut impl Write,
    browser: Option<&BrowserReport>,
) -> std::io::Result<()> {
    let mib = |bytes: u64| bytes as f64 / (1024.0 * 1024.0);
    if let Some(peak) = peak_rss_bytes() {
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
    if let Some(seconds) = cpu_seconds() {
        match children_cpu_seconds().filter(|_| browser.is_some_and(|browser| browser.started)) {
            Some(browser) => writeln!(
                out,
                "CPU time: {seconds:.2} s, and {browser:.2} s for the browser."
            )?,
            None => writeln!(out, "CPU time: {seconds:.2} s.")?,
        }
    }
    Ok(())
}
