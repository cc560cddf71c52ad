//! The report's charts as inline SVG. Each has a `viewBox` and no fixed size: the style
//! sheet scales it to its box, so that a phone shows all of it, smaller.

use std::collections::BTreeMap;
use std::fmt::Write;

use sitemapper_audit::thousands;

use super::text::escape;
use crate::model::TrendPoint;

/// A horizontal bar chart, one bar per key, its count written after it.
pub(crate) fn bar_chart(values: &BTreeMap<String, u64>, name: &str, label: &str) -> String {
    const ROW: usize = 26;
    const LABEL: usize = 52;
    const BAR: f64 = 270.0;
    const WIDTH: usize = 400;
    if values.is_empty() {
        return "<p class=\"empty\">No data.</p>".to_string();
    }
    let largest = values.values().copied().max().unwrap_or(1).max(1);
    let height = values.len() * ROW + 4;
    let mut svg = format!(
        r#"<svg class="{name}-chart" viewBox="0 0 {WIDTH} {height}" width="100%" preserveAspectRatio="xMinYMin meet" role="img" aria-label="{label}" xmlns="http://www.w3.org/2000/svg">"#,
        label = escape(label),
    );
    for (index, (key, count)) in values.iter().enumerate() {
        let y = index * ROW;
        let width = (*count as f64 / largest as f64 * BAR).round().max(1.0);
        let color = match key.chars().next() {
            _ if name == "depth" => "#4b5d73",
            Some('2') => "#1b7a3a",
            Some('3') => "#1f5fbf",
            Some('4') => "#b45309",
            Some('5') => "#b3261e",
            _ => "#6b7280",
        };
        let _ = write!(
            svg,
            r##"<text x="0" y="{text_y}" font-size="16" fill="#1d2330">{key}</text><rect x="{LABEL}" y="{rect_y}" width="{width}" height="{bar}" rx="2" fill="{color}"><title>{key}: {count}</title></rect><text x="{count_x}" y="{text_y}" font-size="16" fill="#1d2330">{count}</text>"##,
            text_y = y + 19,
            rect_y = y + 5,
            bar = ROW - 8,
            key = escape(key),
            count = thousands(*count),
            count_x = LABEL as f64 + width + 6.0,
        );
    }
    svg.push_str("</svg>");
    svg
}

/// The score of each audit, oldest first, as a line over a 0 to 100 scale.
pub(crate) fn trend_chart(trend: &[TrendPoint]) -> String {
    const WIDTH: f64 = 420.0;
    const HEIGHT: f64 = 180.0;
    const LEFT: f64 = 38.0;
    const RIGHT: f64 = 22.0;
    const TOP: f64 = 24.0;
    const BOTTOM: f64 = 34.0;
    let plot_width = WIDTH - LEFT - RIGHT;
    let plot_height = HEIGHT - TOP - BOTTOM;
    let x = |index: usize| {
        if trend.len() < 2 {
            LEFT + plot_width / 2.0
        } else {
            LEFT + plot_width * index as f64 / (trend.len() - 1) as f64
        }
    };
    let y = |score: u32| TOP + plot_height * (1.0 - f64::from(score.min(100)) / 100.0);
    let mut svg = format!(
        r#"<svg class="trend-chart" viewBox="0 0 {WIDTH} {HEIGHT}" width="100%" preserveAspectRatio="xMinYMin meet" role="img" aria-label="Site health score of the last {count} audits" xmlns="http://www.w3.org/2000/svg">"#,
        count = trend.len(),
    );
    for grid in [0, 50, 100] {
        let _ = write!(
            svg,
            r##"<line x1="{LEFT}" x2="{right}" y1="{grid_y}" y2="{grid_y}" stroke="#dde1e8" stroke-width="1"/><text x="{label_x}" y="{label_y}" font-size="15" fill="#5b6475" text-anchor="end">{grid}</text>"##,
            right = WIDTH - RIGHT,
            grid_y = y(grid),
            label_x = LEFT - 8.0,
            label_y = y(grid) + 4.0,
        );
    }
    let points: Vec<String> = trend
        .iter()
        .enumerate()
        .map(|(index, point)| format!("{:.1},{:.1}", x(index), y(point.score)))
        .collect();
    let _ = write!(
        svg,
        r##"<polyline points="{}" fill="none" stroke="#1f4fbf" stroke-width="2.5" stroke-linejoin="round"/>"##,
        points.join(" ")
    );
    // Every value and date where they fit; else the first and the last.
    let label_every = trend.len() <= 12;
    let last = trend.len().saturating_sub(1);
    for (index, point) in trend.iter().enumerate() {
        let (point_x, point_y) = (x(index), y(point.score));
        let _ = write!(
            svg,
            r##"<circle cx="{point_x:.1}" cy="{point_y:.1}" r="4" fill="#1f4fbf"><title>Run #{run}, {date}: {score}</title></circle>"##,
            run = point.run,
            date = escape(&point.date),
            score = point.score,
        );
        if label_every || index == 0 || index == last {
            let _ = write!(
                svg,
                r##"<text x="{point_x:.1}" y="{value_y:.1}" font-size="15" font-weight="700" fill="#1d2330" text-anchor="middle">{score}</text>"##,
                value_y = point_y - 9.0,
                score = point.score,
            );
        }
        let dated = if trend.len() <= 6 {
            true
        } else {
            index == 0 || index == last
        };
        if dated {
            let anchor = match index {
                0 if trend.len() > 1 => "start",
                _ if index == last && trend.len() > 1 => "end",
                _ => "middle",
            };
            let _ = write!(
                svg,
                r##"<text x="{point_x:.1}" y="{date_y}" font-size="15" fill="#5b6475" text-anchor="{anchor}">{date}</text>"##,
                date_y = HEIGHT - 10.0,
                date = escape(&point.date),
            );
        }
    }
    svg.push_str("</svg>");
    svg
}
