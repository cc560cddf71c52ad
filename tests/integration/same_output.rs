//! The same files as an earlier build: the audit of the site with one finding of every kind
//! (audit.rs), run by this build and by the one `SITEMAPPER_BEFORE` names, writes the same
//! sitemap and links.csv byte for byte, and the same findings.csv, pages.csv, report.json and
//! report.html but for what says when or how fast the run was (a slow page's "answered in
//! N ms", the dates, pages.csv's `elapsed_ms`). Ignored unless asked for
//! (`SITEMAPPER_BEFORE=PATH cargo test --test integration same_output -- --ignored`): it
//! needs a build the repository does not make. The benchmark's sites are compared by
//! `sitemapper-bench --same-output`.

use std::path::Path;
use std::process::Command;

use regex::Regex;
use serde_json::Value;

use crate::audit::{audit, troubled_site};
use crate::harness::Run;

/// The files compared byte for byte.
const SAME_BYTES: [&str; 2] = ["sitemap.xml", "links.csv"];

/// The files compared with their times masked.
const SAME_BUT_TIMES: [&str; 1] = ["findings.csv"];

#[test]
#[ignore = "needs an earlier build: SITEMAPPER_BEFORE=PATH"]
fn an_audit_writes_what_the_build_before_wrote() {
    let before = std::env::var_os("SITEMAPPER_BEFORE").expect("SITEMAPPER_BEFORE names a build");
    let server = troubled_site();
    let ours = tempfile::tempdir().unwrap();
    audit(&server, ours.path(), &[]).assert_success();
    let theirs = tempfile::tempdir().unwrap();
    let seed = server.url("/");
    let mut command = Command::new(&before);
    command
        .args(["audit", &seed, "--report"])
        .arg(theirs.path());
    command.args(["--retries", "0", "--slow", "200", "--large", "10000"]);
    // As the harness runs this build: the links to other sites are not checked.
    command.env("SITEMAPPER_CHECK_EXTERNAL", "false");
    Run::from(command.output().unwrap()).assert_success();
    for name in SAME_BYTES {
        assert_eq!(read(ours.path(), name), read(theirs.path(), name), "{name}");
    }
    assert_eq!(
        pages_without_times(ours.path()),
        pages_without_times(theirs.path())
    );
    assert_eq!(
        report_without_times(ours.path()),
        report_without_times(theirs.path())
    );
    assert_eq!(
        html_without_times(ours.path()),
        html_without_times(theirs.path())
    );
    for name in SAME_BUT_TIMES {
        assert_eq!(
            without_times(&read(ours.path(), name)),
            without_times(&read(theirs.path(), name)),
            "{name}"
        );
    }
}

fn read(directory: &Path, name: &str) -> String {
    std::fs::read_to_string(directory.join(name)).unwrap_or_else(|error| panic!("{name}: {error}"))
}

/// pages.csv without its `elapsed_ms` column (the cells are plain numbers, never quoted), and
/// with the referrer of a page reached through a redirect said as "a redirect": a page that
/// two redirect chains of one level reach takes the referrer of the chain that reaches it
/// first, in either build (the fixture's /final, from /moved and from /older).
fn pages_without_times(directory: &Path) -> Vec<String> {
    let text = read(directory, "pages.csv");
    let mut lines = text.lines();
    let header = lines.next().unwrap_or_default();
    let names: Vec<&str> = header.split(',').collect();
    let column = |wanted: &str| names.iter().position(|name| *name == wanted);
    let (elapsed, referrer, verdict) =
        (column("elapsed_ms"), column("referrer"), column("verdict"));
    let rows: Vec<Vec<&str>> = lines.map(|line| line.split(',').collect()).collect();
    let redirects: Vec<&str> = rows
        .iter()
        .filter(|cells| verdict.and_then(|at| cells.get(at)) == Some(&"redirect"))
        .map(|cells| cells[0])
        .collect();
    std::iter::once(header.to_string())
        .chain(rows.into_iter().map(|mut cells| {
            if let Some(cell) = referrer.and_then(|at| cells.get_mut(at))
                && redirects.contains(cell)
            {
                *cell = "(a redirect)";
            }
            if let Some(at) = elapsed.filter(|at| *at < cells.len()) {
                cells.remove(at);
            }
            cells.join(",")
        }))
        .collect()
}

/// report.json without the time it was written, the dates of the audits it lists, and the
/// times its texts give.
fn report_without_times(directory: &Path) -> String {
    let mut report: Value = serde_json::from_str(&read(directory, "report.json")).unwrap();
    drop_keys(&mut report, &["generated_at", "date", "elapsed_ms"]);
    without_times(&serde_json::to_string_pretty(&report).unwrap())
}

fn drop_keys(value: &mut Value, keys: &[&str]) {
    match value {
        Value::Object(object) => {
            object.retain(|key, _| !keys.contains(&key.as_str()));
            object.values_mut().for_each(|value| drop_keys(value, keys));
        }
        Value::Array(values) => values.iter_mut().for_each(|value| drop_keys(value, keys)),
        _ => {}
    }
}

/// report.html with its dates and durations masked, and the response time of each page in
/// the data it embeds (`[url, status, verdict, reason, depth, title, bytes, elapsed_ms, ...]`).
fn html_without_times(directory: &Path) -> String {
    const START: &str = r#"<script type="application/json" id="report-data">"#;
    let html = read(directory, "report.html");
    let (before, rest) = html.split_once(START).expect("report.html embeds its data");
    let (data, after) = rest.split_once("</script>").expect("the data ends");
    let mut data: Value = serde_json::from_str(data).unwrap();
    for page in data["pages"].as_array_mut().expect("pages").iter_mut() {
        page[7] = Value::Null;
    }
    without_times(&format!("{before}{START}{data}</script>{after}"))
}

/// `text` with its dates, times and durations masked.
fn without_times(text: &str) -> String {
    let times =
        Regex::new(r"\d{4}-\d{2}-\d{2}([ T]\d{2}:\d{2}(:\d{2})?Z?)?|\d+(\.\d+)?\s?(ms|s)\b")
            .unwrap();
    times.replace_all(text, "TIME").into_owned()
}
