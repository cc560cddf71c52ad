//! The process's peak memory and CPU time, for the summary (and the benchmark, which reads
//! them there).

/// Peak resident set size in bytes (`VmHWM` in `/proc/self/status`), where the system
/// reports it.
pub(crate) fn peak_rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|line| line.starts_with("VmHWM:"))?;
    let kib: u64 = line
        .trim_start_matches("VmHWM:")
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    Some(kib * 1024)
}

/// CPU seconds used by the whole process so far, user and system (`/proc/self/stat`, in
/// clock ticks of 1/100 s, the value Linux uses for USER_HZ on every architecture).
pub(crate) fn cpu_seconds() -> Option<f64> {
    stat_seconds(11)
}

/// CPU seconds used by the child processes this process waited for, and theirs (the browser
/// and its renderers), user and system.
pub(crate) fn children_cpu_seconds() -> Option<f64> {
    stat_seconds(13)
}

/// The sum of the two clock-tick fields of `/proc/self/stat` from `index` (counted after the
/// command name), in seconds.
fn stat_seconds(index: usize) -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // The command name may hold spaces: the fields after it start past the last ')'.
    let fields: Vec<&str> = stat[stat.rfind(')')? + 1..].split_whitespace().collect();
    let user: u64 = fields.get(index)?.parse().ok()?;
    let system: u64 = fields.get(index + 1)?.parse().ok()?;
    Some((user + system) as f64 / 100.0)
}

#[cfg(test)]
mod tests;
