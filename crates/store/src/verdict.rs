//! The store's own words for what a crawl decided about a URL: the verdict, the reason and the
//! canonical hints that were ignored. Each is written to the database as a stable code and read
//! back as the enum; an unknown code is a corrupt database, never a silent default.

use std::borrow::Cow;
use std::fmt;

use rusqlite::types::{FromSql, FromSqlError, FromSqlResult, ToSql, ToSqlOutput, ValueRef};

/// Whether a URL is listed, and if not, in which way.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Verdict {
    /// Listed in the sitemap.
    Indexable,
    /// Names another URL of the site as its canonical.
    Canonicalised,
    /// Answers with a redirect (or an instant meta refresh).
    Redirect,
    /// Not listed, for the record's [`Reason`].
    Excluded,
}

impl Verdict {
    /// The stable code the database keeps, also shown in reports.
    pub fn code(self) -> &'static str {
        match self {
            Verdict::Indexable => "indexable",
            Verdict::Canonicalised => "canonicalised",
            Verdict::Redirect => "redirect",
            Verdict::Excluded => "excluded",
        }
    }

    pub(crate) fn parse(code: &str) -> Option<Verdict> {
        [
            Verdict::Indexable,
            Verdict::Canonicalised,
            Verdict::Redirect,
            Verdict::Excluded,
        ]
        .into_iter()
        .find(|verdict| verdict.code() == code)
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(self.code())
    }
}

/// Why a URL is not listed as itself, or why it is listed although its canonical pointed
/// elsewhere.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Reason {
    /// robots.txt disallows it.
    RobotsDisallowed,
    /// A robots meta tag or `X-Robots-Tag` says noindex.
    NoIndex,
    /// A 200 response that is not HTML.
    NotHtml,
    /// Any final status other than 200.
    HttpStatus(u16),
    /// No response: connection, timeout, body or address errors (the record's detail says which).
    FetchError,
    /// More redirects than the crawl follows.
    TooManyRedirects,
    /// A redirect that leaves the crawl's scope.
    RedirectOutOfScope,
    /// A redirect without a usable `Location` (the detail says why).
    InvalidRedirect,
    /// The canonical names a URL outside the scope.
    CanonicalOutOfScope,
    /// Longer than the sitemap protocol allows.
    UrlTooLong,
    /// Cut from a crawler trap: a path segment repeated too often.
    RepeatedSegmentsTrap,
    /// Cut from a crawler trap: a chain of URLs of one pattern, each found on the last.
    PatternChainTrap,
    /// The crawl's request budget ran out before it was fetched.
    RequestBudget,
    /// Listed as itself: its canonical target is not a page that answered 200 with HTML.
    BrokenCanonical,
    /// Listed as the one page of a loop of canonicals.
    CanonicalLoop,
    /// The same page as a URL without its session parameter (the detail names it).
    SessionParameter,
}

/// The reasons whose code is one fixed word, for parsing.
const FIXED: [Reason; 15] = [
    Reason::RobotsDisallowed,
    Reason::NoIndex,
    Reason::NotHtml,
    Reason::FetchError,
    Reason::TooManyRedirects,
    Reason::RedirectOutOfScope,
    Reason::InvalidRedirect,
    Reason::CanonicalOutOfScope,
    Reason::UrlTooLong,
    Reason::RepeatedSegmentsTrap,
    Reason::PatternChainTrap,
    Reason::RequestBudget,
    Reason::BrokenCanonical,
    Reason::CanonicalLoop,
    Reason::SessionParameter,
];

impl Reason {
    /// The stable code the database keeps, also shown in reports (`http-404`, `noindex`).
    pub fn code(self) -> Cow<'static, str> {
        Cow::Borrowed(match self {
            Reason::RobotsDisallowed => "robots-disallowed",
            Reason::NoIndex => "noindex",
            Reason::NotHtml => "not-html",
            Reason::HttpStatus(status) => return Cow::Owned(format!("http-{status}")),
            Reason::FetchError => "fetch-error",
            Reason::TooManyRedirects => "too-many-redirects",
            Reason::RedirectOutOfScope => "redirect-out-of-scope",
            Reason::InvalidRedirect => "invalid-redirect",
            Reason::CanonicalOutOfScope => "canonical-out-of-scope",
            Reason::UrlTooLong => "url-too-long",
            Reason::RepeatedSegmentsTrap => "trap-repeated-segments",
            Reason::PatternChainTrap => "trap-pattern-chain",
            Reason::RequestBudget => "request-budget",
            Reason::BrokenCanonical => "broken-canonical",
            Reason::CanonicalLoop => "canonical-loop",
            Reason::SessionParameter => "session-parameter",
        })
    }

    pub(crate) fn parse(code: &str) -> Option<Reason> {
        if let Some(status) = code.strip_prefix("http-") {
            return status.parse().ok().map(Reason::HttpStatus);
        }
        FIXED.into_iter().find(|reason| reason.code() == code)
    }

    /// Cut from a crawler trap, of either kind.
    pub fn is_trap(self) -> bool {
        matches!(
            self,
            Reason::RepeatedSegmentsTrap | Reason::PatternChainTrap
        )
    }
}

