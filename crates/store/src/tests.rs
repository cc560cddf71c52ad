//! Tests of the crawl database against real SQLite files.

use super::*;
use jiff::Timestamp;

pub(crate) fn page(url: &str, verdict: Verdict) -> PageRecord {
    PageRecord {
        depth: 1,
        referrer: Some("https://e.com/".to_string()),
        ..PageRecord::new(url, verdict)
    }
}

pub(crate) fn at(seconds: i64) -> Timestamp {
    Timestamp::from_second(seconds).unwrap()
}

/// The version of the fingerprint function the tests take as the current one.
pub(crate) const CURRENT: u32 = 2;

/// A fingerprint of `version`.
pub(crate) fn print(version: u32, hex: &str) -> Option<Fingerprint> {
    Some(Fingerprint {
        version,
        hex: hex.to_string(),
    })
}

/// A fetched HTML page with a content fingerprint (of the current version) and, maybe, a
/// Last-Modified header.
pub(crate) fn fetched(
    url: &str,
    fingerprint: &str,
    last_modified: Option<i64>,
    fetched_at: i64,
) -> PageRecord {
    PageRecord {
        fingerprint: print(CURRENT, fingerprint),
        last_modified: last_modified.map(at),
        fetched_at: Some(at(fetched_at)),
        ..page(url, Verdict::Indexable)
    }
}

pub(crate) fn lastmod(store: &Store, run: RunId, url: &str) -> Option<Timestamp> {
    listed(store, run)
        .into_iter()
        .find(|(listed_url, _)| listed_url == url)
        .unwrap_or_else(|| panic!("{url} is not listed"))
        .1
}

#[test]
fn lastmod_is_the_header_or_the_first_time_a_change_was_seen() {
    let (_directory, mut store) = open();
    let header = "https://e.com/header";
    let quiet = "https://e.com/quiet";
    let edited = "https://e.com/edited";
    let first = store.begin_run("https://e.com/").unwrap();
    store
        .record_pages(
            first,
            &[
                fetched(header, "a", Some(1_000), 10_000),
                fetched(quiet, "b", None, 10_000),
                fetched(edited, "c", None, 10_000),
            ],
        )
        .unwrap();
    assert_eq!(lastmod(&store, first, header), Some(at(1_000)));
    assert_eq!(
        lastmod(&store, first, quiet),
        None,
        "no history: no invented lastmod"
    );
    assert_eq!(lastmod(&store, first, edited), None);

    let second = store.begin_run("https://e.com/").unwrap();
    let revalidated = PageRecord {
        revalidated: true,
        ..fetched(header, "a", Some(1_000), 20_000)
    };
    store
        .record_pages(
            second,
            &[
                revalidated,
                fetched(quiet, "b", None, 20_000),
                fetched(edited, "c2", None, 20_000),
            ],
        )
        .unwrap();
    assert_eq!(lastmod(&store, second, header), Some(at(1_000)));
    assert_eq!(lastmod(&store, second, quiet), None, "unchanged");
    assert_eq!(
        lastmod(&store, second, edited),
        Some(at(20_000)),
        "changed: seen at 20,000"
    );

    let third = store.begin_run("https://e.com/").unwrap();
    store
        .record_pages(
            third,
            &[
                fetched(header, "a2", Some(2_000), 30_000),
                fetched(quiet, "b", None, 30_000),
                fetched(edited, "c2", None, 30_000),
            ],
        )
        .unwrap();
    assert_eq!(lastmod(&store, third, header), Some(at(2_000)));
    assert_eq!(
        lastmod(&store, third, edited),
        Some(at(20_000)),
        "unchanged since"
    );
}

/// Records `pages` as a new complete run, with its listing, and returns it with its change
/// report.
pub(crate) fn complete_run(store: &mut Store, pages: &[PageRecord]) -> (RunId, ChangeReport) {
    let run = store.begin_run("https://e.com/").unwrap();
    store.record_pages(run, pages).unwrap();
    store.record_listing(run).unwrap();
    let report = store.change_report(run).unwrap();
    store.finish_run(run, RunStatus::Complete).unwrap();
    (run, report)
}

