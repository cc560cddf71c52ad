//! A fleet's publish command cannot hold a run: the site's run ends when the command itself
//! exits, whatever it leaves running, and SIGTERM to `fleet run` or to a worker ends the
//! command's whole process group within seconds, the run recorded as interrupted.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::fixture::{Server, Site};
use crate::fleet::{chain, fleet_file};
use crate::harness::{sitemapper, sitemapper_command};
use crate::postgres;

/// The process id in `text`.
fn pid(text: &str) -> u32 {
    text.trim()
        .parse()
        .unwrap_or_else(|error| panic!("{text:?}: {error}"))
}

/// Whether the process has ended: no such process, or a zombie whose parent is gone too.
fn ended(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit_once(") ")
            .is_some_and(|(_, rest)| rest.starts_with('Z')),
    }
}

/// Whether the process `pid` had ended; killed now if it had not, so that no test leaves it.
fn ended_else_killed(pid: u32) -> bool {
    let ended = ended(pid);
    if !ended {
        let _ = Command::new("kill")
            .args(["-KILL", &pid.to_string()])
            .status();
    }
    ended
}

fn kill(signal: &str, pid: u32) {
    let status = Command::new("kill")
        .args([signal, &pid.to_string()])
        .status()
        .unwrap();
    assert!(status.success(), "kill {signal} {pid}");
}

/// A FIFO at `path`, and what the first process to write into it says: the publish command
/// blocks on it until the test reads, so that the test knows the command runs without
/// looking again and again.
fn fifo(path: &Path) -> mpsc::Receiver<String> {
    let made = Command::new("mkfifo").arg(path).status().unwrap();
    assert!(made.success());
    let (sender, said) = mpsc::channel();
    let path = path.to_path_buf();
    std::thread::spawn(move || {
        if let Ok(text) = std::fs::read_to_string(&path) {
            let _ = sender.send(text);
        }
    });
    said
}

/// The process id the publish command wrote into its FIFO.
fn started(said: &mpsc::Receiver<String>, child: &mut Child) -> u32 {
    match said.recv_timeout(Duration::from_secs(60)) {
        Ok(text) => pid(&text),
        Err(_) => {
            let _ = child.kill();
            panic!("the publish command never started");
        }
    }
}

/// A fleet file of one site of `server` whose publish command ignores SIGTERM, as does the
/// sleep it starts (an ignored signal is inherited), and what the command says when it runs:
/// the sleep's PID.
fn sigterm_ignoring_fleet(directory: &Path, server: &Server) -> (String, mpsc::Receiver<String>) {
    let started_fifo = directory.join("started");
    let said = fifo(&started_fifo);
    let fleet = one_site_fleet(
        directory,
        server,
        &format!(
            "trap \"\" TERM; sleep 60 & echo $! > \"{}\"; wait",
            started_fifo.display()
        ),
    );
    (fleet, said)
}

/// A fleet file of one site of `server`, whose publish command is `publish`.
fn one_site_fleet(directory: &Path, server: &Server, publish: &str) -> String {
    let out = directory.join("out");
    let sites = [("site".to_string(), server.url("/"))];
    fleet_file(directory, &out, &sites, &format!("publish = '{publish}'"))
}

