//! A `--state` crawl killed with SIGKILL at random points and resumed with `--resume` must
//! publish exactly what one uninterrupted run publishes, every `<lastmod>` included, and must
//! not request again what the interrupted runs had finished.
//!
//! The test is black-box: it reads the published sitemap, the requests the fixture server
//! received and the binary's own output, never the crawl database, whose layout is the
//! store's to change. Each seed draws where to kill from the number of requests the server
//! has received, so the points spread over the whole crawl and are the same on every run.

use std::collections::BTreeMap;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use jiff::{Timestamp, ToSpan};

use crate::fixture::{Route, Server, Site};
use crate::harness::{Draws, Run, lastmods, sitemapper_command};

/// `loc -> lastmod` of a published sitemap.
type Lastmods = BTreeMap<String, Option<String>>;

/// SIGKILL: the process gets no chance to clean up.
const SIGKILL: i32 = 9;

/// `/p/0` .. : the bulk of the site.
const PAGES: usize = 360;
/// `/s/K`, linked from the home page; each links to every page `/p/N` with `N % SECTIONS == K`.
const SECTIONS: usize = 10;
/// Links from each `/p/N` to other pages (some twice, some with a fragment).
const LINKS_PER_PAGE: usize = 12;
/// `/old/K`: redirects to pages, linked from the home page.
const REDIRECTS: usize = 3;
/// How long the server takes over each response: enough to spread a crawl over time.
const RESPONSE_DELAY: Duration = Duration::from_millis(2);
/// How long a request past the kill point waits for its answer: longer than the test takes
/// to kill the process, so that a run cannot finish before it is killed.
const HELD: Duration = Duration::from_secs(30);
/// How long the server must receive nothing before the requests of a killed run are all
/// counted: those it wrote before it died may still be unread in the server's sockets.
const SETTLED: Duration = Duration::from_millis(300);
/// `--concurrency`: the most requests a run has in flight.
const CONCURRENCY: usize = 8;
/// The seeds: each kills and resumes a crawl of its own.
const SEEDS: u64 = 20;

/// The `Last-Modified` of a path: dates spread over years, each path its own.
fn last_modified(path: &str) -> Timestamp {
    let hash = path.bytes().fold(0xCBF2_9CE4_8422_2325_u64, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01B3)
    });
    let seconds = i64::try_from(hash % (4 * 365 * 86_400)).expect("fits");
    Timestamp::from_second(1_577_836_800).expect("2020-01-01") + seconds.seconds()
}

fn html_page(path: &str, head: &str, links: &[String]) -> Route {
    let anchors: String = links
        .iter()
        .map(|link| format!("<a href=\"{link}\">{link}</a> "))
        .collect();
    let body = format!(
        "<html><head>{head}<title>{path}</title></head><body><h1>{path}</h1>{anchors}</body></html>"
    );
    let date = last_modified(path).strftime("%a, %d %b %Y %H:%M:%S GMT");
    Route::html(&body)
        .header("Last-Modified", &date.to_string())
        .delay(RESPONSE_DELAY)
}

fn home_links() -> Vec<String> {
    let mut links: Vec<String> = (0..SECTIONS)
        .map(|section| format!("/s/{section}"))
        .collect();
    links.extend((0..REDIRECTS).map(|index| format!("/old/{index}")));
    links.extend(["/hidden", "/missing", "/p/7/print", "/s/3#top", "/s/3"].map(String::from));
    links
}

fn section_links(section: usize) -> Vec<String> {
    let mut links: Vec<String> = (section..PAGES)
        .step_by(SECTIONS)
        .map(|page| format!("/p/{page}"))
        .collect();
    links.extend([
        "/".to_string(),
        format!("/s/{}", (section + 1) % SECTIONS),
        format!("/p/{section}#intro"),
    ]);
    links
}

