//! The tools an assistant calls, each with its parameters' JSON schema and a description
//! written for it. The crawl, the audit and the validation run as a child process of this
//! binary (`child.rs`); the others read a crawl database (`reads.rs`). Every path is held to
//! the allowed directories, every site to the address policy.

use std::path::PathBuf;
use std::sync::Arc;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::ProgressNotificationParam;
use rmcp::service::RequestContext;
use rmcp::{RoleServer, tool, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use sitemapper_crawl::AddressPolicy;
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;
use url::Url;

use crate::child::{self, Ended, Progress};
use crate::paths::AllowedDirs;
use crate::reads::{self, FindingFilter};
use crate::settings::McpSettings;

/// The server: its bounds, its directories, and the token that stops every tool when it
/// is stopping.
#[derive(Debug, Clone)]
pub(crate) struct Sitemapper {
    pub(crate) settings: Arc<McpSettings>,
    pub(crate) dirs: AllowedDirs,
    pub(crate) shutdown: CancellationToken,
    /// Crawls, audits and validations running at once; others wait their turn.
    pub(crate) children: Arc<Semaphore>,
    pub(crate) tool_router: ToolRouter<Sitemapper>,
}

/// How many crawls, audits and validations run at once: each is a whole crawl, and the
/// sites and the machine are shared.
const CHILDREN_AT_ONCE: usize = 2;

/// How much of a page rendering may do: as `--render`.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Render {
    /// Read every page as served, never in a browser.
    Never,
    /// Render the pages that need it (the default).
    Auto,
    /// Render every page in a browser.
    Always,
}

impl Render {
    fn flag(self) -> &'static str {
        match self {
            Render::Never => "never",
            Render::Auto => "auto",
            Render::Always => "always",
        }
    }
}

/// The parameters of `explain`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct ExplainParams {
    /// The page's URL, as a visitor or a search engine writes it.
    pub url: String,
    /// The crawl database: the `state` of a crawl, or `crawl.db` in an audit's report
    /// directory. A relative path is relative to the server's first allowed directory.
    pub state: String,
}

/// The parameters of `crawl`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct CrawlParams {
    /// The site's root URL, or a directory of it (`https://example.com/blog/`).
    pub url: String,
    /// The directory to publish the sitemaps into (made if missing).
    pub out: String,
    /// A crawl database to keep between crawls: the next crawl is incremental, and
    /// `explain`, `runs` and `changes` read it. Without it, the crawl's database is
    /// temporary.
    pub state: Option<String>,
    /// The most pages to fetch (the server's own limit caps it).
    pub max_pages: Option<u64>,
    /// The most clicks from the root to follow.
    pub max_depth: Option<u32>,
    /// When to read pages in a browser: never, auto (the default), always.
    pub render: Option<Render>,
    /// Also read the site's own sitemaps for pages no link leads to.
    pub seed_sitemaps: Option<bool>,
}

/// The parameters of `audit`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct AuditParams {
    /// The site's root URL.
    pub url: String,
    /// The report directory (made if missing): report.html, report.json, the CSV files and
    /// crawl.db, which `findings` and `explain` read.
    pub report: String,
    /// The most pages to fetch (the server's own limit caps it).
    pub max_pages: Option<u64>,
    /// Check the links to other sites too (the default: true).
    pub check_external: Option<bool>,
    /// When to read pages in a browser: never, auto (the default), always.
    pub render: Option<Render>,
}

/// The parameters of `findings`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct FindingsParams {
    /// The report directory of an audit (its crawl.db is read).
    pub report: Option<String>,
    /// Or the crawl database an audit was kept in.
    pub state: Option<String>,
    /// Only this kind of finding, by its code (`broken-link`, `missing-title`...).
    pub kind: Option<String>,
    /// Only this severity: error, warning, notice or info.
    pub severity: Option<String>,
    /// Only the findings about URLs that start with this.
    pub url_prefix: Option<String>,
    /// At most this many findings (default 100, at most 1000).
    pub limit: Option<usize>,
}

