//! The findings the crawl database supports on its own: status, redirects, canonicals, page
//! facts, duplicates, mixed content and hreflang.

use std::collections::BTreeMap;

use sitemapper_sitemap::is_valid_hreflang;
use sitemapper_store::{
    LinkKind, PageRecord, Reason, Rendering, RunId, ServedDifference, Store, StoreError, Verdict,
};

use crate::finding::{Finding, Thresholds, finding};
use crate::kind::FindingKind;
use crate::on_page::{self, trim_spaces};
use crate::page_checks::SiteSignals;

/// Every finding the crawl database supports for `run`, with the pages that link to the URLs
/// of link findings.
pub(crate) fn site_findings(
    store: &Store,
    run: RunId,
    thresholds: &Thresholds,
    site: &str,
) -> Result<Vec<Finding>, StoreError> {
    let mut pages = Pages::read(store, run, thresholds)?;
    let mut findings = Vec::new();
    std::mem::take(&mut pages.signals).finish(
        site.starts_with("https://"),
        thresholds.near_duplicate_bits,
        &mut findings,
    );
    status_findings(store, run, &pages.troubled, &mut findings)?;
    redirect_findings(store, run, &pages.redirects, &mut findings)?;
    canonical_findings(store, &pages.canonical, &mut findings)?;
    findings.extend(pages.findings);
    duplicate_findings(&pages.duplicates, &mut findings);
    hreflang_findings(store, run, &mut findings)?;
    for finding in &mut findings {
        if finding.referrers.is_empty() && finding.kind.links_matter() {
            finding.referrers = store.referrers(run, &finding.url)?;
        }
    }
    Ok(findings)
}

/// A page that failed, is noindex, blocked or cut from a trap.
struct Troubled {
    url: String,
    depth: u32,
    reason: Option<Reason>,
    detail: Option<String>,
}

/// What one pass over the pages of a run gathers, in URL order.
#[derive(Default)]
struct Pages {
    /// Pages that failed, are noindex, blocked or cut from a trap.
    troubled: Vec<Troubled>,
    /// `url -> target` of the redirects.
    redirects: BTreeMap<String, String>,
    /// Pages whose canonical named another URL: `(url, reason, target)`.
    canonical: Vec<(String, Option<Reason>, Option<String>)>,
    /// The findings a page supports by itself.
    findings: Vec<Finding>,
    /// Trimmed title, description and fingerprint of the listed pages -> their URLs.
    duplicates: [BTreeMap<String, Vec<String>>; 3],
    /// What the checks that span pages gather.
    signals: SiteSignals,
}

impl Pages {
    fn read(store: &Store, run: RunId, thresholds: &Thresholds) -> Result<Pages, StoreError> {
        let image_widths = store
            .resource_checks(run)?
            .into_iter()
            .filter_map(|check| Some((check.url, check.width?)))
            .collect();
        let mut pages = Pages {
            signals: SiteSignals::with_image_widths(image_widths),
            ..Pages::default()
        };
        store.for_each_page(run, |page, _| -> Result<(), StoreError> {
            pages.add(page, thresholds);
            Ok(())
        })?;
        Ok(pages)
    }

    fn add(&mut self, page: PageRecord, thresholds: &Thresholds) {
        let troubled = page.status.is_some_and(|status| status >= 400)
            || page.reason.is_some_and(|reason| {
                reason.is_trap()
                    || matches!(
                        reason,
                        Reason::FetchError | Reason::NoIndex | Reason::RobotsDisallowed
                    )
            });
        if troubled {
            self.troubled.push(Troubled {
                url: page.url.clone(),
                depth: page.depth,
                reason: page.reason,
                detail: page.detail.clone(),
            });
        }
        if page.verdict == Verdict::Redirect
            && let Some(target) = &page.target
        {
            self.redirects.insert(page.url.clone(), target.clone());
        }
        let canonical_elsewhere = page.verdict == Verdict::Canonicalised
            || matches!(
                page.reason,
                Some(Reason::BrokenCanonical | Reason::CanonicalLoop | Reason::CanonicalOutOfScope)
            );
        if canonical_elsewhere {
            self.canonical
                .push((page.url.clone(), page.reason, page.target.clone()));
        }
        for hint in &page.ignored_hints {
            let kind = match hint {
                sitemapper_store::IgnoredHint::InvalidCanonical(_) => FindingKind::InvalidCanonical,
                sitemapper_store::IgnoredHint::ConflictingCanonicals(_) => {
                    FindingKind::ConflictingCanonicals
                }
            };
            self.findings
                .push(finding(kind, &page.url, hint.to_string()));
        }
        self.add_rendering(&page);
        if page.html_ok {
            self.add_page_facts(&page, thresholds);
            on_page::check(&page, thresholds, &mut self.findings);
            self.signals.check(&page, thresholds, &mut self.findings);
        }
        if page.verdict == Verdict::Indexable {
            // A fingerprint matches only one of its own version (a page answering 304 keeps
            // the one it was recorded with).
            let fingerprint = page
                .fingerprint
                .as_ref()
                .map(|fingerprint| format!("{}:{}", fingerprint.version, fingerprint.hex));
            let values = [
                page.title.as_deref().map(trim_spaces),
                page.description.as_deref().map(trim_spaces),
                fingerprint.as_deref(),
            ];
            for (groups, value) in self.duplicates.iter_mut().zip(values) {
                if let Some(value) = value.filter(|value| !value.is_empty()) {
                    groups
                        .entry(value.to_string())
                        .or_default()
                        .push(page.url.clone());
                }
            }
        }
    }

