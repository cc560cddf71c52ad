//! report.pdf as a client prints it, read back with poppler's tools (pdfinfo, pdftotext,
//! pdftoppm): its paper, its footer and contents, and no page left mostly blank; and the
//! pages table of report.html on a phone (390 px), where no column may be cut.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::audit::troubled_site;
use crate::fixture::{Route, Server, Site};
use crate::harness::{Run, chromium, sitemapper_command};
use crate::report::OpenReport;

/// Topics of the generated site, and articles per topic.
const TOPICS: usize = 6;
const ARTICLES: usize = 12;

/// A generated site of 120 pages or so, with findings of many kinds and many URLs each:
/// duplicate and missing titles, missing descriptions, broken links, redirects, large and
/// noindex pages, pages too deep, and a sitemap listing URLs that do not answer 200.
fn print_site() -> Server {
    Site::new()
        .generated(|target| {
            let segments: Vec<&str> = target.trim_matches('/').split('/').collect();
            let html = |title: Option<&str>, description: bool, body: &str| {
                let title = title.map_or(String::new(), |title| format!("<title>{title}</title>"));
                let description = if description {
                    "<meta name=\"description\" content=\"A page of the printed fixture\">"
                } else {
                    ""
                };
                Some(Route::html(&format!(
                    "<html><head>{title}{description}</head><body>{body}</body></html>"
                )))
            };
            match segments.as_slice() {
                [""] => {
                    let topics: String = (0..TOPICS)
                        .map(|topic| format!("<a href=\"/topic/{topic}\">topic {topic}</a> "))
                        .collect();
                    html(
                        Some("Home"),
                        true,
                        &format!("{topics}<a href=\"/old-topic\">old</a> <a href=\"/missing\">missing</a>"),
                    )
                }
                ["robots.txt"] => Some(Route::new(
                    200,
                    "User-agent: *\nDisallow: /private/\nSitemap: {origin}/sitemap.xml\n",
                )),
                ["sitemap.xml"] => {
                    let locs: String = (0..TOPICS)
                        .flat_map(|topic| {
                            [
                                format!("<url><loc>{{origin}}/topic/{topic}</loc></url>"),
                                format!("<url><loc>{{origin}}/topic/{topic}/gone</loc></url>"),
                            ]
                        })
                        .collect();
                    Some(
                        Route::new(
                            200,
                            &format!(
                                "<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\"><url><loc>{{origin}}/</loc></url>{locs}</urlset>"
                            ),
                        )
                        .header("Content-Type", "application/xml"),
                    )
                }
                ["old-topic"] => Some(Route::redirect(301, "/topic/0")),
                ["topic", topic] => {
                    let articles: String = (0..ARTICLES)
                        .map(|article| {
                            format!("<a href=\"/topic/{topic}/article/{article}\">article {article}</a> ")
                        })
                        .collect();
                    html(
                        Some(&format!("Topic {topic}")),
                        true,
                        &format!(
                            "{articles}<a href=\"/topic/{topic}/gone\">gone</a> <a href=\"/topic/{topic}/deep/1\">deeper</a> <a href=\"/private/{topic}\">private</a>"
                        ),
                    )
                }
                ["topic", topic, "article", article] => {
                    let number: usize = article.parse().ok()?;
                    let title = match number % 4 {
                        0 => None,
                        1 => Some("Article".to_string()),
                        _ => Some(format!("Article {article} of topic {topic}")),
                    };
                    let mut body = format!("<a href=\"/topic/{topic}\">up</a><p>Article text.</p>");
                    if number.is_multiple_of(5) {
                        body.push_str(&"<p>A long article, padded.</p>".repeat(600));
                    }
                    if number == 7 {
                        body.push_str("<a href=\"/old-topic\">the old topic</a>");
                    }
                    let noindex = if number == 9 {
                        "<meta name=\"robots\" content=\"noindex\">"
                    } else {
                        ""
                    };
                    html(title.as_deref(), number.is_multiple_of(2), &format!("{noindex}{body}"))
                }
                ["topic", topic, "deep", level] => {
                    let level: usize = level.parse().ok()?;
                    let next = if level < 6 {
                        format!("<a href=\"/topic/{topic}/deep/{}\">deeper</a>", level + 1)
                    } else {
                        String::new()
                    };
                    html(Some(&format!("Deep {level} of topic {topic}")), true, &next)
                }
                _ => Some(Route::new(404, "not found").header("Content-Type", "text/html")),
            }
        })
        .serve()
}