#[test]
fn a_publish_command_that_leaves_a_process_behind_does_not_hold_the_run() {
    let server = chain(Site::new(), "/", 2, Duration::ZERO).serve();
    let directory = tempfile::tempdir().unwrap();
    let out = directory.path().join("out");
    let pids = directory.path().join("pids");
    std::fs::create_dir_all(&pids).unwrap();
    let text = format!(
        "[defaults]\nout = \"{out}/{{name}}\"\nretries = 0\n\n\
         [[site]]\nname = \"quiet\"\nurl = \"{url}\"\n\
         publish = 'sleep 60 & echo $! > \"{pids}/$SITEMAPPER_FLEET_SITE\"'\n\n\
         [[site]]\nname = \"holding-stderr\"\nurl = \"{url}\"\n\
         publish = 'sleep 60 >&2 & echo $! > \"{pids}/$SITEMAPPER_FLEET_SITE\"'\n",
        out = out.display(),
        pids = pids.display(),
        url = server.url("/"),
    );
    let fleet = directory.path().join("fleet.toml");
    std::fs::write(&fleet, text).unwrap();
    let begun = Instant::now();
    let run = sitemapper(&["fleet", "run", fleet.to_str().unwrap(), "--report", "-"]);
    // The bug this pins: the run lasted as long as what the command left behind (60 s), which
    // held the command's stderr. It is bound by the command, which returns at once.
    let took = begun.elapsed();
    let left_behind: Vec<u32> = ["quiet", "holding-stderr"]
        .iter()
        .map(|site| pid(&std::fs::read_to_string(pids.join(site)).unwrap()))
        .collect();
    // Left alone after a successful command (a deploy may go on in the background).
    let running = left_behind.iter().all(|&pid| !ended(pid));
    for &pid in &left_behind {
        let _ = Command::new("kill")
            .args(["-KILL", &pid.to_string()])
            .status();
    }
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(took < Duration::from_secs(15), "the run took {took:?}");
    let report: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    for site in report["sites"].as_array().unwrap() {
        assert_eq!(site["result"], "ok", "{site}");
    }
    assert!(running, "the processes left behind were left running");
}

#[test]
fn sigterm_ends_a_publish_command_that_ignores_it_and_the_run_is_interrupted() {
    let server = chain(Site::new(), "/", 2, Duration::ZERO).serve();
    let directory = tempfile::tempdir().unwrap();
    let (fleet, said) = sigterm_ignoring_fleet(directory.path(), &server);
    let mut child = sitemapper_command(&["fleet", "run", &fleet, "--report", "-"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let sleep = started(&said, &mut child);
    kill("-TERM", child.id());
    let signalled = Instant::now();
    let output = child.wait_with_output().unwrap();
    // The bug this pins: `fleet run` waited for the publish command (here 60 s) after SIGTERM.
    let took = signalled.elapsed();
    let sleep_ended = ended_else_killed(sleep);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(143), "{stderr}");
    assert!(took < Duration::from_secs(10), "stopped after {took:?}");
    assert!(sleep_ended, "the command's group was ended");
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let site = &report["sites"][0];
    assert_eq!(site["result"], "interrupted", "{site}");
    assert_eq!(
        site["error"],
        "stopped during the publish command: its processes were ended with SIGTERM, then \
         SIGKILL after 5 s",
        "{site}"
    );
    assert!(
        stderr.contains("1 site interrupted, to be continued by the next run"),
        "{stderr}"
    );
}

#[test]
fn sigterm_ends_a_worker_s_publish_command_and_hands_the_site_back() {
    let Some(queue) = postgres::queue() else {
        return;
    };
    let server = chain(Site::new(), "/", 2, Duration::ZERO).serve();
    let directory = tempfile::tempdir().unwrap();
    let (fleet, said) = sigterm_ignoring_fleet(directory.path(), &server);
    let sync = sitemapper(&["fleet", "sync", &fleet, "--queue", &queue.url]);
    assert_eq!(sync.code, 0, "{}", sync.stderr);
    let state: PathBuf = directory.path().join("w1");
    let log = std::fs::File::create(state.with_extension("log")).unwrap();
    let mut worker = sitemapper_command(&[
        "worker",
        "--queue",
        &queue.url,
        "--name",
        "w1",
        "-v",
        "--state-dir",
        state.to_str().unwrap(),
    ])
    .stdin(Stdio::null())
    .stdout(Stdio::null())
    .stderr(log)
    .spawn()
    .unwrap();
    let sleep = started(&said, &mut worker);
    kill("-TERM", worker.id());
    let signalled = Instant::now();
    let status = worker.wait().unwrap();
    let took = signalled.elapsed();
    let sleep_ended = ended_else_killed(sleep);
    let log = std::fs::read_to_string(state.with_extension("log")).unwrap_or_default();
    assert_eq!(status.code(), Some(0), "{log}");
    assert!(
        took < Duration::from_secs(10),
        "stopped after {took:?}: {log}"
    );
    assert!(sleep_ended, "the command's group was ended");
    assert!(log.contains("handed the site back"), "{log}");
    assert_eq!(
        queue
            .sql("SELECT leased_by IS NULL, resume FROM fleet_sites")
            .trim(),
        "t|t"
    );
}
