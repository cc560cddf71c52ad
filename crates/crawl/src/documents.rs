//! Linked documents (docs/design.md, Documents): PDF and office files listed in the sitemap
//! under their own URLs, as search engines index them, when the crawl selects their types.
//!
//! A link whose path ends in a selected extension is a candidate: it is asked with HEAD
//! (RFC 9110 section 9.3.2: a GET's answer without its body), and asked again with a GET when
//! the HEAD is refused (`refuses_head`, the rule of the outbound links' check) or answers a
//! page, whose body is then read as any page's. A document's body is never read: its headers
//! say all the crawl needs. A response of a selected type is a document wherever its URL came
//! from, and its rules are a page's as far as headers carry them: listed when it answered 200,
//! carries no `noindex` in `X-Robots-Tag` (directives for our token included), and names no
//! other URL as canonical in a `Link` header. A document is a leaf: no links are read from it.

use std::collections::BTreeMap;
use std::sync::{Mutex, PoisonError};

use sitemapper_extract::PageFacts;
use url::Url;

use crate::classify::{Classification, canonical_verdict, distinct_canonical};
use crate::event::{Exclusion, PageOutcome, ResponseFacts, Verdict};
use crate::fetch::is_html_content_type;
use crate::history::PreviousPage;
use crate::normalize::UrlNormalizer;
use crate::scope::Scope;

/// A type of document the crawl can list, named by its usual extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DocumentKind {
    /// Portable Document Format.
    Pdf,
    /// Word 97-2003.
    Doc,
    /// Word (Office Open XML).
    Docx,
    /// Excel 97-2003.
    Xls,
    /// Excel (Office Open XML).
    Xlsx,
    /// PowerPoint 97-2003.
    Ppt,
    /// PowerPoint (Office Open XML).
    Pptx,
    /// OpenDocument text.
    Odt,
    /// OpenDocument spreadsheet.
    Ods,
    /// OpenDocument presentation.
    Odp,
    /// Rich Text Format.
    Rtf,
}

impl DocumentKind {
    /// Every kind, in the order they are named to users.
    pub const ALL: [DocumentKind; 11] = [
        DocumentKind::Pdf,
        DocumentKind::Doc,
        DocumentKind::Docx,
        DocumentKind::Xls,
        DocumentKind::Xlsx,
        DocumentKind::Ppt,
        DocumentKind::Pptx,
        DocumentKind::Odt,
        DocumentKind::Ods,
        DocumentKind::Odp,
        DocumentKind::Rtf,
    ];

    /// Its name, which is also the extension of its URLs (compared without case).
    pub fn name(self) -> &'static str {
        match self {
            DocumentKind::Pdf => "pdf",
            DocumentKind::Doc => "doc",
            DocumentKind::Docx => "docx",
            DocumentKind::Xls => "xls",
            DocumentKind::Xlsx => "xlsx",
            DocumentKind::Ppt => "ppt",
            DocumentKind::Pptx => "pptx",
            DocumentKind::Odt => "odt",
            DocumentKind::Ods => "ods",
            DocumentKind::Odp => "odp",
            DocumentKind::Rtf => "rtf",
        }
    }

    /// The media types it is served as (IANA registrations; `application/x-pdf` and
    /// `text/rtf` are the older names servers still send).
    pub fn content_types(self) -> &'static [&'static str] {
        match self {
            DocumentKind::Pdf => &["application/pdf", "application/x-pdf"],
            DocumentKind::Doc => &["application/msword"],
            DocumentKind::Docx => {
                &["application/vnd.openxmlformats-officedocument.wordprocessingml.document"]
            }
            DocumentKind::Xls => &["application/vnd.ms-excel"],
            DocumentKind::Xlsx => {
                &["application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"]
            }
            DocumentKind::Ppt => &["application/vnd.ms-powerpoint"],
            DocumentKind::Pptx => {
                &["application/vnd.openxmlformats-officedocument.presentationml.presentation"]
            }
            DocumentKind::Odt => &["application/vnd.oasis.opendocument.text"],
            DocumentKind::Ods => &["application/vnd.oasis.opendocument.spreadsheet"],
            DocumentKind::Odp => &["application/vnd.oasis.opendocument.presentation"],
            DocumentKind::Rtf => &["application/rtf", "text/rtf"],
        }
    }

    /// The kind `name` names, without regard to case.
    pub fn named(name: &str) -> Option<DocumentKind> {
        DocumentKind::ALL
            .into_iter()
            .find(|kind| kind.name().eq_ignore_ascii_case(name.trim()))
    }
}

