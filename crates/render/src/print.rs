//! One local page printed to PDF over the DevTools protocol (`Page.printToPDF`), in a browser
//! started for it alone: the command line's `--print-to-pdf` cannot draw a footer, set the
//! paper or write the PDF's outline. The browser is started and bound to sitemapper's life as
//! the renderer's is (the process module): its own process group, ended through its guard
//! by that group's id, its profile removed.

use std::path::Path;
use std::time::Duration;

use chromiumoxide::cdp::browser_protocol::browser::CloseParams;
use chromiumoxide::cdp::browser_protocol::page::PrintToPdfParams;
use chromiumoxide::handler::HandlerConfig;
use futures_util::StreamExt;
use url::Url;

use crate::browser::{LaunchError, start_connected};

/// How long a browser asked to close may take before what is left of it is killed.
const CLOSE_GRACE: Duration = Duration::from_secs(5);

/// Chromium's switches for printing a local file: headless, nothing in the background, no
/// GPU. No sandbox: a container seldom allows the namespaces it needs, and the page printed
/// is one sitemapper wrote, which loads nothing.
const SWITCHES: &[&str] = &[
    "--headless=new",
    "--remote-debugging-port=0",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-default-apps",
    "--disable-extensions",
    "--disable-sync",
    "--disable-breakpad",
    "--no-first-run",
    "--no-default-browser-check",
    "--no-pings",
    "--mute-audio",
    "--hide-scrollbars",
    "--password-store=basic",
    "--use-mock-keychain",
];

/// How the page is laid out on paper. Lengths are in inches, as the protocol takes them.
#[derive(Debug, Clone, PartialEq)]
pub struct PdfLayout {
    /// The sheet's width.
    pub paper_width: f64,
    /// The sheet's height.
    pub paper_height: f64,
    /// The margins: top, right, bottom, left. The footer is drawn in the bottom one.
    pub margins: [f64; 4],
    /// The footer drawn on every page: HTML in which the elements of class `pageNumber` and
    /// `totalPages` show the page's number and the count of pages. Its text has no size of
    /// its own: the template sets one. Empty: no footer.
    pub footer_template: String,
}

impl Default for PdfLayout {
    /// A4, margins of half an inch, no footer.
    fn default() -> PdfLayout {
        PdfLayout {
            paper_width: 210.0 / 25.4,
            paper_height: 297.0 / 25.4,
            margins: [0.5; 4],
            footer_template: String::new(),
        }
    }
}

/// Why no PDF was printed.
#[derive(Debug, thiserror::Error)]
pub enum PrintError {
    /// The browser did not start, or did not answer on its DevTools address.
    #[error("cannot start it: {0}")]
    Launch(String),
    /// Loading and printing took longer than allowed; the browser was ended.
    #[error("it did not finish printing within {} seconds", .0.as_secs())]
    TimedOut(Duration),
    /// The browser refused to open the page or to print it: what it said.
    #[error("it printed no PDF: {0}")]
    Failed(String),
}

impl From<LaunchError> for PrintError {
    fn from(error: LaunchError) -> PrintError {
        PrintError::Launch(error.to_string())
    }
}

/// Prints `page` (a local file, which loads nothing else) with the browser `executable` as
/// `layout` says, within `timeout` from the browser's start, with the PDF's outline made from
/// the page's headings. The browser is ended however this returns.
pub async fn print_to_pdf(
    executable: &Path,
    page: &Url,
    layout: &PdfLayout,
    timeout: Duration,
) -> Result<Vec<u8>, PrintError> {
    let config = HandlerConfig {
        ignore_https_errors: false,
        ignore_invalid_messages: true,
        // The paper sets the layout's width, not a window.
        viewport: None,
        context_ids: Vec::new(),
        request_timeout: timeout,
        request_intercept: false,
        cache_enabled: false,
    };
    let started = tokio::time::timeout(
        timeout,
        start_connected(executable, config, |profile| {
            let mut arguments: Vec<String> = SWITCHES
                .iter()
                .map(|switch| (*switch).to_string())
                .collect();
            arguments.push(format!("--user-data-dir={}", profile.display()));
            arguments
        }),
    )
    .await
    .map_err(|_| PrintError::TimedOut(timeout))?;
    let (mut process, browser, mut handler) = started?;
    let driver = tokio::spawn(async move {
        // Messages that cannot be read are skipped; the connection ends with the browser.
        while let Some(event) = handler.next().await {
            if let Err(chromiumoxide::error::CdpError::Ws(error)) = event {
                tracing::debug!(%error, "the printing browser's connection failed");
                break;
            }
        }
    });
    let printed = tokio::time::timeout(timeout, async {
        let tab = browser.new_page("about:blank").await?;
        tab.goto(page.as_str()).await?;
        tab.pdf(print_params(layout)).await
    })
    .await;
    let grace = if printed.is_ok() {
        // Asked to close, the browser ends by itself; after the grace, it is killed.
        let _ = tokio::time::timeout(CLOSE_GRACE, browser.execute(CloseParams::default())).await;
        CLOSE_GRACE
    } else {
        Duration::ZERO
    };
    process.end(grace).await;
    driver.abort();
    match printed {
        Err(_) => Err(PrintError::TimedOut(timeout)),
        Ok(Err(error)) => Err(PrintError::Failed(
            error
                .to_string()
                .lines()
                .next()
                .unwrap_or_default()
                .to_string(),
        )),
        Ok(Ok(pdf)) if !pdf.starts_with(b"%PDF") => Err(PrintError::Failed(
            "what it printed is not a PDF".to_string(),
        )),
        Ok(Ok(pdf)) => Ok(pdf),
    }
}

/// `Page.printToPDF`'s parameters for `layout`: backgrounds printed (the report's colours
/// carry meaning beside its words), the paper of the layout rather than the page's CSS, a
/// tagged PDF whose outline lists the page's headings.
fn print_params(layout: &PdfLayout) -> PrintToPdfParams {
    let [top, right, bottom, left] = layout.margins;
    let footer = !layout.footer_template.is_empty();
    PrintToPdfParams {
        landscape: Some(false),
        display_header_footer: Some(footer),
        print_background: Some(true),
        scale: None,
        paper_width: Some(layout.paper_width),
        paper_height: Some(layout.paper_height),
        margin_top: Some(top),
        margin_bottom: Some(bottom),
        margin_left: Some(left),
        margin_right: Some(right),
        page_ranges: None,
        // An empty header: Chromium's own shows the date and the title.
        header_template: footer.then(|| "<span></span>".to_string()),
        footer_template: footer.then(|| layout.footer_template.clone()),
        prefer_css_page_size: Some(false),
        transfer_mode: None,
        generate_tagged_pdf: Some(true),
        generate_document_outline: Some(true),
    }
}