    /// A rendering that did not finish; what the HTML as served says otherwise than the
    /// rendered DOM search engines act on.
    fn add_rendering(&mut self, page: &PageRecord) {
        if let Some(rendering @ (Rendering::TimedOut | Rendering::Failed)) = page.rendering {
            let detail = format!("{rendering}: the HTML as served was read");
            self.findings
                .push(finding(FindingKind::RenderIncomplete, &page.url, detail));
        }
        let differences: Vec<String> = page
            .served_differences
            .iter()
            .map(|difference| {
                let rendered = match difference {
                    ServedDifference::Canonical(_) => match &page.canonical {
                        Some(canonical) => format!("canonical {canonical}"),
                        None => "no canonical".to_string(),
                    },
                    ServedDifference::Noindex(true) => "indexable".to_string(),
                    ServedDifference::Noindex(false) => "noindex".to_string(),
                };
                format!("{difference}, {rendered} once rendered")
            })
            .collect();
        if !differences.is_empty() {
            self.findings.push(finding(
                FindingKind::RenderedDiffers,
                &page.url,
                differences.join("; "),
            ));
        }
    }

    /// Speed and size of every HTML page; depth, title and description of the listed ones.
    fn add_page_facts(&mut self, page: &PageRecord, thresholds: &Thresholds) {
        let elapsed_ms = page.elapsed_ms.unwrap_or(0);
        if elapsed_ms > thresholds.slow_ms {
            self.findings.push(finding(
                FindingKind::Slow,
                &page.url,
                format!("answered in {elapsed_ms} ms"),
            ));
        }
        let body_bytes = page.body_bytes.unwrap_or(0);
        if page.truncated || body_bytes > thresholds.large_bytes {
            let cut = if page.truncated {
                ", cut at the body cap"
            } else {
                ""
            };
            self.findings.push(finding(
                FindingKind::Large,
                &page.url,
                format!("{}{cut}", size_text(body_bytes)),
            ));
        }
        if page.verdict != Verdict::Indexable {
            return;
        }
        if page.depth > thresholds.max_depth {
            self.findings.push(finding(
                FindingKind::TooDeep,
                &page.url,
                format!("{} clicks from the start page", page.depth),
            ));
        }
    }
}

