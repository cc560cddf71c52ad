//! `--same-output`: whether this build writes what the build given with `--before` writes, on
//! the benchmark's sites: the plain generated site and the site that looks like the web
//! (gzip), crawled with the options that change the files (split, gzip, text, images,
//! hreflang, priority, a second run over a crawl database) and audited. Every file of each
//! output directory is compared byte for byte, except what says when or how fast the run was:
//! an index's `<lastmod>` of a file new to the run (the time of the run), the audit's times
//! (report.json's and report.html's dates and durations, the response time of each page in
//! pages.csv, in the data report.html embeds and in report.xlsx, whose parts are compared one
//! by one with the workbook's own creation time masked), and the crawl database itself.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Stdio};

use anyhow::{Context, bail};
use regex::Regex;

use crate::binary::{Binary, say};
use crate::server::Server;
use crate::site::GeneratedSite;
use crate::web::WebSite;
use crate::web_served::{CompressedWebSite, Encodings};

/// The option sets each site is crawled with; `audit` runs the audit instead.
const CRAWLS: [&[&str]; 6] = [
    &[],
    &["--gzip", "--split-by", "section"],
    &[
        "--format",
        "xml,txt",
        "--images",
        "--hreflang",
        "--priority",
        "depth",
    ],
    &["--max-urls-per-file", "1000"],
    &["--state", "{state}"],
    &["audit"],
];

/// Compares the two builds on a plain site and a web-like one of `pages` pages each, and
/// returns the Markdown section that says what was compared and what differed.
pub(crate) fn run(binaries: &[Binary], pages: u64) -> anyhow::Result<String> {
    let [this, before] = binaries else {
        bail!("--same-output needs --before: the build to compare with");
    };
    let mut rows = Vec::new();
    let plain = Server::start(GeneratedSite::new(pages), 2)?;
    rows.extend(compare_site(
        &format!("plain, {pages} pages"),
        &plain.url("/"),
        this,
        before,
    )?);
    drop(plain);
    say(&format!("web, gzip: compressing {pages} pages"));
    let web = Server::start(
        CompressedWebSite::new(WebSite { pages }, Encodings::Gzip),
        2,
    )?;
    rows.extend(compare_site(
        &format!("web, gzip, {pages} pages"),
        &web.url("/"),
        this,
        before,
    )?);
    let mut text = format!(
        "## The same output as the build before\n\n`sitemapper-bench --same-output {pages} --before BEFORE`: each site run by \
         both builds with each option set; every file compared byte for byte (the times masked \
         are listed in crates/bench/src/same_output.rs).\n\n| site | options | files | result |\n| --- | --- | ---: | --- |\n"
    );
    for row in &rows {
        text.push_str(&format!(
            "| {} | `{}` | {} | {} |\n",
            row.site, row.options, row.files, row.result
        ));
    }
    Ok(text)
}

/// One comparison.
struct Row {
    site: String,
    options: String,
    files: usize,
    result: String,
}

fn compare_site(
    site: &str,
    seed: &str,
    this: &Binary,
    before: &Binary,
) -> anyhow::Result<Vec<Row>> {
    let mut rows = Vec::new();
    for options in CRAWLS {
        say(&format!("{site}: {}", options.join(" ")));
        let ours = run_binary(&this.path, seed, options)?;
        let theirs = run_binary(&before.path, seed, options)?;
        let (files, differences) = differences(&ours, &theirs);
        rows.push(Row {
            site: site.to_string(),
            options: if options.is_empty() {
                "crawl".to_string()
            } else if options == ["audit"] {
                "audit".to_string()
            } else {
                format!("crawl {}", options.join(" ").replace("{state}", "DB"))
            },
            files,
            result: if differences.is_empty() {
                "identical".to_string()
            } else {
                format!("DIFFERENT: {}", differences.join(", "))
            },
        });
    }
    Ok(rows)
}

