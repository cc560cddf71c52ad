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
    /// A URL the site links to answers 400 or more, or cannot be fetched at all.
    BrokenLink,
    /// Redirects that come back to a URL already in the chain.
    RedirectLoop,
    /// A redirect to another redirect: more than one hop to the final page.
    RedirectChain,
    /// An internal link to a URL that redirects.
    LinkToRedirect,
    /// A link to another site whose URL answers 400 or more, or cannot be fetched at all.
    OutboundBroken,
    /// A link to another site whose URL answers 429 or 999: the site refuses automated checks.
    OutboundBlocked,
    /// A link to another site whose URL redirects.
    OutboundRedirected,
    /// A canonical whose target does not answer 200 with HTML (or was never fetched).
    CanonicalToBroken,
    /// A canonical whose target redirects.
    CanonicalToRedirect,
    /// A canonical whose target robots.txt blocks.
    CanonicalToDisallowed,
    /// A canonical whose target is noindex.
    CanonicalToNoindex,
    /// Canonicals that lead back to where they started.
    CanonicalLoop,
    /// A page that names two or more different canonicals (all ignored).
    ConflictingCanonicals,
    /// A canonical that is not an http(s) URL (ignored).
    InvalidCanonical,
    /// A canonical to another site: the page is left out of the sitemap.
    OffSiteCanonical,
    /// A noindex page that the site links to.
    NoindexLinked,
    /// A URL robots.txt blocks that the site links to.
    BlockedLinked,
    /// A listed page more clicks from the start page than the threshold.
    TooDeep,
    /// An HTML page slower to answer than the threshold.
    Slow,
    /// An HTML page bigger than the threshold, or cut at the body cap.
    Large,
    /// A listed page without a `<title>`.
    MissingTitle,
    /// Listed pages that share a `<title>`.
    DuplicateTitle,
    /// A listed page without a meta description.
    MissingDescription,
    /// Listed pages that share a meta description.
    DuplicateDescription,
    /// Listed pages with the same text and links and no canonical between them.
    DuplicateContent,
    /// An https page that loads images, scripts, style sheets, frames or media over http.
    MixedContent,
    /// A listed page whose title is longer than the threshold.
    TitleTooLong,
    /// A listed page whose title is shorter than the threshold.
    TitleTooShort,
    /// A listed page whose meta description is longer than the threshold.
    DescriptionTooLong,
    /// A listed page without an `<h1>`.
    MissingH1,
    /// A listed page with more than one `<h1>`.
    MultipleH1,
    /// A page showing images without alt text.
    ImagesWithoutAlt,
    /// A page that answers 200 but whose title or heading says it was not found.
    SoftNotFound,
    /// A crawler trap the crawl stopped following.
    TrapCut,
    /// An hreflang alternate whose target does not name the page back.
    HreflangNoReturn,
    /// An hreflang value that is not a language code.
    HreflangInvalid,
    /// An hreflang alternate that points to a page that is not indexable.
    HreflangToNonIndexable,
    /// A URL of the site's sitemaps that no crawled link leads to.
    SitemapOrphan,
    /// A URL of the site's sitemaps that is not indexable (or not a URL).
    SitemapNotIndexable,
    /// An indexable page the site's sitemaps leave out.
    NotInSitemap,
    /// A sitemap of the site that answered, and is not a sitemap (or not a valid one).
    SitemapUnreadable,
    /// A sitemap of the site that cannot be fetched: no answer, an error status, or
    /// disallowed by robots.txt.
    SitemapNotFetched,
    /// A sitemap of the site on another site (host, scheme or port): not read.
    SitemapOnOtherSite,
    /// A page whose canonical or noindex, once rendered, differs from its HTML as served.
    RenderedDiffers,
    /// A page whose rendering timed out or failed: its HTML as served was read.
    RenderIncomplete,
    /// The site's robots.txt answers 404 or 410.
    NoRobotsTxt,
    /// No sitemap found: none named in robots.txt (or given), none at the usual paths.
    NoSitemap,
    /// A sitemap found at a usual path that robots.txt does not name.
    SitemapNotInRobots,
    /// A JSON-LD block of a listed page that does not parse.
    StructuredDataInvalidJson,
    /// A listed page whose markup nests too deep, or costs too much, to be read whole: its
    /// microdata after that point is not read.
    StructuredDataCut,
    /// An item of a rich result's type without a property the rich result requires.
    RichResultMissingRequired,
    /// An item of a rich result's type without a property the rich result recommends.
    RichResultMissingRecommended,
    /// A date in a rich result's structured data that is not an ISO 8601 date or date and
    /// time.
    StructuredDataInvalidDate,
    /// A URL in a rich result's structured data that is not an absolute http(s) URL.
    StructuredDataInvalidUrl,
    /// A video a page declares that a video sitemap leaves out: it lacks a thumbnail, a
    /// title, a description, or a video or player URL.
    VideoEntryIncomplete,
}

