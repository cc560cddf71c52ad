//! Why a request got no response, said as one cause with what to do about it: on the error
//! line of a seed that cannot be reached, in the fleet's table and in the audit's report,
//! from the same words. Every server is on 127.0.0.1: a refused port is a listener bound
//! then dropped, a connection that times out is one to a listener whose queue is full. A
//! name that does not resolve cannot be had without asking a DNS server, so that cause is
//! tested beside the code (`crates/crawl/src/fetch/cause.rs`).
//! Also: what a failed run says it left as it was, and the paths a run cannot write.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::time::Duration;

use crate::audit::{audit, csv_rows};
use crate::fixture::{Route, Site, tls_config, tls_config_of, tls_file};
use crate::fleet::fleet_file;
use crate::harness::{Run, assert_one_line_error, crawl, previous_output, sitemapper};

/// An address on 127.0.0.1 where nothing listens: bound, then let go.
fn refusing_address() -> SocketAddr {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
}

/// A crawl of `seed` into a new directory that makes no retries, with `extra` flags.
fn first_crawl(seed: &str, extra: &[&str]) -> Run {
    let out = tempfile::tempdir().unwrap();
    let mut args = vec!["--retries", "0"];
    args.extend_from_slice(extra);
    crawl(seed, out.path(), &args)
}

/// Asserts that `run` failed with one error line, which is `expected` exactly.
fn assert_error(run: &Run, expected: &str) {
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_one_line_error(&run.stderr);
    assert_eq!(run.stderr.trim_end(), format!("error: {expected}"));
}

/// A server on 127.0.0.1 that answers each connection with `answer` (given the stream,
/// once the request's first bytes came), on a thread of its own.
fn raw_server(answer: fn(TcpStream)) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            let mut first = [0u8; 1];
            if stream.read(&mut first).unwrap_or(0) == 1 {
                answer(stream);
            }
        }
    });
    address
}

/// Reads what is left of a request's head, so that closing sends a FIN, not a RST.
fn read_request(stream: &mut TcpStream) {
    let mut head = Vec::new();
    let mut buffer = [0u8; 1024];
    while !head.windows(4).any(|window| window == b"\r\n\r\n") {
        match stream.read(&mut buffer) {
            Ok(0) | Err(_) => return,
            Ok(read) => head.extend_from_slice(&buffer[..read]),
        }
    }
}

#[test]
fn a_refused_connection_is_one_cause_and_a_first_run_keeps_nothing() {
    let address = refusing_address();
    let seed = format!("http://{address}/");
    let cause = format!(
        "cannot reach {seed}: {address} refused the connection: check that the server is running and listens on that port"
    );
    // Nothing was published before: nothing is said to be left as it was.
    assert_error(&first_crawl(&seed, &[]), &cause);

    let (out, previous) = previous_output();
    let again = crawl(&seed, out.path(), &["--retries", "0"]);
    let sitemap = out.path().join("sitemap.xml");
    assert_error(
        &again,
        &format!("{cause}; {} left as it was", sitemap.display()),
    );
    assert_eq!(std::fs::read(&sitemap).unwrap(), previous);
}

#[test]
fn https_to_a_plain_port_says_to_try_http_and_http_to_a_tls_port_says_to_try_https() {
    let plain = Site::new().page("/", "home").serve();
    let host = plain.host();
    assert_error(
        &first_crawl(&format!("https://{host}/"), &[]),
        &format!("cannot reach https://{host}/: {host} does not speak TLS: try http://{host}/"),
    );

    let tls = Site::new().page("/", "home").serve_tls(tls_config());
    let host = tls.host();
    assert_error(
        &first_crawl(&format!("http://{host}/"), &[]),
        &format!(
            "cannot reach http://{host}/: {host} does not answer in HTTP: if it serves TLS, try https://{host}/"
        ),
    );
}

