//! [`LinkRecord`], one link of a page, and [`LinkKind`], what it is, with the numbers the
//! database stores for each kind. It names only the crate's verdict codes.

use rusqlite::ToSql;
use rusqlite::types::{FromSql, FromSqlError, FromSqlResult, ToSqlOutput, ValueRef};

use crate::verdict::UnknownCode;

/// What a link is: the element or rule it comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LinkKind {
    /// `<a href>` (or `<area href>`).
    Anchor,
    /// The page's canonical, when it names another URL.
    Canonical,
    /// A redirect's `Location`.
    Redirect,
    /// `<link rel=alternate hreflang>` (or its `Link` header).
    Hreflang,
    /// An image the page shows.
    Image,
    /// `<iframe src>` or `<frame src>`.
    Iframe,
    /// An instant `<meta http-equiv=refresh>`.
    Refresh,
    /// A `<loc>` of the site's own sitemap (the source is the sitemap's URL): how a crawl
    /// that seeds from the site's sitemaps came to a page. Not a link of a page.
    Sitemap,
    /// A link the scripts of the page's template draw on every one of its pages, learned from
    /// renders of others of its kind: the page was read as served, and a visitor sees it.
    Script,
    /// A script file the page loads (`<script src>`): what the audit checks answers.
    ScriptFile,
    /// A style sheet the page loads (`<link rel=stylesheet>`).
    Stylesheet,
}

impl LinkKind {
    /// Every kind, in code order.
    pub const ALL: [LinkKind; 11] = [
        LinkKind::Anchor,
        LinkKind::Canonical,
        LinkKind::Redirect,
        LinkKind::Hreflang,
        LinkKind::Image,
        LinkKind::Iframe,
        LinkKind::Refresh,
        LinkKind::Sitemap,
        LinkKind::Script,
        LinkKind::ScriptFile,
        LinkKind::Stylesheet,
    ];

    /// The stable code the database and the audit's files use.
    pub fn code(self) -> &'static str {
        match self {
            LinkKind::Anchor => "a",
            LinkKind::Canonical => "canonical",
            LinkKind::Redirect => "redirect",
            LinkKind::Hreflang => "hreflang",
            LinkKind::Image => "image",
            LinkKind::Iframe => "iframe",
            LinkKind::Refresh => "refresh",
            LinkKind::Sitemap => "sitemap",
            LinkKind::Script => "script",
            LinkKind::ScriptFile => "js",
            LinkKind::Stylesheet => "css",
        }
    }

    /// Whether a crawler follows it from a page to discover its target: every kind but what
    /// a page loads (an image, a script, a style sheet: not pages) and a sitemap's entry (not
    /// a page's link).
    pub fn leads_crawl(self) -> bool {
        !matches!(
            self,
            LinkKind::Image | LinkKind::Sitemap | LinkKind::ScriptFile | LinkKind::Stylesheet
        )
    }

    /// Whether it is a resource a page loads: an image, a script or a style sheet.
    pub fn is_resource(self) -> bool {
        matches!(
            self,
            LinkKind::Image | LinkKind::ScriptFile | LinkKind::Stylesheet
        )
    }

    /// The number the database stores for the kind: in the order of the codes, so that
    /// links sorted by kind come in the order they always did.
    pub(crate) fn number(self) -> i64 {
        match self {
            LinkKind::Anchor => 1,
            LinkKind::Canonical => 2,
            LinkKind::Hreflang => 3,
            LinkKind::Iframe => 4,
            LinkKind::Image => 5,
            LinkKind::Redirect => 6,
            LinkKind::Refresh => 7,
            LinkKind::Sitemap => 8,
            LinkKind::Script => 9,
            LinkKind::ScriptFile => 10,
            LinkKind::Stylesheet => 11,
        }
    }

    /// The numbers of the kinds a crawler follows from a page, as an SQL list: `1, 2, ...`.
    pub(crate) fn followed_numbers() -> String {
        let kinds: Vec<LinkKind> = LinkKind::ALL
            .into_iter()
            .filter(|kind| kind.leads_crawl())
            .collect();
        Self::numbers(&kinds)
    }

    /// The numbers of the kinds a visitor follows: an anchor, a frame, a refresh, a link a
    /// script draws.
    pub(crate) fn visited_numbers() -> String {
        Self::numbers(&[
            LinkKind::Anchor,
            LinkKind::Iframe,
            LinkKind::Refresh,
            LinkKind::Script,
        ])
    }

    /// The numbers of the kinds a recrawl follows again from a page that answered 304: those
    /// a visitor follows and its alternates (its canonical is its verdict's target).
    pub(crate) fn refollowed_numbers() -> String {
        Self::numbers(&[
            LinkKind::Anchor,
            LinkKind::Hreflang,
            LinkKind::Iframe,
            LinkKind::Refresh,
            LinkKind::Script,
        ])
    }

    /// `kinds`' numbers as an SQL list.
    fn numbers(kinds: &[LinkKind]) -> String {
        let numbers: Vec<String> = kinds.iter().map(|kind| kind.number().to_string()).collect();
        numbers.join(", ")
    }
}

impl ToSql for LinkKind {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::from(self.number()))
    }
}

impl FromSql for LinkKind {
    fn column_result(value: ValueRef<'_>) -> FromSqlResult<Self> {
        let number = value.as_i64()?;
        LinkKind::ALL
            .into_iter()
            .find(|kind| kind.number() == number)
            .ok_or_else(|| {
                FromSqlError::Other(Box::new(UnknownCode {
                    what: "link kind",
                    code: number.to_string(),
                }))
            })
    }
}

/// One link of a page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkRecord {
    /// Where it leads, normalized.
    pub target: String,
    /// What it is.
    pub kind: LinkKind,
    /// The link's text (an `<a>`'s content, or the `alt` of an image in it).
    pub anchor: Option<String>,
    /// Its `rel` holds `nofollow`.
    pub nofollow: bool,
}