/// The files one binary writes for one option set, masked, by name. A run with `--state`
/// runs twice over the same database, and the second run's files are kept.
fn run_binary(
    binary: &Path,
    seed: &str,
    options: &[&str],
) -> anyhow::Result<BTreeMap<String, Vec<u8>>> {
    let directory = tempfile::tempdir().context("output directory")?;
    let out = directory.path().join("out");
    let state = directory.path().join("crawl.db");
    let state = state.to_string_lossy().into_owned();
    let audit = options == ["audit"];
    let mut args: Vec<String> = if audit {
        vec!["audit".into(), seed.into(), "--report".into()]
    } else {
        vec!["crawl".into(), seed.into(), "--out".into()]
    };
    args.push(out.to_string_lossy().into_owned());
    if audit {
        // The generated pages link to other sites: the benchmark reaches 127.0.0.1 alone.
        args.push("--check-external=false".into());
    } else {
        args.extend(
            options
                .iter()
                .map(|option| option.replace("{state}", &state)),
        );
    }
    args.extend(["--render", "never", "-q"].map(String::from));
    let runs = if options.contains(&"{state}") { 2 } else { 1 };
    for _ in 0..runs {
        let status = Command::new(binary)
            .args(&args)
            .env("NO_COLOR", "1")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .status()
            .with_context(|| format!("run {}", binary.display()))?;
        if !status.success() && !audit {
            bail!("{} {} failed: {status}", binary.display(), args.join(" "));
        }
    }
    let mut files = BTreeMap::new();
    for entry in std::fs::read_dir(&out).with_context(|| format!("read {}", out.display()))? {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if name == "crawl.db" || name.starts_with("crawl.db-") || !entry.file_type()?.is_file() {
            continue;
        }
        let bytes = std::fs::read(entry.path())?;
        files.insert(name.clone(), mask(&name, bytes));
    }
    Ok(files)
}

/// What is left of a file once the times that differ from run to run are masked.
fn mask(name: &str, bytes: Vec<u8>) -> Vec<u8> {
    if name == "report.xlsx" {
        return workbook_without_times(&bytes).unwrap_or(bytes);
    }
    let Ok(text) = String::from_utf8(bytes.clone()) else {
        return bytes;
    };
    let masked = match name {
        "sitemap.xml" if text.contains("<sitemapindex") => replace(
            &text,
            r"<lastmod>[^<]*</lastmod>",
            "<lastmod>(time of the run)</lastmod>",
        ),
        "report.json" => replace(
            &text,
            r#""(started_at|finished_at|generated_at|audited_at|date|duration_seconds|elapsed_ms|seconds)": ?("[^"]*"|[0-9.]+)"#,
            "\"$1\": (time)",
        ),
        "report.html" => replace(
            &without_response_times(&text),
            r"\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(:\d{2})?( UTC|Z)?|\d+(\.\d+)? ?(ms|s)\b",
            "(time)",
        ),
        "pages.csv" => mask_column(&text, "elapsed_ms"),
        _ => return bytes,
    };
    masked.into_bytes()
}

/// report.html with the response time of each page emptied in the data it embeds (its pages
/// are `[url, status, verdict, reason, depth, title, bytes, elapsed_ms, ...]`).
fn without_response_times(html: &str) -> String {
    const START: &str = r#"<script type="application/json" id="report-data">"#;
    let Some((before, rest)) = html.split_once(START) else {
        return html.to_string();
    };
    let Some((data, after)) = rest.split_once("</script>") else {
        return html.to_string();
    };
    let Ok(mut data) = serde_json::from_str::<serde_json::Value>(data) else {
        return html.to_string();
    };
    if let Some(pages) = data["pages"].as_array_mut() {
        for page in pages {
            page[7] = serde_json::Value::Null;
        }
    }
    format!("{before}{START}{data}</script>{after}")
}

/// report.xlsx as its parts, by name, each as text: the workbook's creation and modification
/// times and the audit's date masked, and the cells of every sheet's `elapsed_ms` column emptied. `None` when it is
/// not a readable workbook (compared byte for byte then).
fn workbook_without_times(bytes: &[u8]) -> Option<Vec<u8>> {
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(bytes)).ok()?;
    let mut parts = BTreeMap::new();
    for index in 0..archive.len() {
        let mut part = archive.by_index(index).ok()?;
        let name = part.name().ok()?.to_string();
        let mut text = String::new();
        std::io::Read::read_to_string(&mut part, &mut text).ok()?;
        let text = if name == "docProps/core.xml" {
            replace(
                &text,
                r"(<dcterms:(created|modified)[^>]*>)[^<]*",
                "$1(time)",
            )
        } else {
            // The audit's date, to the minute, on the summary sheet.
            replace(
                &without_elapsed_cells(&text),
                r"\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC",
                "(time)",
            )
        };
        parts.insert(name, text);
    }
    let mut joined = String::new();
    for (name, text) in parts {
        joined.push_str(&format!("== {name}\n{text}\n"));
    }
    Some(joined.into_bytes())
}