fn page_links(page: usize) -> Vec<String> {
    let mut links: Vec<String> = (0..LINKS_PER_PAGE)
        .map(|index| {
            let target = (page * 31 + index * 97 + 1) % PAGES;
            match index % 4 {
                0 => format!("/p/{target}#part-{index}"),
                _ => format!("/p/{target}"),
            }
        })
        .collect();
    links.push(links[1].clone());
    links.extend([format!("/s/{}", page % SECTIONS), "/".to_string()]);
    links
}

/// What the site serves at `target`; None is a 404.
fn resource(target: &str) -> Option<Route> {
    let number = |prefix: &str| target.strip_prefix(prefix)?.parse::<usize>().ok();
    let canonical = |to: &str| format!("<link rel=\"canonical\" href=\"{to}\">");
    match target {
        "/" => Some(html_page(target, "", &home_links())),
        "/hidden" => Some(html_page(
            target,
            "<meta name=\"robots\" content=\"noindex\">",
            &["/p/1".to_string()],
        )),
        "/p/7/print" => Some(html_page(target, &canonical("/p/7"), &[])),
        "/old/2" => Some(Route::redirect(302, "/old/2/via")),
        "/old/2/via" => Some(Route::redirect(301, &format!("/p/{}", PAGES - 1))),
        _ => {
            if let Some(section) = number("/s/").filter(|section| *section < SECTIONS) {
                Some(html_page(target, "", &section_links(section)))
            } else if let Some(page) = number("/p/").filter(|page| *page < PAGES) {
                Some(html_page(target, "", &page_links(page)))
            } else {
                number("/old/")
                    .filter(|index| *index < REDIRECTS)
                    .map(|index| Route::redirect(301, &format!("/p/{}", index * 50)))
            }
        }
    }
}

/// Every URL the sitemap must list, with its `<lastmod>`: the home page, the sections and the
/// pages; not the redirects, the noindex page, the 404 or the canonicalised print page.
fn expected_lastmods(server: &Server) -> Lastmods {
    let sections = (0..SECTIONS).map(|section| format!("/s/{section}"));
    let pages = (0..PAGES).map(|page| format!("/p/{page}"));
    std::iter::once("/".to_string())
        .chain(sections)
        .chain(pages)
        .map(|path| {
            let lastmod = last_modified(&path).strftime("%Y-%m-%dT%H:%M:%S+00:00");
            (server.url(&path), Some(lastmod.to_string()))
        })
        .collect()
}

/// The requests one crawl makes: robots.txt, the home page, the sections, the pages, the
/// redirects (one through a second hop), the noindex page, the 404 and the print page.
fn requests_of_a_crawl() -> usize {
    1 + 1 + SECTIONS + PAGES + REDIRECTS + 1 + 3
}

/// The requests the server has received, counted as they arrive, and the kill point past
/// which it holds its answers.
#[derive(Debug)]
struct Arrivals {
    received: Mutex<usize>,
    arrived: Condvar,
    hold_after: AtomicUsize,
}

impl Arrivals {
    /// Counts a request; whether its answer is held.
    fn arrive(&self) -> bool {
        let mut received = self.received.lock().unwrap();
        *received += 1;
        self.arrived.notify_all();
        *received > self.hold_after.load(Ordering::SeqCst)
    }

    fn received(&self) -> usize {
        *self.received.lock().unwrap()
    }

    /// Waits until no request has arrived for [`SETTLED`].
    fn settle(&self) {
        loop {
            let received = self.received();
            if !self.wait_for(received + 1, SETTLED) {
                return;
            }
        }
    }

    /// Waits up to `timeout` for the server to have received `count` requests; whether it has.
    fn wait_for(&self, count: usize, timeout: Duration) -> bool {
        let received = self.received.lock().unwrap();
        let (received, _) = self
            .arrived
            .wait_timeout_while(received, timeout, |received| *received < count)
            .unwrap();
        *received >= count
    }
}

/// The site, and a way to kill a crawl of it after a number of requests.
struct KillableSite {
    server: Server,
    arrivals: Arc<Arrivals>,
}

