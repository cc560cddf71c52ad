//! Where the machine's CPU time went while a fleet case ran, beside the sitemapper processes
//! (which [`crate::fleet_processes`] measures): this process (the sites' server, mostly), the
//! queue's PostgreSQL server when it runs on this machine, and the machine as a whole
//! (`/proc/stat`), so that other work on the machine shows.

use crate::fleet_processes::children_ticks;
use crate::process_tree::{StatFields, TICKS, read_processes};
use crate::psql::psql;

/// A PostgreSQL server whose processes this machine runs: its postmaster, the parent of them
/// all, which reaps the backends of connections that end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Postgres {
    postmaster: u32,
}

impl Postgres {
    /// The server of `queue`, found by its checkpointer's process id; `None` when that is no
    /// process of PostgreSQL's here (a server on another machine, or in a container).
    pub(crate) fn find(queue: &str) -> anyhow::Result<Option<Postgres>> {
        let checkpointer = psql(
            queue,
            "SELECT pid FROM pg_stat_activity WHERE backend_type = 'checkpointer'",
        )?;
        let Ok(checkpointer) = checkpointer.trim().parse::<u32>() else {
            return Ok(None);
        };
        let postmaster = read_processes()
            .into_iter()
            .find(|process| process.pid == checkpointer)
            .map(|process| process.parent);
        Ok(postmaster
            .filter(|&postmaster| {
                postmaster > 1 && is_postgres(checkpointer) && is_postgres(postmaster)
            })
            .map(|postmaster| Postgres { postmaster }))
    }

    /// The server's CPU time so far, user and system: its processes' own, and that of the
    /// processes the postmaster reaped.
    fn cpu_seconds(self) -> Option<f64> {
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", self.postmaster)).ok()?;
        let reaped = children_ticks(&stat)?;
        let own: u64 = read_processes()
            .iter()
            .filter(|process| process.pid == self.postmaster || process.parent == self.postmaster)
            .map(|process| process.ticks)
            .sum();
        Some((reaped + own) as f64 / TICKS)
    }
}

/// Whether process `pid` runs PostgreSQL's server.
fn is_postgres(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/comm")).is_ok_and(|name| name.trim() == "postgres")
}

/// The CPU time counters at one moment.
#[derive(Debug, Clone, Copy)]
pub(crate) struct CpuSnapshot {
    machine: Option<f64>,
    own: Option<f64>,
    postgres: Option<f64>,
}

/// The CPU time spent between two snapshots, in seconds; `None` where it could not be read.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct CpuSpent {
    /// Every core's busy time (all but idle and waiting for I/O).
    pub machine: Option<f64>,
    /// This process's: the sites' server.
    pub own: Option<f64>,
    /// The queue's PostgreSQL server's.
    pub postgres: Option<f64>,
}

impl CpuSnapshot {
    /// The counters now, with `postgres`'s when given.
    pub(crate) fn take(postgres: Option<Postgres>) -> CpuSnapshot {
        CpuSnapshot {
            machine: std::fs::read_to_string("/proc/stat")
                .ok()
                .and_then(|stat| busy_ticks(&stat))
                .map(|ticks| ticks as f64 / TICKS),
            own: std::fs::read_to_string("/proc/self/stat")
                .ok()
                .and_then(|stat| own_ticks(&stat))
                .map(|ticks| ticks as f64 / TICKS),
            postgres: postgres.and_then(Postgres::cpu_seconds),
        }
    }

    /// What was spent from `earlier` to this snapshot.
    pub(crate) fn since(&self, earlier: &CpuSnapshot) -> CpuSpent {
        let difference = |now: Option<f64>, then: Option<f64>| Some((now? - then?).max(0.0));
        CpuSpent {
            machine: difference(self.machine, earlier.machine),
            own: difference(self.own, earlier.own),
            postgres: difference(self.postgres, earlier.postgres),
        }
    }
}

/// The busy ticks of all cores, from the `cpu` line of `/proc/stat`: user, nice, system, irq,
/// softirq and steal (guest time is within user).
fn busy_ticks(stat: &str) -> Option<u64> {
    let line = stat.lines().find(|line| line.starts_with("cpu "))?;
    let fields: Vec<u64> = line
        .split_whitespace()
        .skip(1)
        .map(|field| field.parse().ok())
        .collect::<Option<_>>()?;
    let field = |index: usize| fields.get(index).copied().unwrap_or(0);
    (fields.len() >= 4).then(|| field(0) + field(1) + field(2) + field(5) + field(6) + field(7))
}

/// `utime` and `stime` (fields 14 and 15) of a `/proc/<pid>/stat` line, summed.
pub(crate) fn own_ticks(stat: &str) -> Option<u64> {
    let fields = StatFields::of(stat)?;
    Some(fields.get(14)? + fields.get(15)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn busy_time_leaves_out_idle_and_io_waits() {
        let stat = "cpu  100 5 50 9000 300 7 8 2 0 0\ncpu0 50 2 25 4500 150 3 4 1 0 0\n";
        assert_eq!(busy_ticks(stat), Some(100 + 5 + 50 + 7 + 8 + 2));
        assert_eq!(busy_ticks("intr 1 2 3\n"), None);
    }

    #[test]
    fn own_time_of_a_stat_line() {
        let stat =
            "4242 (a (b) c) S 17 4242 17 0 -1 4194560 100 0 0 0 250 30 700 12 20 0 4 0 98765";
        assert_eq!(own_ticks(stat), Some(280));
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn snapshots_of_this_machine_are_read() {
        let before = CpuSnapshot::take(None);
        let mut sum = 0_u64;
        for number in 0..2_000_000_u64 {
            sum = sum.wrapping_add(number * number);
        }
        let spent = CpuSnapshot::take(None).since(&before);
        assert!(sum > 0);
        assert!(spent.machine.is_some() && spent.own.is_some(), "{spent:?}");
        assert_eq!(spent.postgres, None);
    }
}
