//! The memory of a process and all its descendants (a browser's renderers, GPU and utility
//! processes), read from `/proc`.

use std::collections::HashMap;

/// The proportional set size (`Pss` in `smaps_rollup`: shared pages divided among the
/// processes sharing them) of `root` and its descendants together, in bytes; the resident
/// size where `Pss` cannot be read. `None` off Linux.
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
    let mut total = 0;
    let mut pending = vec![root];
    while let Some(pid) = pending.pop() {
        total += process_memory(pid).unwrap_or(0);
        if let Some(below) = children.get(&pid) {
            pending.extend(below);
        }
    }
    Some(total)
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

fn process_memory(pid: u32) -> Option<u64> {
    let kib_of = |text: &str, field: &str| -> Option<u64> {
        let line = text.lines().find(|line| line.starts_with(field))?;
        line[field.len()..]
            .trim()
            .trim_end_matches("kB")
            .trim()
            .parse()
            .ok()
    };
    if let Ok(rollup) = std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup"))
        && let Some(kib) = kib_of(&rollup, "Pss:")
    {
        return Some(kib * 1024);
    }
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    kib_of(&status, "VmRSS:").map(|kib| kib * 1024)
}

#[cfg(test)]
mod tests {
    #[test]
    fn this_process_has_memory() {
        if cfg!(target_os = "linux") {
            let bytes = super::tree_memory(std::process::id()).unwrap_or(0);
            assert!(bytes > 1024 * 1024, "{bytes} bytes");
        }
    }
}