#[test]
fn a_refused_certificate_says_what_is_wrong_and_which_flag_helps() {
    let insecure = "(--insecure accepts it, for a staging site only)";
    for (certificate, key, trusted, problem) in [
        (
            "server.pem",
            "server.key",
            None,
            "is signed by no authority trusted here (self-signed, or a private CA's): give a private CA with --cacert FILE, or accept any certificate of a staging site with --insecure".to_string(),
        ),
        (
            "expired.pem",
            "expired.key",
            Some("expired.pem"),
            format!("has expired {insecure}"),
        ),
        (
            "other-name.pem",
            "other-name.key",
            Some("other-name.pem"),
            format!("is for another name (other.example) {insecure}"),
        ),
    ] {
        let server = Site::new()
            .page("/", "home")
            .serve_tls(tls_config_of(certificate, key));
        let seed = server.url("/");
        let ca = trusted.map(|name| tls_file(name).to_str().unwrap().to_string());
        let mut flags = Vec::new();
        if let Some(ca) = &ca {
            flags.extend(["--cacert", ca.as_str()]);
        }
        let run = first_crawl(&seed, &flags);
        assert_error(
            &run,
            &format!("cannot reach {seed}: the certificate of 127.0.0.1 {problem}"),
        );
    }
}

#[test]
fn each_deadline_is_named_with_its_flag_and_its_seconds() {
    let hanging = Site::new()
        .route(
            "/robots.txt",
            Route::new(404, "").delay(Duration::from_secs(3600)),
        )
        .serve();
    let host = hanging.host();
    assert_error(
        &first_crawl(&hanging.url("/"), &["--timeout", "0.5"]),
        &format!(
            "cannot reach {}: no complete answer from {host} within 0.5 s (--timeout 0.5)",
            hanging.url("/")
        ),
    );

    // A listener whose queue of connections is full: the kernel drops further SYNs, and a
    // connection is never established.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .build()
        .unwrap();
    let _entered = runtime.enter();
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.bind("127.0.0.1:0".parse().unwrap()).unwrap();
    let full = socket.listen(0).unwrap();
    let address = full.local_addr().unwrap();
    let mut queued = Vec::new();
    while let Ok(stream) = TcpStream::connect_timeout(&address, Duration::from_millis(200)) {
        queued.push(stream);
        assert!(queued.len() < 64, "the queue never filled");
    }
    let seed = format!("http://{address}/");
    assert_error(
        &first_crawl(&seed, &["--connect-timeout", "0.5"]),
        &format!(
            "cannot reach {seed}: no connection to {address} within 0.5 s (--connect-timeout 0.5)"
        ),
    );
}

#[test]
fn a_connection_closed_or_reset_before_the_answer_or_in_the_body_says_so() {
    let closing = raw_server(|mut stream| read_request(&mut stream));
    // Closed with the request unread, the socket sends RST.
    let resetting = raw_server(drop);
    let cutting = raw_server(|mut stream| {
        read_request(&mut stream);
        let _ = stream.write_all(
            b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 1000\r\n\r\n<html>",
        );
    });
    let advice = "try again later, or see the server's error log";
    for (address, extra, said) in [
        (
            closing,
            &[][..],
            format!("{closing} closed the connection before it answered: {advice}"),
        ),
        (
            resetting,
            &[][..],
            format!("{resetting} reset the connection before it answered: {advice}"),
        ),
        (
            cutting,
            &["--ignore-robots"][..],
            format!("{cutting} broke the connection before the body ended"),
        ),
    ] {
        let seed = format!("http://{address}/");
        let run = first_crawl(&seed, extra);
        assert_eq!(run.code, 1, "{}", run.stderr);
        let error = run
            .stderr
            .lines()
            .find(|line| line.starts_with("error:"))
            .unwrap_or_else(|| panic!("{}", run.stderr));
        assert_eq!(error, format!("error: cannot reach {seed}: {said}"));
    }
}

#[test]
fn robots_txt_answering_503_forbids_the_crawl_in_plain_words() {
    let server = Site::new()
        .route("/robots.txt", Route::new(503, "busy"))
        .page("/", "home")
        .serve();
    assert_error(
        &first_crawl(&server.url("/"), &[]),
        &format!(
            "robots.txt answered 503 for {}, which forbids crawling until it answers; try again later",
            server.url("/")
        ),
    );
}

