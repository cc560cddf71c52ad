//! `sitemapper mcp`: driven by the Model Context Protocol's own client (rmcp) over the
//! server's stdin and stdout, as a desktop assistant drives it: the tools listed and each one
//! called against a site served on 127.0.0.1, the resources read, a path outside the allowed
//! directories and a private site refused, a long crawl reporting progress and cancelled.

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientRequest, ProgressNotificationParam,
    ReadResourceRequestParams, Request, ResourceContents,
};
use rmcp::service::{NotificationContext, PeerRequestOptions, RunningService};
use rmcp::transport::TokioChildProcess;
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::{Value, json};

use crate::fixture::{Route, Server, Site};
use crate::harness::{assert_one_line_error, sitemapper, sitemapper_command};

/// A client that records the progress notifications it receives.
#[derive(Clone, Default)]
struct Recorder {
    progress: Arc<Mutex<Vec<ProgressNotificationParam>>>,
}

impl ClientHandler for Recorder {
    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.progress.lock().unwrap().push(params);
    }
}

type Client = RunningService<RoleClient, Recorder>;

/// `sitemapper mcp ARGS`, connected.
async fn connect(args: &[&str]) -> (Client, Recorder) {
    let mut command = vec!["mcp"];
    command.extend_from_slice(args);
    let transport =
        TokioChildProcess::new(tokio::process::Command::from(sitemapper_command(&command)))
            .expect("start sitemapper mcp");
    let recorder = Recorder::default();
    let client = recorder.clone().serve(transport).await.expect("initialize");
    (client, recorder)
}

async fn call(client: &Client, tool: &str, arguments: Value) -> CallToolResult {
    client
        .call_tool(
            CallToolRequestParams::new(tool.to_string())
                .with_arguments(arguments.as_object().cloned().unwrap()),
        )
        .await
        .unwrap_or_else(|error| panic!("{tool}: {error}"))
}

/// The text of a tool's answer.
fn text(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|content| content.as_text().map(|text| text.text.clone()))
        .collect()
}

/// A tool's answer, which must be a success, as JSON.
fn answer(tool: &str, result: &CallToolResult) -> Value {
    assert_ne!(result.is_error, Some(true), "{tool}: {}", text(result));
    serde_json::from_str(&text(result)).unwrap_or_else(|error| panic!("{tool}: {error}"))
}

/// A tool's answer, which must be an error, in words.
fn refusal(tool: &str, result: &CallToolResult) -> String {
    assert_eq!(result.is_error, Some(true), "{tool}: {}", text(result));
    text(result)
}

fn site() -> Site {
    Site::new()
        .page(
            "/",
            r#"<title>Home</title><a href="/about">About</a> <a href="/gone">Gone</a>"#,
        )
        .page("/about", "<title>About</title><p>About us</p>")
        .route("/gone", Route::new(404, "gone"))
}

