//! The resources of the site its pages load, as the audit's check of each found them
//! (docs/audit.md, "Resources"): broken images, scripts, style sheets and frames, large image
//! files, and pages heavy with what they load (images much larger than shown are found with
//! the pages' signals, `page_checks.rs`). A finding about
//! a resource names the pages that load it, and weighs on them: a resource is not a page of
//! the site, and checking resources can lower the score, never raise it.

use sitemapper_store::{LinkKind, RunId, Store, StoreError};

use crate::finding::{Finding, Thresholds, finding};
use crate::kind::FindingKind;

/// The findings of the checks of `run`'s resources, with the pages that load each.
pub(crate) fn resource_findings(
    store: &Store,
    run: RunId,
    thresholds: &Thresholds,
) -> Result<Vec<Finding>, StoreError> {
    let checks = store.resource_checks(run)?;
    let mut findings = Vec::new();
    // The pages that load each resource, read at once: a site's broken logo is on every page.
    let loaded_by = store.resource_loaders(run, thresholds.large_image_bytes)?;
    let pages_of = |url: &str| loaded_by.get(url).cloned().unwrap_or_default();
    for check in &checks {
        let broken = match check.kind {
            LinkKind::ScriptFile => FindingKind::BrokenScript,
            LinkKind::Stylesheet => FindingKind::BrokenStylesheet,
            _ => FindingKind::BrokenImage,
        };
        if check.is_broken() {
            let detail = match (&check.failure, check.status) {
                (Some((_, detail)), _) => detail.clone(),
                (None, Some(status)) => format!("answers {status}"),
                (None, None) => String::new(),
            };
            findings.push(Finding {
                referrers: pages_of(&check.url),
                ..finding(broken, &check.url, detail)
            });
        } else if check.kind == LinkKind::Image
            && let Some(bytes) = check.bytes
            && bytes > thresholds.large_image_bytes
        {
            findings.push(Finding {
                referrers: pages_of(&check.url),
                ..finding(
                    FindingKind::LargeImage,
                    &check.url,
                    format!("{} KiB", bytes.div_ceil(1024)),
                )
            });
        }
    }
    if !checks.is_empty() {
        for weight in store.page_weights(run)? {
            let total = weight.html_bytes + weight.resource_bytes;
            if total > thresholds.heavy_bytes {
                findings.push(finding(
                    FindingKind::HeavyPage,
                    &weight.url,
                    format!(
                        "{} KiB: HTML {} KiB and {} resources of the site {} KiB",
                        total.div_ceil(1024),
                        weight.html_bytes.div_ceil(1024),
                        weight.resources,
                        weight.resource_bytes.div_ceil(1024)
                    ),
                ));
            }
        }
    }
    findings.extend(broken_frames(store, run)?);
    Ok(findings)
}

/// Frames of the site that failed: pages of the run a frame shows that answered 400 or more,
/// or could not be fetched.
fn broken_frames(store: &Store, run: RunId) -> Result<Vec<Finding>, StoreError> {
    let mut findings = Vec::new();
    for target in store.link_targets(run, &[LinkKind::Iframe])? {
        let Some(page) = store.page(&target)? else {
            continue;
        };
        let failed = page.status.is_some_and(|status| status >= 400)
            || page.reason == Some(sitemapper_store::Reason::FetchError);
        if !failed {
            continue;
        }
        let detail = match page.status {
            Some(status) => format!("answers {status}"),
            None => page.detail.clone().unwrap_or_default(),
        };
        findings.push(Finding {
            referrers: store.link_sources(run, &target, &[LinkKind::Iframe])?,
            ..finding(FindingKind::BrokenFrame, &target, detail)
        });
    }
    Ok(findings)
}