#[test]
fn content_decides_lastmod_when_the_header_moves() {
    let (_directory, mut store) = open();
    let same = "https://e.com/same";
    let edited = "https://e.com/edited";
    let backdated = "https://e.com/backdated";
    let undated = "https://e.com/undated";
    let (first, _) = complete_run(
        &mut store,
        &[
            fetched(same, "s", Some(1_000), 10_000),
            fetched(edited, "e", Some(1_000), 10_000),
            fetched(backdated, "b", Some(1_000), 10_000),
            fetched(undated, "u", None, 10_000),
        ],
    );
    assert_eq!(store.kept_lastmod_count(first).unwrap(), 0);

    // A redeploy at 15,000 re-dates every file; one page was edited, one was edited but
    // claims an older date, and one that had no header now has one.
    let (second, report) = complete_run(
        &mut store,
        &[
            fetched(same, "s", Some(15_000), 20_000),
            fetched(edited, "e2", Some(15_000), 20_000),
            fetched(backdated, "b2", Some(500), 20_000),
            fetched(undated, "u", Some(15_000), 20_000),
        ],
    );
    assert_eq!(
        lastmod(&store, second, same),
        Some(at(1_000)),
        "the same content keeps its lastmod whatever the header says"
    );
    assert_eq!(
        lastmod(&store, second, edited),
        Some(at(15_000)),
        "changed, with a newer header: the header"
    );
    assert_eq!(
        lastmod(&store, second, backdated),
        Some(at(20_000)),
        "changed, with a header older than the lastmod: when the change was seen"
    );
    assert_eq!(
        lastmod(&store, second, undated),
        None,
        "the same content: still nothing to say"
    );
    assert_eq!(report.changed, [backdated, edited]);
    assert_eq!(store.kept_lastmod_count(second).unwrap(), 2);
    assert_eq!(
        store.change_times(same).unwrap(),
        [at(1_000)],
        "no change recorded for an unchanged page"
    );
    let recorded = store.page(same).unwrap().unwrap();
    assert_eq!(
        recorded.last_modified,
        Some(at(15_000)),
        "the header served is kept for conditional requests"
    );

    // The next night serves the same headers again (no conditional request answered): no
    // header is new, nothing is kept against one. A 304 keeps the lastmod, not the header.
    let (third, report) = complete_run(
        &mut store,
        &[
            PageRecord {
                revalidated: true,
                ..fetched(same, "s", Some(15_000), 30_000)
            },
            fetched(edited, "e2", Some(15_000), 30_000),
            fetched(backdated, "b2", Some(500), 30_000),
            fetched(undated, "u", Some(15_000), 30_000),
        ],
    );
    assert_eq!(lastmod(&store, third, same), Some(at(1_000)));
    assert_eq!(lastmod(&store, third, edited), Some(at(15_000)));
    assert_eq!(lastmod(&store, third, backdated), Some(at(20_000)));
    assert!(report.changed.is_empty(), "{:?}", report.changed);
    assert_eq!(store.kept_lastmod_count(third).unwrap(), 0);
}

#[test]
fn the_change_report_compares_with_the_previous_complete_run() {
    let (_directory, mut store) = open();
    let crawl = |store: &mut Store, pages: &[PageRecord], status: RunStatus| {
        let run = store.begin_run("https://e.com/").unwrap();
        store.record_pages(run, pages).unwrap();
        store.record_listing(run).unwrap();
        let report = store.change_report(run).unwrap();
        store.finish_run(run, status).unwrap();
        report
    };
    let first = crawl(
        &mut store,
        &[
            fetched("https://e.com/a", "a", None, 1),
            fetched("https://e.com/b", "b", None, 1),
        ],
        RunStatus::Complete,
    );
    assert_eq!(first.previous, None);
    assert_eq!(first.added, ["https://e.com/a", "https://e.com/b"]);
    // A failed run is not a baseline.
    crawl(
        &mut store,
        &[fetched("https://e.com/z", "z", None, 2)],
        RunStatus::Failed,
    );
    let second = crawl(
        &mut store,
        &[
            fetched("https://e.com/b", "b2", None, 3),
            fetched("https://e.com/c", "c", None, 3),
        ],
        RunStatus::Complete,
    );
    assert_eq!(second.previous, Some(first.run));
    assert_eq!(second.added, ["https://e.com/c"]);
    assert_eq!(second.removed, ["https://e.com/a"]);
    assert_eq!(second.changed, ["https://e.com/b"]);
    store
        .record_run_counts(second.run, 7, 1, Some(second.counts()))
        .unwrap();
    let runs = store.runs().unwrap();
    assert_eq!(
        runs[0].changes,
        Some(ChangeCounts {
            added: 1,
            removed: 1,
            changed: 1
        })
    );
    assert_eq!((runs[0].requests, runs[0].revalidated), (Some(7), Some(1)));
}