impl KillableSite {
    fn serve() -> KillableSite {
        let arrivals = Arc::new(Arrivals {
            received: Mutex::new(0),
            arrived: Condvar::new(),
            hold_after: AtomicUsize::new(usize::MAX),
        });
        let counted = Arc::clone(&arrivals);
        let server = Site::new()
            .generated(move |target| {
                let held = counted.arrive();
                let route = resource(target)?;
                Some(if held { route.delay(HELD) } else { route })
            })
            .serve();
        KillableSite { server, arrivals }
    }

    /// Starts `crawl` in the background, lets the server answer `point` more requests (those
    /// after are held, so the run cannot finish first), and SIGKILLs it once they have
    /// arrived. The requests the run made, or what went wrong.
    fn kill_after(&self, point: usize, mut crawl: Command) -> Result<usize, String> {
        let before = self.arrivals.received();
        self.arrivals
            .hold_after
            .store(before + point, Ordering::SeqCst);
        let mut child = crawl.spawn().expect("start sitemapper");
        let ended_first = self.wait_for_point(before + point, &mut child);
        // Only the process this test started; `kill` is SIGKILL on Unix.
        child.kill().expect("SIGKILL the crawl");
        let status = child.wait().expect("reap the crawl");
        // Requests the run wrote before it died may still be on their way through the
        // server's sockets: they are this run's, not the next one's.
        self.arrivals.settle();
        self.arrivals.hold_after.store(usize::MAX, Ordering::SeqCst);
        let made = self.arrivals.received() - before;
        match ended_first {
            Some(problem) => Err(format!("{problem} after {made} requests ({status})")),
            None if status.signal() == Some(SIGKILL) => Ok(made),
            None => Err(format!(
                "the run ended by itself at the kill point ({status})"
            )),
        }
    }

    /// Waits for the server to have received `count` requests; why it never will, if the
    /// crawl ended or stalled first. The timeout only notices a crawl that ended: every
    /// request wakes the wait.
    fn wait_for_point(&self, count: usize, child: &mut Child) -> Option<&'static str> {
        let deadline = Instant::now() + Duration::from_secs(60);
        while !self.arrivals.wait_for(count, Duration::from_millis(20)) {
            if child.try_wait().expect("the crawl's status").is_some() {
                return Some("the run ended before the kill point");
            }
            if Instant::now() > deadline {
                return Some("the run made no request for a minute before the kill point");
            }
        }
        None
    }
}

/// `sitemapper crawl SEED --out OUT --state STATE` with no retries, no browser,
/// [`CONCURRENCY`] and `-v` (for the line a resumed run logs with how many pages it found
/// finished), plus `extra`.
fn crawl_command(seed: &str, out: &Path, state: &Path, extra: &[&str]) -> Command {
    let (out, state) = (out.to_str().unwrap(), state.to_str().unwrap());
    let concurrency = CONCURRENCY.to_string();
    let mut args = vec![
        "crawl",
        seed,
        "--out",
        out,
        "--state",
        state,
        "--retries",
        "0",
        "--render",
        "never",
        "-v",
        "--concurrency",
        &concurrency,
    ];
    args.extend_from_slice(extra);
    sitemapper_command(&args)
}

/// [`crawl_command`] run to its end.
fn crawl_to_the_end(seed: &str, out: &Path, state: &Path, extra: &[&str]) -> Run {
    crawl_command(seed, out, state, extra)
        .output()
        .expect("run sitemapper")
        .into()
}

/// [`crawl_command`] in the background, quiet but for its log, written to `log`.
fn crawl_in_background(
    seed: &str,
    out: &Path,
    state: &Path,
    extra: &[&str],
    log: &Path,
) -> Command {
    let mut command = crawl_command(seed, out, state, extra);
    command
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(log).expect("create the log"));
    command
}

