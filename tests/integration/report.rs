//! report.html as a client reads it: measured in headless Chromium, driven over the DevTools
//! protocol, at a phone's width (390 px) and a laptop's (1400 px); hostile page text shown
//! as text; `--pdf`, `--logo` and `--title`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

use base64::Engine;
use chromiumoxide::Page;
use chromiumoxide::browser::{Browser, BrowserConfig};
use chromiumoxide::cdp::browser_protocol::emulation::SetDeviceMetricsOverrideParams;
use futures_util::StreamExt;
use serde::de::DeserializeOwned;

use crate::audit::{HOSTILE, audit, hostile_site, report_json, troubled_site};
use crate::fixture::Site;
use crate::harness::{assert_one_line_error, chromium, sitemapper_command};

/// report.html open in a headless Chromium of its own.
pub(crate) struct OpenReport {
    runtime: tokio::runtime::Runtime,
    browser: Browser,
    page: Page,
    pub(crate) url: String,
    _profile: tempfile::TempDir,
}

impl OpenReport {
    /// Starts the browser and opens `report`'s report.html, `width` pixels wide.
    pub(crate) fn open(executable: &Path, report: &Path, width: u32) -> OpenReport {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let profile = tempfile::tempdir().unwrap();
        let config = BrowserConfig::builder()
            .chrome_executable(executable)
            .new_headless_mode()
            .no_sandbox()
            .user_data_dir(profile.path())
            .viewport(None)
            .launch_timeout(Duration::from_secs(30))
            .request_timeout(Duration::from_secs(30))
            // The report's script is small: a heap this size is plenty, and bounds a runaway.
            .args([
                "--disable-gpu",
                "--hide-scrollbars",
                "--disable-extensions",
                "--disable-background-networking",
                "--js-flags=--max-old-space-size=256",
            ])
            .build()
            .unwrap();
        let url = format!("file://{}", report.join("report.html").display());
        let (browser, page) = runtime.block_on(async {
            let (browser, mut handler) = Browser::launch(config).await.unwrap();
            tokio::spawn(async move { while handler.next().await.is_some() {} });
            let page = browser.new_page("about:blank").await.unwrap();
            (browser, page)
        });
        let open = OpenReport {
            runtime,
            browser,
            page,
            url,
            _profile: profile,
        };
        open.resize(width);
        open.go(&open.url.clone());
        open
    }

    /// The viewport as a device `width` pixels wide (a phone under 500), 900 high.
    pub(crate) fn resize(&self, width: u32) {
        let metrics = SetDeviceMetricsOverrideParams::new(width, 900, 1.0, width < 500);
        self.runtime.block_on(self.page.execute(metrics)).unwrap();
    }

    /// Loads `url` afresh (from a blank page: a new fragment alone would not reload) and
    /// waits until it has loaded.
    pub(crate) fn go(&self, url: &str) {
        self.runtime.block_on(async {
            self.page.goto("about:blank").await.unwrap();
            self.page.goto(url).await.unwrap();
        });
        self.wait_for("document.readyState === 'complete'");
    }

    /// The value of a JavaScript expression (a promise is awaited).
    pub(crate) fn eval<T: DeserializeOwned>(&self, expression: &str) -> T {
        let result = self
            .runtime
            .block_on(self.page.evaluate_expression(expression))
            .unwrap_or_else(|error| panic!("{expression}: {error}"));
        result
            .into_value()
            .unwrap_or_else(|error| panic!("{expression}: {error}"))
    }

    /// Waits, in the page, until `condition` holds (at each animation frame, at most 5 s).
    pub(crate) fn wait_for(&self, condition: &str) {
        let held: bool = self.eval(&format!(
            "new Promise(resolve => {{ const until = Date.now() + 5000; \
             const check = () => {{ if ({condition}) resolve(true); \
             else if (Date.now() > until) resolve(false); else requestAnimationFrame(check); }}; check(); }})"
        ));
        assert!(held, "never true: {condition}");
    }

