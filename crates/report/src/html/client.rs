//! The client's first page, after the score: the actions that would raise the score most,
//! and how the audit was made.

use sitemapper_audit::thousands;

use super::text::escape;
use crate::model::Report;

/// The three to five kinds whose fixing would raise the score most, each with its count, the
/// points it would give back and how to fix it.
pub(super) fn actions_section(report: &Report) -> String {
    let items: String = report
        .actions
        .iter()
        .map(|action| {
            format!(
                r##"<li><div class="action-head"><span class="badge {severity}">{severity}</span> <a href="#kind-{code}">{title}</a></div>
<p class="action-gain"><strong>{gain}</strong> · {findings}</p><p class="action-fix">{fix}</p></li>"##,
                severity = action.severity,
                code = escape(action.code),
                title = escape(action.title),
                gain = action.gain_text(),
                findings = findings(action.count),
                fix = escape(action.fix),
            )
        })
        .collect();
    let together = report.actions.iter().any(|action| action.with_those_before);
    let body = if items.is_empty() && report.score.value >= 100 {
        "<p>No finding lowers the score: there is nothing to fix first.</p>".to_string()
    } else if items.is_empty() {
        // The score is rounded down: one error among thousands of URLs shows as 99.
        "<p>The errors and warnings touch so few of the URLs that fixing any kind of them raises the score by less than a hundredth of a point. They are listed below, errors first.</p>".to_string()
    } else if together {
        format!(
            r#"<p class="muted">No one kind raises the score on its own: the pages with findings have several. Fixed together, in this order, these kinds raise the score by the points shown.</p><ol class="actions">{items}</ol>"#
        )
    } else {
        format!(
            r#"<p class="muted">Fixing every finding of one of these kinds would raise the score by the points shown, the other findings as they are.</p><ol class="actions">{items}</ol>"#
        )
    };
    format!(
        r#"<section class="panel" id="actions" aria-labelledby="actions-heading"><h2 id="actions-heading">What to fix first</h2>{body}</section>"#
    )
}

/// How many findings, in words.
fn findings(count: u64) -> String {
    if count == 1 {
        "1 finding".to_string()
    } else {
        format!("{} findings", thousands(count))
    }
}

/// How the audit was made: site, date, version, user agent, scope, limits, rendering,
/// robots.txt, links to other sites, and what was not crawled.
pub(super) fn methodology_section(report: &Report) -> String {
    let rows: String = report
        .methodology
        .rows()
        .iter()
        .map(|(label, value)| format!("<dt>{label}</dt><dd>{}</dd>", escape(value)))
        .collect();
    format!(
        r#"<section class="panel" id="methodology" aria-labelledby="methodology-heading"><h2 id="methodology-heading">How this audit was made</h2><dl class="facts methodology">{rows}</dl></section>"#
    )
}
