//! The findings, from crawl databases written through the store.

use sitemapper_store::{IgnoredHint, PageRecord, Reason, Verdict};

use super::*;

pub(crate) fn page(url: &str, verdict: Verdict) -> PageRecord {
    PageRecord {
        depth: 1,
        title: Some(format!("A descriptive title of {url}")),
        description: Some(format!("About {url}")),
        elapsed_ms: Some(10),
        body_bytes: Some(1_000),
        ..PageRecord::new(url, verdict)
    }
}

fn excluded(url: &str, status: Option<u16>, reason: Reason) -> PageRecord {
    PageRecord {
        status,
        html_ok: false,
        reason: Some(reason),
        ..page(url, Verdict::Excluded)
    }
}

/// The findings of one run of `pages`, as `(code, url, detail)`, with the site's sitemaps
/// listing `sitemap_urls` (no sitemap when empty).
pub(crate) fn audit(
    pages: Vec<PageRecord>,
    sitemap_urls: &[&str],
) -> Vec<(&'static str, String, String)> {
    let directory = tempfile::tempdir().unwrap();
    let mut store = Store::open(&directory.path().join("crawl.db")).unwrap();
    let run = store.begin_run("https://e.com/").unwrap();
    store.record_pages(run, &pages).unwrap();
    let urls: std::collections::BTreeSet<String> =
        sitemap_urls.iter().map(ToString::to_string).collect();
    let sitemaps = SiteSitemaps {
        files_read: usize::from(!urls.is_empty()),
        urls: &urls,
        unreadable: &[],
        not_fetched: &[],
        other_sites: &[],
        site: "https://e.com/",
        robots_txt: ("https://e.com/robots.txt", RobotsTxt::Unknown),
        found: &[],
        probe: &SiteProbe::default(),
    };
    let normalize = |loc: &str| loc.starts_with("https://").then(|| loc.to_string());
    findings(&store, run, &Thresholds::default(), &sitemaps, &normalize)
        .unwrap()
        .into_iter()
        .map(|finding| (finding.kind.code(), finding.url, finding.detail))
        .collect()
}

