//! How a log line reads at the default verbosity: in the summary's prose, as a sentence that
//! says what it is (`Warning: running as root: ...`), with no timestamp, level column or
//! target, since the lines a user did not ask for sit among the summary's. `-v` and `-vv`
//! (and `RUST_LOG`) ask for logs, and keep the log format.
//!
//! An event's fields follow its message in parentheses (`(sitemap: https://...)`); the fields
//! of the spans it happens in come first (`site shop: ...`: a span's `name` field names the
//! span's subject). Control characters in what is written (a reason that quotes a page) are
//! escaped, so that a site cannot write to the terminal.

use std::fmt;

use sitemapper_site::escape_controls;
use tracing::field::{Field, Visit};
use tracing::{Event, Level, Subscriber};
use tracing_subscriber::field::RecordFields;
use tracing_subscriber::fmt::format::Writer;
use tracing_subscriber::fmt::{FmtContext, FormatEvent, FormatFields, FormattedFields};
use tracing_subscriber::registry::LookupSpan;

/// Formats each event as one line of prose: `Warning: MESSAGE (FIELD: VALUE, ...)`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Prose {
    /// Whether the label (`Warning:`) is coloured.
    pub color: bool,
}

impl<S, N> FormatEvent<S, N> for Prose
where
    S: Subscriber + for<'a> LookupSpan<'a>,
    N: for<'a> FormatFields<'a> + 'static,
{
    fn format_event(
        &self,
        context: &FmtContext<'_, S, N>,
        mut writer: Writer<'_>,
        event: &Event<'_>,
    ) -> fmt::Result {
        let (label, color) = match *event.metadata().level() {
            Level::ERROR => ("Error:", "\x1b[1;31m"),
            Level::WARN => ("Warning:", "\x1b[1;33m"),
            Level::INFO => ("Note:", "\x1b[1m"),
            Level::DEBUG => ("Debug:", "\x1b[2m"),
            Level::TRACE => ("Trace:", "\x1b[2m"),
        };
        if self.color {
            write!(writer, "{color}{label}\x1b[0m ")?;
        } else {
            write!(writer, "{label} ")?;
        }
        if let Some(scope) = context.event_scope() {
            for span in scope.from_root() {
                let extensions = span.extensions();
                let fields = extensions
                    .get::<FormattedFields<N>>()
                    .map_or("", |fields| fields.fields.as_str());
                if fields.is_empty() {
                    write!(writer, "{}: ", span.name())?;
                } else {
                    write!(writer, "{} {fields}: ", span.name())?;
                }
            }
        }
        let mut fields = Fields::default();
        event.record(&mut fields);
        writer.write_str(&fields.message)?;
        if !fields.others.is_empty() {
            write!(writer, " ({})", fields.others.join(", "))?;
        }
        writeln!(writer)
    }
}

/// Formats the fields of a span for [`Prose`]: `shop, worker: w1` for `name = shop, worker
/// = w1` (its `name` is the span's subject, said without a label).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct ProseFields;

impl<'writer> FormatFields<'writer> for ProseFields {
    fn format_fields<R: RecordFields>(
        &self,
        mut writer: Writer<'writer>,
        fields: R,
    ) -> fmt::Result {
        let mut recorded = Fields::default();
        fields.record(&mut recorded);
        let mut parts = Vec::new();
        if !recorded.name.is_empty() {
            parts.push(recorded.name);
        }
        parts.extend(recorded.others);
        writer.write_str(&parts.join(", "))
    }
}

/// An event's or a span's fields, escaped: the message, a `name`, and the others as
/// `field: value`.
#[derive(Debug, Default)]
struct Fields {
    message: String,
    name: String,
    others: Vec<String>,
}

impl Fields {
    fn add(&mut self, field: &Field, value: &str) {
        let value = escape_controls(value);
        match field.name() {
            "message" => self.message = value,
            "name" => self.name = value,
            other => self.others.push(format!("{other}: {value}")),
        }
    }
}

impl Visit for Fields {
    fn record_str(&mut self, field: &Field, value: &str) {
        self.add(field, value);
    }

    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        // A message and a `%value` write through Debug what they would through Display.
        self.add(field, &format!("{value:?}"));
    }
}

#[cfg(test)]
mod tests;