/// How many finished pages a resumed run found: `resuming run=1 finished=N` in its log.
fn finished_when_resumed(log: &str) -> Option<usize> {
    log.lines()
        .find(|line| line.contains("resuming"))
        .and_then(|line| line.split("finished=").nth(1))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|number| number.parse().ok())
}

#[test]
fn a_crawl_killed_anywhere_resumes_to_the_sitemap_of_an_uninterrupted_run() {
    let site = KillableSite::serve();
    let reference_dir = tempfile::tempdir().unwrap();
    let state = reference_dir.path().join("state.db");
    crawl_to_the_end(&site.server.url("/"), reference_dir.path(), &state, &[]).assert_success();
    let total = site.arrivals.received();
    assert_eq!(
        total,
        requests_of_a_crawl(),
        "one request a URL, and robots.txt"
    );
    let reference = lastmods(reference_dir.path());
    assert_eq!(
        reference,
        expected_lastmods(&site.server),
        "the uninterrupted run"
    );

    let seeds: Vec<SeedRun> = (1..=SEEDS)
        .map(|seed| {
            let run = crawl_killed(&site, seed, total, &reference);
            eprintln!(
                "seed {}: killed at {:?} (point, requests made); resumed with {:?} finished; {} requests to complete",
                run.seed, run.kills, run.finished, run.final_requests
            );
            run
        })
        .collect();

    let failed: Vec<String> = seeds
        .iter()
        .filter(|run| !run.problems.is_empty())
        .map(|run| {
            format!(
                "seed {} (killed at {:?}): {}",
                run.seed,
                run.kills,
                run.problems.join("; ")
            )
        })
        .collect();
    assert!(
        failed.is_empty(),
        "seeds that failed:\n{}",
        failed.join("\n")
    );
    assert!(
        seeds.iter().any(|run| run.kills.len() == 2),
        "some seeds kill the resumed run too"
    );

    let interrupted: usize = seeds
        .iter()
        .flat_map(|run| &run.kills)
        .map(|(_, made)| made)
        .sum();
    let made = interrupted + seeds.iter().map(|run| run.final_requests).sum::<usize>();
    let from_scratch = interrupted + seeds.len() * total;
    eprintln!(
        "{made} requests; {from_scratch} had each resumed run started over ({total} a crawl)"
    );
    assert!(
        made * 10 < from_scratch * 9,
        "resuming saves requests: {made} against {from_scratch} from scratch"
    );
}

/// What one seed did, for the failure message and the totals.
#[derive(Debug)]
struct SeedRun {
    seed: u64,
    /// Where each interrupted run was killed, and the requests it made.
    kills: Vec<(usize, usize)>,
    /// The finished pages each resumed run found.
    finished: Vec<usize>,
    /// The requests the completing run made.
    final_requests: usize,
    /// What went wrong: a seed that finds a bug says so here and the test fails.
    problems: Vec<String>,
}