impl fmt::Display for Reason {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(&self.code())
    }
}

/// What kind of failure left a URL without a response, beside its reason
/// [`Reason::FetchError`] (whose detail says it in words).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FailureKind {
    /// The connection or the request took longer than its deadline.
    Timeout,
    /// No connection, or it closed before any response came.
    Connect,
    /// The body could not be read to its end.
    Body,
    /// Any other failure of the request.
    Other,
    /// The address policy refused the connection.
    Refused,
}

impl FailureKind {
    /// Every kind, in declaration order.
    pub const ALL: [FailureKind; 5] = [
        FailureKind::Timeout,
        FailureKind::Connect,
        FailureKind::Body,
        FailureKind::Other,
        FailureKind::Refused,
    ];

    /// The stable code the database keeps.
    pub fn code(self) -> &'static str {
        match self {
            FailureKind::Timeout => "timeout",
            FailureKind::Connect => "connect",
            FailureKind::Body => "body",
            FailureKind::Other => "other",
            FailureKind::Refused => "refused",
        }
    }

    fn parse(code: &str) -> Option<FailureKind> {
        FailureKind::ALL
            .into_iter()
            .find(|kind| kind.code() == code)
    }
}

impl fmt::Display for FailureKind {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(self.code())
    }
}

impl ToSql for FailureKind {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::from(self.code()))
    }
}

impl FromSql for FailureKind {
    fn column_result(value: ValueRef<'_>) -> FromSqlResult<Self> {
        read_code(value, "failure", FailureKind::parse)
    }
}

/// A code in the database that this build does not know: the database is corrupt (or was
/// written by a build with other codes).
#[derive(Debug, thiserror::Error)]
#[error("{what} {code:?}")]
pub(crate) struct UnknownCode {
    pub(crate) what: &'static str,
    pub(crate) code: String,
}

pub(crate) fn read_code<T>(
    value: ValueRef<'_>,
    what: &'static str,
    parse: impl FnOnce(&str) -> Option<T>,
) -> FromSqlResult<T> {
    let code = value.as_str()?;
    parse(code).ok_or_else(|| {
        FromSqlError::Other(Box::new(UnknownCode {
            what,
            code: code.to_string(),
        }))
    })
}

impl ToSql for Verdict {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::from(self.code()))
    }
}

impl FromSql for Verdict {
    fn column_result(value: ValueRef<'_>) -> FromSqlResult<Self> {
        read_code(value, "verdict", Verdict::parse)
    }
}

impl ToSql for Reason {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::from(self.code().into_owned()))
    }
}

impl FromSql for Reason {
    fn column_result(value: ValueRef<'_>) -> FromSqlResult<Self> {
        read_code(value, "reason", Reason::parse)
    }
}

/// A canonical hint a page gave that was not followed, kept for the audit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IgnoredHint {
    /// Canonical values that are not http(s) URLs, as the page wrote them.
    InvalidCanonical(Vec<String>),
    /// Two or more distinct canonical targets (the page counts as its own canonical).
    ConflictingCanonicals(Vec<String>),
}

impl fmt::Display for IgnoredHint {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (what, values) = match self {
            IgnoredHint::InvalidCanonical(values) => ("invalid canonical", values),
            IgnoredHint::ConflictingCanonicals(values) => ("conflicting canonicals", values),
        };
        write!(formatter, "{what}: {}", values.join(" "))
    }
}

/// Whether a page was rendered in a browser, and how that went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Rendering {
    /// Rendered: the record's facts are the rendered DOM's.
    Rendered,
    /// The page did not settle within the render timeout: its HTML as served was read.
    TimedOut,
    /// Rendering failed (a crashed tab or browser): its HTML as served was read.
    Failed,
}

impl Rendering {
    /// The stable code the database keeps, also shown in reports.
    pub fn code(self) -> &'static str {
        match self {
            Rendering::Rendered => "rendered",
            Rendering::TimedOut => "render-timeout",
            Rendering::Failed => "render-failed",
        }
    }

    fn parse(code: &str) -> Option<Rendering> {
        [Rendering::Rendered, Rendering::TimedOut, Rendering::Failed]
            .into_iter()
            .find(|rendering| rendering.code() == code)
    }
}

impl fmt::Display for Rendering {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(self.code())
    }
}

impl ToSql for Rendering {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::from(self.code()))
    }
}

impl FromSql for Rendering {
    fn column_result(value: ValueRef<'_>) -> FromSqlResult<Self> {
        read_code(value, "rendering", Rendering::parse)
    }
}

/// What the HTML as served said otherwise than the rendered DOM, whose word the record
/// keeps (its `canonical` and verdict).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServedDifference {
    /// The served HTML's canonical, normalized (`None`: it named none).
    Canonical(Option<String>),
    /// Whether the served HTML said noindex (the rendered DOM says the opposite).
    Noindex(bool),
}