    /// A click on the element `selector` finds, as a mouse makes it.
    pub(crate) fn click(&self, selector: &str) {
        self.runtime.block_on(async {
            let element = self
                .page
                .find_element(selector)
                .await
                .unwrap_or_else(|error| panic!("{selector}: {error}"));
            element
                .click()
                .await
                .unwrap_or_else(|error| panic!("click {selector}: {error}"));
        });
    }
}

impl Drop for OpenReport {
    fn drop(&mut self) {
        let _ = self.runtime.block_on(async {
            let _ = self.browser.close().await;
            self.browser.wait().await
        });
    }
}

/// The kinds of finding report.json holds.
fn kinds_in_report_json(report: &Path) -> BTreeSet<String> {
    let json = report_json(report);
    json["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|finding| finding["kind"].as_str().unwrap().to_string())
        .collect()
}

/// Whether the page is wider than the window (a body that scrolls sideways).
const OVERFLOWS: &str = "document.documentElement.scrollWidth > window.innerWidth";

/// The badges shown that take more than one line.
const WRAPPED_BADGES: &str = "[...document.querySelectorAll('.badge')]
    .filter(badge => badge.offsetParent !== null)
    .filter(badge => {
      const style = getComputedStyle(badge);
      const line = parseFloat(style.lineHeight) + parseFloat(style.paddingTop) + parseFloat(style.paddingBottom)
        + parseFloat(style.borderTopWidth) + parseFloat(style.borderBottomWidth);
      return badge.getBoundingClientRect().height > line + 1;
    })
    .map(badge => badge.textContent)";

/// The number of badges shown.
const SHOWN_BADGES: &str =
    "[...document.querySelectorAll('.badge')].filter(badge => badge.offsetParent !== null).length";

#[test]
fn the_report_reads_on_a_phone_and_a_laptop_and_drills_down() {
    let Some(executable) = chromium() else { return };
    let server = troubled_site();
    let report = tempfile::tempdir().unwrap();
    audit(&server, report.path(), &[]).assert_success();
    let kinds = kinds_in_report_json(report.path());
    assert!(kinds.len() > 20, "{kinds:?}");
    let open = OpenReport::open(&executable, report.path(), 390);
    for width in [390, 1400] {
        open.resize(width);
        open.go(&open.url);
        assert_eq!(open.eval::<u32>("window.innerWidth"), width);
        assert!(
            !open.eval::<bool>(OVERFLOWS),
            "{width} px: the page overflows"
        );

        // Every kind has its row; the notices are folded until asked for.
        let rows: BTreeSet<String> = open
            .eval("[...document.querySelectorAll('article.kind')].map(row => row.dataset.code)");
        assert_eq!(rows, kinds, "{width} px: a row per kind");
        let notice_shown = "document.getElementById('kind-not-in-sitemap').offsetParent !== null";
        assert!(!open.eval::<bool>(notice_shown), "notices folded");
        open.click(".group-toggle");
        assert!(
            open.eval::<bool>(notice_shown),
            "{width} px: notices unfolded"
        );

        // A kind's URLs, built when it is expanded, with who links there.
        assert_eq!(
            open.eval::<u32>("document.querySelectorAll('#urls-broken-link li').length"),
            0
        );
        open.click("#kind-broken-link .toggle");
        let urls: Vec<String> = open.eval(
            "[...document.querySelectorAll('#urls-broken-link li .finding-head .url')].map(url => url.textContent)",
        );
        for path in ["/broken", "/gone"] {
            assert!(
                urls.contains(&server.url(path)),
                "{width} px: {path} in {urls:?}"
            );
        }
        // A canonical's broken target is the canonical's finding, not a broken link.
        assert!(
            !urls.contains(&server.url("/missing-canonical")),
            "{urls:?}"
        );
        let referrers: String =
            open.eval("document.getElementById('urls-broken-link').textContent");
        assert!(referrers.contains("Linked from 2 pages"), "{referrers}");
        assert_eq!(
            open.eval::<String>(
                "document.querySelector('#kind-broken-link .toggle').getAttribute('aria-expanded')"
            ),
            "true"
        );
        assert!(
            !open.eval::<bool>(OVERFLOWS),
            "{width} px: overflows once expanded"
        );

        // Badges keep to one line, whatever the width.
        assert!(open.eval::<u32>(SHOWN_BADGES) > 20);
        let wrapped: Vec<String> = open.eval(WRAPPED_BADGES);
        assert!(wrapped.is_empty(), "{width} px: badges wrap: {wrapped:?}");

        // The drill-down of /about, from the pages table: its links both ways.
        let about = server.url("/about");
        open.click(&format!("#pages a[href=\"#page={}\"]", encode(&about)));
        open.wait_for("document.getElementById('drill').open");
        assert_eq!(
            open.eval::<String>("document.getElementById('drill-title').textContent"),
            about
        );
        assert_eq!(
            open.eval::<String>("document.querySelector('#drill-body h3.inlinks').textContent"),
            "Inlinks (1)"
        );
        assert_eq!(
            open.eval::<String>("document.querySelector('#drill-body h3.outlinks').textContent"),
            "Outlinks (1)"
        );
        let links: Vec<String> = open.eval("[...document.querySelectorAll('#drill-body table.links td.url-cell')].map(cell => cell.textContent)");
        assert_eq!(
            links,
            [server.url("/"), server.url("/broken")],
            "{width} px"
        );
        assert!(
            !open.eval::<bool>(OVERFLOWS),
            "{width} px: overflows with the drill-down"
        );
        // A URL in the panel moves to that page's drill-down.
        open.click(&format!(
            "#drill-body a[href=\"#page={}\"]",
            encode(&server.url("/"))
        ));
        open.wait_for(&format!(
            "document.getElementById('drill-title').textContent === {:?}",
            server.url("/")
        ));
        open.click("#drill-close");
        open.wait_for("!document.getElementById('drill').open");

        // A finding's URL opens its page too, with the page's findings.
        open.click(&format!(
            "#urls-broken-link a[href=\"#page={}\"]",
            encode(&server.url("/broken"))
        ));
        open.wait_for("document.getElementById('drill').open");
        let findings: String = open.eval("document.getElementById('drill-body').textContent");
        assert!(
            findings.contains("Broken internal link target"),
            "{findings}"
        );
    }

    // A drill-down can be linked to.
    open.go(&format!(
        "{}#page={}",
        open.url,
        encode(&server.url("/about"))
    ));
    open.wait_for("document.getElementById('drill').open");
    assert_eq!(
        open.eval::<String>("document.getElementById('drill-title').textContent"),
        server.url("/about")
    );
}

/// `text` as `encodeURIComponent` writes it.
fn encode(text: &str) -> String {
    const COMPONENT: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
        .remove(b'-')
        .remove(b'_')
        .remove(b'.')
        .remove(b'!')
        .remove(b'~')
        .remove(b'*')
        .remove(b'\'')
        .remove(b'(')
        .remove(b')');
    percent_encoding::utf8_percent_encode(text, COMPONENT).to_string()
}

#[test]
fn hostile_text_is_shown_as_text_in_the_html_report() {
    let Some(executable) = chromium() else { return };
    let server = hostile_site();
    let report = tempfile::tempdir().unwrap();
    audit(&server, report.path(), &[]).assert_success();
    let open = OpenReport::open(&executable, report.path(), 1400);
    open.click(".group-toggle");
    let lists: Vec<String> = open.eval(
        "[...document.querySelectorAll('.kind .toggle')].map(toggle => toggle.getAttribute('aria-controls'))",
    );
    for list in &lists {
        open.click(&format!(".kind .toggle[aria-controls=\"{list}\"]"));
    }
    let expanded: usize =
        open.eval("document.querySelectorAll('.kind .toggle[aria-expanded=true]').length");
    assert_eq!(expanded, lists.len(), "every kind expanded");

    // Only the report's own two script elements, and no trace of an injected one running
    // or of markup from the site made into elements.
    assert_eq!(
        open.eval::<u32>("document.querySelectorAll('script').length"),
        2
    );
    assert_eq!(
        open.eval::<String>("typeof document.body.dataset.injected"),
        "undefined"
    );
    assert_eq!(
        open.eval::<u32>("document.querySelectorAll('main b, dialog b').length"),
        0
    );

    let titles: Vec<String> =
        open.eval("[...document.querySelectorAll('#pages td.text')].map(cell => cell.textContent)");
    let locs: Vec<String> = open.eval(
        "[...document.querySelectorAll('#urls-sitemap-not-indexable .finding-head .url')].map(url => url.textContent)",
    );
    let details: String = open.eval("document.getElementById('urls-duplicate-title').textContent");
    for hostile in &HOSTILE {
        let shown = titles
            .iter()
            .filter(|title| *title == hostile.recorded)
            .count();
        assert_eq!(shown, 2, "title {:?} of two pages", hostile.recorded);
        assert!(
            locs.iter().any(|loc| loc == hostile.recorded),
            "sitemap <loc> {:?}",
            hostile.recorded
        );
        assert!(
            details.contains(&format!("{:?}", hostile.recorded)),
            "{:?}",
            hostile.recorded
        );
    }
}

/// `sitemapper audit` of a small clean site into a new report directory, with `extra`.
fn audit_small_site(extra: &[&str]) -> (tempfile::TempDir, crate::harness::Run) {
    let server = Site::new()
        .page("/", "<html><head><title>Home</title></head><body><a href=\"/about\">about</a></body></html>")
        .page("/about", "<html><head><title>About</title></head><body>about</body></html>")
        .serve();
    let report = tempfile::tempdir().unwrap();
    let seed = server.url("/");
    let directory = report.path().to_str().unwrap();
    let mut args = vec![
        "audit",
        &seed,
        "--report",
        directory,
        "--retries",
        "0",
        "--render",
        "never",
    ];
    args.extend_from_slice(extra);
    let run = sitemapper_command(&args)
        .env_remove("CHROME")
        .output()
        .unwrap()
        .into();
    (report, run)
}

#[test]
fn pdf_is_the_report_printed_by_chromium() {
    let Some(executable) = chromium() else { return };
    let chrome = executable.to_str().unwrap();
    let (report, run) = audit_small_site(&["--pdf", "--chrome", chrome]);
    run.assert_success();
    let pdf = std::fs::read(report.path().join("report.pdf")).unwrap();
    assert!(pdf.starts_with(b"%PDF"), "{:?}", &pdf[..pdf.len().min(16)]);
    assert!(!report.path().join("report.pdf.partial").exists());
    assert!(run.stderr.contains("PDF: "), "{}", run.stderr);
}

#[test]
fn pdf_without_a_browser_is_one_line_and_the_rest_of_the_report_is_written() {
    let (report, run) =
        audit_small_site(&["--pdf", "--chrome", "/nonexistent/chromium", "--quiet"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_one_line_error(&run.stderr);
    assert!(
        run.stderr.contains("cannot write report.pdf: the browser /nonexistent/chromium (--chrome) is not an executable file"),
        "{}",
        run.stderr
    );
    for file in [
        "report.html",
        "report.json",
        "findings.csv",
        "pages.csv",
        "links.csv",
    ] {
        assert!(report.path().join(file).is_file(), "{file}");
    }
    assert!(!report.path().join("report.pdf").exists());

    // No browser anywhere on PATH.
    let empty = tempfile::tempdir().unwrap();
    let path = empty.path().to_str().unwrap();
    let server = Site::new()
        .page("/", "<html><head><title>Home</title></head></html>")
        .serve();
    let report = tempfile::tempdir().unwrap();
    let output = sitemapper_command(&[
        "audit",
        &server.url("/"),
        "--report",
        report.path().to_str().unwrap(),
        "--render",
        "never",
        "--pdf",
        "--quiet",
    ])
    .env_remove("CHROME")
    .env("PATH", path)
    .output()
    .unwrap();
    let run = crate::harness::Run::from(output);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(
        run.stderr.trim(),
        "error: cannot write report.pdf: no Chromium found; install chromium or give --chrome PATH"
    );
    assert!(report.path().join("report.html").is_file());
}

/// A 1x1 PNG.
const PNG: &[u8] = &[
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4,
    0x89, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0xf8, 0xcf, 0xc0, 0xf0,
    0x1f, 0x00, 0x05, 0x00, 0x01, 0xff, 0x56, 0xc7, 0x2f, 0x0d, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45,
    0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
];

fn config_file(directory: &Path, text: &str) -> PathBuf {
    let path = directory.join("sitemapper.toml");
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn title_and_logo_brand_the_report_from_the_flags_or_the_config_file() {
    let directory = tempfile::tempdir().unwrap();
    let logo = directory.path().join("agency-logo");
    std::fs::write(&logo, PNG).unwrap();
    let config = config_file(
        directory.path(),
        &format!(
            "title = \"From the file\"\nlogo = {:?}\n",
            logo.to_str().unwrap()
        ),
    );
    let config = config.to_str().unwrap();
    let (report, run) = audit_small_site(&["--config", config, "--title", "Acme <Audit> & Co"]);
    run.assert_success();
    let html = std::fs::read_to_string(report.path().join("report.html")).unwrap();
    assert!(
        html.contains("<title>Acme &lt;Audit&gt; &amp; Co</title>"),
        "the flag wins"
    );
    assert!(html.contains("<h1>Acme &lt;Audit&gt; &amp; Co</h1>"));
    let data_url = format!(
        "data:image/png;base64,{}",
        base64::engine::general_purpose::STANDARD.encode(PNG)
    );
    assert!(
        html.contains(&format!("<img class=\"logo\" src=\"{data_url}\"")),
        "the logo from the file, told by its bytes"
    );

    let (report, run) = audit_small_site(&["--config", config]);
    run.assert_success();
    let html = std::fs::read_to_string(report.path().join("report.html")).unwrap();
    assert!(html.contains("<h1>From the file</h1>"));

    // Without either, the site's name.
    let (report, run) = audit_small_site(&[]);
    run.assert_success();
    let html = std::fs::read_to_string(report.path().join("report.html")).unwrap();
    assert!(
        html.contains("<title>Site audit: http://127.0.0.1:"),
        "default title"
    );
    assert!(!html.contains("<img"));
}

#[test]
fn a_logo_that_is_not_an_image_is_a_usage_error_before_the_crawl() {
    let server = Site::new().page("/", "home").serve();
    let directory = tempfile::tempdir().unwrap();
    let logo = directory.path().join("logo.png");
    std::fs::write(&logo, "this is text, whatever its name says").unwrap();
    let report = directory.path().join("report");
    let run: crate::harness::Run = sitemapper_command(&[
        "audit",
        &server.url("/"),
        "--report",
        report.to_str().unwrap(),
        "--logo",
        logo.to_str().unwrap(),
    ])
    .output()
    .unwrap()
    .into();
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert_one_line_error(&run.stderr);
    assert!(
        run.stderr.contains(&format!(
            "cannot use --logo {}: not a PNG, JPEG, GIF, WebP or SVG image",
            logo.display()
        )),
        "{}",
        run.stderr
    );
    assert!(
        server.targets().is_empty(),
        "no request before the logo is known good"
    );
}