impl std::fmt::Display for DocumentKind {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str(self.name())
    }
}

/// The document types a crawl lists; none by default, and then nothing of this module
/// applies.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Documents {
    kinds: Vec<DocumentKind>,
}

impl Documents {
    /// The selection of `kinds`.
    pub fn new(kinds: impl IntoIterator<Item = DocumentKind>) -> Documents {
        let mut kinds: Vec<DocumentKind> = kinds.into_iter().collect();
        kinds.sort_unstable();
        kinds.dedup();
        Documents { kinds }
    }

    /// Whether no type is selected.
    pub fn is_empty(&self) -> bool {
        self.kinds.is_empty()
    }

    /// The kinds selected, in the order they are named to users.
    pub fn kinds(&self) -> &[DocumentKind] {
        &self.kinds
    }

    /// The selected kind `url`'s path ends in (`/files/report.PDF`): a candidate, asked with
    /// HEAD first.
    pub(crate) fn candidate(&self, url: &Url) -> Option<DocumentKind> {
        let name = url.path().rsplit('/').next()?;
        let (_, extension) = name.rsplit_once('.')?;
        self.kinds
            .iter()
            .copied()
            .find(|kind| kind.name().eq_ignore_ascii_case(extension))
    }

    /// The selected kind `content_type` is (its media type, any case, parameters aside).
    pub(crate) fn of_type(&self, content_type: Option<&str>) -> Option<DocumentKind> {
        let essence = content_type?.split(';').next()?.trim();
        self.kinds.iter().copied().find(|kind| {
            kind.content_types()
                .iter()
                .any(|known| known.eq_ignore_ascii_case(essence))
        })
    }

    /// The selected kind of a response that is a document the crawl may list: a 200 of a
    /// selected type.
    pub(crate) fn served(&self, response: &ResponseFacts) -> Option<DocumentKind> {
        (response.status == 200)
            .then(|| self.of_type(response.content_type.as_deref()))
            .flatten()
    }
}

/// Whether an earlier run's record of a URL may stand for it in this crawl, after a 304: a
/// page's, or a document's of a type still selected.
pub(crate) fn may_reuse(documents: &Documents, previous: &PreviousPage) -> bool {
    let content_type = previous.content_type.as_deref();
    content_type.is_some_and(is_html_content_type) || documents.of_type(content_type).is_some()
}

/// Whether the answer to a candidate's HEAD sends the crawl on to a GET of the same URL: a
/// HEAD refused rather than the document gone (`refuses_head`), or a page, whose body is
/// read.
pub(crate) fn asks_again_with_get(response: &ResponseFacts) -> bool {
    crate::link_check::refuses_head(response.status) || response.is_html_ok()
}

/// The verdict on a document from what its headers say (`facts`, read from them alone): the
/// inclusion rules of a page without a body (docs/design.md, Inclusion).
pub(crate) fn classify(
    url: &Url,
    facts: &PageFacts,
    scope: &Scope,
    normalizer: &UrlNormalizer,
) -> Classification {
    let (canonical, ignored_hints) = distinct_canonical(facts, normalizer);
    let verdict = if facts.robots.noindex {
        Verdict::Excluded(Exclusion::NoIndex)
    } else {
        canonical_verdict(url, canonical.as_ref(), scope)
    };
    Classification {
        verdict,
        canonical,
        follow_links: false,
        ignored_hints,
    }
}

