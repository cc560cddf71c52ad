//! Fleets of sites: the fleet file, schedules, and the registries that hand out site jobs.
//! On one machine, `LocalRegistry` keeps the runs of each site in the state directory; on
//! many, `Queue` is the registry in PostgreSQL that workers claim sites from, with leases,
//! and that carries each site's crawl database from worker to worker (`state`); a worker's
//! `LeaseKeeper` holds each site it claimed (heartbeats, checkpoints, the release);
//! `FleetMetrics` counts the runs, requests and leases for Prometheus. This crate knows
//! nothing of crawling: the binary runs the jobs it hands out, and tells the metrics of
//! their requests.

mod check;
mod file;
mod keeper;
mod local;
mod local_run;
mod metrics;
mod per_server;
mod place;
mod publish;
pub mod queue;
mod record;
mod report;
mod schedule;
pub mod state;
mod worker;

pub use check::{FleetCheck, Standing};
pub use file::{
    DEFAULT_RETRY, FLEET_KEYS, FilePart, Fleet, FleetFileError, SiteNameError, SiteOption,
    SiteSpec, SiteUrlError, check_name,
};
pub use keeper::{LeaseEnd, LeaseKeeper, LeaseLost, LeaseQueue, LeaseTiming};
pub use local::{LocalError, LocalRegistry, site_database_in};
pub use local_run::{LocalRun, LocalSite, SiteChoice};
pub use metrics::{FleetMetrics, MetricsError, QueueMetrics, serve_metrics};
pub use per_server::{ServerOf, SitePicker, Started};
pub use publish::{
    Ending, OUT_VARIABLE, PUBLISH_TIMEOUT, PublishError, SITE_VARIABLE, URL_VARIABLE,
    run_publish_command,
};
pub use queue::{Claim, Claimed, DefinitionError, Queue, QueueError, Release, SyncCounts, Wakeups};
pub use record::{
    RunRecord, RunResult, SiteStatus, UnknownRunResult, next_due, one_line, shown_url,
};
pub use report::{FleetReport, REPORT_VERSION, SiteRunReport};
pub use schedule::{DurationError, Schedule, ScheduleError, parse_duration};
pub use worker::{
    DEFAULT_CHECKPOINT, DEFAULT_LEASE, DEFAULT_PER_SERVER, DEFAULT_SITES_AT_ONCE, QueueWorker,
    SiteCrawler, SiteRecorded, WorkerPlan,
};
