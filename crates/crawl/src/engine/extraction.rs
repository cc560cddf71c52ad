//! HTML parsing of a fetch job, off the async workers when a page is large: one parse per core
//! at a time, and a parse that panics costs the page, not the crawl.

use std::sync::Arc;

use sitemapper_extract::{Document, PageFacts, ResponseHeaders};
use url::Url;

use super::context::JobContext;

/// Bodies up to this size are parsed on the async worker that fetched them: a page of the
/// usual size parses in a fraction of a millisecond, less than handing it to another thread
/// and back costs (BENCHMARKS.md). Larger ones go to the blocking pool, so that a 10 MiB page
/// never stalls the workers that drive the network.
const PARSE_IN_PLACE_BYTES: usize = 256 * 1024;

/// HTML parsing is CPU work: one parse per core at a time, in place for pages of the usual
/// size and on the blocking pool for large ones. A parse that panics (a bug, on hostile
/// input) costs the page, not the crawl. With `legacy_fingerprint`, the legacy fingerprint is
/// computed too. Hands the body back.
pub(super) async fn extract_off_thread(
    context: &JobContext,
    url: &Url,
    headers: ResponseHeaders,
    body: Vec<u8>,
    legacy_fingerprint: bool,
) -> (Option<PageFacts>, Vec<u8>) {
    let _slot = context.parse_slots.acquire().await.ok();
    let options = Arc::clone(if legacy_fingerprint {
        &context.legacy_extract_options
    } else {
        &context.extract_options
    });
    let extract = move |url: &Url, headers: ResponseHeaders, body: Vec<u8>| {
        let document = Document {
            url,
            body: &body,
            headers: &headers,
        };
        let facts = sitemapper_extract::extract(&document, &options);
        (facts, body)
    };
    let extracted = if body.len() <= PARSE_IN_PLACE_BYTES {
        let run = std::panic::AssertUnwindSafe(|| extract(url, headers, body));
        std::panic::catch_unwind(run).map_err(|_| "a panic".to_string())
    } else {
        let url = url.clone();
        let task = tokio::task::spawn_blocking(move || extract(&url, headers, body));
        task.await.map_err(|error| error.to_string())
    };
    match extracted {
        Ok((facts, body)) => (Some(facts), body),
        Err(error) => {
            tracing::error!(%url, %error, "extraction failed");
            (None, Vec::new())
        }
    }
}