/// Why a document (a candidate, or a response of a selected type) is not listed, as the
/// summary groups them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DocumentMiss {
    /// `noindex` in its `X-Robots-Tag`.
    NoIndex,
    /// Its `Link` header names another URL as canonical.
    CanonicalElsewhere,
    /// It redirects; where it leads is counted on its own.
    Redirected,
    /// An error status, or no answer.
    Broken,
    /// robots.txt disallows it.
    Disallowed,
    /// It answered a page, which was crawled as one.
    Page,
    /// It answered another type than its extension says.
    OtherType,
    /// Not requested (the request budget, a trap, a URL too long).
    NotRequested,
}

impl DocumentMiss {
    /// Its stable code, for data (the JSON summary).
    pub fn code(self) -> &'static str {
        match self {
            DocumentMiss::NoIndex => "noindex",
            DocumentMiss::CanonicalElsewhere => "canonical-elsewhere",
            DocumentMiss::Redirected => "redirected",
            DocumentMiss::Broken => "broken",
            DocumentMiss::Disallowed => "robots-disallowed",
            DocumentMiss::Page => "html-page",
            DocumentMiss::OtherType => "other-type",
            DocumentMiss::NotRequested => "not-requested",
        }
    }

    /// In words, for a summary.
    pub fn describe(self) -> &'static str {
        match self {
            DocumentMiss::NoIndex => "noindex",
            DocumentMiss::CanonicalElsewhere => "canonical elsewhere",
            DocumentMiss::Redirected => "redirected",
            DocumentMiss::Broken => "broken",
            DocumentMiss::Disallowed => "disallowed by robots.txt",
            DocumentMiss::Page => "answered HTML (crawled as a page)",
            DocumentMiss::OtherType => "of another type",
            DocumentMiss::NotRequested => "not requested",
        }
    }
}

/// What became of the documents a crawl met.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DocumentReport {
    /// Documents listed, by kind.
    pub listed: BTreeMap<DocumentKind, u64>,
    /// Documents not listed, by why.
    pub not_listed: BTreeMap<DocumentMiss, u64>,
}

/// The count of documents, kept as their outcomes are reported.
#[derive(Debug, Default)]
pub(crate) struct DocumentTally {
    report: Mutex<DocumentReport>,
}

impl DocumentTally {
    /// Counts `outcome` when it is a document's: a candidate's, or a response of a selected
    /// type.
    pub(crate) fn count(&self, documents: &Documents, outcome: &PageOutcome) {
        if outcome.replaces_earlier {
            return;
        }
        let response = outcome.response.as_ref();
        let served = response.and_then(|response| documents.served(response));
        if served.is_none() && documents.candidate(&outcome.url).is_none() {
            return;
        }
        let mut report = self.report.lock().unwrap_or_else(PoisonError::into_inner);
        if let (Verdict::Indexable, Some(kind)) = (&outcome.verdict, served) {
            *report.listed.entry(kind).or_default() += 1;
            return;
        }
        let page = response.is_some_and(ResponseFacts::is_html_ok);
        let miss = match &outcome.verdict {
            _ if page => DocumentMiss::Page,
            Verdict::Indexable => DocumentMiss::OtherType,
            Verdict::Canonicalised { .. }
            | Verdict::Excluded(Exclusion::CanonicalOutOfScope(_)) => {
                DocumentMiss::CanonicalElsewhere
            }
            Verdict::Redirect { .. } | Verdict::Excluded(Exclusion::RedirectOutOfScope(_)) => {
                DocumentMiss::Redirected
            }
            Verdict::Excluded(exclusion) => match exclusion {
                Exclusion::NoIndex => DocumentMiss::NoIndex,
                Exclusion::RobotsDisallowed(_) => DocumentMiss::Disallowed,
                Exclusion::NotHtml => DocumentMiss::OtherType,
                Exclusion::HttpStatus(_)
                | Exclusion::FetchFailed(_)
                | Exclusion::TooManyRedirects
                | Exclusion::InvalidRedirect(_) => DocumentMiss::Broken,
                Exclusion::UrlTooLong
                | Exclusion::Trap(_)
                | Exclusion::RequestBudget
                | Exclusion::CanonicalOutOfScope(_)
                | Exclusion::RedirectOutOfScope(_) => DocumentMiss::NotRequested,
            },
        };
        *report.not_listed.entry(miss).or_default() += 1;
    }

