use std::io::Write;
use std::sync::{Arc, Mutex};

use tracing_subscriber::fmt::MakeWriter;

use super::*;

/// Where the test's subscriber writes.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl<'a> MakeWriter<'a> for Captured {
    type Writer = Captured;

    fn make_writer(&'a self) -> Captured {
        self.clone()
    }
}

/// What `log` writes through a [`Prose`] subscriber.
fn prose(log: impl FnOnce()) -> String {
    let captured = Captured::default();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(captured.clone())
        .fmt_fields(ProseFields)
        .event_format(Prose { color: false })
        .finish();
    tracing::subscriber::with_default(subscriber, log);
    let bytes = captured.0.lock().unwrap().clone();
    String::from_utf8(bytes).unwrap()
}

#[test]
fn a_warning_reads_as_a_sentence_with_its_fields_after_it() {
    assert_eq!(
        prose(|| tracing::warn!("running as root: no sandbox")),
        "Warning: running as root: no sandbox\n"
    );
    let url = "https://example.com/sitemap.xml";
    assert_eq!(
        prose(|| tracing::warn!(sitemap = %url, status = 404, "cannot be read")),
        "Warning: cannot be read (sitemap: https://example.com/sitemap.xml, status: 404)\n"
    );
    assert_eq!(
        prose(|| tracing::error!("{}", "the disk is full")),
        "Error: the disk is full\n"
    );
}

#[test]
fn the_span_it_happens_in_comes_first() {
    let text = prose(|| {
        let span = tracing::warn_span!("site", name = %"shop", worker = "w1");
        let _entered = span.enter();
        tracing::warn!("the site's sitemap cannot be read");
    });
    assert_eq!(
        text,
        "Warning: site shop, worker: w1: the site's sitemap cannot be read\n"
    );
}

#[test]
fn control_characters_are_escaped() {
    let reason = "bad\u{1b}[2Jtitle\nnext";
    assert_eq!(
        prose(|| tracing::warn!(%reason, "odd page")),
        "Warning: odd page (reason: bad\\u{1b}[2Jtitle\\nnext)\n"
    );
}
