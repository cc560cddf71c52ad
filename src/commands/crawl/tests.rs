//! The summary written from constructed runs: every counted noun agrees with its number, and
//! a run that published nothing says nothing of publishing.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use clap::Parser;
use sitemapper_crawl::{
    AddressPolicy, BrowserReport, ConcurrencyReport, CrawlSummary, Refusal, RenderMode,
    RenderReport, RequestLog, SettledScope, SiteAccess, SiteDecision, SiteSession, SitemapSeeding,
    TrapKind, TrapReport,
};
use sitemapper_site::{
    CanonicalsElsewhere, CrawlReport, Example, NotListed, NotListedGroup, Notes, RunFacts,
    documents_line, write_rendering,
};
use sitemapper_sitemap::{Format, Published, Written, WrittenChild};
use sitemapper_store::{
    ChangeCounts, KeptPages, Reason, ReasonCount, RunId, TransientCause, Verdict,
};
use url::Url;

use crate::cli::{Cli, Command};
use crate::settings::CrawlSettings;

/// The nouns the summary counts, each with its plural.
const NOUNS: [(&str, &str); 14] = [
    ("page", "pages"),
    ("request", "requests"),
    ("URL", "URLs"),
    ("link", "links"),
    ("file", "files"),
    ("time", "times"),
    ("host", "hosts"),
    ("kind", "kinds"),
    ("cookie", "cookies"),
    ("WebSocket", "WebSockets"),
    ("entry", "entries"),
    ("problem", "problems"),
    ("warning", "warnings"),
    ("finding", "findings"),
];

/// Words that may stand between a number and the noun it counts.
const BEFORE_NOUN: [&str; 4] = ["queued", "other", "HTML", "more"];

/// Every place in `text` where a number and the noun it counts disagree: "1 pages",
/// "2 page", "0 page".
fn disagreements(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for line in text.lines() {
        let words: Vec<&str> = line
            .split_whitespace()
            .map(|word| word.trim_matches(|c: char| ",.:;()".contains(c)))
            .collect();
        for (position, number) in words.iter().enumerate() {
            let Ok(number) = number.parse::<u64>() else {
                continue;
            };
            let mut next = words.get(position + 1).copied().unwrap_or_default();
            if BEFORE_NOUN.contains(&next) {
                next = words.get(position + 2).copied().unwrap_or_default();
            }
            let wrong = NOUNS.iter().any(|(singular, plural)| {
                if number == 1 {
                    next == *plural
                } else {
                    next == *singular
                }
            });
            if wrong {
                found.push(line.to_string());
            }
        }
    }
    found
}

/// `sitemapper crawl https://example.com/ FLAGS`, resolved.
fn crawl_settings(flags: &[&str]) -> CrawlSettings {
    let argv = ["sitemapper", "crawl", "https://example.com/"]
        .iter()
        .chain(flags);
    let Command::Crawl(args) = Cli::try_parse_from(argv)
        .unwrap_or_else(|error| panic!("{error}"))
        .command
    else {
        panic!("not a crawl command");
    };
    CrawlSettings::resolve(*args, toml::from_str("").unwrap()).unwrap()
}

fn url(text: &str) -> Url {
    Url::parse(text).unwrap()
}

