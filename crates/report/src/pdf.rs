//! `--pdf`: report.pdf, report.html printed by the installed Chromium over the DevTools
//! protocol (`sitemapper_render::print_to_pdf`), on A4 or US Letter, with the site and
//! "Page N of M" in a footer on every page and an outline of the report's headings. The
//! report's print styles are what the pages look like (docs/audit.md, "The PDF").

use std::path::Path;
use std::time::Duration;

use sitemapper_render::{BrowserMissing, PdfLayout, PrintError, find_browser, print_to_pdf};

use crate::error::{PdfError, ReportError};

/// How long the browser may take to start, load and print the report.
const PRINT_TIMEOUT: Duration = Duration::from_secs(60);

/// Millimetres per inch: the protocol measures paper in inches.
const MM: f64 = 1.0 / 25.4;

/// The sheet the report is printed on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Paper {
    /// ISO 216 A4, 210 × 297 mm: everywhere but North America.
    A4,
    /// US Letter, 8.5 × 11 inches: the United States and Canada.
    Letter,
}

impl Paper {
    /// The paper of the user's locale (docs/audit.md, "The PDF"): the first of `LC_ALL`,
    /// `LC_PAPER` and `LANG` that is set and not empty names it, as POSIX orders them; a
    /// locale of the territory US or CA prints on Letter, any other (C, POSIX, none) on A4.
    pub fn of_locale(variable: impl Fn(&str) -> Option<String>) -> Paper {
        let locale = ["LC_ALL", "LC_PAPER", "LANG"]
            .iter()
            .find_map(|name| variable(name).filter(|value| !value.is_empty()));
        match locale.as_deref().and_then(territory) {
            Some(territory) if ["US", "CA"].contains(&territory) => Paper::Letter,
            _ => Paper::A4,
        }
    }

    /// Width and height, in inches.
    fn size(self) -> (f64, f64) {
        match self {
            Paper::A4 => (210.0 * MM, 297.0 * MM),
            Paper::Letter => (8.5, 11.0),
        }
    }
}

/// The territory of a locale name `language[_TERRITORY][.codeset][@modifier]` (POSIX,
/// "Locale"): `en_US.UTF-8` is `US`.
fn territory(locale: &str) -> Option<&str> {
    let name = locale.split(['.', '@']).next()?;
    let (_, territory) = name.split_once('_')?;
    Some(territory)
}

/// Prints `html` (report.html's text) into `pdf` on `paper` with the browser `chrome`
/// names, or the one found; `site` is named in every page's footer. The browser reads a copy
/// in a directory of this user's alone, not report.html: a link planted at that name in the
/// report directory would have it print whatever file the link points to.
pub(crate) fn write_pdf(
    chrome: Option<&Path>,
    html: &str,
    pdf: &Path,
    paper: Paper,
    site: &str,
) -> Result<(), ReportError> {
    let browser = find_browser(chrome).map_err(|missing| match missing {
        BrowserMissing::NotFound => PdfError::NoBrowser,
        named => PdfError::Browser(named),
    })?;
    // Private (0700), and removed when dropped.
    let copy = tempfile::Builder::new()
        .prefix("sitemapper-print-")
        .tempdir()
        .map_err(PdfError::NoTemporaryDirectory)?;
    let copied = copy.path().join("report.html");
    std::fs::write(&copied, html).map_err(|error| ReportError::write(pdf, error))?;
    let page = std::fs::canonicalize(&copied)
        .ok()
        .and_then(|path| url::Url::from_file_path(path).ok())
        .ok_or_else(|| PdfError::Unopenable(copied.clone()))?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|error| ReportError::write(pdf, error))?;
    let printed = runtime
        .block_on(print_to_pdf(
            &browser,
            &page,
            &layout(paper, site),
            PRINT_TIMEOUT,
        ))
        .map_err(|error| match error {
            PrintError::TimedOut(limit) => PdfError::TimedOut {
                browser: browser.clone(),
                seconds: limit.as_secs(),
            },
            PrintError::Launch(reason) => PdfError::Launch {
                browser: browser.clone(),
                reason,
            },
            PrintError::Failed(reason) => PdfError::Failed {
                browser: browser.clone(),
                reason,
            },
        })?;
    crate::new_file::write_bytes(pdf, &printed)
}

