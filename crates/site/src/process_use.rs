//! The process's peak memory and CPU time, for a run's summary (and the benchmark, which
//! reads them there).

use sitemapper_render::status_bytes;

/// Peak resident set size in bytes (`VmHWM` in `/proc/self/status`), where the system
/// reports it.
pub fn peak_rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status_bytes(&status, "VmHWM:")
}

/// CPU seconds used by the whole process so far, user and system (`/proc/self/stat`, in
/// clock ticks of 1/100 s, the value Linux uses for USER_HZ on every architecture).
pub fn cpu_seconds() -> Option<f64> {
    stat_seconds(11)
}

/// CPU seconds used by the child processes this process waited for, and theirs (the browser
/// and its renderers), user and system.
pub fn children_cpu_seconds() -> Option<f64> {
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
mod tests {
    use super::*;

    #[test]
    fn the_peak_is_read_on_linux() {
        if cfg!(target_os = "linux") {
            let peak = peak_rss_bytes().unwrap_or(0);
            assert!(peak > 1024 * 1024, "{peak} bytes");
            let mut spin = 0u64;
            for number in 0..20_000_000u64 {
                spin = spin.wrapping_add(number * number);
            }
            assert!(spin > 0);
            assert!(cpu_seconds().is_some_and(|seconds| seconds > 0.0));
        }
    }
}