fn canonicalised(url: &str, target: &str) -> PageRecord {
    PageRecord {
        target: Some(target.to_string()),
        ..page(url, Verdict::Canonicalised)
    }
}

pub(crate) fn open() -> (tempfile::TempDir, Store) {
    let directory = tempfile::tempdir().unwrap();
    let store = Store::open(&directory.path().join("crawl.db")).unwrap();
    (directory, store)
}

fn listed(store: &Store, run: RunId) -> Vec<(String, Option<Timestamp>)> {
    let mut pages = Vec::new();
    store
        .for_each_listed(run, |page| -> Result<(), StoreError> {
            pages.push((page.url.to_string(), page.lastmod));
            Ok(())
        })
        .unwrap();
    pages
}

#[test]
fn upserts_replace_facts_and_keep_the_first_run() {
    let (_directory, mut store) = open();
    let first = store.begin_run("https://e.com/").unwrap();
    store
        .record_pages(first, &[page("https://e.com/a", Verdict::Indexable)])
        .unwrap();
    let second = store.begin_run("https://e.com/").unwrap();
    let gone = PageRecord {
        status: Some(404),
        html_ok: false,
        reason: Some(Reason::HttpStatus(404)),
        ..page("https://e.com/a", Verdict::Excluded)
    };
    store
        .record_pages(second, std::slice::from_ref(&gone))
        .unwrap();
    assert_eq!(store.page("https://e.com/a").unwrap(), Some(gone));
    let (first_seen, last_seen): (i64, i64) = store
        .connection
        .query_row(
            "SELECT first_seen_run, last_seen_run FROM pages WHERE url = 'https://e.com/a'",
            [],
            |row| Ok((row.get(0)?, row.get(1)?)),
        )
        .unwrap();
    assert_eq!((first_seen, last_seen), (first.0, second.0));
}

#[test]
fn listed_pages_are_this_runs_indexable_ones_in_bytewise_order() {
    let (_directory, mut store) = open();
    let old = store.begin_run("https://e.com/").unwrap();
    store
        .record_pages(old, &[page("https://e.com/old", Verdict::Indexable)])
        .unwrap();
    let run = store.begin_run("https://e.com/").unwrap();
    let modified: Timestamp = "2024-01-02T03:04:05Z".parse().unwrap();
    store
        .record_pages(
            run,
            &[
                page("https://e.com/a", Verdict::Indexable),
                PageRecord {
                    last_modified: Some(modified),
                    ..page("https://e.com/B", Verdict::Indexable)
                },
                page("https://e.com/redirect", Verdict::Redirect),
                page("https://e.com/excluded", Verdict::Excluded),
            ],
        )
        .unwrap();
    assert_eq!(
        listed(&store, run),
        [
            ("https://e.com/B".to_string(), Some(modified)),
            ("https://e.com/a".to_string(), None)
        ]
    );
    assert_eq!(store.listed_count(run).unwrap(), 2);
}

