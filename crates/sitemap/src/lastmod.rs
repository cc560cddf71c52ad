//! [`format_lastmod`]: how a time is written in a sitemap, W3C Datetime in UTC. A leaf: it
//! names nothing else of the crate.

use jiff::Timestamp;

/// W3C Datetime with seconds and a zone, in UTC: `2024-01-02T03:04:05+00:00`
/// (sitemaps.org, "XML tag definitions", lastmod).
pub fn format_lastmod(timestamp: Timestamp) -> String {
    timestamp.strftime("%Y-%m-%dT%H:%M:%S+00:00").to_string()
}