impl FindingKind {
    /// Every kind, in declaration order.
    pub const ALL: [FindingKind; 55] = [
        FindingKind::BrokenLink,
        FindingKind::RedirectLoop,
        FindingKind::RedirectChain,
        FindingKind::LinkToRedirect,
        FindingKind::OutboundBroken,
        FindingKind::OutboundBlocked,
        FindingKind::OutboundRedirected,
        FindingKind::CanonicalToBroken,
        FindingKind::CanonicalToRedirect,
        FindingKind::CanonicalToDisallowed,
        FindingKind::CanonicalToNoindex,
        FindingKind::CanonicalLoop,
        FindingKind::ConflictingCanonicals,
        FindingKind::InvalidCanonical,
        FindingKind::OffSiteCanonical,
        FindingKind::NoindexLinked,
        FindingKind::BlockedLinked,
        FindingKind::TooDeep,
        FindingKind::Slow,
        FindingKind::Large,
        FindingKind::MissingTitle,
        FindingKind::DuplicateTitle,
        FindingKind::MissingDescription,
        FindingKind::DuplicateDescription,
        FindingKind::DuplicateContent,
        FindingKind::MixedContent,
        FindingKind::TitleTooLong,
        FindingKind::TitleTooShort,
        FindingKind::DescriptionTooLong,
        FindingKind::MissingH1,
        FindingKind::MultipleH1,
        FindingKind::ImagesWithoutAlt,
        FindingKind::SoftNotFound,
        FindingKind::TrapCut,
        FindingKind::HreflangNoReturn,
        FindingKind::HreflangInvalid,
        FindingKind::HreflangToNonIndexable,
        FindingKind::SitemapOrphan,
        FindingKind::SitemapNotIndexable,
        FindingKind::NotInSitemap,
        FindingKind::SitemapUnreadable,
        FindingKind::SitemapNotFetched,
        FindingKind::SitemapOnOtherSite,
        FindingKind::RenderedDiffers,
        FindingKind::RenderIncomplete,
        FindingKind::NoRobotsTxt,
        FindingKind::NoSitemap,
        FindingKind::SitemapNotInRobots,
        FindingKind::StructuredDataInvalidJson,
        FindingKind::StructuredDataCut,
        FindingKind::RichResultMissingRequired,
        FindingKind::RichResultMissingRecommended,
        FindingKind::StructuredDataInvalidDate,
        FindingKind::StructuredDataInvalidUrl,
        FindingKind::VideoEntryIncomplete,
    ];

    /// The kind a code names.
    pub fn from_code(code: &str) -> Option<FindingKind> {
        FindingKind::ALL
            .into_iter()
            .find(|kind| kind.code() == code)
    }

