//! The values a user names on the command line and in the config file: a colour, a
//! severity, a summary's format, a sitemap format, a render mode, a rule, a concurrency.
//! Each is read by clap from a flag and by serde from the config file, under the same names.

use serde::Deserialize;

/// When output is coloured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum ColorName {
    /// On a terminal, unless the NO_COLOR environment variable is set and not empty
    Auto,
    /// Even when the output is not a terminal (a pager that shows colour, a CI log)
    Always,
    /// No colour at all
    Never,
}

/// A finding severity as the user names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum SeverityName {
    Error,
    Warning,
    Notice,
}

impl SeverityName {
    pub(crate) fn severity(self) -> sitemapper_audit::Severity {
        match self {
            SeverityName::Error => sitemapper_audit::Severity::Error,
            SeverityName::Warning => sitemapper_audit::Severity::Warning,
            SeverityName::Notice => sitemapper_audit::Severity::Notice,
        }
    }
}

/// The sheet report.pdf is printed on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum PaperName {
    /// ISO A4, 210 x 297 mm
    A4,
    /// US Letter, 8.5 x 11 inches
    Letter,
}

impl PaperName {
    pub(crate) fn paper(self) -> sitemapper_report::Paper {
        match self {
            PaperName::A4 => sitemapper_report::Paper::A4,
            PaperName::Letter => sitemapper_report::Paper::Letter,
        }
    }
}

/// What makes two sites of a fleet one server, for `--per-server` and the pace.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum ServersByName {
    /// The address their hosts resolve to: a shared host's sites are one server
    #[default]
    Address,
    /// Their host names: for sites behind a CDN, whose addresses unrelated sites share
    Host,
}

impl ServersByName {
    pub(crate) fn servers_by(self) -> sitemapper_crawl::ServersBy {
        match self {
            ServersByName::Address => sitemapper_crawl::ServersBy::Address,
            ServersByName::Host => sitemapper_crawl::ServersBy::Host,
        }
    }
}

/// How a command prints its summary.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum SummaryFormat {
    /// Sentences for people, on stderr (validate and runs: on stdout)
    #[default]
    Text,
    /// One JSON object on stdout (docs/summary-json.md); stderr gets warnings and errors only
    Json,
}

/// A sitemap format as the user names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum FormatName {
    Xml,
    Txt,
}

/// When pages are rendered in a browser.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum RenderName {
    /// One page of each kind whose HTML looks like an application shell, once links run
    /// out; the rest of a kind only where that finds URLs, a canonical or a noindex the HTML
    /// does not have
    Auto,
    /// Never: read the HTML as served
    Never,
    /// Every HTML page
    Always,
}

impl From<RenderName> for sitemapper_crawl::RenderMode {
    fn from(name: RenderName) -> Self {
        match name {
            RenderName::Auto => sitemapper_crawl::RenderMode::Auto,
            RenderName::Never => sitemapper_crawl::RenderMode::Never,
            RenderName::Always => sitemapper_crawl::RenderMode::Always,
        }
    }
}

/// How `<priority>` is derived (opt-in).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum PriorityRule {
    /// 1.0 for the seed, 0.8 per click below.
    Depth,
}

impl PriorityRule {
    pub(crate) fn rule(self) -> sitemapper_site::PriorityRule {
        match self {
            PriorityRule::Depth => sitemapper_site::PriorityRule::Depth,
        }
    }
}

/// How `<changefreq>` is derived (opt-in).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum ChangefreqRule {
    /// From the median interval between changes observed across runs.
    Observed,
}

impl ChangefreqRule {
    pub(crate) fn rule(self) -> sitemapper_site::ChangefreqRule {
        match self {
            ChangefreqRule::Observed => sitemapper_site::ChangefreqRule::Observed,
        }
    }
}

/// Requests in flight as the user names them: a number, or `auto`. Its range is
/// [`super::values::CONCURRENCY`]'s, checked where the flag and the config file are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ConcurrencyName {
    /// This many.
    Requests(usize),
    /// Adapted to the site's response times.
    Auto,
}

impl ConcurrencyName {
    /// What a value of the config file must be, for serde's message on a value of another
    /// type (a number out of range has its own, from [`super::values::CONCURRENCY`]).
    const EXPECTED: &str = "a number of requests or auto";
}

/// As the user writes it, for the message on a config file's value out of range.
impl std::fmt::Display for ConcurrencyName {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ConcurrencyName::Requests(requests) => write!(formatter, "{requests}"),
            ConcurrencyName::Auto => formatter.write_str("auto"),
        }
    }
}

impl std::str::FromStr for ConcurrencyName {
    type Err = ();

    fn from_str(text: &str) -> Result<ConcurrencyName, ()> {
        let text = text.trim();
        if text.eq_ignore_ascii_case("auto") {
            Ok(ConcurrencyName::Auto)
        } else {
            text.parse().map(ConcurrencyName::Requests).map_err(|_| ())
        }
    }
}

impl From<ConcurrencyName> for sitemapper_crawl::Concurrency {
    fn from(name: ConcurrencyName) -> Self {
        match name {
            ConcurrencyName::Requests(requests) => sitemapper_crawl::Concurrency::Fixed(requests),
            ConcurrencyName::Auto => sitemapper_crawl::Concurrency::Auto,
        }
    }
}

impl<'de> Deserialize<'de> for ConcurrencyName {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(ConcurrencyVisitor)
    }
}

/// Reads `concurrency = 8` and `concurrency = "auto"`.
struct ConcurrencyVisitor;

impl serde::de::Visitor<'_> for ConcurrencyVisitor {
    type Value = ConcurrencyName;

    fn expecting(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str(ConcurrencyName::EXPECTED)
    }

    fn visit_u64<E: serde::de::Error>(self, value: u64) -> Result<ConcurrencyName, E> {
        usize::try_from(value)
            .map(ConcurrencyName::Requests)
            .map_err(|_| E::invalid_value(serde::de::Unexpected::Unsigned(value), &self))
    }

    fn visit_i64<E: serde::de::Error>(self, value: i64) -> Result<ConcurrencyName, E> {
        usize::try_from(value)
            .map(ConcurrencyName::Requests)
            .map_err(|_| E::invalid_value(serde::de::Unexpected::Signed(value), &self))
    }

    fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<ConcurrencyName, E> {
        text.parse()
            .map_err(|()| E::invalid_value(serde::de::Unexpected::Str(text), &self))
    }
}
