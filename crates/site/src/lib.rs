//! One site's sitemapper run, from resolved settings to published files and a typed outcome:
//! the crawl (`sitemapper-crawl`) recorded in the crawl database (`sitemapper-store`) as it
//! goes, the site-wide rules that need the whole run, the sitemaps written and published
//! (`sitemapper-sitemap`), what changed reported and sent to IndexNow. `sitemapper crawl`,
//! `sitemapper audit` and every site of a fleet run through [`run`].
//!
//! The crate also holds what the crawl needs of the other crates, as the crawl's traits
//! implemented over them: the history of earlier runs and the spill of the frontier over the
//! store, the site's own sitemaps read as seeds over the sitemap crate's reader.
//!
//! # Example
//!
//! Map a site served on this machine and publish its sitemap into a directory:
//!
//! ```
//! # use std::io::{BufRead, BufReader, Write};
//! # /// A site of two pages on 127.0.0.1, answered one request per connection.
//! # fn serve() -> std::io::Result<String> {
//! #     let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
//! #     let address = listener.local_addr()?;
//! #     std::thread::spawn(move || {
//! #         for stream in listener.incoming().flatten() {
//! #             let mut request = String::new();
//! #             let mut reader = BufReader::new(&stream);
//! #             let _ = reader.read_line(&mut request);
//! #             let mut line = String::new();
//! #             while reader.read_line(&mut line).is_ok_and(|read| read > 2) { line.clear(); }
//! #             let (status, body) = match request.split(' ').nth(1) {
//! #                 Some("/") => ("200 OK", r#"<title>Home</title><a href="/about">About</a>"#),
//! #                 Some("/about") => ("200 OK", "<title>About</title>"),
//! #                 _ => ("404 Not Found", ""),
//! #             };
//! #             let _ = write!(&stream, "HTTP/1.1 {status}\r\nContent-Type: text/html\r\n\
//! #                 Content-Length: {}\r\nConnection: close\r\n\r\n{body}", body.len());
//! #         }
//! #     });
//! #     Ok(format!("http://{address}/"))
//! # }
//! use sitemapper_crawl::{CrawlConfig, RenderMode};
//! use sitemapper_site::{OutputTarget, RunContext, SiteSettings};
//!
//! let seed = serve()?;
//! let out = tempfile::tempdir()?;
//! let crawl = CrawlConfig { render: RenderMode::Never, ..CrawlConfig::default() };
//! let settings = SiteSettings::new(seed, OutputTarget::Path(out.path().into()), crawl);
//!
//! let run = sitemapper_site::run(&settings, RunContext::default())?;
//!
//! assert_eq!(run.published.0[0].urls, 2);
//! let sitemap = std::fs::read_to_string(out.path().join("sitemap.xml"))?;
//! assert!(sitemap.contains("/about</loc>"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod audit_findings;
mod changes;
mod counted;
mod database;
mod elsewhere;
mod error;
mod explain;
#[cfg(test)]
mod fixture;
mod guard;
mod history;
mod indexnow;
mod lock;
mod media;
mod not_listed;
mod outbound;
mod output_target;
mod path_problem;
mod process_use;
mod publish;
mod record;
mod resources;
mod resume;
mod run;
mod run_facts;
mod seed_mistake;
mod settings;
mod shrink;
mod site_sitemaps;
mod sitemap_check;
mod sitemap_seeds;
mod sitemap_source;
mod sitemap_story;
mod spill;
mod spreadsheet;
mod stdout;
mod summary_json;
mod summary_text;
mod terminal;
mod untouched;

pub use audit_findings::audit_findings;
pub use counted::{count, count_grouped, count_with};
pub use elsewhere::{CanonicalsElsewhere, canonicals_elsewhere};
pub use error::{ErrorKind, SiteError};
pub use explain::{
    Evidence, ExplainError, Explanation, History, Hop, LastmodStory, Nearest, Reached, RunRef,
    Standing, StatusSpan, Step, explain, explanation_text,
};
pub use indexnow::{DEFAULT_INDEXNOW_ENDPOINT, IndexNow, Notified};
pub use lock::{BusyPath, LockError, LockHolder, RunLock};
pub use media::{MediaReport, NewsReport};
pub use not_listed::{EXAMPLES, Example, NotListed, NotListedGroup};
pub use outbound::{
    DEFAULT_MAX_LINKS, DEFAULT_MAX_TIME, OutboundChecked, OutboundError, OutboundSettings,
    check_outbound,
};
pub use output_target::OutputTarget;
pub use path_problem::PathProblem;
pub use process_use::{children_cpu_seconds, cpu_seconds, peak_rss_bytes};
pub use record::{EventCounts, Notes, ScopeStatement};
pub use resources::{
    MAX_RESOURCE_TIME, MAX_RESOURCES, ResourcesChecked, ResourcesError, check_resources,
};
pub use run::{RunContext, SiteRun, Watcher, run};
pub use run_facts::RunFacts;
pub use seed_mistake::{SeedMistake, shell_word};
pub use settings::{
    ChangefreqRule, NewsSettings, PriorityRule, RenderSettings, SiteSettings, private_directory,
    writable_directory, writable_output_file,
};
pub use shrink::{DEFAULT_KEEP_FAILED, DEFAULT_MAX_SHRINK, MIN_SHRINK_URLS, ShrinkCause};
pub use site_sitemaps::{SitemapsFound, read_site_sitemaps};
pub use sitemap_check::{
    CHECK_EXAMPLES, CheckError, Checked, NotASource, Occurrence, ProblemGroup, SitemapChecked,
    SitemapSource, check_sitemaps,
};
pub use sitemap_seeds::ReadSitemaps;
pub use sitemap_source::{GunzipError, gunzip_if_gzip, listed_sitemaps};
pub use sitemap_story::SitemapStory;
pub use spreadsheet::{SpreadsheetCsv, neutralize_formula};
pub use stdout::{ProcessStdout, Stdout};
pub use summary_json::crawl::{CrawlJson, NotReadJson};
pub use summary_json::envelope::{Envelope, SUMMARY_VERSION, path_text};
pub use summary_json::runs::RunsJson;
pub use summary_json::validate::{CheckTally, ValidateJson};
pub use summary_text::{CrawlReport, documents_line, write_rendering, write_resources};
pub use terminal::escape_controls;
pub use untouched::Untouched;