/// poppler's command-line tools (Debian's poppler-utils, installed by .ci/run). Missing, the
/// PDF tests are skipped with a message, but not under CI.
fn poppler() -> bool {
    let found = Command::new("pdftoppm").arg("-v").output().is_ok();
    if !found {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "poppler-utils is required under CI (.ci/run installs it)"
        );
        eprintln!("skipping a PDF test: pdftoppm (poppler-utils) is not installed");
    }
    found
}

/// `sitemapper audit` of `server` into `report` with `--pdf`, the locale `locale` (LC_ALL;
/// LC_PAPER and LANG unset), and `extra`.
fn audit_to_pdf(
    server: &Server,
    report: &Path,
    chrome: &Path,
    locale: &str,
    extra: &[&str],
) -> Run {
    let seed = server.url("/");
    let mut args = vec![
        "audit",
        &seed,
        "--report",
        report.to_str().unwrap(),
        "--retries",
        "0",
        "--render",
        "never",
        "--large",
        "10000",
        "--pdf",
        "--chrome",
        chrome.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    sitemapper_command(&args)
        .env("LC_ALL", locale)
        .env_remove("LC_PAPER")
        .env_remove("LANG")
        .output()
        .unwrap()
        .into()
}

/// What a poppler tool printed on stdout.
fn poppler_output(tool: &str, args: &[&str]) -> String {
    let output = Command::new(tool).args(args).output().unwrap();
    assert!(
        output.status.success(),
        "{tool} {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// pdfinfo's `Pages:` and `Page size:` lines.
fn pdf_info(pdf: &Path) -> (usize, String) {
    let info = poppler_output("pdfinfo", &[pdf.to_str().unwrap()]);
    let field = |name: &str| {
        info.lines()
            .find_map(|line| line.strip_prefix(name))
            .unwrap_or_else(|| panic!("no {name} in {info}"))
            .trim()
            .to_string()
    };
    (field("Pages:").parse().unwrap(), field("Page size:"))
}

/// The resolution pages are turned into images at: enough for a row of 9 pt text to be
/// several rows of pixels.
const DPI: f64 = 50.0;

/// The margins of report.pdf in millimetres, top and bottom (crates/report/src/pdf.rs).
const MARGIN_TOP_MM: f64 = 14.0;
const MARGIN_BOTTOM_MM: f64 = 16.0;

/// A page as an image: rows of 8-bit grey pixels, 255 white.
struct Gray {
    width: usize,
    height: usize,
    pixels: Vec<u8>,
}

impl Gray {
    /// A binary PGM (`P5`) as pdftoppm writes it: `P5`, width, height, maximum value, one
    /// whitespace, then the pixels.
    fn read(path: &Path) -> Gray {
        let bytes = std::fs::read(path).unwrap();
        let mut fields = Vec::new();
        let mut at = 0;
        while fields.len() < 4 {
            while bytes[at].is_ascii_whitespace() {
                at += 1;
            }
            let start = at;
            while !bytes[at].is_ascii_whitespace() {
                at += 1;
            }
            fields.push(String::from_utf8_lossy(&bytes[start..at]).into_owned());
        }
        assert_eq!(fields[0], "P5", "{}", path.display());
        assert_eq!(fields[3], "255", "{}", path.display());
        let (width, height) = (fields[1].parse().unwrap(), fields[2].parse().unwrap());
        let pixels = bytes[at + 1..].to_vec();
        assert_eq!(pixels.len(), width * height, "{}", path.display());
        Gray {
            width,
            height,
            pixels,
        }
    }

    /// Whether row `row` holds content: at least 1% of its pixels darker than a light grey.
    /// A panel's side borders, a pixel or two each, do not make a row of content.
    fn row_has_ink(&self, row: usize) -> bool {
        let dark = self.pixels[row * self.width..(row + 1) * self.width]
            .iter()
            .filter(|&&pixel| pixel < 200)
            .count();
        dark * 100 >= self.width
    }

    /// How much of the page's printable height is used: the share of the rows between the
    /// top and bottom margins that lie from the first row with ink to the last one. The
    /// footer, drawn in the bottom margin on every page, does not count: a page holding
    /// nothing but its footer has an ink of 0, a page whose content stops halfway down has
    /// about 0.5, a full page 1. A break that leaves the rest of a page empty shows as a low
    /// ink on that page.
    fn ink(&self) -> f64 {
        let pixels_per_mm = DPI / 25.4;
        let top = (MARGIN_TOP_MM * pixels_per_mm).floor() as usize;
        let bottom = self.height - (MARGIN_BOTTOM_MM * pixels_per_mm).ceil() as usize;
        let inked: Vec<usize> = (top..bottom).filter(|&row| self.row_has_ink(row)).collect();
        match (inked.first(), inked.last()) {
            (Some(first), Some(last)) => (last - first + 1) as f64 / (bottom - top) as f64,
            _ => 0.0,
        }
    }
}

/// The ink of each page of `pdf` (see [`Gray::ink`]).
fn page_inks(pdf: &Path) -> Vec<f64> {
    let images = tempfile::tempdir().unwrap();
    let prefix = images.path().join("page");
    poppler_output(
        "pdftoppm",
        &[
            "-gray",
            "-r",
            &DPI.to_string(),
            pdf.to_str().unwrap(),
            prefix.to_str().unwrap(),
        ],
    );
    let mut pages: Vec<PathBuf> = std::fs::read_dir(images.path())
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    // page-01.pgm, page-02.pgm...: zero-padded, so that names sort as numbers.
    pages.sort();
    pages.iter().map(|page| Gray::read(page).ink()).collect()
}

#[test]
fn the_pdf_has_contents_a_footer_on_every_page_and_no_page_left_mostly_blank() {
    let Some(executable) = chromium() else { return };
    if !poppler() {
        return;
    }
    let server = print_site();
    let report = tempfile::tempdir().unwrap();
    let run = audit_to_pdf(&server, report.path(), &executable, "en_GB.UTF-8", &[]);
    run.assert_success();
    let pdf = report.path().join("report.pdf");
    assert!(!report.path().join("report.pdf.partial").exists());

    let (pages, size) = pdf_info(&pdf);
    assert!(pages >= 4, "{pages} pages: too few to tell breaks apart");
    assert!(size.contains("(A4)"), "the locale's paper: {size}");

    // Every page's footer: the site, and "Page N of M".
    let text = poppler_output("pdftotext", &["-layout", pdf.to_str().unwrap(), "-"]);
    let page_texts: Vec<&str> = text
        .split('\u{c}')
        .filter(|page| !page.trim().is_empty())
        .collect();
    assert_eq!(page_texts.len(), pages, "{text}");
    for (index, page_text) in page_texts.iter().enumerate() {
        let footer = format!("Page {} of {pages}", index + 1);
        assert!(
            page_text.contains(&footer),
            "page {}: no {footer:?}: {page_text}",
            index + 1
        );
        assert!(
            page_text.contains(&server.url("/")),
            "page {}: no site in the footer: {page_text}",
            index + 1
        );
    }

    // The contents on the first page, naming the sections, the groups and the kinds.
    for line in [
        "Contents",
        "Site health score",
        "Issues by kind",
        "Errors and warnings",
        "Notices",
        "Broken internal link target",
    ] {
        assert!(
            page_texts[0].contains(line),
            "{line:?} on page 1: {}",
            page_texts[0]
        );
    }
    let raw = std::fs::read(&pdf).unwrap();
    let has = |needle: &[u8]| raw.windows(needle.len()).any(|window| window == needle);
    assert!(has(b"/Outlines"), "the PDF has an outline");
    assert!(has(b"/Link"), "the contents link to their sections");

    // Sizes as the HTML writes them.
    assert!(text.contains(" KiB"), "{text}");
    assert!(!text.contains(" bytes"), "{text}");

    // No page but the last is left mostly blank.
    let inks = page_inks(&pdf);
    assert_eq!(inks.len(), pages);
    let rounded: Vec<String> = inks.iter().map(|ink| format!("{ink:.2}")).collect();
    eprintln!("report.pdf: {pages} pages, inks {rounded:?}");
    for (index, ink) in inks[..pages - 1].iter().enumerate() {
        assert!(
            *ink >= 0.15,
            "page {} of {pages} is mostly blank: inks {rounded:?}",
            index + 1
        );
    }
}

#[test]
fn the_paper_is_the_flag_s_else_the_locale_s() {
    let Some(executable) = chromium() else { return };
    if !poppler() {
        return;
    }
    let server = Site::new()
        .page("/", "<html><head><title>Home</title></head><body><a href=\"/about\">about</a></body></html>")
        .page("/about", "<html><head><title>About</title></head><body>about</body></html>")
        .serve();
    for (locale, flag, expected) in [
        ("en_US.UTF-8", None, "612 x 792 pts (letter)"),
        ("C", None, "595.92 x 841.92 pts (A4)"),
        ("en_US.UTF-8", Some("a4"), "595.92 x 841.92 pts (A4)"),
        ("C", Some("letter"), "612 x 792 pts (letter)"),
    ] {
        let report = tempfile::tempdir().unwrap();
        let extra: Vec<&str> = flag.map(|paper| vec!["--paper", paper]).unwrap_or_default();
        audit_to_pdf(&server, report.path(), &executable, locale, &extra).assert_success();
        let (_, size) = pdf_info(&report.path().join("report.pdf"));
        assert_eq!(size, expected, "LC_ALL={locale} {extra:?}");
    }
}

/// Where the pages table cuts a cell: the visible cells of the first rows that reach past
/// the window or past the table's scroll container, as `column: row`.
const CUT_CELLS: &str = "(() => {
  const wrap = document.getElementById('pages-table-wrap').getBoundingClientRect();
  const cut = [];
  for (const row of [...document.querySelectorAll('#pages tbody tr')].slice(0, 40)) {
    for (const cell of row.cells) {
      const box = cell.getBoundingClientRect();
      if (box.width === 0 || box.height === 0) continue;
      const inside = box.left >= Math.max(0, wrap.left) - 1 && box.right <= Math.min(window.innerWidth, wrap.right) + 1;
      if (!inside) cut.push((cell.dataset.column || 'column ' + cell.cellIndex) + ': row ' + row.rowIndex);
    }
  }
  return cut;
})()";

/// For each of the first rows of the pages table: the URL's, status's and verdict's boxes,
/// as `[top, bottom]` each, relative to the row's top (the same in every row when the rows
/// read alike), with whether each is shown.
const ROW_LAYOUT: &str = "[...document.querySelectorAll('#pages tbody tr')].slice(0, 40).map(row => {
  const top = row.getBoundingClientRect().top;
  return ['url', 'status', 'verdict'].map(column => {
    const box = row.querySelector(`td[data-column=${column}]`).getBoundingClientRect();
    return [box.width > 0 && box.height > 0, Math.round(box.top - top), Math.round(box.bottom - top)];
  });
})";

