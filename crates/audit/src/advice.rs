//! What each kind of finding means for a site owner: why it matters and how to fix it, a
//! sentence or two each, in plain words.

use crate::kind::FindingKind;

impl FindingKind {
    /// Why it matters.
    pub fn why(self) -> &'static str {
        match self {
            FindingKind::BrokenLink => {
                "Visitors who follow these links land on an error page, and search engines spend their visits on pages that do not exist."
            }
            FindingKind::RedirectLoop => {
                "A redirect loop never reaches a page: browsers show an error and search engines drop the URL."
            }
            FindingKind::RedirectChain => {
                "Each extra hop slows visitors down, and search engines may stop following a chain before its end."
            }
            FindingKind::LinkToRedirect => {
                "Links that go through a redirect cost every visitor an extra request and dilute the signals the link passes on."
            }
            FindingKind::OutboundBroken => {
                "Visitors who follow these links land on an error page on another site, which makes the page look neglected. It does not stop search engines indexing this site: the page linking out is still indexed."
            }
            FindingKind::OutboundBlocked => {
                "The other site refused the check (429 Too Many Requests, or 999, which some sites answer to anything that is not a browser), so whether the link works is not known."
            }
            FindingKind::OutboundRedirected => {
                "The link still works, through a redirect: the other site has moved the page, and redirects like this one are often removed one day."
            }
            FindingKind::CanonicalToBroken => {
                "The canonical tells search engines to index a page that does not work, so they ignore the hint and may index the wrong URL."
            }
            FindingKind::CanonicalToRedirect => {
                "A canonical should name the final URL; pointing it at a redirect sends mixed signals about which URL to index."
            }
            FindingKind::CanonicalToDisallowed => {
                "Search engines cannot read a page that robots.txt blocks, so they cannot confirm the canonical and may ignore it."
            }
            FindingKind::CanonicalToNoindex => {
                "The page hands its ranking to a page that asks not to be indexed: neither may show up in search results."
            }
            FindingKind::CanonicalLoop => {
                "Canonicals that point at each other name no page to index, so search engines choose one themselves, or none."
            }
            FindingKind::ConflictingCanonicals => {
                "With more than one canonical, search engines ignore them all and pick the URL to index themselves."
            }
            FindingKind::InvalidCanonical => {
                "A canonical that is not a valid web address is ignored, so the page has no canonical at all."
            }
            FindingKind::OffSiteCanonical => {
                "The page tells search engines that another site holds the original, so this page is left out of the results."
            }
            FindingKind::NoindexLinked => {
                "The site links to pages it asks search engines not to index: crawl time goes to pages that will never show up."
            }
            FindingKind::BlockedLinked => {
                "The site links to URLs that robots.txt forbids: search engines may still list them, without any description."
            }
            FindingKind::TooDeep => {
                "Pages many clicks away from the home page are found late, visited rarely and ranked lower."
            }
            FindingKind::Slow => {
                "Slow pages lose visitors, and page speed counts in search rankings."
            }
            FindingKind::Large => {
                "Heavy pages load slowly on phones, and search engines may stop reading a page past a size limit."
            }
            FindingKind::MissingTitle => {
                "The title is the headline of the page in search results; without one, search engines make one up."
            }
            FindingKind::DuplicateTitle => {
                "Pages with the same title look alike in search results, and search engines struggle to tell which one to show."
            }
            FindingKind::MissingDescription => {
                "Search engines show the meta description under the title; without one they pick a snippet of text, often a poor one."
            }
            FindingKind::DuplicateDescription => {
                "The same description on several pages makes their search results look identical and less worth a click."
            }
            FindingKind::DuplicateContent => {
                "Identical pages compete with each other in search results; search engines choose one, not always the one you want."
            }
            FindingKind::MixedContent => {
                "Browsers block or warn about http resources on an https page: images go missing, scripts stop working, and the padlock disappears."
            }
            FindingKind::TitleTooLong => {
                "Search results cut long titles off at about 60 characters, so the end of the title is never read."
            }
            FindingKind::TitleTooShort => {
                "A very short title says little about the page, and wastes the most visible line of its search result."
            }
            FindingKind::DescriptionTooLong => {
                "Search results cut descriptions off at about 155 characters, so the end of the description is never shown."
            }
            FindingKind::MissingH1 => {
                "The main heading tells visitors, screen readers and search engines what the page is about."
            }
            FindingKind::MultipleH1 => {
                "Several main headings blur what the page is about for screen readers and search engines."
            }
            FindingKind::ImagesWithoutAlt => {
                "Screen readers cannot describe images without alt text, and search engines cannot tell what the images show."
            }
            FindingKind::SoftNotFound => {
                "The page says it was not found but answers as if it worked, so search engines may index an error page."
            }
            FindingKind::TrapCut => {
                "Endless URLs (calendars, repeated folders) waste crawl time; the crawl stopped following them and so may search engines."
            }
            FindingKind::HreflangNoReturn => {
                "Search engines only trust language alternates that name each other; a one-way hreflang is ignored."
            }
            FindingKind::HreflangInvalid => {
                "An hreflang code that is not a language code is ignored, so visitors may be shown the wrong language version."
            }
            FindingKind::HreflangToNonIndexable => {
                "Search engines cannot show a language version that is not indexable, so visitors of that language get no page."
            }
            FindingKind::SitemapOrphan => {
                "Pages that no link leads to are hard to find for visitors and get little weight from search engines."
            }
            FindingKind::SitemapNotIndexable => {
                "A sitemap should list only pages to index; listing others wastes crawl time and makes search engines trust the sitemap less."
            }
            FindingKind::NotInSitemap => {
                "Pages missing from the sitemap may be found later, or not at all, by search engines."
            }
            FindingKind::SitemapUnreadable => {
                "The address answers, but not with a sitemap search engines can read (HTML, broken XML, the wrong root element, too large), so none of its pages are submitted."
            }
            FindingKind::SitemapNotFetched => {
                "Search engines that look for the sitemap where it is named get an error or no answer, so it submits nothing, and they report it as a sitemap that could not be fetched."
            }
            FindingKind::SitemapOnOtherSite => {
                "Search engines accept a sitemap on another host only for the hosts whose robots.txt names it, or when both hosts are verified in the same Search Console account; sitemapper does not read it, so its URLs were not compared with the crawl."
            }
            FindingKind::RenderedDiffers => {
                "Search engines may read the page before or after its scripts run; when the two disagree, which one counts is a gamble."
            }
            FindingKind::RenderIncomplete => {
                "The page did not finish building in a browser, so what search engines see of it may be incomplete."
            }
            FindingKind::NoRobotsTxt => {
                "Without robots.txt, search engines crawl everything, and have no file to find the sitemap from."
            }
            FindingKind::NoSitemap => {
                "A sitemap tells search engines which pages exist and when they changed; without one, they rely on links alone."
            }
            FindingKind::SitemapNotInRobots => {
                "Search engines look for sitemaps in robots.txt; one it does not name may be found late or not at all."
            }
            FindingKind::StructuredDataInvalidJson => {
                "Search engines skip a block of structured data they cannot parse, and with it every rich result it describes."
            }
            FindingKind::StructuredDataCut => {
                "Browsers stop nesting elements 512 deep and attach the rest higher up, so the page does not show as written; the audit reads no microdata past that point, and search engines may not either."
            }
            FindingKind::RichResultMissingRequired => {
                "Without the properties a rich result requires, the page is not eligible for it: search shows a plain result instead of stars, prices, dates or a video thumbnail."
            }
            FindingKind::RichResultMissingRecommended => {
                "The page can show as a rich result without them, but a plainer one: recommended properties add details that make the result stand out."
            }
            FindingKind::StructuredDataInvalidDate => {
                "Search engines cannot read a date that is not in ISO 8601, so the result shows no date or a wrong one, and an event or job may not show at all."
            }
            FindingKind::StructuredDataInvalidUrl => {
                "A relative URL, or one that is not http(s), in structured data may be read against the wrong address or dropped, and the image or page it names left out."
            }
            FindingKind::VideoEntryIncomplete => {
                "A video sitemap entry needs a thumbnail, a title, a description and the video file or a player; without them the video is left out of the sitemap (--video) and may not show in video results."
            }
            FindingKind::BrokenImage => {
                "Visitors see a gap or a broken-image icon where the picture should be, and image search cannot list it."
            }
            FindingKind::BrokenScript => {
                "A script that does not load leaves menus, forms or whole pages not working, and pages that scripts draw may show search engines nothing."
            }
            FindingKind::BrokenStylesheet => {
                "Without its style sheet a page shows unstyled, and search engines judging the page as visitors see it may take it for a broken one."
            }
            FindingKind::BrokenFrame => "The frame shows an error page inside the page around it.",
            FindingKind::NofollowInternal => {
                "nofollow on links to the site's own pages tells search engines not to follow them: the pages linked get less of the site's weight, and may be found late or not at all."
            }
            FindingKind::DeadEnd => {
                "A page with no links out leaves visitors nowhere to go but back, and passes nothing on to the rest of the site."
            }
            FindingKind::HeavyPage => {
                "Everything a page loads has to come down before it is usable: heavy pages are slow on phones and cost visitors on metered data."
            }
            FindingKind::LargeImage => {
                "Big image files are the most common reason pages load slowly."
            }
            FindingKind::ImageLargerThanShown => {
                "The browser downloads every pixel of the file and throws most of them away: the page loads slower than it needs to."
            }
            FindingKind::ImagesWithoutDimensions => {
                "Without width and height the browser does not know how much room an image takes until it loads, and the text jumps as images arrive (layout shift, a Core Web Vital)."
            }
            FindingKind::Uncompressed => {
                "HTML compresses to a fraction of its size: sent uncompressed, every page takes longer to arrive."
            }
            FindingKind::RenderBlockingScripts => {
                "The browser stops drawing the page until each of these scripts has loaded and run."
            }
            FindingKind::NoViewport => {
                "Without a viewport, phones show the page as a shrunken desktop page; search engines rank pages by how they work on phones."
            }
            FindingKind::ZoomDisabled => {
                "Visitors who need larger text cannot zoom the page in on a phone."
            }
            FindingKind::NoLang => {
                "Screen readers use the page's language to pronounce it, browsers to offer a translation, and search engines as one sign of who the page is for."
            }
            FindingKind::InvalidLang => {
                "A language attribute that is not a language code is ignored, as if there were none."
            }
            FindingKind::LinksWithoutText => {
                "Screen readers announce such a link as \"link\" and nothing else, and search engines learn nothing about the page it leads to."
            }
            FindingKind::InputsWithoutLabel => {
                "Screen readers cannot say what a field is for, and clicking its label does not focus it."
            }
            FindingKind::SkippedHeadingLevel => {
                "People using screen readers move through a page by its headings; a skipped level reads as a missing section."
            }
            FindingKind::ButtonsWithoutName => {
                "Screen readers announce a button without a name as \"button\", which tells its user nothing."
            }
            FindingKind::FramesWithoutTitle => {
                "Screen readers announce frames by their title: without one, a visitor does not know what the frame holds."
            }
            FindingKind::PositiveTabindex => {
                "A tabindex above 0 moves an element ahead of the page's order for keyboard users, which is rarely what they expect."
            }
            FindingKind::OpenGraphMissing => {
                "When the page is shared on social networks and chat apps, they make up its preview, often with the wrong image or text."
            }
            FindingKind::OpenGraphIncomplete => {
                "A preview without its title, image or address looks broken, or is not shown at all."
            }
            FindingKind::TwitterCardMissing => {
                "Without twitter:card, links to the page on X (Twitter) show as a bare link instead of a card."
            }
            FindingKind::TwitterCardIncomplete => {
                "A card without a title or image cannot be drawn, and the link shows bare."
            }
            FindingKind::UrlUppercase => {
                "Servers may treat upper and lower case as different pages, so the same page can end up with two URLs; people also mistype them."
            }
            FindingKind::UrlUnderscores => {
                "Search engines read a hyphen as a space between words and an underscore as part of a word."
            }
            FindingKind::UrlSpaces => {
                "Spaces are written %20 or + in a URL: such links break when copied, and look untidy in search results."
            }
            FindingKind::UrlNonAscii => {
                "Characters outside ASCII are percent-encoded on the wire, and some tools and servers handle them inconsistently."
            }
            FindingKind::UrlTooLong => {
                "Long URLs are cut in search results, hard to share and often a sign of parameters that make duplicates."
            }
            FindingKind::UrlManyParameters => {
                "URLs with many parameters often make endless combinations of the same content, which waste crawl budget."
            }
            FindingKind::UrlMultipleSlashes => {
                "Servers often answer a URL with // as if it had one slash, so the same page has two URLs."
            }
            FindingKind::ThinPage => {
                "Pages with little text give search engines little to rank, and many of them make a site look thin."
            }
            FindingKind::NearDuplicate => {
                "Pages that say nearly the same compete with each other in search results, and search engines may pick the wrong one or neither."
            }
            FindingKind::DescriptionTooShort => {
                "A short description says little under the title in search results, and search engines often replace it."
            }
            FindingKind::H1TooLong => {
                "The main heading is one of the strongest signs of what a page is about: a long one dilutes it."
            }
            FindingKind::MultipleTitles => {
                "With more than one <title>, browsers and search engines use the first, which may not be the one meant."
            }
            FindingKind::MultipleDescriptions => {
                "With more than one meta description, search engines pick one, or none."
            }
            FindingKind::NoDoctype => {
                "Without a doctype, browsers lay the page out in quirks mode, with old rules that break modern CSS in small ways."
            }
            FindingKind::DeprecatedHtml => {
                "Elements dropped from HTML may stop working in browsers, and say nothing about the page's structure."
            }
            FindingKind::MetaRefresh => {
                "A timed refresh moves visitors on before they have read the page, and search engines treat it as a weak redirect."
            }
            FindingKind::MissingCanonical => {
                "A canonical on every page protects it from duplicates made by parameters, tracking tags or mixed case."
            }
            FindingKind::RelativeCanonical => {
                "A relative canonical is read against the address the page was fetched from, which may be a duplicate URL itself."
            }
            FindingKind::NoHsts => {
                "Without HSTS, a visitor who types the address or follows an old http link makes a first request over plain http, which an attacker on the network can intercept."
            }
            FindingKind::HttpLinks => {
                "A link to the http address sends visitors over an unencrypted connection first (or through an extra redirect), and splits the signals between two versions of the page."
            }
            FindingKind::FormOnHttp => {
                "What visitors type into the form (passwords, addresses) travels unencrypted, and browsers warn them."
            }
            FindingKind::HttpNotRedirected => {
                "Visitors and search engines reaching the http address stay on an unencrypted copy of the site, which also splits its links between two versions."
            }
            FindingKind::NoContentTypeOptions => {
                "Without nosniff, browsers may guess a file's type from its content, which lets an uploaded file run as a script."
            }
            FindingKind::NoFrameOptions => {
                "Any other site can show the pages in a frame and trick visitors into clicking through it (clickjacking)."
            }
            FindingKind::NoContentSecurityPolicy => {
                "A Content-Security-Policy limits where scripts may come from, which blunts cross-site scripting."
            }
            FindingKind::ProtocolRelativeResources => {
                "A //host/... URL loads over http on an http page and needlessly depends on the page's scheme."
            }
            FindingKind::AiCrawlers => {
                "AI assistants read the web with crawlers of their own: what robots.txt allows them decides whether the site can be quoted or used for training. Not a fault either way."
            }
            FindingKind::LlmsTxt => {
                "/llms.txt is a proposed file that points AI assistants to a site's most useful pages, in Markdown. Not a fault either way."
            }
        }
    }

    /// How to fix it.
    pub fn fix(self) -> &'static str {
        match self {
            FindingKind::BrokenLink => {
                "Point the links on the listed pages at a working page, or restore the missing page (or redirect it to its replacement)."
            }
            FindingKind::RedirectLoop => {
                "Change the redirect rules so that the chain ends on a page that answers 200."
            }
            FindingKind::RedirectChain => {
                "Redirect the first URL straight to the final page, and update links to point at the final page."
            }
            FindingKind::LinkToRedirect => {
                "Update the links on the listed pages to point at the redirect's final URL."
            }
            FindingKind::OutboundBroken => {
                "Point the links on the listed pages at the page's new address on the other site, or at another source, or remove them."
            }
            FindingKind::OutboundBlocked => {
                "Open the link in a browser: if it works, nothing needs doing; if not, fix it as a broken link."
            }
            FindingKind::OutboundRedirected => {
                "Update the links on the listed pages to point at the address the redirect ends on."
            }
            FindingKind::CanonicalToBroken => {
                "Point the canonical at a working page, usually the page itself, or fix the page it names."
            }
            FindingKind::CanonicalToRedirect => {
                "Point the canonical at the final URL of the redirect."
            }
            FindingKind::CanonicalToDisallowed => {
                "Point the canonical at a crawlable page, or allow its target in robots.txt."
            }
            FindingKind::CanonicalToNoindex => {
                "Point the canonical at an indexable page, or remove the noindex from its target."
            }
            FindingKind::CanonicalLoop => {
                "Choose the one URL to index and make every page of the loop name it as canonical."
            }
            FindingKind::ConflictingCanonicals => {
                "Keep one canonical per page: check the HTML head and the Link HTTP header, and plugins that add their own."
            }
            FindingKind::InvalidCanonical => {
                "Write the canonical as a full https:// address of the page to index."
            }
            FindingKind::OffSiteCanonical => {
                "If this site holds the original, point the canonical at the page itself; if not, nothing to do."
            }
            FindingKind::NoindexLinked => {
                "Remove the noindex if the page should be found, or stop linking to it if it should not."
            }
            FindingKind::BlockedLinked => {
                "Allow the URL in robots.txt if it should be found, or remove the links to it."
            }
            FindingKind::TooDeep => {
                "Link to these pages from the home page, the menus, category pages or related pages."
            }
            FindingKind::Slow => {
                "Cache the pages, speed up the server or the database queries behind them, or serve them from a CDN."
            }
            FindingKind::Large => {
                "Move inline scripts, styles and data into separate cached files, and split very long pages."
            }
            FindingKind::MissingTitle => {
                "Give each page a unique <title> that says what it offers."
            }
            FindingKind::DuplicateTitle => {
                "Write a distinct title for each page; if the pages are the same, choose one with a canonical."
            }
            FindingKind::MissingDescription => {
                "Write a meta description of one or two sentences that makes people want to click."
            }
            FindingKind::DuplicateDescription => "Write a distinct description for each page.",
            FindingKind::DuplicateContent => {
                "Keep one version and redirect the others to it, or name it as the canonical on the copies."
            }
            FindingKind::MixedContent => {
                "Load every resource over https: change the http:// addresses, or serve them from a host that supports https."
            }
            FindingKind::TitleTooLong => {
                "Shorten the title to 60 characters or fewer, with the important words first."
            }
            FindingKind::TitleTooShort => {
                "Write a title of 30 to 60 characters that describes the page."
            }
            FindingKind::DescriptionTooLong => {
                "Shorten the description to 155 characters or fewer."
            }
            FindingKind::MissingH1 => {
                "Give the page one <h1> with its main subject, usually close to its title."
            }
            FindingKind::MultipleH1 => {
                "Keep one <h1> for the page's main subject, and make the other headings <h2> or lower."
            }
            FindingKind::ImagesWithoutAlt => {
                "Add an alt attribute describing each image; use alt=\"\" for purely decorative images."
            }
            FindingKind::SoftNotFound => {
                "Make pages that do not exist answer with the HTTP status 404 (or 410), or redirect them to a real page."
            }
            FindingKind::TrapCut => {
                "Stop generating endless links (add nofollow or a limit to calendars and filters), or block them in robots.txt."
            }
            FindingKind::HreflangNoReturn => {
                "Add the matching hreflang link on the alternate page, pointing back to this one."
            }
            FindingKind::HreflangInvalid => {
                "Use ISO 639-1 language codes, optionally with an ISO 3166-1 region (en, en-GB), or x-default."
            }
            FindingKind::HreflangToNonIndexable => {
                "Point the hreflang at the indexable version of the alternate page, or make that page indexable."
            }
            FindingKind::SitemapOrphan => {
                "Link to these pages from related pages or menus, or remove them from the sitemap if they are obsolete."
            }
            FindingKind::SitemapNotIndexable => {
                "Remove these URLs from the sitemap, or make them indexable pages that answer 200."
            }
            FindingKind::NotInSitemap => {
                "Add the pages to the sitemap, or regenerate the sitemap from a full crawl."
            }
            FindingKind::SitemapUnreadable => {
                "Make the sitemap answer 200 with valid sitemap XML (gzip allowed) at the address given."
            }
            FindingKind::SitemapNotFetched => {
                "Publish the sitemap at the address robots.txt names (answering 200 to search engines, not disallowed by robots.txt), or correct the Sitemap: line."
            }
            FindingKind::SitemapOnOtherSite => {
                "Nothing to do if the other host is yours and robots.txt names the sitemap; otherwise publish a sitemap on this site and name it in robots.txt. To compare the sitemap with a crawl, audit the host it is on."
            }
            FindingKind::RenderedDiffers => {
                "Put the canonical and robots directives in the HTML the server sends, and keep scripts from changing them."
            }
            FindingKind::RenderIncomplete => {
                "Make the page finish loading sooner: fewer blocking scripts, no endless polling, and content in the HTML where possible."
            }
            FindingKind::NoRobotsTxt => {
                "Publish a robots.txt at the site's root, with at least a Sitemap: line naming the sitemap."
            }
            FindingKind::NoSitemap => {
                "Publish a sitemap (sitemapper crawl writes one) and name it in robots.txt with a Sitemap: line."
            }
            FindingKind::SitemapNotInRobots => {
                "Add a Sitemap: line with the sitemap's full URL to robots.txt."
            }
            FindingKind::StructuredDataInvalidJson => {
                "Fix the JSON at the block, line and column given (a missing comma or quote, a trailing comma), and check it with Google's Rich Results Test."
            }
            FindingKind::StructuredDataCut => {
                "Close the elements the page's template leaves open (an unclosed <div> in a loop nests every later item inside the one before), so that it nests a few dozen levels deep at most."
            }
            FindingKind::RichResultMissingRequired => {
                "Add the properties named to the item in the page's structured data, with the values the page shows."
            }
            FindingKind::RichResultMissingRecommended => {
                "Add the properties named where the page has the information; leave out what it does not show."
            }
            FindingKind::StructuredDataInvalidDate => {
                "Write dates as 2024-01-05, or with a time and, best, its offset from UTC as 2024-01-05T08:00:00+01:00."
            }
            FindingKind::StructuredDataInvalidUrl => {
                "Write each URL in full, starting with https:// and the host."
            }
            FindingKind::VideoEntryIncomplete => {
                "Complete the page's VideoObject (thumbnailUrl, name, description, contentUrl or embedUrl, as absolute URLs), or give the <video> a poster, a src and a title and the page a meta description."
            }
            FindingKind::BrokenImage => {
                "Restore the image at that address, or point the pages that show it at a working file."
            }
            FindingKind::BrokenScript => {
                "Restore the script at that address, or point the pages that load it at the right file (often a file renamed by a new build)."
            }
            FindingKind::BrokenStylesheet => {
                "Restore the style sheet at that address, or point the pages that load it at the right file."
            }
            FindingKind::BrokenFrame => "Point the frame at a working page, or remove it.",
            FindingKind::NofollowInternal => {
                "Remove rel=nofollow from links to the site's own pages; keep pages out of search results with noindex instead."
            }
            FindingKind::DeadEnd => "Add the site's navigation, or links to related pages.",
            FindingKind::HeavyPage => {
                "Compress and resize images, drop scripts and styles the page does not use, and load what is below the fold lazily."
            }
            FindingKind::LargeImage => {
                "Save the image at the size it is shown, in a modern format (WebP, AVIF), with compression."
            }
            FindingKind::ImageLargerThanShown => {
                "Serve the image at the size it is shown (twice that for sharp screens), or offer sizes with srcset."
            }
            FindingKind::ImagesWithoutDimensions => {
                "Give every <img> its width and height attributes (CSS may still scale it)."
            }
            FindingKind::Uncompressed => {
                "Turn on gzip or Brotli for HTML on the web server or CDN."
            }
            FindingKind::RenderBlockingScripts => {
                "Add defer (or async) to the scripts, or move them to the end of the body."
            }
            FindingKind::NoViewport => {
                "Add <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"> to the <head>."
            }
            FindingKind::ZoomDisabled => {
                "Remove user-scalable=no and any maximum-scale below 2 from the viewport."
            }
            FindingKind::NoLang => "Declare the language on the root element: <html lang=\"en\">.",
            FindingKind::InvalidLang => "Use a BCP 47 language code, such as en, en-GB or pt-BR.",
            FindingKind::LinksWithoutText => {
                "Give each link text, an image with alt text, or an aria-label."
            }
            FindingKind::InputsWithoutLabel => {
                "Give each field a <label for> (or put it inside a <label>), or an aria-label."
            }
            FindingKind::SkippedHeadingLevel => {
                "Use heading levels in order (an <h3> under an <h2>), and style them with CSS instead of picking a level for its size."
            }
            FindingKind::ButtonsWithoutName => {
                "Give each button text, an image with alt text, or an aria-label."
            }
            FindingKind::FramesWithoutTitle => {
                "Give each <iframe> a title that says what it shows."
            }
            FindingKind::PositiveTabindex => {
                "Use tabindex=\"0\" or -1, and put elements in the order they should be reached."
            }
            FindingKind::OpenGraphMissing => {
                "Add og:title, og:type, og:image and og:url meta tags (with property=)."
            }
            FindingKind::OpenGraphIncomplete => "Add the missing og: tags named in the detail.",
            FindingKind::TwitterCardMissing => {
                "Add <meta name=\"twitter:card\" content=\"summary_large_image\">; the title and image can come from the Open Graph tags."
            }
            FindingKind::TwitterCardIncomplete => {
                "Add twitter:title and twitter:image, or the Open Graph tags they fall back to."
            }
            FindingKind::UrlUppercase => {
                "Use lower-case URLs, and redirect the mixed-case ones to them."
            }
            FindingKind::UrlUnderscores => "Use hyphens between the words of a URL.",
            FindingKind::UrlSpaces => "Use hyphens instead of spaces in URLs.",
            FindingKind::UrlNonAscii => {
                "Use ASCII in URLs where the site's language allows it, and keep the encoding consistent in links."
            }
            FindingKind::UrlTooLong => "Use short, readable URLs.",
            FindingKind::UrlManyParameters => {
                "Keep parameters that change the content in the path, drop tracking parameters from internal links, and name the canonical URL."
            }
            FindingKind::UrlMultipleSlashes => {
                "Fix the links that build the URL, and redirect it to the one with a single slash."
            }
            FindingKind::ThinPage => {
                "Add useful content, merge the page into a related one, or mark it noindex if it is not meant to be found."
            }
            FindingKind::NearDuplicate => {
                "Merge them, make each one distinct, or name one as the canonical of the others."
            }
            FindingKind::DescriptionTooShort => {
                "Write a description of 70 to 155 characters that sums up the page."
            }
            FindingKind::H1TooLong => {
                "Keep the <h1> short and to the point; put the rest in a paragraph."
            }
            FindingKind::MultipleTitles => "Keep one <title> in the <head>.",
            FindingKind::MultipleDescriptions => "Keep one <meta name=\"description\">.",
            FindingKind::NoDoctype => "Start the page with <!DOCTYPE html>.",
            FindingKind::DeprecatedHtml => {
                "Replace them with CSS (<center>, <font>) or with current elements."
            }
            FindingKind::MetaRefresh => {
                "Use a server redirect (301) instead, or remove the refresh."
            }
            FindingKind::MissingCanonical => {
                "Add <link rel=\"canonical\" href=\"...\"> naming the page's own URL."
            }
            FindingKind::RelativeCanonical => "Use an absolute URL in the canonical.",
            FindingKind::NoHsts => {
                "Send Strict-Transport-Security: max-age=31536000 (with includeSubDomains when every subdomain is https) on the https pages."
            }
            FindingKind::HttpLinks => {
                "Link to the https address of each page (or use relative links)."
            }
            FindingKind::FormOnHttp => {
                "Send the form to an https address, and serve its page over https."
            }
            FindingKind::HttpNotRedirected => {
                "Redirect every http URL to the same URL on https, with a 301."
            }
            FindingKind::NoContentTypeOptions => {
                "Send X-Content-Type-Options: nosniff with every response."
            }
            FindingKind::NoFrameOptions => {
                "Send Content-Security-Policy: frame-ancestors 'self' (or X-Frame-Options: SAMEORIGIN)."
            }
            FindingKind::NoContentSecurityPolicy => {
                "Send a Content-Security-Policy that names the sources the site uses; start with Content-Security-Policy-Report-Only to test it."
            }
            FindingKind::ProtocolRelativeResources => "Write resource URLs with https://.",
            FindingKind::AiCrawlers => {
                "Decide what each of them may read, and say it in robots.txt with a group per user agent."
            }
            FindingKind::LlmsTxt => {
                "If assistants matter to the site, publish /llms.txt listing its key pages with a line each."
            }
        }
    }
}