fn has(findings: &[(&'static str, String, String)], code: &str, url: &str, detail: &str) -> bool {
    findings
        .iter()
        .any(|finding| (finding.0, finding.1.as_str(), finding.2.as_str()) == (code, url, detail))
}

#[test]
fn ignored_canonical_hints_are_findings_of_their_own_kind() {
    let page = PageRecord {
        ignored_hints: vec![
            IgnoredHint::InvalidCanonical(vec!["mailto:x".to_string()]),
            IgnoredHint::ConflictingCanonicals(vec![
                "https://e.com/a".to_string(),
                "https://e.com/b".to_string(),
            ]),
        ],
        links: Some(vec![sitemapper_store::LinkRecord {
            target: "https://e.com/down".to_string(),
            kind: sitemapper_store::LinkKind::Anchor,
            anchor: None,
            nofollow: false,
        }]),
        ..page("https://e.com/", Verdict::Indexable)
    };
    let error = PageRecord {
        detail: Some("conflicting canonicals: not a hint but a message".to_string()),
        ..excluded("https://e.com/down", None, Reason::FetchError)
    };
    let findings = audit(vec![page, error], &[]);
    assert!(has(
        &findings,
        "invalid-canonical",
        "https://e.com/",
        "invalid canonical: mailto:x"
    ));
    assert!(has(
        &findings,
        "conflicting-canonicals",
        "https://e.com/",
        "conflicting canonicals: https://e.com/a https://e.com/b"
    ));
    assert_eq!(
        findings
            .iter()
            .filter(|finding| finding.0 == "conflicting-canonicals")
            .count(),
        1,
        "an error message that reads like a hint is not one: {findings:?}"
    );
    assert!(has(
        &findings,
        "broken-link",
        "https://e.com/down",
        "fetch-error: conflicting canonicals: not a hint but a message"
    ));
}

#[test]
fn canonicals_are_judged_by_what_their_target_turned_out_to_be() {
    let broken = |url: &str, target: &str| PageRecord {
        reason: Some(Reason::BrokenCanonical),
        target: Some(target.to_string()),
        ..page(url, Verdict::Indexable)
    };
    let pages = vec![
        broken("https://e.com/1", "https://e.com/moved"),
        PageRecord {
            target: Some("https://e.com/new".to_string()),
            ..page("https://e.com/moved", Verdict::Redirect)
        },
        broken("https://e.com/2", "https://e.com/private"),
        excluded("https://e.com/private", None, Reason::RobotsDisallowed),
        broken("https://e.com/3", "https://e.com/gone"),
        excluded("https://e.com/gone", Some(410), Reason::HttpStatus(410)),
        broken("https://e.com/4", "https://e.com/never"),
        PageRecord {
            target: Some("https://e.com/hidden".to_string()),
            ..page("https://e.com/5", Verdict::Canonicalised)
        },
        excluded("https://e.com/hidden", Some(200), Reason::NoIndex),
    ];
    let findings = audit(pages, &[]);
    for (code, url, detail) in [
        (
            "canonical-to-redirect",
            "https://e.com/1",
            "canonical https://e.com/moved redirects",
        ),
        (
            "canonical-to-disallowed",
            "https://e.com/2",
            "canonical https://e.com/private is blocked by robots.txt",
        ),
        (
            "canonical-to-broken",
            "https://e.com/3",
            "canonical https://e.com/gone answered 410",
        ),
        (
            "canonical-to-broken",
            "https://e.com/4",
            "canonical https://e.com/never was not fetched (unseen)",
        ),
        (
            "canonical-to-noindex",
            "https://e.com/5",
            "canonical https://e.com/hidden is noindex",
        ),
    ] {
        assert!(
            has(&findings, code, url, detail),
            "{code} {url}: {findings:?}"
        );
    }
}

#[test]
fn redirect_chains_and_loops_are_followed_to_their_end() {
    let redirect = |url: &str, target: &str| PageRecord {
        status: Some(301),
        html_ok: false,
        target: Some(target.to_string()),
        ..page(url, Verdict::Redirect)
    };
    let findings = audit(
        vec![
            redirect("https://e.com/a", "https://e.com/b"),
            redirect("https://e.com/b", "https://e.com/c"),
            page("https://e.com/c", Verdict::Indexable),
            redirect("https://e.com/x", "https://e.com/y"),
            redirect("https://e.com/y", "https://e.com/x"),
        ],
        &[],
    );
    assert!(has(
        &findings,
        "redirect-chain",
        "https://e.com/a",
        "2 hops: https://e.com/a -> https://e.com/b -> https://e.com/c"
    ));
    assert!(has(
        &findings,
        "redirect-loop",
        "https://e.com/x",
        "https://e.com/x -> https://e.com/y -> https://e.com/x"
    ));
}

#[test]
fn listed_pages_sharing_a_title_name_each_other() {
    let titled = |url: &str, title: &str| PageRecord {
        title: Some(title.to_string()),
        ..page(url, Verdict::Indexable)
    };
    let findings = audit(
        vec![
            titled("https://e.com/a", " Same "),
            titled("https://e.com/b", "Same"),
            titled("https://e.com/c", "Other"),
            titled("https://e.com/d", "   "),
        ],
        &[],
    );
    assert!(has(
        &findings,
        "duplicate-title",
        "https://e.com/a",
        "title \"Same\" also on https://e.com/b"
    ));
    assert!(has(
        &findings,
        "duplicate-title",
        "https://e.com/b",
        "title \"Same\" also on https://e.com/a"
    ));
    assert!(has(&findings, "missing-title", "https://e.com/d", ""));
    assert!(
        !findings
            .iter()
            .any(|finding| finding.0 == "duplicate-title" && finding.1.ends_with("/c"))
    );
}

#[test]
fn the_sitemaps_are_compared_with_the_crawl_and_findings_come_most_severe_first() {
    let findings = audit(
        vec![
            home_linking_to(&["https://e.com/left-out", "https://e.com/gone"]),
            page("https://e.com/left-out", Verdict::Indexable),
            excluded("https://e.com/gone", Some(404), Reason::HttpStatus(404)),
        ],
        &[
            "https://e.com/",
            "https://e.com/gone",
            "https://e.com/orphan",
            "ftp://e.com/",
        ],
    );
    assert!(has(
        &findings,
        "sitemap-not-indexable",
        "https://e.com/gone",
        "excluded: http-404"
    ));
    assert!(has(
        &findings,
        "sitemap-not-indexable",
        "ftp://e.com/",
        "not an absolute http(s) URL"
    ));
    assert!(has(
        &findings,
        "sitemap-orphan",
        "https://e.com/orphan",
        "no link from the crawled pages leads here"
    ));
    assert!(has(
        &findings,
        "not-in-sitemap",
        "https://e.com/left-out",
        "indexable, but the site's sitemaps do not list it"
    ));
    let orphans: Vec<&str> = findings
        .iter()
        .filter(|finding| finding.0 == "sitemap-orphan")
        .map(|finding| finding.1.as_str())
        .collect();
    assert_eq!(
        orphans,
        ["https://e.com/orphan"],
        "linked pages are no orphans"
    );
    let severities: Vec<Severity> = findings
        .iter()
        .map(|finding| {
            let kind = [
                FindingKind::SitemapNotIndexable,
                FindingKind::SitemapOrphan,
                FindingKind::NotInSitemap,
                FindingKind::BrokenLink,
            ]
            .into_iter()
            .find(|kind| kind.code() == finding.0)
            .unwrap_or_else(|| panic!("unexpected {finding:?}"));
            kind.severity()
        })
        .collect();
    assert!(severities.is_sorted(), "{findings:?}");
}

/// The seed, at depth 0, linking to `targets`.
fn home_linking_to(targets: &[&str]) -> PageRecord {
    let links = targets
        .iter()
        .map(|target| sitemapper_store::LinkRecord {
            target: target.to_string(),
            kind: sitemapper_store::LinkKind::Anchor,
            anchor: None,
            nofollow: false,
        })
        .collect();
    PageRecord {
        depth: 0,
        links: Some(links),
        ..page("https://e.com/", Verdict::Indexable)
    }
}

#[test]
fn a_page_only_the_sitemaps_led_the_crawl_to_is_an_orphan_though_crawled() {
    let directory = tempfile::tempdir().unwrap();
    let mut store = Store::open(&directory.path().join("crawl.db")).unwrap();
    let run = store.begin_run("https://e.com/").unwrap();
    let sitemap = "https://e.com/sitemap.xml";
    let pages = vec![
        home_linking_to(&["https://e.com/linked"]),
        page("https://e.com/linked", Verdict::Indexable),
        PageRecord {
            referrer: Some(sitemap.to_string()),
            ..page("https://e.com/seeded", Verdict::Indexable)
        },
        PageRecord {
            referrer: Some(sitemap.to_string()),
            reason: Some(Reason::NoIndex),
            ..page("https://e.com/seeded-noindex", Verdict::Excluded)
        },
    ];
    store.record_pages(run, &pages).unwrap();
    let listed = [
        "https://e.com/",
        "https://e.com/linked",
        "https://e.com/seeded",
        "https://e.com/seeded-noindex",
    ];
    let targets: Vec<String> = listed.iter().map(ToString::to_string).collect();
    store.record_sitemap_links(sitemap, &targets).unwrap();
    let urls: std::collections::BTreeSet<String> = targets.iter().cloned().collect();
    let sitemaps = SiteSitemaps {
        files_read: 1,
        urls: &urls,
        unreadable: &[],
        not_fetched: &[],
        other_sites: &[],
        site: "https://e.com/",
        robots_txt: ("https://e.com/robots.txt", RobotsTxt::Unknown),
        found: &[],
        probe: &SiteProbe::default(),
    };
    let normalize = |loc: &str| Some(loc.to_string());
    let findings: Vec<(&str, String)> =
        findings(&store, run, &Thresholds::default(), &sitemaps, &normalize)
            .unwrap()
            .into_iter()
            .filter(|finding| finding.kind.code().starts_with("sitemap-"))
            .map(|finding| (finding.kind.code(), finding.url))
            .collect();
    let orphan = |url: &str| ("sitemap-orphan", url.to_string());
    assert_eq!(
        findings,
        [
            (
                "sitemap-not-indexable",
                "https://e.com/seeded-noindex".to_string()
            ),
            orphan("https://e.com/seeded"),
            orphan("https://e.com/seeded-noindex"),
        ],
        "the seed and the linked page are no orphans; a sitemap's entry is no link"
    );
    assert_eq!(store.listed_only_from_sitemaps(run).unwrap(), 1);
}

/// The findings about how the site offers its sitemaps, with robots.txt answering as
/// `robots_txt`, the sitemaps `found`, and `not_fetched` with those that could not be
/// fetched.
fn discovery(
    robots_txt: RobotsTxt,
    found: &[(&str, FoundBy)],
    not_fetched: &[(String, String)],
) -> Vec<(&'static str, String, String)> {
    let directory = tempfile::tempdir().unwrap();
    let mut store = Store::open(&directory.path().join("crawl.db")).unwrap();
    let run = store.begin_run("https://e.com/").unwrap();
    store.record_pages(run, &[home_linking_to(&[])]).unwrap();
    // The sitemaps read list the one page: the comparison with the crawl finds nothing.
    let urls: std::collections::BTreeSet<String> = ["https://e.com/".to_string()].into();
    let found: Vec<(String, FoundBy)> = found
        .iter()
        .map(|(url, found_by)| (url.to_string(), *found_by))
        .collect();
    let sitemaps = SiteSitemaps {
        files_read: found.len(),
        urls: &urls,
        unreadable: &[],
        not_fetched,
        other_sites: &[],
        site: "https://e.com/",
        robots_txt: ("https://e.com/robots.txt", robots_txt),
        found: &found,
        probe: &SiteProbe::default(),
    };
    let normalize = |loc: &str| Some(loc.to_string());
    findings(&store, run, &Thresholds::default(), &sitemaps, &normalize)
        .unwrap()
        .into_iter()
        .filter(|finding| {
            matches!(
                finding.kind,
                FindingKind::NoRobotsTxt | FindingKind::NoSitemap | FindingKind::SitemapNotInRobots
            )
        })
        .map(|finding| (finding.kind.code(), finding.url, finding.detail))
        .collect()
}

#[test]
fn a_site_without_robots_txt_and_sitemaps_is_told_of_both() {
    let findings = discovery(RobotsTxt::Missing, &[], &[]);
    assert_eq!(
        findings,
        [
            (
                "no-sitemap",
                "https://e.com/".to_string(),
                "no sitemap named in robots.txt, and none at the usual paths".to_string()
            ),
            (
                "no-robots-txt",
                "https://e.com/robots.txt".to_string(),
                "robots.txt answers 404 or 410".to_string()
            ),
        ]
    );
    assert_eq!(
        (
            FindingKind::NoSitemap.severity(),
            FindingKind::NoRobotsTxt.severity()
        ),
        (Severity::Warning, Severity::Notice)
    );
}

#[test]
fn a_sitemap_only_at_a_usual_path_is_not_in_robots_txt() {
    let usual = "https://e.com/sitemap.xml.gz";
    let expected = [(
        "sitemap-not-in-robots",
        usual.to_string(),
        "no Sitemap: line of https://e.com/robots.txt names it".to_string(),
    )];
    assert_eq!(
        discovery(RobotsTxt::Found, &[(usual, FoundBy::UsualPath)], &[]),
        expected
    );
    // Without a robots.txt, none names it either (and its absence is a finding too).
    let missing = discovery(RobotsTxt::Missing, &[(usual, FoundBy::UsualPath)], &[]);
    assert!(missing.contains(&expected[0]), "{missing:?}");
    assert!(missing.iter().any(|finding| finding.0 == "no-robots-txt"));
    assert_eq!(FindingKind::SitemapNotInRobots.severity(), Severity::Notice);
}

#[test]
fn sitemaps_where_they_belong_give_no_discovery_finding() {
    let named = [("https://e.com/sitemap.xml", FoundBy::RobotsTxt)];
    assert!(discovery(RobotsTxt::Found, &named, &[]).is_empty());
    let given = [("https://e.com/feeds/map.xml", FoundBy::Given)];
    assert!(discovery(RobotsTxt::Found, &given, &[]).is_empty());
    // What robots.txt says is not known (ignored, refused): nothing is said about it.
    let usual = [("https://e.com/sitemap.xml", FoundBy::UsualPath)];
    assert!(discovery(RobotsTxt::Unknown, &usual, &[]).is_empty());
    // A sitemap that is named but cannot be fetched is that, not "no sitemap".
    let not_fetched = [(
        "https://e.com/sitemap.xml".to_string(),
        "it answers 404".to_string(),
    )];
    assert!(discovery(RobotsTxt::Found, &[], &not_fetched).is_empty());
}

#[test]
fn sitemaps_not_read_are_unreadable_not_fetched_or_on_another_site_never_none() {
    let directory = tempfile::tempdir().unwrap();
    let mut store = Store::open(&directory.path().join("crawl.db")).unwrap();
    let run = store.begin_run("https://e.com/").unwrap();
    store.record_pages(run, &[home_linking_to(&[])]).unwrap();
    let urls = std::collections::BTreeSet::new();
    let text = |url: &str, why: &str| (url.to_string(), why.to_string());
    let sitemaps = SiteSitemaps {
        files_read: 0,
        urls: &urls,
        unreadable: &[text("https://e.com/map.xml", "not a sitemap: an HTML page")],
        not_fetched: &[text("https://e.com/gone.xml", "it answers 404")],
        other_sites: &["https://www.other.org/sitemap.xml".to_string()],
        site: "https://e.com/",
        robots_txt: ("https://e.com/robots.txt", RobotsTxt::Found),
        found: &[],
        probe: &SiteProbe::default(),
    };
    let normalize = |loc: &str| Some(loc.to_string());
    let found: Vec<(&str, Severity, String)> =
        findings(&store, run, &Thresholds::default(), &sitemaps, &normalize)
            .unwrap()
            .into_iter()
            .filter(|finding| {
                finding.kind.code().starts_with("sitemap-")
                    || finding.kind == FindingKind::NoSitemap
            })
            .map(|finding| (finding.kind.code(), finding.kind.severity(), finding.url))
            .collect();
    assert_eq!(
        found,
        [
            (
                "sitemap-unreadable",
                Severity::Error,
                "https://e.com/map.xml".to_string()
            ),
            (
                "sitemap-not-fetched",
                Severity::Warning,
                "https://e.com/gone.xml".to_string()
            ),
            (
                "sitemap-on-other-site",
                Severity::Notice,
                "https://www.other.org/sitemap.xml".to_string()
            ),
        ],
        "each its own kind, and none says the site has no sitemap"
    );
}

#[test]
fn what_javascript_changes_and_renderings_that_did_not_finish_are_warnings() {
    use sitemapper_store::{Rendering, ServedDifference};
    let canonical_by_script = PageRecord {
        rendering: Some(Rendering::Rendered),
        served_differences: vec![ServedDifference::Canonical(None)],
        canonical: Some("https://e.com/about".to_string()),
        target: Some("https://e.com/about".to_string()),
        ..page("https://e.com/old-about", Verdict::Canonicalised)
    };
    let noindex_by_script = PageRecord {
        rendering: Some(Rendering::Rendered),
        served_differences: vec![ServedDifference::Noindex(false)],
        ..excluded("https://e.com/drafts", Some(200), Reason::NoIndex)
    };
    let agreeing = PageRecord {
        rendering: Some(Rendering::Rendered),
        ..page("https://e.com/about", Verdict::Indexable)
    };
    let hanging = PageRecord {
        rendering: Some(Rendering::TimedOut),
        ..page("https://e.com/spinner", Verdict::Indexable)
    };
    let findings = audit(
        vec![canonical_by_script, noindex_by_script, agreeing, hanging],
        &[],
    );
    assert!(has(
        &findings,
        "rendered-differs",
        "https://e.com/old-about",
        "no canonical in the HTML as served, canonical https://e.com/about once rendered"
    ));
    assert!(has(
        &findings,
        "rendered-differs",
        "https://e.com/drafts",
        "no noindex in the HTML as served, noindex once rendered"
    ));
    assert!(has(
        &findings,
        "render-incomplete",
        "https://e.com/spinner",
        "render-timeout: the HTML as served was read"
    ));
    let about: Vec<_> = findings
        .iter()
        .filter(|finding| finding.1 == "https://e.com/about" && finding.0.starts_with("render"))
        .collect();
    assert!(about.is_empty(), "{about:?}");
}

#[test]
fn sizes_read_as_the_report_writes_them() {
    use crate::database::size_text;
    for (bytes, text) in [
        (0, "0 B"),
        (1023, "1,023 B"),
        (1024, "1 KiB"),
        (1126, "1.1 KiB"),
        (10_000, "9.8 KiB"),
        (1_048_575, "1,024 KiB"),
        (1_048_576, "1 MiB"),
        (1_877_626, "1.8 MiB"),
        (5_000_000_000, "4,768.4 MiB"),
        (u64::MAX, "17,592,186,044,416 MiB"),
    ] {
        assert_eq!(size_text(bytes), text, "{bytes}");
    }
}
