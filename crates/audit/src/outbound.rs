//! Links to other sites (docs/audit.md, Outbound links): what the check of each outbound URL,
//! kept in the crawl database, means for the site. A broken one is a warning, not an error: a
//! page that links to a page gone elsewhere is still indexed. A 429 or a 999 says nothing
//! about the link, only that the other site refuses checkers; a redirect still leads somewhere.

use sitemapper_store::{
    FailureKind, LinkKind, OutboundCheck, OutboundLink, OutboundOutcome, RunId, Store, StoreError,
};

use crate::finding::Finding;
use crate::kind::FindingKind;

/// The links whose targets outside the site are checked: those a visitor follows or sees (an
/// anchor, an image, a frame, a refresh). A canonical or an alternate to another site is a
/// statement about this site's pages, which their own findings judge.
pub const OUTBOUND_LINK_KINDS: [LinkKind; 4] = [
    LinkKind::Anchor,
    LinkKind::Image,
    LinkKind::Iframe,
    LinkKind::Refresh,
];

/// What the check of an outbound URL says of it, in one word for the report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum OutboundResult {
    /// It answered a success (or another answer that is not an error) at its own URL.
    Working,
    /// It answered, at the end of redirects, with no error.
    Redirected,
    /// It answered 400 or more, got no answer, or redirects nowhere.
    Broken,
    /// It answered 429 or 999: the other site refuses checks.
    Blocked,
    /// robots.txt of its host disallows checking it.
    Disallowed,
    /// Not checked: the audit did not get to it, or the address policy refused it (a
    /// private address linked from a public site).
    NotChecked,
}

impl OutboundResult {
    /// Every result, in declaration order.
    pub const ALL: [OutboundResult; 6] = [
        OutboundResult::Working,
        OutboundResult::Redirected,
        OutboundResult::Broken,
        OutboundResult::Blocked,
        OutboundResult::Disallowed,
        OutboundResult::NotChecked,
    ];

    /// What `check` of `url` found; `None`: not checked.
    pub fn of(url: &str, check: Option<&OutboundCheck>) -> OutboundResult {
        let Some(check) = check else {
            return OutboundResult::NotChecked;
        };
        match &check.outcome {
            OutboundOutcome::Answered { status } if is_blocking(*status) => OutboundResult::Blocked,
            OutboundOutcome::Answered { status } if *status >= 400 => OutboundResult::Broken,
            OutboundOutcome::Answered { .. } => {
                if check
                    .final_url
                    .as_deref()
                    .is_some_and(|final_url| final_url != url)
                {
                    OutboundResult::Redirected
                } else {
                    OutboundResult::Working
                }
            }
            OutboundOutcome::Failed {
                failure: FailureKind::Refused,
                ..
            } => OutboundResult::NotChecked,
            OutboundOutcome::Failed {
                failure:
                    FailureKind::Timeout | FailureKind::Connect | FailureKind::Body | FailureKind::Other,
                ..
            }
            | OutboundOutcome::UnusableRedirect { .. }
            | OutboundOutcome::TooManyRedirects => OutboundResult::Broken,
            OutboundOutcome::Disallowed => OutboundResult::Disallowed,
        }
    }

    /// The word the report and outbound.csv use.
    pub fn as_str(self) -> &'static str {
        match self {
            OutboundResult::Working => "ok",
            OutboundResult::Redirected => "redirected",
            OutboundResult::Broken => "broken",
            OutboundResult::Blocked => "blocked",
            OutboundResult::Disallowed => "disallowed by robots.txt",
            OutboundResult::NotChecked => "not checked",
        }
    }

    /// The finding it is, if any.
    fn finding_kind(self) -> Option<FindingKind> {
        match self {
            OutboundResult::Broken => Some(FindingKind::OutboundBroken),
            OutboundResult::Blocked => Some(FindingKind::OutboundBlocked),
            OutboundResult::Redirected => Some(FindingKind::OutboundRedirected),
            OutboundResult::Working | OutboundResult::Disallowed | OutboundResult::NotChecked => {
                None
            }
        }
    }
}

/// 429 Too Many Requests (RFC 6585 section 4), and the 999 some large sites answer to any
/// client that is not a browser.
fn is_blocking(status: u16) -> bool {
    matches!(status, 429 | 999)
}

