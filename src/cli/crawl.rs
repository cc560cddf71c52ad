//! The options of `crawl`, which `audit` takes too.
//!
//! Each doc comment is the option's help: its first paragraph is the line `-h` prints, kept
//! short enough to fit one line; the whole comment is what `--help` and the manual print.
//! The options marked `hide_short_help` are left out of `-h`, which shows the ones a first
//! crawl needs.

use std::path::PathBuf;

use clap::Args;

use super::names::SummaryFormat;
use super::names::{ChangefreqRule, ConcurrencyName, FormatName, PriorityRule, RenderName};
use super::values::{
    CONCURRENCY, CONNECT_TIMEOUT, DELAY, KEEP_FAILED, MAX_BODY_SIZE, MAX_BYTES_PER_FILE, MAX_DEPTH,
    MAX_PAGES, MAX_PATTERN_CHAIN, MAX_REQUESTS, MAX_SHRINK, MAX_URLS, MAX_URLS_PER_FILE, Percent,
    RENDER_CONCURRENCY, RENDER_OTHER_HOST_REQUESTS, RENDER_TIMEOUT, RETRIES, TIMEOUT,
};

#[derive(Debug, Default, Args)]
pub(crate) struct CrawlArgs {
    /// The site's root URL, or a directory of it
    ///
    /// The seed: the site's root URL (https://example.com/), or a directory of it
    /// (https://example.com/blog/, and below). Required, here or as `url` in the config file.
    pub(crate) url: Option<String>,