/// The parameters of `runs`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct RunsParams {
    /// The crawl database.
    pub state: String,
}

/// The parameters of `changes`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct ChangesParams {
    /// The crawl database.
    pub state: String,
    /// The run, by number (`runs` lists them); the last complete run by default.
    pub run: Option<i64>,
}

/// The parameters of `validate`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct ValidateParams {
    /// A sitemap or sitemap index: an http(s) URL, or a file in an allowed directory. An
    /// index is followed into its children.
    pub target: String,
}

/// The default and the most findings `findings` gives.
const FINDINGS_LIMIT: (usize, usize) = (100, 1000);

#[tool_router]
impl Sitemapper {
    pub(crate) fn new(
        settings: McpSettings,
        dirs: AllowedDirs,
        shutdown: CancellationToken,
    ) -> Sitemapper {
        Sitemapper {
            settings: Arc::new(settings),
            dirs,
            shutdown,
            children: Arc::new(Semaphore::new(CHILDREN_AT_ONCE)),
            tool_router: Self::tool_router(),
        }
    }

    /// Why a URL is in the site's sitemap or not, from the crawl database of an earlier
    /// crawl or audit, without fetching anything: the verdict and the reason's code, the
    /// evidence (the robots.txt rule and its line, where a canonical or noindex was found,
    /// the redirect chain, the status), the shortest click path from the root and the pages
    /// linking to it, where its <lastmod> comes from and which sitemap file lists it, its
    /// history over the runs; for a URL never met, the nearest one that was. Ask this first
    /// when a page is missing from a sitemap.
    #[tool]
    async fn explain(
        &self,
        Parameters(params): Parameters<ExplainParams>,
    ) -> Result<String, String> {
        let state = self.path(&params.state)?;
        blocking(move || reads::explain_url(&state, &params.url)).await
    }