/// A worksheet with the cells of its `elapsed_ms` column (found by the header of its first
/// row) emptied.
fn without_elapsed_cells(sheet: &str) -> String {
    let header = Regex::new(r#"<c r="([A-Z]+)1"[^>]*><is><t>elapsed_ms</t></is></c>"#);
    let Some(column) = header
        .ok()
        .and_then(|header| header.captures(sheet))
        .map(|found| found[1].to_string())
    else {
        return sheet.to_string();
    };
    replace(
        sheet,
        &format!(r#"(<c r="{column}[0-9]+"[^>]*>)<v>[^<]*</v>"#),
        "$1",
    )
}

fn replace(text: &str, pattern: &str, with: &str) -> String {
    match Regex::new(pattern) {
        Ok(regex) => regex.replace_all(text, with).into_owned(),
        Err(_) => text.to_string(),
    }
}

/// `text`, a CSV file, with the cells of `column` emptied. The cells compared are the ones
/// written, so a quoted comma in another column does not matter here: only the header's
/// position of the column is used, and rows are split the same way in both builds' files.
fn mask_column(text: &str, column: &str) -> String {
    let mut lines = text.lines();
    let Some(header) = lines.next() else {
        return text.to_string();
    };
    let Some(position) = header.split(',').position(|name| name == column) else {
        return text.to_string();
    };
    let mut masked = format!("{header}\n");
    for line in lines {
        let mut cells: Vec<&str> = line.split(',').collect();
        if let Some(cell) = cells.get_mut(position) {
            *cell = "";
        }
        masked.push_str(&cells.join(","));
        masked.push('\n');
    }
    masked
}

/// How many files the two runs wrote, and what differs between them.
fn differences(
    ours: &BTreeMap<String, Vec<u8>>,
    theirs: &BTreeMap<String, Vec<u8>>,
) -> (usize, Vec<String>) {
    let mut differences = Vec::new();
    for name in ours.keys().filter(|name| !theirs.contains_key(*name)) {
        differences.push(format!("only this build wrote {name}"));
    }
    for name in theirs.keys().filter(|name| !ours.contains_key(*name)) {
        differences.push(format!("only the build before wrote {name}"));
    }
    for (name, bytes) in ours {
        if let Some(other) = theirs.get(name).filter(|other| *other != bytes) {
            differences.push(format!("{name} differs{}", first_difference(bytes, other)));
        }
    }
    (ours.len().max(theirs.len()), differences)
}

/// Where two texts first differ, as `: at byte N, "ours" against "theirs"` (40 characters
/// of each from a little before), for the table; nothing for bytes that are not text.
fn first_difference(ours: &[u8], theirs: &[u8]) -> String {
    let (Ok(ours), Ok(theirs)) = (std::str::from_utf8(ours), std::str::from_utf8(theirs)) else {
        return String::new();
    };
    let at = ours
        .char_indices()
        .zip(theirs.chars())
        .find(|((_, a), b)| a != b)
        .map_or(ours.len().min(theirs.len()), |((index, _), _)| index);
    let from = |text: &str| {
        let mut start = at.saturating_sub(20).min(text.len());
        while !text.is_char_boundary(start) {
            start -= 1;
        }
        text[start..].chars().take(40).collect::<String>()
    };
    format!(
        ": at byte {at}, {:?} against {:?}",
        from(ours),
        from(theirs)
    )
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    /// A workbook of a core part made at `time` and a sheet of one page fetched in `elapsed`
    /// ms, of `bytes` bytes.
    fn workbook(time: &str, elapsed: u32, bytes: u32) -> Vec<u8> {
        let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        let options = zip::write::SimpleFileOptions::default();
        let parts = [
            (
                "docProps/core.xml",
                format!(r#"<cp><dcterms:created xsi:type="W3CDTF">{time}</dcterms:created></cp>"#),
            ),
            (
                "xl/worksheets/sheet1.xml",
                format!(
                    r#"<row r="1"><c r="A1" t="inlineStr"><is><t>bytes</t></is></c><c r="B1" t="inlineStr"><is><t>elapsed_ms</t></is></c></row><row r="2"><c r="A2"><v>{bytes}</v></c><c r="B2"><v>{elapsed}</v></c></row>"#
                ),
            ),
            (
                "xl/worksheets/sheet2.xml",
                format!(
                    r#"<row r="1"><c r="A1" t="inlineStr"><is><t>{} {} UTC</t></is></c></row>"#,
                    &time[..10],
                    &time[11..16]
                ),
            ),
        ];
        for (name, text) in parts {
            zip.start_file(name, options)
                .unwrap_or_else(|error| panic!("{error}"));
            zip.write_all(text.as_bytes())
                .unwrap_or_else(|error| panic!("{error}"));
        }
        zip.finish()
            .unwrap_or_else(|error| panic!("{error}"))
            .into_inner()
    }

    #[test]
    fn a_workbook_differs_only_by_what_it_says_besides_its_times() {
        let first = mask("report.xlsx", workbook("2026-01-01T00:00:00Z", 12, 500));
        let later = mask("report.xlsx", workbook("2026-01-02T10:00:00Z", 40, 500));
        let other = mask("report.xlsx", workbook("2026-01-01T00:00:00Z", 12, 501));
        assert_eq!(first, later);
        assert_ne!(first, other);
    }
}
