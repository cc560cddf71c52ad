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
    /// What the site says, for the reader to weigh: not a fault.
    Info,
}

impl Severity {
    /// Every severity, the worst first.
    pub const ALL: [Severity; 4] = [
        Severity::Error,
        Severity::Warning,
        Severity::Notice,
        Severity::Info,
    ];

    /// The word reports use for it.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Notice => "notice",
            Severity::Info => "info",
        }
    }
}

/// The part of a site a kind of finding is about, as the catalogue groups them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Category {
    /// Links between the site's pages, and what they lead to.
    Links,
    /// Redirects.
    Redirects,
    /// Links to other sites.
    LinksElsewhere,
    /// Canonical tags.
    Canonicals,
    /// What pages say: titles, descriptions, headings, text.
    Content,
    /// Speed and weight.
    Performance,
    /// Phones.
    Mobile,
    /// Accessibility read from the HTML.
    Accessibility,
    /// Sharing on social networks.
    Social,
    /// The URLs themselves.
    Urls,
    /// https and the headers that protect visitors.
    Security,
    /// Languages and regions (hreflang).
    International,
    /// The site's sitemaps and robots.txt.
    Sitemaps,
    /// Pages scripts draw.
    Rendering,
    /// Structured data and rich results.
    StructuredData,
    /// Crawlers of AI assistants.
    AiCrawlers,
}

impl Category {
    /// Every category, in catalogue order.
    pub const ALL: [Category; 16] = [
        Category::Links,
        Category::Redirects,
        Category::LinksElsewhere,
        Category::Canonicals,
        Category::Content,
        Category::Performance,
        Category::Mobile,
        Category::Accessibility,
        Category::Social,
        Category::Urls,
        Category::Security,
        Category::International,
        Category::Sitemaps,
        Category::Rendering,
        Category::StructuredData,
        Category::AiCrawlers,
    ];

    /// Its heading in the catalogue.
    pub fn title(self) -> &'static str {
        match self {
            Category::Links => "Links",
            Category::Redirects => "Redirects",
            Category::LinksElsewhere => "Links to other sites",
            Category::Canonicals => "Canonicals",
            Category::Content => "Content",
            Category::Performance => "Performance",
            Category::Mobile => "Mobile",
            Category::Accessibility => "Accessibility",
            Category::Social => "Social",
            Category::Urls => "URLs",
            Category::Security => "Security",
            Category::International => "International",
            Category::Sitemaps => "Sitemaps and robots.txt",
            Category::Rendering => "Rendering",
            Category::StructuredData => "Structured data",
            Category::AiCrawlers => "Crawlers of AI assistants",
        }
    }
}

