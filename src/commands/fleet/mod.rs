//! `sitemapper fleet` (run, status, sync) and `sitemapper worker`: many sites, each one unit
//! of work. The fleet crate reads the fleet file and keeps the registries; this module runs
//! the sites they hand out (`site_job.rs`), on one machine (`local.rs`) or as one of the
//! workers of a PostgreSQL queue (`worker.rs`).

mod local;
mod output;
mod report;
mod requests;
mod runtime;
mod site_job;
pub(crate) mod worker;

use serde::Serialize;
use sitemapper_fleet::{FleetCheck, LocalRegistry, Queue, SiteStatus};

use super::Output;
use crate::cli::{FleetArgs, FleetCommand, SummaryFormat};
use crate::exit::{ExitStatus, Failure, SaidOnStdout};
use crate::settings::{
    ConfigFile, FleetRunSettings, FleetStatusSettings, FleetSyncSettings, StatusSource,
};
use output::write_stdout;
use runtime::runtime;

pub(crate) fn run(args: FleetArgs, file: ConfigFile, output: Output) -> Result<(), Failure> {
    match args.command {
        FleetCommand::Run(args) => {
            let settings = FleetRunSettings::resolve(args, file).map_err(Failure::usage)?;
            local::run(settings, output)
        }
        FleetCommand::Status(args) => {
            let settings = FleetStatusSettings::resolve(args, file).map_err(Failure::usage)?;
            status(settings)
        }
        FleetCommand::Sync(args) => {
            let settings = FleetSyncSettings::resolve(args, file).map_err(Failure::usage)?;
            sync(&settings, output)
        }
    }
}

/// `fleet status`: each site's last run and when it is due, from the state directory or the
/// queue, as a table or JSON on stdout.
fn status(settings: FleetStatusSettings) -> Result<(), Failure> {
    let sites = match &settings.source {
        StatusSource::Local { fleet, state_dir } => {
            let registry = LocalRegistry::open(state_dir).map_err(Failure::fatal)?;
            registry.status(fleet).map_err(Failure::fatal)?
        }
        StatusSource::Queue { url } => runtime()?.block_on(async {
            let queue = Queue::connect(url).await.map_err(Failure::fatal)?;
            queue.status().await.map_err(Failure::fatal)
        })?,
    };
    if settings.check {
        return check(&settings.source, &sites);
    }
    match settings.summary {
        SummaryFormat::Text => {
            let table = report::status_table(&sites, jiff::Timestamp::now());
            write_stdout(table.as_bytes())?;
        }
        SummaryFormat::Json => {
            #[derive(Serialize)]
            struct Status<'a> {
                sites: &'a [SiteStatus],
            }
            super::json::print(
                "fleet status",
                ExitStatus::Success,
                None,
                &Status { sites: &sites },
            )?;
        }
    }
    Ok(())
}

/// `fleet status --check`: the line a monitor reads and a line for each site not well on
/// stdout; exit 1 when any site failed or is overdue, with no error line on stderr to say
/// the verdict twice.
fn check(source: &StatusSource, sites: &[SiteStatus]) -> Result<(), Failure> {
    // A site never run is due from when the registry can have known it: the queue's sync
    // sets that itself.
    let known_since = match source {
        StatusSource::Local { fleet, .. } => fleet.known_since(),
        StatusSource::Queue { .. } => jiff::Timestamp::UNIX_EPOCH,
    };
    let check = FleetCheck::of(sites, jiff::Timestamp::now(), known_since);
    write_stdout(report::check_text(&check).as_bytes())?;
    if check.is_well() {
        return Ok(());
    }
    Err(Failure {
        status: ExitStatus::Fatal,
        error: SaidOnStdout(format!(
            "{} of {} failed or overdue",
            check.problems.len(),
            sitemapper_site::count(check.sites, "site")
        ))
        .into(),
    })
}

/// `fleet sync`: the queue's sites become the fleet file's.
fn sync(settings: &FleetSyncSettings, output: Output) -> Result<(), Failure> {
    let (counts, at) = runtime()?.block_on(async {
        let queue = Queue::connect(&settings.queue)
            .await
            .map_err(Failure::fatal)?;
        let counts = queue
            .sync(&settings.fleet.sites)
            .await
            .map_err(Failure::fatal)?;
        Ok::<_, Failure>((counts, queue.at().to_string()))
    })?;
    if !output.quiet {
        crate::progress::print_line(&format!(
            "Synced {} into {at}: {} added, {} changed, {} removed, {} unchanged.",
            settings.fleet.path.display(),
            counts.added,
            counts.changed,
            counts.removed,
            counts.unchanged
        ));
    }
    Ok(())
}
