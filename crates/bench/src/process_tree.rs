//! The CPU time of a process's descendants (a browser and its renderer, GPU and utility
//! processes), sampled from `/proc` while they run. The CPU time a process reports for its
//! children counts only those that were waited for up the whole chain; a browser's processes
//! that end as orphans are missing from it. Sampling sees them all, live: the sum of each
//! descendant's own CPU time, as last seen, is a lower bound (what a process spends after the
//! last sample, up to one interval, is missed).

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

/// How often the descendants are sampled.
const INTERVAL: Duration = Duration::from_millis(100);

/// Clock ticks per second of `/proc/<pid>/stat` and `/proc/stat` (USER_HZ, 100 on every Linux
/// architecture).
pub(crate) const TICKS: f64 = 100.0;

/// What the sampling saw.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Descendants {
    /// Descendant processes seen.
    pub processes: usize,
    /// Their own CPU time, user and system, as last seen.
    pub cpu_seconds: f64,
}

/// A sampler running beside the process it watches.
#[derive(Debug)]
pub(crate) struct Sampler {
    stop: Arc<AtomicBool>,
    thread: JoinHandle<Descendants>,
}

impl Sampler {
    /// Samples the descendants of `root` until it ends or [`Sampler::finish`] is called.
    pub(crate) fn start(root: u32) -> Sampler {
        let stop = Arc::new(AtomicBool::new(false));
        let thread = {
            let stop = Arc::clone(&stop);
            std::thread::spawn(move || {
                // Keyed by pid and start time, so that a reused pid is another process.
                let mut last: HashMap<(u32, u64), u64> = HashMap::new();
                while !stop.load(Ordering::Relaxed) {
                    let processes = read_processes();
                    if !processes.iter().any(|process| process.pid == root) {
                        break;
                    }
                    for process in descendants(root, &processes) {
                        last.insert((process.pid, process.start), process.ticks);
                    }
                    std::thread::sleep(INTERVAL);
                }
                Descendants {
                    processes: last.len(),
                    cpu_seconds: last.values().sum::<u64>() as f64 / TICKS,
                }
            })
        };
        Sampler { stop, thread }
    }

    /// Stops sampling; what was seen.
    pub(crate) fn finish(self) -> Descendants {
        self.stop.store(true, Ordering::Relaxed);
        self.thread.join().unwrap_or(Descendants {
            processes: 0,
            cpu_seconds: 0.0,
        })
    }
}

/// A process as `/proc/<pid>/stat` shows it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Process {
    pub pid: u32,
    pub parent: u32,
    start: u64,
    /// Its own CPU time, user and system, in clock ticks.
    pub ticks: u64,
}

/// Every process of the machine.
pub(crate) fn read_processes() -> Vec<Process> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|entry| {
            let pid: u32 = entry.file_name().to_str()?.parse().ok()?;
            parse_stat(
                pid,
                &std::fs::read_to_string(entry.path().join("stat")).ok()?,
            )
        })
        .collect()
}

/// A line of `/proc/<pid>/stat`: the parent (field 4), user and system time (14, 15) and the
/// start time (22).
fn parse_stat(pid: u32, stat: &str) -> Option<Process> {
    let fields = StatFields::of(stat)?;
    Some(Process {
        pid,
        parent: u32::try_from(fields.get(4)?).ok()?,
        start: fields.get(22)?,
        ticks: fields.get(14)? + fields.get(15)?,
    })
}

/// The numeric fields of a `/proc/<pid>/stat` line, numbered as proc(5) numbers them.
pub(crate) struct StatFields<'a>(Vec<&'a str>);

impl<'a> StatFields<'a> {
    pub(crate) fn of(stat: &'a str) -> Option<StatFields<'a>> {
        // The command name may hold spaces and parentheses: the fields after it start past
        // the last ')', with field 3.
        Some(StatFields(
            stat[stat.rfind(')')? + 1..].split_whitespace().collect(),
        ))
    }

    pub(crate) fn get(&self, number: usize) -> Option<u64> {
        self.0.get(number.checked_sub(3)?)?.parse().ok()
    }
}

fn descendants(root: u32, processes: &[Process]) -> Vec<Process> {
    let mut children: HashMap<u32, Vec<&Process>> = HashMap::new();
    for process in processes {
        children.entry(process.parent).or_default().push(process);
    }
    let mut found = Vec::new();
    let mut pending = vec![root];
    while let Some(pid) = pending.pop() {
        for child in children.get(&pid).into_iter().flatten() {
            found.push(**child);
            pending.push(child.pid);
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stat_line_with_an_awkward_name() {
        let stat =
            "4242 (a (b) c) S 17 4242 17 0 -1 4194560 100 0 0 0 250 30 7 1 20 0 4 0 98765 0 0";
        let process = parse_stat(4242, stat);
        assert!(process.is_some_and(|process| process.parent == 17
            && process.ticks == 280
            && process.start == 98765));
    }

    #[test]
    fn descendants_are_found_down_the_tree_only() {
        let process = |pid, parent| Process {
            pid,
            parent,
            start: 0,
            ticks: 1,
        };
        let processes = [
            process(1, 0),
            process(10, 1),
            process(11, 10),
            process(12, 11),
            process(13, 10),
            process(20, 1),
        ];
        let mut found: Vec<u32> = descendants(10, &processes)
            .iter()
            .map(|process| process.pid)
            .collect();
        found.sort_unstable();
        assert_eq!(found, [11, 12, 13]);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_child_that_burns_cpu_is_seen() {
        let child = std::process::Command::new("sh")
            .args(["-c", "i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done"])
            .spawn();
        let Ok(mut child) = child else {
            return;
        };
        // The sampler watches this test process: the shell is its descendant.
        let sampler = Sampler::start(std::process::id());
        let _ = child.wait();
        let seen = sampler.finish();
        assert!(seen.processes >= 1, "{seen:?}");
        assert!(seen.cpu_seconds > 0.0, "{seen:?}");
    }
}