#[test]
fn a_path_in_a_missing_directory_is_refused_once_with_what_to_do() {
    let server = Site::new().page("/", "home").serve();
    let directory = tempfile::tempdir().unwrap();
    let missing = directory.path().join("missing").join("dir");
    let file = directory.path().join("a-file");
    std::fs::write(&file, "not a directory").unwrap();
    let out = tempfile::tempdir().unwrap();
    let no_directory = format!(
        "the directory {} does not exist: create it first",
        missing.display()
    );
    let not_a_directory = format!("{} is a file, not a directory", file.display());
    for (option, path, problem) in [
        ("--state", missing.join("crawl.db"), &no_directory),
        (
            "--report-changes",
            missing.join("changes.json"),
            &no_directory,
        ),
        (
            "--list-not-listed",
            missing.join("not-listed.csv"),
            &no_directory,
        ),
        ("--out", file.join("out"), &not_a_directory),
    ] {
        let path = path.to_str().unwrap();
        let run = crawl(&server.url("/"), out.path(), &[option, path]);
        assert_eq!(run.code, 2, "{option}: {}", run.stderr);
        assert_one_line_error(&run.stderr);
        assert_eq!(
            run.stderr.trim_end(),
            format!("error: cannot write {option} {path}: {problem}")
        );
    }
    let report = file.join("report");
    let report = report.to_str().unwrap();
    let run = sitemapper(&["audit", &server.url("/"), "--report", report]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert_eq!(
        run.stderr.trim_end(),
        format!("error: cannot write --report {report}: {not_a_directory}")
    );
    let state = missing.join("crawl.db");
    let state = state.to_str().unwrap();
    let report = directory.path().join("report");
    let run = sitemapper(&[
        "audit",
        &server.url("/"),
        "--report",
        report.to_str().unwrap(),
        "--state",
        state,
    ]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert_eq!(
        run.stderr.trim_end(),
        format!("error: cannot write --state {state}: {no_directory}")
    );
    assert!(server.targets().is_empty(), "{:?}", server.targets());
}

#[test]
fn the_fleet_table_and_its_report_show_the_short_cause() {
    let address = refusing_address();
    let directory = tempfile::tempdir().unwrap();
    let out = directory.path().join("out");
    let sites = [("down".to_string(), format!("http://{address}/"))];
    let fleet = fleet_file(directory.path(), &out, &sites, "");
    let report = directory.path().join("report.json");
    let run = sitemapper(&["fleet", "run", &fleet, "--report", report.to_str().unwrap()]);
    assert_eq!(run.code, 5, "{}", run.stderr);
    let cause = format!(
        "cannot reach http://{address}/: {address} refused the connection: check that the server is running and listens on that port"
    );
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    assert_eq!(report["sites"][0]["error"], cause.as_str(), "{report}");

    let status = sitemapper(&["fleet", "status", &fleet]);
    assert_eq!(status.code, 0, "{}", status.stderr);
    let line = status
        .stdout
        .lines()
        .find(|line| line.starts_with("down "))
        .unwrap_or_else(|| panic!("{}", status.stdout));
    assert!(line.ends_with(&cause), "{}", status.stdout);
}

#[test]
fn the_audits_report_shows_the_short_cause_of_a_page_without_answer() {
    let server = Site::new()
        .page("/", r#"<a href="/stuck">stuck</a>"#)
        .route(
            "/stuck",
            Route::html("never").delay(Duration::from_secs(3600)),
        )
        .serve();
    let report = tempfile::tempdir().unwrap();
    let run = audit(&server, report.path(), &["--timeout", "0.5"]);
    run.assert_success();
    let cause = format!(
        "fetch-error: no complete answer from {} within 0.5 s (--timeout 0.5)",
        server.host()
    );
    let stuck = server.url("/stuck");
    let rows = csv_rows(&report.path().join("findings.csv"));
    let row = rows
        .iter()
        .find(|row| row["url"] == stuck)
        .unwrap_or_else(|| panic!("{rows:?}"));
    assert_eq!(row["detail"], cause);
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(report.path().join("report.json")).unwrap())
            .unwrap();
    let finding = json["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|finding| finding["url"] == stuck.as_str())
        .unwrap_or_else(|| panic!("{json}"));
    assert_eq!(finding["detail"], cause.as_str());
    let html = std::fs::read_to_string(report.path().join("report.html")).unwrap();
    assert!(html.contains(&cause), "report.html shows the same words");
    assert!(!html.contains("error sending request"));
}