#[test]
fn broken_canonicals_are_listed_as_themselves_and_chains_are_kept() {
    let (_directory, mut store) = open();
    let run = store.begin_run("https://e.com/").unwrap();
    let not_html = PageRecord {
        status: Some(404),
        html_ok: false,
        ..page("https://e.com/404", Verdict::Excluded)
    };
    store
        .record_pages(
            run,
            &[
                canonicalised("https://e.com/to-missing", "https://e.com/never-seen"),
                canonicalised("https://e.com/to-404", "https://e.com/404"),
                not_html,
                canonicalised("https://e.com/to-good", "https://e.com/good"),
                page("https://e.com/good", Verdict::Indexable),
                canonicalised("https://e.com/chain-a", "https://e.com/chain-b"),
                canonicalised("https://e.com/chain-b", "https://e.com/chain-c"),
                page("https://e.com/chain-c", Verdict::Indexable),
                canonicalised("https://e.com/loop-y", "https://e.com/loop-z"),
                canonicalised("https://e.com/loop-z", "https://e.com/loop-x"),
                canonicalised("https://e.com/loop-x", "https://e.com/loop-y"),
                canonicalised("https://e.com/into-loop", "https://e.com/loop-z"),
                canonicalised("https://e.com/self-loop", "https://e.com/self-loop"),
            ],
        )
        .unwrap();
    store.resolve_canonicals(run).unwrap();
    let verdict = |url: &str| {
        let page = store.page(url).unwrap().unwrap();
        (page.verdict, page.reason)
    };
    assert_eq!(
        verdict("https://e.com/to-missing"),
        (Verdict::Indexable, Some(Reason::BrokenCanonical))
    );
    assert_eq!(
        verdict("https://e.com/to-404"),
        (Verdict::Indexable, Some(Reason::BrokenCanonical))
    );
    assert_eq!(
        verdict("https://e.com/to-good"),
        (Verdict::Canonicalised, None)
    );
    assert_eq!(
        verdict("https://e.com/chain-a"),
        (Verdict::Canonicalised, None)
    );
    assert_eq!(
        verdict("https://e.com/chain-b"),
        (Verdict::Canonicalised, None)
    );
    let in_loop = (Verdict::Indexable, Some(Reason::CanonicalLoop));
    assert_eq!(
        verdict("https://e.com/loop-x"),
        in_loop,
        "the smallest URL of the loop"
    );
    assert_eq!(verdict("https://e.com/self-loop"), in_loop);
    for url in [
        "https://e.com/loop-y",
        "https://e.com/loop-z",
        "https://e.com/into-loop",
    ] {
        assert_eq!(verdict(url), (Verdict::Canonicalised, None), "{url}");
    }
}

#[test]
fn canonicals_out_of_scope_are_read_back_with_their_targets() {
    let (_directory, mut store) = open();
    let run = store.begin_run("https://staging.e.com/").unwrap();
    let elsewhere = |url: &str, target: &str| PageRecord {
        reason: Some(Reason::CanonicalOutOfScope),
        target: Some(target.to_string()),
        ..page(url, Verdict::Excluded)
    };
    store
        .record_pages(
            run,
            &[
                page("https://staging.e.com/", Verdict::Indexable),
                elsewhere("https://staging.e.com/a", "https://www.e.com/a"),
                elsewhere("https://staging.e.com/b", "https://www.e.com/b"),
            ],
        )
        .unwrap();
    let mut targets = Vec::new();
    store
        .for_each_out_of_scope_canonical(run, |target| -> Result<(), StoreError> {
            targets.push(target.to_string());
            Ok(())
        })
        .unwrap();
    targets.sort();
    assert_eq!(targets, ["https://www.e.com/a", "https://www.e.com/b"]);
}

#[test]
fn reasons_are_counted_per_run() {
    let (_directory, mut store) = open();
    let run = store.begin_run("https://e.com/").unwrap();
    let excluded = |url: &str, reason: Reason| PageRecord {
        reason: Some(reason),
        ..page(url, Verdict::Excluded)
    };
    store
        .record_pages(
            run,
            &[
                page("https://e.com/", Verdict::Indexable),
                excluded("https://e.com/1", Reason::HttpStatus(404)),
                excluded("https://e.com/2", Reason::HttpStatus(404)),
                excluded("https://e.com/3", Reason::NoIndex),
            ],
        )
        .unwrap();
    let counts = store.reason_counts(run).unwrap();
    assert_eq!(
        counts,
        [
            ReasonCount {
                verdict: Verdict::Excluded,
                reason: Some(Reason::HttpStatus(404)),
                count: 2
            },
            ReasonCount {
                verdict: Verdict::Excluded,
                reason: Some(Reason::NoIndex),
                count: 1
            },
            ReasonCount {
                verdict: Verdict::Indexable,
                reason: None,
                count: 1
            },
        ]
    );
}

