//! Rendering pages built by JavaScript in the installed Chromium, driven over the DevTools
//! protocol (docs/design.md, `crates/render`).
//!
//! [`Chromium`] implements the crawl's [`Renderer`](sitemapper_crawl::Renderer): one browser process, started on the first
//! page that needs it, a bounded number of tabs, and one way out for every connection the
//! browser opens: a proxy on loopback that hands each request to the crawl's gate (`gate`).
//! The page's own document is answered with the response the crawl already has (the DevTools
//! Fetch domain), so the server sees one request per page. A tab is done when the page has loaded, what it asked for
//! has answered (a long poll aside), nothing its scripts set going is pending, and it has been
//! quiet for [`SETTLE`] and is idle (`settle`); a tab that is not done within the timeout is
//! closed, one whose page was read shows the next page. A browser that dies is started again, at most
//! [`MAX_RESTARTS`] times per run.
//!
//! [`print_to_pdf`] prints one local page to PDF in a browser started for it alone.

mod browser;
mod chromium;
mod find;
mod gate;
mod memory;
mod options;
mod owned;
mod peer;
mod print;
mod process;
mod settle;
mod tab;

pub use chromium::Chromium;
pub use find::{BROWSER_NAMES, BrowserMissing, find_browser};
pub use memory::status_bytes;
pub use options::{ChromiumOptions, DEFAULT_TABS, DEFAULT_TIMEOUT, MAX_RESTARTS, QUIET, SETTLE};
pub use owned::{OwnedDirectory, Removal, remove_abandoned};
pub use print::{PdfLayout, PrintError, print_to_pdf};