/// Broken link targets, and noindex or blocked URLs the site links to, and trap cuts.
fn status_findings(
    store: &Store,
    run: RunId,
    troubled: &[Troubled],
    findings: &mut Vec<Finding>,
) -> Result<(), StoreError> {
    for Troubled {
        url,
        depth,
        reason,
        detail,
    } in troubled
    {
        let referrers = store.referrers(run, url)?;
        let kind = match reason {
            Some(Reason::NoIndex) => FindingKind::NoindexLinked,
            Some(Reason::RobotsDisallowed) => FindingKind::BlockedLinked,
            Some(reason) if reason.is_trap() => FindingKind::TrapCut,
            _ => FindingKind::BrokenLink,
        };
        // A noindex or blocked URL is only a finding when the site links to it. A broken URL
        // that no link or redirect leads to was reached through a canonical or an alternate:
        // the findings about those name it. The start page stands alone.
        let unlinked = match kind {
            FindingKind::NoindexLinked | FindingKind::BlockedLinked => referrers.is_empty(),
            FindingKind::BrokenLink => {
                referrers.is_empty() && *depth > 0 && !store.is_redirect_target(run, url)?
            }
            _ => false,
        };
        if unlinked {
            continue;
        }
        // A URL only frames show is a broken frame (`resources.rs`), not a broken link.
        if kind == FindingKind::BrokenLink
            && !referrers.is_empty()
            && store
                .link_sources(
                    run,
                    url,
                    &[LinkKind::Anchor, LinkKind::Refresh, LinkKind::Script],
                )?
                .is_empty()
            && !store
                .link_sources(run, url, &[LinkKind::Iframe])?
                .is_empty()
        {
            continue;
        }
        let code = reason.map(|reason| reason.code()).unwrap_or_default();
        let detail = match (kind, detail.as_deref().filter(|text| !text.is_empty())) {
            (FindingKind::BrokenLink, Some(detail)) => format!("{code}: {detail}"),
            _ => code.into_owned(),
        };
        findings.push(Finding {
            kind,
            url: url.clone(),
            detail,
            referrers,
        });
    }
    Ok(())
}

/// Redirect loops, chains of more than one hop, and links that go through a redirect.
fn redirect_findings(
    store: &Store,
    run: RunId,
    targets: &BTreeMap<String, String>,
    findings: &mut Vec<Finding>,
) -> Result<(), StoreError> {
    for start in targets.keys() {
        let mut chain = vec![start.as_str()];
        let mut looped = false;
        while let Some(next) = chain.last().and_then(|last| targets.get(*last)) {
            looped = chain.contains(&next.as_str());
            chain.push(next);
            if looped {
                break;
            }
        }
        let referrers = store.referrers(run, start)?;
        let hops = chain.len() - 1;
        if looped {
            findings.push(Finding {
                referrers: referrers.clone(),
                ..finding(FindingKind::RedirectLoop, start, chain.join(" -> "))
            });
        } else if hops > 1 {
            findings.push(Finding {
                referrers: referrers.clone(),
                ..finding(
                    FindingKind::RedirectChain,
                    start,
                    format!("{hops} hops: {}", chain.join(" -> ")),
                )
            });
        }
        if !referrers.is_empty() {
            findings.push(Finding {
                referrers,
                ..finding(
                    FindingKind::LinkToRedirect,
                    start,
                    format!("redirects to {}", chain.get(1).unwrap_or(&"")),
                )
            });
        }
    }
    Ok(())
}

/// Canonicals whose target did not work out, by what the target turned out to be.
fn canonical_findings(
    store: &Store,
    pages: &[(String, Option<Reason>, Option<String>)],
    findings: &mut Vec<Finding>,
) -> Result<(), StoreError> {
    for (url, reason, target_url) in pages {
        // What the target turned out to be matters only to a broken or plain canonical.
        let target_page = || match target_url {
            Some(target) => store.page(target),
            None => Ok(None),
        };
        let target = target_url.as_deref().unwrap_or_default();
        let (kind, detail) = match reason {
            Some(Reason::CanonicalLoop) => (
                FindingKind::CanonicalLoop,
                format!("canonical {target} leads back"),
            ),
            Some(Reason::CanonicalOutOfScope) => {
                (FindingKind::OffSiteCanonical, format!("canonical {target}"))
            }
            Some(Reason::BrokenCanonical) => broken_canonical(target, target_page()?.as_ref()),
            _ if target_page()?.is_some_and(|page| page.reason == Some(Reason::NoIndex)) => (
                FindingKind::CanonicalToNoindex,
                format!("canonical {target} is noindex"),
            ),
            _ => continue,
        };
        findings.push(finding(kind, url, detail));
    }
    Ok(())
}

/// A canonical the crawl could not follow: to a redirect, a blocked URL, or a URL that did not
/// answer 200 (or was never fetched).
fn broken_canonical(target: &str, target_page: Option<&PageRecord>) -> (FindingKind, String) {
    let Some(page) = target_page else {
        return (
            FindingKind::CanonicalToBroken,
            format!("canonical {target} was not fetched (unseen)"),
        );
    };
    if page.verdict == Verdict::Redirect {
        return (
            FindingKind::CanonicalToRedirect,
            format!("canonical {target} redirects"),
        );
    }
    if page.reason == Some(Reason::RobotsDisallowed) {
        return (
            FindingKind::CanonicalToDisallowed,
            format!("canonical {target} is blocked by robots.txt"),
        );
    }
    let answer = match (page.status, page.reason) {
        (Some(status), _) => format!("answered {status}"),
        (None, Some(reason)) => format!("was not fetched ({reason})"),
        (None, None) => format!("was not fetched ({})", page.verdict),
    };
    (
        FindingKind::CanonicalToBroken,
        format!("canonical {target} {answer}"),
    )
}