/// A crawl's report in which every number the summary shows is `n`.
fn crawl_summary(n: u64) -> CrawlSummary {
    let root = url("https://example.com/");
    let mut refused = BTreeMap::new();
    for refusal in [
        Refusal::RobotsDisallowed,
        Refusal::PrivateAddress,
        Refusal::NotHttp,
        Refusal::RequestBudget,
        Refusal::OtherHostBudget,
        Refusal::Method,
        Refusal::WebSocket,
    ] {
        refused.insert(refusal, n);
    }
    let other_hosts = (0..n)
        .map(|host| (format!("cdn{host}.example"), 1))
        .collect();
    CrawlSummary {
        scope: SettledScope {
            seed: root.clone(),
            root: root.clone(),
            subdomains_of: None,
            moved_from: None,
            narrowed_by_include: false,
            narrowed_by_exclude: false,
            wider_than_seed: false,
            private_network: false,
        },
        pages_visited: n,
        requests: n,
        revalidated: n,
        urls_discovered: n,
        beyond_max_urls: n,
        urls_lost: 0,
        addresses: AddressPolicy::default(),
        session: Arc::new(SiteSession::new(SiteAccess::default(), &root, false)),
        beyond_max_depth: n,
        left_by_max_pages: n,
        request_budget_exhausted: false,
        traps: vec![TrapReport {
            kind: TrapKind::RepeatedSegments,
            example: "https://example.com/a/a/a/".to_string(),
            urls_cut: n,
        }],
        session_parameters: Vec::new(),
        render: RenderReport {
            mode: RenderMode::Auto,
            decision: SiteDecision::Renders,
            html_pages: n,
            rendered: n,
            templates_probed: n,
            templates_rendered: n,
            found_urls: n,
            timed_out: n,
            failed: n,
            not_rendered: n,
            browser: Some(BrowserReport {
                started: true,
                restarts: u32::try_from(n).unwrap(),
                peak_memory: None,
                not_from_a_page: n,
            }),
            requests: RequestLog {
                other_hosts,
                refused,
                ..RequestLog::default()
            },
            hash_routes: (0..n).map(|route| format!("#/route{route}")).collect(),
            ..RenderReport::default()
        },
        concurrency: ConcurrencyReport {
            adaptive: true,
            final_limit: usize::try_from(n).unwrap(),
            max_reached: usize::try_from(n).unwrap(),
            decreases: u32::try_from(n).unwrap(),
        },
        interrupted: false,
        sitemap_seeding: Some(SitemapSeeding {
            looked: Some(sitemapper_crawl::SitemapFoundBy::RobotsTxt),
            not_read: Vec::new(),
            read: n,
            skipped: n,
            unreadable: n,
            urls_queued: n,
            not_reached: false,
        }),
        documents: None,
        elapsed: Duration::from_secs(1),
    }
}

/// What a run with `n` of everything wrote: the index and 39 + `n` files of `n` URLs each,
/// so that `n` of them are beyond what the summary names one by one.
fn written(n: u64) -> Written {
    let children: Vec<WrittenChild> = (0..39 + n)
        .map(|file| WrittenChild {
            name: format!("sitemap-{file:05}.xml"),
            group: String::new(),
            urls: n,
            newest: None,
            digest: 0,
        })
        .collect();
    let mut files: Vec<String> = children.iter().map(|child| child.name.clone()).collect();
    files.push("sitemap.xml".to_string());
    Written {
        files,
        children,
        urls: n,
        is_index: true,
        format: Format::Xml,
    }
}

/// The summary of a run in which every number is `n`, with `flags` given to the crawl; a
/// run that publishes its sitemap, or one that does not (an audit's); the database's
/// second run, or its first (`first_run`).
fn summary_text(n: u64, flags: &[&str], published_sitemaps: bool, first_run: bool) -> String {
    let mut settings = crawl_settings(flags);
    settings.site.publishes_sitemaps = published_sitemaps;
    let crawl = crawl_summary(n);
    let notes = Notes::default();
    let not_listed = NotListed {
        groups: vec![NotListedGroup {
            verdict: Verdict::Excluded,
            reason: Some(Reason::NoIndex),
            count: n,
            examples: (0..n.min(1))
                .map(|_| Example {
                    url: "https://example.com/hidden".to_string(),
                    referrer: None,
                })
                .collect(),
        }],
    };
    let written = [written(n)];
    let published = Published {
        files: Vec::new(),
        unchanged: Vec::new(),
        removed_stale: Vec::new(),
    };
    let media = media(n);
    let kept = KeptPages {
        from: (!first_run).then_some(RunId(1)),
        kept: vec![(TransientCause::Status(503), n)],
        dropped: vec![(TransientCause::Status(503), n)],
    };
    let facts = RunFacts {
        crawl: &crawl,
        notes: &notes,
        resumed: None,
        elapsed: Duration::from_secs(1),
        reason_counts: vec![ReasonCount {
            verdict: Verdict::Indexable,
            reason: None,
            count: n,
        }],
        only_from_sitemaps: Some(n),
        not_listed: &not_listed,
        canonicals_elsewhere: vec![CanonicalsElsewhere {
            pages: n,
            example: url("https://www.example.org/"),
            scope_root: url("https://example.com/"),
        }],
        written: &written,
        published: &published,
        media: &media,
        lastmod_kept: n,
        kept: &kept,
        since: (!first_run).then_some((
            RunId(1),
            ChangeCounts {
                added: n,
                removed: n,
                changed: n,
            },
        )),
        database: &PathBuf::from("crawl.db"),
        notified: Some("IndexNow: first run, nothing to compare with: not notified."),
    };
    let mut out = Vec::new();
    CrawlReport::new(facts, &settings.site)
        .write_run(&mut out)
        .unwrap();
    String::from_utf8(out).unwrap()
}