    /// What was counted.
    pub(crate) fn report(&self) -> DocumentReport {
        self.report
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classify::tests::{response, url};
    use crate::normalize::DEFAULT_STRIP_PARAMETERS;
    use crate::scope::ScopeOptions;
    use sitemapper_extract::RobotsDirectives;

    fn selected() -> Documents {
        Documents::new([DocumentKind::Pdf, DocumentKind::Docx])
    }

    #[test]
    fn candidates_are_named_by_their_paths_extension() {
        let documents = selected();
        for (text, expected) in [
            ("https://e.com/a/report.pdf", Some(DocumentKind::Pdf)),
            ("https://e.com/a/REPORT.PDF?v=2", Some(DocumentKind::Pdf)),
            ("https://e.com/letter.docx", Some(DocumentKind::Docx)),
            ("https://e.com/sheet.xlsx", None),
            ("https://e.com/pdf", None),
            ("https://e.com/pdf/", None),
            ("https://e.com/a.pdf/page", None),
            ("https://e.com/?file=a.pdf", None),
        ] {
            assert_eq!(documents.candidate(&url(text)), expected, "{text}");
        }
        assert_eq!(
            Documents::default().candidate(&url("https://e.com/a.pdf")),
            None
        );
    }

    #[test]
    fn a_document_is_a_200_of_a_selected_type() {
        let documents = selected();
        assert_eq!(
            documents.served(&response(200, "Application/PDF; qs=0.9")),
            Some(DocumentKind::Pdf)
        );
        assert_eq!(
            documents.served(&response(
                200,
                "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
            )),
            Some(DocumentKind::Docx)
        );
        assert_eq!(documents.served(&response(404, "application/pdf")), None);
        assert_eq!(documents.served(&response(200, "text/html")), None);
        assert_eq!(documents.served(&response(200, "application/msword")), None);
    }

    #[test]
    fn every_kind_is_named_by_its_name_and_has_a_type() {
        for kind in DocumentKind::ALL {
            assert_eq!(DocumentKind::named(&kind.name().to_uppercase()), Some(kind));
            assert!(!kind.content_types().is_empty(), "{kind}");
        }
        assert_eq!(DocumentKind::named("exe"), None);
    }

    #[test]
    fn a_head_refused_or_answering_a_page_is_asked_again() {
        for status in [400, 403, 405, 501] {
            assert!(asks_again_with_get(&response(status, "text/plain")));
        }
        assert!(asks_again_with_get(&response(200, "text/html")));
        assert!(!asks_again_with_get(&response(200, "application/pdf")));
        assert!(!asks_again_with_get(&response(404, "text/html")));
    }

    #[test]
    fn headers_decide_a_documents_verdict() {
        let scope = Scope::from_seed(&url("https://e.com/"), &ScopeOptions::default());
        let normalizer = UrlNormalizer::new(DEFAULT_STRIP_PARAMETERS);
        let verdict = |facts: &PageFacts| {
            classify(&url("https://e.com/a.pdf"), facts, &scope, &normalizer).verdict
        };
        assert_eq!(verdict(&PageFacts::default()), Verdict::Indexable);
        let noindex = PageFacts {
            robots: RobotsDirectives {
                noindex: true,
                nofollow: false,
            },
            ..PageFacts::default()
        };
        assert_eq!(verdict(&noindex), Verdict::Excluded(Exclusion::NoIndex));
        let canonical = PageFacts {
            canonicals: vec![url("https://e.com/b.pdf")],
            ..PageFacts::default()
        };
        assert_eq!(
            verdict(&canonical),
            Verdict::Canonicalised {
                to: url("https://e.com/b.pdf")
            }
        );
        let own = PageFacts {
            canonicals: vec![url("https://e.com/a.pdf")],
            ..PageFacts::default()
        };
        assert_eq!(verdict(&own), Verdict::Indexable);
    }
}
