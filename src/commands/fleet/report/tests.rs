use super::*;
use sitemapper_fleet::SiteRunReport;

fn record(requests: u64) -> RunRecord {
    let started = Timestamp::UNIX_EPOCH;
    RunRecord {
        started,
        finished: started,
        result: RunResult::Succeeded,
        listed: requests,
        added: 0,
        removed: 0,
        changed: 0,
        requests,
        error: None,
        worker: None,
    }
}

#[test]
fn the_lines_count_sites_and_requests_in_their_number() {
    assert!(site_line("a", &record(1)).contains(", 1 request, "));
    assert!(site_line("a", &record(2)).contains(", 2 requests, "));
    for (sites, said) in [(1, "1 site run"), (2, "2 sites run")] {
        let runs = (0..sites)
            .map(|site| SiteRunReport::new(&format!("s{site}"), "https://e.com/", record(1)))
            .collect();
        let table = run_table(&FleetReport::new("fleet.toml".to_string(), 0, runs));
        assert!(table.contains(&format!("{said}: ")), "{table}");
    }
}

#[test]
fn nothing_to_show_is_a_sentence_not_an_empty_table() {
    for (not_due, said) in [
        (0, "No site run."),
        (
            1,
            "No site run: 1 site not due yet (fleet status shows when each is due).",
        ),
        (
            3,
            "No site run: 3 sites not due yet (fleet status shows when each is due).",
        ),
    ] {
        let report = FleetReport::new("fleet.toml".to_string(), not_due, Vec::new());
        assert_eq!(run_table(&report), said);
    }
    assert_eq!(
        status_table(&[], Timestamp::UNIX_EPOCH),
        "No site in the queue: fleet sync adds a fleet file's sites.\n"
    );
}

#[test]
fn a_run_with_failed_sites_names_them_and_how_many_more() {
    let failed = |name: &str| {
        let mut run = record(1);
        run.result = RunResult::Failed;
        run.error = Some("down".to_string());
        SiteRunReport::new(name, "https://e.com/", run)
    };
    let report = FleetReport::new(
        "fleet.toml".to_string(),
        0,
        vec![
            failed("shop"),
            SiteRunReport::new("blog", "https://e.com/", record(1)),
        ],
    );
    assert_eq!(failed_sites(&report), "1 of 2 sites failed: shop");
    let many = (1..=7).map(|site| failed(&format!("s{site}"))).collect();
    let report = FleetReport::new("fleet.toml".to_string(), 0, many);
    assert_eq!(
        failed_sites(&report),
        "7 of 7 sites failed: s1, s2, s3, s4, s5, and 2 more"
    );
    assert!(says_site_line(true, &failed("shop").run));
    assert!(!says_site_line(true, &record(1)));
    assert!(says_site_line(false, &record(1)));
}

#[test]
fn columns_line_up_and_the_last_is_not_padded() {
    let text = table(
        &["site", "result", "error"],
        vec![
            vec!["a".into(), "ok".into(), String::new()],
            vec!["longer-name".into(), "failed".into(), "down".into()],
        ],
    );
    assert_eq!(
        text,
        "site         result  error\na            ok\nlonger-name  failed  down\n"
    );
}