#[test]
fn runs_are_listed_newest_first_with_their_counts() {
    let (_directory, mut store) = open();
    let first = store.begin_run("https://e.com/").unwrap();
    store.finish_run(first, RunStatus::Failed).unwrap();
    let second = store.begin_run("https://e.com/").unwrap();
    store
        .record_pages(
            second,
            &[
                page("https://e.com/", Verdict::Indexable),
                page("https://e.com/x", Verdict::Redirect),
            ],
        )
        .unwrap();
    store.finish_run(second, RunStatus::Complete).unwrap();
    let runs = store.runs().unwrap();
    assert_eq!(runs.len(), 2);
    assert_eq!(
        (
            runs[0].id,
            runs[0].status,
            runs[0].pages_seen,
            runs[0].pages_listed
        ),
        (second, RunStatus::Complete, 2, 1)
    );
    assert_eq!((runs[1].id, runs[1].status), (first, RunStatus::Failed));
    assert!(runs[0].finished_at.is_some());
    assert_eq!(store.latest_run().unwrap(), Some(second));
}

#[test]
fn the_scope_is_bound_once_and_read_back() {
    let (_directory, mut store) = open();
    assert_eq!(store.scope().unwrap(), None);
    assert_eq!(store.latest_seed().unwrap(), None);
    store.bind_scope("https://e.com/blog/").unwrap();
    store.begin_run("https://e.com/blog/post").unwrap();
    assert_eq!(
        store.scope().unwrap().as_deref(),
        Some("https://e.com/blog/")
    );
    assert_eq!(
        store.latest_seed().unwrap().as_deref(),
        Some("https://e.com/blog/post")
    );
}

#[test]
fn the_disk_queue_is_first_in_first_out_across_batches() {
    let (_directory, mut store) = open();
    let row = |index: u32| QueuedRow {
        url: format!("https://e.com/{index}"),
        depth: index % 7,
        chain: index % 3,
    };
    store
        .queue_push(&(0..10).map(row).collect::<Vec<_>>())
        .unwrap();
    assert_eq!(
        store.queue_pop(4).unwrap(),
        (0..4).map(row).collect::<Vec<_>>()
    );
    store
        .queue_push(&(10..15).map(row).collect::<Vec<_>>())
        .unwrap();
    assert_eq!(
        store.queue_pop(100).unwrap(),
        (4..15).map(row).collect::<Vec<_>>()
    );
    assert!(store.queue_pop(5).unwrap().is_empty());
    store.queue_push(&[row(20)]).unwrap();
    store.queue_clear().unwrap();
    assert!(store.queue_pop(5).unwrap().is_empty());
}

#[test]
fn the_disk_queue_works_while_another_connection_records_pages() {
    let directory = tempfile::tempdir().unwrap();
    let path = directory.path().join("crawl.db");
    let mut recorder = Store::open(&path).unwrap();
    let run = recorder.begin_run("https://e.com/").unwrap();
    let mut queue = Store::open(&path).unwrap();
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let writing = {
        let done = std::sync::Arc::clone(&done);
        std::thread::spawn(move || {
            let mut batch = 0;
            while !done.load(std::sync::atomic::Ordering::Relaxed) && batch < 100_000 {
                let pages: Vec<PageRecord> = (0..20)
                    .map(|index| {
                        page(
                            &format!("https://e.com/{batch}/{index}"),
                            Verdict::Indexable,
                        )
                    })
                    .collect();
                recorder.record_pages(run, &pages).unwrap();
                batch += 1;
            }
        })
    };
    // A read that turns into a write after the other connection committed is refused by
    // SQLite at once; the queue must not be caught by it.
    let row = |index: u32| QueuedRow {
        url: format!("https://e.com/q/{index}"),
        depth: 1,
        chain: 0,
    };
    let mut next = 0;
    for round in 0..300 {
        queue
            .queue_push(&(round * 10..round * 10 + 10).map(row).collect::<Vec<_>>())
            .unwrap();
        for popped in queue.queue_pop(7).unwrap() {
            assert_eq!(popped, row(next));
            next += 1;
        }
    }
    done.store(true, std::sync::atomic::Ordering::Relaxed);
    writing.join().unwrap();
}

