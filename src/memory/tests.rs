#[test]
fn the_peak_is_read_on_linux() {
    if cfg!(target_os = "linux") {
        let peak = super::peak_rss_bytes().unwrap_or(0);
        assert!(peak > 1024 * 1024, "{peak} bytes");
        let mut spin = 0u64;
        for number in 0..20_000_000u64 {
            spin = spin.wrapping_add(number * number);
        }
        assert!(spin > 0);
        assert!(super::cpu_seconds().is_some_and(|seconds| seconds > 0.0));
    }
}
