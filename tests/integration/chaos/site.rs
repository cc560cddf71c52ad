//! The chaos site: what each path is in a run, before any misbehaviour, and the seeded
//! randomness every choice of the test is drawn from.

use std::collections::HashMap;

use jiff::Timestamp;

use super::SEED;

/// `/page/0` .. : linked from the seed when present in a run.
const PAGES: u64 = 12;
/// `/hub/K` pages, each the only page that links to its leaves `/hub/K/leaf/J`.
const HUBS: u64 = 3;
const LEAVES_PER_HUB: u64 = 3;
/// `/moved/K`: a redirect, sometimes through `/moved/K/via`, to `/landing/K`.
const REDIRECTS: u64 = 3;

/// The tag that makes a page noindex (docs/rules.md).
pub(super) const NOINDEX: &str = r#"<meta name="robots" content="noindex">"#;

// Randomness: a hash of the keys rather than a stream, so that any choice can be drawn again
// in any order (the server's, the oracle's) and comes out the same.

/// splitmix64's output function (Steele, Lea and Flood, "Fast splittable pseudorandom number
/// generators", OOPSLA 2014): every input bit reaches every output bit.
fn splitmix64(value: u64) -> u64 {
    let mut mixed = value.wrapping_add(0x9E37_79B9_7F4A_7C15);
    mixed = (mixed ^ (mixed >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    mixed = (mixed ^ (mixed >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    mixed ^ (mixed >> 31)
}

/// The number drawn for `keys` under [`SEED`]: the same keys always draw the same number.
pub(super) fn draw(keys: &[u64]) -> u64 {
    keys.iter()
        .fold(splitmix64(SEED), |state, &key| splitmix64(state ^ key))
}

/// FNV-1a of a text, to key draws on paths and on what is being decided.
pub(super) fn key(text: &str) -> u64 {
    text.bytes().fold(0xCBF2_9CE4_8422_2325, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01B3)
    })
}

/// True `numerator` times in `denominator`, as drawn for `keys`.
pub(super) fn chance(keys: &[u64], numerator: u64, denominator: u64) -> bool {
    draw(keys) % denominator < numerator
}

// The site.

/// What a path is in one run.
#[derive(Debug, Clone)]
pub(super) enum Resource {
    Page(Page),
    Redirect { status: u16, location: String },
    Robots,
    Missing,
}

#[derive(Debug, Clone)]
pub(super) struct Page {
    title: String,
    links: Vec<String>,
    noindex: bool,
    pub last_modified: Timestamp,
}

impl Page {
    /// The page at `path` as it is in `run`: its title and date change with its version.
    fn new(path: &str, run: u64, links: Vec<String>, noindex: bool) -> Page {
        let version = version(path, run);
        // Between 2017 and 2023: valid, and never in the future.
        let seconds = 1_500_000_000 + draw(&[key(path), version, key("date")]) % 200_000_000;
        Page {
            title: format!("{path}, version {version}"),
            links,
            noindex,
            last_modified: Timestamp::from_second(i64::try_from(seconds).unwrap()).unwrap(),
        }
    }

    pub(super) fn html(&self) -> Vec<u8> {
        let robots = if self.noindex { NOINDEX } else { "" };
        let links: String = self
            .links
            .iter()
            .map(|link| format!("<p><a href=\"{link}\">{link}</a></p>\n"))
            .collect();
        format!(
            "<!DOCTYPE html>\n<html><head><title>{}</title>{robots}</head>\n<body>\n{links}</body></html>\n",
            self.title
        )
        .into_bytes()
    }
}

/// How many times `path` was edited up to `run`: every run edits it with a chance of 1 in 3.
fn version(path: &str, run: u64) -> u64 {
    (1..=run)
        .filter(|&night| chance(&[key(path), night, key("edit")], 1, 3))
        .count() as u64
}

/// A page that is noindex in some runs.
fn page(path: &str, run: u64, links: Vec<String>) -> Resource {
    let noindex = chance(&[key(path), run, key("noindex")], 1, 6);
    Resource::Page(Page::new(path, run, links, noindex))
}

/// The site as it is in `run`. The seed links to every page of the run, so that discovery
/// is certain; hubs link on to leaves (and to removed ones, which answer 404); redirects
/// chain to landing pages, and two redirect to each other.
pub(super) fn site(run: u64) -> HashMap<String, Resource> {
    let mut site = HashMap::new();
    let mut home_links = Vec::new();
    for index in 0..PAGES {
        let path = format!("/page/{index}");
        if chance(&[key(&path), run, key("present")], 3, 4) {
            let other = draw(&[key(&path), version(&path, run), key("link")]) % PAGES;
            site.insert(
                path.clone(),
                page(&path, run, vec!["/".into(), format!("/page/{other}")]),
            );
            home_links.push(path);
        }
    }
    for hub in 0..HUBS {
        let path = format!("/hub/{hub}");
        let leaves: Vec<String> = (0..LEAVES_PER_HUB)
            .map(|leaf| format!("{path}/leaf/{leaf}"))
            .collect();
        for leaf in &leaves {
            if chance(&[key(leaf), run, key("present")], 2, 3) {
                site.insert(leaf.clone(), page(leaf, run, vec![path.clone()]));
            }
        }
        site.insert(path.clone(), page(&path, run, leaves));
        home_links.push(path);
    }
    for index in 0..REDIRECTS {
        insert_redirect_chain(&mut site, run, index);
        home_links.push(format!("/moved/{index}"));
    }
    site.insert("/loop/a".into(), redirect(302, "/loop/b"));
    site.insert("/loop/b".into(), redirect(307, "/loop/a"));
    home_links.extend(["/loop/a".into(), "/gone".into()]);
    site.insert(
        "/".into(),
        Resource::Page(Page::new("/", run, home_links, false)),
    );
    site.insert("/robots.txt".into(), Resource::Robots);
    site
}

/// `/moved/K` redirects to `/landing/K`, in some runs through `/moved/K/via`.
fn insert_redirect_chain(site: &mut HashMap<String, Resource>, run: u64, index: u64) {
    let start = format!("/moved/{index}");
    let via = format!("{start}/via");
    let landing = format!("/landing/{index}");
    let first_hop = if chance(&[key(&start), run, key("chain")], 1, 2) {
        &via
    } else {
        &landing
    };
    site.insert(start.clone(), redirect(301, first_hop));
    site.insert(via.clone(), redirect(302, &landing));
    site.insert(landing.clone(), page(&landing, run, vec![start]));
}

fn redirect(status: u16, location: &str) -> Resource {
    Resource::Redirect {
        status,
        location: location.to_string(),
    }
}

/// Whether `body` holds the noindex tag whole: a tag cut by the end of the body is dropped
/// by the parser (HTML5 tokenization, "eof-in-tag").
pub(super) fn is_noindex(body: &[u8]) -> bool {
    String::from_utf8_lossy(body).contains(NOINDEX)
}