impl fmt::Display for ServedDifference {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ServedDifference::Canonical(Some(url)) => {
                write!(formatter, "canonical {url} in the HTML as served")
            }
            ServedDifference::Canonical(None) => {
                formatter.write_str("no canonical in the HTML as served")
            }
            ServedDifference::Noindex(true) => formatter.write_str("noindex in the HTML as served"),
            ServedDifference::Noindex(false) => {
                formatter.write_str("no noindex in the HTML as served")
            }
        }
    }
}

/// The two columns of the served differences: the served canonical (`''` for none) and the
/// served noindex, each `NULL` when the two agree.
pub(crate) fn served_columns(differences: &[ServedDifference]) -> (Option<String>, Option<bool>) {
    let mut columns = (None, None);
    for difference in differences {
        match difference {
            ServedDifference::Canonical(url) => columns.0 = Some(url.clone().unwrap_or_default()),
            ServedDifference::Noindex(served) => columns.1 = Some(*served),
        }
    }
    columns
}

/// The served differences of a record, from their two columns.
pub(crate) fn served_from_columns(
    canonical: Option<String>,
    noindex: Option<bool>,
) -> Vec<ServedDifference> {
    let mut differences = Vec::new();
    if let Some(canonical) = canonical {
        differences.push(ServedDifference::Canonical(
            Some(canonical).filter(|url| !url.is_empty()),
        ));
    }
    if let Some(noindex) = noindex {
        differences.push(ServedDifference::Noindex(noindex));
    }
    differences
}

/// The values of one kind of hint in their column: one per line (a value's own line breaks,
/// which only an invalid canonical can hold, become spaces).
pub(crate) fn hint_column(hints: &[IgnoredHint], invalid: bool) -> Option<String> {
    hints.iter().find_map(|hint| match (hint, invalid) {
        (IgnoredHint::InvalidCanonical(values), true)
        | (IgnoredHint::ConflictingCanonicals(values), false) => Some(
            values
                .iter()
                .map(|value| value.replace(['\n', '\r'], " "))
                .collect::<Vec<_>>()
                .join("\n"),
        ),
        _ => None,
    })
}

/// The hints of a record, from its two columns.
pub(crate) fn hints_from_columns(
    invalid: Option<String>,
    conflicting: Option<String>,
) -> Vec<IgnoredHint> {
    let values = |column: String| column.split('\n').map(str::to_string).collect();
    let mut hints = Vec::new();
    if let Some(column) = invalid {
        hints.push(IgnoredHint::InvalidCanonical(values(column)));
    }
    if let Some(column) = conflicting {
        hints.push(IgnoredHint::ConflictingCanonicals(values(column)));
    }
    hints
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_reason_code_reads_back_as_its_reason() {
        for reason in FIXED
            .into_iter()
            .chain([Reason::HttpStatus(404), Reason::HttpStatus(503)])
        {
            assert_eq!(Reason::parse(&reason.code()), Some(reason), "{reason}");
        }
        assert_eq!(Reason::parse("http-x"), None);
        assert_eq!(Reason::parse("disallowed"), None);
    }

    #[test]
    fn every_verdict_code_reads_back_as_its_verdict() {
        for verdict in [
            Verdict::Indexable,
            Verdict::Canonicalised,
            Verdict::Redirect,
            Verdict::Excluded,
        ] {
            assert_eq!(Verdict::parse(verdict.code()), Some(verdict));
        }
        assert_eq!(Verdict::parse("Indexable"), None);
    }

    #[test]
    fn renderings_and_served_differences_survive_their_columns() {
        for rendering in [Rendering::Rendered, Rendering::TimedOut, Rendering::Failed] {
            assert_eq!(Rendering::parse(rendering.code()), Some(rendering));
        }
        assert_eq!(Rendering::parse("timeout"), None);
        for differences in [
            vec![],
            vec![ServedDifference::Canonical(None)],
            vec![
                ServedDifference::Canonical(Some("https://e.com/a".into())),
                ServedDifference::Noindex(false),
            ],
            vec![ServedDifference::Noindex(true)],
        ] {
            let (canonical, noindex) = served_columns(&differences);
            assert_eq!(served_from_columns(canonical, noindex), differences);
        }
    }

    #[test]
    fn hints_survive_their_columns() {
        let hints = vec![
            IgnoredHint::InvalidCanonical(vec!["mailto:a@b".into(), "java script:x".into()]),
            IgnoredHint::ConflictingCanonicals(vec![
                "https://e.com/a".into(),
                "https://e.com/b".into(),
            ]),
        ];
        let back = hints_from_columns(hint_column(&hints, true), hint_column(&hints, false));
        assert_eq!(back, hints);
        assert_eq!(
            back[0].to_string(),
            "invalid canonical: mailto:a@b java script:x"
        );
        assert_eq!(
            back[1].to_string(),
            "conflicting canonicals: https://e.com/a https://e.com/b"
        );
        assert_eq!(hint_column(&[], true), None);
    }
}