/// `n` of everything the video entries and the news sitemap count, and `n` videos left out
/// named.
fn media(n: u64) -> sitemapper_site::MediaReport {
    let video = sitemapper_extract::IncompleteVideo {
        origin: sitemapper_extract::VideoOrigin::Element,
        label: Some("Clip".to_string()),
        missing: vec![sitemapper_extract::VideoField::Description],
    };
    sitemapper_site::MediaReport {
        videos: n,
        video_pages: n,
        videos_left_out: n + 1,
        left_out: (0..n)
            .map(|_| ("https://example.com/clip".to_string(), video.clone()))
            .collect(),
        news: Some(sitemapper_site::NewsReport {
            file: (n > 0).then(|| "sitemap-news.xml".to_string()),
            articles: n,
            cut: n,
            without_language: n,
            without_title: n,
        }),
    }
}

/// Flags that make the summary say more: cookies sent, the list of URLs not listed, videos
/// and news.
fn flags(n: u64) -> Vec<String> {
    let mut flags = vec![
        "--video".to_string(),
        "--news".to_string(),
        "Times".to_string(),
        "--out".to_string(),
        "out".to_string(),
        "--list-not-listed".to_string(),
        "not-listed.csv".to_string(),
        "--state".to_string(),
        "crawl.db".to_string(),
    ];
    for cookie in 0..n {
        flags.push("--cookie".to_string());
        flags.push(format!("c{cookie}=v"));
    }
    flags
}

#[test]
fn every_count_agrees_with_its_noun_for_0_1_and_2() {
    for n in [0, 1, 2] {
        let flags = flags(n);
        let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
        let text = summary_text(n, &flags, true, false);
        assert_eq!(
            disagreements(&text),
            Vec::<String>::new(),
            "n = {n}:\n{text}"
        );
        if n > 0 {
            // Each line that counts is there to be checked.
            for line in [
                "Crawled https://example.com/",
                "Stopped by --max-pages",
                "Crawler trap cut short",
                "The site's sitemaps:",
                "Rendered ",
                "The browser crashed and was started again",
                "The browser made",
                "Listed: ",
                "The URLs not listed (",
                "... and ",
                "Unchanged (304",
                "lastmod kept",
                "cookie",
                "Video entries: ",
                "https://example.com/clip: <video> \"Clip\": no description",
                "News: ",
            ] {
                assert!(text.contains(line), "n = {n}: no {line:?} in\n{text}");
            }
        }
    }
    let one = summary_text(1, &["--out", "out", "--cookie", "a=1"], true, false);
    for line in [
        "1 page visited, 1 request, 1 URL discovered.",
        "Stopped by --max-pages: 1 queued URL not visited.",
        "started again 1 time.",
        "The browser made 1 request for scripts, styles and data to 1 other host",
        "The browser was refused 1 WebSocket.",
        "Listed: 1 URL.",
        "sitemap-00000.xml  1 URL",
        "... and 1 more file (",
        "Sent to the site's origins only: 1 cookie.",
        "1 page declares a canonical on www.example.org",
    ] {
        assert!(one.contains(line), "no {line:?} in\n{one}");
    }
    let flags = flags(1);
    let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
    let one = summary_text(1, &flags, true, false);
    for line in [
        "Video entries: 1 on 1 page; 2 videos left out, lacking what an entry needs:",
        "  ... and 1 more",
        "News: 1 article in sitemap-news.xml; 1 older article left out beyond the 1,000 newest; \
         1 article left out without a language (no <html lang>, no --news-language); 1 article \
         left out without a headline or <title>.",
    ] {
        assert!(one.contains(line), "no {line:?} in\n{one}");
    }
    let two = summary_text(2, &["--out", "out"], true, false);
    for line in [
        "2 pages visited, 2 requests, 2 URLs discovered.",
        "started again 2 times.",
        "to 2 other hosts",
        "Rendered 6 of 2 HTML pages: 2 of 2 kinds of page",
    ] {
        assert!(two.contains(line), "no {line:?} in\n{two}");
    }
}

