//! The tools that read a crawl database and nothing else: `explain`, `findings`, `runs` and
//! `changes`. Each opens the database read as it is (a path that holds none is refused: it
//! would be created) and answers with JSON.

use std::path::Path;

use serde::Serialize;
use serde_json::Value;
use sitemapper_audit::FindingKind;
use sitemapper_site::{RunsJson, explain};
use sitemapper_store::{RunId, RunStatus, Store};

/// A crawl database that is there, opened.
fn open(state: &Path) -> Result<Store, String> {
    if !state.is_file() {
        return Err(format!("no crawl database at {}", state.display()));
    }
    Store::open(state).map_err(|error| error.to_string())
}

/// Why `url` is in the sitemap or not: `sitemapper explain --summary json`'s fields.
pub(crate) fn explain_url(state: &Path, url: &str) -> Result<Value, String> {
    let store = open(state)?;
    let explanation = explain(&store, url).map_err(|error| error.to_string())?;
    let mut value = serde_json::to_value(&explanation).map_err(|error| error.to_string())?;
    if let Value::Object(fields) = &mut value {
        fields.insert(
            "state".to_string(),
            Value::String(state.display().to_string()),
        );
    }
    Ok(value)
}

/// The runs the database remembers: `sitemapper runs --summary json`'s fields.
pub(crate) fn runs(state: &Path) -> Result<Value, String> {
    let store = open(state)?;
    let runs = store.runs().map_err(|error| error.to_string())?;
    serde_json::to_value(RunsJson::new(state, &runs)).map_err(|error| error.to_string())
}

/// At most this many URLs of each list of a change report are given.
const CHANGES_SHOWN: usize = 200;

/// What a run changed in the sitemap against the complete run before it.
#[derive(Debug, Serialize)]
struct Changes {
    run: i64,
    previous_run: Option<i64>,
    added_count: usize,
    removed_count: usize,
    changed_count: usize,
    added: Vec<String>,
    removed: Vec<String>,
    changed: Vec<String>,
    /// Whether the lists were cut at their first 200 URLs.
    cut: bool,
}

/// What `run` (else the last complete run) added to, removed from and changed in the
/// sitemap.
pub(crate) fn changes(state: &Path, run: Option<i64>) -> Result<Value, String> {
    let store = open(state)?;
    let runs = store.runs().map_err(|error| error.to_string())?;
    let run = match run {
        Some(run) => runs
            .iter()
            .find(|summary| summary.id.0 == run)
            .ok_or_else(|| format!("the database has no run {run}"))?,
        None => runs
            .iter()
            .find(|summary| summary.status == RunStatus::Complete)
            .ok_or("the database has no complete run")?,
    };
    let report = store
        .change_report(run.id)
        .map_err(|error| error.to_string())?;
    let cut = [&report.added, &report.removed, &report.changed]
        .iter()
        .any(|list| list.len() > CHANGES_SHOWN);
    let first = |list: &[String]| list.iter().take(CHANGES_SHOWN).cloned().collect();
    serde_json::to_value(Changes {
        run: report.run.0,
        previous_run: report.previous.map(|run| run.0),
        added_count: report.added.len(),
        removed_count: report.removed.len(),
        changed_count: report.changed.len(),
        added: first(&report.added),
        removed: first(&report.removed),
        changed: first(&report.changed),
        cut,
    })
    .map_err(|error| error.to_string())
}

/// Which findings of the last audit to give.
#[derive(Debug, Clone, Default)]
pub(crate) struct FindingFilter {
    pub kind: Option<String>,
    pub severity: Option<String>,
    pub url_prefix: Option<String>,
    pub limit: usize,
}

/// One finding as the tool gives it.
#[derive(Debug, Serialize)]
struct FindingJson {
    code: String,
    severity: &'static str,
    category: &'static str,
    title: &'static str,
    url: String,
    detail: String,
}

/// The findings of the last audit recorded in the database.
#[derive(Debug, Serialize)]
struct Findings {
    run: i64,
    score: u32,
    audited_at: String,
    total: usize,
    matched: usize,
    findings: Vec<FindingJson>,
}

/// The findings of the last audit recorded in `state`, filtered.
pub(crate) fn findings(state: &Path, filter: &FindingFilter) -> Result<Value, String> {
    let store = open(state)?;
    let audits = store.audits().map_err(|error| error.to_string())?;
    let audit = audits
        .iter()
        .max_by_key(|audit| audit.run.0)
        .ok_or("the database records no audit: run the audit tool first")?;
    if let Some(kind) = &filter.kind
        && FindingKind::from_code(kind).is_none()
    {
        return Err(format!(
            "no kind of finding is called {kind:?} (docs/audit.md lists their codes)"
        ));
    }
    let recorded = store
        .audit_findings(RunId(audit.run.0))
        .map_err(|error| error.to_string())?;
    let total = recorded.len();
    let matching: Vec<FindingJson> = recorded
        .into_iter()
        .filter_map(|finding| {
            let kind = FindingKind::from_code(&finding.code)?;
            let keep = filter
                .kind
                .as_deref()
                .is_none_or(|code| code == finding.code)
                && filter
                    .severity
                    .as_deref()
                    .is_none_or(|severity| severity == kind.severity().as_str())
                && filter
                    .url_prefix
                    .as_deref()
                    .is_none_or(|prefix| finding.url.starts_with(prefix));
            keep.then(|| FindingJson {
                severity: kind.severity().as_str(),
                category: kind.category().title(),
                title: kind.title(),
                code: finding.code,
                url: finding.url,
                detail: finding.detail,
            })
        })
        .collect();
    let matched = matching.len();
    serde_json::to_value(Findings {
        run: audit.run.0,
        score: audit.score,
        audited_at: audit.finished_at.to_string(),
        total,
        matched,
        findings: matching.into_iter().take(filter.limit).collect(),
    })
    .map_err(|error| error.to_string())
}
