//! The crawl engine's plain configuration: every field resolved, every default in `Default`.

use std::time::Duration;

use sitemapper_extract::CustomExtraction;
use url::Url;

use crate::access::SiteAccess;
use crate::address::AddressPolicy;
use crate::concurrency::Concurrency;
use crate::documents::Documents;
use crate::fetch::FetchSettings;
use crate::host_map::HostMap;
use crate::network::NetworkOptions;
use crate::normalize::DEFAULT_STRIP_PARAMETERS;
use crate::render::RenderMode;
use crate::scope::ScopeOptions;

/// The default of [`CrawlConfig::render_other_host_requests`].
pub const DEFAULT_OTHER_HOST_REQUESTS: u64 = 100;

/// The default limit of a chain of same-shaped pages: deep enough for long "next page"
/// paginations, short enough to stop an endless calendar within seconds.
pub(crate) const DEFAULT_MAX_PATTERN_CHAIN: u32 = 100;

/// The default cap on distinct URLs discovered: far above any site that lists its pages in a
/// sitemap by hand, low enough that the seen-set of a site that makes links without end stays
/// within a few tens of MiB.
pub(crate) const DEFAULT_MAX_URLS: u64 = 2_000_000;

/// Everything the engine needs to know, resolved by the caller.
#[derive(Debug, Clone)]
pub struct CrawlConfig {
    /// Fetch jobs in flight at once, over all origins: a fixed number, or adapted to the
    /// site's response times.
    pub concurrency: Concurrency,
    /// Stop requesting pages after this many (robots.txt requests not counted).
    pub max_pages: Option<u64>,
    /// Links found at this depth are not followed (the seed is depth 0).
    pub max_depth: Option<u32>,
    /// Minimum time between two requests to one origin. `None`: the robots.txt `Crawl-delay`,
    /// if any, else no delay. `Some` overrides `Crawl-delay`.
    pub delay: Option<Duration>,
    /// The upper bound for a robots.txt `Crawl-delay`, so one line cannot stall a crawl for hours.
    pub max_crawl_delay: Duration,
    /// The User-Agent header of every request; its product token is the robots.txt name.
    pub user_agent: String,
    /// Obey robots.txt. Off only for auditing one's own site.
    pub respect_robots: bool,
    /// Deadline for a connection to be established.
    pub connect_timeout: Duration,
    /// Deadline for one whole request, body included: a body that trickles forever ends here.
    pub request_timeout: Duration,
    /// Body cap on the decompressed size; longer bodies are truncated.
    pub max_body_bytes: usize,
    /// Redirect hops followed from one requested URL.
    pub max_redirects: usize,
    /// Extra attempts after a timeout, a connection error, 429, 502, 503 or 504.
    pub retries: u32,
    /// First backoff before a retry; doubled for each further attempt, with jitter.
    pub retry_base_delay: Duration,
    /// The longest `Retry-After` honoured; longer values are cut to this.
    pub max_retry_after: Duration,
    /// How the scope is widened or narrowed from the seed's directory.
    pub scope: ScopeOptions,
    /// Parameters stripped before fetching (a trailing `*` matches any suffix); by default the
    /// tracking and session parameters (`utm_*`, `gclid`, `PHPSESSID`, `jsessionid`, ...).
    pub strip_parameters: Vec<String>,
    /// URLs longer than this are never fetched nor listed. No limit by default: the sitemaps
    /// protocol's limit is the sitemap crate's to state, and the binary sets it.
    pub max_url_length: usize,
    /// Stop after this many page requests in all (redirect hops and retries included).
    pub max_requests: Option<u64>,
    /// Stop discovering after this many distinct in-scope URLs; the queued ones are still
    /// fetched.
    pub max_urls: u64,
    /// Which addresses may be connected to (docs/design.md, Safety).
    pub addresses: AddressPolicy,
    /// Same-shaped pages each found only on the one before (an endless calendar) followed at
    /// most this deep; 0 turns the limit off. See `traps`.
    pub max_pattern_chain: u32,
    /// Report each page's links in its outcome (for a crawl database kept across runs).
    pub record_links: bool,
    /// Read what only an audit needs: link texts, headings, language, images without alt
    /// text and their links, resources loaded over http.
    pub page_details: bool,
    /// Report the images each page shows (image sitemaps).
    pub collect_images: bool,
    /// Read each page's structured data (JSON-LD, microdata, `<video>` elements): for an
    /// audit's rich-result checks and for video and news entries.
    pub structured_data: bool,
    /// Report each page's hreflang alternates, normalized.
    pub collect_alternates: bool,
    /// When pages are rendered in a browser (the browser itself is given with
    /// [`crate::Crawler::with_renderer`]).
    pub render: RenderMode,
    /// Requests a rendered page may make to other hosts than the site's (a CDN, an API);
    /// those past it are refused.
    pub render_other_host_requests: u64,
    /// Headers, basic authentication and cookies for the site's origins (secrets).
    pub access: SiteAccess,
    /// The proxy and the TLS certificates trusted.
    pub network: NetworkOptions,
    /// Production hosts whose URLs are crawled on their staging copy.
    pub host_map: HostMap,
    /// Values to pick out of every HTML page that answers 200 (its rendered DOM when it is
    /// rendered), reported in [`crate::PageOutcome::extracted`].
    pub extractions: Vec<CustomExtraction>,
    /// Once links lead nowhere new, read the site's own sitemaps (those
    /// [`crate::site_sitemaps`] finds) and crawl what they list that links did not lead to
    /// (the reader is given with [`crate::Crawler::with_sitemap_reader`]).
    pub seed_sitemaps: bool,
    /// The site's sitemaps to seed from, when the user names them; empty: those robots.txt
    /// names, else those at the usual paths ([`crate::USUAL_SITEMAP_PATHS`]).
    pub sitemap_roots: Vec<Url>,
    /// Where this crawl's own sitemaps are published (`--base-url`), never read as seeds;
    /// `None`: the scope's root as published.
    pub published_base: Option<Url>,
    /// The names of the files the crawl's output directory holds from earlier runs (none for
    /// an audit's report directory, which the site does not serve): under `published_base`,
    /// they are this crawl's own output, never requested as seeds.
    pub own_sitemaps: Vec<String>,
    /// The types of linked documents listed (PDF, office files): none by default.
    pub documents: Documents,
}