/// Listed pages that share a title, a description, or their content.
fn duplicate_findings(
    duplicates: &[BTreeMap<String, Vec<String>>; 3],
    findings: &mut Vec<Finding>,
) {
    let kinds = [
        (FindingKind::DuplicateTitle, "title"),
        (FindingKind::DuplicateDescription, "description"),
        (FindingKind::DuplicateContent, "content"),
    ];
    for (groups, (kind, what)) in duplicates.iter().zip(kinds) {
        for (value, urls) in groups.iter().filter(|(_, urls)| urls.len() > 1) {
            for url in urls {
                let others: Vec<&str> = urls
                    .iter()
                    .filter(|other| *other != url)
                    .map(String::as_str)
                    .collect();
                let detail = match kind {
                    FindingKind::DuplicateContent => {
                        format!("same {what} as {}", others.join(" "))
                    }
                    _ => format!("{what} {value:?} also on {}", others.join(" ")),
                };
                findings.push(finding(kind, url, detail));
            }
        }
    }
}

/// hreflang alternates without a return link, hreflang codes that are not language codes,
/// and alternates that are not indexable.
fn hreflang_findings(
    store: &Store,
    run: RunId,
    findings: &mut Vec<Finding>,
) -> Result<(), StoreError> {
    let verdicts = store.verdicts(run)?;
    for (page, hreflang, href) in store.alternates_without_return(run)? {
        findings.push(finding(
            FindingKind::HreflangNoReturn,
            &page,
            format!("hreflang {hreflang} points to {href}, which does not link back"),
        ));
    }
    for (page, hreflang, href) in store.declared_alternates(run)? {
        if !is_valid_hreflang(&hreflang) {
            findings.push(finding(
                FindingKind::HreflangInvalid,
                &page,
                format!("hreflang {hreflang:?} (for {href}) is not a language code"),
            ));
        }
        // Only an indexable page's alternates matter: the others do not show in results.
        let indexable = |url: &str| {
            verdicts
                .get(url)
                .is_some_and(|(verdict, _)| *verdict == Verdict::Indexable)
        };
        if indexable(&page)
            && let Some((verdict, reason)) = verdicts.get(&href)
            && *verdict != Verdict::Indexable
        {
            let why = match reason {
                Some(reason) => format!("{verdict}: {reason}"),
                None => verdict.to_string(),
            };
            findings.push(finding(
                FindingKind::HreflangToNonIndexable,
                &page,
                format!("hreflang {hreflang} points to {href} ({why})"),
            ));
        }
    }
    Ok(())
}

/// A finding that names no linking pages (yet).
/// A size as people read it, and as report.html's pages table writes it: `512 B`,
/// `12.3 KiB`, `1.8 MiB` (binary units, one decimal, thousands grouped).
pub(crate) fn size_text(bytes: u64) -> String {
    const KIB: u64 = 1024;
    const MIB: u64 = 1024 * 1024;
    let (unit, divisor) = match bytes {
        0..KIB => return format!("{} B", thousands(bytes)),
        KIB..MIB => ("KiB", KIB),
        _ => ("MiB", MIB),
    };
    // Tenths, rounded half up, in integers: exact at any size.
    let tenths = (u128::from(bytes) * 10 + u128::from(divisor) / 2) / u128::from(divisor);
    let whole = u64::try_from(tenths / 10).unwrap_or(u64::MAX);
    match tenths % 10 {
        0 => format!("{} {unit}", thousands(whole)),
        tenth => format!("{}.{tenth} {unit}", thousands(whole)),
    }
}

/// `1234567` as `1,234,567`: how reports write a count.
pub fn thousands(value: u64) -> String {
    let digits = value.to_string();
    let mut grouped = String::with_capacity(digits.len() + digits.len() / 3);
    for (index, digit) in digits.chars().enumerate() {
        if index > 0 && (digits.len() - index).is_multiple_of(3) {
            grouped.push(',');
        }
        grouped.push(digit);
    }
    grouped
}
