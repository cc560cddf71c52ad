//! The sites a `fleet run` has yet to start, handed to its threads so that no server (the
//! address a site's host resolves to, as the caller finds it) has more than `--per-server` of
//! them running at once.

use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::sync::{Condvar, Mutex, PoisonError};
use std::time::Duration;

use tokio::sync::watch;

use crate::file::SiteSpec;

/// How often a thread waiting for a busy server looks whether the run is stopping.
const STOP_CHECK: Duration = Duration::from_millis(250);

/// The sites waiting to start, and the sites running on each server.
pub struct SitePicker<'a> {
    waiting: Mutex<Waiting<'a>>,
    /// Told when a site ends: its server may have room again.
    freed: Condvar,
    per_server: u32,
    /// A site's server, looked up once per site.
    server_of: ServerOf<'a>,
}

/// How a site's server is found: the address its host resolves to, or any name that tells
/// servers apart.
pub type ServerOf<'a> = Box<dyn Fn(&SiteSpec) -> String + Send + Sync + 'a>;

struct Waiting<'a> {
    sites: VecDeque<&'a SiteSpec>,
    /// The server of each site looked at, by the site's name.
    server_of: HashMap<&'a str, String>,
    running: HashMap<String, u32>,
}

/// A site handed out: its server's place is given back when it is dropped.
pub struct Started<'p, 'a> {
    /// The site to run.
    pub site: &'a SiteSpec,
    server: String,
    picker: &'p SitePicker<'a>,
}

impl fmt::Debug for SitePicker<'_> {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter
            .debug_struct("SitePicker")
            .field("waiting", &self.len())
            .field("per_server", &self.per_server)
            .finish_non_exhaustive()
    }
}

impl fmt::Debug for Started<'_, '_> {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter
            .debug_struct("Started")
            .field("site", &self.site.name)
            .field("server", &self.server)
            .finish_non_exhaustive()
    }
}

impl Drop for Started<'_, '_> {
    fn drop(&mut self) {
        let mut waiting = self.picker.lock();
        if let Some(running) = waiting.running.get_mut(&self.server) {
            *running = running.saturating_sub(1);
        }
        self.picker.freed.notify_all();
    }
}

impl<'a> SitePicker<'a> {
    /// Hands out `sites`, in their order, at most `per_server` at once on each server.
    pub fn new(
        sites: VecDeque<&'a SiteSpec>,
        per_server: u32,
        server_of: ServerOf<'a>,
    ) -> SitePicker<'a> {
        SitePicker {
            waiting: Mutex::new(Waiting {
                sites,
                server_of: HashMap::new(),
                running: HashMap::new(),
            }),
            freed: Condvar::new(),
            per_server,
            server_of,
        }
    }

    /// How many sites wait to start.
    pub fn len(&self) -> usize {
        self.lock().sites.len()
    }

    /// Whether no site waits to start.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The first waiting site whose server has room, waited for while every server of the
    /// waiting sites is full; `None` once no site waits or the run stops.
    pub fn next(&self, stop: &watch::Receiver<bool>) -> Option<Started<'_, 'a>> {
        let mut waiting = self.lock();
        loop {
            if *stop.borrow() || waiting.sites.is_empty() {
                return None;
            }
            let Waiting {
                sites,
                server_of,
                running,
            } = &mut *waiting;
            let mut chosen = None;
            for (index, site) in sites.iter().enumerate() {
                let server = server_of
                    .entry(site.name.as_str())
                    .or_insert_with(|| (self.server_of)(site));
                if running.get(server.as_str()).copied().unwrap_or(0) < self.per_server {
                    chosen = Some((index, server.clone()));
                    break;
                }
            }
            if let Some((index, server)) = chosen
                && let Some(site) = sites.remove(index)
            {
                *running.entry(server.clone()).or_default() += 1;
                return Some(Started {
                    site,
                    server,
                    picker: self,
                });
            }
            waiting = self
                .freed
                .wait_timeout(waiting, STOP_CHECK)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Waiting<'a>> {
        self.waiting.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::file::Fleet;

    /// Sites a, b (both on the server `one`) and c (on `two`).
    fn sites() -> Vec<SiteSpec> {
        let text = "[defaults]\nevery = \"24h\"\n\
                    [[site]]\nname = \"a\"\nurl = \"https://one.example/a\"\nout = \"/o/a\"\n\
                    [[site]]\nname = \"b\"\nurl = \"https://one.example/b\"\nout = \"/o/b\"\n\
                    [[site]]\nname = \"c\"\nurl = \"https://two.example/\"\nout = \"/o/c\"\n";
        Fleet::parse(Path::new("f.toml"), text)
            .unwrap_or_else(|error| panic!("{error}"))
            .sites
    }

    #[test]
    fn a_full_server_waits_while_a_site_of_another_starts() {
        let sites = sites();
        let server_of = |site: &SiteSpec| {
            url::Url::parse(&site.url)
                .ok()
                .and_then(|url| url.host_str().map(str::to_string))
                .unwrap_or_default()
        };
        let picker = SitePicker::new(sites.iter().collect(), 1, Box::new(server_of));
        let (_sender, stop) = watch::channel(false);
        let name =
            |started: &Option<Started<'_, '_>>| started.as_ref().map(|s| s.site.name.clone());
        let first = picker.next(&stop);
        assert_eq!(name(&first).as_deref(), Some("a"));
        // b shares a's server, which is full: c goes first.
        let second = picker.next(&stop);
        assert_eq!(name(&second).as_deref(), Some("c"));
        assert_eq!(picker.len(), 1);
        drop(first);
        assert_eq!(name(&picker.next(&stop)).as_deref(), Some("b"));
        assert!(picker.is_empty());
    }

    #[test]
    fn a_stopped_run_hands_out_nothing_more() {
        let sites = sites();
        let picker = SitePicker::new(sites.iter().collect(), 1, Box::new(|_| String::new()));
        let (sender, stop) = watch::channel(false);
        let running = picker.next(&stop);
        assert!(running.is_some());
        sender.send_replace(true);
        assert!(picker.next(&stop).is_none());
    }
}