/// One seed: a crawl killed once (for some seeds its resumed run killed again), then resumed
/// to the end and compared with the `reference`.
fn crawl_killed(site: &KillableSite, seed: u64, total: usize, reference: &Lastmods) -> SeedRun {
    let mut draws = Draws(seed);
    let url = site.server.url("/");
    let out = tempfile::tempdir().unwrap();
    let state = out.path().join("state.db");
    let log = out.path().join("killed.log");
    let mut kills = Vec::new();
    let mut finished = Vec::new();
    let mut problems = Vec::new();

    let point = draws.between(1, total);
    let killed = crawl_in_background(&url, out.path(), &state, &[], &log);
    let made = match site.kill_after(point, killed) {
        Ok(made) => made,
        Err(problem) => {
            problems.push(format!("the first run: {problem}"));
            total
        }
    };
    kills.push((point, made));
    // A resumed run requests robots.txt, the seed and at least every page the killed run
    // never requested; the killed run requested at most `CONCURRENCY` past its point (those
    // were held). A point drawn below that is reached, and the same on every machine.
    let resumed_at_least = (total + 1).saturating_sub(point + CONCURRENCY);
    if draws.next().is_multiple_of(3) && resumed_at_least > 1 {
        let point = draws.between(1, resumed_at_least);
        let resumed = crawl_in_background(&url, out.path(), &state, &["--resume"], &log);
        match site.kill_after(point, resumed) {
            Ok(made) => kills.push((point, made)),
            Err(problem) => problems.push(format!("the resumed run: {problem}")),
        }
        let resumed_log = std::fs::read_to_string(&log).unwrap();
        match finished_when_resumed(&resumed_log) {
            Some(count) => finished.push(count),
            None => problems.push(format!(
                "the killed second run did not resume:\n{}",
                tail(&resumed_log)
            )),
        }
    }
    if out.path().join("sitemap.xml").exists() {
        problems.push("a killed run published a sitemap".to_string());
    }

    let before = site.arrivals.received();
    let run = crawl_to_the_end(&url, out.path(), &state, &["--resume"]);
    let final_requests = site.arrivals.received() - before;
    match resumed_finished(&run) {
        Ok(count) => finished.push(count),
        Err(problem) => problems.push(problem),
    }
    if !finished.is_sorted() {
        problems.push(format!(
            "pages finished before a kill were not finished after it: {finished:?}"
        ));
    }
    let last_finished = finished.last().copied().unwrap_or_default();
    if run.code == 0 {
        let listed = lastmods(out.path());
        if &listed != reference {
            problems.push(difference(reference, &listed));
        }
    }
    // robots.txt, the seed again (its visit settles the scope) and what was not finished.
    if final_requests > (total + 1).saturating_sub(last_finished) {
        problems.push(format!(
            "{final_requests} requests after resuming with {last_finished} of {total} finished: finished pages requested again"
        ));
    }
    SeedRun {
        seed,
        kills,
        finished,
        final_requests,
        problems,
    }
}

/// How many finished pages the run that completed found on resuming, or why it did not.
fn resumed_finished(run: &Run) -> Result<usize, String> {
    if run.code != 0 {
        return Err(format!(
            "the resumed run failed ({}):\n{}",
            run.code,
            tail(&run.stderr)
        ));
    }
    if !run
        .stderr
        .contains("Resumed run #1 where it was interrupted.")
    {
        return Err(format!(
            "the last run did not resume:\n{}",
            tail(&run.stderr)
        ));
    }
    finished_when_resumed(&run.stderr)
        .ok_or_else(|| format!("no resuming line with finished=N:\n{}", tail(&run.stderr)))
}

/// What the resumed sitemap lists differently from the reference: how many URLs are missing,
/// extra or with another lastmod, and the first few of each.
fn difference(reference: &Lastmods, listed: &Lastmods) -> String {
    let missing: Vec<&String> = reference
        .keys()
        .filter(|url| !listed.contains_key(*url))
        .collect();
    let extra: Vec<&String> = listed
        .keys()
        .filter(|url| !reference.contains_key(*url))
        .collect();
    let lastmods: Vec<String> = reference
        .iter()
        .filter_map(|(url, lastmod)| {
            let got = listed.get(url)?;
            (got != lastmod).then(|| format!("{url}: {got:?} instead of {lastmod:?}"))
        })
        .collect();
    format!(
        "{} URLs missing {:?}, {} extra {:?}, {} with a wrong lastmod {:?}",
        missing.len(),
        first_few(&missing),
        extra.len(),
        first_few(&extra),
        lastmods.len(),
        first_few(&lastmods)
    )
}

fn first_few<T>(items: &[T]) -> &[T] {
    &items[..items.len().min(5)]
}

/// The last lines of a run's log: its summary, without a line for every page.
fn tail(log: &str) -> String {
    let lines: Vec<&str> = log.lines().collect();
    lines[lines.len().saturating_sub(20)..].join("\n")
}