/// The page's layout: `paper`, margins that leave the footer its own band, and the footer
/// itself, the site on the left and "Page N of M" on the right.
fn layout(paper: Paper, site: &str) -> PdfLayout {
    let (paper_width, paper_height) = paper.size();
    // The same margins as the report's `@page` rule (html/style.css), for a print from a
    // browser's own dialog.
    PdfLayout {
        paper_width,
        paper_height,
        margins: [14.0 * MM, 12.0 * MM, 16.0 * MM, 12.0 * MM],
        footer_template: footer(site),
    }
}

/// The footer's HTML. Chromium draws it in the bottom margin with no style of the page's:
/// its font and size are set here, and the page's number and count fill the elements of
/// class `pageNumber` and `totalPages`.
fn footer(site: &str) -> String {
    format!(
        r#"<div style="box-sizing:border-box;width:100%;padding:0 12mm;display:flex;justify-content:space-between;gap:8mm;font:8pt system-ui,Arial,sans-serif;color:#3b4252;-webkit-print-color-adjust:exact"><span style="overflow:hidden;text-overflow:ellipsis;white-space:nowrap">{site}</span><span style="white-space:nowrap">Page <span class="pageNumber"></span> of <span class="totalPages"></span></span></div>"#,
        site = quick_xml::escape::escape(site),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_paper_follows_the_first_locale_variable_set() {
        let cases: &[(&[(&str, &str)], Paper)] = &[
            (&[], Paper::A4),
            (&[("LANG", "C")], Paper::A4),
            (&[("LANG", "POSIX")], Paper::A4),
            (&[("LANG", "C.UTF-8")], Paper::A4),
            (&[("LANG", "en_US.UTF-8")], Paper::Letter),
            (&[("LANG", "fr_CA.UTF-8")], Paper::Letter),
            (&[("LANG", "en_CA")], Paper::Letter),
            (&[("LANG", "en_GB.UTF-8")], Paper::A4),
            (&[("LANG", "de_DE.UTF-8@euro")], Paper::A4),
            (&[("LANG", "es_MX.UTF-8")], Paper::A4),
            (&[("LANG", "en_US"), ("LC_PAPER", "en_GB.UTF-8")], Paper::A4),
            (
                &[("LANG", "en_GB"), ("LC_PAPER", "en_US.UTF-8")],
                Paper::Letter,
            ),
            (
                &[("LC_ALL", "C"), ("LC_PAPER", "en_US"), ("LANG", "en_US")],
                Paper::A4,
            ),
            (&[("LC_ALL", "en_US.UTF-8"), ("LANG", "C")], Paper::Letter),
            // Set but empty: as if unset.
            (&[("LC_ALL", ""), ("LANG", "en_US.UTF-8")], Paper::Letter),
        ];
        for (variables, paper) in cases {
            let variable = |name: &str| {
                variables
                    .iter()
                    .find(|(key, _)| *key == name)
                    .map(|(_, value)| (*value).to_string())
            };
            assert_eq!(Paper::of_locale(variable), *paper, "{variables:?}");
        }
    }

    #[test]
    fn the_footer_names_the_site_as_text() {
        let footer = footer("https://e.com/?a=1&b=<2>");
        assert!(
            footer.contains("https://e.com/?a=1&amp;b=&lt;2&gt;"),
            "{footer}"
        );
        assert!(footer.contains(r#"<span class="pageNumber"></span>"#));
        assert!(footer.contains(r#"<span class="totalPages"></span>"#));
    }
}
