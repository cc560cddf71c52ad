use sitemapper_audit::{Comparison, FindingKind};

use super::*;

/// What the audit says when the site's sitemaps are `files` files of `urls` URLs and
/// `findings` pages have no title.
fn found_text(files: usize, urls: usize, findings: usize) -> String {
    let findings: Vec<Finding> = (0..findings)
        .map(|page| Finding {
            kind: FindingKind::MissingTitle,
            url: format!("https://example.com/{page}"),
            detail: String::new(),
            referrers: Vec::new(),
        })
        .collect();
    let assessment = Assessment {
        score: 90,
        audited: 3,
        previous: None,
        comparison: Comparison {
            changes: Vec::new(),
            fixed: Vec::new(),
        },
        trend: Vec::new(),
        actions: Vec::new(),
    };
    let found = Found {
        sitemap_files: files,
        sitemap_urls: urls,
        findings: &findings,
        assessment: &assessment,
        outbound: None,
    };
    let mut out = Vec::new();
    found
        .write(&mut out, Path::new("report"), None)
        .unwrap_or_else(|error| panic!("{error}"));
    String::from_utf8(out).unwrap_or_else(|error| panic!("{error}"))
}

#[test]
fn the_site_s_sitemaps_are_counted_in_their_number() {
    assert!(found_text(0, 0, 0).starts_with("Health score: "));
    assert!(found_text(1, 1, 1).starts_with("Compared with the site's sitemaps: 1 file, 1 URL.\n"));
    assert!(
        found_text(2, 2, 2).starts_with("Compared with the site's sitemaps: 2 files, 2 URLs.\n")
    );
    assert!(
        found_text(1, 0, 0).starts_with("Compared with the site's sitemaps: 1 file, 0 URLs.\n")
    );
    assert!(found_text(1, 1, 1).contains("Findings: 1.\n"));
    assert!(found_text(2, 2, 2).contains("\n        2  "));
}

#[test]
fn the_links_to_other_sites_are_one_line_of_counts() {
    let tally = OutboundTally {
        urls: 7,
        checked: 5,
        from_cache: 2,
        broken: 2,
        blocked: 1,
        redirected: 1,
        unchecked: 1,
        over_budget: 0,
        network_unavailable: false,
    };
    let text = |tally: OutboundTally| {
        let mut out = Vec::new();
        write_tally(&tally, &mut out).unwrap_or_else(|error| panic!("{error}"));
        String::from_utf8(out).unwrap_or_else(|error| panic!("{error}"))
    };
    assert_eq!(
        text(tally),
        "Links to other sites: 7 URLs, 5 checked, 2 from cache; 2 broken, 1 blocked, 1 redirected, 1 not checked (1 by robots.txt, or private addresses).\n"
    );
    let over_budget = OutboundTally {
        unchecked: 3,
        over_budget: 2,
        ..tally
    };
    assert_eq!(
        text(over_budget),
        "Links to other sites: 7 URLs, 5 checked, 2 from cache; 2 broken, 1 blocked, 1 redirected, 3 not checked (2 beyond the checks' budget: --external-max-links, --external-max-time; 1 by robots.txt, or private addresses).\n"
    );
    let offline = OutboundTally {
        urls: 7,
        from_cache: 1,
        unchecked: 6,
        network_unavailable: true,
        ..OutboundTally::default()
    };
    assert_eq!(
        text(offline),
        "Links to other sites: 7 URLs, not checked: the network looks unavailable (most hosts could not be reached; nothing was kept as broken); 1 from earlier checks.\n"
    );
}
