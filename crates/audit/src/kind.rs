//! The kinds of finding, how much each hurts, and what reports call them.

/// How much a finding hurts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// Search engines cannot index something they should, or are sent into a wall.
    Error,
    /// Likely to cost rankings or crawl budget.
    Warning,
    /// Worth a look.
    Notice,
}

impl Severity {
    /// The word reports use for it.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Notice => "notice",
        }
    }
}

/// What kind of problem a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum FindingKind {
    BrokenLink,
    RedirectLoop,
    RedirectChain,
    LinkToRedirect,
    CanonicalToBroken,
    CanonicalToRedirect,
    CanonicalToDisallowed,
    CanonicalToNoindex,
    CanonicalLoop,
    ConflictingCanonicals,
    InvalidCanonical,
    OffSiteCanonical,
    NoindexLinked,
    BlockedLinked,
    TooDeep,
    Slow,
    Large,
    MissingTitle,
    DuplicateTitle,
    MissingDescription,
    DuplicateDescription,
    DuplicateContent,
    MixedContent,
    TrapCut,
    HreflangNoReturn,
    HreflangInvalid,
    SitemapOrphan,
    SitemapNotIndexable,
    NotInSitemap,
    SitemapUnreadable,
}

impl FindingKind {
    /// A stable machine-readable code.
    pub fn code(self) -> &'static str {
        match self {
            FindingKind::BrokenLink => "broken-link",
            FindingKind::RedirectLoop => "redirect-loop",
            FindingKind::RedirectChain => "redirect-chain",
            FindingKind::LinkToRedirect => "link-to-redirect",
            FindingKind::CanonicalToBroken => "canonical-to-broken",
            FindingKind::CanonicalToRedirect => "canonical-to-redirect",
            FindingKind::CanonicalToDisallowed => "canonical-to-disallowed",
            FindingKind::CanonicalToNoindex => "canonical-to-noindex",
            FindingKind::CanonicalLoop => "canonical-loop",
            FindingKind::ConflictingCanonicals => "conflicting-canonicals",
            FindingKind::InvalidCanonical => "invalid-canonical",
            FindingKind::OffSiteCanonical => "off-site-canonical",
            FindingKind::NoindexLinked => "noindex-linked",
            FindingKind::BlockedLinked => "robots-blocked-linked",
            FindingKind::TooDeep => "too-deep",
            FindingKind::Slow => "slow",
            FindingKind::Large => "large",
            FindingKind::MissingTitle => "missing-title",
            FindingKind::DuplicateTitle => "duplicate-title",
            FindingKind::MissingDescription => "missing-description",
            FindingKind::DuplicateDescription => "duplicate-description",
            FindingKind::DuplicateContent => "duplicate-content",
            FindingKind::MixedContent => "mixed-content",
            FindingKind::TrapCut => "trap-cut-short",
            FindingKind::HreflangNoReturn => "hreflang-no-return",
            FindingKind::HreflangInvalid => "hreflang-invalid",
            FindingKind::SitemapOrphan => "sitemap-orphan",
            FindingKind::SitemapNotIndexable => "sitemap-not-indexable",
            FindingKind::NotInSitemap => "not-in-sitemap",
            FindingKind::SitemapUnreadable => "sitemap-unreadable",
        }
    }

    /// How much it hurts.
    pub fn severity(self) -> Severity {
        match self {
            FindingKind::BrokenLink
            | FindingKind::RedirectLoop
            | FindingKind::CanonicalToBroken
            | FindingKind::CanonicalToDisallowed
            | FindingKind::CanonicalLoop
            | FindingKind::SitemapNotIndexable
            | FindingKind::SitemapUnreadable => Severity::Error,
            FindingKind::RedirectChain
            | FindingKind::CanonicalToRedirect
            | FindingKind::CanonicalToNoindex
            | FindingKind::ConflictingCanonicals
            | FindingKind::InvalidCanonical
            | FindingKind::OffSiteCanonical
            | FindingKind::Slow
            | FindingKind::MissingTitle
            | FindingKind::DuplicateContent
            | FindingKind::MixedContent
            | FindingKind::HreflangNoReturn
            | FindingKind::HreflangInvalid
            | FindingKind::SitemapOrphan => Severity::Warning,
            FindingKind::LinkToRedirect
            | FindingKind::NoindexLinked
            | FindingKind::BlockedLinked
            | FindingKind::TooDeep
            | FindingKind::Large
            | FindingKind::DuplicateTitle
            | FindingKind::MissingDescription
            | FindingKind::DuplicateDescription
            | FindingKind::TrapCut
            | FindingKind::NotInSitemap => Severity::Notice,
        }
    }

    /// A short human title, for reports.
    pub fn title(self) -> &'static str {
        match self {
            FindingKind::BrokenLink => "Broken internal link target",
            FindingKind::RedirectLoop => "Redirect loop",
            FindingKind::RedirectChain => "Redirect chain (more than one hop)",
            FindingKind::LinkToRedirect => "Internal link to a redirect",
            FindingKind::CanonicalToBroken => "Canonical to a page that does not answer 200",
            FindingKind::CanonicalToRedirect => "Canonical to a redirect",
            FindingKind::CanonicalToDisallowed => "Canonical to a page blocked by robots.txt",
            FindingKind::CanonicalToNoindex => "Canonical to a noindex page",
            FindingKind::CanonicalLoop => "Canonicals that form a loop",
            FindingKind::ConflictingCanonicals => "Conflicting canonicals",
            FindingKind::InvalidCanonical => "Invalid canonical URL",
            FindingKind::OffSiteCanonical => "Canonical to another site",
            FindingKind::NoindexLinked => "noindex page linked internally",
            FindingKind::BlockedLinked => "robots.txt-blocked URL linked internally",
            FindingKind::TooDeep => "Page deep in the site",
            FindingKind::Slow => "Slow page",
            FindingKind::Large => "Large page",
            FindingKind::MissingTitle => "Missing <title>",
            FindingKind::DuplicateTitle => "Duplicate <title>",
            FindingKind::MissingDescription => "Missing meta description",
            FindingKind::DuplicateDescription => "Duplicate meta description",
            FindingKind::DuplicateContent => "Duplicate content without a canonical",
            FindingKind::MixedContent => "http link on an https page",
            FindingKind::TrapCut => "Crawler trap cut short",
            FindingKind::HreflangNoReturn => "hreflang alternate without a return link",
            FindingKind::HreflangInvalid => "Invalid hreflang code",
            FindingKind::SitemapOrphan => "In the sitemap, not reachable by links",
            FindingKind::SitemapNotIndexable => "In the sitemap, not indexable",
            FindingKind::NotInSitemap => "Indexable, not in the sitemap",
            FindingKind::SitemapUnreadable => "Sitemap that cannot be read",
        }
    }
}

impl FindingKind {
    /// A finding about a URL other pages link to: the report names the linking pages.
    pub(crate) fn links_matter(self) -> bool {
        matches!(
            self,
            FindingKind::BrokenLink
                | FindingKind::RedirectChain
                | FindingKind::RedirectLoop
                | FindingKind::LinkToRedirect
                | FindingKind::NoindexLinked
                | FindingKind::BlockedLinked
                | FindingKind::TooDeep
        )
    }
}
