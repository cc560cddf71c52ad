//! `sitemapper explain URL --state FILE`: why a URL is in the sitemap or not, its click path,
//! its `<lastmod>` and its history, told from the crawl database (the site crate's
//! [`explain`]) without a request. Exit 0 when listed, 1 when not, 2 on bad input.

use std::io::Write as _;
use std::path::PathBuf;

use anyhow::Context;
use serde::Serialize;
use sitemapper_crawl::Crawler;
use sitemapper_fleet::{Fleet, site_database_in};
use sitemapper_site::{Explanation, Standing, explain, explanation_text, path_text};
use sitemapper_store::Store;
use url::Url;

use super::json;
use crate::cli::{ExplainArgs, SummaryFormat};
use crate::exit::{ExitStatus, Failure, SaidOnStdout};
use crate::settings::{ConfigFile, ExplainDatabase, ExplainSettings};

/// The fields of `explain --summary json` after the envelope.
#[derive(Serialize)]
struct ExplainJson<'a> {
    /// The crawl database read.
    state: String,
    /// The fleet's site it belongs to, with `--fleet`.
    site: Option<&'a str>,
    #[serde(flatten)]
    explanation: &'a Explanation,
}

pub(crate) fn run(args: ExplainArgs, file: ConfigFile) -> Result<(), Failure> {
    let format = args.summary.unwrap_or_default();
    let failed = |failure| json::failed("explain", format, failure);
    let settings =
        ExplainSettings::resolve(args, file).map_err(|error| failed(Failure::usage(error)))?;
    let format = settings.summary;
    let failed = |failure| json::failed("explain", format, failure);
    let (state, site) = database(&settings).map_err(failed)?;
    let store = Store::open(&state).map_err(|error| failed(Failure::fatal(error)))?;
    let explanation = explain(&store, &settings.url).map_err(|error| match error {
        sitemapper_site::ExplainError::NotAUrl(_) => failed(Failure::usage(error)),
        sitemapper_site::ExplainError::Store(error) => failed(Failure::fatal(error)),
    })?;
    let status = match explanation.standing {
        Standing::Listed => ExitStatus::Success,
        Standing::NotListed | Standing::NeverMet => ExitStatus::Fatal,
    };
    match format {
        SummaryFormat::Text => {
            let text = explanation_text(&explanation, &state, site.as_deref());
            let mut out = crate::stdout::lock();
            out.write_all(text.as_bytes())
                .and_then(|()| out.flush())
                .context("cannot write to stdout")?;
        }
        SummaryFormat::Json => {
            let body = ExplainJson {
                state: path_text(&state),
                site: site.as_deref(),
                explanation: &explanation,
            };
            json::print("explain", status, None, &body)?;
        }
    }
    match status {
        ExitStatus::Success => Ok(()),
        status => Err(Failure {
            status,
            error: SaidOnStdout("not listed".to_string()).into(),
        }),
    }
}

/// The crawl database to read, and with `--fleet` the name of the site it is of.
fn database(settings: &ExplainSettings) -> Result<(PathBuf, Option<String>), Failure> {
    let state = match &settings.database {
        ExplainDatabase::State(state) => (state.clone(), None),
        ExplainDatabase::Fleet(path) => {
            let fleet = Fleet::load(path).map_err(Failure::usage)?;
            let (name, state) = fleet_site(&fleet, &settings.url)?;
            (state, Some(name))
        }
    };
    if !state.0.is_file() {
        let whose = state
            .1
            .as_deref()
            .map(|site| format!(" for the site {site} (has it run yet?)"))
            .unwrap_or_default();
        return Err(Failure::usage(anyhow::anyhow!(
            "no crawl database at {}{whose}",
            state.0.display()
        )));
    }
    Ok(state)
}

/// The site of `fleet` whose scope holds `url` (the deepest scope, when several do), and its
/// crawl database.
fn fleet_site(fleet: &Fleet, url: &str) -> Result<(String, PathBuf), Failure> {
    let asked = Url::parse(url.trim()).map_err(|_| {
        Failure::usage(anyhow::anyhow!(
            "{url:?} is not an http(s) URL: give the page's full address, as https://example.com/page"
        ))
    })?;
    let chosen = fleet
        .sites
        .iter()
        .filter_map(|site| {
            let root = Crawler::scope_root(&Url::parse(&site.url).ok()?);
            let holds = root.origin() == asked.origin() && asked.path().starts_with(root.path());
            holds.then(|| (root.path().len(), site))
        })
        .max_by_key(|&(depth, _)| depth)
        .map(|(_, site)| site);
    match chosen {
        Some(site) => Ok((
            site.name.clone(),
            site_database_in(&fleet.state_dir(), &site.name),
        )),
        None => Err(Failure::usage(anyhow::anyhow!(
            "no site of {} maps {url} (its sites: {})",
            fleet.path.display(),
            fleet
                .sites
                .iter()
                .map(|site| format!("{} {}", site.name, site.url))
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}
