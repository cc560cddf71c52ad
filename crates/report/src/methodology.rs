//! How the audit was made, for the client's first page: what was crawled, as whom, within
//! which limits, whether pages were rendered, what robots.txt said, and what was left out.

use std::time::Duration;

use serde::Serialize;
use sitemapper_audit::thousands;
use sitemapper_crawl::{Concurrency, RenderMode};
use sitemapper_site::{
    MAX_RESOURCE_TIME, MAX_RESOURCES, OutboundChecked, OutboundSettings, ResourcesChecked,
    ScopeStatement, SiteRun, SiteSettings, SitemapStory, count,
};

/// How the crawl was set up, as the methodology tells it: the limits, pace and identity of
/// the crawl, and what the sitemap written beside the report holds.
#[derive(Debug, Clone)]
pub struct CrawlDescription {
    /// The `User-Agent` every request carried.
    pub user_agent: String,
    /// Whether pages were rendered in a browser.
    pub render: RenderMode,
    /// The page limit; `None`: none.
    pub max_pages: Option<u64>,
    /// The depth limit, in clicks from the start page; `None`: none.
    pub max_depth: Option<u32>,
    /// The request budget; `None`: none.
    pub max_requests: Option<u64>,
    /// Requests at once.
    pub concurrency: Concurrency,
    /// The delay between requests to one host; `None`: robots.txt's Crawl-delay, if obeyed.
    pub delay: Option<Duration>,
    /// Whether robots.txt was obeyed.
    pub respect_robots: bool,
    /// The longest Crawl-delay obeyed.
    pub max_crawl_delay: Duration,
    /// The time one request may take.
    pub request_timeout: Duration,
    /// Whether the sitemap written lists the pages' images.
    pub images: bool,
    /// Whether it lists hreflang alternates.
    pub hreflang: bool,
    /// Whether it lists videos.
    pub video: bool,
    /// The publication of the news sitemap written, if one is.
    pub news_publication: Option<String>,
    /// The names of the kinds of linked document the sitemap lists (`pdf`, ...).
    pub documents: Vec<&'static str>,
}

impl CrawlDescription {
    /// The description of a crawl run with `site`.
    pub fn of(site: &SiteSettings) -> CrawlDescription {
        let crawl = &site.crawl;
        CrawlDescription {
            user_agent: crawl.user_agent.clone(),
            render: crawl.render,
            max_pages: crawl.max_pages,
            max_depth: crawl.max_depth,
            max_requests: crawl.max_requests,
            concurrency: crawl.concurrency,
            delay: crawl.delay,
            respect_robots: crawl.respect_robots,
            max_crawl_delay: crawl.max_crawl_delay,
            request_timeout: crawl.request_timeout,
            images: site.images,
            hreflang: site.hreflang,
            video: site.video,
            news_publication: site.news.as_ref().map(|news| news.publication.clone()),
            documents: crawl
                .documents
                .kinds()
                .iter()
                .map(|kind| kind.name())
                .collect(),
        }
    }
}

/// The methodology block of the report: each field a sentence or a short phrase.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Methodology {
    /// The site audited (the crawl's scope root).
    pub site: String,
    /// When, `YYYY-MM-DD HH:MM UTC`.
    pub date: String,
    /// `sitemapper 1.2.3`.
    pub version: String,
    /// The `User-Agent` every request carried.
    pub user_agent: String,
    /// What the crawl covered: the scope, as the crawl's summary states it.
    pub scope: String,
    /// What the crawl was allowed: pages, depth, requests, concurrency, pace.
    pub limits: String,
    /// Whether and why pages were rendered in a browser.
    pub rendering: String,
    /// Pages rendered in the browser.
    pub pages_rendered: u64,
    /// What each robots.txt said, or that it was ignored.
    pub robots_txt: String,
    /// The site's own sitemaps: where they were looked for, what was read, what was not
    /// and why (the story the audit's summary tells).
    pub sitemaps: String,
    /// Whether links to other sites were checked, and how.
    pub external_checks: String,
    /// The check of the site's images, scripts and style sheets: how many, how many broken.
    pub resources: String,
    /// What the sitemap written beside the report holds besides its pages' URLs: the
    /// extensions asked for, the news sitemap, the document types.
    pub sitemap_written: String,
    /// What the crawl left out, and why.
    pub out_of_scope: String,
}