#[test]
fn the_pages_table_cuts_no_column_on_a_phone_and_stays_a_table_on_a_laptop() {
    let Some(executable) = chromium() else { return };
    let server = troubled_site();
    let report = tempfile::tempdir().unwrap();
    crate::audit::audit(&server, report.path(), &[]).assert_success();
    let open = OpenReport::open(&executable, report.path(), 390);
    assert_eq!(open.eval::<u32>("window.innerWidth"), 390);
    assert!(open.eval::<u32>("document.querySelectorAll('#pages tbody tr').length") > 20);
    let cut: Vec<String> = open.eval(CUT_CELLS);
    assert!(cut.is_empty(), "390 px: cells cut: {cut:?}");
    assert!(
        open.eval::<bool>(
            "(wrap => wrap.scrollWidth <= wrap.clientWidth + 1)(document.getElementById('pages-table-wrap'))"
        ),
        "390 px: the table scrolls sideways"
    );
    // Every row shows its URL, then its status and verdict side by side under it, in the
    // same places.
    let rows: Vec<[(bool, i64, i64); 3]> = open.eval(ROW_LAYOUT);
    for [url, status, verdict] in &rows {
        assert!(url.0 && status.0 && verdict.0, "390 px: {rows:?}");
        assert!(
            status.1 >= url.2 - 1,
            "390 px: the status under the URL: {rows:?}"
        );
        assert_eq!(
            status.1, verdict.1,
            "390 px: status and verdict on one line: {rows:?}"
        );
    }
    // The column buttons still sort.
    open.click("#pages thead th:nth-child(2) button");
    open.wait_for("document.querySelector('#pages thead th:nth-child(2)').getAttribute('aria-sort') === 'ascending'");
    // And a URL still opens its drill-down.
    open.click("#pages tbody tr td[data-column=url] a");
    open.wait_for("document.getElementById('drill').open");

    open.resize(1400);
    open.go(&open.url);
    assert_eq!(
        open.eval::<Vec<String>>(
            "['pages', 'pages-table-wrap'].map(id => getComputedStyle(document.getElementById(id)).display)
              .concat([getComputedStyle(document.querySelector('#pages tbody tr')).display,
                       getComputedStyle(document.querySelector('#pages thead')).display])"
        ),
        ["table", "block", "table-row", "table-header-group"],
        "1400 px: a table"
    );
    let cut: Vec<String> = open.eval(CUT_CELLS);
    assert!(cut.is_empty(), "1400 px: cells cut: {cut:?}");
}
