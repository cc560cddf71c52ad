//! Several `sitemapper` processes started together and measured as one: the wall time from
//! the first start to the last exit; the CPU time of the whole tree, user and system, as the
//! kernel accounts it to this process for the children it waited for (`cutime` and `cstime`
//! of `/proc/self/stat`, which include the descendants those children waited for); and each
//! process's peak RSS, its high-water mark (`VmHWM` of `/proc/<pid>/status`), sampled while it
//! runs. Their output goes to files, so that a full pipe never stalls them.

use std::ffi::OsString;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};

use crate::process_tree::{StatFields, TICKS};

/// How often the processes are checked for their exit.
const POLL: Duration = Duration::from_millis(5);

/// How many polls between two samples of the peak RSS (every 50 ms).
const POLLS_PER_SAMPLE: u32 = 10;

/// How many lines of a failed process's stderr an error quotes.
const STDERR_LINES: usize = 40;

/// One process to start: a name (for its log files and errors) and its arguments.
#[derive(Debug, Clone)]
pub(crate) struct Launch {
    pub name: String,
    pub arguments: Vec<OsString>,
}

/// What the processes measured together.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ProcessesMeasure {
    /// From the first start to the last exit.
    pub wall: Duration,
    /// User and system time of the processes and the descendants they waited for.
    pub cpu_seconds: f64,
    /// Each process's peak RSS as last sampled, in the order launched.
    pub peak_rss_mib: Vec<f64>,
}

/// A process started, until it exits.
#[derive(Debug)]
struct Running {
    name: String,
    child: Child,
    stderr: PathBuf,
    peak_kib: u64,
    exit: Option<(ExitStatus, Instant)>,
}

/// Starts `launches` of `binary` together, in `logs` with their stdout and stderr, and waits
/// for all of them; a process still running after `limit` is killed and is an error, and so is
/// one that exits unsuccessfully (its stderr quoted).
pub(crate) fn run_together(
    binary: &Path,
    launches: &[Launch],
    logs: &Path,
    limit: Duration,
) -> anyhow::Result<ProcessesMeasure> {
    run_at_most(binary, launches, logs, limit, launches.len())
}

/// As [`run_together`], with at most `at_once` processes running: each exit starts the next
/// launch, as a scheduler that runs a few jobs at a time does.
pub(crate) fn run_at_most(
    binary: &Path,
    launches: &[Launch],
    logs: &Path,
    limit: Duration,
    at_once: usize,
) -> anyhow::Result<ProcessesMeasure> {
    let cpu_before = children_cpu_seconds()?;
    let started = Instant::now();
    let mut running: Vec<Running> = Vec::with_capacity(launches.len());
    let mut waiting = launches.iter();
    let mut polls = 0_u32;
    loop {
        let alive = running
            .iter()
            .filter(|process| process.exit.is_none())
            .count();
        for launch in waiting.by_ref().take(at_once.max(1).saturating_sub(alive)) {
            match start(binary, launch, logs) {
                Ok(process) => running.push(process),
                Err(error) => {
                    kill_all(&mut running);
                    return Err(error);
                }
            }
        }
        if running.iter().all(|process| process.exit.is_some()) {
            break;
        }
        if polls.is_multiple_of(POLLS_PER_SAMPLE) {
            for process in running.iter_mut().filter(|process| process.exit.is_none()) {
                if let Some(peak) = peak_rss_kib(process.child.id()) {
                    process.peak_kib = process.peak_kib.max(peak);
                }
            }
        }
        for process in running.iter_mut().filter(|process| process.exit.is_none()) {
            match process.child.try_wait() {
                Ok(Some(status)) => process.exit = Some((status, Instant::now())),
                Ok(None) => {}
                Err(error) => {
                    let name = process.name.clone();
                    kill_all(&mut running);
                    return Err(error).with_context(|| format!("wait for {name}"));
                }
            }
        }
        if started.elapsed() > limit {
            let late: Vec<String> = running
                .iter()
                .filter(|process| process.exit.is_none())
                .map(|process| process.name.clone())
                .chain(waiting.map(|launch| format!("{} (not started)", launch.name)))
                .collect();
            kill_all(&mut running);
            bail!(
                "{} still running after {:.0} s: killed; logs were in {}",
                late.join(", "),
                limit.as_secs_f64(),
                logs.display()
            );
        }
        polls = polls.wrapping_add(1);
        std::thread::sleep(POLL);
    }
    let last_exit = running
        .iter()
        .filter_map(|process| process.exit.map(|(_, at)| at))
        .max()
        .unwrap_or(started);
    let cpu_after = children_cpu_seconds()?;
    let mut failures = Vec::new();
    for process in &running {
        if let Some((status, _)) = process.exit
            && !status.success()
        {
            failures.push(format!(
                "{} exited with {status}; the end of its stderr:\n{}",
                process.name,
                tail(&process.stderr, STDERR_LINES)
            ));
        }
    }
    if !failures.is_empty() {
        bail!("{}", failures.join("\n"));
    }
    Ok(ProcessesMeasure {
        wall: last_exit.duration_since(started),
        cpu_seconds: (cpu_after - cpu_before).max(0.0),
        peak_rss_mib: running
            .iter()
            .map(|process| process.peak_kib as f64 / 1024.0)
            .collect(),
    })
}