impl Methodology {
    /// The block as labelled rows, in the order the report shows them.
    pub(crate) fn rows(&self) -> [(&'static str, String); 15] {
        [
            ("Site", self.site.clone()),
            ("Date", self.date.clone()),
            ("Tool", self.version.clone()),
            ("User agent", self.user_agent.clone()),
            ("Scope", self.scope.clone()),
            ("Limits", self.limits.clone()),
            ("Rendering", self.rendering.clone()),
            ("Pages rendered", self.pages_rendered.to_string()),
            ("robots.txt", self.robots_txt.clone()),
            ("Sitemaps", self.sitemaps.clone()),
            ("Structured data", STRUCTURED_DATA.to_string()),
            ("Links to other sites", self.external_checks.clone()),
            ("Images, scripts and style sheets", self.resources.clone()),
            ("Sitemap written", self.sitemap_written.clone()),
            ("Not crawled", self.out_of_scope.clone()),
        ]
    }
}

/// What an audit does with each page's structured data.
const STRUCTURED_DATA: &str = "JSON-LD and microdata read on every page, and checked against \
     the properties Google's rich results require and recommend";

/// How the crawl of `crawled` was made as `crawl` describes it, on `date`; `sitemaps` is the
/// story of the site's sitemaps, `external_checks` what the audit did with links to other
/// sites.
pub fn methodology(
    crawl: &CrawlDescription,
    crawled: &SiteRun,
    date: &str,
    sitemaps: &SitemapStory<'_>,
    external_checks: String,
    resources: &ResourcesChecked,
) -> Methodology {
    let summary = &crawled.summary;
    let scope = ScopeStatement(&summary.scope).to_string();
    Methodology {
        site: summary.scope.root.to_string(),
        date: date.to_string(),
        version: format!("sitemapper {}", env!("CARGO_PKG_VERSION")),
        user_agent: crawl.user_agent.clone(),
        scope: scope.strip_prefix("Scope: ").unwrap_or(&scope).to_string(),
        limits: limits(crawl),
        rendering: rendering(crawl.render).to_string(),
        pages_rendered: summary.render.rendered,
        robots_txt: robots_txt(crawl, crawled),
        sitemaps: one_paragraph(&sitemaps.to_string()),
        external_checks,
        resources: resource_checks(resources),
        sitemap_written: sitemap_written(crawl),
        out_of_scope: out_of_scope(crawled),
    }
}

/// What the check of the site's own images, scripts and style sheets covered.
pub(crate) fn resource_checks(checked: &ResourcesChecked) -> String {
    if checked.resources == 0 {
        return "none: the pages load no image, script or style sheet of the site".to_string();
    }
    let number = |count: usize| thousands(count as u64);
    let mut said = format!(
        "{} {} of the site that the pages load, {} checked once each with a GET (an image's \
         first 64 KiB, a script or style sheet whole): {} broken",
        number(checked.resources),
        if checked.resources == 1 {
            "resource"
        } else {
            "resources"
        },
        number(checked.checked),
        number(checked.broken),
    );
    if checked.not_checked > 0 {
        said.push_str(&format!(
            "; {} not checked (at most {} are, within {} minutes)",
            number(checked.not_checked),
            thousands(MAX_RESOURCES as u64),
            MAX_RESOURCE_TIME.as_secs() / 60,
        ));
    }
    said
}

/// What the sitemap written in the crawl `site` describes holds besides its pages' URLs.
fn sitemap_written(site: &CrawlDescription) -> String {
    let mut parts = vec!["the listed pages".to_string()];
    if site.images {
        parts.push("their images".to_string());
    }
    if site.hreflang {
        parts.push("hreflang alternates".to_string());
    }
    if site.video {
        parts.push("video entries".to_string());
    }
    if let Some(publication) = &site.news_publication {
        parts.push(format!(
            "a news sitemap for {publication:?} (articles of the last 48 hours)"
        ));
    }
    if !site.documents.is_empty() {
        parts.push(format!("linked documents ({})", site.documents.join(", ")));
    }
    parts.join("; ")
}

/// The story's lines as one paragraph, without its opening words.
fn one_paragraph(story: &str) -> String {
    let text: Vec<&str> = story.lines().map(str::trim).collect();
    let text = text.join(" ");
    text.strip_prefix("The site's sitemaps: ")
        .unwrap_or(&text)
        .to_string()
}

/// Whether and how the links to other sites were checked (`settings` `None`: not at all).
pub fn external_checks(
    settings: Option<&OutboundSettings>,
    checked: Option<&OutboundChecked>,
) -> String {
    let (Some(settings), Some(checked)) = (settings, checked) else {
        return "not checked (--check-external=false)".to_string();
    };
    if checked.network_unavailable {
        return format!(
            "not checked: the network looked unavailable (most of the {} asked could not be reached), so no link to another site is reported broken; {} reused from a check younger than {}",
            count(checked.hosts, "host"),
            checked.from_cache,
            age(settings.max_age),
        );
    }
    let mut said = if checked.hosts == 0 {
        // Every result reused: no host was asked.
        format!(
            "{}: none checked now, {} reused from a check younger than {}",
            count(checked.urls, "outbound URL"),
            checked.from_cache,
            age(settings.max_age),
        )
    } else {
        format!(
            "{} on {} checked: {} now, {} reused from a check younger than {}; HEAD, then GET where HEAD is refused; robots.txt of each host obeyed; one request at a time per host, {}s apart; {}s per request",
            count(checked.urls, "outbound URL"),
            count(checked.hosts, "host"),
            checked.checked,
            checked.from_cache,
            age(settings.max_age),
            settings.delay.as_secs_f64(),
            settings.timeout.as_secs_f64(),
        )
    };
    if checked.not_checked > 0 {
        said.push_str(&format!(
            "; {} not checked, beyond the checks' budget of {} and {}s (reported as not checked, neither working nor broken)",
            count(checked.not_checked, "URL"),
            count(settings.max_links, "link"),
            settings.max_time.as_secs()
        ));
    }
    said
}

/// A duration as `--external-max-age` takes it: in days, hours, minutes or seconds, the
/// largest unit that divides it.
fn age(duration: Duration) -> String {
    let seconds = duration.as_secs();
    [(86_400, "d"), (3_600, "h"), (60, "m")]
        .iter()
        .find(|(unit, _)| seconds > 0 && seconds.is_multiple_of(*unit))
        .map_or_else(
            || format!("{seconds}s"),
            |(unit, name)| format!("{}{name}", seconds / unit),
        )
}

/// The limits the crawl ran within.
fn limits(crawl: &CrawlDescription) -> String {
    let mut parts = vec![
        match crawl.max_pages {
            Some(pages) => format!("at most {}", count(pages, "page")),
            None => "no page limit".to_string(),
        },
        match crawl.max_depth {
            Some(depth) => format!("{} from the start page at most", count(depth, "click")),
            None => "no depth limit".to_string(),
        },
    ];
    if let Some(requests) = crawl.max_requests {
        parts.push(format!("at most {}", count(requests, "request")));
    }
    parts.push(match crawl.concurrency {
        Concurrency::Fixed(limit) => format!("{} at once", count(limit.max(1), "request")),
        Concurrency::Auto => "requests at once adapted to the site's response times".to_string(),
    });
    parts.push(match crawl.delay {
        Some(delay) => format!("{}s between requests to one host", delay.as_secs_f64()),
        None if crawl.respect_robots => format!(
            "robots.txt Crawl-delay obeyed, up to {}s",
            crawl.max_crawl_delay.as_secs()
        ),
        None => "no delay between requests".to_string(),
    });
    parts.push(format!(
        "{}s per request",
        crawl.request_timeout.as_secs_f64()
    ));
    parts.join("; ")
}

/// The rendering mode, in words.
fn rendering(mode: RenderMode) -> &'static str {
    match mode {
        RenderMode::Never => "off: every page read as served (--render never)",
        RenderMode::Auto => {
            "when needed: a page of each kind that looks built by JavaScript is rendered in headless Chromium, and the others of its kind while rendering finds links the HTML lacks; a page that shows it is still loading is rendered for itself; links a script draws on every page of a kind (a menu, a sidebar) count as links of each, for depth, inlinks and orphans"
        }
        RenderMode::Always => "every HTML page rendered in headless Chromium (--render always)",
    }
}