/// The one list of kinds: each with its code, severity, category and title. The enum,
/// [`FindingKind::ALL`] and the catalogue of docs/audit.md are made from it.
macro_rules! kinds {
    ($($(#[doc = $doc:literal])* $kind:ident => $code:literal, $severity:ident, $category:ident, $title:literal;)*) => {
        /// What kind of problem a finding is.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum FindingKind {
            $($(#[doc = $doc])* $kind,)*
        }

        impl FindingKind {
            /// Every kind, in declaration order.
            pub const ALL: [FindingKind; [$(stringify!($kind)),*].len()] = [$(FindingKind::$kind),*];

            /// A stable machine-readable code, for the CSV and JSON files.
            pub fn code(self) -> &'static str {
                match self {
                    $(FindingKind::$kind => $code,)*
                }
            }

            /// How much it hurts.
            pub fn severity(self) -> Severity {
                match self {
                    $(FindingKind::$kind => Severity::$severity,)*
                }
            }

            /// What part of the site it is about.
            pub fn category(self) -> Category {
                match self {
                    $(FindingKind::$kind => Category::$category,)*
                }
            }

            /// A short human title, for reports.
            pub fn title(self) -> &'static str {
                match self {
                    $(FindingKind::$kind => $title,)*
                }
            }
        }
    };
}

kinds! {
    /// A URL the site links to answers 400 or more, or cannot be fetched at all.
    BrokenLink => "broken-link", Error, Links, "Broken internal link target";
    /// Redirects that come back to a URL already in the chain.
    RedirectLoop => "redirect-loop", Error, Redirects, "Redirect loop";
    /// A redirect to another redirect: more than one hop to the final page.
    RedirectChain => "redirect-chain", Warning, Redirects, "Redirect chain (more than one hop)";
    /// An internal link to a URL that redirects.
    LinkToRedirect => "link-to-redirect", Notice, Links, "Internal link to a redirect";
    /// A link to another site whose URL answers 400 or more, or cannot be fetched at all.
    OutboundBroken => "outbound-broken", Warning, LinksElsewhere, "Broken link to another site";
    /// A link to another site whose URL answers 429 or 999: the site refuses automated checks.
    OutboundBlocked => "outbound-blocked", Notice, LinksElsewhere, "Link to another site that blocks checks";
    /// A link to another site whose URL redirects.
    OutboundRedirected => "outbound-redirected", Notice, LinksElsewhere, "Link to another site that redirects";
    /// A canonical whose target does not answer 200 with HTML (or was never fetched).
    CanonicalToBroken => "canonical-to-broken", Error, Canonicals, "Canonical to a page that does not answer 200";
    /// A canonical whose target redirects.
    CanonicalToRedirect => "canonical-to-redirect", Warning, Canonicals, "Canonical to a redirect";
    /// A canonical whose target robots.txt blocks.
    CanonicalToDisallowed => "canonical-to-disallowed", Error, Canonicals, "Canonical to a page blocked by robots.txt";
    /// A canonical whose target is noindex.
    CanonicalToNoindex => "canonical-to-noindex", Warning, Canonicals, "Canonical to a noindex page";
    /// Canonicals that lead back to where they started.
    CanonicalLoop => "canonical-loop", Error, Canonicals, "Canonicals that form a loop";
    /// A page that names two or more different canonicals (all ignored).
    ConflictingCanonicals => "conflicting-canonicals", Warning, Canonicals, "Conflicting canonicals";
    /// A canonical that is not an http(s) URL (ignored).
    InvalidCanonical => "invalid-canonical", Warning, Canonicals, "Invalid canonical URL";
    /// A canonical to another site: the page is left out of the sitemap.
    OffSiteCanonical => "off-site-canonical", Warning, Canonicals, "Canonical to another site";
    /// A noindex page that the site links to.
    NoindexLinked => "noindex-linked", Notice, Links, "noindex page linked internally";
    /// A URL robots.txt blocks that the site links to.
    BlockedLinked => "robots-blocked-linked", Notice, Links, "robots.txt-blocked URL linked internally";
    /// A listed page more clicks from the start page than the threshold.
    TooDeep => "too-deep", Notice, Links, "Page deep in the site";
    /// An HTML page slower to answer than the threshold.
    Slow => "slow", Warning, Performance, "Slow page";
    /// An HTML page bigger than the threshold, or cut at the body cap.
    Large => "large", Notice, Performance, "Large page";
    /// A listed page without a `<title>`.
    MissingTitle => "missing-title", Warning, Content, "Missing <title>";
    /// Listed pages that share a `<title>`.
    DuplicateTitle => "duplicate-title", Notice, Content, "Duplicate <title>";
    /// A listed page without a meta description.
    MissingDescription => "missing-description", Notice, Content, "Missing meta description";
    /// Listed pages that share a meta description.
    DuplicateDescription => "duplicate-description", Notice, Content, "Duplicate meta description";
    /// Listed pages with the same text and links and no canonical between them.
    DuplicateContent => "duplicate-content", Warning, Content, "Duplicate content without a canonical";
    /// An https page that loads images, scripts, style sheets, frames or media over http.
    MixedContent => "mixed-content", Warning, Security, "Mixed content: http resources on an https page";
    /// A listed page whose title is longer than the threshold.
    TitleTooLong => "title-too-long", Notice, Content, "Title too long";
    /// A listed page whose title is shorter than the threshold.
    TitleTooShort => "title-too-short", Notice, Content, "Title too short";
    /// A listed page whose meta description is longer than the threshold.
    DescriptionTooLong => "description-too-long", Notice, Content, "Meta description too long";
    /// A listed page without an `<h1>`.
    MissingH1 => "missing-h1", Warning, Content, "No <h1> heading";
    /// A listed page with more than one `<h1>`.
    MultipleH1 => "multiple-h1", Notice, Content, "Several <h1> headings";
    /// A page showing images without alt text.
    ImagesWithoutAlt => "images-without-alt", Warning, Accessibility, "Images without alt text";
    /// A page that answers 200 but whose title or heading says it was not found.
    SoftNotFound => "soft-404", Error, Content, "Soft 404: a \"not found\" page that answers 200";
    /// A crawler trap the crawl stopped following.
    TrapCut => "trap-cut-short", Notice, Links, "Crawler trap cut short";
    /// An hreflang alternate whose target does not name the page back.
    HreflangNoReturn => "hreflang-no-return", Warning, International, "hreflang alternate without a return link";
    /// An hreflang value that is not a language code.
    HreflangInvalid => "hreflang-invalid", Warning, International, "Invalid hreflang code";
    /// An hreflang alternate that points to a page that is not indexable.
    HreflangToNonIndexable => "hreflang-to-non-indexable", Warning, International, "hreflang alternate that is not indexable";
    /// A URL of the site's sitemaps that no crawled link leads to.
    SitemapOrphan => "sitemap-orphan", Warning, Sitemaps, "In the sitemap, not reachable by links";
    /// A URL of the site's sitemaps that is not indexable (or not a URL).
    SitemapNotIndexable => "sitemap-not-indexable", Error, Sitemaps, "In the sitemap, not indexable";
    /// An indexable page the site's sitemaps leave out.
    NotInSitemap => "not-in-sitemap", Notice, Sitemaps, "Indexable, not in the sitemap";
    /// A sitemap of the site that answered, and is not a sitemap (or not a valid one).
    SitemapUnreadable => "sitemap-unreadable", Error, Sitemaps, "Sitemap that is not a valid sitemap";
    /// A sitemap of the site that cannot be fetched: no answer, an error status, or
    /// disallowed by robots.txt.
    SitemapNotFetched => "sitemap-not-fetched", Warning, Sitemaps, "Sitemap that cannot be fetched";
    /// A sitemap of the site on another site (host, scheme or port): not read.
    SitemapOnOtherSite => "sitemap-on-other-site", Notice, Sitemaps, "Sitemap on another host";
    /// A page whose canonical or noindex, once rendered, differs from its HTML as served.
    RenderedDiffers => "rendered-differs", Warning, Rendering, "JavaScript changes the canonical or noindex";
    /// A page whose rendering timed out or failed: its HTML as served was read.
    RenderIncomplete => "render-incomplete", Warning, Rendering, "Page whose rendering did not finish";
    /// The site's robots.txt answers 404 or 410.
    NoRobotsTxt => "no-robots-txt", Notice, Sitemaps, "No robots.txt";
    /// No sitemap found: none named in robots.txt (or given), none at the usual paths.
    NoSitemap => "no-sitemap", Warning, Sitemaps, "No sitemap found";
    /// A sitemap found at a usual path that robots.txt does not name.
    SitemapNotInRobots => "sitemap-not-in-robots", Notice, Sitemaps, "Sitemap not named in robots.txt";
    /// A JSON-LD block of a listed page that does not parse.
    StructuredDataInvalidJson => "structured-data-invalid-json", Warning, StructuredData, "Structured data (JSON-LD) that does not parse";
    /// A listed page whose markup nests too deep, or costs too much, to be read whole: its
    /// microdata after that point is not read.
    StructuredDataCut => "structured-data-cut", Warning, StructuredData, "Markup too deeply nested to read whole";
    /// An item of a rich result's type without a property the rich result requires.
    RichResultMissingRequired => "rich-result-missing-required", Warning, StructuredData, "Rich result without a required property";
    /// An item of a rich result's type without a property the rich result recommends.
    RichResultMissingRecommended => "rich-result-missing-recommended", Notice, StructuredData, "Rich result without a recommended property";
    /// A date in a rich result's structured data that is not an ISO 8601 date or date and
    /// time.
    StructuredDataInvalidDate => "structured-data-invalid-date", Warning, StructuredData, "Structured data with an invalid date";
    /// A URL in a rich result's structured data that is not an absolute http(s) URL.
    StructuredDataInvalidUrl => "structured-data-invalid-url", Warning, StructuredData, "Structured data with a URL that is not absolute";
    /// A video a page declares that a video sitemap leaves out: it lacks a thumbnail, a
    /// title, a description, or a video or player URL.
    VideoEntryIncomplete => "video-entry-incomplete", Warning, StructuredData, "Video a video sitemap cannot list";
    /// An image of the site a page shows that answers 400 or more, or cannot be fetched.
    BrokenImage => "broken-image", Warning, Links, "Broken image";
    /// A script of the site a page loads that answers 400 or more, or cannot be fetched.
    BrokenScript => "broken-script", Warning, Links, "Broken script";
    /// A style sheet of the site a page loads that answers 400 or more, or cannot be fetched.
    BrokenStylesheet => "broken-stylesheet", Warning, Links, "Broken style sheet";
    /// A frame (`<iframe>`, `<frame>`) of the site a page shows that answers 400 or more, or
    /// cannot be fetched.
    BrokenFrame => "broken-frame", Warning, Links, "Broken frame";
    /// A listed page whose links to pages of the site carry `rel=nofollow`.
    NofollowInternal => "nofollow-internal-link", Notice, Links, "Internal links marked nofollow";
    /// A listed page without a single link a visitor can follow.
    DeadEnd => "dead-end-page", Notice, Links, "Dead-end page: no links out";
    /// A listed page whose HTML and the resources of the site it loads weigh more than the
    /// threshold.
    HeavyPage => "heavy-page", Notice, Performance, "Heavy page: HTML and resources together";
    /// An image of the site bigger than the threshold, in bytes.
    LargeImage => "large-image", Notice, Performance, "Large image file";
    /// An image whose file is more than twice as wide as the page shows it (its `width`).
    ImageLargerThanShown => "image-larger-than-shown", Notice, Performance, "Image much larger than shown";
    /// A listed page showing images without `width` and `height` attributes.
    ImagesWithoutDimensions => "images-without-dimensions", Notice, Performance, "Images without width and height";
    /// An HTML page of more than 1 KiB sent without gzip, Brotli or another compression.
    Uncompressed => "uncompressed-page", Notice, Performance, "HTML sent uncompressed";
    /// A listed page whose `<head>` loads scripts without `async` or `defer`.
    RenderBlockingScripts => "render-blocking-scripts", Notice, Performance, "Scripts that block rendering";
    /// A listed page without `<meta name="viewport">`.
    NoViewport => "no-viewport", Warning, Mobile, "No viewport for phones";
    /// A listed page whose viewport forbids zooming (`user-scalable=no`, `maximum-scale` below
    /// 2).
    ZoomDisabled => "zoom-disabled", Notice, Mobile, "Zoom disabled on phones";
    /// A listed page without `<html lang>`.
    NoLang => "no-lang", Notice, Accessibility, "No language declared";
    /// A listed page whose `<html lang>` is not a language code.
    InvalidLang => "invalid-lang", Notice, Accessibility, "Invalid language code";
    /// A page with links that have no text, image alt, `aria-label` or `title`.
    LinksWithoutText => "links-without-text", Notice, Accessibility, "Links without text";
    /// A page with form fields no `<label>`, `aria-label`, `aria-labelledby` or `title` names.
    InputsWithoutLabel => "inputs-without-label", Notice, Accessibility, "Form fields without a label";
    /// A page whose headings skip a level going down (an `<h2>` followed by an `<h4>`).
    SkippedHeadingLevel => "skipped-heading-level", Notice, Accessibility, "Skipped heading level";
    /// A page with buttons that have no text, image alt, `aria-label` or `title`.
    ButtonsWithoutName => "buttons-without-name", Notice, Accessibility, "Buttons without a name";
    /// A page with `<iframe>` elements without a `title`.
    FramesWithoutTitle => "frames-without-title", Notice, Accessibility, "Frames without a title";
    /// A page with elements whose `tabindex` is above 0, which reorders keyboard navigation.
    PositiveTabindex => "positive-tabindex", Notice, Accessibility, "Positive tabindex";
    /// A listed page without any Open Graph tag (`og:title`, `og:image`...).
    OpenGraphMissing => "open-graph-missing", Notice, Social, "No Open Graph tags";
    /// A listed page with Open Graph tags that lack `og:title`, `og:type`, `og:image` or
    /// `og:url`.
    OpenGraphIncomplete => "open-graph-incomplete", Notice, Social, "Open Graph tags incomplete";
    /// A listed page without `twitter:card`.
    TwitterCardMissing => "twitter-card-missing", Notice, Social, "No Twitter card";
    /// A listed page with `twitter:card` but no title or image for it (its own or Open
    /// Graph's).
    TwitterCardIncomplete => "twitter-card-incomplete", Notice, Social, "Twitter card incomplete";
    /// A listed URL whose path has upper-case letters.
    UrlUppercase => "url-uppercase", Notice, Urls, "URL with upper-case letters";
    /// A listed URL whose path has underscores.
    UrlUnderscores => "url-underscores", Notice, Urls, "URL with underscores";
    /// A listed URL whose path or query has spaces (`%20`, `+`).
    UrlSpaces => "url-spaces", Notice, Urls, "URL with spaces";
    /// A listed URL whose path has characters outside ASCII.
    UrlNonAscii => "url-non-ascii", Notice, Urls, "URL with non-ASCII characters";
    /// A listed URL longer than the threshold.
    UrlTooLong => "url-too-long", Notice, Urls, "URL too long";
    /// A listed URL with more query parameters than the threshold.
    UrlManyParameters => "url-many-parameters", Notice, Urls, "URL with many parameters";
    /// A listed URL whose path has `//`.
    UrlMultipleSlashes => "url-multiple-slashes", Notice, Urls, "URL with repeated slashes";
    /// A listed page with fewer words of visible text than the threshold.
    ThinPage => "thin-page", Notice, Content, "Thin page: few words";
    /// Listed pages whose text is nearly the same (simhash within the threshold of bits), with
    /// no canonical between them.
    NearDuplicate => "near-duplicate", Notice, Content, "Near-duplicate content";
    /// A listed page whose meta description is shorter than the threshold.
    DescriptionTooShort => "description-too-short", Notice, Content, "Meta description too short";
    /// A listed page whose first `<h1>` is longer than the threshold.
    H1TooLong => "h1-too-long", Notice, Content, "<h1> too long";
    /// A listed page with more than one `<title>`.
    MultipleTitles => "multiple-titles", Notice, Content, "Several <title> elements";
    /// A listed page with more than one meta description.
    MultipleDescriptions => "multiple-descriptions", Notice, Content, "Several meta descriptions";
    /// An HTML page without `<!DOCTYPE html>`: browsers lay it out in quirks mode.
    NoDoctype => "no-doctype", Notice, Content, "No doctype: quirks mode";
    /// A page that uses elements HTML has dropped (`<font>`, `<center>`, `<marquee>`...).
    DeprecatedHtml => "deprecated-html", Notice, Content, "Obsolete HTML elements";
    /// A page that sends visitors elsewhere after a delay with `<meta http-equiv=refresh>`.
    MetaRefresh => "meta-refresh", Notice, Redirects, "Timed meta refresh";
    /// A listed page that names no canonical.
    MissingCanonical => "missing-canonical", Notice, Canonicals, "No canonical";
    /// A listed page whose canonical is a relative URL.
    RelativeCanonical => "relative-canonical", Notice, Canonicals, "Relative canonical URL";
    /// An https host whose pages answer without `Strict-Transport-Security`.
    NoHsts => "no-hsts", Notice, Security, "No HSTS";
    /// An https page that links to pages of its own host over plain http.
    HttpLinks => "http-links", Notice, Security, "Links to the site's own pages over http";
    /// A page whose form sends what visitors type over plain http.
    FormOnHttp => "form-on-http", Warning, Security, "Form sent over http";
    /// The http address of an https site's start page answers without redirecting to https.
    HttpNotRedirected => "http-not-redirected", Warning, Security, "http that does not redirect to https";
    /// A host whose pages answer without `X-Content-Type-Options: nosniff`.
    NoContentTypeOptions => "no-content-type-options", Notice, Security, "No X-Content-Type-Options";
    /// A host whose pages answer without `X-Frame-Options` or a `frame-ancestors` policy.
    NoFrameOptions => "no-frame-options", Notice, Security, "No protection against framing";
    /// A host whose pages answer without `Content-Security-Policy`.
    NoContentSecurityPolicy => "no-content-security-policy", Notice, Security, "No Content-Security-Policy";
    /// A page that loads resources by `//host/...` URLs.
    ProtocolRelativeResources => "protocol-relative-resources", Notice, Security, "Protocol-relative resources";
    /// What the site's robots.txt says to GPTBot, ClaudeBot, Google-Extended, CCBot and
    /// PerplexityBot.
    AiCrawlers => "ai-crawlers", Info, AiCrawlers, "What robots.txt allows crawlers of AI assistants";
    /// Whether the site has a `/llms.txt` for AI assistants.
    LlmsTxt => "llms-txt", Info, AiCrawlers, "llms.txt";
}

impl FindingKind {
    /// The kind a code names.
    pub fn from_code(code: &str) -> Option<FindingKind> {
        FindingKind::ALL
            .into_iter()
            .find(|kind| kind.code() == code)
    }
}

impl FindingKind {
    /// A finding about a URL that is not a page of the site (a URL of another site, a
    /// resource the site's pages load): it is not one of the audited URLs, and it weighs on
    /// the pages of the site that link to it or load it.
    pub(crate) fn weighs_on_referrers(self) -> bool {
        matches!(
            self,
            FindingKind::OutboundBroken
                | FindingKind::OutboundBlocked
                | FindingKind::OutboundRedirected
                | FindingKind::BrokenImage
                | FindingKind::BrokenScript
                | FindingKind::BrokenStylesheet
                | FindingKind::LargeImage
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
                | FindingKind::BrokenImage
                | FindingKind::BrokenScript
                | FindingKind::BrokenStylesheet
                | FindingKind::BrokenFrame
                | FindingKind::LargeImage
        )
    }
}