    /// Stop after requesting N pages
    ///
    /// [range: 1 to 1000000000]
    #[arg(
        long,
        value_name = "N",
        value_parser = MAX_PAGES.parser::<u64>(),
        help_heading = "Crawl"
    )]
    pub(crate) max_pages: Option<u64>,

    /// Follow links at most N clicks from the seed
    ///
    /// [range: 0 to 1000000]
    #[arg(
        long,
        value_name = "N",
        value_parser = MAX_DEPTH.parser::<u32>(),
        help_heading = "Crawl"
    )]
    pub(crate) max_depth: Option<u32>,

    /// Only crawl URLs matching REGEX (repeatable)
    #[arg(long, value_name = "REGEX", help_heading = "Crawl")]
    pub(crate) include: Vec<String>,

    /// Never crawl URLs matching REGEX (repeatable)
    #[arg(long, value_name = "REGEX", help_heading = "Crawl")]
    pub(crate) exclude: Vec<String>,

    /// Also crawl what the site's own sitemaps list
    ///
    /// Once links lead nowhere new, also crawl what the site's own sitemaps list (robots.txt's
    /// Sitemap: lines, else /sitemap.xml, /sitemap_index.xml and /sitemap.xml.gz; never this
    /// crawl's own output), under the same rules as links [default: false for crawl, true for
    /// audit; =false turns it off]
    #[arg(
        long,
        value_name = "BOOL",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "true",
        hide_possible_values = true,
        help_heading = "Crawl"
    )]
    pub(crate) seed_sitemaps: Option<bool>,

    /// Also crawl subdomains of the seed's host
    #[arg(long, help_heading = "Crawl")]
    pub(crate) allow_subdomains: bool,

    /// Seconds one request may take, body included
    ///
    /// [default: 30] [range: 0.001 to 86400]
    #[arg(
        long,
        value_name = "SECONDS",
        value_parser = TIMEOUT.parser::<f64>(),
        help_heading = "Crawl"
    )]
    pub(crate) timeout: Option<f64>,

    /// Stop after N HTTP requests in all
    ///
    /// Redirect hops and retries count as requests. [range: 1 to 1000000000]
    #[arg(
        long,
        value_name = "N",
        value_parser = MAX_REQUESTS.parser::<u64>(),
        help_heading = "Crawl",
        hide_short_help = true
    )]
    pub(crate) max_requests: Option<u64>,

    /// Stop discovering new URLs after N distinct ones
    ///
    /// The URLs found by then are still crawled. [default: 2000000] [range: 1 to 1000000000]
    #[arg(
        long,
        value_name = "N",
        value_parser = MAX_URLS.parser::<u64>(),
        help_heading = "Crawl",
        hide_short_help = true
    )]
    pub(crate) max_urls: Option<u64>,

    /// Seconds to wait for a connection
    ///
    /// [default: 10] [range: 0.001 to 86400]
    #[arg(
        long,
        value_name = "SECONDS",
        value_parser = CONNECT_TIMEOUT.parser::<f64>(),
        help_heading = "Crawl",
        hide_short_help = true
    )]
    pub(crate) connect_timeout: Option<f64>,

    /// Bytes of a page read at most, after decompression
    ///
    /// A larger page is read up to this many bytes, and its links found. [default: 10485760]
    /// [range: 1 to 1073741824]
    #[arg(
        long,
        value_name = "BYTES",
        value_parser = MAX_BODY_SIZE.parser::<usize>(),
        help_heading = "Crawl",
        hide_short_help = true
    )]
    pub(crate) max_body_size: Option<usize>,

    /// Follow a chain of same-shaped pages at most N deep
    ///
    /// A chain of same-shaped pages, each found only on the one before (an endless calendar),
    /// is a crawler trap: it is followed at most N deep; 0: no limit. [default: 100] [range: 0
    /// to 1000000]
    #[arg(
        long,
        value_name = "N",
        value_parser = MAX_PATTERN_CHAIN.parser::<u32>(),
        help_heading = "Crawl",
        hide_short_help = true
    )]
    pub(crate) max_pattern_chain: Option<u32>,

    /// Allow private, loopback and link-local addresses
    ///
    /// A public site cannot lead the crawl to them (a link, a redirect, a name that resolves
    /// there); they are allowed anyway when the seed itself is on one.
    #[arg(long, help_heading = "Crawl", hide_short_help = true)]
    pub(crate) allow_private: bool,

    /// Query parameter stripped from URLs (repeatable)
    ///
    /// Stripped from every URL before it is fetched; `name*` matches a prefix. Repeatable;
    /// replaces the default list (utm_*, gclid, fbclid, msclkid, PHPSESSID, jsessionid, sid,
    /// sessionid).
    #[arg(
        long,
        value_name = "NAME",
        help_heading = "Crawl",
        hide_short_help = true
    )]
    pub(crate) strip_param: Vec<String>,

    /// Requests in flight at once, or auto
    ///
    /// auto starts from 2, adds requests while the site's response times stay flat, and takes
    /// them away when they rise or the site is overloaded (429, 502, 503, 504, timeouts), at
    /// most 64. [default: 8] [range: 1 to 256]
    #[arg(
        long,
        value_name = "N|auto",
        value_parser = CONCURRENCY.parser::<ConcurrencyName>(),
        help_heading = "Politeness"
    )]
    pub(crate) concurrency: Option<ConcurrencyName>,

    /// Seconds between two requests to one host
    ///
    /// Overrides robots.txt's Crawl-delay. [range: 0 to 86400]
    #[arg(
        long,
        value_name = "SECONDS",
        value_parser = DELAY.parser::<f64>(),
        help_heading = "Politeness"
    )]
    pub(crate) delay: Option<f64>,

    /// The User-Agent header (picks robots.txt's group)
    ///
    /// Its product token selects the robots.txt group. Without line breaks or other control characters. [default: sitemapper/<version>
    /// (+<project url>)]
    #[arg(long, value_name = "STRING", help_heading = "Politeness")]
    pub(crate) user_agent: Option<String>,

    /// Ignore robots.txt (only for auditing your own site)
    #[arg(long, help_heading = "Politeness", hide_short_help = true)]
    pub(crate) ignore_robots: bool,

    /// Retries after a timeout, a failed connection, 429 or 5xx
    ///
    /// After a timeout, a connection error, 429, 502, 503 or 504, with exponential backoff,
    /// honouring Retry-After up to 60 s. [default: 2] [range: 0 to 10]
    #[arg(
        long,
        value_name = "N",
        value_parser = RETRIES.parser::<u32>(),
        help_heading = "Politeness",
        hide_short_help = true
    )]
    pub(crate) retries: Option<u32>,

    /// When to render pages in Chromium: auto, always, never
    ///
    /// auto renders one page of each kind whose HTML looks like an application shell once
    /// links run out, and the rest of a kind only where that finds URLs, a canonical or a
    /// noindex the HTML does not have; always renders every HTML page; never reads HTML as
    /// served. [default: auto]
    #[arg(
        long,
        value_name = "WHEN",
        hide_possible_values = true,
        help_heading = "Rendering"
    )]
    pub(crate) render: Option<RenderName>,

    /// The browser to render with
    ///
    /// [default: $CHROME, else chromium, chromium-browser or google-chrome on PATH]
    #[arg(long, value_name = "PATH", help_heading = "Rendering")]
    pub(crate) chrome: Option<PathBuf>,

    /// Pages rendered at once, each in its own tab
    ///
    /// [default: 2] [range: 1 to 64]
    #[arg(
        long,
        value_name = "N",
        value_parser = RENDER_CONCURRENCY.parser::<usize>(),
        help_heading = "Rendering",
        hide_short_help = true
    )]
    pub(crate) render_concurrency: Option<usize>,

    /// Seconds a page may take to render
    ///
    /// A page that takes longer is read as served. [default: 10] [range: 0.001 to 86400]
    #[arg(
        long,
        value_name = "SECONDS",
        value_parser = RENDER_TIMEOUT.parser::<f64>(),
        help_heading = "Rendering",
        hide_short_help = true
    )]
    pub(crate) render_timeout: Option<f64>,

    /// Requests a rendered page may make to other hosts
    ///
    /// Requests to CDNs and APIs; those past it are refused. [default: 100] [range: 0 to
    /// 100000]
    #[arg(
        long,
        value_name = "N",
        value_parser = RENDER_OTHER_HOST_REQUESTS.parser::<u64>(),
        help_heading = "Rendering",
        hide_short_help = true
    )]
    pub(crate) render_other_host_requests: Option<u64>,

    /// Directory for the sitemaps (- for stdout)
    ///
    /// sitemap.xml and its children are written into DIR, which is created if missing; -
    /// prints the sitemap on stdout. [default: . for crawl, the --report directory for audit]
    #[arg(short, long, value_name = "DIR", help_heading = "Output")]
    pub(crate) out: Option<PathBuf>,

    /// Gzip the children of a sitemap.xml index
    ///
    /// Children are named sitemap-00001.xml.gz; the index stays uncompressed.
    #[arg(long, help_heading = "Output")]
    pub(crate) gzip: bool,

    /// URL under which the sitemaps are published
    ///
    /// An absolute URL. [default: the seed's directory]
    #[arg(long, value_name = "URL", help_heading = "Output")]
    pub(crate) base_url: Option<String>,

    /// One sitemap per section, language or pattern
    ///
    /// Split the sitemap into files by group under one sitemap.xml index: "section" (the first
    /// path segment with pages beneath it), "language" (each page's own hreflang, else <html
    /// lang>), or NAME=REGEX (repeatable, first match wins); the rest go into
    /// sitemap-other.xml.
    #[arg(long, value_name = "RULE", help_heading = "Output")]
    pub(crate) split_by: Vec<String>,

    /// Formats: xml, txt or xml,txt
    ///
    /// xml writes sitemap.xml, txt writes sitemap.txt (one URL per line), xml,txt both.
    /// [default: xml]
    #[arg(
        long,
        value_name = "FORMAT",
        value_delimiter = ',',
        hide_possible_values = true,
        help_heading = "Output"
    )]
    pub(crate) format: Vec<FormatName>,

    /// Add the images each page shows (<image:image>)
    #[arg(long, help_heading = "Output")]
    pub(crate) images: bool,

    /// Add hreflang alternates between listed pages
    ///
    /// As <xhtml:link rel="alternate" hreflang> entries.
    #[arg(long, help_heading = "Output")]
    pub(crate) hreflang: bool,

    /// Add the videos each page declares (<video:video>)
    ///
    /// From VideoObject structured data (JSON-LD or microdata), else each <video> with a
    /// poster (titled by its title attribute or the page's <title>, described by the meta
    /// description). A video without thumbnail, title, description and a video or player URL
    /// is left out, and the summary says why. [default: false]
    #[arg(
        long,
        value_name = "BOOL",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "true",
        hide_possible_values = true,
        hide_short_help = true,
        help_heading = "Output"
    )]
    pub(crate) video: Option<bool>,

    /// Write a news sitemap for the publication NAME
    ///
    /// sitemap-news.xml (.xml.gz with --gzip), listed in the sitemap.xml index: the articles
    /// (Article, NewsArticle, BlogPosting... items) published in the last 48 hours, newest
    /// first, at most 1,000; rewritten at every run, removed when no article is recent.
    #[arg(
        long,
        value_name = "NAME",
        hide_short_help = true,
        help_heading = "Output"
    )]
    pub(crate) news: Option<String>,

    /// The news sitemap's language for pages without <html lang>
    ///
    /// An ISO 639 code (en, de, zh-cn, zh-tw); a page without lang and without this is left
    /// out of the news sitemap.
    #[arg(
        long,
        value_name = "LANG",
        hide_short_help = true,
        help_heading = "Output"
    )]
    pub(crate) news_language: Option<String>,

    /// List linked documents of these types: pdf,docx,...
    ///
    /// PDF and office files linked from the site's pages are listed under their own URLs, as
    /// search engines index them: pdf, doc, docx, xls, xlsx, ppt, pptx, odt, ods, odp, rtf.
    /// A link ending in such an extension is checked with HEAD (its body is never
    /// downloaded), and listed when it answers 200 with the type's content type, without
    /// X-Robots-Tag noindex or a Link canonical to another URL. [default: none]
    #[arg(
        long,
        value_name = "TYPES",
        value_delimiter = ',',
        help_heading = "Output",
        hide_short_help = true
    )]
    pub(crate) documents: Vec<String>,

    /// Write every URL not listed, and why (CSV)
    ///
    /// With its reason, status and referrer; - for stdout.
    #[arg(long, value_name = "FILE", help_heading = "Output")]
    pub(crate) list_not_listed: Option<PathBuf>,

    /// Summary as text (stderr) or json (stdout)
    ///
    /// text: sentences for people, on stderr; json: one object on stdout, whose fields
    /// docs/summary-json.md describes (stderr then gets warnings and errors only). [default:
    /// text]
    #[arg(
        long,
        value_name = "FORMAT",
        hide_possible_values = true,
        help_heading = "Output"
    )]
    pub(crate) summary: Option<SummaryFormat>,

    /// Uncompressed bytes per sitemap file
    ///
    /// [default: 52428800] [range: 4096 to 52428800]
    #[arg(
        long,
        value_name = "BYTES",
        value_parser = MAX_BYTES_PER_FILE.parser::<u64>(),
        help_heading = "Output",
        hide_short_help = true
    )]
    pub(crate) max_bytes_per_file: Option<u64>,

    /// URLs per sitemap file
    ///
    /// [default: 50000] [range: 1 to 50000]
    #[arg(
        long,
        value_name = "N",
        value_parser = MAX_URLS_PER_FILE.parser::<usize>(),
        help_heading = "Output",
        hide_short_help = true
    )]
    pub(crate) max_urls_per_file: Option<usize>,

    /// Write <priority> (ignored by Google and Bing)
    ///
    /// "depth" gives the seed 1.0 and 0.8 per click below.
    #[arg(
        long,
        value_name = "RULE",
        help_heading = "Output",
        hide_short_help = true
    )]
    pub(crate) priority: Option<PriorityRule>,

    /// Write <changefreq> (ignored by Google and Bing)
    ///
    /// "observed": from the changes seen across runs (needs --state).
    #[arg(
        long,
        value_name = "RULE",
        help_heading = "Output",
        hide_short_help = true
    )]
    pub(crate) changefreq: Option<ChangefreqRule>,

    /// Keep the crawl database in FILE (incremental)
    ///
    /// The crawl database (SQLite) kept between runs: pages are revalidated with conditional
    /// requests, <lastmod> follows content, and what changed is reported. Without it, a
    /// temporary file.
    #[arg(long, value_name = "FILE", help_heading = "Cron")]
    pub(crate) state: Option<PathBuf>,

    /// Continue the interrupted run kept in --state
    ///
    /// Pages the interrupted run finished are not fetched again. Without an interrupted run,
    /// the run starts as usual.
    #[arg(long, help_heading = "Cron")]
    pub(crate) resume: bool,

    /// Runs in a row a listed URL may fail and stay listed
    ///
    /// A URL the last complete run listed that now answers 5xx or 429, times out or cannot
    /// be connected to stays listed with its previous entry, and is not reported removed,
    /// for up to N runs in a row; the next failing run drops it. 0 drops it at once. Needs
    /// --state. [default: 7] [range: 0 to 1000]
    #[arg(
        long,
        value_name = "N",
        value_parser = KEEP_FAILED.parser::<u32>(),
        help_heading = "Cron",
        hide_short_help = true
    )]
    pub(crate) keep_failed: Option<u32>,

    /// Publish nothing if more than this share of the published URLs would go
    ///
    /// Before publishing, the new list is compared with the sitemaps in --out; a run that
    /// would lose more than PERCENT of their URLs (and at least 10) publishes nothing, keeps
    /// the previous files and exits with status 7, as does a run in which most requests
    /// failed and may pass. 100 publishes whatever is lost. [default: 25] [range: 0 to 100]
    #[arg(
        long,
        value_name = "PERCENT",
        value_parser = MAX_SHRINK.parser::<Percent>(),
        help_heading = "Cron",
        hide_short_help = true
    )]
    pub(crate) max_shrink: Option<Percent>,

    /// Write what was added, removed, changed (JSON)
    ///
    /// Since the previous complete run; - for stdout.
    #[arg(long, value_name = "FILE", help_heading = "Cron")]
    pub(crate) report_changes: Option<PathBuf>,

    /// Notify IndexNow of what changed, with KEY
    ///
    /// The URLs added, changed and removed since the previous run go to IndexNow (Bing,
    /// Yandex, Seznam, Naver and others share what it receives). The site proves it owns KEY by
    /// serving a text file holding just KEY at https://example.com/KEY.txt (or at
    /// --indexnow-key-location); KEY is 8 to 128 letters, digits or dashes.
    #[arg(long, value_name = "KEY", help_heading = "Cron")]
    pub(crate) indexnow_key: Option<String>,

    /// Where the IndexNow key file is, if not at the site's root
    ///
    /// A URL on the site's host [default: https://example.com/KEY.txt]
    #[arg(
        long,
        value_name = "URL",
        help_heading = "Cron",
        hide_short_help = true
    )]
    pub(crate) indexnow_key_location: Option<String>,

    /// IndexNow endpoint
    ///
    /// [default: https://api.indexnow.org/indexnow]
    #[arg(
        long,
        value_name = "URL",
        help_heading = "Cron",
        hide_short_help = true
    )]
    pub(crate) indexnow_endpoint: Option<String>,

    /// Send a header to the site (repeatable)
    ///
    /// 'Name: value', sent with every request to the site, never to other hosts; no line breaks or NUL.
    #[arg(long, value_name = "HEADER", help_heading = "Access")]
    pub(crate) header: Vec<String>,

    /// Basic authentication for the site
    ///
    /// Never sent to other hosts. [default: $SITEMAPPER_BASIC_AUTH, else the config file, else
    /// the seed URL's user:password]
    #[arg(long, value_name = "USER:PASSWORD", help_heading = "Access")]
    pub(crate) basic_auth: Option<String>,

    /// Cookie sent to the site (repeatable)
    ///
    /// name=value, or 'a=1; b=2'; the cookies the site sets are kept for the crawl.
    #[arg(long, value_name = "COOKIE", help_heading = "Access")]
    pub(crate) cookie: Vec<String>,

    /// Proxy for every request
    ///
    /// An http://, https://, socks5:// or socks5h:// URL. [default: $HTTPS_PROXY, $HTTP_PROXY
    /// or $ALL_PROXY, minus $NO_PROXY]
    #[arg(long, value_name = "URL", help_heading = "Access")]
    pub(crate) proxy: Option<String>,

    /// Also trust the certificates in FILE (PEM)
    ///
    /// Such as a private CA's, besides the system's.
    #[arg(long, value_name = "FILE", help_heading = "Access")]
    pub(crate) cacert: Option<PathBuf>,

    /// Accept any certificate (unsafe, said so)
    ///
    /// For a self-signed staging site on a network you trust.
    #[arg(long, help_heading = "Access")]
    pub(crate) insecure: bool,

    /// Crawl a staging copy (repeatable)
    ///
    /// Crawl STAGING as a copy of PRODUCTION: URLs naming PRODUCTION are crawled on STAGING, and the sitemaps name PRODUCTION. Each
    /// side is a host, host:port or an origin (http://localhost:8080=https://www.example.com).
    #[arg(long, value_name = "STAGING=PRODUCTION", help_heading = "Access")]
    pub(crate) map_host: Vec<String>,
}
