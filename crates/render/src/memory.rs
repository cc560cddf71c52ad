//! The memory of a process and all its descendants (a browser's renderers, GPU and utility
//! processes), read from `/proc`.
//!
//! Each process's `status` gives its resident pages by kind, counters the kernel keeps, so a
//! sample costs a few reads whatever the browser's size. (`Pss` in `smaps_rollup` would divide
//! shared pages exactly, but reading it walks every page table: 50 to 250 ms for one sample of
//! a browser with two tabs, more than the crawl itself spends per page.)

use std::collections::HashMap;

/// The resident memory of `root` and its descendants together, in bytes: their private and
/// shared-memory pages (`RssAnon`, `RssShmem`) summed, and the file-backed pages (`RssFile`:
/// the browser's own code and libraries, mapped by every process) counted once, as the
/// largest of them. `None` off Linux.
pub(crate) fn tree_memory(root: u32) -> Option<u64> {
    let mut children: HashMap<u32, Vec<u32>> = HashMap::new();
    for entry in std::fs::read_dir("/proc").ok()?.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|name| name.parse().ok())
        else {
            continue;
        };
        if let Some(parent) = parent_of(pid) {
            children.entry(parent).or_default().push(pid);
        }
    }
    let mut own = 0;
    let mut file_backed = 0;
    let mut pending = vec![root];
    while let Some(pid) = pending.pop() {
        if let Some(resident) = resident(pid) {
            own += resident.anonymous + resident.shared_memory;
            file_backed = file_backed.max(resident.file_backed);
        }
        if let Some(below) = children.get(&pid) {
            pending.extend(below);
        }
    }
    Some(own + file_backed)
}

fn parent_of(pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name may hold spaces: the fields after it start past the last ')'.
    stat[stat.rfind(')')? + 1..]
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

/// A process's resident pages by kind, in bytes.
#[derive(Debug, PartialEq)]
struct Resident {
    anonymous: u64,
    shared_memory: u64,
    file_backed: u64,
}

fn resident(pid: u32) -> Option<Resident> {
    parse_status(&std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?)
}

/// The bytes a line of a `/proc/PID/status` gives in kB (`field` is its name with the colon,
/// `VmHWM:`), if it is there.
pub fn status_bytes(status: &str, field: &str) -> Option<u64> {
    let line = status.lines().find(|line| line.starts_with(field))?;
    let kib: u64 = line[field.len()..]
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    Some(kib * 1024)
}

/// Reads the `Rss*` lines of a `/proc/PID/status` (absent for a kernel thread or a process
/// that is ending).
fn parse_status(status: &str) -> Option<Resident> {
    let bytes_of = |field: &str| status_bytes(status, field);
    Some(Resident {
        anonymous: bytes_of("RssAnon:")?,
        shared_memory: bytes_of("RssShmem:")?,
        file_backed: bytes_of("RssFile:")?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_has_memory() {
        if cfg!(target_os = "linux") {
            let bytes = tree_memory(std::process::id()).unwrap_or(0);
            assert!(bytes > 1024 * 1024, "{bytes} bytes");
        }
    }

    #[test]
    fn status_lines_are_read_by_kind() {
        let status = "Name:\tchromium\nVmRSS:\t  300 kB\nRssAnon:\t  200 kB\n\
                      RssFile:\t   90 kB\nRssShmem:\t   10 kB\nThreads:\t7\n";
        assert_eq!(
            parse_status(status),
            Some(Resident {
                anonymous: 200 * 1024,
                shared_memory: 10 * 1024,
                file_backed: 90 * 1024,
            })
        );
        assert_eq!(parse_status("Name:\tkthreadd\nThreads:\t1\n"), None);
    }
}