impl Default for CrawlConfig {
    fn default() -> Self {
        // The fetcher states the defaults of its own settings.
        let fetch = FetchSettings::default();
        CrawlConfig {
            concurrency: Concurrency::default(),
            max_pages: None,
            max_depth: None,
            delay: None,
            max_crawl_delay: Duration::from_secs(30),
            user_agent: fetch.user_agent,
            respect_robots: true,
            connect_timeout: fetch.connect_timeout,
            request_timeout: fetch.request_timeout,
            max_body_bytes: 10 * 1024 * 1024,
            max_redirects: fetch.max_redirects,
            retries: fetch.retries,
            retry_base_delay: fetch.retry_base_delay,
            max_retry_after: fetch.max_retry_after,
            scope: ScopeOptions::default(),
            strip_parameters: DEFAULT_STRIP_PARAMETERS
                .iter()
                .map(|parameter| parameter.to_string())
                .collect(),
            max_url_length: usize::MAX,
            max_requests: None,
            max_urls: DEFAULT_MAX_URLS,
            addresses: AddressPolicy::default(),
            max_pattern_chain: DEFAULT_MAX_PATTERN_CHAIN,
            record_links: false,
            page_details: false,
            collect_images: false,
            structured_data: false,
            collect_alternates: false,
            render: RenderMode::Auto,
            render_other_host_requests: DEFAULT_OTHER_HOST_REQUESTS,
            access: SiteAccess::default(),
            network: NetworkOptions::default(),
            host_map: HostMap::default(),
            extractions: Vec::new(),
            seed_sitemaps: false,
            sitemap_roots: Vec::new(),
            published_base: None,
            own_sitemaps: Vec::new(),
            documents: Documents::default(),
        }
    }
}

impl CrawlConfig {
    /// How the crawl's [`crate::Fetcher`] requests.
    pub fn fetch_settings(&self) -> FetchSettings {
        FetchSettings {
            user_agent: self.user_agent.clone(),
            connect_timeout: self.connect_timeout,
            request_timeout: self.request_timeout,
            max_redirects: self.max_redirects,
            retries: self.retries,
            retry_base_delay: self.retry_base_delay,
            max_retry_after: self.max_retry_after,
            idle_connections_per_host: self.concurrency.most(),
            crawl_options: true,
        }
    }

    /// The robots.txt product token: the User-Agent up to its first `/` or space, which is what
    /// a site names in `User-agent:` lines (RFC 9309 section 2.2.1).
    pub fn robots_token(&self) -> String {
        let token: String = self
            .user_agent
            .chars()
            .take_while(|character| {
                character.is_ascii_alphanumeric() || matches!(character, '-' | '_')
            })
            .collect();
        if token.is_empty() {
            "sitemapper".to_string()
        } else {
            token
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn robots_token_is_the_product_token_of_the_user_agent() {
        let mut config = CrawlConfig::default();
        assert_eq!(config.robots_token(), "sitemapper");
        config.user_agent = "AcmeBot/2.1 (+https://acme.example/bot)".to_string();
        assert_eq!(config.robots_token(), "AcmeBot");
        config.user_agent = "/weird".to_string();
        assert_eq!(config.robots_token(), "sitemapper");
    }
}