#[test]
fn every_reason_to_render_agrees_with_its_counts() {
    let settings = crawl_settings(&[]);
    for n in [0, 1, 2] {
        for decision in [
            SiteDecision::Renders,
            SiteDecision::ReadAsServed,
            SiteDecision::Undecided,
        ] {
            let mut render = crawl_summary(n).render;
            render.decision = decision;
            render.rendered = 1;
            render.templates_learned = n;
            render.unfinished_rendered = n;
            let mut out = Vec::new();
            write_rendering(&mut out, &render, &settings.site).unwrap();
            let text = String::from_utf8(out).unwrap();
            assert_eq!(
                disagreements(&text),
                Vec::<String>::new(),
                "{decision:?}, n = {n}:\n{text}"
            );
        }
    }
}

#[test]
fn the_summary_says_why_unfinished_pages_were_rendered_and_what_was_learned() {
    let settings = crawl_settings(&[]);
    let said = |decision: SiteDecision, learned: u64, unfinished: u64| {
        let mut render = crawl_summary(1).render;
        render.decision = decision;
        render.templates_probed = u64::from(decision != SiteDecision::Undecided);
        render.templates_rendered = u64::from(decision == SiteDecision::Renders);
        (render.templates_learned, render.unfinished_rendered) = (learned, unfinished);
        render.rendered = 7;
        let mut out = Vec::new();
        write_rendering(&mut out, &render, &settings.site).unwrap();
        String::from_utf8(out).unwrap()
    };
    let next = said(SiteDecision::Undecided, 0, 1);
    assert!(
        next.contains(
            "HTML page: 1 page showed it was unfinished (a loading text, a busy element or an \
             empty list) and was rendered for itself."
        ),
        "{next}"
    );
    let menu = said(SiteDecision::Renders, 1, 2);
    assert!(
        menu.contains(
            "1 of 1 kind of page (pages that load the same scripts) builds links in JavaScript; \
             that kind drew the same links on every page, learned after a few renders, and the \
             other pages of that kind were read as served; 2 pages showed they were unfinished"
        ),
        "{menu}"
    );
}

#[test]
fn a_run_that_published_no_sitemap_says_nothing_of_publishing() {
    let flags = flags(1);
    let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
    for first_run in [false, true] {
        let published = summary_text(1, &flags, true, first_run);
        let kept = summary_text(1, &flags, false, first_run);
        let lines = if first_run {
            [
                "Wrote sitemap",
                "First run in crawl.db",
                "lastmod kept",
                "IndexNow",
            ]
        } else {
            ["Wrote sitemap", "Since run #1", "lastmod kept", "IndexNow"]
        };
        for line in lines {
            assert!(published.contains(line), "no {line:?} in\n{published}");
            assert!(!kept.contains(line), "{line:?} in\n{kept}");
        }
    }
    let kept = summary_text(1, &flags, false, true);
    // What the crawl found is said all the same.
    for line in [
        "Crawled https://example.com/",
        "Listed: 1 URL.",
        "Not listed:",
    ] {
        assert!(kept.contains(line), "no {line:?} in\n{kept}");
    }
}

#[test]
fn the_agreement_check_finds_what_it_is_for() {
    assert_eq!(disagreements("Wrote 1 files."), ["Wrote 1 files."]);
    assert_eq!(
        disagreements("from 2 other host (-v)"),
        ["from 2 other host (-v)"]
    );
    assert_eq!(disagreements("0 page"), ["0 page"]);
    assert!(disagreements("1 file, 2 files, 0 URLs, 1 queued URL, run #1 pages").is_empty());
}

#[test]
fn documents_are_counted_by_type_and_by_why_not() {
    use sitemapper_crawl::{DocumentKind, DocumentMiss, DocumentReport};
    assert_eq!(
        documents_line(&DocumentReport::default()),
        "Documents: none linked."
    );
    let report = DocumentReport {
        listed: [(DocumentKind::Docx, 1), (DocumentKind::Pdf, 2)].into(),
        not_listed: [(DocumentMiss::Broken, 1), (DocumentMiss::NoIndex, 2)].into(),
    };
    assert_eq!(
        documents_line(&report),
        "Documents: 3 listed (pdf 2, docx 1), 3 not listed: 2 noindex, 1 broken."
    );
    let none_listed = DocumentReport {
        not_listed: [(DocumentMiss::Disallowed, 1)].into(),
        ..DocumentReport::default()
    };
    assert_eq!(
        documents_line(&none_listed),
        "Documents: 0 listed, 1 not listed: 1 disallowed by robots.txt."
    );
}
