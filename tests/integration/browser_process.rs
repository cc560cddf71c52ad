//! The browser's processes and profile directory do not outlive sitemapper, even killed with
//! SIGKILL; a profile directory that a run gone left anyway is removed by the next run.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::fixture::{Route, Site};
use crate::harness::{chromium, sitemapper_command};

/// How long the browser may outlive a sitemapper killed with SIGKILL.
const AFTERLIFE: Duration = Duration::from_secs(5);

/// The environment variable that marks the processes of one test's run: the browser process
/// and its crash handlers, which leave its process group, inherit it.
const MARK: &str = "BROWSER_PROCESS_TEST_RUN";

/// A process, as `/proc/PID/stat` and `environ` describe it.
#[derive(Debug)]
struct Process {
    pid: u32,
    parent: u32,
    group: u32,
    zombie: bool,
    command_line: String,
    marked: bool,
}

/// Every process this user may read, `mark` the value of [`MARK`] looked for.
fn processes(mark: &str) -> Vec<Process> {
    let marker = format!("{MARK}={mark}");
    let mut processes = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|name| name.parse().ok())
        else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // The command name may hold spaces: the fields after it start past the last ')'.
        let Some((_, fields)) = stat.rsplit_once(')') else {
            continue;
        };
        let fields: Vec<&str> = fields.split_whitespace().collect();
        let read = |name: &str| std::fs::read(entry.path().join(name)).unwrap_or_default();
        processes.push(Process {
            pid,
            parent: fields[1].parse().unwrap(),
            group: fields[2].parse().unwrap(),
            zombie: fields[0] == "Z",
            command_line: String::from_utf8_lossy(&read("cmdline")).replace('\0', " "),
            marked: read("environ")
                .split(|byte| *byte == 0)
                .any(|variable| variable == marker.as_bytes()),
        });
    }
    processes
}

/// The processes of the run marked `mark` that still run (a zombie has ended): those of the
/// browser's process group and those that carry the mark.
fn still_running(mark: &str, browser_group: u32) -> Vec<String> {
    processes(mark)
        .into_iter()
        .filter(|process| !process.zombie && (process.marked || process.group == browser_group))
        .map(|process| format!("{} {}", process.pid, process.command_line))
        .collect()
}

/// The profile directories in `temp_dir`.
fn profiles(temp_dir: &Path) -> Vec<PathBuf> {
    let mut profiles: Vec<PathBuf> = std::fs::read_dir(temp_dir)
        .unwrap()
        .flatten()
        .filter(|entry| {
            entry
                .file_name()
                .to_str()
                .is_some_and(|name| name.starts_with("sitemapper-chromium-"))
        })
        .map(|entry| entry.path())
        .collect();
    profiles.sort();
    profiles
}

/// Kills what a failed test leaves running: a browser in an endless loop, otherwise.
struct Leftovers<'a> {
    mark: &'a str,
}

impl Drop for Leftovers<'_> {
    fn drop(&mut self) {
        for process in processes(self.mark).iter().filter(|process| process.marked) {
            let _ = std::process::Command::new("kill")
                .args(["-s", "KILL", &process.pid.to_string()])
                .status();
        }
    }
}

#[test]
fn a_crawl_killed_with_sigkill_leaves_no_browser_process_and_no_profile() {
    let Some(browser) = chromium() else { return };
    let server = Site::new()
        .page("/", r#"<p>Spinning</p><script src="/spin.js"></script>"#)
        .route(
            "/spin.js",
            Route::new(200, "while (true) {}").header("Content-Type", "text/javascript"),
        )
        .serve();
    let temp_dir = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    let mark = temp_dir.path().to_str().unwrap().to_string();
    let _leftovers = Leftovers { mark: &mark };
    let mut sitemapper = sitemapper_command(&[
        "crawl",
        &server.url("/"),
        "--out",
        out.path().to_str().unwrap(),
        "--render",
        "always",
        "--render-timeout",
        "120",
        "--chrome",
        browser.to_str().unwrap(),
    ])
    .env("TMPDIR", temp_dir.path())
    .env(MARK, &mark)
    .stdout(Stdio::null())
    .stderr(Stdio::null())
    .spawn()
    .unwrap();
    // Only the browser asks for the script, which then runs for ever.
    server.wait_for(|seen| seen.iter().any(|seen| seen.target == "/spin.js"));
    let browser_process = processes(&mark)
        .into_iter()
        .find(|process| {
            process.parent == sitemapper.id() && process.command_line.contains("--user-data-dir=")
        })
        .expect("the browser, a child of sitemapper");
    assert_eq!(
        browser_process.group, browser_process.pid,
        "the browser leads a process group of its own"
    );
    assert_eq!(profiles(temp_dir.path()).len(), 1);

    sitemapper.kill().unwrap();
    sitemapper.wait().unwrap();
    let deadline = Instant::now() + AFTERLIFE;
    let mut left = still_running(&mark, browser_process.group);
    while (!left.is_empty() || !profiles(temp_dir.path()).is_empty()) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
        left = still_running(&mark, browser_process.group);
    }
    assert_eq!(
        left,
        Vec::<String>::new(),
        "still running after {AFTERLIFE:?}"
    );
    assert_eq!(profiles(temp_dir.path()), Vec::<PathBuf>::new());
}

/// A profile directory as a run left it, with the owner's lock file.
fn left_profile(temp_dir: &Path, name: &str) -> PathBuf {
    let directory = temp_dir.join(name);
    std::fs::create_dir_all(directory.join("Default")).unwrap();
    std::fs::write(directory.join("Default").join("Cookies"), "cookies").unwrap();
    std::fs::write(directory.join("sitemapper-owner.lock"), "").unwrap();
    directory
}

#[test]
fn the_next_run_removes_the_profiles_of_runs_that_are_gone_and_keeps_live_ones() {
    let Some(browser) = chromium() else { return };
    let server = Site::new()
        .page(
            "/",
            r#"<p>Home</p><script>document.title = 'Home'</script>"#,
        )
        .serve();
    let temp_dir = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    let gone = left_profile(temp_dir.path(), "sitemapper-chromium-gone");
    let live = left_profile(temp_dir.path(), "sitemapper-chromium-live");
    let owner = File::open(live.join("sitemapper-owner.lock")).unwrap();
    owner.try_lock().unwrap();
    // Made before the lock existed: whether its owner lives cannot be told.
    let unknown = temp_dir.path().join("sitemapper-chromium-unknown");
    std::fs::create_dir(&unknown).unwrap();

    let run = sitemapper_command(&[
        "crawl",
        &server.url("/"),
        "--out",
        out.path().to_str().unwrap(),
        "--retries",
        "0",
        "--render",
        "always",
        "--chrome",
        browser.to_str().unwrap(),
    ])
    .env("TMPDIR", temp_dir.path())
    .output()
    .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(!gone.exists());
    // Its own profile removed too, when it shut the browser down.
    assert_eq!(profiles(temp_dir.path()), vec![live.clone(), unknown]);
    assert!(live.join("Default").join("Cookies").exists());
}
