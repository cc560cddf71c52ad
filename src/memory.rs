//! The process's peak memory, for the summary (and the benchmark, which reads it there).

/// Peak resident set size in bytes (`VmHWM` in `/proc/self/status`), where the system
/// reports it.
pub fn peak_rss_bytes() -> Option<u64> {
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

#[cfg(test)]
mod tests {
    #[test]
    fn the_peak_is_read_on_linux() {
        if cfg!(target_os = "linux") {
            let peak = super::peak_rss_bytes().unwrap_or(0);
            assert!(peak > 1024 * 1024, "{peak} bytes");
        }
    }
}
