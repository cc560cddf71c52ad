//! Reading a fleet file grows with the file, not with its square: a fleet of 100,000 sites is
//! read in about ten times the time of one of 10,000 (a reader that counted the lines from the
//! start of the file for every key took a hundred times, and minutes).
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::fmt::Write as _;
use std::path::Path;
use std::time::{Duration, Instant};

use sitemapper_fleet::Fleet;

/// A fleet file of `sites` sites, each with a few keys of its own, after defaults.
fn fleet_text(sites: usize) -> String {
    let mut text = String::from("[defaults]\nout = \"/srv/sitemaps/{name}\"\nevery = \"1d\"\n");
    for site in 0..sites {
        let _ = write!(
            text,
            "\n[[site]]\nname = \"site-{site}\"\nurl = \"https://site-{site}.example/\"\nmax-pages = {}\n",
            site % 1000 + 1
        );
    }
    text
}

/// The shortest of `runs` readings of `text`, each checked to hold every site, and the fleet
/// read.
fn parse_time(text: &str, sites: usize, runs: usize) -> (Duration, Fleet) {
    let mut shortest = Duration::MAX;
    let mut fleet = None;
    for _ in 0..runs {
        let started = Instant::now();
        let parsed = Fleet::parse(Path::new("fleet.toml"), text).unwrap();
        shortest = shortest.min(started.elapsed());
        assert_eq!(parsed.sites.len(), sites);
        fleet = Some(parsed);
    }
    (shortest, fleet.unwrap())
}

#[test]
fn reading_grows_linearly_with_the_sites() {
    let (small_time, _) = parse_time(&fleet_text(10_000), 10_000, 3);
    let (large_time, fleet) = parse_time(&fleet_text(100_000), 100_000, 2);
    let last = &fleet.sites[99_999];
    assert_eq!(last.name, "site-99999");
    // Each site takes 5 lines after the 3 of the defaults: its `[[site]]` is on line 5 + 5 i.
    assert_eq!(last.line, 5 + 5 * 99_999);
    assert_eq!(last.options["max-pages"].line, last.line + 3);
    assert!(
        large_time < small_time * 20,
        "100,000 sites took {large_time:?}, 10,000 took {small_time:?}: more than 20 times"
    );
}