#[test]
fn a_revalidated_page_keeps_what_its_last_rendering_found() {
    let (_directory, mut store) = open();
    let url = "https://e.com/old-about";
    let rendered = PageRecord {
        rendering: Some(Rendering::Rendered),
        served_differences: vec![
            ServedDifference::Canonical(None),
            ServedDifference::Noindex(true),
        ],
        ..page(url, Verdict::Canonicalised)
    };
    let first = store.begin_run("https://e.com/").unwrap();
    store
        .record_pages(first, std::slice::from_ref(&rendered))
        .unwrap();
    let read = store.page(url).unwrap().unwrap();
    assert_eq!(read.rendering, Some(Rendering::Rendered));
    assert_eq!(read.served_differences, rendered.served_differences);

    let second = store.begin_run("https://e.com/").unwrap();
    let revalidated = PageRecord {
        revalidated: true,
        ..page(url, Verdict::Canonicalised)
    };
    store.record_pages(second, &[revalidated]).unwrap();
    let read = store.page(url).unwrap().unwrap();
    assert_eq!(read.rendering, Some(Rendering::Rendered));
    assert_eq!(read.served_differences, rendered.served_differences);

    let third = store.begin_run("https://e.com/").unwrap();
    store
        .record_pages(third, &[page(url, Verdict::Indexable)])
        .unwrap();
    let read = store.page(url).unwrap().unwrap();
    assert_eq!((read.rendering, read.served_differences), (None, vec![]));
}

#[test]
fn the_pages_a_run_does_not_list_come_by_url_with_their_referrer() {
    let (_directory, mut store) = open();
    let earlier = store.begin_run("https://e.com/").unwrap();
    store
        .record_pages(
            earlier,
            &[PageRecord {
                reason: Some(Reason::HttpStatus(500)),
                ..page("https://e.com/only-before", Verdict::Excluded)
            }],
        )
        .unwrap();
    let run = store.begin_run("https://e.com/").unwrap();
    store
        .record_pages(
            run,
            &[
                PageRecord {
                    referrer: None,
                    status: None,
                    reason: Some(Reason::RobotsDisallowed),
                    ..page("https://e.com/z", Verdict::Excluded)
                },
                page("https://e.com/", Verdict::Indexable),
                PageRecord {
                    referrer: Some("https://e.com/b".to_string()),
                    status: Some(404),
                    reason: Some(Reason::HttpStatus(404)),
                    ..page("https://e.com/a", Verdict::Excluded)
                },
                canonicalised("https://e.com/c", "https://e.com/"),
            ],
        )
        .unwrap();
    let mut seen = Vec::new();
    store
        .for_each_not_listed(run, |page| -> Result<(), StoreError> {
            seen.push((
                page.url.to_string(),
                page.verdict,
                page.reason,
                page.status,
                page.referrer.map(str::to_string),
            ));
            Ok(())
        })
        .unwrap();
    let referrer = |url: &str| Some(url.to_string());
    assert_eq!(
        seen,
        [
            (
                "https://e.com/a".to_string(),
                Verdict::Excluded,
                Some(Reason::HttpStatus(404)),
                Some(404),
                referrer("https://e.com/b")
            ),
            (
                "https://e.com/c".to_string(),
                Verdict::Canonicalised,
                None,
                Some(200),
                referrer("https://e.com/")
            ),
            (
                "https://e.com/z".to_string(),
                Verdict::Excluded,
                Some(Reason::RobotsDisallowed),
                None,
                None
            ),
        ]
    );
}

#[test]
fn structured_data_is_replaced_when_read_and_kept_when_revalidated() {
    let (_directory, mut store) = open();
    let url = "https://e.com/video";
    let first = store.begin_run("https://e.com/").unwrap();
    let with = |json: Option<&str>, revalidated: bool| PageRecord {
        structured: json.map(str::to_string),
        revalidated,
        ..page(url, Verdict::Indexable)
    };
    store
        .record_pages(first, &[with(Some("{\"items\":[1]}"), false)])
        .unwrap();
    assert_eq!(
        store.structured_of(url).unwrap().as_deref(),
        Some("{\"items\":[1]}")
    );
    let second = store.begin_run("https://e.com/").unwrap();
    store.record_pages(second, &[with(None, true)]).unwrap();
    let mut seen = Vec::new();
    store
        .for_each_structured(second, |page, json| -> Result<(), StoreError> {
            seen.push((page.to_string(), json.to_string()));
            Ok(())
        })
        .unwrap();
    assert_eq!(seen, [(url.to_string(), "{\"items\":[1]}".to_string())]);
    store
        .record_pages(second, &[with(Some(""), false)])
        .unwrap();
    assert_eq!(store.structured_of(url).unwrap(), None);
    assert_eq!(store.structured_of("https://e.com/other").unwrap(), None);
}