fn start(binary: &Path, launch: &Launch, logs: &Path) -> anyhow::Result<Running> {
    let log = |extension: &str| -> anyhow::Result<(PathBuf, File)> {
        let path = logs.join(format!("{}.{extension}", launch.name));
        let file = File::create(&path).with_context(|| format!("create {}", path.display()))?;
        Ok((path, file))
    };
    let (_, stdout) = log("stdout")?;
    let (stderr_path, stderr) = log("stderr")?;
    let child = Command::new(binary)
        .args(&launch.arguments)
        // Away from any sitemapper.toml of the directory the benchmark was started in.
        .current_dir(logs)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(stdout)
        .stderr(stderr)
        .spawn()
        .with_context(|| format!("start {} ({})", binary.display(), launch.name))?;
    Ok(Running {
        name: launch.name.clone(),
        child,
        stderr: stderr_path,
        peak_kib: 0,
        exit: None,
    })
}

/// Kills the processes still running (started here, by their handles) and reaps them.
fn kill_all(running: &mut [Running]) {
    for process in running.iter_mut().filter(|process| process.exit.is_none()) {
        let _ = process.child.kill();
        let _ = process.child.wait();
    }
}

/// The last `lines` lines of the file at `path`.
pub(crate) fn tail(path: &Path, lines: usize) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}

/// The CPU time, user and system, of the children this process waited for, and theirs.
fn children_cpu_seconds() -> anyhow::Result<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").context("read /proc/self/stat")?;
    let ticks = children_ticks(&stat).context("unreadable /proc/self/stat")?;
    Ok(ticks as f64 / TICKS)
}

/// `cutime` and `cstime` (fields 16 and 17) of a `/proc/<pid>/stat` line, summed.
pub(crate) fn children_ticks(stat: &str) -> Option<u64> {
    let fields = StatFields::of(stat)?;
    Some(fields.get(16)? + fields.get(17)?)
}

/// The peak RSS so far of process `pid`, in KiB; `None` once it has exited.
fn peak_rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    high_water_mark(&status)
}

/// `VmHWM` of a `/proc/<pid>/status`, in KiB.
fn high_water_mark(status: &str) -> Option<u64> {
    let line = status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))?;
    let mut words = line.split_whitespace();
    let kib = words.next()?.parse().ok()?;
    (words.next()? == "kB").then_some(kib)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_children_fields_of_a_stat_line() {
        let stat =
            "4242 (a (b) c) S 17 4242 17 0 -1 4194560 100 0 0 0 250 30 700 12 20 0 4 0 98765";
        assert_eq!(children_ticks(stat), Some(712));
        assert_eq!(children_ticks("4242 (short) S 17"), None);
    }

    #[test]
    fn the_high_water_mark_of_a_status() {
        let status =
            "Name:\tsitemapper\nVmPeak:\t  900000 kB\nVmHWM:\t   34560 kB\nVmRSS:\t   30000 kB\n";
        assert_eq!(high_water_mark(status), Some(34_560));
        assert_eq!(high_water_mark("Name:\tzombie\nState:\tZ (zombie)\n"), None);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn processes_are_measured_together() {
        let logs = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
        let burn = |name: &str| Launch {
            name: name.to_string(),
            arguments: vec![
                "-c".into(),
                "i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done".into(),
            ],
        };
        let measure = run_together(
            Path::new("/bin/sh"),
            &[burn("first"), burn("second")],
            logs.path(),
            Duration::from_secs(60),
        )
        .unwrap_or_else(|error| panic!("{error:#}"));
        assert!(measure.cpu_seconds > 0.0, "{measure:?}");
        assert_eq!(measure.peak_rss_mib.len(), 2);
        assert!(logs.path().join("second.stderr").is_file());
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn at_most_so_many_run_at_once() {
        let logs = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
        let running = logs.path().join("running");
        std::fs::create_dir(&running).unwrap_or_else(|error| panic!("{error}"));
        // Each job marks itself running for a while, and says how many jobs it saw running.
        let launches: Vec<Launch> = (0..6)
            .map(|number| Launch {
                name: format!("job-{number}"),
                arguments: vec![
                    "-c".into(),
                    format!(
                        "touch {0}/$$; sleep 0.1; ls {0} | wc -l; rm {0}/$$",
                        running.display()
                    )
                    .into(),
                ],
            })
            .collect();
        let measure = run_at_most(
            Path::new("/bin/sh"),
            &launches,
            logs.path(),
            Duration::from_secs(60),
            2,
        )
        .unwrap_or_else(|error| panic!("{error:#}"));
        assert_eq!(measure.peak_rss_mib.len(), 6);
        for number in 0..6 {
            let seen = std::fs::read_to_string(logs.path().join(format!("job-{number}.stdout")))
                .unwrap_or_default();
            let seen: u32 = seen.trim().parse().unwrap_or(0);
            assert!((1..=2).contains(&seen), "job-{number} saw {seen} running");
        }
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_failure_quotes_its_stderr() {
        let logs = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
        let fail = Launch {
            name: "failing".to_string(),
            arguments: vec!["-c".into(), "echo broken >&2; exit 3".into()],
        };
        let error = run_together(
            Path::new("/bin/sh"),
            &[fail],
            logs.path(),
            Duration::from_secs(60),
        )
        .err()
        .map(|error| format!("{error:#}"))
        .unwrap_or_default();
        assert!(
            error.contains("failing") && error.contains("broken"),
            "{error}"
        );
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_process_past_the_limit_is_killed() {
        let logs = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
        let sleeper = Launch {
            name: "sleeper".to_string(),
            arguments: vec!["-c".into(), "exec sleep 30".into()],
        };
        let started = Instant::now();
        let result = run_together(
            Path::new("/bin/sh"),
            &[sleeper],
            logs.path(),
            Duration::from_millis(200),
        );
        assert!(result.is_err());
        assert!(started.elapsed() < Duration::from_secs(10));
    }
}
