//! The crawl database (SQLite, embedded): every URL a crawl saw, with its verdict and reason,
//! and the runs that saw them. The binary records crawl events here and writes the sitemap from
//! it; the store itself knows nothing of HTTP, crawling or sitemaps.

mod audits;
mod error;
mod explain;
mod extracted;
mod graph;
mod kept;
mod link_record;
mod links;
mod outbound;
mod page_rows;
mod pages;
mod record;
mod resources;
mod resume;
mod run_id;
mod runs;
mod schema;
mod script_links;
mod site;
mod sitemap_files;
mod store;
mod structured;
mod urls;
mod verdict;

pub use audits::{AUDITS_KEPT, AuditRecord, RecordedFinding};
pub use error::StoreError;
pub use explain::{Listing, PageTimes, StatusChange};
pub use extracted::{ExtractedByPage, PageExtraction};
pub use graph::DeclaredAlternate;
pub use kept::{KeptPages, TransientCause, TransientFailures};
pub use link_record::{LinkKind, LinkRecord};
pub use links::GraphLink;
pub use outbound::{OutboundCheck, OutboundLink, OutboundOutcome};
pub use record::{
    Fingerprint, HintPlaces, ListedPage, NotListedPage, PageDetails, PageRecord, ReasonCount,
};
pub use resources::{PageWeight, ResourceCheck};
pub use resume::{PendingLink, ResumeCursor};
pub use run_id::RunId;
pub use runs::{ChangeCounts, ChangeReport, LISTINGS_KEPT, RunStatus, RunSummary};
pub use site::QueuedRow;
pub use sitemap_files::SitemapFileRecord;
pub use store::{KeepFailed, Store};
pub use verdict::{FailureKind, IgnoredHint, Reason, Rendering, ServedDifference, Verdict};

#[cfg(test)]
mod audit_tests;
#[cfg(test)]
mod schema_tests;
#[cfg(test)]
mod tests;