/// The findings of the outbound links of `run`, each naming the pages that link there.
pub(crate) fn outbound_findings(store: &Store, run: RunId) -> Result<Vec<Finding>, StoreError> {
    let links = store.outbound_links(run)?;
    if links.is_empty() {
        return Ok(Vec::new());
    }
    let mut referrers = store.outbound_referrers(run, &OUTBOUND_LINK_KINDS)?;
    Ok(links
        .iter()
        .filter_map(|link| {
            let check = link.check.as_ref()?;
            let kind = OutboundResult::of(&link.url, Some(check)).finding_kind()?;
            Some(Finding {
                kind,
                url: link.url.clone(),
                detail: detail(link, check),
                referrers: referrers.remove(&link.url).unwrap_or_default(),
            })
        })
        .collect())
}

/// What the check found, in words, with where the redirects led.
fn detail(link: &OutboundLink, check: &OutboundCheck) -> String {
    let final_url = check
        .final_url
        .as_deref()
        .filter(|final_url| *final_url != link.url);
    let said = match &check.outcome {
        OutboundOutcome::Answered { status } => format!("answered {status}"),
        OutboundOutcome::Failed { detail, .. } => format!("no answer: {detail}"),
        OutboundOutcome::UnusableRedirect { status } => {
            format!("answered {status} without a usable Location")
        }
        OutboundOutcome::TooManyRedirects => "too many redirects".to_string(),
        OutboundOutcome::Disallowed => "disallowed by robots.txt".to_string(),
    };
    match final_url {
        Some(final_url) => format!("redirects to {final_url}, which {said}"),
        None => said,
    }
}

#[cfg(test)]
mod tests {
    use jiff::Timestamp;

    use super::*;

    fn check(outcome: OutboundOutcome, final_url: Option<&str>) -> OutboundCheck {
        OutboundCheck {
            outcome,
            final_url: final_url.map(str::to_string),
            checked_at: Timestamp::UNIX_EPOCH,
        }
    }

    #[test]
    fn each_outcome_is_one_result() {
        let url = "https://other.example/a";
        let answered = |status| OutboundOutcome::Answered { status };
        let failed = |failure| OutboundOutcome::Failed {
            failure,
            detail: String::new(),
        };
        for (outcome, final_url, expected) in [
            (answered(200), None, OutboundResult::Working),
            (answered(200), Some(url), OutboundResult::Working),
            (
                answered(204),
                Some("https://x.example/"),
                OutboundResult::Redirected,
            ),
            (
                answered(404),
                Some("https://x.example/"),
                OutboundResult::Broken,
            ),
            (answered(500), None, OutboundResult::Broken),
            (answered(429), None, OutboundResult::Blocked),
            (answered(999), None, OutboundResult::Blocked),
            (failed(FailureKind::Timeout), None, OutboundResult::Broken),
            (failed(FailureKind::Connect), None, OutboundResult::Broken),
            (
                failed(FailureKind::Refused),
                None,
                OutboundResult::NotChecked,
            ),
            (
                OutboundOutcome::TooManyRedirects,
                None,
                OutboundResult::Broken,
            ),
            (
                OutboundOutcome::Disallowed,
                None,
                OutboundResult::Disallowed,
            ),
        ] {
            let check = check(outcome.clone(), final_url);
            assert_eq!(
                OutboundResult::of(url, Some(&check)),
                expected,
                "{outcome:?} {final_url:?}"
            );
        }
        assert_eq!(OutboundResult::of(url, None), OutboundResult::NotChecked);
    }

    #[test]
    fn the_detail_names_where_the_redirects_end() {
        let link = OutboundLink {
            url: "https://other.example/old".to_string(),
            check: None,
            from_cache: false,
        };
        let moved = check(
            OutboundOutcome::Answered { status: 200 },
            Some("https://other.example/new"),
        );
        assert_eq!(
            detail(&link, &moved),
            "redirects to https://other.example/new, which answered 200"
        );
        let gone = check(OutboundOutcome::Answered { status: 404 }, None);
        assert_eq!(detail(&link, &gone), "answered 404");
    }
}
