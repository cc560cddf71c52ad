//! `--pdf`: report.pdf, report.html printed by the installed Chromium (headless, its
//! `--print-to-pdf`). The report's print styles are what the PDF looks like.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, anyhow, bail};
use sitemapper_render::{BrowserMissing, find_browser};

/// How long the browser may take to print the report.
const PRINT_TIMEOUT: Duration = Duration::from_secs(60);

/// How often a printing browser is asked whether it is done.
const POLL: Duration = Duration::from_millis(50);

/// Chromium's switches for printing a local file in a container: no sandbox (a container
/// seldom allows the namespaces it needs, and the page is the report, which loads nothing),
/// no GPU, no header or footer of its own on the pages, nothing in the background.
const SWITCHES: &[&str] = &[
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-pdf-header-footer",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-default-apps",
    "--disable-extensions",
    "--disable-sync",
    "--no-first-run",
    "--no-default-browser-check",
    "--mute-audio",
];

/// Prints `html` into `pdf` with the browser `--chrome` names, or the one found.
pub(crate) fn write_pdf(chrome: Option<&Path>, html: &Path, pdf: &Path) -> anyhow::Result<()> {
    let browser = find_browser(chrome).map_err(|missing| match missing {
        BrowserMissing::NotFound => anyhow!(
            "cannot write report.pdf: no Chromium found; install chromium or give --chrome PATH"
        ),
        named => anyhow!("cannot write report.pdf: {named}"),
    })?;
    let cannot = || format!("cannot write {}", pdf.display());
    let page = std::fs::canonicalize(html)
        .ok()
        .and_then(|path| url::Url::from_file_path(path).ok())
        .ok_or_else(|| {
            anyhow!(
                "cannot write report.pdf: {} cannot be opened",
                html.display()
            )
        })?;
    let profile = tempfile::Builder::new()
        .prefix("sitemapper-pdf-")
        .tempdir()
        .with_context(cannot)?;
    // Printed beside the report, then renamed: a failed print leaves no half file.
    let partial = pdf.with_extension("pdf.partial");
    let log = std::fs::File::create(profile.path().join("chromium.log")).with_context(cannot)?;
    let mut child = Command::new(&browser)
        .args(SWITCHES)
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg(format!("--print-to-pdf={}", partial.display()))
        .arg(page.as_str())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .with_context(|| {
            format!(
                "cannot write report.pdf: cannot start {}",
                browser.display()
            )
        })?;
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().with_context(cannot)? {
            break status;
        }
        if started.elapsed() > PRINT_TIMEOUT {
            // By its process id: only the browser this run started.
            let _ = child.kill();
            let _ = child.wait();
            let _ = std::fs::remove_file(&partial);
            bail!(
                "cannot write report.pdf: {} did not finish printing within {} seconds",
                browser.display(),
                PRINT_TIMEOUT.as_secs()
            );
        }
        std::thread::sleep(POLL);
    };
    let printed = std::fs::read(&partial).unwrap_or_default();
    if !status.success() || !printed.starts_with(b"%PDF") {
        let _ = std::fs::remove_file(&partial);
        let said = last_line(&profile.path().join("chromium.log"));
        bail!(
            "cannot write report.pdf: {} printed no PDF ({status}){said}",
            browser.display()
        );
    }
    std::fs::rename(&partial, pdf).with_context(cannot)
}

/// The browser's last words, for an error message: `: the line`, or nothing.
fn last_line(log: &Path) -> String {
    std::fs::read_to_string(log)
        .ok()
        .and_then(|text| {
            text.lines()
                .rev()
                .find(|line| !line.trim().is_empty())
                .map(|line| format!(": {}", line.trim()))
        })
        .unwrap_or_default()
}