    /// Crawl a site and publish its sitemaps into a directory: robots.txt obeyed, canonicals
    /// followed, every URL left out with its reason. Answers with the crawl's summary (pages
    /// listed, not listed by reason, files written). It can take minutes: progress is
    /// reported, and cancelling stops it with nothing published (the previous sitemap stays).
    #[tool]
    async fn crawl(
        &self,
        Parameters(params): Parameters<CrawlParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<String, String> {
        let seed = self.site(&params.url).await?;
        let out = self.path(&params.out)?;
        let mut args = vec![
            "crawl".to_string(),
            seed.to_string(),
            "--out".to_string(),
            out.display().to_string(),
        ];
        if let Some(state) = &params.state {
            args.extend([
                "--state".to_string(),
                self.path(state)?.display().to_string(),
            ]);
        }
        if let Some(depth) = params.max_depth {
            args.extend(["--max-depth".to_string(), depth.to_string()]);
        }
        if let Some(seed_sitemaps) = params.seed_sitemaps {
            args.push(format!("--seed-sitemaps={seed_sitemaps}"));
        }
        self.bounded(&mut args, params.max_pages, params.render);
        self.run(args, &context, &[0]).await
    }

    /// Audit a site for its owner: crawl it, then check its pages, links, images, sitemaps
    /// and over a hundred kinds of problem, scored 0 to 100, into a report directory
    /// (report.html to hand over, report.json, CSV files). Answers with the audit's summary;
    /// `findings` then lists the problems. It can take minutes: progress is reported, and it
    /// can be cancelled.
    #[tool]
    async fn audit(
        &self,
        Parameters(params): Parameters<AuditParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<String, String> {
        let seed = self.site(&params.url).await?;
        let report = self.path(&params.report)?;
        let mut args = vec![
            "audit".to_string(),
            seed.to_string(),
            "--report".to_string(),
            report.display().to_string(),
        ];
        if let Some(check) = params.check_external {
            args.push(format!("--check-external={check}"));
        }
        self.bounded(&mut args, params.max_pages, params.render);
        self.run(args, &context, &[0]).await
    }

    /// The findings of the last audit of a site, from its report directory (or crawl
    /// database): each with its kind's code, severity, category and title, the URL and the
    /// particulars; filtered by kind, severity or URL prefix. The audit's score and how many
    /// findings there are in all come with them.
    #[tool]
    async fn findings(
        &self,
        Parameters(params): Parameters<FindingsParams>,
    ) -> Result<String, String> {
        let state = match (&params.report, &params.state) {
            (Some(report), _) => self.path(report)?.join("crawl.db"),
            (None, Some(state)) => self.path(state)?,
            (None, None) => return Err("give report (an audit's directory) or state".to_string()),
        };
        let filter = FindingFilter {
            kind: params.kind,
            severity: params.severity,
            url_prefix: params.url_prefix,
            limit: params
                .limit
                .unwrap_or(FINDINGS_LIMIT.0)
                .min(FINDINGS_LIMIT.1),
        };
        blocking(move || reads::findings(&state, &filter)).await
    }

    /// The crawls a crawl database remembers, newest first: when each ran, how it ended,
    /// how many pages it listed, what it added, removed and changed.
    #[tool]
    async fn runs(&self, Parameters(params): Parameters<RunsParams>) -> Result<String, String> {
        let state = self.path(&params.state)?;
        blocking(move || reads::runs(&state)).await
    }

    /// What a crawl changed in the sitemap against the complete crawl before it: the URLs
    /// added, removed, and listed by both with another <lastmod>.
    #[tool]
    async fn changes(
        &self,
        Parameters(params): Parameters<ChangesParams>,
    ) -> Result<String, String> {
        let state = self.path(&params.state)?;
        blocking(move || reads::changes(&state, params.run)).await
    }

    /// Check a sitemap or sitemap index against the sitemaps.org protocol and its XML
    /// schemas, following an index into its children: every problem with its file and line.
    #[tool]
    async fn validate(
        &self,
        Parameters(params): Parameters<ValidateParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<String, String> {
        let target = match Url::parse(&params.target) {
            Ok(url) if matches!(url.scheme(), "http" | "https") => {
                self.site(&params.target).await?.to_string()
            }
            _ => {
                let path = self.path(&params.target)?;
                if !path.is_file() {
                    return Err(format!("no file at {}", path.display()));
                }
                path.display().to_string()
            }
        };
        // An invalid sitemap is an answer (exit code 1), not a failure.
        self.run(vec!["validate".to_string(), target], &context, &[0, 1])
            .await
    }
}

impl Sitemapper {
    /// A path a tool was given, held to the allowed directories.
    fn path(&self, path: &str) -> Result<PathBuf, String> {
        self.dirs
            .check(std::path::Path::new(path))
            .map_err(|refused| refused.to_string())
    }

    /// A site a tool is to reach: an http(s) URL, not on a private network unless the server
    /// allows it.
    async fn site(&self, url: &str) -> Result<Url, String> {
        let parsed = Url::parse(url.trim())
            .ok()
            .filter(|url| matches!(url.scheme(), "http" | "https") && url.host_str().is_some())
            .ok_or_else(|| format!("{url:?} is not an http(s) URL"))?;
        if !self.settings.allow_private
            && AddressPolicy::default().allows_private_for(&parsed).await
        {
            return Err(format!(
                "{} is on a private network or this machine: this server was not started with \
                 --allow-private",
                parsed.host_str().unwrap_or_default()
            ));
        }
        Ok(parsed)
    }

    /// Adds the server's bounds to a crawl's or an audit's arguments.
    fn bounded(&self, args: &mut Vec<String>, max_pages: Option<u64>, render: Option<Render>) {
        let pages = max_pages.map_or(self.settings.max_pages, |pages| {
            pages.min(self.settings.max_pages)
        });
        args.extend(["--max-pages".to_string(), pages.to_string()]);
        if let Some(render) = render {
            args.extend(["--render".to_string(), render.flag().to_string()]);
        }
        if self.settings.allow_private {
            args.push("--allow-private".to_string());
        }
    }

    /// Runs this binary with `args`, reporting progress to the caller and stopping when the
    /// call is cancelled or the server stops; an exit code of `answers` is an answer.
    async fn run(
        &self,
        args: Vec<String>,
        context: &RequestContext<RoleServer>,
        answers: &[i32],
    ) -> Result<String, String> {
        let stop = CancellationToken::new();
        let watch = {
            let (stop, cancelled, shutdown) =
                (stop.clone(), context.ct.clone(), self.shutdown.clone());
            tokio::spawn(async move {
                tokio::select! {
                    () = cancelled.cancelled() => {}
                    () = shutdown.cancelled() => {}
                    () = stop.cancelled() => {}
                }
                stop.cancel();
            })
        };
        let command = args.first().map_or("", String::as_str).to_string();
        let permit = tokio::select! {
            permit = Arc::clone(&self.children).acquire_owned() => permit.ok(),
            () = stop.cancelled() => None,
        };
        let Some(_permit) = permit else {
            stop.cancel();
            let _ = watch.await;
            return Err(format!("the {command} was cancelled before it started"));
        };
        let token = context.meta.get_progress_token();
        let peer = context.peer.clone();
        let max_pages = self.settings.max_pages;
        let report = move |progress: Progress| {
            let Some(token) = token.clone() else {
                return;
            };
            let peer = peer.clone();
            tokio::spawn(async move {
                let message = format!(
                    "{} requests in {} s",
                    progress.requests,
                    progress.elapsed.as_secs()
                );
                let _ = peer
                    .notify_progress(
                        ProgressNotificationParam::new(token, progress.requests as f64)
                            .with_total(max_pages as f64)
                            .with_message(message),
                    )
                    .await;
            });
        };
        let ended = child::run(
            &self.settings.program,
            self.settings.config.as_deref(),
            &args,
            &stop,
            self.settings.max_time,
            report,
        )
        .await;
        stop.cancel();
        let _ = watch.await;
        match ended.map_err(|error| format!("cannot run sitemapper {command}: {error}"))? {
            Ended::Exited {
                code,
                summary,
                warnings,
            } => {
                let summary = pretty(&summary, &warnings);
                if answers.contains(&code) {
                    Ok(summary)
                } else {
                    Err(summary)
                }
            }
            Ended::Cancelled => Err(format!(
                "the {command} was cancelled and stopped: nothing was published, the previous \
                 sitemap stays"
            )),
            Ended::TimedOut => Err(format!(
                "the {command} was stopped after {} s, the server's --max-time: nothing was \
                 published",
                self.settings.max_time.as_secs()
            )),
        }
    }
}

/// A child's JSON summary, indented, with its warnings; its words as they are when they are
/// no JSON.
fn pretty(summary: &str, warnings: &[String]) -> String {
    let mut value = match serde_json::from_str::<Value>(summary.trim()) {
        Ok(value) => value,
        Err(_) if summary.trim().is_empty() => Value::Null,
        Err(_) => Value::String(summary.trim().to_string()),
    };
    if !warnings.is_empty()
        && let Value::Object(fields) = &mut value
    {
        fields.insert(
            "warnings".to_string(),
            Value::Array(warnings.iter().cloned().map(Value::String).collect()),
        );
    }
    if value.is_null() {
        return warnings.join("\n");
    }
    serde_json::to_string_pretty(&value).unwrap_or_else(|_| summary.to_string())
}

/// Runs a read of the crawl database off the async threads; its JSON, indented.
async fn blocking(
    read: impl FnOnce() -> Result<Value, String> + Send + 'static,
) -> Result<String, String> {
    let value = tokio::task::spawn_blocking(read)
        .await
        .map_err(|error| error.to_string())??;
    serde_json::to_string_pretty(&value).map_err(|error| error.to_string())
}
