//! The videos a video sitemap would leave out: a listed page declares a video (a
//! `VideoObject`, or a `<video>` with a poster) that lacks what an entry needs. The rule
//! that decides is the one `--video` writes with (`sitemapper_extract::page_videos`).

use sitemapper_extract::{IncompleteVideo, StructuredData, VideoOrigin, page_videos};
use sitemapper_store::{RunId, Store, StoreError};

use crate::finding::{Finding, finding};
use crate::kind::FindingKind;

/// One finding per listed page with videos that cannot be entries, naming each and what
/// it lacks.
pub(crate) fn video_findings(store: &Store, run: RunId) -> Result<Vec<Finding>, StoreError> {
    let mut findings = Vec::new();
    store.for_each_listed(run, |page| -> Result<(), StoreError> {
        let Some(data) = store
            .structured_of(page.url)?
            .as_deref()
            .and_then(StructuredData::from_json)
        else {
            return Ok(());
        };
        if data.items_of("VideoObject").next().is_none() && data.videos.is_empty() {
            return Ok(());
        }
        let record = store.page(page.url)?;
        let title = record.as_ref().and_then(|record| record.title.as_deref());
        let description = record
            .as_ref()
            .and_then(|record| record.description.as_deref());
        let videos = page_videos(&data, title, description);
        if !videos.incomplete.is_empty() {
            let detail: Vec<String> = videos
                .incomplete
                .iter()
                .map(describe_incomplete_video)
                .collect();
            findings.push(finding(
                FindingKind::VideoEntryIncomplete,
                page.url,
                detail.join("; "),
            ));
        }
        Ok(())
    })?;
    Ok(findings)
}

/// `VideoObject (JSON-LD) "Launch": no description, content_loc or player_loc`.
pub fn describe_incomplete_video(video: &IncompleteVideo) -> String {
    let origin = match video.origin {
        VideoOrigin::JsonLd => "VideoObject (JSON-LD)",
        VideoOrigin::Microdata => "VideoObject (microdata)",
        VideoOrigin::Element => "<video>",
    };
    let label = video
        .label
        .as_deref()
        .map(|label| format!(" {label:?}"))
        .unwrap_or_default();
    let missing: Vec<&str> = video.missing.iter().map(|field| field.element()).collect();
    format!("{origin}{label}: no {}", missing.join(", "))
}