/// What each robots.txt read said, or that robots.txt was not obeyed.
fn robots_txt(crawl: &CrawlDescription, crawled: &SiteRun) -> String {
    if !crawl.respect_robots {
        return "ignored (--ignore-robots): every URL was crawled".to_string();
    }
    let said: Vec<String> = crawled
        .notes
        .robots
        .iter()
        .map(|(origin, policy)| format!("{origin}: {policy}"))
        .collect();
    if said.is_empty() {
        "obeyed; none was read".to_string()
    } else {
        format!("obeyed; {}", said.join("; "))
    }
}

/// What the crawl did not reach, and why.
fn out_of_scope(crawled: &SiteRun) -> String {
    let summary = &crawled.summary;
    let mut parts =
        vec!["URLs outside the scope (other sites, other directories) are not crawled".to_string()];
    if summary.beyond_max_depth > 0 {
        parts.push(format!(
            "{} deeper than the depth limit not followed",
            count(summary.beyond_max_depth, "link")
        ));
    }
    if summary.left_by_max_pages > 0 {
        parts.push(format!(
            "{} left by the page limit",
            count(summary.left_by_max_pages, "queued URL")
        ));
    }
    if summary.beyond_max_urls > 0 {
        parts.push(format!(
            "{} to new URLs past the URL limit not followed",
            count(summary.beyond_max_urls, "link")
        ));
    }
    if summary.request_budget_exhausted {
        parts.push("the request budget ran out".to_string());
    }
    if summary.interrupted {
        parts.push("the crawl was stopped before its end".to_string());
    }
    parts.join("; ")
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use sitemapper_site::{OutboundChecked, OutboundSettings, ResourcesChecked};

    use super::{age, external_checks, resource_checks};

    #[test]
    fn an_age_is_said_in_its_largest_whole_unit() {
        let said = |seconds| age(Duration::from_secs(seconds));
        assert_eq!(said(7 * 86_400), "7d");
        assert_eq!(said(12 * 3_600), "12h");
        assert_eq!(said(90 * 60), "90m");
        assert_eq!(said(61), "61s");
        assert_eq!(said(0), "0s");
    }

    #[test]
    fn the_checks_of_links_to_other_sites_are_said_as_they_went() {
        let settings = OutboundSettings::default();
        let said = |checked: OutboundChecked| external_checks(Some(&settings), Some(&checked));
        let all_reused = OutboundChecked {
            urls: 78,
            from_cache: 78,
            ..OutboundChecked::default()
        };
        assert_eq!(
            said(all_reused),
            "78 outbound URLs: none checked now, 78 reused from a check younger than 7d"
        );
        let checked = OutboundChecked {
            urls: 3,
            checked: 2,
            from_cache: 1,
            hosts: 2,
            ..OutboundChecked::default()
        };
        assert!(
            said(checked).starts_with("3 outbound URLs on 2 hosts checked: 2 now, 1 reused"),
            "{}",
            said(checked)
        );
        let offline = OutboundChecked {
            urls: 4,
            hosts: 4,
            network_unavailable: true,
            ..OutboundChecked::default()
        };
        assert_eq!(
            said(offline),
            "not checked: the network looked unavailable (most of the 4 hosts asked could not be reached), so no link to another site is reported broken; 0 reused from a check younger than 7d"
        );
        assert_eq!(
            external_checks(None, None),
            "not checked (--check-external=false)"
        );
    }

    #[test]
    fn the_resources_checked_are_counted_and_those_left_out_said() {
        assert_eq!(
            resource_checks(&ResourcesChecked::default()),
            "none: the pages load no image, script or style sheet of the site"
        );
        let cut = ResourcesChecked {
            resources: 25_000,
            checked: 20_000,
            broken: 12,
            not_checked: 5_000,
        };
        assert_eq!(
            resource_checks(&cut),
            "25,000 resources of the site that the pages load, 20,000 checked once each with a GET \
             (an image's first 64 KiB, a script or style sheet whole): 12 broken; 5,000 not \
             checked (at most 20,000 are, within 10 minutes)"
        );
    }
}