#[tokio::test(flavor = "multi_thread")]
async fn an_assistant_lists_the_tools_and_calls_each_one() {
    let server = site().serve();
    let directory = tempfile::tempdir().unwrap();
    let allowed = directory.path().to_str().unwrap();
    let (client, recorder) = connect(&["--allow-dir", allowed, "--allow-private"]).await;

    let info = client.peer_info().expect("the server says what it is");
    assert_eq!(info.server_info.as_ref().unwrap().name, "sitemapper");
    assert!(
        info.instructions
            .as_deref()
            .unwrap_or("")
            .contains("explain"),
        "{:?}",
        info.instructions
    );
    let tools = client.list_all_tools().await.unwrap();
    let mut names: Vec<&str> = tools.iter().map(|tool| tool.name.as_ref()).collect();
    names.sort_unstable();
    assert_eq!(
        names,
        [
            "audit", "changes", "crawl", "explain", "findings", "runs", "validate"
        ]
    );
    for tool in &tools {
        let description = tool.description.as_deref().unwrap_or("");
        assert!(description.len() > 80, "{}: {description:?}", tool.name);
        assert_eq!(tool.input_schema["type"], "object", "{}", tool.name);
    }
    let explain = tools.iter().find(|tool| tool.name == "explain").unwrap();
    assert_eq!(explain.input_schema["required"], json!(["url", "state"]));

    let crawled = call(
        &client,
        "crawl",
        json!({"url": server.url("/"), "out": "site", "state": "site.db", "render": "never"}),
    )
    .await;
    let crawled = answer("crawl", &crawled);
    assert_eq!(crawled["command"], "crawl");
    assert_eq!(crawled["ok"], true);
    assert!(directory.path().join("site/sitemap.xml").is_file());
    let deadline = Instant::now() + Duration::from_secs(5);
    while recorder.progress.lock().unwrap().is_empty() && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let progress = recorder.progress.lock().unwrap().clone();
    assert!(!progress.is_empty(), "the crawl reported its progress");
    assert!(
        progress[0]
            .message
            .as_deref()
            .unwrap_or("")
            .contains("requests")
    );

    let gone = answer(
        "explain",
        &call(
            &client,
            "explain",
            json!({"url": server.url("/gone"), "state": "site.db"}),
        )
        .await,
    );
    assert_eq!(gone["standing"], "not-listed");
    assert_eq!(gone["reason"], "http-404");
    assert_eq!(gone["reached"]["path"][0]["url"], server.url("/"));

    let runs = answer(
        "runs",
        &call(&client, "runs", json!({"state": "site.db"})).await,
    );
    assert_eq!(runs["runs"][0]["status"], "complete");
    assert_eq!(runs["runs"][0]["pages_listed"], 2);
    let changes = answer(
        "changes",
        &call(&client, "changes", json!({"state": "site.db"})).await,
    );
    assert_eq!(changes["added_count"], 2);
    assert_eq!(changes["previous_run"], Value::Null);

    let valid = answer(
        "validate",
        &call(&client, "validate", json!({"target": "site/sitemap.xml"})).await,
    );
    assert_eq!(valid["command"], "validate");
    assert_eq!(valid["ok"], true);

    let audited = answer(
        "audit",
        &call(
            &client,
            "audit",
            json!({"url": server.url("/"), "report": "audit", "check_external": false,
                   "render": "never"}),
        )
        .await,
    );
    assert_eq!(audited["command"], "audit");
    let errors = answer(
        "findings",
        &call(
            &client,
            "findings",
            json!({"report": "audit", "severity": "error"}),
        )
        .await,
    );
    let findings = errors["findings"].as_array().unwrap();
    assert!(!findings.is_empty(), "{errors}");
    assert!(
        findings
            .iter()
            .all(|finding| finding["severity"] == "error")
    );
    assert!(
        findings.iter().any(
            |finding| finding["code"] == "broken-link" && finding["url"] == server.url("/gone")
        ),
        "{errors}"
    );
    assert!(errors["total"].as_u64().unwrap() >= errors["matched"].as_u64().unwrap());

    let resources = client.list_all_resources().await.unwrap();
    let names: Vec<&str> = resources
        .iter()
        .map(|resource| resource.name.as_str())
        .collect();
    assert!(names.contains(&"site/sitemap.xml"), "{names:?}");
    assert!(names.contains(&"audit/report.json"), "{names:?}");
    let sitemap = resources
        .iter()
        .find(|resource| resource.name == "site/sitemap.xml")
        .unwrap();
    let read = client
        .read_resource(ReadResourceRequestParams::new(sitemap.uri.clone()))
        .await
        .unwrap();
    match &read.contents[0] {
        ResourceContents::TextResourceContents { text, .. } => {
            assert!(
                text.contains(&format!("<loc>{}</loc>", server.url("/about"))),
                "{text}"
            );
        }
        other => panic!("not text: {other:?}"),
    }
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn paths_outside_the_allowed_directories_and_private_sites_are_refused() {
    let server = site().serve();
    let base = tempfile::tempdir().unwrap();
    let allowed = base.path().join("allowed");
    std::fs::create_dir(&allowed).unwrap();
    let (client, _) = connect(&["--allow-dir", allowed.to_str().unwrap()]).await;

    let private = refusal(
        "crawl",
        &call(
            &client,
            "crawl",
            json!({"url": server.url("/"), "out": "site"}),
        )
        .await,
    );
    assert!(private.contains("private network"), "{private}");
    assert!(private.contains("--allow-private"), "{private}");
    assert!(
        server.requests().is_empty(),
        "nothing was asked of the site"
    );

    let outside = base.path().join("elsewhere");
    let refused = refusal(
        "crawl",
        &call(
            &client,
            "crawl",
            json!({"url": "https://example.com/", "out": outside.to_str().unwrap()}),
        )
        .await,
    );
    assert!(refused.contains("outside the directories"), "{refused}");
    assert!(!outside.exists());
    for (tool, arguments) in [
        (
            "explain",
            json!({"url": "https://example.com/", "state": "/etc/passwd"}),
        ),
        ("runs", json!({"state": "../crawl.db"})),
        ("validate", json!({"target": "/etc/hostname"})),
    ] {
        let refused = refusal(tool, &call(&client, tool, arguments).await);
        assert!(
            refused.contains("outside the directories"),
            "{tool}: {refused}"
        );
    }
    let missing = refusal(
        "runs",
        &call(&client, "runs", json!({"state": "none.db"})).await,
    );
    assert!(missing.contains("no crawl database at"), "{missing}");
    assert!(!allowed.join("none.db").exists(), "nothing is created");
    let read = client
        .read_resource(ReadResourceRequestParams::new("file:///etc/passwd"))
        .await;
    assert!(read.is_err(), "{read:?}");
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn a_cancelled_crawl_stops_and_publishes_nothing() {
    // Every page is slow and links to the next: the crawl would take minutes.
    let server = Site::new()
        .generated(|target| {
            let number: u64 = target.trim_start_matches('/').parse().unwrap_or(0);
            Some(
                Route::html(&format!(r#"<a href="/{}">next</a>"#, number + 1))
                    .delay(Duration::from_millis(300)),
            )
        })
        .serve();
    let directory = tempfile::tempdir().unwrap();
    let (client, recorder) = connect(&[
        "--allow-dir",
        directory.path().to_str().unwrap(),
        "--allow-private",
    ])
    .await;
    let request = ClientRequest::CallToolRequest(Request::new(
        CallToolRequestParams::new("crawl").with_arguments(
            json!({"url": server.url("/"), "out": "out", "render": "never"})
                .as_object()
                .cloned()
                .unwrap(),
        ),
    ));
    let handle = client
        .send_cancellable_request(request, PeerRequestOptions::no_options())
        .await
        .unwrap();
    server.wait_for(|seen| {
        seen.iter()
            .filter(|seen| seen.target != "/robots.txt")
            .count()
            >= 3
    });
    let deadline = Instant::now() + Duration::from_secs(10);
    while recorder.progress.lock().unwrap().is_empty() && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(
        !recorder.progress.lock().unwrap().is_empty(),
        "progress came first"
    );
    handle
        .cancel(Some("the user changed their mind".into()))
        .await
        .unwrap();

    // The crawl stops: no request after a short while, and nothing published.
    let requests_then = settle(&server).await;
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert_eq!(server.requests().len(), requests_then, "the crawl goes on");
    assert!(!directory.path().join("out/sitemap.xml").exists());

    // The server is still there for the next question.
    let runs = call(&client, "runs", json!({"state": "none.db"})).await;
    assert_eq!(runs.is_error, Some(true));
    client.cancel().await.unwrap();
}

/// Waits until the server has had no new request for a second; the count then.
async fn settle(server: &Server) -> usize {
    let mut count = server.requests().len();
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        tokio::time::sleep(Duration::from_secs(1)).await;
        let now = server.requests().len();
        if now == count || Instant::now() > deadline {
            return now;
        }
        count = now;
    }
}

#[test]
fn the_server_needs_a_directory_that_is_there() {
    let none = sitemapper(&["mcp"]);
    assert_eq!(none.code, 2);
    assert_one_line_error(&none.stderr);
    assert!(none.stderr.contains("--allow-dir"), "{}", none.stderr);
    let missing = Path::new("/nonexistent/sitemapper-mcp");
    let run = sitemapper(&["mcp", "--allow-dir", missing.to_str().unwrap()]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert_one_line_error(&run.stderr);
    assert!(
        run.stderr.contains("/nonexistent/sitemapper-mcp"),
        "{}",
        run.stderr
    );
}