    /// A stable machine-readable code, for the CSV and JSON files.
    pub fn code(self) -> &'static str {
        match self {
            FindingKind::BrokenLink => "broken-link",
            FindingKind::RedirectLoop => "redirect-loop",
            FindingKind::RedirectChain => "redirect-chain",
            FindingKind::LinkToRedirect => "link-to-redirect",
            FindingKind::OutboundBroken => "outbound-broken",
            FindingKind::OutboundBlocked => "outbound-blocked",
            FindingKind::OutboundRedirected => "outbound-redirected",
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
            FindingKind::TitleTooLong => "title-too-long",
            FindingKind::TitleTooShort => "title-too-short",
            FindingKind::DescriptionTooLong => "description-too-long",
            FindingKind::MissingH1 => "missing-h1",
            FindingKind::MultipleH1 => "multiple-h1",
            FindingKind::ImagesWithoutAlt => "images-without-alt",
            FindingKind::SoftNotFound => "soft-404",
            FindingKind::TrapCut => "trap-cut-short",
            FindingKind::HreflangNoReturn => "hreflang-no-return",
            FindingKind::HreflangInvalid => "hreflang-invalid",
            FindingKind::HreflangToNonIndexable => "hreflang-to-non-indexable",
            FindingKind::SitemapOrphan => "sitemap-orphan",
            FindingKind::SitemapNotIndexable => "sitemap-not-indexable",
            FindingKind::NotInSitemap => "not-in-sitemap",
            FindingKind::SitemapUnreadable => "sitemap-unreadable",
            FindingKind::SitemapNotFetched => "sitemap-not-fetched",
            FindingKind::SitemapOnOtherSite => "sitemap-on-other-site",
            FindingKind::RenderedDiffers => "rendered-differs",
            FindingKind::RenderIncomplete => "render-incomplete",
            FindingKind::NoRobotsTxt => "no-robots-txt",
            FindingKind::NoSitemap => "no-sitemap",
            FindingKind::SitemapNotInRobots => "sitemap-not-in-robots",
            FindingKind::StructuredDataInvalidJson => "structured-data-invalid-json",
            FindingKind::StructuredDataCut => "structured-data-cut",
            FindingKind::RichResultMissingRequired => "rich-result-missing-required",
            FindingKind::RichResultMissingRecommended => "rich-result-missing-recommended",
            FindingKind::StructuredDataInvalidDate => "structured-data-invalid-date",
            FindingKind::StructuredDataInvalidUrl => "structured-data-invalid-url",
            FindingKind::VideoEntryIncomplete => "video-entry-incomplete",
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
            | FindingKind::SitemapUnreadable
            | FindingKind::SoftNotFound => Severity::Error,
            FindingKind::RedirectChain
            | FindingKind::OutboundBroken
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
            | FindingKind::HreflangToNonIndexable
            | FindingKind::MissingH1
            | FindingKind::ImagesWithoutAlt
            | FindingKind::SitemapOrphan
            | FindingKind::RenderedDiffers
            | FindingKind::RenderIncomplete
            | FindingKind::NoSitemap
            | FindingKind::SitemapNotFetched
            | FindingKind::StructuredDataInvalidJson
            | FindingKind::StructuredDataCut
            | FindingKind::RichResultMissingRequired
            | FindingKind::StructuredDataInvalidDate
            | FindingKind::StructuredDataInvalidUrl
            | FindingKind::VideoEntryIncomplete => Severity::Warning,
            FindingKind::LinkToRedirect
            | FindingKind::OutboundBlocked
            | FindingKind::OutboundRedirected
            | FindingKind::NoindexLinked
            | FindingKind::BlockedLinked
            | FindingKind::TooDeep
            | FindingKind::Large
            | FindingKind::DuplicateTitle
            | FindingKind::MissingDescription
            | FindingKind::DuplicateDescription
            | FindingKind::TrapCut
            | FindingKind::NotInSitemap
            | FindingKind::TitleTooLong
            | FindingKind::TitleTooShort
            | FindingKind::DescriptionTooLong
            | FindingKind::MultipleH1
            | FindingKind::NoRobotsTxt
            | FindingKind::SitemapNotInRobots
            | FindingKind::SitemapOnOtherSite
            | FindingKind::RichResultMissingRecommended => Severity::Notice,
        }
    }

    /// A short human title, for reports.
    pub fn title(self) -> &'static str {
        match self {
            FindingKind::BrokenLink => "Broken internal link target",
            FindingKind::RedirectLoop => "Redirect loop",
            FindingKind::RedirectChain => "Redirect chain (more than one hop)",
            FindingKind::LinkToRedirect => "Internal link to a redirect",
            FindingKind::OutboundBroken => "Broken link to another site",
            FindingKind::OutboundBlocked => "Link to another site that blocks checks",
            FindingKind::OutboundRedirected => "Link to another site that redirects",
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
            FindingKind::MixedContent => "Mixed content: http resources on an https page",
            FindingKind::TitleTooLong => "Title too long",
            FindingKind::TitleTooShort => "Title too short",
            FindingKind::DescriptionTooLong => "Meta description too long",
            FindingKind::MissingH1 => "No <h1> heading",
            FindingKind::MultipleH1 => "Several <h1> headings",
            FindingKind::ImagesWithoutAlt => "Images without alt text",
            FindingKind::SoftNotFound => "Soft 404: a \"not found\" page that answers 200",
            FindingKind::TrapCut => "Crawler trap cut short",
            FindingKind::HreflangNoReturn => "hreflang alternate without a return link",
            FindingKind::HreflangInvalid => "Invalid hreflang code",
            FindingKind::HreflangToNonIndexable => "hreflang alternate that is not indexable",
            FindingKind::SitemapOrphan => "In the sitemap, not reachable by links",
            FindingKind::SitemapNotIndexable => "In the sitemap, not indexable",
            FindingKind::NotInSitemap => "Indexable, not in the sitemap",
            FindingKind::SitemapUnreadable => "Sitemap that is not a valid sitemap",
            FindingKind::SitemapNotFetched => "Sitemap that cannot be fetched",
            FindingKind::SitemapOnOtherSite => "Sitemap on another host",
            FindingKind::RenderedDiffers => "JavaScript changes the canonical or noindex",
            FindingKind::RenderIncomplete => "Page whose rendering did not finish",
            FindingKind::NoRobotsTxt => "No robots.txt",
            FindingKind::NoSitemap => "No sitemap found",
            FindingKind::SitemapNotInRobots => "Sitemap not named in robots.txt",
            FindingKind::StructuredDataInvalidJson => {
                "Structured data (JSON-LD) that does not parse"
            }
            FindingKind::StructuredDataCut => "Markup too deeply nested to read whole",
            FindingKind::RichResultMissingRequired => "Rich result without a required property",
            FindingKind::RichResultMissingRecommended => {
                "Rich result without a recommended property"
            }
            FindingKind::StructuredDataInvalidDate => "Structured data with an invalid date",
            FindingKind::StructuredDataInvalidUrl => {
                "Structured data with a URL that is not absolute"
            }
            FindingKind::VideoEntryIncomplete => "Video a video sitemap cannot list",
        }
    }
}

impl FindingKind {
    /// A finding about a URL of another site: it is not one of the audited URLs, and it
    /// weighs on the pages of the site that link to it.
    pub(crate) fn is_outbound(self) -> bool {
        matches!(
            self,
            FindingKind::OutboundBroken
                | FindingKind::OutboundBlocked
                | FindingKind::OutboundRedirected
        )
    }

    /// A finding about a URL other pages link to: the report names the linking pages.
    pub(crate) fn links_matter(self) -> bool {
        matches!(
            self,
            FindingKind::BrokenLink
                | FindingKind::RedirectChain
                | FindingKind::RedirectLoop
                | FindingKind::LinkToRedirect
                | FindingKind::OutboundBroken
                | FindingKind::OutboundBlocked
                | FindingKind::OutboundRedirected
                | FindingKind::NoindexLinked
                | FindingKind::BlockedLinked
                | FindingKind::TooDeep
        )
    }
}
